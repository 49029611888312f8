"""The evidence tempered to the observed labels through the estimated noise."""

import numpy as np
import pytest
from sklearn.datasets import load_wine, make_classification
from sklearn.model_selection import train_test_split

from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.pipeline._calibration import combine_evidence
from labelclean.pipeline._noise_estimate import noise_posterior, transition_matrix
from labelclean.pipeline._temperature import (
    fitted_temperature,
    least_temperature,
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
    assert fitted_temperature(P, observed, Q) == pytest.approx(1.0, abs=0.08)


@pytest.mark.parametrize("smoothing", [0.5, 0.8])
def test_the_temperature_undoes_a_smoothing(smoothing):
    # Evidence learnt from noisy labels is smoother than the true posterior;
    # the temperature under which the observed labels are most likely brings
    # it back, and the posterior then agrees with the joint's noise.
    P, observed, Q = _calibrated_rows(seed=1)
    tau = fitted_temperature(temper(P, smoothing), observed, Q)
    assert tau * smoothing == pytest.approx(1.0, rel=0.1)
    W = noise_posterior(temper(temper(P, smoothing), tau), observed, Q)
    mean_r = np.mean(1.0 - W[np.arange(observed.shape[0]), observed])
    assert mean_r == pytest.approx(1.0 - np.trace(Q), abs=0.01)


def _label_loss(P, observed, Q, tau):
    """Mean negative log-likelihood of the labels under P ** tau and Q."""
    T = transition_matrix(Q)
    likelihood = (temper(P, tau) @ T)[np.arange(observed.shape[0]), observed]
    return -np.mean(np.log(likelihood))


def test_a_temperature_the_labels_do_not_support_is_not_taken():
    # An 89-row half of wine (class 0 against the rest) with 20 % of the
    # labels flipped: the joint counts about as much noise as the evidence
    # has disagreeing labels, so the mean posterior of a wrong label reaches
    # it only when the evidence is nearly one-hot (matching that mean alone
    # gave tau 15.5 and 11 flags, all right, of 18 wrong labels).
    # The likelihood of the labels keeps the temperature moderate (5.5 on the
    # evidence of models fitted on the observed labels, 1.49 on the
    # neighbours' soft labels).
    X, y = load_wine(return_X_y=True)
    X_tr, _, y_tr, _ = train_test_split(
        X, (y == 0).astype(int), test_size=0.5, stratify=y == 0, random_state=1
    )
    noisy, flipped = flip_labels(y_tr, 0.2, random_state=1)
    cleaner = LabelCleaner(random_state=1).fit(X_tr, noisy)
    ev, Q = cleaner.evidence_, cleaner.noise_joint_
    P = combine_evidence(ev.confidence_proba, ev.model_proba)
    rows = np.arange(ev.codes.shape[0])
    r_at_8 = 1.0 - noise_posterior(temper(P, 8.0), ev.codes, Q)[rows, ev.codes]
    assert r_at_8.mean() < 1.0 - np.trace(Q)  # the mean alone asks for more
    tau = cleaner.calibration_["temperature"]
    assert 1.0 <= tau < 8.0
    for other in (tau * 0.8, tau * 1.25, 8.0, 20.0):
        assert (
            _label_loss(P, ev.codes, Q, tau)
            <= _label_loss(P, ev.codes, Q, max(other, 1.0)) + 1e-9
        )
    flagged = cleaner.decisions_ != "kept"
    assert (flagged & flipped).sum() > 11  # the mean's tau 15.5 caught 11
    assert (flagged & ~flipped).sum() <= 2


def test_evidence_surer_than_its_joint_is_not_flattened():
    # The joint's noise below what the evidence implies (a capped joint):
    # flattening would take the cap's caution twice.
    P, observed, Q = _calibrated_rows(seed=2)
    assert fitted_temperature(temper(P, 1.6), observed, Q) == 1.0
    capped = Q * 0.5 + np.diag(np.diag(Q) * 0 + Q.sum(axis=1) * 0.5)
    assert 1.0 - np.trace(capped) < 1.0 - np.trace(Q)
    assert fitted_temperature(P, observed, capped) == 1.0


def test_no_noise_no_temperature():
    P, observed, _ = _calibrated_rows(n=500)
    clean = np.diag(np.bincount(observed, minlength=3) / observed.shape[0])
    assert fitted_temperature(P, observed, clean) == 1.0


def test_the_fit_flags_on_the_tempered_evidence():
    X, y = make_classification(
        n_samples=600, n_features=8, n_informative=5, random_state=0
    )
    # 15 % flips: the agreement with the noise taken out stays substantial,
    # where the noise is read at the surest rows' upper limit.
    noisy, _ = flip_labels(y, 0.15, random_state=0)
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
    # the temperature is the one under which the fit's labels are most likely
    P0 = combine_evidence(ev.confidence_proba, ev.model_proba)
    Q = cleaner.noise_joint_
    for other in (tau * 0.9, tau * 1.1):
        assert (
            _label_loss(P0, ev.codes, Q, tau)
            <= _label_loss(P0, ev.codes, Q, max(other, 1.0)) + 1e-9
        )


def test_new_rows_are_judged_on_evidence_tempered_as_the_fit_measured():
    X, y = make_classification(
        n_samples=800, n_features=8, n_informative=5, random_state=1
    )
    noisy, _ = flip_labels(y, 0.15, random_state=1)
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


@pytest.mark.parametrize("n", [150, 20_000])
def test_the_least_temperature_is_the_low_end_of_the_fitted_ones_interval(n):
    # The labels' log-likelihood at the least temperature lies half the
    # chi-squared 95 % point under its maximum (Wilks), and between 1 and the
    # fitted temperature it lies above; on few rows that reaches 1.
    P, observed, Q = _calibrated_rows(n=n, seed=3)
    smooth = temper(P, 0.6)
    fitted = fitted_temperature(smooth, observed, Q)
    least = least_temperature(smooth, observed, Q, fitted)
    assert 1.0 <= least < fitted
    total = lambda tau: n * _label_loss(smooth, observed, Q, tau)  # noqa: E731
    if least > 1.0:
        assert total(least) - total(fitted) == pytest.approx(0.5 * 3.841, abs=1e-3)
        assert total(1.0) - total(fitted) > 0.5 * 3.841
    else:
        assert total(1.0) - total(fitted) <= 0.5 * 3.841
    inside = np.linspace(least, fitted, 7)[1:-1]
    assert all(total(t) - total(fitted) < 0.5 * 3.841 for t in inside)


def test_the_least_temperature_closes_on_the_fitted_one_with_more_rows():
    few, many = (_calibrated_rows(n=n, seed=4) for n in (150, 20_000))
    readings = []
    for P, observed, Q in (few, many):
        smooth = temper(P, 0.6)
        fitted = fitted_temperature(smooth, observed, Q)
        readings.append((least_temperature(smooth, observed, Q, fitted), fitted))
    (least_few, fitted_few), (least_many, fitted_many) = readings
    assert least_few == 1.0 < fitted_few  # a hundred rows cannot exclude 1
    assert fitted_many * 0.9 < least_many < fitted_many


def test_no_sharpening_where_the_fitted_temperature_is_one():
    P, observed, Q = _calibrated_rows(n=500, seed=5)
    assert least_temperature(P, observed, Q, 1.0) == 1.0
