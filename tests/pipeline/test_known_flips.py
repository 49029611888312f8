"""The known-flip measurement and the intervals it adds at the noise's ends."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.pipeline._calibration import combine_evidence
from labelclean.pipeline._known_flips import (
    estimates_at_noise_ends,
    flip_scores,
    flip_weights,
    known_flip_curve,
)
from labelclean.pipeline._noise_estimate import scale_noise


@pytest.mark.parametrize("rate", [0.02, 0.1, 0.3])
def test_scale_noise_sets_the_noise_and_keeps_each_class_mass(rate):
    rng = np.random.RandomState(0)
    Q = np.diag([0.3, 0.25, 0.2]) + rng.uniform(0.0, 0.03, size=(3, 3))
    Q /= Q.sum()
    scaled = scale_noise(Q, rate)
    assert 1.0 - np.trace(scaled) == pytest.approx(rate)
    np.testing.assert_allclose(scaled.sum(axis=1), Q.sum(axis=1))
    assert (scaled >= 0).all()
    # the direction of the noise is the joint's: off-diagonal cells keep ratios
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(scaled[off] / Q[off], rate / (1.0 - np.trace(Q)))


def test_scale_noise_stops_where_a_class_has_no_clean_rows_left():
    Q = np.array([[0.05, 0.05], [0.01, 0.89]])
    scaled = scale_noise(Q, 0.5)
    np.testing.assert_allclose(scaled.sum(axis=1), Q.sum(axis=1))
    assert scaled[0, 0] == pytest.approx(0.0)  # all of class 0's mass moved
    assert (scaled >= 0).all()
    assert 1.0 - np.trace(scaled) < 0.5  # as near as the masses allow


def test_flag_intervals_hold_the_estimates_at_either_end_of_the_noise_interval():
    # Classes that overlap (the cautious reading): how much of the
    # disagreement is noise is uncertain, and so is the flags' precision.
    X, y = make_classification(
        n_samples=400, n_features=6, n_informative=3, class_sep=0.5, random_state=0
    )
    noisy, _ = flip_labels(y, 0.2, random_state=0)
    cleaner = LabelCleaner(random_state=0).fit(X, noisy)
    cal = cleaner.calibration_
    ev = cleaner.evidence_
    P = combine_evidence(ev.confidence_proba, ev.model_proba)
    r = cleaner.audit_["noise_probability"].to_numpy(dtype=float)
    ends = estimates_at_noise_ends(
        P, ev.codes, cleaner.noise_joint_, r, cleaner.flag_threshold_,
        cal["noise_rate_interval"],
    )  # fmt: skip
    assert len(ends) == 2
    (low_p, low_r), (high_p, high_r) = ends
    assert low_p < high_p  # more noise: more of the same flags are wrong labels
    lo, hi = cal["flag_precision_interval"]
    assert lo <= low_p and high_p <= hi
    lo, hi = cal["flag_recall_interval"]
    assert lo <= min(low_r, high_r) and max(low_r, high_r) <= hi


def test_no_flags_no_end_estimates():
    P = np.array([[0.9, 0.1], [0.2, 0.8]])
    codes = np.array([0, 1])
    Q = np.array([[0.45, 0.05], [0.05, 0.45]])
    r = np.array([0.01, 0.02])
    assert estimates_at_noise_ends(P, codes, Q, r, 0.5, [0.05, 0.2]) == []
    assert estimates_at_noise_ends(P, codes, Q, r, 0.0, None) == []


def _curve_sorting_every_cell(P, codes, Q, r, weighted):
    """known_flip_curve as it was: every cell sorted, weightless ones too."""
    R, weight = flip_scores(P, Q), flip_weights(codes, Q, r, weighted)
    order = np.argsort(-R, axis=None, kind="stable")
    scores, cumulative = R.ravel()[order], np.cumsum(weight.ravel()[order])
    thresholds = np.sort(r)[::-1]
    at = np.searchsorted(-scores, -thresholds, side="right")
    caught = np.where(at > 0, cumulative[np.maximum(at - 1, 0)], 0.0)
    return thresholds, caught, float(weight.sum())


@pytest.mark.parametrize("n_classes", [2, 3, 12])
@pytest.mark.parametrize("seed", range(4))
def test_the_curve_sorting_only_weighted_cells_is_the_full_sorts_to_the_bit(
    n_classes, seed
):
    # With many classes most cells of the joint are 0 and only the cells with
    # weight are sorted; ties in the scores and in r, and zero rows, included.
    rng = np.random.RandomState(seed)
    n = 400
    codes = rng.randint(n_classes, size=n)
    codes[:n_classes] = np.arange(n_classes)
    P = rng.dirichlet(np.full(n_classes, 0.3), size=n)
    tied = rng.rand(n) < 0.3
    P[tied] = P[tied][0]  # rows alike: ties in the scores
    Q = np.diag(rng.uniform(0.5, 1.0, n_classes)) + rng.uniform(
        0, 0.05, (n_classes,) * 2
    )
    Q[rng.rand(n_classes, n_classes) < 0.7 * (n_classes > 3)] = 0.0  # sparse
    np.fill_diagonal(Q, rng.uniform(0.5, 1.0, n_classes))
    Q /= Q.sum()
    r = np.round(rng.rand(n), 2)  # ties in r
    r[:5] = 1.0  # rows that count for nothing when weighted
    for weighted in (True, False):
        want = _curve_sorting_every_cell(P, codes, Q, r, weighted)
        got = known_flip_curve(P, codes, Q, r, weighted)
        for a, b in zip(got, want, strict=True):
            assert np.array_equal(a, b)
    # No cell with weight: nothing is caught.
    _, caught, n_wrong = known_flip_curve(P, codes, np.diag(np.diag(Q)), r)
    assert n_wrong == 0.0 and not caught.any()
