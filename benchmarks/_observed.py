"""A model stage that learns the observed labels, for replays of the evidence.

The shipped model stages are CB-AdaBoost, which learns the confidence stage's
soft labels (its γ), and RoSR-L, which learns the observed labels but draws
hyperplanes. Given to a cleaner as its ``model``, :class:`ObservedLabelTrees`
is depth-3 CB-AdaBoost fitted on the observed labels (γ = 1, SAMME AdaBoost):
its ``fit`` takes no soft labels, so the out-of-fold evidence is trees that
learn the labels themselves, replacing RoSR-L, with their probabilities as
they are (docs/decisions.md, *A table the trees read and the neighbours do
not*). The library's option, the ``adaboost_trees`` kind listed beside RoSR-L
and read at a temperature, is measured with
``benchmarks/pipelines/multiclass-rosr-or-adaboost.toml``.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from labelclean.ensemble import BinnedTreeClassifier, CBAdaBoostClassifier


class ObservedLabelTrees(ClassifierMixin, BaseEstimator):
    """Depth-``max_depth`` CB-AdaBoost on the observed labels (γ = 1)."""

    def __init__(self, max_depth=3, random_state=None):
        self.max_depth = max_depth
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        trees = BinnedTreeClassifier(max_depth=self.max_depth)
        self.model_ = CBAdaBoostClassifier(trees, random_state=self.random_state)
        self.model_.fit(X, y, gamma=np.ones(len(y)), sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        self.n_features_in_ = self.model_.n_features_in_
        return self

    def predict_proba(self, X):
        return self.model_.predict_proba(X)

    def predict(self, X):
        return self.model_.predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # the binned trees route missing values
        return tags
