"""Tests for SPBLClassifier (self-paced boost learning, spbl.md)."""

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from labelclean.ensemble import SPBLClassifier
from labelclean.ensemble._spbl import (
    _dual,
    _margins_loss,
    _solve_w,
)
from labelclean.noise import flip_labels


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    # Small matrices: threaded BLAS only adds overhead, and on a loaded
    # machine it slows these tests down by an order of magnitude.
    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def digits_small():
    X, y = load_digits(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, train_size=600, test_size=400, stratify=y, random_state=0
    )
    return X_tr, X_te, y_tr, y_te


def test_dual_scores_are_minus_the_gradient():
    # eq. 12's C is minus the gradient of the weighted loss w.r.t. the scores F.
    rng = np.random.RandomState(0)
    H = rng.rand(30, 4)
    W = rng.rand(4, 3)
    codes = rng.randint(0, 3, 30)
    a = rng.rand(30)
    _, rho = _margins_loss(H, W, codes)
    C = _dual(rho, a, codes)
    # Finite differences on F through a new unit h = e_i (one row at a time).
    eps = 1e-6
    for i, r in [(0, 0), (3, 1), (7, 2)]:
        h = np.zeros((30, 1))
        h[i] = 1.0
        W_plus = np.vstack([W, np.eye(3)[r][None, :] * eps])
        loss_0 = a @ _margins_loss(H, W, codes)[0]
        loss_1 = a @ _margins_loss(np.hstack([H, h]), W_plus, codes)[0]
        assert -(loss_1 - loss_0) / eps == pytest.approx(C[i, r], rel=1e-4, abs=1e-8)


def test_w_update_satisfies_optimality_conditions():
    rng = np.random.RandomState(1)
    H = rng.rand(80, 6)
    codes = rng.randint(0, 3, 80)
    a = np.full(80, 1 / 80)
    nu = 0.01
    W, ok = _solve_w(H, np.zeros((6, 3)), codes, a, nu, 1000, 1e-10)
    assert ok
    assert np.all(W >= 0)
    _, rho = _margins_loss(H, W, codes)
    grad = -(H.T @ _dual(rho, a, codes))
    norms = np.linalg.norm(W, axis=1)
    for j in range(W.shape[0]):
        if norms[j] > 1e-4:
            g = grad[j] + nu * W[j] / norms[j]
            # Stationary on the positive entries, non-negative on the zeros.
            np.testing.assert_allclose(g[W[j] > 1e-6], 0.0, atol=1e-5)
            assert np.all(g[W[j] <= 1e-6] > -1e-5)
        else:
            # A zero row stays zero only if no direction beats the penalty.
            assert np.linalg.norm(np.minimum(grad[j], 0.0)) <= nu + 1e-5


def test_v_fixed_at_one_is_plain_fully_corrective_boosting(digits_small):
    X_tr, X_te, y_tr, _ = digits_small
    params = {"n_estimators": 8, "random_state": 0}
    plain = SPBLClassifier(weighting="none", **params).fit(X_tr, y_tr)
    # Mixture weights whose thresholds select every row with weight 1:
    # zeta / lambda huge makes the "weight 1" region reach lambda itself.
    ones = SPBLClassifier(
        weighting="mixture",
        initial_share=1.0,
        final_share=1.0,
        zeta_ratio=1e12,
        **params,
    ).fit(X_tr, y_tr)
    assert np.all(plain.spl_weight_ == 1.0)
    kept = ones.spl_weight_ > 0
    assert np.all(ones.spl_weight_[kept] == 1.0)
    np.testing.assert_allclose(ones.coef_, plain.coef_, atol=1e-10)
    np.testing.assert_array_equal(ones.predict(X_te), plain.predict(X_te))


def test_spbl_down_weights_flipped_labels(digits_small, global_random_seed):
    X_tr, X_te, y_tr, y_te = digits_small
    y_noisy, flipped = flip_labels(y_tr, 0.15, random_state=global_random_seed)
    clf = SPBLClassifier(n_estimators=30, random_state=global_random_seed)
    clf.fit(X_tr, y_noisy)
    v = clf.spl_weight_
    assert v[flipped].mean() < 0.5 * v[~flipped].mean()
    # Rows at weight 0 are mostly flipped ones (15 % base rate).
    assert np.mean(flipped[v == 0]) > 0.5
    assert clf.score(X_te, y_te) > 0.8


def test_early_stopping_keeps_the_best_validation_iteration(digits_small):
    X_tr, _, y_tr, _ = digits_small
    clf = SPBLClassifier(n_estimators=25, n_iter_no_change=3, random_state=0)
    clf.fit(X_tr, y_tr)
    assert clf.validation_error_.shape == (clf.n_iter_,)
    assert clf.n_estimators_ == int(np.argmin(clf.validation_error_)) + 1
    assert clf.coef_.shape == (clf.n_estimators_, 10)
    assert clf.estimator_coef_.shape == (clf.n_estimators_, 64)
    assert np.all(clf.coef_ >= 0)


def test_zero_weight_rows_take_no_part(digits_small):
    X_tr, X_te, y_tr, _ = digits_small
    sw = np.ones(X_tr.shape[0])
    sw[:50] = 0.0
    X_bad, y_bad = X_tr.copy(), y_tr.copy()
    X_bad[:50] = 99.0
    y_bad[:50] = 0
    params = {"n_estimators": 10, "early_stopping": False}
    full = SPBLClassifier(**params).fit(X_bad, y_bad, sample_weight=sw)
    sub = SPBLClassifier(**params).fit(X_tr[50:], y_tr[50:])
    np.testing.assert_allclose(full.coef_, sub.coef_, atol=1e-8)
    np.testing.assert_array_equal(full.predict(X_te), sub.predict(X_te))
    assert np.all(full.spl_weight_[:50] == 0.0)


def test_two_classes():
    X, y = load_iris(return_X_y=True)
    mask = y > 0
    X, y = X[mask], np.where(y[mask] == 1, "a", "b")
    clf = SPBLClassifier(n_estimators=10, random_state=0).fit(X, y)
    scores = clf.decision_function(X)
    assert scores.shape == (X.shape[0],)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba[:, 1], 1.0 / (1.0 + np.exp(-scores)))
    assert clf.score(X, y) > 0.9


def test_convergence_warning(digits_small):
    X_tr, _, y_tr, _ = digits_small
    with pytest.warns(ConvergenceWarning, match="max_iter=1 "):
        SPBLClassifier(n_estimators=3, max_iter=1, tol=0.0).fit(X_tr, y_tr)
