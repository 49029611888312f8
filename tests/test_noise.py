"""Tests of labelclean.noise.flip_labels."""

import numpy as np
import pytest

from labelclean.noise import flip_labels


@pytest.mark.parametrize("rate", [0.0, 0.1, 0.35])
def test_uniform_exact_rate_and_mask(rate, global_random_seed):
    y = np.repeat(["a", "b", "c", "d"], 50)
    y_noisy, flipped = flip_labels(y, rate, random_state=global_random_seed)
    assert flipped.sum() == round(rate * 200)
    np.testing.assert_array_equal(flipped, y_noisy != y)
    assert y_noisy.dtype == y.dtype
    assert set(y_noisy) <= set(y)


def test_uniform_new_label_is_uniform_over_other_classes():
    y = np.zeros(30000, dtype=int)
    y[:3] = [1, 2, 3]
    y_noisy, flipped = flip_labels(y, 0.5, random_state=0)
    counts = np.bincount(y_noisy[flipped & (y == 0)], minlength=4)[1:]
    assert counts.min() / counts.max() > 0.95


def test_class_conditional_dict_only_flips_named_class():
    y = np.repeat([0, 1, 2], 100)
    _y_noisy, flipped = flip_labels(
        y, {0: 0.4}, kind="class_conditional", random_state=0
    )
    assert flipped.sum() == 40 and np.all(y[flipped] == 0)


def test_transition_matrix():
    y = np.repeat([0, 1], 5000)
    T = [[0.8, 0.2], [0.0, 1.0]]
    _y_noisy, flipped = flip_labels(y, T, kind="class_conditional", random_state=0)
    assert abs(flipped[y == 0].mean() - 0.2) < 0.02
    assert not flipped[y == 1].any()


def test_seeded_reproducible():
    y = np.arange(100) % 3
    a = flip_labels(y, 0.2, random_state=3)
    b = flip_labels(y, 0.2, random_state=3)
    np.testing.assert_array_equal(a[0], b[0])


def test_bad_matrix_message():
    with pytest.raises(ValueError, match="transition matrix must have shape"):
        flip_labels([0, 1, 0, 1], [[0.5, 0.2], [0.0, 1.0]], kind="class_conditional")


def test_invalid_rate_rejected():
    with pytest.raises(ValueError, match="'rate' parameter of flip_labels"):
        flip_labels([0, 1], 1.5)
