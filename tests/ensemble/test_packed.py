"""The boosting ensembles' trees packed into a few arrays in their saved state."""

import copy
import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from labelclean.ensemble import (
    BinnedTreeClassifier,
    CBAdaBoostClassifier,
    SPLBoostClassifier,
)
from labelclean.ensemble._packed import is_packed, pack_trees


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=300, n_features=6, n_informative=4, n_classes=3, random_state=0
    )
    X[::7, 0] = np.nan  # trees that route missing values
    return X, y


def _same_tree(a, b):
    assert list(vars(a)) == list(vars(b))  # the same attributes, in fit order
    for name, left in vars(a).items():
        right = vars(b)[name]
        if isinstance(left, np.ndarray):
            assert left.dtype == right.dtype
            np.testing.assert_array_equal(left, right)
        elif isinstance(left, tuple):
            for x, z in zip(left, right, strict=True):
                assert x.dtype == z.dtype
                np.testing.assert_array_equal(x, z)
        else:
            assert type(left) is type(right) and left == right, name


@pytest.mark.parametrize("kind", [CBAdaBoostClassifier, SPLBoostClassifier])
@pytest.mark.parametrize("depth", [1, 3])
def test_saved_trees_are_packed_and_come_back_the_same(data, kind, depth):
    X, y = data
    model = kind(estimator=BinnedTreeClassifier(max_depth=depth), random_state=0)
    model.fit(X, y)
    state = model.__getstate__()
    packed = state["estimators_"]
    assert is_packed(packed)
    assert packed["tree_feature_"].shape[0] == sum(
        t.tree_feature_.shape[0] for t in model.estimators_
    )
    assert isinstance(model.estimators_, list)  # the fitted model is untouched
    for loaded in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert len(loaded.estimators_) == len(model.estimators_)
        for a, b in zip(model.estimators_, loaded.estimators_, strict=True):
            _same_tree(a, b)
        assert loaded.predict_proba(X).tobytes() == model.predict_proba(X).tobytes()
        # saved again, the same state
        again = loaded.__getstate__()["estimators_"]
        for name, value in packed.items():
            np.testing.assert_array_equal(again[name], value)


def test_other_learners_are_saved_as_they_are(data):
    X, y = data
    model = CBAdaBoostClassifier(
        estimator=DecisionTreeClassifier(max_depth=2), n_estimators=5, random_state=0
    ).fit(X, y)
    assert isinstance(model.__getstate__()["estimators_"], list)
    loaded = pickle.loads(pickle.dumps(model))
    assert loaded.predict_proba(X).tobytes() == model.predict_proba(X).tobytes()


def test_trees_the_layout_cannot_hold_are_not_packed(data):
    X, y = data
    model = SPLBoostClassifier(random_state=0).fit(X, y)
    trees = copy.deepcopy(model.estimators_)
    assert pack_trees(trees) is not None
    trees[3].max_bins = 64  # a parameter not shared by every tree
    assert pack_trees(trees) is None
    trees = copy.deepcopy(model.estimators_)
    trees[0].random_state = None  # a seed the layout's int array cannot hold
    assert pack_trees(trees) is None
    trees = copy.deepcopy(model.estimators_)
    trees[1].extra_ = 1.0  # an attribute the layout does not know
    assert pack_trees(trees) is None
    assert pack_trees([]) is None


def test_packed_trees_that_do_not_fit_together_are_refused(data):
    X, y = data
    model = SPLBoostClassifier(
        estimator=BinnedTreeClassifier(max_depth=2), random_state=0
    ).fit(X, y)
    damages = {
        "n_nodes": lambda p: p["n_nodes"] + 1,
        "left": lambda p: p["left"] + 50,
        "tree_feature_": lambda p: p["tree_feature_"] + X.shape[1],
        "tree_value_": lambda p: p["tree_value_"][:-1],
    }
    for name, damage in damages.items():
        state = model.__getstate__()
        packed = dict(state["estimators_"])
        packed[name] = damage(packed)
        state["estimators_"] = packed
        loaded = SPLBoostClassifier.__new__(SPLBoostClassifier)
        with pytest.raises(ValueError, match="packed trees"):
            loaded.__setstate__(state)
