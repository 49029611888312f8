"""AdaBoost on the observed labels: CB-AdaBoost with every label confidence 1.

CB-AdaBoost's conditional risk ``gamma e^{-yF} + (1 - gamma) e^{yF}`` is
AdaBoost's exponential loss when every ``gamma`` is 1, and its K-class step
is then SAMME's (Zhu et al., 2009). :class:`SAMMEClassifier` is that
ensemble as an estimator whose ``fit`` takes no confidences: inside a
cleaning run it learns the labels as they were observed, where
:class:`~labelclean.ensemble.CBAdaBoostClassifier` learns the confidence
stage's soft labels (docs/decisions.md, *The multi-class pipeline's
evidence*).
"""

import numpy as np

from labelclean.ensemble._base import BaseWeightBoosting
from labelclean.ensemble._cb_adaboost import CBAdaBoostClassifier

__all__ = ["SAMMEClassifier"]


class SAMMEClassifier(CBAdaBoostClassifier):
    """AdaBoost (SAMME) on the observed labels, on binned weak learners.

    The boosting of :class:`~labelclean.ensemble.CBAdaBoostClassifier` with
    every row's label confidence 1: each round fits the weak learner to the
    observed labels weighted by ``exp(-(s_iy - mean_k s_ik))`` and takes
    SAMME's coefficient; binned learners route missing values.

    Parameters
    ----------
    estimator : object, default=None
        Weak learner: any classifier whose ``fit`` takes ``sample_weight``.
        None means ``BinnedTreeClassifier(max_depth=1)``, a binned stump.
    n_estimators : int, default=200
        Largest number of boosting rounds.
    learning_rate : float or sequence of float, default=1.0
        As :class:`~labelclean.ensemble.CBAdaBoostClassifier`'s.
    early_stopping : 'auto' or bool, default=False
        As :class:`~labelclean.ensemble.CBAdaBoostClassifier`'s; the error
        read on the held-out rows is then their plain error rate.
    validation_fraction : float, default=0.1
        Share of the rows held out for early stopping.
    n_iter_no_change : int, default=40
        Rounds without a lower validation error that end early stopping.
    random_state : int, RandomState instance or None, default=None
        Seeds the weak learners and the validation rows.
    n_jobs : int or None, default=None
        Threads for the runs of a sequence of learning rates under early
        stopping.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.
    estimators_ : list of estimators
        The fitted weak learners, one per round.
    estimator_weights_ : ndarray of shape (n_rounds,)
        Coefficients on the SAMME scale.

    See Also
    --------
    CBAdaBoostClassifier : The same boosting on label confidences.

    Notes
    -----
    The probabilities are a softmax of the boosting scores and grow sure
    with the rounds: on held-out rows they are far surer than the labels
    bear out. Where a cleaning run takes them as evidence it calibrates
    them first (a temperature fitted out of fold to the observed labels,
    docs/decisions.md).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from labelclean.ensemble import BinnedTreeClassifier, SAMMEClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = SAMMEClassifier(BinnedTreeClassifier(max_depth=3), random_state=0)
    >>> float(clf.fit(X, y).score(X, y)) > 0.95
    True
    """

    def __init__(
        self,
        estimator=None,
        *,
        n_estimators=200,
        learning_rate=1.0,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=40,
        random_state=None,
        n_jobs=None,
    ):
        BaseWeightBoosting.__init__(
            self,
            estimator,
            n_estimators=n_estimators,
            learning_rate=learning_rate,
            random_state=random_state,
        )
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.n_jobs = n_jobs

    # The parent's weak-learner resampling and confidence estimator have no
    # part here: every row is fitted on its weight, with confidence 1.
    resample = False
    confidence = None

    def fit(self, X, y, sample_weight=None):
        """Fit the boosted ensemble on the observed labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Observed labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights.

        Returns
        -------
        self : SAMMEClassifier
            The fitted ensemble.
        """
        return super().fit(X, y, sample_weight=sample_weight)

    def _estimate_confidence(self, X, y, data):
        """Every label confidence 1: the observed labels as they are."""
        return np.ones(data.codes.shape[0], dtype=np.float64)
