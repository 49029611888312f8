"""The evidence tempered so that its per-row posterior agrees with its joint."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.pipeline._calibration import combine_evidence
from labelclean.pipeline._noise_estimate import (
    consistent_temperature,
    noise_posterior,
    temper,
)


def _calibrated_rows(n=20_000, n_classes=3, noise=0.2, seed=0):
    """Evidence that is the true class posterior, labels drawn from it and
    flipped uniformly, and the joint of observed and true labels."""
    rng = np.random.RandomState(seed)
    logits = 2.5 * rng.normal(size=(n, n_classes))
    P = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    true = (P.cumsum(axis=1) > rng.uniform(size=(n, 1))).argmax(axis=1)
    flip = rng.uniform(size=n) < noise
    shift = rng.randint(1, n_classes, size=n)
    observed = np.where(flip, (true + shift) % n_classes, true)
    Q = np.zeros((n_classes, n_classes))
    np.add.at(Q, (observed, true), 1.0 / n)
    return P, observed, Q


def test_temper_keeps_rows_normalised_and_sharpens_above_one():
    P = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [1.0, 0.0, 0.0]])
    assert temper(P, 1.0) is P
    sharp, flat = temper(P, 2.0), temper(P, 0.5)
    np.testing.assert_allclose(sharp.sum(axis=1), 1.0)
    np.testing.assert_allclose(flat.sum(axis=1), 1.0)
    assert (sharp.max(axis=1) >= P.max(axis=1)).all()
    assert (flat.max(axis=1)[:2] < P.max(axis=1)[:2]).all()
    np.testing.assert_allclose(sharp[0], np.array([36, 9, 1]) / 46)
    np.testing.assert_array_equal(sharp[2], [1.0, 0.0, 0.0])  # zeros stay zero


def test_calibrated_evidence_needs_no_temperature():
    P, observed, Q = _calibrated_rows()
    assert consistent_temperature(P, observed, Q) == pytest.approx(1.0, abs=0.08)


@pytest.mark.parametrize("smoothing", [0.5, 0.8])
def test_the_temperature_undoes_a_smoothing(smoothing):
    # Evidence learnt from noisy labels is smoother than the true posterior;
    # the temperature that makes the mean posterior of a wrong label equal
    # the joint's noise brings it back.
    P, observed, Q = _calibrated_rows(seed=1)
    tau = consistent_temperature(temper(P, smoothing), observed, Q)
    assert tau * smoothing == pytest.approx(1.0, rel=0.1)
    W = noise_posterior(temper(temper(P, smoothing), tau), observed, Q)
    mean_r = np.mean(1.0 - W[np.arange(observed.shape[0]), observed])
    assert mean_r == pytest.approx(1.0 - np.trace(Q), abs=1e-4)


def test_evidence_surer_than_its_joint_is_not_flattened():
    # The joint's noise below what the evidence implies (a capped joint):
    # flattening would take the cap's caution twice.
    P, observed, Q = _calibrated_rows(seed=2)
    assert consistent_temperature(temper(P, 1.6), observed, Q) == 1.0
    capped = Q * 0.5 + np.diag(np.diag(Q) * 0 + Q.sum(axis=1) * 0.5)
    assert 1.0 - np.trace(capped) < 1.0 - np.trace(Q)
    assert consistent_temperature(P, observed, capped) == 1.0


def test_no_noise_no_temperature():
    P, observed, _ = _calibrated_rows(n=500)
    clean = np.diag(np.bincount(observed, minlength=3) / observed.shape[0])
    assert consistent_temperature(P, observed, clean) == 1.0


def test_the_fit_flags_on_the_tempered_evidence():
    X, y = make_classification(
        n_samples=600, n_features=8, n_informative=5, random_state=0
    )
    noisy, _ = flip_labels(y, 0.2, random_state=0)
    cleaner = LabelCleaner(random_state=0).fit(X, noisy)
    cal = cleaner.calibration_
    tau = cal["temperature"]
    assert tau > 0 and tau != 1.0
    ev = cleaner.evidence_
    P = temper(combine_evidence(ev.confidence_proba, ev.model_proba), tau)
    W = noise_posterior(P, ev.codes, cleaner.noise_joint_)
    r = 1.0 - W[np.arange(ev.codes.shape[0]), ev.codes]
    audit = cleaner.audit_
    np.testing.assert_allclose(audit["noise_probability"].to_numpy(float), r)
    flagged = audit["decision"].isin(["corrected", "discarded"]).to_numpy()
    np.testing.assert_array_equal(flagged, r >= cleaner.flag_threshold_)
    assert cal["flagged"] == flagged.sum()
    # the mean noise probability is the joint's noise, as the temperature set it
    assert r.mean() == pytest.approx(cal["noise_rate"], abs=1e-4)


def test_new_rows_are_judged_on_evidence_tempered_as_the_fit_measured():
    X, y = make_classification(
        n_samples=800, n_features=8, n_informative=5, random_state=1
    )
    noisy, _ = flip_labels(y, 0.2, random_state=1)
    cleaner = LabelCleaner(random_state=0).fit(X[:600], noisy[:600])
    tau = cleaner.calibration_["temperature"]
    assert tau != 1.0
    tempered = cleaner.audit(X[600:], noisy[600:], user_columns=False)
    cleaner.calibration_["temperature"] = 1.0  # a model file from before
    plain = cleaner.audit(X[600:], noisy[600:], user_columns=False)
    r_tempered = tempered["noise_probability"].to_numpy(float)
    r_plain = plain["noise_probability"].to_numpy(float)
    assert np.abs(r_tempered - r_plain).max() > 0.05
    # sharper evidence (tau > 1) puts the rows further from one half
    spread = np.mean(np.abs(r_tempered - 0.5)) - np.mean(np.abs(r_plain - 0.5))
    assert spread * np.sign(tau - 1.0) > 0
    for audit, r in ((tempered, r_tempered), (plain, r_plain)):
        flagged = (audit["decision"] != "kept").to_numpy()
        np.testing.assert_array_equal(flagged, r >= cleaner.flag_threshold_)
