"""CB-AdaBoost: boosting on soft labels given by label confidences (Xiao et al.).

:class:`CBAdaBoostClassifier` runs the boosting loop of
:class:`~labelclean.ensemble._base.BaseWeightBoosting`; its ``_boost`` step
minimises the conditional risk ``gamma e^{-yf} + (1 - gamma) e^{yf}`` stage-wise
(Algorithm 2 of the paper): relabel each row with the sign of
``(w1 - w2) y``, weight it by ``|w1 - w2|``, fit the weak learner, take the
coefficient from (III.11) and stop when it is not positive. The confidences
``gamma`` are a fit parameter; without them the estimator computes them with
:class:`labelclean.confidence.KNNConfidence`.
"""

import copy
import dataclasses
from concurrent.futures import ThreadPoolExecutor
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import clone

from labelclean.confidence import KNNConfidence
from labelclean.ensemble._base import (
    BaseWeightBoosting,
    BoostStep,
    EarlyStopping,
    TrainingData,
)
from labelclean.utils._sklearn import HasMethods, Interval, StrOptions, fit_context

__all__ = ["EARLY_STOPPING_ROWS", "CBAdaBoostClassifier"]

#: Above this many rows ``early_stopping='auto'`` holds rows out and stops
#: early (scikit-learn's ``HistGradientBoostingClassifier`` rule).
EARLY_STOPPING_ROWS = 10_000


class CBAdaBoostClassifier(BaseWeightBoosting):
    """CB-AdaBoost: AdaBoost on the conditional risk of soft labels.

    Each training row carries a label confidence ``gamma_i = P(Z = y_i | x_i)``,
    the probability that its observed label is the true one. The ensemble
    ``F`` minimises the empirical conditional risk
    ``sum_i gamma_i exp(-y_i F(x_i)) + (1 - gamma_i) exp(y_i F(x_i))``: with
    ``w1_i = gamma_i exp(-y_i F)`` and ``w2_i = (1 - gamma_i) exp(y_i F)``, each
    round fits the weak learner to the labels ``sign((w1 - w2) y)`` with weights
    ``|w1 - w2|``, takes the coefficient ``beta`` of (III.11) and stops as soon
    as ``beta`` is not positive. With ``gamma = 1`` everywhere it is AdaBoost.

    Parameters
    ----------
    estimator : object, default=None
        Weak learner: any classifier whose ``fit`` takes ``sample_weight``
        (or any classifier with ``resample=True``). None means
        ``BinnedTreeClassifier(max_depth=1)``, a binned stump.
    n_estimators : int, default=200
        Largest number of boosting rounds (the paper's M).
    learning_rate : float or sequence of float, default=1.0
        Shrinks each weak learner's coefficient. A sequence is a choice
        made on the validation rows of early stopping: the ensemble is
        boosted once per rate, on the same training rows, and the rate
        whose ensemble scores best on the validation rows is kept
        (``learning_rate_``); without early stopping its first rate is used.
    resample : bool, default=False
        False fits the weak learner with the weights ``|w1 - w2|``. True is
        the paper's procedure: fit it, unweighted, on ``n`` rows drawn with
        replacement in proportion to those weights.
    confidence : estimator, default=None
        Computes ``gamma`` when ``fit`` gets none: an unfitted estimator whose
        ``fit(X, y)`` sets ``confidence_`` (and, if it has them, the soft labels
        ``soft_labels_`` or ``posterior_`` over all classes, which are used
        instead). None means ``labelclean.confidence.KNNConfidence`` with its
        defaults. It is cloned, never changed.
    early_stopping : 'auto' or bool, default=False
        Hold out ``validation_fraction`` of the rows (stratified by label),
        boost on the others, read after every round the ensemble's expected
        error on the held-out rows under their confidences,
        ``sum_i w_i (1 - P[i, prediction_i])``, stop once it has not fallen
        for ``n_iter_no_change`` rounds, and keep the rounds up to its
        lowest. ``'auto'`` turns it on above 10,000 rows, as scikit-learn's
        ``HistGradientBoostingClassifier`` does. False (the default) is the
        paper's Algorithm 2: ``n_estimators`` rounds unless (III.12) stops
        them.
    validation_fraction : float, default=0.1
        Share of the rows held out for early stopping.
    n_iter_no_change : int, default=40
        Rounds without a lower validation error after which early stopping
        ends the boosting.
    random_state : int, RandomState instance or None, default=None
        Seeds the weak learners, the resampling, the validation rows and the
        confidence estimator.
    n_jobs : int or None, default=None
        Threads for the runs of a sequence of learning rates under early
        stopping, one run per thread (joblib's convention: None is 1, -1
        every core). Only where a run's learners are binned trees fitted on
        the weights (not ``resample``): their fit draws nothing at random, so
        the ensemble is the one the runs give in turn, to the byte, whatever
        the number of threads.

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
        Coefficients on the SAMME scale: ``2 beta_m`` for two classes (the
        scale of scikit-learn's ``AdaBoostClassifier.estimator_weights_``).
    estimator_errors_ : ndarray of shape (n_rounds,)
        ``epsilon'_m``: weighted error of each weak learner on its relabelled
        training set (Proposition 3).
    confidence_ : ndarray of shape (n_samples,)
        The confidence ``gamma`` of each training row's observed label.
    learning_rate_ : float
        The learning rate of the fitted ensemble (one of ``learning_rate``).
    validation_score_ : ndarray of shape (n_rounds_run,)
        With early stopping, the kept rate's expected validation error after
        each round it ran (the ensemble is cut back to the lowest); empty
        without.

    See Also
    --------
    SPLBoostClassifier : Boosting that zero-weights rows it cannot trust.
    labelclean.confidence.KNNConfidence : The default source of ``gamma``.

    Notes
    -----
    - The stopping rule is ``beta <= 0``: the paper stops at ``beta < 0``; a
      round with ``beta = 0`` changes neither the weights nor the ensemble, so
      stopping there gives the same classifier and matches scikit-learn's
      AdaBoost when ``gamma = 1``. A perfect weak learner (zero weighted
      error) gets coefficient 1 and ends the boosting, as in scikit-learn.
    - K classes. ``gamma`` may be a matrix ``P[i, k] = P(Z = k | x_i)``; a
      vector spreads ``1 - gamma_i`` evenly over the other classes. The risk is
      ``sum_i sum_k P[i, k] exp(-(s_ik - mean_k s_ik))`` with the SAMME scores
      ``s`` (for two classes exactly the paper's). Row ``i`` is relabelled with
      the class of the largest ``W_ik = P[i, k] exp(-(s_ik - mean s_i))`` and
      weighted by the gap between its largest and second largest ``W_ik``
      (for two classes exactly ``sign((w1 - w2) y)`` and ``|w1 - w2|``). The
      coefficient is the exact line search
      ``log(A / B) + log(K - 1)``, ``A`` the sum of ``W`` at the predicted
      classes and ``B`` the rest; for two classes it is ``2 beta`` of (III.11).
    - With ``resample=True`` and a binned weak learner, the draw counts are
      passed as weights, which is the same fit as on the drawn rows.
    - Early stopping and a choice of learning rates are not in the paper,
      which fixes M; they choose M (and the shrinkage) on held-out rows
      (docs/decisions.md, *Deep trees stop early, on rows held out*).

    References
    ----------
    .. [1] Z. Xiao, Z. Luo, B. Zhong, X. Dang, "Robust and Efficient Boosting
       Method using the Conditional Risk", IEEE Transactions on Neural
       Networks and Learning Systems (CB-AdaBoost, Algorithm 2).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from labelclean.ensemble import CBAdaBoostClassifier
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> gamma = np.full(200, 0.9)
    >>> clf = CBAdaBoostClassifier(n_estimators=50, random_state=0)
    >>> clf = clf.fit(X, y, gamma=gamma)
    >>> float(clf.score(X, y)) > 0.85
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **BaseWeightBoosting._parameter_constraints,
        "learning_rate": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "resample": ["boolean"],
        "confidence": [HasMethods(["fit"]), None],
        "early_stopping": [StrOptions({"auto"}), "boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        estimator=None,
        *,
        n_estimators=200,
        learning_rate=1.0,
        resample=False,
        confidence=None,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=40,
        random_state=None,
        n_jobs=None,
    ):
        super().__init__(
            estimator,
            n_estimators=n_estimators,
            learning_rate=learning_rate,
            random_state=random_state,
        )
        self.resample = resample
        self.confidence = confidence
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, gamma=None, sample_weight=None):
        """Fit the boosted ensemble on soft labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Observed (possibly noisy) labels.
        gamma : array-like of shape (n_samples,) or (n_samples, n_classes), \
                default=None
            Label confidences in [0, 1]: ``P(Z = y_i | x_i)`` per row, or the
            full posterior ``P(Z = classes_[k] | x_i)`` per row and class (rows
            summing to 1). None computes them with ``confidence``. Request it
            with ``set_fit_request(gamma=True)`` to route it through a
            :class:`~sklearn.pipeline.Pipeline`.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights multiplying each row's risk.

        Returns
        -------
        self : CBAdaBoostClassifier
            The fitted ensemble.
        """
        data = self._prepare(X, y, sample_weight)
        if gamma is None:
            gamma = self._estimate_confidence(X, y, data)
        self._log_posterior, self.confidence_ = self._posterior(gamma, data)
        rates = np.atleast_1d(np.asarray(self.learning_rate, dtype=np.float64))
        if rates.ndim != 1 or not rates.size or not np.all(rates > 0):
            raise ValueError(
                "learning_rate must be a positive number or a non-empty sequence "
                f"of positive numbers, got {self.learning_rate!r}."
            )
        held_out = self._validation_rows(data)
        if held_out is None:
            self._boost_at(rates[0], data)
            self.validation_score_ = np.zeros(0)
        else:
            self._boost_with_early_stopping(rates, held_out, data)
        for name in ("_log_posterior", "_log_p_label", "_log_p_other", "_rate"):
            self.__dict__.pop(name, None)
        return self

    def _boost_at(self, rate, data, stopping=None):
        """One boosting run at learning rate ``rate`` from a fresh ensemble."""
        self._rate = self.learning_rate_ = float(rate)
        data.log_loss[:] = 0.0
        if data.centred_scores is not None:
            data.centred_scores[:] = 0.0
        self.estimators_ = []
        if data.n_classes == 2:  # the two columns the rounds need, gathered once
            rows = np.arange(data.codes.shape[0])
            self._log_p_label = self._log_posterior[rows, data.codes] + (
                data.log_sample_weight
            )
            self._log_p_other = self._log_posterior[rows, 1 - data.codes] + (
                data.log_sample_weight
            )
        self._run(data, stopping)

    def _validation_rows(self, data):
        """Rows held out for early stopping (a stratified, seeded share of
        the rows with weight), or None when it is off or leaves no rows."""
        n_samples = data.codes.shape[0]
        on = self.early_stopping
        if on == "auto":
            on = n_samples > EARLY_STOPPING_ROWS
        if not on:
            return None
        held_out = np.zeros(n_samples, dtype=bool)
        weighted = data.sample_weight > 0
        for k in range(data.n_classes):
            rows = np.flatnonzero((data.codes == k) & weighted)
            take = round(self.validation_fraction * rows.shape[0])
            held_out[data.rng.permutation(rows)[:take]] = True
        if not held_out.any() or not (weighted & ~held_out).any():
            return None
        return held_out

    def _boost_with_early_stopping(self, rates, held_out, data):
        """Boost at each rate on the rows not held out, each run stopped and
        cut back on the held-out rows' expected error; keep the best run."""
        weight = data.sample_weight[held_out] / data.sample_weight[held_out].sum()
        posterior = np.exp(self._log_posterior[held_out])
        rows = np.arange(posterior.shape[0])
        train = np.where(held_out, 0.0, data.sample_weight)
        data.sample_weight = train / train.sum()
        with np.errstate(divide="ignore"):
            data.log_sample_weight = np.log(data.sample_weight)

        def expected_error(data):
            if data.n_classes == 2:  # s_1 - s_0 from each row's log-loss
                sign = np.where(data.codes[held_out] == 1, -1.0, 1.0)
                predicted = (sign * data.log_loss[held_out] > 0).astype(np.intp)
            else:
                predicted = np.argmax(data.centred_scores[held_out], axis=1)
            return float(weight @ (1.0 - posterior[rows, predicted]))

        stopping = EarlyStopping(expected_error, self.n_iter_no_change)
        threads = self._threads_for_rates(rates, data)
        if threads > 1:
            runs = self._boost_rates_on_threads(rates, data, stopping, threads)
        else:
            runs = []
            for rate in rates:  # each run leaves new fitted attributes behind
                self._boost_at(rate, data, stopping)
                runs.append(dict(self.__dict__))
        scores = [run["validation_score_"].min() for run in runs]
        self.__dict__.update(runs[int(np.argmin(scores))])  # the first best

    def _threads_for_rates(self, rates, data) -> int:
        """Threads for the learning rates' runs (:attr:`n_jobs`, one run per
        thread at most): 1 unless the learners are binned trees fitted on the
        weights, whose fit draws nothing from the seeds they are given."""
        if len(rates) < 2 or data.X_binned is None or self.resample:
            return 1
        return int(min(len(rates), effective_n_jobs(self.n_jobs)))

    def _boost_rates_on_threads(self, rates, data, stopping, threads):
        """Each rate's run on a copy of the ensemble and of the round state,
        on ``threads`` threads (the trees' kernels release the GIL); returns
        each run's attributes, as the runs in turn leave them.

        In turn, each run draws its learners' seeds (one draw per round,
        kept or cut back) from where the run before left the stream. Here
        every run starts from the stream's first state, and the learners
        are given afterwards the seeds the runs in turn would have drawn.
        """
        start = copy.deepcopy(data.rng)

        def run(rate):
            counted = _CountedFactory(data.new_learner)
            own = dataclasses.replace(
                data, rng=copy.deepcopy(start), new_learner=counted
            )
            boosted = object.__new__(type(self))  # copy.copy would pack trees
            boosted.__dict__.update(self.__dict__)
            boosted._boost_at(rate, own, stopping)
            return dict(boosted.__dict__), counted.calls

        with ThreadPoolExecutor(threads, thread_name_prefix="labelclean-rate") as pool:
            runs = list(pool.map(run, rates))
        stream = start
        for attributes, calls in runs:
            kept = attributes["estimators_"]
            for k in range(calls):
                seeds = data.new_learner.seeds(stream)
                if k < len(kept) and seeds:
                    kept[k].set_params(**seeds)
        data.rng.set_state(stream.get_state())
        return [attributes for attributes, _ in runs]

    def _estimate_confidence(self, X, y, data):
        """``gamma`` from the confidence stage: the soft labels when available."""
        if self.confidence is None:
            seed = data.rng.randint(np.iinfo(np.int32).max)
            estimator = KNNConfidence(random_state=seed)
        else:
            estimator = clone(self.confidence)
        estimator.fit(X, y)
        expected = (data.codes.shape[0], data.n_classes)
        for name in ("soft_labels_", "posterior_"):
            soft = getattr(estimator, name, None)
            if soft is not None and np.shape(soft) == expected:
                return np.asarray(soft, dtype=np.float64)
        return estimator.confidence_

    def _posterior(self, gamma, data):
        """Validate ``gamma``; return ``log P[i, k]`` and the observed-label gamma."""
        gamma = np.asarray(gamma, dtype=np.float64)
        n_samples, n_classes = data.codes.shape[0], data.n_classes
        rows = np.arange(n_samples)
        if gamma.ndim == 1 and gamma.shape[0] == n_samples:
            posterior = np.repeat(
                ((1.0 - gamma) / (n_classes - 1))[:, None], n_classes, 1
            )
            posterior[rows, data.codes] = gamma
        elif gamma.shape == (n_samples, n_classes):
            posterior = gamma
            if not np.allclose(posterior.sum(axis=1), 1.0):
                raise ValueError(
                    "a gamma matrix must hold one probability row per sample, "
                    "summing to 1 over the classes (columns ordered like classes_)."
                )
        else:
            raise ValueError(
                f"gamma must have shape ({n_samples},) or ({n_samples}, {n_classes}), "
                f"got {gamma.shape}."
            )
        if (
            not np.all(np.isfinite(posterior))
            or posterior.min() < 0
            or posterior.max() > 1
        ):
            raise ValueError("gamma must hold finite confidences in [0, 1].")
        with np.errstate(divide="ignore"):
            log_posterior = np.log(posterior)
        return log_posterior, posterior[rows, data.codes].copy()

    def _boost(self, iboost: int, data: TrainingData) -> BoostStep | None:
        if data.n_classes == 2:
            targets, gap, w_at = self._two_class_problem(data)
        else:
            targets, gap, w_at = self._multi_class_problem(data)
        if targets is None:
            return None
        fitted = self._fit_weak_learner(data, targets, gap, resample=self.resample)
        if fitted is None:
            return None  # every row has w1 = w2: nothing left to learn
        estimator, predictions, weight = fitted
        error = float(weight[predictions != targets].sum())
        agree, disagree = w_at(predictions)
        if disagree <= 0:
            return BoostStep(estimator, 1.0, error, predictions, stop=True)
        alpha = self._rate * (np.log(agree / disagree) + np.log(data.n_classes - 1.0))
        if not alpha > 0:
            return None  # beta <= 0: (III.12) fails, stop (Algorithm 2, step 4)
        return BoostStep(estimator, float(alpha), error, predictions)

    def _two_class_problem(self, data):
        """Relabelled targets, weights ``|w1 - w2|`` and the sums of (III.11)."""
        other = 1 - data.codes
        # w1 = gamma e^{-yF}, w2 = (1 - gamma) e^{yF}; log e^{-yF} = log_loss.
        log_w1 = self._log_p_label + data.log_loss
        log_w2 = self._log_p_other - data.log_loss
        top = max(np.max(log_w1), np.max(log_w2))
        if not np.isfinite(top):
            return None, None, None
        w1, w2 = np.exp(log_w1 - top), np.exp(log_w2 - top)
        targets = np.where(w1 >= w2, data.codes, other)

        def w_at(predictions):
            right = predictions == data.codes
            return (
                float(np.where(right, w1, w2).sum()),
                float(np.where(right, w2, w1).sum()),
            )

        return targets, np.abs(w1 - w2), w_at

    def _multi_class_problem(self, data):
        """K-class targets (largest ``W_ik``) and weights (gap to the second)."""
        rows = np.arange(data.codes.shape[0])
        log_w = (
            self._log_posterior - data.centred_scores + data.log_sample_weight[:, None]
        )
        top = np.max(log_w)
        if not np.isfinite(top):
            return None, None, None
        w = np.exp(log_w - top)
        # The two largest W of each row, each the first of its ties: what a
        # stable sort of -W puts first and second, at a fraction of its cost.
        targets = np.argmax(w, axis=1)
        others = w.copy()
        others[rows, targets] = -np.inf
        gap = w[rows, targets] - w[rows, np.argmax(others, axis=1)]

        def w_at(predictions):
            # B summed from its own terms, not as the total less A: where every
            # other class has W = 0 the difference leaves a rounding residue.
            chosen = np.zeros(w.shape, dtype=bool)
            chosen[rows, predictions] = True
            return float(w[chosen].sum()), float(w[~chosen].sum())

        return targets, gap, w_at


class _CountedFactory:
    """A learner factory that counts the learners it makes (the rounds a run
    drew seeds for)."""

    def __init__(self, factory):
        self.factory = factory
        self.calls = 0

    def __call__(self, rng):
        self.calls += 1
        return self.factory(rng)
