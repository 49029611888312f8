"""Each round's weak learner is what clone and the seeding always gave."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from labelclean.ensemble import BinnedTreeClassifier, CBAdaBoostClassifier
from labelclean.ensemble._base import LearnerFactory


def cloned_and_seeded(estimator, rng):
    """The per-round learner as the loop built it before the factory."""
    learner = clone(estimator)
    seeds = {
        key: rng.randint(np.iinfo(np.int32).max)
        for key in sorted(learner.get_params(deep=True))
        if key == "random_state" or key.endswith("__random_state")
    }
    return learner.set_params(**seeds) if seeds else learner


def params(estimator):
    """Every parameter, nested ones too; an estimator or a list of steps by
    the types it holds (their parameters are among the nested ones)."""

    def plain(value):
        if hasattr(value, "get_params"):
            return type(value)
        if isinstance(value, list):
            return [tuple(map(plain, step)) for step in value]
        return value

    return {k: plain(v) for k, v in estimator.get_params(deep=True).items()}


@pytest.mark.parametrize(
    "estimator",
    [
        BinnedTreeClassifier(max_depth=3),
        BinnedTreeClassifier(max_depth=2, random_state=7),
        DecisionTreeClassifier(max_depth=2, class_weight={0: 2.0, 1: 1.0}),
        make_pipeline(StandardScaler(), DecisionTreeClassifier(max_depth=1)),
        StandardScaler(),  # no seed to set
    ],
    ids=["binned", "binned-seeded", "object-parameter", "nested", "unseeded"],
)
def test_each_round_gets_the_learner_and_seeds_clone_gave(estimator):
    factory = LearnerFactory(estimator)
    ours, theirs = np.random.RandomState(3), np.random.RandomState(3)
    for _ in range(3):
        made, expected = factory(ours), cloned_and_seeded(estimator, theirs)
        assert type(made) is type(expected)
        assert made is not estimator
        assert params(made) == params(expected)
    assert ours.randint(1000) == theirs.randint(1000)  # as many draws, in order


def test_only_flat_learners_skip_clone():
    assert LearnerFactory(BinnedTreeClassifier())._params is not None
    assert LearnerFactory(DecisionTreeClassifier(class_weight={0: 1}))._params is None
    nested = make_pipeline(StandardScaler(), DecisionTreeClassifier())
    assert LearnerFactory(nested)._params is None


def test_a_learner_is_fresh_each_round():
    """No state of one round's learner reaches the next's."""
    X, y = np.random.RandomState(0).normal(size=(200, 4)), np.arange(200) % 3
    model = CBAdaBoostClassifier(
        BinnedTreeClassifier(max_depth=2), n_estimators=5, random_state=0
    ).fit(X, y)
    trees = model.estimators_
    assert len({id(tree) for tree in trees}) == len(trees)
    assert all(tree is not model.estimator_ for tree in trees)
    assert len({tree.random_state for tree in trees}) == len(trees)
    assert not hasattr(model.estimator_, "tree_feature_")


class DeepensItself(DecisionTreeClassifier):
    """Breaks scikit-learn's rule: the constructor changes a parameter."""

    def __init__(self, max_depth=2, random_state=None):
        super().__init__(max_depth=max_depth + 1, random_state=random_state)


def test_a_constructor_that_changes_a_parameter_is_left_to_clone():
    learner = DeepensItself()
    factory = LearnerFactory(learner)
    assert factory._params is None  # not built from the parameters
    with pytest.raises(RuntimeError, match="Cannot clone"):
        factory(np.random.RandomState(0))  # clone's own check, as before
