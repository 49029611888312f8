"""SPLBoost: AdaBoost with self-paced sample weights (Wang et al., 2020).

:class:`SPLBoostClassifier` runs the boosting loop of
:class:`~labelclean.ensemble._base.BaseWeightBoosting`; its ``_boost`` step
fits the weak learner with weights ``v_i * w_i``, where ``w_i`` is AdaBoost's
weight and ``v_i`` in [0, 1] the closed-form minimiser of a self-paced
regularizer at the row's current exponential loss. The regularizers and their
latent losses (the integral of ``v*``, Theorem 1) are
:func:`~labelclean.utils._self_paced.spl_weights` and
:func:`~labelclean.utils._self_paced.latent_loss`.
"""

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import check_cv
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import column_or_1d

from labelclean.ensemble._base import (
    BaseWeightBoosting,
    BoostStep,
    TrainingData,
    normalised_exp,
    samme_weight,
)
from labelclean.utils._sampling import fold_count, stratified_folds, stratified_rows
from labelclean.utils._self_paced import REGULARIZERS, latent_loss, spl_weights
from labelclean.utils._sklearn import MAX_ITERATIONS, Interval, StrOptions, fit_context

__all__ = ["SPLBoostClassifier"]

# The age used during the warm-up rounds (Remark 3 of the paper).
WARMUP_AGE = 1e6
# The default, cheap grid for the age when age="auto".
DEFAULT_AGE_GRID = tuple(np.round(np.arange(1.0, 6.01, 0.5), 1))


class SPLBoostClassifier(BaseWeightBoosting):
    """SPLBoost: robust AdaBoost that gives zero weight to rows it cannot trust.

    Each round fits a weak learner with weights ``v_i * w_i``: ``w_i`` is
    AdaBoost's weight, proportional to the row's exponential loss, and ``v_i``
    in [0, 1] is the self-paced weight, the closed-form minimiser of
    ``v * loss + f(v; age)`` for a self-paced regularizer ``f``. Rows whose
    loss exceeds a cutoff set by the age ``lambda`` get ``v = 0`` and take no
    part in fitting; at the end of the fit they are the suspects.

    Parameters
    ----------
    estimator : object, default=None
        Weak learner: any classifier whose ``fit`` takes ``sample_weight``.
        None means ``BinnedTreeClassifier(max_depth=1)``, a binned stump.
    n_estimators : int, default=200
        Largest number of boosting rounds.
    learning_rate : float, default=1.0
        Shrinks each weak learner's coefficient.
    age : float or "auto", default="auto"
        The age parameter lambda. "auto" chooses it by stratified
        cross-validation over ``age_grid`` (see Notes). ``np.inf`` gives plain
        (SAMME) AdaBoost.
    age_grid : array-like of float, default=None
        Candidate ages for ``age="auto"``; None means 1.0, 1.5, ..., 6.0.
        The paper's grid is ``np.arange(1.0, 6.05, 0.1)``.
    cv : int, cross-validation generator or iterable, default=3
        Folds for ``age="auto"``: an int is the number of stratified, shuffled
        folds (seeded by ``random_state``), fewer only where fewer than two
        classes have that many rows; a class too small for the folds is
        trained on in every fold and held out by none. Anything else is
        passed to :func:`sklearn.model_selection.check_cv`.
    age_cv_max_samples : int or None, default=50_000
        With ``age="auto"`` and an integer ``cv``, the age is chosen on a
        stratified, seeded sample of at most this many rows (the final fit
        still uses every row). None searches on every row.
    regularizer : {"hard", "linear", "polynomial", "mixture", "mixture_log"}, \
            default="hard"
        Self-paced regularizer; see :func:`spl_weights`.
    t : float, default=4.0
        Exponent of the polynomial regularizer.
    zeta : float, default=None
        Parameter of the mixture regularizers; None means ``age / 2``.
    n_warmup_rounds : int, default=3
        Rounds run with ``age = 1e6`` before the chosen age applies (Remark 3).
    n_inner_iter : int, default=1
        Inner (alternating) iterations per round between the weak learner and
        ``v`` (Remark 1); the inner loop also stops when ``v`` no longer
        changes.
    random_state : int, RandomState instance or None, default=None
        Seeds the weak learners, the quantisation subsample and the folds.
    n_jobs : int, default=None
        Threads for the age search's fits (every fold and age is an
        independent fit; the histogram kernels release the GIL). joblib's
        convention: None is 1, -1 every processor. The age chosen and the
        fitted model do not depend on it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_classes_ : int
        Number of classes.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when X has string column names.
    estimator_ : estimator
        The unfitted weak learner template.
    estimators_ : list of estimators
        The fitted weak learners, one per round.
    estimator_weights_ : ndarray of shape (n_rounds,)
        Coefficients on the SAMME scale (twice AdaBoost's alpha for two
        classes, like scikit-learn's ``AdaBoostClassifier``).
    estimator_errors_ : ndarray of shape (n_rounds,)
        Weighted error of each weak learner under the weights ``v * w``.
    age_ : float
        The age used (given or chosen).
    cv_results_ : dict or None
        With ``age="auto"``: ``{"age": grid, "mean_error": ...,
        "std_error": ..., "n_samples": rows searched on, "n_splits": folds}``;
        otherwise None.
    spl_weights_ : ndarray of shape (n_samples,)
        Final self-paced weight ``v`` of each training row.
    suspects_ : ndarray of shape (n_samples,), dtype=bool
        True where ``spl_weights_ == 0``.
    zero_weight_round_ : ndarray of shape (n_samples,), dtype=int
        For each suspect, the round after which its weight reached zero and
        stayed there; -1 for the other rows.
    objective_ : ndarray of shape (n_rounds,)
        Latent objective ``sum_i s_i F_age(loss_i)`` (``s`` the normalised
        sample weights) after each round, at the chosen age. It does not
        increase from round ``n_warmup_rounds`` on (Theorem 1).

    See Also
    --------
    CBAdaBoostClassifier : Boosting on soft labels from label confidences.
    sklearn.ensemble.AdaBoostClassifier : Plain AdaBoost (SAMME).

    Notes
    -----
    Choices where the paper leaves room:

    - Loss. The weights ``v`` are computed from the row's exponential loss
      ``exp(-y F(x))`` of the current ensemble, not from the normalised
      AdaBoost weight, so the age has the paper's scale.
    - K classes. The loss is the SAMME multi-class exponential loss
      ``exp(-(s_y - mean_k s_k))`` with ``s`` the SAMME scores; for two
      classes it is ``exp(-y F)`` exactly, and the SAMME coefficient
      ``log((1 - err) / err) + log(K - 1)`` is the exact minimiser of the
      ``v``-weighted loss, so Theorem 1 carries over.
    - A weak learner no better than chance under ``v * w`` ends the boosting
      (as in scikit-learn's SAMME); a perfect one gets coefficient 1 and ends
      it.
    - Choosing the age. The paper uses five-fold cross-validation over
      [1.0, 6.0] in steps of 0.1 (51 values). The default here is three folds
      over 11 values (steps of 0.5), 33 fits instead of 255; the paper's grid
      and folds are available through ``age_grid`` and ``cv``. The age with
      the lowest mean validation error wins; ties go to the larger age.
    - ``zeta=None`` means ``age / 2`` for both mixture forms. The
      splboost.md form has its cutoff at ``age**2`` as printed.

    References
    ----------
    .. [1] K. Wang, Y. Wang, Q. Zhao, D. Meng, X. Liao, Z. Xu, "SPLBoost: An
       improved robust boosting algorithm based on self-paced learning", IEEE
       Trans. Cybernetics 51(3), 2021.
    .. [2] T. Pi et al., "Self-paced boost learning for classification",
       IJCAI 2016 (the logarithmic mixture regularizer, eq. 7-8).
    .. [3] J. Zhu, H. Zou, S. Rosset, T. Hastie, "Multi-class AdaBoost",
       Statistics and its Interface 2, 2009.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from labelclean.ensemble import SPLBoostClassifier
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> clf = SPLBoostClassifier(age=3.0, n_estimators=50, random_state=0).fit(X, y)
    >>> clf.suspects_.shape
    (200,)
    >>> float(clf.score(X, y)) > 0.85
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseWeightBoosting._parameter_constraints,
        "age": [Interval(Real, 0, None, closed="right"), StrOptions({"auto"})],
        "age_grid": ["array-like", None],
        "cv": ["cv_object"],
        "age_cv_max_samples": [Interval(Integral, 2, None, closed="left"), None],
        "regularizer": [StrOptions(set(REGULARIZERS))],
        "t": [Interval(Real, 1, None, closed="neither")],
        "zeta": [Interval(Real, 0, None, closed="neither"), None],
        "n_warmup_rounds": [Interval(Integral, 0, None, closed="left")],
        "n_inner_iter": [Interval(Integral, 1, MAX_ITERATIONS, closed="both")],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        estimator=None,
        *,
        n_estimators=200,
        learning_rate=1.0,
        age="auto",
        age_grid=None,
        cv=3,
        age_cv_max_samples=50_000,
        regularizer="hard",
        t=4.0,
        zeta=None,
        n_warmup_rounds=3,
        n_inner_iter=1,
        random_state=None,
        n_jobs=None,
    ):
        super().__init__(
            estimator,
            n_estimators=n_estimators,
            learning_rate=learning_rate,
            random_state=random_state,
        )
        self.age = age
        self.age_grid = age_grid
        self.cv = cv
        self.age_cv_max_samples = age_cv_max_samples
        self.regularizer = regularizer
        self.t = t
        self.zeta = zeta
        self.n_warmup_rounds = n_warmup_rounds
        self.n_inner_iter = n_inner_iter
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, sample_weight=None):
        """Fit the boosted ensemble.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Observed (possibly noisy) labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights; None gives every row the same weight.

        Returns
        -------
        self : SPLBoostClassifier
            The fitted ensemble.
        """
        data = self._prepare(X, y, sample_weight)
        if self.age == "auto":
            self.age_, self.cv_results_ = self._choose_age(X, y, sample_weight, data)
        else:
            self.age_, self.cv_results_ = float(self.age), None
        n_samples = data.codes.shape[0]
        self._v = (
            np.ones(n_samples)
            if self.n_warmup_rounds > 0
            else self._weights(data.log_loss, self.age_)
        )
        self._zero_round = np.full(n_samples, -1, dtype=np.intp)
        self._objective = []
        self._run(data)
        self.spl_weights_ = self._v
        self.suspects_ = self._v == 0
        self.zero_weight_round_ = self._zero_round
        self.objective_ = np.asarray(self._objective)
        del self._v, self._zero_round, self._objective
        return self

    def self_paced_weights(self, X, y):
        """Self-paced weight ``v`` of labelled rows under the fitted ensemble.

        The weight the regularizer gives a row's exponential loss for label
        ``y`` under the final ensemble, at the age of the last round: the
        weight SPLBoost would end with for that row. For the training rows it
        equals ``spl_weights_``; for new rows it tells whether the ensemble
        would have left them out as suspects (``v = 0``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to weigh.
        y : array-like of shape (n_samples,)
            Their labels, among ``classes_``.

        Returns
        -------
        v : ndarray of shape (n_samples,)
            Self-paced weights in [0, 1].
        """
        scores = self._scores(X)
        y = column_or_1d(y, warn=True)
        if y.shape[0] != scores.shape[0]:
            raise ValueError(
                f"X has {scores.shape[0]} rows but y has {y.shape[0]}; pass one "
                "label per row."
            )
        codes = np.searchsorted(self.classes_, y)
        codes = np.minimum(codes, self.classes_.shape[0] - 1)
        unknown = self.classes_[codes] != y
        if unknown.any():
            raise ValueError(
                f"y holds label(s) {np.unique(y[unknown]).tolist()!r} not seen in "
                f"fit; the classes are {self.classes_.tolist()!r}."
            )
        rows = np.arange(codes.shape[0])
        log_loss = scores.mean(axis=1) - scores[rows, codes]
        return self._weights(log_loss, self._age_at(len(self.estimators_)))

    def _age_at(self, iboost: int) -> float:
        return WARMUP_AGE if iboost < self.n_warmup_rounds else self.age_

    def _weights(self, log_loss, age):
        return spl_weights(log_loss, age, self.regularizer, t=self.t, zeta=self.zeta)

    def _boost(self, iboost: int, data: TrainingData) -> BoostStep | None:
        adaboost = normalised_exp(data.log_loss + data.log_sample_weight)
        v = self._v
        for inner in range(self.n_inner_iter):
            fitted = self._fit_weak_learner(data, data.codes, v * adaboost)
            if fitted is None:
                return None  # every row has v = 0
            estimator, predictions, weight = fitted
            incorrect = predictions != data.codes
            error = float(weight[incorrect].sum())
            if error <= 0:
                return BoostStep(estimator, 1.0, 0.0, predictions, stop=True)
            if error >= 1.0 - 1.0 / data.n_classes:
                return None
            alpha = samme_weight(error, data.n_classes, self.learning_rate)
            if inner + 1 < self.n_inner_iter:
                trial = data.log_loss + data.loss_step(predictions, alpha)
                new_v = self._weights(trial, self._age_at(iboost))
                if np.array_equal(new_v, v):
                    break
                v = new_v
        self._v = v
        return BoostStep(estimator, alpha, error, predictions)

    def _end_round(self, iboost: int, data: TrainingData, step: BoostStep) -> None:
        log_loss = data.log_loss
        new_v = self._weights(log_loss, self._age_at(iboost + 1))
        became_zero = (new_v == 0) & (self._v > 0)
        self._zero_round[became_zero] = iboost
        self._zero_round[new_v > 0] = -1
        self._v = new_v
        objective = latent_loss(
            log_loss, self.age_, self.regularizer, t=self.t, zeta=self.zeta
        )
        # An elementwise sum: BLAS dot products are slow under multi-threading.
        self._objective.append(float((data.sample_weight * objective).sum()))

    def _choose_age(self, X, y, sample_weight, data):
        """Pick the age with the lowest mean validation error over the folds."""
        grid = np.asarray(
            DEFAULT_AGE_GRID if self.age_grid is None else self.age_grid, dtype=float
        )
        if grid.ndim != 1 or grid.size == 0 or not np.all(grid > 0):
            raise ValueError(
                f"age_grid must be a non-empty list of positive ages, got {grid!r}."
            )
        X, codes, weight = data.X, data.codes, data.sample_weight
        if isinstance(self.cv, Integral):
            n_splits = fold_count(codes, self.cv)
            if n_splits is None:
                # Too few rows to cross-validate: take the middle age.
                return float(np.median(grid)), None
            seed = data.rng.randint(np.iinfo(np.int32).max)
            # The age is chosen on a stratified sample of a large input.
            rows = stratified_rows(
                codes, self.age_cv_max_samples, min_per_class=n_splits, seed=seed
            )
            if rows is not None:
                X, codes, weight = X[rows], codes[rows], weight[rows]
            # A class too small for the folds is trained on in every fold and
            # held out by none, as in the pipeline's out-of-fold evidence.
            splits = stratified_folds(codes, n_splits, seed)
        else:
            splits = list(check_cv(self.cv, codes, classifier=True).split(X, codes))

        def error(age, f):
            train, test = splits[f]
            model = clone(self).set_params(age=float(age), random_state=f, n_jobs=None)
            model.fit(X[train], codes[train], sample_weight=weight[train])
            wrong = model.predict(X[test]) != codes[test]
            return np.average(wrong, weights=weight[test] + 1e-300)

        # Every (age, fold) fit is independent and seeded by its fold: the
        # errors, and so the age, are the same on any number of threads.
        tasks = [(age, f) for age in grid for f in range(len(splits))]
        errors = np.asarray(
            Parallel(n_jobs=self.n_jobs, prefer="threads")(
                delayed(error)(age, f) for age, f in tasks
            )
        ).reshape(grid.shape[0], len(splits))
        mean = errors.mean(axis=1)
        best = int(np.flatnonzero(mean <= mean.min() + 1e-12).max())
        results = {
            "age": grid,
            "mean_error": mean,
            "std_error": errors.std(axis=1),
            "n_samples": int(codes.shape[0]),
            "n_splits": len(splits),
        }
        return float(grid[best]), results
