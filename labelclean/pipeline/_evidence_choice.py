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

from labelclean.pipeline._comparison import (
    EVIDENCE_PENALTY_RULE,
    FINAL_PENALTIES,
    MODEL_SELECTION_MAX_SAMPLES,
    PENALTY_MAX_SAMPLES,
    choose_model,
)
from labelclean.pipeline._folds import folds_per_repeat
from labelclean.utils._sampling import stratified_folds, stratified_rows

__all__ = ["EvidenceChoiceMixin", "fit_accepts"]


def fit_accepts(estimator, name: str) -> bool:
    """Whether ``estimator.fit`` takes the argument ``name``."""
    return name in inspect.signature(estimator.fit).parameters


def _material(record, default, chosen) -> bool:
    """Whether ``chosen``'s gain over ``default`` in ``record`` (a
    :func:`choose_model` record) exceeds the standard error of the default's
    own error rate, sqrt(e (1 − e) / n): a gain the error rate's sampling
    uncertainty could not make. Two penalties whose predictions differ on a
    handful of rows have a tiny paired standard error, and the one-standard-
    error rule alone passes on a gain of two rows in 2,000 (docs/decisions.md,
    *The evidence's penalty*)."""
    base = record["candidates"][default]
    e, n = float(base["error_rate"]), max(int(base["rows"]), 1)
    return float(record["candidates"][chosen]["difference"]) > np.sqrt(e * (1 - e) / n)


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
        known = self._known_evidence(names, codes)
        if len(names) == 1 or folds is None:
            labels = self._evidence_labels(names[0], seed, codes, soft)
            oofs = known or self._out_of_fold(
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
            sub_folds = stratified_folds(codes[rows], k, seed)
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
        oofs = {chosen: known[chosen]} if chosen in known else None
        oofs = oofs or self._out_of_fold(
            [chosen], seed, Z, codes, labels, folds, in_train, weight
        )
        return oofs, selection

    def _known_evidence(self, names, codes) -> dict:
        """RoSR-L's out-of-fold probabilities from the penalty comparison, when
        it ran on every row with the evidence's folds (``{'rosr': ...}``), so
        that they are not fitted twice; else empty. The comparison fitted
        RoSR-L on the same rows, folds, observed labels and weights, at the
        penalty now chosen (:meth:`_choose_evidence_penalty`)."""
        oof = getattr(self, "_penalty_oof", None)
        if oof is None or "rosr" not in names or oof.shape[0] != codes.shape[0]:
            return {}
        return {"rosr": oof}

    def _choose_evidence_penalty(self, names, seed, Z, codes, folds, in_train, weight):
        """RoSR-L's penalty for the evidence, when the built-in ``'rosr'`` is
        among ``names``: its default unless a weaker penalty of the paper's
        grid (rosr.md §5.1) has a lower out-of-fold error rate against the
        observed labels by more than one standard error (:func:`choose_model`,
        the default first). Sets ``_evidence_params`` (read by ``_make_model``
        for every RoSR-L of the evidence's kind: the comparison of candidates,
        the evidence, ``decision_model_``) and returns the record, or None.

        At the default μ = 1e-3 RoSR-L cannot reach the large coefficients
        some labels need (eight classes along one column, 2,000 rows: an
        out-of-fold error of 0.25 where 1e-5 errs at 0.13), and an evidence
        that cannot fit the label leaves the comparison to models whose
        probabilities saturate, or reads a class's labels as unexplained.
        Only the weaker side is searched (stronger penalties flatten an
        evidence that fits, which moved flags where it was tried), and a
        weaker penalty must also gain more than the default's error rate is
        uncertain (:func:`_material`; docs/decisions.md, *The evidence's
        penalty*). Above :data:`PENALTY_MAX_SAMPLES` rows the penalties are
        compared on a stratified sample of that many with folds of its own,
        and a weaker one chosen there is scaled by the sample's share of the
        rows, as the final model's is.
        """
        self._evidence_params = self._penalty_oof = None
        if "rosr" not in names or folds is None:
            return None
        default = float(self._make_model("rosr", seed).get_params()["mu"])
        weaker = [mu for mu in FINAL_PENALTIES if mu < default]
        keys = [repr(mu) for mu in (default, *weaker)]
        k = folds_per_repeat(folds, self.cv_repeats)
        rows = stratified_rows(codes, PENALTY_MAX_SAMPLES, min_per_class=k, seed=seed)
        if rows is not None:
            folds = stratified_folds(codes[rows], k, seed)
            Z, codes, in_train = Z[rows], codes[rows], in_train[rows]
            weight = None if weight is None else weight[rows]

        def build(key):
            return self._make_model("rosr", seed).set_params(mu=float(key))

        one_hot = np.eye(self.classes_.shape[0])[codes]
        oofs = self._out_of_fold(
            keys, seed, Z, codes, one_hot, folds, in_train, weight, build=build
        )
        chosen, record = choose_model(oofs, codes)
        if chosen != keys[0] and not _material(record, keys[0], chosen):
            chosen = record["chosen"] = keys[0]
        scale = 1.0 if rows is None else rows.shape[0] / self._fit_rows
        mu = default if chosen == keys[0] else float(chosen) * scale
        record.update(rule=EVIDENCE_PENALTY_RULE, default=default, scale=scale)
        record.update(compared=float(chosen), chosen=mu)
        if mu != default:
            self._evidence_params = {"mu": mu}
        if rows is None:  # the evidence's own rows and folds: not fitted twice
            self._penalty_oof = oofs[chosen]
        return record

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
        evidence on*). Probabilities already fitted that way on these rows
        are not fitted again (:meth:`_known_evidence`)."""
        out = self._known_evidence(names, codes) if row_ids is None else {}
        names_left = [name for name in names if name not in out]
        on_soft = [name for name in names_left if self._learns_soft_labels(name, seed)]
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
        observed = [name for name in names_left if name not in on_soft]
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
