"""Tests of the one stratified sampler (utils/_sampling.py)."""

import numpy as np
import pandas as pd
import pytest

from labelclean.utils._sampling import stratified_positions, stratified_rows


@pytest.fixture
def labels():
    rng = np.random.RandomState(0)
    return pd.Series(rng.choice(["a", "b", "c"], size=2_000, p=[0.8, 0.19, 0.01]))


@pytest.mark.parametrize("batch", [2_000, 333, 64])
def test_the_sample_does_not_depend_on_the_batches(labels, batch):
    whole = stratified_positions(lambda: [labels], n_rows=200, random_state=4)
    parts = stratified_positions(
        lambda: (labels.iloc[i : i + batch] for i in range(0, len(labels), batch)),
        n_rows=200,
        random_state=4,
    )
    np.testing.assert_array_equal(whole, parts)
    assert len(whole) == 200 and np.all(np.diff(whole) > 0)
    shares = labels.iloc[whole].value_counts(normalize=True)
    expected = labels.value_counts(normalize=True)
    assert abs(shares["a"] - expected["a"]) < 0.01


def test_in_memory_rows_are_the_same_sampler(labels):
    codes = np.searchsorted(["a", "b", "c"], labels.to_numpy())
    rows = stratified_rows(codes, 200, min_per_class=25, seed=4)
    counts = np.bincount(codes[rows], minlength=3)
    assert counts.min() >= min(25, np.bincount(codes).min())
    np.testing.assert_array_equal(
        rows,
        stratified_positions(
            lambda: [codes], n_rows=200, random_state=4, min_per_class=25
        ),
    )
    assert stratified_rows(codes, 5_000, min_per_class=5, seed=4) is None
    other = stratified_rows(codes, 200, min_per_class=25, seed=5)
    assert not np.array_equal(rows, other)
