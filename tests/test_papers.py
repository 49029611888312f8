"""labelclean.papers: the papers' algorithms as printed, next to the defaults."""

import numpy as np
import pytest
from sklearn.datasets import load_wine, make_classification
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from labelclean import papers
from labelclean.confidence import KNNConfidence
from labelclean.ensemble import (
    BinnedTreeClassifier,
    CBAdaBoostClassifier,
    SPBLClassifier,
    SPLBoostClassifier,
)
from labelclean.linear_model import RoSRClassifier
from labelclean.noise import flip_labels


def noisy_data(seed, n=300, rate=0.2):
    X, y = make_classification(
        n_samples=n, n_features=6, n_informative=4, random_state=seed
    )
    y_noisy, _ = flip_labels(y, rate, random_state=seed)
    return X, np.asarray(y_noisy)


def test_splboost_as_printed():
    model = papers.splboost("lowerconvex", random_state=3)
    assert isinstance(model, SPLBoostClassifier)
    assert (model.regularizer, model.t) == ("polynomial", 1.3)
    assert papers.splboost("upperconvex").t == 4.0
    assert model.cv == 5 and model.n_estimators == 200 and model.random_state == 3
    np.testing.assert_allclose(model.age_grid, np.linspace(1.0, 6.0, 51))
    assert isinstance(model.estimator, BinnedTreeClassifier)
    assert model.estimator.max_depth == 3 and model.estimator.criterion == "entropy"
    with pytest.raises(ValueError, match="lowerconvex"):
        papers.splboost("convex")


def test_splboost_as_printed_fits_with_its_trees_and_chooses_an_age(
    global_random_seed,
):
    X, y = noisy_data(global_random_seed)
    grid = np.array([1.5, 3.0, 6.0])
    model = papers.splboost(
        "linear", n_estimators=20, age_grid=grid, random_state=global_random_seed
    ).fit(X, y)
    assert model.age_ in grid
    # Depth-3 trees, not stumps: some learner splits below its root.
    assert max((est.tree_feature_ >= 0).sum() for est in model.estimators_) > 1


def test_cb_adaboost_as_printed_resamples_and_stops_early(global_random_seed):
    model = papers.cb_adaboost(random_state=global_random_seed)
    assert isinstance(model, CBAdaBoostClassifier) and model.resample
    assert isinstance(model.confidence, KNNConfidence)
    assert model.confidence.n_neighbors == 5
    assert isinstance(model.estimator, DecisionTreeClassifier)
    X, y = noisy_data(global_random_seed, rate=0.3)
    model.fit(X, y)
    default = CBAdaBoostClassifier(random_state=global_random_seed).fit(X, y)
    # The paper's procedure stops once beta is not positive; fitting by
    # weight (the default) runs every round.
    assert len(model.estimators_) < 200 == len(default.estimators_)


def test_spbl_as_printed_has_one_threshold_and_selects_every_row():
    model = papers.spbl(random_state=0, n_estimators=5)
    assert isinstance(model, SPBLClassifier)
    assert model.per_class is False and model.final_share == 1.0
    assert model.n_estimators == 5


def test_rosr_l_as_printed_collapses_where_the_default_does_not():
    # docs/fidelity.md: with a strong penalty the printed RoSR-L's per-class
    # weights shift the class priors and every row goes to one class.
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    printed = papers.rosr_l(mu=1.0)
    assert isinstance(printed, RoSRClassifier) and printed.class_mass == "free"
    assert np.unique(printed.fit(X, y).predict(X)).size == 1
    default = RoSRClassifier(mu=1.0).fit(X, y)
    assert np.mean(default.predict(X) == y) > 0.9
