"""LabelCleaner: the cleaning pipeline as one scikit-learn style object.

:class:`LabelCleaner` chains the stages of a cleaning run (DESIGN.md, "the
data's way through"):

1. feature preparation (standardised numeric, one-hot categorical columns);
2. label confidence (:class:`~labelclean.confidence.KNNConfidence` or
   :class:`~labelclean.confidence.BayesConfidence`), scores that never saw
   the row's own label (leave-one-out neighbours, or cross-fitting);
3. SPLBoost suspects (rows whose self-paced weight ends at zero);
4. the final model (RoSR-L, or CB-AdaBoost for two classes when it is
   clearly better out of fold), evaluated out of fold for every row on the
   rows SPLBoost kept (with their observed labels; CB-AdaBoost with the
   confidence stage's soft labels, its label confidences) and refitted on
   the cleaned rows for new data, each weighted by how sure its label is;
5. one decision per row (:mod:`labelclean.pipeline._decisions`).

It is an estimator (``fit``/``predict``/``predict_proba``), a sampler
(``fit_resample`` returns the cleaned rows) and an auditor (``audit_`` for the
training rows, :meth:`LabelCleaner.audit` for new labelled rows).
"""

import logging
import warnings
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from numbers import Integral, Real

import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from numpy.typing import ArrayLike
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from labelclean.exceptions import DataValidationError
from labelclean.filters._base import BaseFilter
from labelclean.pipeline._audit_frame import with_user_columns
from labelclean.pipeline._decisions import DecisionsMixin, Evidence, check_reviewed
from labelclean.pipeline._folds import cross_fitted_proba, repeated_folds
from labelclean.pipeline._kinds import check_model_list, make_stage, max_categories_of
from labelclean.pipeline._model_selection import ModelSelectionMixin
from labelclean.pipeline._suspect_rows import rows_kept_by_suspects
from labelclean.utils._column_kinds import coerce_object_columns
from labelclean.utils._feature_profile import feature_profile
from labelclean.utils._features import (
    MISSING_VALUE_HANDLING,
    describe_features,
    make_feature_encoder,
    missing_value_counts,
    restore_missing,
)
from labelclean.utils._fitted_input import check_fitted_input
from labelclean.utils._labels import warn_label_writing
from labelclean.utils._sampling import draw_seed
from labelclean.utils._sklearn import (
    HasMethods,
    Interval,
    StrOptions,
    check_sample_weight,
    fit_context,
)
from labelclean.utils._timing import StageClock
from labelclean.utils._validation import (
    check_labels,
    check_no_infinity,
    check_unique_columns,
    is_dataframe,
    refuse_continuous_labels,
)

logger = logging.getLogger(__name__)

__all__ = ["LabelCleaner"]


class LabelCleaner(DecisionsMixin, ModelSelectionMixin, ClassifierMixin, BaseFilter):
    """Find, correct and discard wrong labels: the whole cleaning pipeline.

    Parameters
    ----------
    confidence : {'knn', 'bayes'} or estimator, default='knn'
        The label-confidence stage.

        - 'knn': :class:`~labelclean.confidence.KNNConfidence` (KNN filter,
          then neighbours' label shares) with ``feature_weights='auto'``;
          needs no noise level. Scores are leave-one-out by construction.
        - 'bayes': :class:`~labelclean.confidence.BayesConfidence`; scores are
          cross-fitted over ``cv`` folds so no row is scored by a density that
          saw it.
        - an unfitted estimator with ``fit(X, y)`` and ``predict_proba(X)``
          (e.g. a configured ``KNNConfidence``); cloned.
    suspects : {'splboost'}, estimator or None, default='splboost'
        The suspect stage: a :class:`~labelclean.ensemble.SPLBoostClassifier`
        (or a configured instance); its zero-weight rows are suspects and take
        no part in fitting the final model. 'splboost' chooses λ by
        cross-validation over six ages (``PIPELINE_AGE_GRID``). None skips
        it.
    model : {'auto', 'adaboost_trees', 'cb_adaboost', 'cb_adaboost_trees', \
'cb_adaboost_deep', 'rosr', 'spbl'}, list of them, or classifier, default='auto'
        The final model.

        - 'auto': RoSR-L and CB-AdaBoost with depth-3 trees (and, for two
          classes, with stumps) are evaluated out of fold: for the evidence
          (error against the observed labels; another replaces RoSR-L only
          when lower by more than one standard error of the paired
          difference) and, once the rows are decided, on the cleaned rows,
          with deeper trees beside them (depth 5, one level more each time
          the rows double from 3,200, up to 10), where they are stacked: a
          weighted average of their probabilities, each at a temperature.
        - 'cb_adaboost', 'cb_adaboost_trees' (depth 3), 'cb_adaboost_deep'
          (depth 5 to 10, by the rows; above 10,000 rows stopped early on
          held-out rows), 'rosr', 'spbl', 'adaboost_trees' (SAMME, depth-3
          trees on the observed labels; the evidence takes its probabilities
          at a temperature fitted to those labels out of fold).
        - a list of those names: compared as 'auto' compares its candidates,
          the first kept unless another is clearly better (the shipped
          two-class pipeline's ``['cb_adaboost', 'cb_adaboost_trees',
          'rosr']``).

        When RoSR-L ('rosr', or in the stack of 'auto') is the final model, its
        penalty for ``model_`` is chosen out of fold on the cleaned rows from
        the paper's grid, the default kept unless another is better by over
        one standard error; the evidence and ``decision_model_`` keep it.
        - a classifier: used as given (cloned); soft labels are passed when
          its ``fit`` takes ``gamma`` or ``soft_labels``.
    final_model : {'auto', 'cb_adaboost', ...} or None, default=None
        The final model (``model_``) alone, where it should differ from the
        evidence's: a name ``model`` takes. None: as ``model`` says. With
        ``model='rosr'`` and ``final_model='auto'`` the evidence, decisions
        and ``decision_model_`` are RoSR-L's, and ``model_`` is the stack
        ``'auto'`` fits on the cleaned rows (the shipped pipelines' setting,
        docs/pipelines.md). Unused with ``final_fit='soft'`` (the papers').
    target_precision : float or None, default=None
        Calibrated on the fitted rows (docs/decisions.md): the noise is estimated, the
        operating point measured on known flips of the rows' own labels. With a target,
        the most rows are flagged whose estimated precision still reaches it, and a
        class is corrected into another only where those corrections' estimated
        precision does; no target flags a row where the agreement is slight or fair
        (caution ``poor_predictability``). None: the highest estimated F1 of the
        operating points at least half right, and corrections at 0.9 (none where the
        features predict the label poorly, or their precision interval reaches below one
        half).
    known_noise_rate : float or None, default=None
        The share of wrong labels, where it is known from outside the data
        (an audit of a random sample of the labels). Where the decisions flag
        fewer rows, the kept rows the evidence doubts most are discarded too,
        up to that share (reason ``known_noise``; new rows at the same cut):
        what the data cannot tell where the features only partly predict the
        label (docs/decisions.md, *A share of wrong labels known from
        outside the data*). The estimates in ``calibration_`` do not cover
        those rows; ``calibration_['known_noise']`` counts them.
    correct_threshold : float or None, default=None
        Setting any of the three thresholds replaces the calibrated decisions
        with the fixed rule: probability both the confidence stage and the
        final model must give another label for a row to be corrected (0.9
        when another threshold is given).
    suspect_confidence : float or None, default=None
        Fixed rule: γ below which a row is a suspect if the model agrees (0.3
        when another threshold is given).
    model_threshold : float or None, default=None
        Fixed rule: a suspect needs the final model's out-of-sample probability
        of its observed label below this (0.4 when another threshold is given).
    require_agreement : bool, default=True
        Corrections need the final model to agree with the confidence stage.
    final_fit : {'weighted', 'cleaned', 'soft'}, default='weighted'
        What ``model_`` and ``decision_model_`` are fitted on (``final_fit_``
        says how it went); the out-of-fold evidence is always from models
        fitted on the rows SPLBoost kept, with the soft labels (the papers').

        - 'weighted': the cleaned rows (kept and corrected, their cleaned
          labels as hard labels), each weighted by its estimated probability
          that the label is right (*The final model's row weights*).
        - 'cleaned': the cleaned rows, unweighted.
        - 'soft': the rows SPLBoost kept, with the soft labels.
    cv : int, default=5
        Folds of the out-of-sample model probabilities (and of cross-fitted
        confidence); a class too small for the folds is never held out.
    cv_repeats : int, default=1
        Splits into ``cv`` folds, each with a fresh seed and its own fits;
        every row's out-of-fold probabilities are averaged over them: steadier
        probabilities, but on public tables not steadier decisions
        (``docs/decisions.md``, *Out-of-fold evidence averaged over repeated
        splits*).
    random_state : int, RandomState instance or None, default=None
        Seed of every random choice (neighbour search, folds, models).
    n_jobs : int or None, default=None
        Threads (joblib's rules: None 1, -1 all): SPLBoost beside the
        confidence stage, the out-of-fold models at once, and the ``n_jobs``
        of the confidence stage and of a model being fitted (CB-AdaBoost's
        learning rates) that set none. The results do not depend on it but
        with the approximate neighbour search (200,000 rows or more), whose
        graph on one thread (pynndescent's) differs from that on several.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Distinct observed labels.
    confidence_estimator_ : estimator
        The fitted confidence stage.
    suspect_estimator_ : estimator or None
        The fitted suspect stage.
    model_ : classifier
        The final model (``final_fit``); ``final_fit_`` (dict): ``rows``
        ('cleaned' or 'soft'), ``n_rows``, ``weighted``, ``mean_weight`` and
        ``rows_under_half``.
    model_name_ : str
        ``model_``'s kind ('rosr', 'cb_adaboost', 'cb_adaboost_trees', ...) or
        'stacked' ('auto'), or the given estimator's class name.
    decision_model_ : classifier
        Fitted like ``model_``, of the kind whose out-of-fold probabilities
        were the evidence; it decides new rows (:meth:`audit`). ``model_``
        itself when the two choices agree.
    model_selection_ : dict
        How the evidence's model was chosen: ``rule``, ``chosen``, ``order`` (as
        compared: the first is kept unless another is clearly better),
        ``candidates`` (each one's out-of-fold ``error_rate`` against the
        observed labels, fitted on those it gives the evidence on, named in
        ``fitted_on``, and the ``rows`` compared; ``None`` when none were), the
        chosen (or closest) challenger's ``difference`` from the first and its
        ``standard_error``, ``sampled_rows`` for a stratified sample (above
        :data:`MODEL_SELECTION_MAX_SAMPLES` rows); ``final``: the same on the
        cleaned rows (``held_out_rows``: from :data:`FINAL_HOLD_OUT_ROWS`, the
        one fold read), and the ``stack``; ``final_penalty``: RoSR-L's penalty
        (``default``, ``compared``, ``chosen``; above 10,000 cleaned rows not
        searched for a RoSR-L the stack leaves out); ``evidence_penalty``: the
        evidence's (built-in ``'rosr'`` only), its default unless it clearly
        underfits the observed labels (same keys, and ``scale``).
    feature_encoder_ : object
        Fitted feature preparation for the suspect stage and final model;
        categorical levels pooled as the confidence stage's ``max_categories``.
    audit_ : DataFrame
        One row per training row, as ``labelclean run`` writes
        ``audit.parquet``: the row's own columns (``X``'s, and ``y`` under its
        name when it is a named Series), then the decision, reason and
        evidence columns (:data:`~labelclean.report.AUDIT_COLUMNS`), indexed
        like the input.
    calibration_ : dict
        What the fit measured about its own rows, JSON-ready: the estimated
        ``noise_rate`` (with a 5–95 % bootstrap interval),
        ``noise_rate_per_class`` and the surest rows' reading that capped it
        (``noise_cap_reading``), the flag threshold on ``noise_probability``
        and the ``temperature`` of the evidence it is computed on (fitted to
        the observed labels through the estimated noise), the estimated
        ``flag_precision`` and ``flag_recall`` of the flags and
        ``correction_precision`` and ``correction_recall`` of the corrections
        (with intervals; per pair of classes too), how well the features
        predict the label (``predictability``, per class and pair too;
        ``not_checked``: classes taken as right unchecked) and the flags against
        the surest rows (``flags_against_surest_rows``); see docs/decisions.md.
    noise_rate_ : float
        Estimated share of wrong labels among the fitted rows.
    noise_rate_per_class_ : dict
        Estimated share of wrong labels among the rows of each observed class.
    missing_values_ : dict
        ``columns``: missing values per feature column (only those with
        any) in the fitted rows; ``handling``: how they were handled.
    feature_handling_ : list of dict
        Per feature column: its kind (numeric, temporal, categorical), missing
        values, levels and pooled rare levels, and how it was encoded.
    feature_profile_ : dict of str to dict
        Per feature column, what the fit's rows held (missing values, range,
        levels); ``labelclean apply`` compares batches with it (docs/drift.md).
    decision_rule_ : str
        'calibrated' or 'thresholds' (a threshold was given).
    evidence_ : Evidence
        Per-row evidence behind the decisions (class probabilities of the
        confidence stage and out-of-fold of the model, SPLBoost weights), to
        re-decide with other thresholds without refitting.
    decisions_ : ndarray of shape (n_samples,)
        ``'kept'``, ``'corrected'`` or ``'discarded'`` per training row.
    sample_indices_ : ndarray
        Positions of the rows kept in the cleaned data (kept or corrected).
    cleaned_labels_ : ndarray of shape (n_kept,)
        Labels of those rows after correction.
    stage_times_ : dict of str to float
        Wall seconds of each stage of the last fit (features, confidence,
        suspects: with ``n_jobs > 1`` the wait for SPLBoost after confidence,
        model_out_of_fold, decisions, final_model); logged at INFO level, not
        saved with the model.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    Notes
    -----
    Not a transformer: :meth:`fit_resample` changes the number of rows (as an
    imbalanced-learn sampler does), and :meth:`audit` needs the observed
    labels of new rows.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from labelclean.pipeline import LabelCleaner
    >>> from labelclean.noise import flip_labels
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> y_noisy, flipped = flip_labels(y, 0.2, random_state=0)
    >>> cleaner = LabelCleaner(random_state=0).fit(X, y_noisy)
    >>> flagged = cleaner.decisions_ != "kept"
    >>> bool((flagged & flipped).sum() > 0.8 * flagged.sum())
    True
    """

    _parameter_constraints: dict = {
        "confidence": [
            StrOptions({"knn", "bayes"}),
            HasMethods(["fit", "predict_proba"]),
        ],
        "suspects": [StrOptions({"splboost"}), HasMethods(["fit"]), None],
        "model": [
            StrOptions({"auto", *ModelSelectionMixin.MODEL_KINDS}),
            HasMethods(["fit", "predict_proba"]),
            list,
            tuple,
        ],
        "final_model": [StrOptions({"auto", *ModelSelectionMixin.MODEL_KINDS}), None],
        "target_precision": [Interval(Real, 0.0, 1.0, closed="right"), None],
        "known_noise_rate": [Interval(Real, 0.0, 1.0, closed="neither"), None],
        "correct_threshold": [Interval(Real, 0.0, 1.0, closed="both"), None],
        "suspect_confidence": [Interval(Real, 0.0, 1.0, closed="both"), None],
        "model_threshold": [Interval(Real, 0.0, 1.0, closed="both"), None],
        "require_agreement": ["boolean"],
        "final_fit": [StrOptions({"weighted", "cleaned", "soft"})],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "cv_repeats": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        confidence="knn",
        suspects="splboost",
        model="auto",
        *,
        final_model: str | None = None,
        target_precision: float | None = None,
        known_noise_rate: float | None = None,
        correct_threshold: float | None = None,
        suspect_confidence: float | None = None,
        model_threshold: float | None = None,
        require_agreement: bool = True,
        final_fit: str = "weighted",
        cv: int = 5,
        cv_repeats: int = 1,
        random_state=None,
        n_jobs: int | None = None,
    ) -> None:
        self.confidence = confidence
        self.suspects = suspects
        self.model = model
        self.final_model = final_model
        self.target_precision = target_precision
        self.known_noise_rate = known_noise_rate
        self.correct_threshold = correct_threshold
        self.suspect_confidence = suspect_confidence
        self.model_threshold = model_threshold
        self.require_agreement = require_agreement
        self.final_fit = final_fit
        self.cv = cv
        self.cv_repeats = cv_repeats
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------
    # stage construction
    def _threaded_stage(self, spec, seed: int):
        """A stage that may use the cleaner's threads (the neighbour search,
        SPLBoost's age search); an estimator's own ``n_jobs`` wins."""
        est = make_stage(spec, seed)
        if "n_jobs" in est.get_params() and est.n_jobs is None:
            est.set_params(n_jobs=self.n_jobs)
        return est

    def _make_confidence(self, seed: int):
        return self._threaded_stage(self.confidence, seed)

    def _make_suspects(self, seed: int):
        if self.suspects is None:
            return None
        return self._threaded_stage(self.suspects, seed)

    def _check_X(self, X, *, reset: bool):
        """Validate ``X`` and return (frame-or-array for confidence, Z).

        ``Z`` is the encoded features with NaN where a numeric or date value
        was missing; :meth:`_model_input` imputes them for the learners that
        do not route missing values themselves.
        """

        check_unique_columns(X)
        if is_dataframe(X):
            if X.shape[0] == 0:
                raise DataValidationError("X has 0 rows; pass at least one row.")
            validate_data(self, X, skip_check_array=True, reset=reset)
            raw = coerce_object_columns(X)  # decimals and dates, as parquet has them
        else:
            raw = validate_data(
                self, X, reset=reset, dtype=np.float64, ensure_all_finite="allow-nan"
            )
            check_no_infinity(raw, getattr(self, "feature_names_in_", None))
        if reset:
            self.feature_encoder_ = make_feature_encoder(
                raw if is_dataframe(raw) else None,
                max_categories=max_categories_of(self.confidence),
            )
            Z = self.feature_encoder_.fit_transform(raw)
        else:
            raw = check_fitted_input(self.feature_encoder_, raw, type(self).__name__)
            Z = self.feature_encoder_.transform(raw)
        Z, fill = restore_missing(
            self.feature_encoder_, raw, np.array(Z, dtype=np.float64)
        )
        if reset:
            self._missing_fill = fill
        return raw, Z

    @fit_context(prefer_skip_nested_validation=False)
    def fit(
        self,
        X: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        reviewed: ArrayLike | None = None,
        labels_before_review: ArrayLike | None = None,
    ) -> "LabelCleaner":
        """Run every stage on ``(X, y)`` and decide every row.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Features: numeric arrays, or DataFrames with numeric, categorical,
            boolean or datetime columns.
        y : array-like of shape (n_samples,)
            Observed labels of any type.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights, given to the stages whose ``fit`` takes
            them: SPLBoost (the suspects) and the final model's candidates
            (CB-AdaBoost, RoSR-L, SPBL), in the out-of-fold fits and in
            ``model_``. The confidence stage (neighbours, densities) and the
            calibration of the decisions ignore them: they judge each row by
            the labels around it, whatever its weight.
        reviewed : array-like of shape (n_samples,), dtype=bool, default=None
            Rows whose label in ``y`` a person has confirmed (for instance
            verdicts of ``labelclean review``). They are kept with reason
            ``reviewed`` and never flagged; like every row, they take part
            in the measurement of the operating point with their labels in
            ``y`` (docs/review.md says why).
        labels_before_review : array-like of shape (n_samples,), default=None
            The labels the rows carried before the review (``y`` but for the
            reviewed rows). Given, the noise of the rows nobody reviewed is
            estimated twice, on ``y`` and on these labels less the reviewed
            rows, and each class takes the larger of the two; otherwise it
            is estimated on ``y`` (docs/review.md compares them).

        Returns
        -------
        self : LabelCleaner
            Fitted pipeline.
        """
        rng = check_random_state(self.random_state)
        clock = StageClock()
        if np.asarray(y).ndim == 2:  # a column vector: warn and ravel
            y = column_or_1d(y, warn=True)
        raw, Z = self._check_X(X, reset=True)
        clock.what = f"fit on {Z.shape[0]} rows"
        self.missing_values_ = {"columns": missing_value_counts(raw),
                                "handling": MISSING_VALUE_HANDLING}  # fmt: skip
        self.feature_handling_ = describe_features(self.feature_encoder_, raw)
        self.feature_profile_ = feature_profile(raw, self.feature_encoder_)
        self.classes_, codes = check_labels(y, n_samples=Z.shape[0])
        warn_label_writing(self.classes_, codes)
        check_model_list(self.model)
        self._fit_rows = Z.shape[0]  # the deep trees' depth (_make_model)
        weight = (
            None
            if sample_weight is None
            else check_sample_weight(sample_weight, Z, ensure_non_negative=True)
        )
        known, before = check_reviewed(
            reviewed, labels_before_review, self.classes_, codes
        )
        refuse_continuous_labels(self.classes_, codes.shape[0])
        self.stages_learn_codes_ = True
        index = X.index if is_dataframe(X) else pd.RangeIndex(codes.shape[0])
        folds = repeated_folds(codes, self.cv, self.cv_repeats, draw_seed(rng))
        clock.lap("features")
        soft, neighbor_counts, blind = self._fit_confidence_and_suspects(
            raw, y, Z, codes, folds, rng, clock, weight
        )
        spl_weight, zero_round, train_rows = rows_kept_by_suspects(
            self.suspect_estimator_, codes, self.classes_
        )
        clock.lap("suspects")
        model_seed = draw_seed(rng)
        oof, soft_model = self._fit_out_of_fold(
            model_seed, Z, codes, soft, folds, train_rows, weight
        )
        clock.lap("model_out_of_fold")
        evidence = Evidence(codes, soft, oof, spl_weight, known, before, blind)
        self.evidence_ = evidence
        self._calibrate(evidence, draw_seed(rng))
        decided = self._decide_fitted(evidence)
        decision, _, new_codes, _ = decided
        self.decisions_ = decision
        self.audit_ = with_user_columns(
            X,
            y,
            self._audit_frame(index, y, evidence, decided, neighbor_counts, zero_round),
        )
        clock.lap("decisions")
        self.sample_indices_ = np.flatnonzero(decision != "discarded")
        self.cleaned_labels_ = self.classes_[new_codes[self.sample_indices_]]
        self._fit_final(
            model_seed, Z, codes, soft, new_codes, train_rows, soft_model, weight
        )
        clock.lap("final_model")
        self.stage_times_ = clock.times
        logger.info("stage times (s): %s", clock.summary())
        return self

    def _fit_confidence_and_suspects(self, raw, y, Z, codes, folds, rng, clock, weight):
        """Stages 1 and 2: soft labels, neighbour counts, blind ones, SPLBoost.

        The two stages are independent; with n_jobs > 1 SPLBoost runs on a
        thread while the confidence stage runs here (its boosting kernels
        release the GIL, e.g. during pynndescent's compilation). The seeds are
        drawn first, so the results do not depend on it.
        """
        conf_seed, suspects_seed = draw_seed(rng), draw_seed(rng)
        self.suspect_estimator_ = self._make_suspects(suspects_seed)
        suspects = self.suspect_estimator_
        labels = self._stage_labels(codes)
        weighted = {} if weight is None else {"sample_weight": weight}
        with ThreadPoolExecutor(max_workers=1) as pool:
            suspects_done = None
            if suspects is not None and effective_n_jobs(self.n_jobs) > 1:
                suspects_done = pool.submit(
                    suspects.fit, self._model_input(suspects, Z), labels, **weighted
                )
            self.confidence_estimator_ = self._make_confidence(conf_seed).fit(raw, y)
            conf = self.confidence_estimator_
            if hasattr(conf, "soft_labels_"):  # leave-one-out neighbours
                soft = np.asarray(conf.soft_labels_, dtype=np.float64)
            else:
                make = partial(self._make_confidence, conf_seed)
                soft = cross_fitted_proba(make, conf, raw, y, folds, self.classes_)
            clock.lap("confidence")
            if suspects_done is not None:
                suspects_done.result()
            elif suspects is not None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    suspects.fit(self._model_input(suspects, Z), labels, **weighted)
        blind = getattr(conf, "unfiltered_soft_labels_", None)  # KNN: see Evidence
        return soft, getattr(conf, "neighbor_counts_", None), blind

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # imputed by the feature encoder
        return tags

    # ------------------------------------------------------------------
    def _resampled_labels(self) -> np.ndarray:
        """``fit_resample``'s labels: the kept rows' labels after correction."""
        return self.cleaned_labels_

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Labels predicted by the final model.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of the final model.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns ordered as ``classes_``.
        """
        check_is_fitted(self)
        _, Z = self._check_X(X, reset=False)
        return self._proba_in_classes(self.model_, Z)
