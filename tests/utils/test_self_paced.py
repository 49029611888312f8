"""Tests of the shared self-paced weights (utils/_self_paced.py)."""

import numpy as np
import pytest

from labelclean.utils._self_paced import (
    REGULARIZERS,
    latent_loss,
    mixture_weights,
    share_threshold,
    spl_weights,
)


def _regularizer(name, v, age, t=4.0, zeta=None):
    zeta = age / 2 if zeta is None else zeta
    if name == "hard":
        return -age * v
    if name == "linear":
        return age * (v**2 / 2 - v)
    if name == "polynomial":
        return age * (v**t / t - v)
    if name == "mixture":
        return zeta**2 / (v + zeta / age)
    return -zeta * np.log(v + zeta / age)


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("age", [1.5, 3.0])
def test_spl_weights_minimise_the_regularised_loss(regularizer, age):
    losses = np.linspace(0.01, 12.0, 300)
    v_grid = np.linspace(0.0, 1.0, 20001)
    v = spl_weights(np.log(losses), age, regularizer)
    for loss, vi in zip(losses, v, strict=True):
        objective = v_grid * loss + _regularizer(regularizer, v_grid, age)
        best = v_grid[np.argmin(objective)]
        assert abs(vi - best) < 2e-3, (loss, vi, best)


@pytest.mark.parametrize("regularizer", REGULARIZERS)
def test_latent_loss_is_the_integral_of_the_weights(regularizer):
    age = 2.5
    losses = np.linspace(1e-6, 10.0, 200001)
    v = spl_weights(np.log(losses), age, regularizer)
    integral = np.concatenate(
        [[0.0], np.cumsum((v[1:] + v[:-1]) / 2 * np.diff(losses))]
    )
    latent = latent_loss(np.log(losses), age, regularizer)
    np.testing.assert_allclose(latent[::1000], integral[::1000], atol=1e-4)


def test_closed_forms_on_small_values():
    log_loss = np.log([0.5, 2.0, 3.0, 8.0])
    np.testing.assert_array_equal(spl_weights(log_loss, 3.0, "hard"), [1, 1, 0, 0])
    np.testing.assert_allclose(
        spl_weights(log_loss, 3.0, "linear"), [5 / 6, 1 / 3, 0, 0]
    )
    np.testing.assert_allclose(
        spl_weights(log_loss, 4.0, "polynomial", t=2.0), [7 / 8, 1 / 2, 1 / 4, 0]
    )
    # mixture_log, age 4, zeta 2: 1 below 4/3, 0 from 4, else 2/l - 1/2.
    np.testing.assert_allclose(
        spl_weights(log_loss, 4.0, "mixture_log"), [1, 0.5, 1 / 6, 0]
    )
    # mixture, age 2, zeta 1: 1 below 4/9, 0 from 4, else 1/sqrt(l) - 1/2.
    np.testing.assert_allclose(
        spl_weights(log_loss, 2.0, "mixture"),
        [1 / np.sqrt(0.5) - 0.5, 1 / np.sqrt(2) - 0.5, 1 / np.sqrt(3) - 0.5, 0],
    )
    # Huge losses do not overflow.
    assert spl_weights(np.array([1e4]), 3.0, "linear")[0] == 0.0


@pytest.mark.parametrize("t", [1.3, 4.0])
def test_polynomial_latent_loss_is_finite_at_the_cutoff(t):
    # The loss is clipped at the cutoff in the log domain; exp(log(age)) can
    # exceed age by one ulp, and a negative base to a fractional power is NaN.
    age = 3.7
    log_loss = np.array([np.log(age), np.log(age) + 1e-3, 5.0])
    assert np.exp(np.log(age)) > age
    latent = latent_loss(log_loss, age, "polynomial", t=t)
    p = t / (t - 1.0)
    np.testing.assert_allclose(latent, age / p)


def test_mixture_weights_match_eq_8():
    # lambda = 3, zeta = 1.5: 1 up to 1, 0 from 3, zeta/l - zeta/lambda between.
    losses = np.array([0.2, 1.0, 1.5, 2.5, 3.0, 4.0])
    v = mixture_weights(losses, np.full(6, 3.0), np.full(6, 1.5))
    np.testing.assert_allclose(v, [1.0, 1.0, 0.5, 0.1, 0.0, 0.0])


def test_share_threshold_selects_the_share():
    losses = np.array([0.4, 0.1, 0.3, 0.2, 0.5])
    lam = share_threshold(losses, np.ones(5), 0.6)
    assert np.sum(losses < lam) == 3


def test_threshold_selects_the_requested_share():
    losses = np.array([5.0, 1.0, 3.0, 2.0, 4.0, 6.0])
    lam = share_threshold(losses, np.ones(6), 0.5, double_ties=True)
    assert np.sum(losses < lam) == 3
    assert lam == pytest.approx(3.0, rel=1e-5)
    # Weighted shares count the weights, not the rows.
    weights = np.array([1.0, 3.0, 1.0, 1.0, 1.0, 1.0])
    assert np.sum(losses < share_threshold(losses, weights, 0.5, double_ties=True)) == 2
    # All tied: the group keeps weight 1/2 under linear weighting.
    tied = share_threshold(np.full(4, 2.0), np.ones(4), 0.5, double_ties=True)
    np.testing.assert_allclose(np.clip(1.0 - 2.0 / tied, 0.0, 1.0), 0.5)
