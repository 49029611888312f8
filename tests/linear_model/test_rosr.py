"""Tests for RoSRClassifier (robust softmax regression, rosr.md)."""

import re

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import optimize
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from labelclean.linear_model import RoSRClassifier
from labelclean.linear_model._rosr import SPARSE_SHARE, _sparse_if_mostly_zeros
from labelclean.linear_model._softmax import self_paced_weights as _spl_weights
from labelclean.linear_model._softmax import softmax_loss_grad
from labelclean.noise import flip_labels


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    # Small matrices: threaded BLAS only adds overhead, and on a loaded
    # machine it slows these tests down by an order of magnitude.
    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _toy(seed):
    """rosr.md §5.2: 3 separated classes of 150 points, 15 mislabeled, 5 outliers."""
    rng = np.random.RandomState(seed)
    centers = np.array([[0.0, 0.0], [6.0, 0.0], [3.0, 5.0]])
    X = np.vstack([rng.randn(150, 2) + c for c in centers])
    y = np.repeat([0, 1, 2], 150)
    # Mislabeled: inside class 0's cloud, labeled as class 2.
    X_noisy = 0.5 * rng.randn(15, 2) + centers[0]
    # Outliers: far above every class, labeled as class 1.
    X_out = 0.5 * rng.randn(5, 2) + np.array([3.0, 14.0])
    X_all = np.vstack([X, X_noisy, X_out])
    y_all = np.r_[y, np.full(15, 2), np.full(5, 1)]
    X_test = np.vstack([rng.randn(1000, 2) + c for c in centers])
    return X, y, X_all, y_all, X_test


# --- the weight formulas -----------------------------------------------------


def test_linear_weights_match_eq_10():
    losses = np.array([0.0, 0.5, 1.0, 2.0, 3.0])
    v = _spl_weights(losses, np.full(5, 2.0), "linear", 0.5)
    np.testing.assert_allclose(v, [1.0, 0.75, 0.5, 0.0, 0.0])


def test_mixture_weights_match_eq_12():
    # lambda = 3, zeta = 1.5: weight 1 up to zeta*lambda/(zeta+lambda) = 1,
    # 0 from 3 on, zeta/l - zeta/lambda in between.
    losses = np.array([0.2, 1.0, 1.5, 2.5, 3.0, 4.0])
    v = _spl_weights(losses, np.full(6, 3.0), "mixture", 0.5)
    np.testing.assert_allclose(v, [1.0, 1.0, 0.5, 0.1, 0.0, 0.0])


# --- equivalence with scikit-learn --------------------------------------------


@pytest.mark.parametrize("mu", [1e-3, 1e-2, 0.1])
def test_weights_fixed_at_one_equal_multinomial_logistic_regression(wine, mu):
    X, y = wine
    rosr = RoSRClassifier(mu=mu, weighting="none", tol=1e-10, max_iter=2000).fit(X, y)
    # mean loss + mu/2 ||W||^2  <=>  C * sum loss + 1/2 ||W||^2 with C = 1/(mu n)
    lr = LogisticRegression(C=1.0 / (mu * X.shape[0]), tol=1e-10, max_iter=2000)
    lr.fit(X, y)
    np.testing.assert_allclose(rosr.coef_, lr.coef_, atol=1e-4)
    np.testing.assert_allclose(rosr.intercept_, lr.intercept_, atol=1e-4)
    np.testing.assert_allclose(rosr.predict_proba(X), lr.predict_proba(X), atol=1e-5)
    assert np.all(rosr.spl_weight_ == 1.0)


def test_sample_weight_maps_to_logistic_regression(wine, global_random_seed):
    X, y = wine
    sw = np.random.RandomState(global_random_seed).uniform(0.5, 2.0, X.shape[0])
    mu = 1e-2
    rosr = RoSRClassifier(mu=mu, weighting="none", tol=1e-10, max_iter=2000)
    rosr.fit(X, y, sample_weight=sw)
    lr = LogisticRegression(C=1.0 / (mu * sw.sum()), tol=1e-10, max_iter=2000)
    lr.fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(rosr.coef_, lr.coef_, atol=1e-4)


@pytest.mark.parametrize("weighting", ["linear", "mixture"])
@pytest.mark.parametrize("per_class", [True, False])
def test_zero_weight_rows_take_no_part(wine, weighting, per_class, global_random_seed):
    X, y = wine
    rng = np.random.RandomState(global_random_seed)
    sw = np.ones(X.shape[0])
    zero = rng.choice(X.shape[0], 20, replace=False)
    sw[zero] = 0.0
    # The zeroed rows get nonsense labels and features: they must not matter.
    y_bad, X_bad = y.copy(), X.copy()
    y_bad[zero] = (y[zero] + 1) % 3
    X_bad[zero] = 100.0
    params = {"weighting": weighting, "per_class": per_class, "tol": 1e-8}
    full = RoSRClassifier(**params).fit(X_bad, y_bad, sample_weight=sw)
    kept = np.setdiff1d(np.arange(X.shape[0]), zero)
    sub = RoSRClassifier(**params).fit(X[kept], y[kept])
    np.testing.assert_allclose(full.coef_, sub.coef_, atol=1e-6)
    assert np.all(full.spl_weight_[zero] == 0.0)
    np.testing.assert_allclose(full.spl_weight_[kept], sub.spl_weight_, atol=1e-6)
    assert set(zero) <= set(full.zero_weight_indices_)


def test_sparse_input_gives_the_dense_result(wine):
    X, y = wine
    dense = RoSRClassifier().fit(X, y)
    sparse = RoSRClassifier().fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-8)
    np.testing.assert_allclose(sparse.spl_weight_, dense.spl_weight_, atol=1e-8)


def _one_hot_table(seed, n=300, columns=3, levels=14):
    """Dense one-hot columns and one numeric column: mostly zeros."""
    rng = np.random.RandomState(seed)
    codes = rng.randint(0, levels, size=(n, columns))
    X = np.zeros((n, columns * levels + 1))
    for j in range(columns):
        X[np.arange(n), j * levels + codes[:, j]] = 1.0
    X[:, -1] = rng.randn(n)
    y = (codes[:, 0] + codes[:, 1] // 7) % 3
    return X, flip_labels(y, 0.2, random_state=seed)[0]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("soft", [False, True])
def test_loss_gradient_matches_finite_differences(sparse, soft, global_random_seed):
    X, y = _one_hot_table(global_random_seed, n=60)
    X = sp.csr_matrix(X) if sparse else X
    rng = np.random.RandomState(global_random_seed)
    n_classes, (n_rows, n_features) = 3, X.shape
    if soft:
        Q = rng.dirichlet(np.ones(n_classes), size=n_rows)
        target, Qt = y, np.ascontiguousarray(Q.T)
    else:
        target, Qt = y * n_rows + np.arange(n_rows), None
    a = rng.uniform(0.1, 1.0, size=n_rows) / n_rows
    args = (X, Qt, target, a, 0.05, n_classes, True)
    params = rng.randn(n_classes * (n_features + 1))

    def loss(p):
        return softmax_loss_grad(p, *args)[0]

    def grad(p):
        return softmax_loss_grad(p, *args)[1]

    assert optimize.check_grad(loss, grad, params) < 1e-6 * np.linalg.norm(grad(params))


def test_mostly_zero_dense_input_is_fitted_as_its_sparse_form(global_random_seed):
    X, y = _one_hot_table(global_random_seed)
    assert np.count_nonzero(X) <= SPARSE_SHARE * X.size
    dense = RoSRClassifier().fit(X, y)
    sparse = RoSRClassifier().fit(sp.csr_matrix(X), y)
    # the same CSR copy, so the same fit to the last bit
    np.testing.assert_array_equal(dense.coef_, sparse.coef_)
    np.testing.assert_array_equal(dense.intercept_, sparse.intercept_)
    np.testing.assert_array_equal(dense.spl_weight_, sparse.spl_weight_)
    np.testing.assert_array_equal(dense.predict_proba(X), sparse.predict_proba(X))


def test_only_dense_input_mostly_of_zeros_is_made_sparse():
    X, _ = _one_hot_table(0)
    assert sp.issparse(_sparse_if_mostly_zeros(X))
    np.testing.assert_array_equal(_sparse_if_mostly_zeros(X).toarray(), X)
    denser = X.copy()
    denser[:, -6:] = 1.0  # above one value in ten
    assert _sparse_if_mostly_zeros(denser) is denser
    csr = sp.csr_matrix(X)
    assert _sparse_if_mostly_zeros(csr) is csr


# --- self-paced behaviour -----------------------------------------------------


def test_default_schedule_runs_six_rounds(wine):
    X, y = wine
    clf = RoSRClassifier().fit(X, y)
    # 50 %, 60 %, ..., 100 % of every class (rosr.md §4.2)
    assert clf.n_rounds_ == 6
    assert clf.n_iter_ > 5
    # Every row is selected in the last round.
    assert np.all(clf.spl_weight_ > 0)
    assert clf.zero_weight_indices_.size == 0
    assert clf.lambda_.shape == (3,)


def _one_hard_class(seed):
    """Two separated classes and a third whose rows lie inside the other two."""
    rng = np.random.RandomState(seed)
    centers = np.array([[0.0, 0.0], [8.0, 0.0]])
    inside = centers[(rng.rand(100) < 0.5).astype(int)]
    X = np.vstack([rng.randn(100, 2) + centers[0], rng.randn(100, 2) + centers[1]])
    X = np.vstack([X, rng.randn(100, 2) + inside])
    return X, np.repeat([0, 1, 2], 100)


def test_per_class_never_leaves_a_class_all_zero(global_random_seed):
    X, y = _one_hard_class(global_random_seed)
    for final_share in (0.5, 0.7, 1.0):
        local = RoSRClassifier(per_class=True, final_share=final_share).fit(X, y)
        for k in np.unique(y):
            members = y == k
            assert local.spl_weight_[members].max() > 0.0
            # At least the requested share of each class is selected.
            selected = np.mean(local.spl_weight_[members] > 0)
            assert selected >= final_share - 1.0 / members.sum()
    # A global threshold stopped at half the rows nearly starves the hard
    # class: the imbalance that motivates RoSR-L (rosr.md §4.2).
    glob = RoSRClassifier(per_class=False, final_share=0.5).fit(X, y)
    assert np.mean(glob.spl_weight_[y == 2] > 0) < 0.2


@pytest.mark.parametrize("weighting", ["mixture", "linear"])
def test_toy_example_mislabeled_and_outliers_are_down_weighted(
    weighting, global_random_seed
):
    X, y, X_all, y_all, X_test = _toy(global_random_seed)
    clean = RoSRClassifier(mu=1e-3, weighting="none").fit(X, y)
    sr = RoSRClassifier(mu=1e-3, weighting="none").fit(X_all, y_all)
    rosr_l = RoSRClassifier(mu=1e-3, weighting=weighting).fit(X_all, y_all)

    v = rosr_l.spl_weight_
    assert np.all(v[450:465] < 0.8), "mislabeled points keep a high weight"
    assert np.all(v[465:] < 0.3), "outliers keep a high weight"
    if weighting == "mixture":
        # Mixture weighting leaves the clean points alone.
        assert np.mean(v[:450] == 1.0) > 0.95

    # The decision regions barely move (rosr.md Fig. 3), while SR's do.
    reference = clean.predict(X_test)
    agree_rosr = np.mean(rosr_l.predict(X_test) == reference)
    agree_sr = np.mean(sr.predict(X_test) == reference)
    assert agree_rosr > 0.985
    assert agree_rosr > agree_sr


def test_rosr_l_beats_sr_under_label_noise(global_random_seed):
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    accs = {"sr": [], "rosr_l": []}
    for split in range(3):
        rng = np.random.RandomState(global_random_seed + split)
        test = rng.rand(X.shape[0]) < 0.3
        y_noisy, _ = flip_labels(y[~test], 0.3, random_state=rng)
        sr = RoSRClassifier(mu=1e-3, weighting="none").fit(X[~test], y_noisy)
        rl = RoSRClassifier(mu=1e-3).fit(X[~test], y_noisy)
        accs["sr"].append(sr.score(X[test], y[test]))
        accs["rosr_l"].append(rl.score(X[test], y[test]))
    assert np.mean(accs["rosr_l"]) >= np.mean(accs["sr"])


# --- soft labels ---------------------------------------------------------------


def test_soft_labels_of_certainty_equal_hard_labels(wine):
    X, y = wine
    hard = RoSRClassifier(tol=1e-8).fit(X, y)
    gamma = RoSRClassifier(tol=1e-8).fit(X, y, soft_labels=np.ones(X.shape[0]))
    onehot = np.eye(3)[y]
    matrix = RoSRClassifier(tol=1e-8).fit(X, y, soft_labels=onehot)
    np.testing.assert_allclose(gamma.coef_, hard.coef_, atol=1e-8)
    np.testing.assert_allclose(matrix.coef_, hard.coef_, atol=1e-8)


def test_soft_labels_shrink_the_coefficients(wine):
    X, y = wine
    hard = RoSRClassifier(weighting="none").fit(X, y)
    soft = RoSRClassifier(weighting="none").fit(
        X, y, soft_labels=np.full(X.shape[0], 0.6)
    )
    assert np.linalg.norm(soft.coef_) < np.linalg.norm(hard.coef_)
    # gamma = 0.6 with 3 classes puts 0.6 / 0.2 / 0.2 on the classes; the fitted
    # probability of the observed class sits near 0.6 on average.
    p_obs = soft.predict_proba(X)[np.arange(X.shape[0]), y]
    assert 0.5 < p_obs.mean() < 0.7


def test_bad_soft_labels_raise(wine):
    X, y = wine
    with pytest.raises(ValueError, match=re.escape("confidence in [0, 1] per row")):
        RoSRClassifier().fit(X, y, soft_labels=np.full(X.shape[0], 1.5))
    with pytest.raises(ValueError, match="probability distribution per row"):
        RoSRClassifier().fit(X, y, soft_labels=np.ones((X.shape[0], 3)))


# --- errors, warnings, two classes -------------------------------------------


def test_class_without_weight_raises(wine):
    X, y = wine
    sw = np.where(y == 2, 0.0, 1.0)
    with pytest.raises(ValueError, match=re.escape("class(es) [2] have no row")):
        RoSRClassifier().fit(X, y, sample_weight=sw)


def test_convergence_warning(wine):
    X, y = wine
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        RoSRClassifier(max_iter=1, tol=0.0).fit(X, y)


def test_two_classes_match_softmax_probabilities():
    X, y = load_iris(return_X_y=True)
    mask = y > 0
    X, y = StandardScaler().fit_transform(X[mask]), np.where(y[mask] == 1, "a", "b")
    clf = RoSRClassifier().fit(X, y)
    assert clf.coef_.shape == (1, 4)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(
        proba[:, 1], 1.0 / (1.0 + np.exp(-clf.decision_function(X)))
    )
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[proba.argmax(axis=1)])
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X)), proba)
    assert clf.score(X, y) > 0.9


def test_class_mass_keep_preserves_the_class_priors(wine, global_random_seed):
    # Non-regression: with a strong penalty the paper's per-class weights
    # ('free') shift the class priors until the model predicts one or two
    # classes; 'keep' holds each class at its share of the weight.
    X, y = wine
    y_noisy, _ = flip_labels(y, 0.2, random_state=global_random_seed)
    keep = RoSRClassifier(mu=1.0, class_mass="keep").fit(X, y_noisy)
    shares = np.bincount(y_noisy, minlength=3) / y.size
    predicted = np.bincount(keep.predict(X), minlength=3) / y.size
    np.testing.assert_allclose(predicted, shares, atol=0.06)
    assert keep.score(X, y) > 0.9
    free = RoSRClassifier(mu=1.0, class_mass="free").fit(X, y_noisy)
    assert free.score(X, y) < keep.score(X, y)
