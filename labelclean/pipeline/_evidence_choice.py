"""Which model gives the evidence: the candidates compared out of fold.

:class:`EvidenceChoiceMixin` holds the part of
:class:`~labelclean.pipeline._model_selection.ModelSelectionMixin` that
chooses the evidence's model among several (``model='auto'``, or a list of
kinds): each candidate's out-of-fold probabilities on the labels it would
give the evidence on (:meth:`~EvidenceChoiceMixin._evidence_labels`),
:func:`~labelclean.pipeline._comparison.choose_model`'s choice, and the
chosen one's out-of-fold evidence.
"""

import inspect

import numpy as np
from sklearn.model_selection import StratifiedKFold

from labelclean.pipeline._comparison import MODEL_SELECTION_MAX_SAMPLES, choose_model
from labelclean.pipeline._folds import folds_per_repeat
from labelclean.utils._sampling import stratified_rows

__all__ = ["EvidenceChoiceMixin", "fit_accepts"]


def fit_accepts(estimator, name: str) -> bool:
    """Whether ``estimator.fit`` takes the argument ``name``."""
    return name in inspect.signature(estimator.fit).parameters


class EvidenceChoiceMixin:
    """The evidence's model chosen among candidates (not public).

    Needs what :class:`~labelclean.pipeline._model_selection.ModelSelectionMixin`
    has: ``_make_model``, ``_out_of_fold``, ``cv_repeats`` and a fitted
    ``confidence_estimator_``.
    """

    def _select_model(self, names, seed, Z, codes, soft, folds, in_train, weight):
        """Out-of-fold probabilities of the evidence's model, and the choice.

        With several candidates, each is evaluated out of fold on the labels
        it would give the evidence on (:meth:`_compared`): the observed
        labels, or for CB-AdaBoost soft labels that did not use the held-out
        fold's labels (:meth:`_soft_labels_without`). :func:`choose_model`
        picks one. A model on the observed labels keeps the comparison's
        probabilities as its evidence; one on soft labels is evaluated out of
        fold again on the confidence stage's soft labels. On more than
        :data:`MODEL_SELECTION_MAX_SAMPLES` rows the comparison runs on a
        stratified, seeded sample of that many rows (with its own folds), and
        the chosen model is evaluated again on every row.
        """
        if len(names) == 1 or folds is None:
            labels = self._evidence_labels(names[0], seed, codes, soft)
            oofs = self._out_of_fold(
                names, seed, Z, codes, labels, folds, in_train, weight
            )
            selection = choose_model(oofs, codes)[1]
            self._record_labels(selection, seed)
            return oofs, selection
        k = folds_per_repeat(folds, self.cv_repeats)
        rows = stratified_rows(
            codes, MODEL_SELECTION_MAX_SAMPLES, min_per_class=k, seed=seed
        )
        if rows is None:
            compared = self._compared(
                names, seed, Z, codes, soft, folds, in_train, weight
            )
            chosen, selection = choose_model(compared, codes)
            self._record_labels(selection, seed)
            if not self._learns_soft_labels(chosen, seed) or not hasattr(
                self.confidence_estimator_, "soft_labels_without"
            ):
                # observed or cross-fitted soft labels: the comparison was
                # the evidence
                return {chosen: compared[chosen]}, selection
        else:
            splitter = StratifiedKFold(k, shuffle=True, random_state=seed)
            sub_folds = list(splitter.split(rows, codes[rows]))
            compared = self._compared(
                names,
                seed,
                Z[rows],
                codes[rows],
                soft[rows],
                sub_folds,
                in_train[rows],
                None if weight is None else weight[rows],
                row_ids=rows,
            )
            chosen, selection = choose_model(compared, codes[rows])
            self._record_labels(selection, seed)
            selection["sampled_rows"] = int(rows.shape[0])
        labels = self._evidence_labels(chosen, seed, codes, soft)
        oofs = self._out_of_fold(
            [chosen], seed, Z, codes, labels, folds, in_train, weight
        )
        return oofs, selection

    def _compared(
        self, names, seed, Z, codes, soft, folds, in_train, weight, row_ids=None
    ):
        """Each candidate's out-of-fold probabilities on the labels it would
        give the evidence on (:meth:`_evidence_labels`): the observed labels
        (one-hot), or, for a model that takes the confidence stage's soft
        labels, those recomputed without the held-out fold's labels. Neither
        shows a model the labels of the rows it is asked about, and each
        candidate is compared as it would decide: RoSR-L compared on the
        neighbours' soft labels was another model than the evidence it gives
        (docs/decisions.md, *The candidates compared on the labels they give
        evidence on*)."""
        on_soft = [name for name in names if self._learns_soft_labels(name, seed)]
        out = {}
        if on_soft:
            out.update(
                self._out_of_fold(
                    on_soft,
                    seed,
                    Z,
                    codes,
                    soft,
                    folds,
                    in_train,
                    weight,
                    row_ids=row_ids,
                    fold_soft=True,
                )
            )
        observed = [name for name in names if name not in on_soft]
        if observed:
            one_hot = np.eye(soft.shape[1])[codes]
            out.update(
                self._out_of_fold(
                    observed, seed, Z, codes, one_hot, folds, in_train, weight
                )
            )
        return {name: out[name] for name in names}

    def _evidence_labels(self, name, seed, codes, soft):
        """The labels the evidence's out-of-fold models are fitted on.

        The observed labels (one-hot): a model fitted on them never sees a
        held-out row's label, where the neighbours' soft labels carry the
        labels of the rows around it, and a small class those soft labels
        dilute keeps its rows (docs/decisions.md, *Out-of-fold evidence sees
        its fold's labels*). Except for a model whose ``fit`` takes a label
        confidence ``gamma`` (CB-AdaBoost): the confidence is part of that
        method, and without it (every ``gamma`` one) it is AdaBoost, whose
        out-of-fold probabilities saturate (30 rounds on breast_cancer with
        20 % of the labels flipped: a median highest probability of
        0.99999992, the surest rows' disagreement read as 0, and nothing was
        flagged); it keeps the soft labels.
        """
        if self._learns_soft_labels(name, seed):
            return soft
        return np.eye(soft.shape[1])[codes]

    def _record_labels(self, selection, seed) -> None:
        """Each candidate's ``fitted_on`` in ``selection``:
        ``'soft'`` (the neighbours' soft labels) or ``'observed'``, the
        labels it was compared on and gives the evidence on, for the report
        to say."""
        for name, record in selection["candidates"].items():
            soft = self._learns_soft_labels(name, seed)
            record["fitted_on"] = "soft" if soft else "observed"

    def _learns_soft_labels(self, name, seed) -> bool:
        """Whether the model ``name`` takes a label confidence ``gamma``
        (CB-AdaBoost), so that its evidence is fitted on the soft labels."""
        return fit_accepts(self._make_model(name, seed), "gamma")

    def _soft_labels_without(self, soft, rows, test, row_ids):
        """``soft`` with the soft labels of ``rows`` recomputed without the
        labels of the rows ``test`` (indices into ``soft``; ``row_ids``:
        their rows in the fit, None when the same).

        A row's soft label from its neighbours holds their labels, so a
        model fitted on the soft labels of the whole fit sees, through its
        training rows, the labels of the fold it is asked about, and
        flexible models profit most (docs/decisions.md, *Out-of-fold
        evidence sees its fold's labels*). A confidence stage without
        ``soft_labels_without`` (cross-fitted ones) keeps its soft labels.
        """
        conf = self.confidence_estimator_
        if not hasattr(conf, "soft_labels_without"):
            return soft
        ids = np.arange(soft.shape[0]) if row_ids is None else row_ids
        excluded = np.zeros(conf.soft_labels_.shape[0], dtype=bool)
        excluded[ids[test]] = True
        out = soft.copy()
        out[rows] = conf.soft_labels_without(excluded, ids[rows])
        return out
