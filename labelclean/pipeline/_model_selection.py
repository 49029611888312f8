"""Choosing and fitting the final model of a cleaning run, out of fold.

:class:`ModelSelectionMixin` holds what :class:`~labelclean.pipeline.LabelCleaner`
does with its final model: the candidates (``model='auto'``), their
out-of-fold probabilities on the rows SPLBoost kept (the choice between
them for the evidence is :class:`EvidenceChoiceMixin`'s), the final model's
choice and RoSR-L's penalty on the cleaned rows, and fitting a model on
given rows with hard or soft labels.
:func:`make_stage` builds any stage from a kind's name or an estimator.
"""

import warnings

import numpy as np
from sklearn.utils import get_tags
from sklearn.utils.parallel import Parallel, delayed

from labelclean.exceptions import DataValidationError
from labelclean.pipeline import _kinds as kinds
from labelclean.pipeline._comparison import (
    FINAL_HOLD_OUT_ROWS,
    FINAL_RULE,
    MODEL_SELECTION_MAX_SAMPLES,
    PENALTY_MAX_SAMPLES,
    PENALTY_RULE,
    STACK_RULE,
    choose_model,
    penalty_names,
    penalty_setting,
)
from labelclean.pipeline._evidence_choice import EvidenceChoiceMixin, fit_accepts
from labelclean.pipeline._final_weights import final_row_weights
from labelclean.pipeline._folds import average_over_folds
from labelclean.pipeline._stacking import (
    StackedModel,
    calibrated,
    evidence_temperature,
    fit_stack,
)
from labelclean.utils._sampling import fold_count, stratified_folds, stratified_rows
from labelclean.utils._threads import fit_on_threads, one_blas_thread

__all__ = ["ModelSelectionMixin"]


class ModelSelectionMixin(EvidenceChoiceMixin):
    """The final model's candidates, out-of-fold evaluation, choice and final
    fit (not public).

    Needs ``model``, ``final_model``, ``cv``, ``n_jobs``, ``final_fit`` and a
    fitted ``classes_`` (``sample_indices_`` for the final fit).
    """

    #: The built-in final models ``model`` may name (:data:`STAGE_KINDS`).
    MODEL_KINDS = kinds.MODEL_KINDS

    def _model_candidates(self, n_classes: int, final: bool = False) -> list[str]:
        """Names of the final models to evaluate; the first is the default.
        ``final``: for the final model on the cleaned rows, where
        ``final_model`` (when set) stands for ``model`` and 'auto' also
        compares :data:`FINAL_ONLY_CANDIDATES`."""
        spec = self.model
        if final and self.final_model is not None:
            spec = self.final_model
        return kinds.model_candidates(spec, n_classes, final)

    def _make_model(self, name: str, seed: int):
        """A fresh final model: ``name`` from :meth:`_model_candidates`; the deep
        trees as deep as the fit's rows allow (in every fold: ``_fit_rows``)."""
        model = kinds.make_stage(name if name in self.MODEL_KINDS else self.model, seed)
        if name == "rosr" and getattr(self, "_evidence_params", None):
            model.set_params(**self._evidence_params)  # the evidence's penalty
        rows = getattr(self, "_fit_rows", None)
        if name == "cb_adaboost_deep" and rows is not None:
            model.set_params(**kinds.deep_tree_params(rows))
        return model

    # ------------------------------------------------------------------
    def _model_input(self, model, Z: np.ndarray) -> np.ndarray:
        """``Z`` as ``model`` takes it: missing values imputed unless it routes
        them natively (the binned boosting learners)."""
        if get_tags(model).input_tags.allow_nan:
            return Z
        missing = np.isnan(Z)
        if not missing.any():
            return Z
        return np.where(missing, self._missing_fill[None, :], Z)

    def _fit_model(self, model, Z, codes, soft, rows, *, quiet=True, weight=None):
        """Fit ``model`` on ``rows`` with the class codes as labels.

        The stages learn integer codes, never the user's labels, so any label
        type the cleaner accepts (floats, decimals, bytes, dates) works with
        every classifier; :meth:`_proba_in_classes` maps the columns back.

        Soft labels go to models whose ``fit`` takes them: CB-AdaBoost's
        ``gamma`` (the class-probability matrix, or the observed label's
        probability when a class is absent from ``rows``) and RoSR's
        ``soft_labels``. Row weights (``LabelCleaner.fit``'s ``sample_weight``)
        go to models whose ``fit`` takes ``sample_weight``.
        """
        y = self._stage_labels(codes[rows])
        all_present = np.unique(codes[rows]).shape[0] == self.classes_.shape[0]
        kwargs = {}
        if fit_accepts(model, "gamma"):
            kwargs["gamma"] = soft[rows] if all_present else soft[rows, codes[rows]]
        elif fit_accepts(model, "soft_labels") and all_present:
            kwargs["soft_labels"] = soft[rows]
        if weight is not None and fit_accepts(model, "sample_weight"):
            kwargs["sample_weight"] = weight[rows]
        Z_rows = self._model_input(model, Z[rows])
        if not quiet:  # the caller silences warnings (threads share filters)
            fit_on_threads(model, self.n_jobs, Z_rows, y, **kwargs)
            return model
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            fit_on_threads(model, self.n_jobs, Z_rows, y, **kwargs)
        return model

    def _stage_labels(self, codes: np.ndarray) -> np.ndarray:
        """What the stages learn: class codes; labels for a cleaner loaded from
        a model file written before stages learnt codes."""
        learn_codes = getattr(self, "stages_learn_codes_", False)
        return codes if learn_codes else self.classes_[codes]

    def _stage_columns(self, model) -> np.ndarray:
        """Columns of ``classes_`` that ``model.classes_`` stand for."""
        if getattr(self, "stages_learn_codes_", False):
            return np.asarray(model.classes_, dtype=np.intp)
        return np.searchsorted(self.classes_, model.classes_)

    def _proba_in_classes(self, model, Z) -> np.ndarray:
        """``model.predict_proba`` with columns aligned to ``classes_`` (a
        :class:`StackedModel`'s columns are the class codes already, and it
        gives each member its own input)."""
        if isinstance(model, StackedModel):
            return model.predict_proba(Z)
        proba = model.predict_proba(self._model_input(model, Z))
        out = np.zeros((Z.shape[0], self.classes_.shape[0]))
        out[:, self._stage_columns(model)] = proba
        return out

    # ------------------------------------------------------------------
    def _fit_out_of_fold(self, model_seed, Z, codes, soft, folds, train_rows, weight):
        """Stage 3: out-of-fold probabilities of the chosen final model.

        Each candidate is evaluated out of fold and one is chosen
        (``model_name_``, ``model_selection_``); a kind of
        :data:`~labelclean.pipeline._kinds.TEMPERED_EVIDENCE_KINDS` has its
        probabilities calibrated (``model_selection_['evidence_temperature']``).
        Returns them and the model fitted on ``train_rows`` with the soft
        labels, when needed (rows no fold scored, or ``final_fit='soft'``).
        """
        if folds is None:
            warnings.warn(
                "too few rows of classes with two rows or more to split into "
                "folds: the model's probabilities are in-sample, not out of fold.",
                UserWarning,
                stacklevel=3,
            )
        in_train = np.zeros(codes.shape[0], dtype=bool)
        in_train[train_rows] = True
        candidates = self._model_candidates(self.classes_.shape[0])
        penalty = self._choose_evidence_penalty(
            candidates, model_seed, Z, codes, folds, in_train, weight
        )
        oofs, self.model_selection_ = self._select_model(
            candidates, model_seed, Z, codes, soft, folds, in_train, weight
        )
        self._penalty_oof = None  # read by _select_model; not kept in the model
        if penalty is not None:
            self.model_selection_["evidence_penalty"] = penalty
        self.model_name_ = self.model_selection_["chosen"]
        oof = oofs[self.model_name_]
        missing = np.isnan(oof).any(axis=1)
        soft_model = None
        if missing.any() or self.final_fit == "soft":
            soft_model = self._make_model(self.model_name_, model_seed)
            self._fit_model(soft_model, Z, codes, soft, train_rows, weight=weight)
            if missing.any():
                oof[missing] = self._proba_in_classes(soft_model, Z[missing])
            self.model_ = soft_model
        if self.model_name_ in kinds.TEMPERED_EVIDENCE_KINDS:
            t = evidence_temperature(oof, codes, ~missing)
            oof, self.model_selection_["evidence_temperature"] = calibrated(oof, t), t
        return oof, soft_model

    def _evidence_proba(self, model, Z) -> np.ndarray:
        """``model``'s probabilities as the evidence reads them: at the fit's
        evidence temperature, when it has one (a new row's, as a fitted row's)."""
        t = (getattr(self, "model_selection_", None) or {}).get("evidence_temperature")
        proba = self._proba_in_classes(model, Z)
        return proba if t is None else calibrated(proba, t)

    def _fit_final(
        self, model_seed, Z, codes, soft, new_codes, train_rows, soft_model, weight
    ):
        """Stage 5: ``model_`` for new rows, on the cleaned rows (or the soft one).

        On the cleaned rows with ``model='auto'``, the candidates are compared
        once more as they are fitted here (:meth:`_choose_final`), and
        ``model_`` is their stack (:class:`StackedModel`, ``model_name_``
        ``'stacked'``; one candidate alone when the others weigh under 1 %):
        out-of-fold error against noisy cleaned labels cannot tell which
        candidate generalises better, a calibrated average of them does at
        least as well (docs/decisions.md, *The final model: a stack of the
        candidates*). ``decision_model_``, whose probabilities decide new
        rows (:meth:`audit`), is the model the decisions were calibrated on.
        """
        n_soft = int(train_rows.shape[0])  # an index array (rows_kept_by_suspects)
        self.final_fit_ = {"rows": "soft", "n_rows": n_soft, "weighted": False}
        if self.final_fit == "soft":
            self.decision_model_ = self.model_
            return
        name = self.model_name_
        kept = self.sample_indices_
        if np.unique(new_codes[kept]).shape[0] < 2:
            warnings.warn(
                "the cleaned rows hold fewer than two classes; the final model is "
                "the one fitted on the rows SPLBoost kept.",
                UserWarning,
                stacklevel=3,
            )
            if soft_model is None:
                soft_model = self._make_model(name, model_seed)
                self._fit_model(soft_model, Z, codes, soft, train_rows, weight=weight)
            self.model_ = self.decision_model_ = soft_model
            return
        cleaned_soft = np.zeros_like(soft)
        cleaned_soft[kept] = np.eye(self.classes_.shape[0])[new_codes[kept]]
        scoring = weight  # the caller's weights only: see _final_split
        weight = self._final_weights(new_codes, kept, weight)
        split = self._final_split(model_seed, new_codes, kept, weight, scoring)
        final, oofs = self._choose_final(model_seed, Z, new_codes, split)
        stacked = oofs is not None and "rosr" in oofs
        args = (model_seed, Z, new_codes, split, weight, scoring)
        stack = None
        n_split = 0 if split is None else split[0].shape[0]
        # Above PENALTY_MAX_SAMPLES (or a sampled comparison) the penalties are
        # compared on a sample of their own, unused by the stack's weights:
        # they come first, and RoSR-L left out of them needs no penalty.
        own_sample = not n_split == kept.shape[0] <= PENALTY_MAX_SAMPLES
        if stacked and own_sample:
            stack = self._stack_record(oofs, new_codes, split)
            penalty = self._final_penalty("rosr", *args)[0] if "rosr" in stack else None
        else:
            penalty, rosr_oof = self._final_penalty("rosr" if stacked else final, *args)
            if stacked:
                if rosr_oof is not None:  # RoSR-L as it is fitted, at its penalty
                    oofs["rosr"] = rosr_oof
                stack = self._stack_record(oofs, new_codes, split)
        if stack is not None:
            final = next(iter(stack)) if len(stack) == 1 else "stacked"

        def fit(kind, params=None):
            model = self._make_model(kind, model_seed)
            if params:
                model.set_params(**params)
            return self._fit_model(
                model, Z, new_codes.copy(), cleaned_soft, kept, weight=weight
            )

        self.decision_model_ = fit(name)

        def member(kind):  # decision_model_ keeps the evidence's settings
            params = penalty if kind == "rosr" else None
            same = kind == name and not params
            return self.decision_model_ if same else fit(kind, params)

        if final == "stacked":
            self.model_ = StackedModel(
                list(stack),
                [member(kind) for kind in stack],
                [m["weight"] for m in stack.values()],
                [m["temperature"] for m in stack.values()],
                self.classes_.shape[0],
                getattr(self, "_missing_fill", None),
            )
        else:
            self.model_ = member(final)
        self.model_name_ = final

    def _stack_record(self, oofs, new_codes, split) -> dict:
        """:func:`fit_stack` on the cleaned rows' out-of-fold ``oofs``,
        recorded in ``model_selection_['final']`` (its ``chosen`` is the
        final model: ``'stacked'``, or the one candidate left); returns the
        members (name: weight, temperature)."""
        rows, _, _, scoring = split
        stack = fit_stack(oofs, new_codes[rows], scoring)
        members = stack["members"]
        record = self.model_selection_["final"]
        record.update(rule=STACK_RULE, stack=stack)
        record["one_se_choice"] = record.get("chosen")
        record["chosen"] = next(iter(members)) if len(members) == 1 else "stacked"
        return members

    def _final_split(self, seed, new_codes, kept, weight, scoring, max_rows=None):
        """The rows, folds, row weights of the fits (``weight``) and of the
        scores (``scoring``, the caller's ``sample_weight``) on which the final
        model's choices are compared: the cleaned rows (a stratified, seeded
        sample of ``max_rows``, by default :data:`MODEL_SELECTION_MAX_SAMPLES`,
        above that many), in the folds of the evidence's rule
        (:func:`~labelclean.utils._sampling.fold_count`: the rows of a class
        too small for them are trained on in every fold), of which only the
        first from :data:`FINAL_HOLD_OUT_ROWS` rows; None when fewer than two
        cleaned rows are of classes of two rows or more.

        The final fit's weights are not the scores' weights: they are the
        evidence's probability that each label is right, so scoring with them
        counts most the rows where the evidence's own model agrees with the
        label, and the candidate of the evidence's kind looks better than it
        is (docs/decisions.md, *The final comparisons scored without the
        evidence's weights*)."""
        codes = new_codes[kept]
        n_folds = fold_count(codes, self.cv)
        if n_folds is None:
            return None
        rows = stratified_rows(
            codes,
            MODEL_SELECTION_MAX_SAMPLES if max_rows is None else max_rows,
            min_per_class=n_folds,
            seed=seed,
        )
        rows = kept if rows is None else kept[rows]
        folds = stratified_folds(new_codes[rows], n_folds, seed)
        if rows.shape[0] >= FINAL_HOLD_OUT_ROWS:
            folds = folds[:1]
        return (
            rows, folds, None if weight is None else weight[rows],
            None if scoring is None else scoring[rows],
        )  # fmt: skip

    def _compare_on_cleaned(self, names, seed, Z, new_codes, split, build=None):
        """:func:`choose_model` over ``names`` fitted as :meth:`_fit_final`
        fits them, out of fold on ``split`` (:meth:`_final_split`): the cleaned
        labels as hard labels and the fit's row weights, each row's error
        counted by the caller's weight only (:meth:`_final_split`)."""
        rows, folds, w, scoring = split
        one_hot = np.eye(self.classes_.shape[0])[new_codes[rows]]
        oofs = self._out_of_fold(
            names, seed, Z[rows], new_codes[rows], one_hot, folds,
            np.ones(rows.shape[0], dtype=bool), w, build=build,
        )  # fmt: skip
        chosen, selection = choose_model(oofs, new_codes[rows], weight=scoring)
        if rows.shape[0] < self.sample_indices_.shape[0]:
            selection["sampled_rows"] = int(rows.shape[0])
        if len(folds) == 1:
            selection["held_out_rows"] = int(folds[0][1].shape[0])
        return chosen, selection, oofs

    def _choose_final(self, seed, Z, new_codes, split):
        """The final model among ``model='auto'``'s candidates, compared as
        :meth:`_fit_final` fits it: out of fold on the cleaned rows, with their
        cleaned labels and row weights, each row's error counted by the
        caller's weight only (:func:`choose_model`, rule :data:`FINAL_RULE`):
        where the wrong labels left are flipped uniformly, whatever the
        features, the error against them rises with the error against the
        true labels for every model alike (:meth:`_final_split` says why not
        the fit's weights). ``model_selection_['final']`` records the
        comparison.
        With one candidate (``final_model``, else ``model``) it is the choice;
        where several cannot be compared, the evidence's model
        (``model_selection_['chosen']``) when it is one of them. Returns the
        choice and the candidates' out-of-fold probabilities on ``split``'s
        rows (None without a comparison), from which :meth:`_fit_final`
        stacks them. Under 'auto' the deeper trees of
        :data:`FINAL_ONLY_CANDIDATES` join here only."""
        names = self._model_candidates(self.classes_.shape[0], final=True)
        evidence_model = self.model_selection_["chosen"]
        if len(names) < 2:
            return names[0], None
        if split is None:
            self.model_selection_["final"] = {"rule": FINAL_RULE, "chosen": None}
            return evidence_model if evidence_model in names else names[0], None
        chosen, selection, oofs = self._compare_on_cleaned(
            names, seed, Z, new_codes, split
        )
        selection["rule"] = FINAL_RULE
        deep = selection["candidates"].get("cb_adaboost_deep")
        if deep is not None:  # as _make_model grew it
            deep.update(kinds.deep_tree_settings(self._fit_rows))
        self.model_selection_["final"] = selection
        return chosen, oofs

    def _final_penalty(self, final, seed, Z, new_codes, split, weight, scoring):
        """RoSR-L's settings for the final fit: the parameters that differ from
        the evidence's (``mu``, ``weighting``; None to keep them), and its
        out-of-fold probabilities on ``split``'s rows (None when they were
        compared on a sample of their own).

        Only for the built-in ``'rosr'`` kind (a given estimator is used as
        configured): :func:`penalty_names` (each of :data:`FINAL_PENALTIES`,
        with the self-paced weights, then without) are compared out of fold
        on the cleaned rows as :meth:`_choose_final` compares models, the
        default first (:data:`PENALTY_RULE`; ``model_selection_
        ['final_penalty']``). The fit's row weights carry each row's doubt
        already; the self-paced weights stay unless leaving them out is
        clearly better (docs/decisions.md, *The final model's self-paced
        weights*). The rows and folds are the final choice's ``split``; above
        :data:`PENALTY_MAX_SAMPLES` cleaned rows, a sample of that many (with
        ``weight``, every row's), and the penalty chosen there (``compared``)
        is scaled by the sample's share of the cleaned rows: μ weighs the norm
        against the *mean* loss, so the same prior on the coefficients is
        μ · m / n on n rows where it was μ on m (``chosen``, ``scale``). The
        evidence and ``decision_model_`` keep the defaults, on which the
        decisions were calibrated (docs/decisions.md, *The final model's
        penalty*).
        """
        if final != "rosr" or split is None:
            return None, None
        if split[0].shape[0] > PENALTY_MAX_SAMPLES:  # the final choice's otherwise
            split = self._final_split(
                seed, new_codes, self.sample_indices_, weight, scoring,
                PENALTY_MAX_SAMPLES,
            )  # fmt: skip
        defaults = self._make_model(final, seed).get_params()
        default, own = float(defaults["mu"]), defaults["weighting"]
        names = penalty_names(default, own)

        def build(name):
            mu, weighting = penalty_setting(name, own)
            return self._make_model(final, seed).set_params(mu=mu, weighting=weighting)

        chosen, selection, oofs = self._compare_on_cleaned(
            names, seed, Z, new_codes, split, build=build
        )
        compared, weighting = penalty_setting(chosen, own)
        scale = split[0].shape[0] / self.sample_indices_.shape[0]
        mu = compared if scale == 1 else compared * scale
        selection.update(rule=PENALTY_RULE, default=default, default_weighting=own)
        selection.update(compared=compared, chosen=mu, scale=scale, weighting=weighting)
        for name, candidate in selection["candidates"].items():  # no names parsed
            candidate["mu"], candidate["weighting"] = penalty_setting(name, own)
        self.model_selection_["final_penalty"] = selection
        params = {"mu": mu} if mu != default else {}
        params.update({"weighting": weighting} if weighting != own else {})
        return params or None, None if scale != 1 else oofs[chosen]

    def _final_weights(self, new_codes, kept, weight):
        """The final model's row weights (``final_fit='weighted'``:
        :func:`final_row_weights`); ``final_fit_`` says how it went."""
        self.final_fit_ = {"rows": "cleaned", "n_rows": int(kept.shape[0])}
        self.final_fit_["weighted"] = self.final_fit == "weighted"
        if self.final_fit != "weighted":
            return weight
        weight, record = final_row_weights(
            self.evidence_, self.calibration_, new_codes, kept, weight
        )
        self.final_fit_.update(record)
        return weight

    def _out_of_fold(
        self,
        names,
        seed,
        Z,
        codes,
        soft,
        folds,
        in_train,
        weight,
        row_ids=None,
        fold_soft=False,
        build=None,
    ):
        """Out-of-fold class probabilities of each final model in ``names``.

        For each fold, the model is fitted on the other folds' rows that
        SPLBoost kept and asked about the fold's rows; with ``fold_soft``, on
        soft labels that did not use the fold's labels (``row_ids``: the
        rows' indices in the fit when ``Z`` is a sample). ``build(name)``, when
        given, makes the model of each name. Rows of a fold whose training
        part holds a single class or cannot be learnt (a DataValidationError:
        on a few rows no split may beat chance), or every row without folds,
        are NaN. With repeated splits (``cv_repeats``) a row's probabilities
        are the mean over the folds that held it out, one per split. The
        (model, fold) fits are independent, so they run on ``n_jobs`` threads
        (the boosting kernels release the GIL); the means are summed in the
        order of the folds, so the result does not depend on their number.
        """
        oofs = {
            name: np.full((Z.shape[0], self.classes_.shape[0]), np.nan)
            for name in names
        }
        tasks = [(name, train, test) for name in names for train, test in folds or ()]

        def fit_fold(name, train, test):
            rows = train[in_train[train]]
            if np.unique(codes[rows]).shape[0] < 2:
                return None
            model = build(name) if build else self._make_model(name, seed)
            labels = soft
            if fold_soft:
                labels = self._soft_labels_without(soft, rows, test, row_ids)
            try:
                self._fit_model(
                    model, Z, codes, labels, rows, quiet=False, weight=weight
                )
            except DataValidationError:
                return None
            return self._proba_in_classes(model, Z[test])

        # BLAS on one thread for every fold, whatever n_jobs, set here by the
        # calling thread: a limit set inside a worker thread (the solvers'
        # own) does not reach OpenBLAS, so folds running at once multiplied
        # on several BLAS threads each, and a product's summation order (its
        # last bits, which an iterative solver amplifies) then depended on
        # the timing and on n_jobs (docs/reliability.md, Determinism).
        with warnings.catch_warnings(), one_blas_thread():
            warnings.simplefilter("ignore", UserWarning)
            parts = Parallel(n_jobs=self.n_jobs, prefer="threads")(
                delayed(fit_fold)(*task) for task in tasks
            )
        if not folds:
            return oofs
        tests = [test for _, test in folds]
        for i, name in enumerate(names):  # tasks: each name's folds in turn
            mine = parts[i * len(tests) : (i + 1) * len(tests)]
            oofs[name] = average_over_folds(tests, mine, oofs[name].shape)
        return oofs
