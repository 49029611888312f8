"""Tests of the audit's per-row formatting in pipeline/_decisions.py."""

import json

import numpy as np
import pytest

from labelclean.pipeline._decisions import neighbor_counts_json


def _reference_json(counts, classes):
    # The per-row loop neighbor_counts_json replaced.
    names = [json.dumps(c) if not isinstance(c, str) else c for c in classes.tolist()]
    return [
        json.dumps({names[j]: int(row[j]) for j in np.flatnonzero(row)}, sort_keys=True)
        for row in counts
    ]


@pytest.mark.parametrize(
    "classes", [np.array([0, 1]), np.array(["x", "y", "z"]), np.array([1.5, 2.5])]
)
def test_neighbor_counts_json_matches_row_loop(classes, global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    k = classes.shape[0]
    counts = rng.multinomial(10, np.ones(k) / k, size=500)
    got = neighbor_counts_json(counts, classes)
    assert got.tolist() == _reference_json(counts, classes)
    assert neighbor_counts_json(counts[:0], classes).tolist() == []


def test_neighbor_counts_json_keeps_shares_of_tied_rows():
    # Rows tied at the k-th distance share the places left: fractions, two
    # decimals; whole counts stay integers.
    counts = np.array([[50 / 11, 60 / 11], [10.0, 0.0], [2.5, 7.5]])
    got = [json.loads(s) for s in neighbor_counts_json(counts, np.array(["a", "b"]))]
    assert got == [{"a": 4.55, "b": 5.45}, {"a": 10}, {"a": 2.5, "b": 7.5}]
    assert isinstance(got[1]["a"], int)
