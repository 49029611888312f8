"""Tests of BayesConfidence and its noise-level machinery."""

import re

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics import roc_auc_score

from labelclean.confidence import BayesConfidence
from labelclean.confidence._bayes import corrected_priors
from labelclean.exceptions import DataValidationError
from labelclean.noise import flip_labels


def _normal_data(n, noise, seed):
    rng = np.random.RandomState(seed)
    X = np.vstack([rng.normal(0, 1, (n // 2, 2)), rng.normal(2, 1, (n - n // 2, 2))])
    y = np.repeat([-1, 1], [n // 2, n - n // 2])
    y_noisy, flipped = flip_labels(y, noise, random_state=seed)
    return X, y, y_noisy, flipped


def test_corrected_priors_two_classes_is_papers_formula():
    observed = np.array([0.3, 0.7])
    eps = 0.2
    expected = (observed - eps) / (1 - 2 * eps)
    np.testing.assert_allclose(corrected_priors(observed, eps), expected)


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_corrected_priors_invert_uniform_noise(n_classes, global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    true = rng.dirichlet(np.ones(n_classes) * 5)
    eps = 0.25
    T = np.full((n_classes, n_classes), eps / (n_classes - 1))
    np.fill_diagonal(T, 1 - eps)
    observed = true @ T
    np.testing.assert_allclose(corrected_priors(observed, eps), true, atol=1e-9)


def test_posterior_implements_the_derivation():
    # Without a filter, with the noise level known, γ must be the posterior
    # with priors (P(Y=y) - ε)/(1 - 2ε): the derivation, not the printed
    # formula with ε f(x|Z=-y) in the denominator.
    X, _, y_noisy, _ = _normal_data(400, 0.1, 0)
    est = BayesConfidence(noise_level=0.1, noise_filter=None).fit(X, y_noisy)
    Z = est.feature_encoder_.transform(X)
    p_obs = np.array([np.mean(y_noisy == -1), np.mean(y_noisy == 1)])
    prior = (p_obs - 0.1) / 0.8
    f = np.exp(est._log_density(Z))
    post = prior * f / (prior * f).sum(axis=1, keepdims=True)
    codes = (y_noisy == 1).astype(int)
    np.testing.assert_allclose(est.confidence_, post[np.arange(400), codes], rtol=1e-8)
    printed = (
        (p_obs[codes] - 0.1)
        * f[np.arange(400), codes]
        / (
            (p_obs[codes] - 0.1) * f[np.arange(400), codes]
            + 0.1 * f[np.arange(400), 1 - codes]
        )
    )
    assert not np.allclose(est.confidence_, printed)


def test_noise_injection_detection(global_random_seed):
    X, _y, y_noisy, flipped = _normal_data(600, 0.2, global_random_seed)
    est = BayesConfidence(noise_level=0.2, random_state=0).fit(X, y_noisy)
    assert roc_auc_score(flipped, 1 - est.confidence_) > 0.9
    assert est.confidence_[flipped].mean() < 0.35 < est.confidence_[~flipped].mean()
    assert np.all((est.confidence_ >= 0) & (est.confidence_ <= 1))
    np.testing.assert_allclose(est.posterior_.sum(axis=1), 1.0)


@pytest.mark.parametrize("noise", [0.1, 0.3])
def test_noise_level_estimate(noise):
    X, y = make_blobs(1500, centers=3, cluster_std=1.0, random_state=0)
    y_noisy, _ = flip_labels(y, noise, random_state=0)
    est = BayesConfidence(random_state=0).fit(X, y_noisy)
    assert abs(est.noise_level_ - noise) < 0.05, est.noise_level_


def test_kde_density_many_classes_string_labels():
    X, y = make_blobs(600, centers=4, random_state=1)
    names = np.array(["w", "x", "y", "z"])[y]
    y_noisy, flipped = flip_labels(names, 0.15, random_state=1)
    est = BayesConfidence(density="kde", noise_level=0.15, random_state=0)
    est.fit(X, y_noisy)
    assert roc_auc_score(flipped, 1 - est.confidence_) > 0.95
    assert set(est.trusted_labels_) <= set(names)
    gamma = est.score_samples(X[:10], names[:10])
    assert gamma.shape == (10,) and np.all((gamma >= 0) & (gamma <= 1))


def test_noise_level_too_high_for_classes():
    X, y = make_blobs(60, centers=2, random_state=0)
    msg = "noise_level=0.5 is too high for 2 classes"
    with pytest.raises(DataValidationError, match=re.escape(msg)):
        BayesConfidence(noise_level=0.5).fit(X, y)


def test_single_row_class_uses_pooled_covariance():
    X, y = make_blobs(50, centers=2, random_state=0)
    X = np.vstack([X, [[30.0, 30.0]]])
    y = np.append(y, 2)
    est = BayesConfidence(noise_level=0.05, noise_filter=None).fit(X, y)
    assert np.all(np.isfinite(est.confidence_))
