"""LabelCleaner: the cleaning pipeline as one scikit-learn style object.

:class:`LabelCleaner` chains the stages of a cleaning run (DESIGN.md, "the
data's way through"):

1. feature preparation (standardised numeric, one-hot categorical columns);
2. label confidence (:class:`~labelclean.confidence.KNNConfidence` or
   :class:`~labelclean.confidence.BayesConfidence`), scores that never saw
   the row's own label (leave-one-out neighbours, or cross-fitting);
3. SPLBoost suspects (rows whose self-paced weight ends at zero);
4. the final model (RoSR-L, or CB-AdaBoost for two classes when it is
   clearly better out of fold), fitted on the rows SPLBoost kept with the
   confidence stage's soft labels, evaluated out of fold for every row and
   refitted on the cleaned rows for new data;
5. one decision per row (:mod:`labelclean.pipeline._decisions`).

It is an estimator (``fit``/``predict``/``predict_proba``), a sampler
(``fit_resample`` returns the cleaned rows) and an auditor (``audit_`` for the
training rows, :meth:`LabelCleaner.audit` for new labelled rows).
"""

import inspect
import logging
import warnings
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from numpy.typing import ArrayLike
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from labelclean.exceptions import DataValidationError
from labelclean.filters._base import BaseFilter
from labelclean.pipeline._calibration import calibrate, decide_calibrated
from labelclean.pipeline._decisions import (
    Evidence,
    argmax_keep_observed,
    decide,
    neighbor_counts_json,
)
from labelclean.pipeline._kinds import STAGE_KINDS
from labelclean.report import build_report
from labelclean.utils._features import (
    MISSING_VALUE_HANDLING,
    check_feature_frame,
    make_feature_encoder,
    missing_value_counts,
    restore_missing,
)
from labelclean.utils._sampling import draw_seed, stratified_rows
from labelclean.utils._sklearn import HasMethods, Interval, StrOptions, fit_context
from labelclean.utils._threads import one_blas_thread
from labelclean.utils._timing import StageClock
from labelclean.utils._validation import (
    check_labels,
    check_no_infinity,
    check_unique_columns,
    is_dataframe,
)

logger = logging.getLogger(__name__)

__all__ = ["LabelCleaner", "final_model_info"]

#: Columns the audit adds to the user's columns, in order (docs/audit.md).


#: The fixed rule's thresholds, used only when a threshold is given
#: explicitly (``docs/decisions.md``, "The fixed rule").
THRESHOLD_DEFAULTS = {
    "correct_threshold": 0.9,
    "suspect_confidence": 0.3,
    "model_threshold": 0.4,
}


#: Above this many rows, ``model='auto'`` compares its candidates on a
#: stratified sample of this many rows (then evaluates only the chosen one on
#: every row): the comparison's standard error is already below 0.3 points.
MODEL_SELECTION_MAX_SAMPLES = 50_000

#: The final models ``model='auto'`` compares for two classes; the first is
#: kept unless another is clearly better out of fold (:func:`_choose_model`).
AUTO_CANDIDATES = ("rosr", "cb_adaboost", "cb_adaboost_trees")

#: The candidates for more than two classes (boosted stumps are weak
#: multi-class learners; depth-3 trees capture interactions).
AUTO_CANDIDATES_MULTICLASS = ("rosr", "cb_adaboost_trees")

#: The rule of :func:`_choose_model`, in words (``model_selection_['rule']``).
AUTO_RULE = (
    "out-of-fold error rate against the observed labels over every row decided "
    "out of fold; another candidate replaces RoSR-L only if its error rate is "
    "lower by more than one standard error of the paired per-row difference "
    "(the lowest error rate among those that are)"
)


def _choose_model(
    oofs: dict[str, np.ndarray], codes: np.ndarray
) -> tuple[str, dict[str, Any]]:
    """Pick the final model from the out-of-fold probabilities of candidates.

    With one candidate, that one. With two (``model='auto'``, two classes), the
    first (RoSR-L) unless the second's error rate is lower by more than one
    standard error of the paired per-row difference (the one-standard-error
    rule, leaning to the linear model). Rows without out-of-fold
    probabilities for some candidate are left out of the comparison; with
    fewer than two rows left, the first candidate is kept.
    """
    names = list(oofs)
    decided = np.ones(codes.shape[0], dtype=bool)
    for proba in oofs.values():
        decided &= ~np.isnan(proba).any(axis=1)
    n_rows = int(decided.sum())
    errors: dict[str, np.ndarray | None] = {}
    for name, proba in oofs.items():
        if n_rows == 0:
            errors[name] = None
            continue
        p = proba[decided]
        label = argmax_keep_observed(p, codes[decided])
        errors[name] = (label != codes[decided]).astype(np.float64)
    selection: dict[str, Any] = {
        "rule": AUTO_RULE if len(names) > 1 else "the configured final model",
        "candidates": {
            name: {
                "error_rate": None if e is None else float(e.mean()),
                "rows": n_rows,
            }
            for name, e in errors.items()
        },
    }
    chosen = names[0]
    best_error = None
    compared: dict[str, tuple[float | None, float | None]] = {}
    first = errors[names[0]]
    for name in names[1:]:
        other = errors[name]
        diff: float | None = None
        se: float | None = None
        if n_rows >= 2 and first is not None and other is not None:
            d = first - other
            diff = float(d.mean())
            se = float(d.std(ddof=1) / np.sqrt(n_rows))
            rate = float(other.mean())
            if diff > se and (best_error is None or rate < best_error):
                chosen, best_error = name, rate
        compared[name] = (diff, se)
        if len(names) > 2:
            selection["candidates"][name]["difference"] = diff
            selection["candidates"][name]["standard_error"] = se
    if compared:
        # the chosen challenger's comparison, or the closest challenger's
        closest = max(compared, key=lambda k: -np.inf if compared[k][0] is None
                      else compared[k][0])  # fmt: skip
        diff, se = compared[chosen if chosen in compared else closest]
        selection["difference"], selection["standard_error"] = diff, se
    selection["chosen"] = chosen
    return chosen, selection


def final_model_info(cleaner: Any) -> dict[str, Any] | None:
    """The fitted cleaner's final model and how it was chosen, as JSON types.

    ``{"name": model_name_, "estimator": class name, "selection":
    model_selection_}``; None for an object without ``model_name_`` (e.g. a
    model file written before the attribute existed).
    """
    name = getattr(cleaner, "model_name_", None)
    if name is None:
        return None
    return {
        "name": name,
        "estimator": type(cleaner.model_).__name__,
        "selection": getattr(cleaner, "model_selection_", None),
    }


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinite floats as None (JSON-ready)."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, float | np.floating):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


def _plain_label(value: Any) -> Any:
    """A class label as a JSON type (numpy scalars to Python)."""
    return value.item() if isinstance(value, np.generic) else value


def _stage(spec: Any, seed: int) -> Any:
    """A fresh stage: a built-in kind's name (:data:`STAGE_KINDS`) or a clone
    of an estimator, seeded with ``seed`` unless it has a seed of its own."""
    if isinstance(spec, str):
        est = STAGE_KINDS.get(spec).build()
    else:
        est = clone(spec)
    if "random_state" in est.get_params() and est.random_state is None:
        est.set_params(random_state=seed)
    return est


def _fit_accepts(estimator, name: str) -> bool:
    return name in inspect.signature(estimator.fit).parameters


class LabelCleaner(BaseFilter):
    """Find, correct and discard wrong labels: the whole cleaning pipeline.

    Parameters
    ----------
    confidence : {'knn', 'bayes'} or estimator, default='knn'
        The label-confidence stage.

        - 'knn': :class:`~labelclean.confidence.KNNConfidence` (KNN filter,
          then neighbours' label shares); needs no noise level. Scores are
          leave-one-out by construction.
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
    model : {'auto', 'cb_adaboost', 'cb_adaboost_trees', 'rosr', 'spbl'} or \
classifier, default='auto'
        The final model.

        - 'auto': RoSR-L for more than two classes. For two classes, both
          RoSR-L and CB-AdaBoost are evaluated out of fold, and CB-AdaBoost
          is chosen only when its out-of-fold error rate against the observed
          labels is lower than RoSR-L's by more than one standard error of
          the paired difference (otherwise RoSR-L); see ``model_name_``,
          ``model_selection_`` and ``docs/decisions.md``.
        - 'cb_adaboost', 'cb_adaboost_trees' (depth-3 trees), 'rosr', 'spbl':
          that labelclean classifier.
        - a classifier: used as given (cloned); soft labels are passed when
          its ``fit`` takes ``gamma`` or ``soft_labels``.
    target_precision : float or None, default=None
        The decisions are calibrated on the fitted rows (``docs/decisions.md``,
        "Calibrated decisions"): the noise is estimated, and the operating
        point is measured on known flips of the rows' own labels. With a
        target, the most rows are flagged whose estimated precision still
        reaches it, and a class is corrected into another only where the
        estimated precision of those corrections reaches it. None: the
        operating point of highest estimated F1 among those whose estimated
        precision is at least 0.5 (0.8 when the features predict the label
        poorly), and corrections at an estimated precision of 0.9.
    correct_threshold : float or None, default=None
        Setting any of the three thresholds replaces the calibrated decisions
        with the fixed rule: probability both the confidence stage and the
        final model must give another label for a row to be corrected (0.9
        when another threshold is given).
    suspect_confidence : float or None, default=None
        Fixed rule: γ below which a row is a suspect if the model agrees (0.3
        when another threshold is given).
    model_threshold : float or None, default=None
        Fixed rule: a suspect needs the final model's out-of-sample
        probability of its observed label below this (0.4 when another
        threshold is given).
    require_agreement : bool, default=True
        Corrections need the final model to agree with the confidence stage.
    final_fit : {'cleaned', 'soft'}, default='cleaned'
        What the final model (``model_``, used by :meth:`predict` and
        :meth:`audit`) is fitted on. The out-of-fold evidence is always from
        models fitted on the rows SPLBoost kept, with the confidence stage's
        soft labels (the papers' setting).

        - 'cleaned': the cleaned result, i.e. kept and corrected rows with
          their cleaned labels as hard labels. More accurate on clean test
          data in our measurements (``docs/decisions.md``).
        - 'soft': the rows SPLBoost kept, with the soft labels, as the
          out-of-fold models.
    cv : int, default=5
        Folds of the out-of-sample model probabilities (and of cross-fitted
        confidence).
    random_state : int, RandomState instance or None, default=None
        Seed of every random choice (neighbour search, folds, models).
    n_jobs : int or None, default=None
        Threads: with more than one, SPLBoost is fitted while the confidence
        stage runs, and the out-of-fold models are fitted at once; None means
        1, -1 all processors (joblib's rules). It is also the confidence
        stage's ``n_jobs`` unless that stage sets its own. The results do not
        depend on it, except with the approximate neighbour search (200,000
        rows or more): pynndescent's graph on one thread differs from its
        graph on several, so there the same ``n_jobs`` gives the same bytes.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Distinct observed labels.
    confidence_estimator_ : estimator
        The fitted confidence stage.
    suspect_estimator_ : estimator or None
        The fitted suspect stage.
    model_ : classifier
        The final model (by default fitted on the cleaned rows, see
        ``final_fit``).
    model_name_ : str
        Which final model was used: 'rosr', 'cb_adaboost' or 'spbl' when
        ``model`` is a string ('auto' resolved), otherwise the class name of
        the given estimator.
    model_selection_ : dict
        How the final model was chosen: ``rule`` (in words), ``chosen``,
        ``candidates`` (per candidate its out-of-fold ``error_rate`` against
        the observed labels and the number of ``rows`` compared; ``None``
        when there was nothing to compare), and for two candidates
        ``difference`` (RoSR-L's error rate minus CB-AdaBoost's) and its
        ``standard_error``; ``sampled_rows`` when the comparison ran on a
        stratified sample (more than :data:`MODEL_SELECTION_MAX_SAMPLES`
        rows).
    feature_encoder_ : object
        Fitted feature preparation for the suspect stage and final model.
    audit_ : DataFrame
        One row per training row: the decision, reason and evidence columns
        (:data:`~labelclean.report.AUDIT_COLUMNS`), indexed like the input.
    calibration_ : dict
        What the fit measured about its own rows, JSON-ready: the estimated
        ``noise_rate`` (with a 5–95 % bootstrap interval) and
        ``noise_rate_per_class``, the flag threshold on
        ``noise_probability``, the estimated ``flag_precision`` and
        ``flag_recall`` of the flags (with intervals), the corrections'
        estimated precision per pair of classes, and how well the features
        predict the label (``predictability``). See ``docs/decisions.md``.
    noise_rate_ : float
        Estimated share of wrong labels among the fitted rows.
    noise_rate_per_class_ : dict
        Estimated share of wrong labels among the rows of each observed class.
    missing_values_ : dict
        ``columns``: missing values per feature column (only those with
        any) in the fitted rows; ``handling``: how they were handled.
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
        suspects, model_out_of_fold, decisions, final_model); also logged at
        INFO level. Not saved with the model. With ``n_jobs > 1`` SPLBoost
        runs during the confidence stage, and ``suspects`` is only the wait
        for it after that stage.
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
            StrOptions({"auto", "cb_adaboost", "cb_adaboost_trees", "rosr", "spbl"}),
            HasMethods(["fit", "predict_proba"]),
        ],
        "target_precision": [Interval(Real, 0.0, 1.0, closed="right"), None],
        "correct_threshold": [Interval(Real, 0.0, 1.0, closed="both"), None],
        "suspect_confidence": [Interval(Real, 0.0, 1.0, closed="both"), None],
        "model_threshold": [Interval(Real, 0.0, 1.0, closed="both"), None],
        "require_agreement": ["boolean"],
        "final_fit": [StrOptions({"cleaned", "soft"})],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        confidence="knn",
        suspects="splboost",
        model="auto",
        *,
        target_precision: float | None = None,
        correct_threshold: float | None = None,
        suspect_confidence: float | None = None,
        model_threshold: float | None = None,
        require_agreement: bool = True,
        final_fit: str = "cleaned",
        cv: int = 5,
        random_state=None,
        n_jobs: int | None = None,
    ) -> None:
        self.confidence = confidence
        self.suspects = suspects
        self.model = model
        self.target_precision = target_precision
        self.correct_threshold = correct_threshold
        self.suspect_confidence = suspect_confidence
        self.model_threshold = model_threshold
        self.require_agreement = require_agreement
        self.final_fit = final_fit
        self.cv = cv
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------
    # stage construction
    def _make_confidence(self, seed: int):
        est = _stage(self.confidence, seed)
        # The neighbour search may use the threads too (an estimator's own
        # n_jobs wins).
        if "n_jobs" in est.get_params() and est.n_jobs is None:
            est.set_params(n_jobs=self.n_jobs)
        return est

    def _make_suspects(self, seed: int):
        return None if self.suspects is None else _stage(self.suspects, seed)

    def _model_candidates(self, n_classes: int) -> list[str]:
        """Names of the final models to evaluate; the first is the default."""
        if not isinstance(self.model, str):
            return [type(self.model).__name__]
        if self.model == "auto":
            return list(
                AUTO_CANDIDATES if n_classes == 2 else AUTO_CANDIDATES_MULTICLASS
            )
        return [self.model]

    def _make_model(self, name: str, seed: int):
        """A fresh final model: ``name`` from :meth:`_model_candidates`."""
        return _stage(name if isinstance(self.model, str) else self.model, seed)

    # ------------------------------------------------------------------
    def _check_X(self, X, *, reset: bool):
        """Validate ``X`` and return (frame-or-array for confidence, Z).

        ``Z`` is the encoded features with NaN where a numeric or date value
        was missing; :meth:`_model_input` imputes them for the learners that
        do not route missing values themselves.
        """
        from sklearn.utils.validation import validate_data

        check_unique_columns(X)
        if is_dataframe(X):
            if X.shape[0] == 0:
                raise DataValidationError("X has 0 rows; pass at least one row.")
            validate_data(self, X, skip_check_array=True, reset=reset)
            raw = X
        else:
            raw = validate_data(
                self, X, reset=reset, dtype=np.float64, ensure_all_finite="allow-nan"
            )
            check_no_infinity(raw, getattr(self, "feature_names_in_", None))
        if reset:
            self.feature_encoder_ = make_feature_encoder(
                raw if is_dataframe(raw) else None
            )
            Z = self.feature_encoder_.fit_transform(raw)
        else:
            if is_dataframe(raw):
                check_feature_frame(raw)  # the same one-line errors as at fit
            Z = self.feature_encoder_.transform(raw)
        Z, fill = restore_missing(
            self.feature_encoder_, raw, np.array(Z, dtype=np.float64)
        )
        if reset:
            self._missing_fill = fill
        return raw, Z

    def _model_input(self, model, Z: np.ndarray) -> np.ndarray:
        """``Z`` as ``model`` takes it: missing values imputed unless it routes
        them natively (the binned boosting learners)."""
        if get_tags(model).input_tags.allow_nan:
            return Z
        missing = np.isnan(Z)
        if not missing.any():
            return Z
        return np.where(missing, self._missing_fill[None, :], Z)

    def _fit_model(self, model, Z, codes, soft, rows, *, quiet=True):
        """Fit ``model`` on ``rows`` with labels ``classes_[codes]``.

        Soft labels go to models whose ``fit`` takes them: CB-AdaBoost's
        ``gamma`` (the class-probability matrix, or the observed label's
        probability when a class is absent from ``rows``) and RoSR's
        ``soft_labels``.
        """
        y = self.classes_[codes[rows]]
        all_present = np.unique(codes[rows]).shape[0] == self.classes_.shape[0]
        kwargs = {}
        if _fit_accepts(model, "gamma"):
            kwargs["gamma"] = soft[rows] if all_present else soft[rows, codes[rows]]
        elif _fit_accepts(model, "soft_labels") and all_present:
            kwargs["soft_labels"] = soft[rows]
        Z_rows = self._model_input(model, Z[rows])
        if not quiet:  # the caller silences warnings (threads share filters)
            model.fit(Z_rows, y, **kwargs)
            return model
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            model.fit(Z_rows, y, **kwargs)
        return model

    def _proba_in_classes(self, model, Z) -> np.ndarray:
        """``model.predict_proba`` with columns aligned to ``classes_``."""
        proba = model.predict_proba(self._model_input(model, Z))
        out = np.zeros((Z.shape[0], self.classes_.shape[0]))
        cols = np.searchsorted(self.classes_, model.classes_)
        out[:, cols] = proba
        return out

    # ------------------------------------------------------------------
    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: ArrayLike, y: ArrayLike) -> "LabelCleaner":
        """Run every stage on ``(X, y)`` and decide every row.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Features: numeric arrays, or DataFrames with numeric, categorical,
            boolean or datetime columns.
        y : array-like of shape (n_samples,)
            Observed labels of any type.

        Returns
        -------
        self : LabelCleaner
            Fitted pipeline.
        """
        rng = check_random_state(self.random_state)
        clock = StageClock()
        raw, Z = self._check_X(X, reset=True)
        self.missing_values_ = {
            "columns": missing_value_counts(raw),
            "handling": MISSING_VALUE_HANDLING,
        }
        self.classes_, codes = check_labels(y, n_samples=Z.shape[0])
        n_samples, n_classes = codes.shape[0], self.classes_.shape[0]
        index = X.index if is_dataframe(X) else pd.RangeIndex(n_samples)
        counts = np.bincount(codes, minlength=n_classes)
        n_folds = int(min(self.cv, counts.min()))
        folds = None
        if n_folds >= 2:
            splitter = StratifiedKFold(
                n_folds, shuffle=True, random_state=draw_seed(rng)
            )
            folds = list(splitter.split(Z, codes))

        clock.lap("features")
        # 1. label confidence and 2. suspects ------------------------------
        # The two stages are independent; with n_jobs > 1 SPLBoost runs on a
        # thread while the confidence stage runs here (its boosting kernels
        # release the GIL, e.g. during pynndescent's compilation). The seeds
        # are drawn first, so the results do not depend on it.
        conf_seed, suspects_seed = draw_seed(rng), draw_seed(rng)
        self.suspect_estimator_ = self._make_suspects(suspects_seed)
        labels = self.classes_[codes]
        with ThreadPoolExecutor(max_workers=1) as pool:
            suspects_done = None
            if (
                self.suspect_estimator_ is not None
                and effective_n_jobs(self.n_jobs) > 1
            ):
                suspects_done = pool.submit(
                    self.suspect_estimator_.fit,
                    self._model_input(self.suspect_estimator_, Z),
                    labels,
                )
            self.confidence_estimator_ = self._make_confidence(conf_seed).fit(raw, y)
            conf = self.confidence_estimator_
            if hasattr(conf, "soft_labels_"):  # leave-one-out neighbours
                soft = np.asarray(conf.soft_labels_, dtype=np.float64)
            else:
                soft = self._cross_fitted_confidence(raw, y, folds, conf_seed)
            neighbor_counts = getattr(conf, "neighbor_counts_", None)
            clock.lap("confidence")
            if suspects_done is not None:
                suspects_done.result()
            elif self.suspect_estimator_ is not None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    self.suspect_estimator_.fit(
                        self._model_input(self.suspect_estimator_, Z), labels
                    )
        spl_weight = zero_round = None
        train_rows = np.arange(n_samples)
        if self.suspect_estimator_ is not None:
            spl_weight = np.asarray(self.suspect_estimator_.spl_weights_, float)
            zero_round = getattr(self.suspect_estimator_, "zero_weight_round_", None)
            kept = np.flatnonzero(spl_weight > 0)
            if np.unique(codes[kept]).shape[0] == n_classes:
                train_rows = kept
            else:
                warnings.warn(
                    "SPLBoost gave zero weight to every row of a class; the final "
                    "model is fitted on all rows.",
                    UserWarning,
                    stacklevel=2,
                )
        in_train = np.zeros(n_samples, dtype=bool)
        in_train[train_rows] = True
        clock.lap("suspects")

        # 3. final model: out of fold (for each candidate, then choose one),
        #    then on the cleaned rows ----------------------------------------
        model_seed = draw_seed(rng)
        if folds is None:
            warnings.warn(
                "a class has a single row: the final model's probabilities are "
                "in-sample, not out of fold.",
                UserWarning,
                stacklevel=2,
            )
        candidates = self._model_candidates(n_classes)
        oofs, self.model_selection_ = self._select_model(
            candidates, model_seed, Z, codes, soft, folds, in_train
        )
        self.model_name_ = self.model_selection_["chosen"]
        oof = oofs[self.model_name_]
        name = self.model_name_
        missing = np.isnan(oof).any(axis=1)
        soft_model = None
        if missing.any() or self.final_fit == "soft":
            soft_model = self._make_model(name, model_seed)
            self._fit_model(soft_model, Z, codes, soft, train_rows)
            if missing.any():
                oof[missing] = self._proba_in_classes(soft_model, Z[missing])
            self.model_ = soft_model

        clock.lap("model_out_of_fold")
        # 4. decisions -----------------------------------------------------
        evidence = Evidence(codes, soft, oof, spl_weight)
        self.evidence_ = evidence
        self._calibrate(evidence, draw_seed(rng))
        decided = self._decide(evidence)
        decision, _, new_codes, _ = decided
        self.decisions_ = decision
        self.audit_ = self._audit_frame(
            index, y, evidence, decided, neighbor_counts, zero_round
        )
        clock.lap("decisions")
        self.sample_indices_ = np.flatnonzero(decision != "discarded")
        self.cleaned_labels_ = self.classes_[new_codes[self.sample_indices_]]
        kept_classes = np.unique(new_codes[self.sample_indices_]).shape[0]
        if self.final_fit == "cleaned" and kept_classes < 2:
            warnings.warn(
                "the cleaned rows hold fewer than two classes; the final model is "
                "the one fitted on the rows SPLBoost kept.",
                UserWarning,
                stacklevel=2,
            )
            if soft_model is None:
                soft_model = self._make_model(name, model_seed)
                self._fit_model(soft_model, Z, codes, soft, train_rows)
            self.model_ = soft_model
        elif self.final_fit == "cleaned":
            self.model_ = self._make_model(name, model_seed)
            hard = np.eye(n_classes)[new_codes[self.sample_indices_]]
            cleaned_codes = new_codes.copy()
            cleaned_soft = np.zeros_like(soft)
            cleaned_soft[self.sample_indices_] = hard
            self._fit_model(
                self.model_, Z, cleaned_codes, cleaned_soft, self.sample_indices_
            )
        clock.lap("final_model")
        self.stage_times_ = clock.times
        logger.info(
            "stage times (s): %s",
            ", ".join(f"{k} {v:.1f}" for k, v in clock.times.items()),
        )
        return self

    def _select_model(self, names, seed, Z, codes, soft, folds, in_train):
        """Out-of-fold probabilities of the chosen final model, and the choice.

        With several candidates, each is evaluated out of fold and
        :func:`_choose_model` picks one. On more than
        :data:`MODEL_SELECTION_MAX_SAMPLES` rows the comparison runs on a
        stratified, seeded sample of that many rows (with its own folds), and
        only the chosen model is then evaluated out of fold on every row.
        """
        rows = None
        if len(names) > 1 and folds is not None:
            rows = stratified_rows(
                codes, MODEL_SELECTION_MAX_SAMPLES, min_per_class=len(folds), seed=seed
            )
        if rows is None:
            oofs = self._out_of_fold(names, seed, Z, codes, soft, folds, in_train)
            return oofs, _choose_model(oofs, codes)[1]
        splitter = StratifiedKFold(len(folds), shuffle=True, random_state=seed)
        sub_folds = list(splitter.split(rows, codes[rows]))
        sub_oofs = self._out_of_fold(
            names,
            seed,
            Z[rows],
            codes[rows],
            soft[rows],
            sub_folds,
            in_train[rows],
        )
        chosen, selection = _choose_model(sub_oofs, codes[rows])
        selection["sampled_rows"] = int(rows.shape[0])
        oofs = self._out_of_fold([chosen], seed, Z, codes, soft, folds, in_train)
        return oofs, selection

    def _out_of_fold(self, names, seed, Z, codes, soft, folds, in_train):
        """Out-of-fold class probabilities of each final model in ``names``.

        For each fold, the model is fitted on the other folds' rows that
        SPLBoost kept and asked about the fold's rows. Rows of a fold whose
        training part holds a single class (or every row, without folds) are
        NaN. The (model, fold) fits are independent, so they run on
        ``n_jobs`` threads (the boosting kernels release the GIL); each writes
        its own rows, so the result does not depend on the number of threads.
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
            model = self._make_model(name, seed)
            self._fit_model(model, Z, codes, soft, rows, quiet=False)
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
        for (name, _, test), proba in zip(tasks, parts, strict=True):
            if proba is not None:
                oofs[name][test] = proba
        return oofs

    def _cross_fitted_confidence(self, raw, y, folds, seed) -> np.ndarray:
        """Per-class confidence of each row from a stage fitted without it."""
        n_samples = len(y)
        soft = np.zeros((n_samples, self.classes_.shape[0]))
        if folds is None:
            return self._proba_of(self.confidence_estimator_, raw)
        labels = np.asarray(y)
        for train, test in folds:
            est = self._make_confidence(seed)
            part = raw.iloc[train] if is_dataframe(raw) else raw[train]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                est.fit(part, labels[train])
            rest = raw.iloc[test] if is_dataframe(raw) else raw[test]
            soft[test] = self._proba_of(est, rest)
        return soft

    def _proba_of(self, est, raw) -> np.ndarray:
        proba = est.predict_proba(raw)
        out = np.zeros((proba.shape[0], self.classes_.shape[0]))
        out[:, np.searchsorted(self.classes_, est.classes_)] = proba
        return out

    def _thresholds(self) -> dict[str, float] | None:
        """The fixed rule's thresholds, or None for calibrated decisions."""
        given = {
            name: getattr(self, name)
            for name in THRESHOLD_DEFAULTS
            if getattr(self, name) is not None
        }
        if not given:
            return None
        return {**THRESHOLD_DEFAULTS, **given}

    def _calibrate(self, evidence: Evidence, seed: int) -> None:
        """Estimate the noise and choose the operating point on the fit's rows."""
        calibration = calibrate(
            evidence,
            require_agreement=self.require_agreement,
            target_precision=self.target_precision,
            random_state=seed,
        )
        self.noise_joint_ = calibration.joint
        self.flag_threshold_ = calibration.flag_threshold
        self.correction_thresholds_ = calibration.correction_thresholds
        thresholds = self._thresholds()
        self.decision_rule_ = "calibrated" if thresholds is None else "thresholds"
        summary = dict(calibration.summary)
        labels = [_plain_label(c) for c in self.classes_]
        summary["classes"] = labels
        summary["decision_rule"] = self.decision_rule_
        if thresholds is not None:
            summary["thresholds"] = thresholds
        for pair in summary["correction_pairs"]:
            pair["from"], pair["to"] = labels[pair["from"]], labels[pair["to"]]
        self.calibration_ = _finite(summary)
        self.noise_rate_ = summary["noise_rate"]
        self.noise_rate_per_class_ = dict(
            zip(labels, summary["noise_rate_per_class"], strict=True)
        )

    def _decide(self, evidence: Evidence):
        """Decision, reason, new codes and noise probability of each row."""
        from labelclean.pipeline._calibration import Calibration

        calibration = Calibration(
            self.noise_joint_, self.flag_threshold_, self.correction_thresholds_, {}
        )
        decision, reason, new_codes, noise = decide_calibrated(
            evidence, calibration, require_agreement=self.require_agreement
        )
        thresholds = self._thresholds()
        if thresholds is not None:
            decision, reason, new_codes = decide(
                evidence, **thresholds, require_agreement=self.require_agreement
            )
        return decision, reason, new_codes, noise

    def _audit_frame(
        self, index, y, ev, decided, neighbor_counts, zero_round
    ) -> pd.DataFrame:
        """The audit columns; ``decided`` is what :meth:`_decide` returned."""
        decision, reason, new_codes, noise = decided
        classes = self.classes_
        observed = pd.Series(np.asarray(y), index=index)
        if isinstance(y, pd.Series):
            observed = pd.Series(y.to_numpy(), index=index, dtype=y.dtype)
        cleaned = observed.copy()
        moved = decision == "corrected"
        cleaned[moved] = classes[new_codes[moved]]
        cleaned = cleaned.where(decision != "discarded")
        frame = pd.DataFrame(
            {
                "decision": pd.Series(decision, index=index, dtype=object),
                "reason": pd.Series(reason, index=index, dtype=object),
                "observed_label": observed,
                "cleaned_label": cleaned,
                "confidence": ev.confidence,
                "trusted_label": pd.Series(classes[ev.trusted], index=index),
                "trusted_probability": ev.trusted_probability,
                "spl_weight": np.nan if ev.spl_weight is None else ev.spl_weight,
                "spl_zero_round": pd.array(
                    [None] * len(index)
                    if zero_round is None
                    else np.where(np.asarray(zero_round) >= 0, zero_round, -1),
                    dtype="Int64",
                ),
                "model_probability": ev.model_probability,
                "model_label": pd.Series(classes[ev.model_label], index=index),
                "neighbor_label_counts": (
                    pd.Series([None] * len(index), index=index, dtype=object)
                    if neighbor_counts is None
                    else neighbor_counts_json(neighbor_counts, classes).set_axis(index)
                ),
                "noise_probability": noise,
            },
            index=index,
        )
        frame["spl_zero_round"] = frame["spl_zero_round"].mask(
            frame["spl_zero_round"] < 0
        )
        for col in ("trusted_label", "model_label"):
            if isinstance(y, pd.Series):
                frame[col] = frame[col].astype(y.dtype)
        return frame

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # imputed by the feature encoder
        return tags

    # ------------------------------------------------------------------
    def audit(self, X: ArrayLike, y: ArrayLike) -> pd.DataFrame:
        """Decide new labelled rows with the fitted stages (no refitting).

        The confidence of a new row comes from the fitted confidence stage
        (neighbours among the training rows of L_red, or the fitted densities),
        its model probability from the fitted final model, and its SPLBoost
        weight from the fitted SPLBoost ensemble: the self-paced weight its
        regularizer gives the row's loss at the final age
        (:meth:`~labelclean.ensemble.SPLBoostClassifier.self_paced_weights`),
        i.e. whether SPLBoost would have left the row out as a suspect. A
        suspect stage without that method gives no weights, and new rows are
        then judged on the other two. ``spl_zero_round`` stays empty: new rows
        took part in no round.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            New rows with the training columns.
        y : array-like of shape (n_samples,)
            Their observed labels, among ``classes_``.

        Returns
        -------
        audit : DataFrame
            The columns of :data:`~labelclean.report.AUDIT_COLUMNS`, indexed like ``X``.
        """
        check_is_fitted(self)
        raw, Z = self._check_X(X, reset=False)
        conf = self.confidence_estimator_
        codes = conf._encode_new_labels(y, Z.shape[0])
        counts = None
        if hasattr(conf, "neighbor_counts") and hasattr(conf, "n_neighbors_"):
            # One neighbour search gives both the evidence counts and the
            # class probabilities (KNNConfidence.predict_proba is counts / k).
            counts = conf.neighbor_counts(raw)
            soft = np.zeros((counts.shape[0], self.classes_.shape[0]))
            cols = np.searchsorted(self.classes_, conf.classes_)
            soft[:, cols] = counts / conf.n_neighbors_
        else:
            soft = self._proba_of(conf, raw)
            if hasattr(conf, "neighbor_counts"):
                counts = conf.neighbor_counts(raw)
        model_proba = self._proba_in_classes(self.model_, Z)
        spl_weight = None
        suspects = self.suspect_estimator_
        if suspects is not None and hasattr(suspects, "self_paced_weights"):
            spl_weight = suspects.self_paced_weights(Z, self.classes_[codes])
        evidence = Evidence(codes, soft, model_proba, spl_weight)
        index = X.index if is_dataframe(X) else pd.RangeIndex(Z.shape[0])
        return self._audit_frame(
            index, y, evidence, self._decide(evidence), counts, None
        )

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

    def report(self, **kwargs) -> dict:
        """The report dict (``report.json``) of the training rows' audit.

        Parameters
        ----------
        **kwargs
            Passed to :func:`labelclean.report.build_report`. ``run`` gains a
            ``final_model`` entry (the final model and how it was chosen)
            unless it has one.

        Returns
        -------
        report : dict
        """
        check_is_fitted(self)
        run = dict(kwargs.pop("run", None) or {})
        run.setdefault("final_model", final_model_info(self))
        return build_report(self.audit_, run=run, **kwargs)
