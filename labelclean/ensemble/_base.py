"""The boosting core shared by the boosting classifiers of labelclean.

:class:`BaseWeightBoosting` owns the boosting loop once: input validation,
label encoding, quantising the data once per fit for the binned weak learners,
cloning and seeding one weak learner per round, normalising the round's
weights, leaving zero-weight rows out of the weak learner's fit, the stopping
rules, the training scores, and the staged predictions. Each algorithm
(:class:`~labelclean.ensemble.SPLBoostClassifier`,
:class:`~labelclean.ensemble.CBAdaBoostClassifier`) implements one ``_boost``
step that decides the round's targets and weights and the weak learner's
coefficient.

Scores follow the multi-class SAMME convention: a weak learner predicting class
``c`` with coefficient ``alpha`` adds ``alpha`` to the score of class ``c``.
With ``s`` the scores of a row and ``s_bar`` their mean over classes, the
per-class exponential loss is ``exp(-(s_k - s_bar))``; for two classes this is
AdaBoost's ``exp(-y F)`` with ``F = (s_1 - s_0) / 2``, and the coefficients are
twice AdaBoost's ``alpha`` (the scale of scikit-learn's ``estimator_weights_``).
Everything is kept in the log domain, so the weights cannot overflow.
"""

import logging
from abc import ABCMeta, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from scipy.special import softmax
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from labelclean.ensemble._binned import (
    BinnedTreeClassifier,
    _BinMapper,
    ensemble_scores,
)
from labelclean.ensemble._packed import is_packed, pack_trees, unpack_trees
from labelclean.exceptions import DataValidationError
from labelclean.utils._sklearn import (
    MAX_ESTIMATORS,
    HasMethods,
    Interval,
    OlderFilesMixin,
    check_sample_weight,
)

__all__ = ["BaseWeightBoosting", "BoostStep", "EarlyStopping", "TrainingData"]

logger = logging.getLogger(__name__)


@dataclass
class TrainingData:
    """What every round of one boosting fit sees.

    The core keeps, after each round, ``log_loss``: the log of each row's
    exponential loss for its label, ``mean_k s_k - s_y`` with ``s`` the SAMME
    scores; with more than two classes it also keeps the scores centred over
    the classes (``centred_scores``). For two classes the centred scores are
    ``(-log_loss, log_loss)`` ordered as (label, other class), so they are not
    stored. ``new_learner`` makes each round's weak learner.
    """

    X: np.ndarray
    codes: np.ndarray
    sample_weight: np.ndarray  # user weights, normalised to sum 1
    n_classes: int
    rng: np.random.RandomState
    X_binned: np.ndarray | None = None
    mapper: _BinMapper | None = None
    new_learner: "LearnerFactory | None" = None
    log_loss: np.ndarray = field(init=False)
    centred_scores: np.ndarray | None = field(init=False)
    log_sample_weight: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n_samples = self.codes.shape[0]
        self.log_loss = np.zeros(n_samples)
        self.centred_scores = (
            np.zeros((n_samples, self.n_classes)) if self.n_classes > 2 else None
        )
        with np.errstate(divide="ignore"):
            self.log_sample_weight = np.log(self.sample_weight)

    def loss_step(self, predictions: np.ndarray, alpha: float) -> np.ndarray:
        """Change of ``log_loss`` when a learner predicting ``predictions`` is
        added with coefficient ``alpha``: ``alpha / K`` where wrong, ``alpha / K -
        alpha`` where right."""
        correct = predictions == self.codes
        return alpha / self.n_classes - alpha * correct

    def add(self, predictions: np.ndarray, alpha: float) -> None:
        """Add a weak learner's predictions with coefficient ``alpha``."""
        self.log_loss += self.loss_step(predictions, alpha)
        if self.centred_scores is not None:
            rows = np.arange(predictions.shape[0])
            self.centred_scores -= alpha / self.n_classes
            self.centred_scores[rows, predictions] += alpha


#: Parameter values a fresh learner may share with the template: clone
#: deep-copies a parameter, and a copy of one of these is itself.
_IMMUTABLE = (int, float, str, bool, type(None), np.integer, np.floating)


class LearnerFactory:
    """Fresh, seeded, unfitted copies of a weak learner: one per round.

    Each call is ``clone(estimator)`` with every ``random_state`` among its
    (deep) parameters set, in sorted order, to a draw from ``rng``, as the
    boosting loop has always seeded its learners. The parameter names are read
    once per fit, not once per round; and where the learner is a plain
    scikit-learn estimator whose parameters are all scalars (the binned trees),
    a copy is built from them directly: what ``clone`` would build, without
    its per-call introspection (about 150 µs a round, ad hoc, where a depth-3 tree
    on 1,200 rows takes 0.4-0.5 ms to grow; docs/boosting.md, *A learner per
    round*). Any other learner is cloned.
    """

    def __init__(self, estimator):
        self.estimator = estimator
        self.seed_keys = [
            key
            for key in sorted(estimator.get_params(deep=True))
            if key == "random_state" or key.endswith("__random_state")
        ]
        params = estimator.get_params(deep=False)
        plain = (
            type(estimator).__sklearn_clone__ is BaseEstimator.__sklearn_clone__
            and "_metadata_request" not in vars(estimator)
            and all(isinstance(v, _IMMUTABLE) for v in params.values())
            and all("__" not in key for key in self.seed_keys)
        )
        # clone checks that the constructor keeps every parameter as given;
        # a learner built from them must, once, to be built that way.
        if plain and type(estimator)(**params).get_params(deep=False) != params:
            plain = False
        self._params = params if plain else None

    def seeds(self, rng: np.random.RandomState) -> dict:
        """The ``random_state`` parameters of the next learner, drawn from ``rng``."""
        return {key: rng.randint(np.iinfo(np.int32).max) for key in self.seed_keys}

    def __call__(self, rng: np.random.RandomState):
        seeds = self.seeds(rng)
        if self._params is not None:
            return type(self.estimator)(**{**self._params, **seeds})
        estimator = clone(self.estimator)
        return estimator.set_params(**seeds) if seeds else estimator


@dataclass
class BoostStep:
    """The outcome of one round: a weak learner and its coefficient.

    ``stop`` ends the boosting after this round (the estimator is kept).
    """

    estimator: object
    estimator_weight: float
    estimator_error: float
    predictions: np.ndarray
    stop: bool = False


@dataclass
class EarlyStopping:
    """When the boosting loop stops on held-out rows (:meth:`BaseWeightBoosting._run`).

    ``score(data)`` is the validation score of the ensemble so far (lower is
    better); the loop ends once it has not fallen by more than ``tol`` for
    ``patience`` rounds.
    """

    score: Callable[[TrainingData], float]
    patience: int
    tol: float = 1e-7


def normalised_exp(log_weights: np.ndarray) -> np.ndarray:
    """``exp(log_weights)`` scaled to sum 1, without overflow (``-inf`` gives 0)."""
    top = np.max(log_weights)
    if not np.isfinite(top):
        return np.zeros_like(log_weights)
    w = np.exp(log_weights - top)
    return w / w.sum()


def samme_weight(error: float, n_classes: int, learning_rate: float) -> float:
    """SAMME coefficient ``lr * (log((1 - err) / err) + log(K - 1))``."""
    return learning_rate * (np.log((1.0 - error) / error) + np.log(n_classes - 1.0))


class BaseWeightBoosting(
    OlderFilesMixin, ClassifierMixin, BaseEstimator, metaclass=ABCMeta
):
    """Base class of the boosting classifiers; subclasses implement ``_boost``.

    Warning: This class should not be used directly. Use derived classes
    instead.
    """

    _parameter_constraints: ClassVar[dict] = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_estimators": [Interval(Integral, 1, MAX_ESTIMATORS, closed="both")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    @abstractmethod
    def __init__(
        self, estimator=None, *, n_estimators=200, learning_rate=1.0, random_state=None
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.random_state = random_state

    def __getstate__(self):
        # The trees as a few arrays (labelclean.ensemble._packed): what
        # pickle, joblib, dask and the model file save.
        state = dict(super().__getstate__())
        packed = pack_trees(state.get("estimators_"))
        if packed is not None:
            state["estimators_"] = packed
        return state

    def __setstate__(self, state):
        if is_packed(state.get("estimators_")):
            state = {**state, "estimators_": unpack_trees(state["estimators_"])}
        super().__setstate__(state)

    def _routes_missing(self) -> bool:
        """Whether the weak learner takes missing values (NaN) as they are."""
        return self.estimator is None or get_tags(self.estimator).input_tags.allow_nan

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._routes_missing()
        return tags

    def _finite(self) -> bool | str:
        return "allow-nan" if self._routes_missing() else True

    # ------------------------------------------------------------------ fit
    def _prepare(self, X, y, sample_weight) -> TrainingData:
        """Validate the input, encode labels, quantise once; reset fitted state."""
        X, y = validate_data(
            self, X, y, dtype=[np.float64, np.float32], ensure_all_finite=self._finite()
        )
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        if self.n_classes_ < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes in the "
                f"data, but the data contain only one class: {self.classes_[0]!r}."
            )
        sample_weight = check_sample_weight(
            sample_weight, X, dtype=np.float64, copy=True, ensure_non_negative=True
        )
        if sample_weight.sum() <= 0:
            raise ValueError("sample_weight is zero for every row; nothing to fit.")
        sample_weight /= sample_weight.sum()
        self.estimator_ = (
            BinnedTreeClassifier(max_depth=1)
            if self.estimator is None
            else clone(self.estimator)
        )
        rng = check_random_state(self.random_state)
        data = TrainingData(
            X=X,
            codes=codes.astype(np.intp),
            sample_weight=sample_weight,
            n_classes=self.n_classes_,
            rng=rng,
            new_learner=LearnerFactory(self.estimator_),
        )
        if isinstance(self.estimator_, BinnedTreeClassifier):
            seed = self.estimator_.random_state
            if seed is None:
                seed = rng.randint(np.iinfo(np.int32).max)
            positive = sample_weight > 0
            data.mapper = _BinMapper(self.estimator_.max_bins, seed).fit(X[positive])
            data.X_binned = data.mapper.transform(X)
            self._bin_mapper = data.mapper
        else:
            self._bin_mapper = None
        self.estimators_ = []
        self.estimator_weights_ = np.zeros(0)
        self.estimator_errors_ = np.zeros(0)
        return data

    def _run(self, data: TrainingData, stopping: EarlyStopping | None = None) -> None:
        """The boosting loop: one ``_boost`` step per round until a stop.

        With ``stopping``, the validation score is read after every round,
        the loop ends once it has not improved for ``stopping.patience``
        rounds, and the ensemble is cut back to its best round
        (``validation_score_`` holds every round's score)."""
        weights, errors, scores = [], [], []
        best, best_round = np.inf, -1
        for iboost in range(self.n_estimators):
            step = self._boost(iboost, data)
            if step is None:
                break
            self.estimators_.append(step.estimator)
            weights.append(step.estimator_weight)
            errors.append(step.estimator_error)
            data.add(step.predictions, step.estimator_weight)
            if not np.isfinite(data.log_loss).all():  # pragma: no cover - defensive
                logger.warning(
                    "non-finite scores at round %d; boosting stopped", iboost
                )
                self.estimators_.pop()
                weights.pop()
                errors.pop()
                break
            self._end_round(iboost, data, step)
            if stopping is not None:
                scores.append(stopping.score(data))
                if scores[-1] < best - stopping.tol:
                    best, best_round = scores[-1], iboost
                elif iboost - best_round >= stopping.patience:
                    break
            if step.stop:
                break
        if stopping is not None:  # back to the best round
            del self.estimators_[best_round + 1 :]
            del weights[best_round + 1 :], errors[best_round + 1 :]
            self.validation_score_ = np.asarray(scores, dtype=np.float64)
        if not self.estimators_:
            raise DataValidationError(
                f"{type(self).__name__} could not fit a single weak learner: no "
                "split of the features told the labels apart better than chance on "
                "the weighted rows (are the features unrelated to the label, every "
                "value holding as many rows of each class?), or every row had zero "
                "weight in the first round. Give features that predict the label, "
                "or check the parameters (e.g. a larger age for SPLBoost, or more "
                "informative confidences for CB-AdaBoost), or use a stronger weak "
                "learner."
            )
        self.estimator_weights_ = np.asarray(weights, dtype=np.float64)
        self.estimator_errors_ = np.asarray(errors, dtype=np.float64)

    @abstractmethod
    def _boost(self, iboost: int, data: TrainingData) -> BoostStep | None:
        """One round: fit a weak learner and return it with its coefficient.

        Return ``None`` to stop without keeping a learner for this round.
        """

    def _end_round(self, iboost: int, data: TrainingData, step: BoostStep) -> None:
        """Hook run after the scores include round ``iboost``."""

    # ----------------------------------------------------- core services
    def _fit_weak_learner(self, data, targets, weight, *, resample=False):
        """Fit one weak learner on ``targets`` with row weights ``weight``.

        The weights are normalised; rows with zero weight are left out of the
        fit. With ``resample=True`` the learner is fit, unweighted, on ``n``
        rows drawn with replacement in proportion to the weights (for the
        binned learners, the equivalent draw counts are passed as weights).

        Returns
        -------
        (estimator, predictions, weight) or None
            ``None`` when every weight is zero. ``predictions`` are class
            codes on the training rows; ``weight`` is the normalised weight.
        """
        total = weight.sum()
        if not np.isfinite(total) or total <= 0:
            return None
        weight = weight / total
        estimator = data.new_learner(data.rng)
        n_samples = targets.shape[0]
        if resample:
            drawn = data.rng.choice(n_samples, size=n_samples, replace=True, p=weight)
        if data.X_binned is not None:
            fit_weight = (
                np.bincount(drawn, minlength=n_samples).astype(np.float64)
                if resample
                else weight
            )
            estimator._fit_binned(
                data.X_binned, targets, fit_weight, data.n_classes, data.mapper
            )
            predictions = estimator._predict_binned(data.X_binned)
        else:
            if resample:
                estimator.fit(data.X[drawn], targets[drawn])
            else:
                keep = weight > 0
                if keep.all():
                    estimator.fit(data.X, targets, sample_weight=weight)
                else:
                    estimator.fit(
                        data.X[keep], targets[keep], sample_weight=weight[keep]
                    )
            predictions = np.asarray(estimator.predict(data.X)).astype(np.intp)
        return estimator, predictions, weight

    # ------------------------------------------------------------ predict
    def _check_X(self, X):
        check_is_fitted(self)
        return validate_data(
            self,
            X,
            dtype=[np.float64, np.float32],
            reset=False,
            ensure_all_finite=self._finite(),
        )

    def _staged_scores(self, X):
        """SAMME scores of ``X`` after each round."""
        X = self._check_X(X)
        binned = self._bin_mapper.transform(X) if self._bin_mapper is not None else None
        scores = np.zeros((X.shape[0], self.n_classes_))
        rows = np.arange(X.shape[0])
        for estimator, weight in zip(
            self.estimators_, self.estimator_weights_, strict=True
        ):
            if binned is not None:
                predictions = estimator._predict_binned(binned)
            else:
                predictions = np.asarray(estimator.predict(X)).astype(np.intp)
            scores[rows, predictions] += weight
            yield scores

    def _scores(self, X):
        check_is_fitted(self)
        if self._bin_mapper is not None and self.estimators_:
            # One compiled pass over the rows for all binned trees.
            X = self._check_X(X)
            return ensemble_scores(
                self.estimators_,
                self.estimator_weights_,
                self._bin_mapper.transform(X),
                self.n_classes_,
                self._bin_mapper,
            )
        *_, scores = self._staged_scores(X)
        return scores

    def _decision_from_scores(self, scores):
        if self.n_classes_ == 2:
            return (scores[:, 1] - scores[:, 0]) / 2.0
        return scores - scores.mean(axis=1, keepdims=True)

    def _predict_from_scores(self, scores):
        if self.n_classes_ == 2:
            return self.classes_.take(scores[:, 1] > scores[:, 0], axis=0)
        return self.classes_.take(np.argmax(scores, axis=1), axis=0)

    def decision_function(self, X):
        """Decision function of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        score : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Two classes: the additive model ``F(x) = sum_m beta_m h_m(x)`` with
            ``h_m`` in {-1, +1} (positive means ``classes_[1]``). More classes:
            the SAMME scores centred to sum zero over classes.
        """
        return self._decision_from_scores(self._scores(X))

    def staged_decision_function(self, X):
        """Decision function of ``X`` after each boosting round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Yields
        ------
        score : ndarray of shape (n_samples,) or (n_samples, n_classes)
            As :meth:`decision_function`, after 1, 2, ... rounds.
        """
        for scores in self._staged_scores(X):
            yield self._decision_from_scores(scores)

    def predict(self, X):
        """Predict class labels for ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted labels.
        """
        return self._predict_from_scores(self._scores(X))

    def staged_predict(self, X):
        """Predicted labels for ``X`` after each boosting round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Yields
        ------
        y : ndarray of shape (n_samples,)
            Predicted labels after 1, 2, ... rounds.
        """
        for scores in self._staged_scores(X):
            yield self._predict_from_scores(scores)

    def predict_proba(self, X):
        """Class probabilities for ``X``: the softmax of the SAMME scores.

        For two classes this is ``1 / (1 + exp(-2 F(x)))``, the population
        minimiser of the exponential loss.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns ordered like ``classes_``.
        """
        return softmax(self._scores(X), axis=1)

    def staged_predict_proba(self, X):
        """Class probabilities for ``X`` after each boosting round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Yields
        ------
        proba : ndarray of shape (n_samples, n_classes)
            As :meth:`predict_proba`, after 1, 2, ... rounds.
        """
        for scores in self._staged_scores(X):
            yield softmax(scores, axis=1)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Columns ordered like ``classes_``.
        """
        scores = self._scores(X)
        top = scores.max(axis=1, keepdims=True)
        shifted = scores - top
        return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
