"""SAMMEClassifier: CB-AdaBoost with every label confidence 1, on the
observed labels."""

import inspect

import numpy as np
from sklearn.datasets import load_iris

from labelclean.ensemble import (
    BinnedTreeClassifier,
    CBAdaBoostClassifier,
    SAMMEClassifier,
)


def test_it_is_cb_adaboost_with_every_confidence_one():
    X, y = load_iris(return_X_y=True)
    trees = BinnedTreeClassifier(max_depth=3)
    samme = SAMMEClassifier(trees, n_estimators=40, random_state=0).fit(X, y)
    cb = CBAdaBoostClassifier(trees, n_estimators=40, random_state=0)
    cb.fit(X, y, gamma=np.ones(y.shape[0]))
    np.testing.assert_array_equal(samme.predict_proba(X), cb.predict_proba(X))
    np.testing.assert_array_equal(samme.estimator_weights_, cb.estimator_weights_)
    # not the neighbours' confidences CB-AdaBoost computes without gamma
    knn = CBAdaBoostClassifier(trees, n_estimators=40, random_state=0).fit(X, y)
    assert not np.array_equal(knn.predict_proba(X), samme.predict_proba(X))


def test_its_fit_takes_no_confidences():
    # a cleaning run passes soft labels to a fit that takes gamma; this one
    # has none to take, so the run's model learns the observed labels
    assert "gamma" not in inspect.signature(SAMMEClassifier.fit).parameters
    assert "confidence" not in SAMMEClassifier().get_params()


def test_missing_values_are_routed_by_the_binned_trees():
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[::7, 2] = np.nan
    clf = SAMMEClassifier(BinnedTreeClassifier(max_depth=3), random_state=0)
    proba = clf.fit(X, y).predict_proba(X)
    assert np.isfinite(proba).all()
    assert clf.score(X, y) > 0.9
