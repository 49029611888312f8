"""A boosting round that fits every row: its coefficient, and its say."""

import numpy as np
import pytest

from labelclean.ensemble import (
    BinnedTreeClassifier,
    CBAdaBoostClassifier,
    SPLBoostClassifier,
)


def interval_labels(seed=16, n=80, n_classes=4):
    """Classes that are intervals of one column: a depth-2 tree misses some
    rows in its first rounds and, on the reweighted rows, fits them all in the
    last (found by search over seeds; checked below)."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 2)
    return X, np.minimum((X[:, 0] * n_classes).astype(int), n_classes - 1)


def boosted(kind, learning_rate=1.0, depth=2):
    tree = BinnedTreeClassifier(max_depth=depth)
    if kind == "cb_adaboost":
        return CBAdaBoostClassifier(tree, learning_rate=learning_rate, random_state=0)
    # A large age keeps every row (v = 1): SPLBoost is then AdaBoost.
    return SPLBoostClassifier(
        tree, age=50.0, learning_rate=learning_rate, random_state=0
    )


def fit(model, X, y, sample_weight=None):
    kwargs = (
        {"gamma": np.ones(y.shape[0])}
        if isinstance(model, CBAdaBoostClassifier)
        else {}
    )
    return model.fit(X, y, sample_weight=sample_weight, **kwargs)


def test_a_round_that_fits_every_row_has_the_say_of_an_error_of_half_a_row():
    X, y = interval_labels()
    model = fit(boosted("cb_adaboost"), X, y)
    weights, errors = model.estimator_weights_, model.estimator_errors_
    # The last round fits every row, and the boosting stops there.
    assert errors.shape[0] > 1 and np.all(errors[:-1] > 0) and errors[-1] == 0
    n, k = y.shape[0], 4
    np.testing.assert_allclose(weights[-1], np.log(2 * n + 1) + np.log(k - 1))
    # It outweighs the rounds before it, so the ensemble fits its rows; at
    # scikit-learn's coefficient 1 the trees before it would outvote it.
    assert weights[-1] > weights[:-1].max()
    np.testing.assert_array_equal(model.predict(X), y)
    model.estimator_weights_ = np.r_[weights[:-1], 1.0]
    assert np.mean(model.predict(X) == y) < 0.9


@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_coefficient_counts_the_rows_with_weight_and_takes_the_rate(n_classes):
    rng = np.random.RandomState(0)
    X = rng.rand(90, 1)
    y = np.minimum((X[:, 0] * n_classes).astype(int), n_classes - 1)
    weight = np.ones(90)
    weight[:30] = 0.0  # rows without weight are not rows of the round
    model = fit(boosted("cb_adaboost", learning_rate=0.5, depth=3), X, y, weight)
    assert model.estimator_errors_.tolist() == [0.0]
    expected = 0.5 * (np.log(2 * 60 + 1) + np.log(n_classes - 1))
    np.testing.assert_allclose(model.estimator_weights_, [expected])


def test_cb_adaboost_reads_no_rounding_residue_as_an_error():
    """With more than two classes the wrong share B of a round that fits every
    row is summed from its own terms, all 0: the round stops the boosting
    with the coefficient of half a row, as with two classes. (Read as the
    total less A, a rounding residue gave it a coefficient near 37 and the
    boosting went on.)"""
    X, y = interval_labels(seed=24, n_classes=6)
    model = fit(boosted("cb_adaboost", depth=3), X, y)
    assert model.estimator_errors_[-1] == 0
    assert model.estimator_weights_[-1] == pytest.approx(np.log(2 * 80 + 1) + np.log(5))
    assert model.estimator_weights_.max() < 10


def test_splboost_keeps_scikit_learns_coefficient_for_such_a_round():
    """SPLBoost's round without error fits only the rows its weights keep,
    and its coefficient moves which rows end as suspects: it stays at
    scikit-learn's 1, where the papers' formula is infinite."""
    X, y = interval_labels()
    model = fit(boosted("splboost"), X, y)
    assert model.estimator_errors_[-1] == 0
    assert model.estimator_weights_[-1] == 1.0
