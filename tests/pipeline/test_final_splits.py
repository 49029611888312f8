"""The final model's comparisons over three splits on small tables.

Up to ``FINAL_REPEATS_MAX_ROWS`` cleaned rows, the out-of-fold probabilities
on which the final model's candidates, RoSR-L's penalty and the stack's
weights are compared are averaged over ``FINAL_REPEATS`` splits
(docs/decisions.md, *The final comparisons over three splits on small
tables*); only ``model_`` sees them, never a decision.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.model_selection import StratifiedKFold

import labelclean.pipeline._folds as folds_module
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.pipeline._folds import (
    FINAL_REPEATS,
    FINAL_REPEATS_MAX_ROWS,
    comparison_folds,
)


def test_a_small_table_is_compared_over_three_splits_the_first_the_single_one():
    codes = np.repeat([0, 1, 2], [60, 30, 10])
    folds = comparison_folds(codes, 5, seed=3)
    assert len(folds) == 5 * FINAL_REPEATS == 15
    held_out = np.zeros(codes.shape[0], dtype=int)
    for _, test in folds:
        held_out[test] += 1
    assert np.all(held_out == FINAL_REPEATS)
    # the first split is the one a single comparison makes
    single = StratifiedKFold(5, shuffle=True, random_state=3).split(codes, codes)
    for (train, test), (train1, test1) in zip(folds[:5], single, strict=True):
        np.testing.assert_array_equal(train, train1)
        np.testing.assert_array_equal(test, test1)


def test_a_larger_table_keeps_one_split():
    codes = np.repeat([0, 1], [FINAL_REPEATS_MAX_ROWS - 5, 6])  # one row over
    folds = comparison_folds(codes, 5, seed=0)
    assert len(folds) == 5
    held_out = np.zeros(codes.shape[0], dtype=int)
    for _, test in folds:
        held_out[test] += 1
    assert np.all(held_out == 1)


@pytest.fixture(scope="module")
def wine_fits():
    X, y = load_wine(return_X_y=True, as_frame=True)
    noisy, _ = flip_labels(y.to_numpy(), 0.2, random_state=0)
    return X, noisy, LabelCleaner(random_state=0).fit(X, noisy)


def test_the_final_comparisons_of_a_small_table_read_three_splits(
    wine_fits, monkeypatch
):
    X, noisy, three = wine_fits
    final = three.model_selection_["final"]
    assert final["splits"] == FINAL_REPEATS
    assert three.model_selection_["final_penalty"]["splits"] == FINAL_REPEATS
    # every cleaned row is compared, each the mean of its three folds
    for candidate in final["candidates"].values():
        assert candidate["rows"] == three.sample_indices_.shape[0] < 2000
    monkeypatch.setattr(folds_module, "FINAL_REPEATS_MAX_ROWS", 100)
    one = LabelCleaner(random_state=0).fit(X, noisy)
    assert one.model_selection_["final"]["splits"] == 1
    assert one.model_selection_["final_penalty"]["splits"] == 1
    # another reading of the same candidates: the comparison moved
    assert one.model_selection_["final"]["stack"] != final["stack"]
    # the decisions, and the model that decides new rows, do not see it
    pd.testing.assert_frame_equal(one.audit_, three.audit_)
    pd.testing.assert_frame_equal(one.audit(X, noisy), three.audit(X, noisy))


def test_three_splits_on_two_threads_give_the_same_model(wine_fits):
    X, noisy, three = wine_fits
    threaded = LabelCleaner(random_state=0, n_jobs=2).fit(X, noisy)
    assert threaded.model_selection_ == three.model_selection_
    np.testing.assert_array_equal(threaded.predict_proba(X), three.predict_proba(X))
