"""The evidence's temperature: how much sharper than itself the labels show
the true class posterior to be.

Evidence learnt from noisy labels mixes the noise in, so it is smoother than
the true class posterior it stands for. Step 3 of the calibration
(docs/decisions.md, *A posterior that agrees with its joint*) fits the
temperature under which the observed labels are most likely, and the flags
read the evidence at it; the corrections read it at the least temperature
those labels support, the low end of that temperature's likelihood interval
(*Corrections read on the evidence as sharp as the labels surely make it*).
"""

import numpy as np
from scipy.optimize import brentq, minimize_scalar

from labelclean.pipeline._noise_estimate import transition_matrix

__all__ = ["fitted_temperature", "least_temperature", "temper"]

#: Range searched for the temperature (its logarithm), and the coarse grid's
#: step before the bounded refinement: from the evidence as it is to P ** 20,
#: nearly one-hot.
_LOG_TEMPERATURE_RANGE = (0.0, np.log(20.0))
_LOG_TEMPERATURE_STEP = 0.1
#: Half the 95 % point of the chi-squared distribution with one degree of
#: freedom: how far under its maximum a temperature's log-likelihood may lie
#: and the temperature stay in the fitted one's interval (Wilks; the same
#: level as the likelihood-ratio test of the evidence's shrinkage).
_INTERVAL_CRITICAL = 0.5 * 3.841


def temper(P: np.ndarray, temperature: float) -> np.ndarray:
    """``P ** temperature``, each row renormalised (1: ``P`` itself)."""
    if temperature == 1.0:
        return P
    with np.errstate(divide="ignore"):
        logs = temperature * np.log(P)
    logs -= logs.max(axis=1, keepdims=True)
    out = np.exp(logs)
    return out / out.sum(axis=1, keepdims=True)


def _label_loss(P: np.ndarray, codes: np.ndarray, Q: np.ndarray):
    """The mean negative log-likelihood of the observed labels under the
    joint ``Q`` with the evidence at a temperature, as a function of the
    temperature's logarithm: each label drawn from the row's true class
    (``P ** τ``, rows renormalised) and then kept or flipped by the
    transition, ``P(y_i) = sum_j P[i, j] ** τ T[j, y_i] / sum_j P[i, j] ** τ``
    (the forward model of Patrini et al., CVPR 2017)."""
    with np.errstate(divide="ignore"):
        logs = np.log(P)
    logs -= logs.max(axis=1, keepdims=True)
    to_label = transition_matrix(Q)[:, codes].T  # [i, j] = T[j, y_i]

    def loss(log_tau: float) -> float:
        powered = np.exp(float(np.exp(log_tau)) * logs)
        likelihood = np.einsum("ij,ij->i", powered, to_label) / powered.sum(axis=1)
        return -float(np.mean(np.log(np.maximum(likelihood, 1e-300))))

    return loss


def fitted_temperature(P: np.ndarray, codes: np.ndarray, Q: np.ndarray) -> float:
    """The temperature of the evidence fitted to the observed labels.

    Evidence learnt from noisy labels is smoother than the true class
    posterior (it mixes in the noise): on a 20,000-row table with 20 % of
    the labels flipped, its mean posterior of a wrong label was 0.162 for a
    joint of 0.192, and wrong labels kept about half their weight as clean
    rows in the known flips (docs/decisions.md, *A posterior that agrees
    with its joint*). Under the estimated joint ``Q`` a row's label is drawn
    from its true class and then kept or flipped (:func:`_label_loss`);
    ``P ** τ`` (rows renormalised) stands for the true posterior, and ``τ``
    is the one under which the observed labels are most likely (temperature
    scaling, Guo et al., ICML 2017, through the noise). On that table it is
    2.42, and the mean posterior of a wrong label then matches the joint
    (0.192).

    Matching that mean alone (one equation) sent ``τ`` to 15.5 on an 89-row
    half of wine, where the joint's noise is about the evidence's own share
    of disagreeing labels: the evidence became nearly one-hot, the flags
    stopped at the rows whose most probable class is not their label, and
    the known flips overstated their recall (0.81 for 0.61). The likelihood
    weighs every row's label, and there puts ``τ`` at 1.49.

    Only sharpening (``τ ≥ 1``): the argument runs one way (noise smooths
    what is learnt from it). Evidence surer than its joint is evidence whose
    disagreements the joint has capped as overlap (the cautious reading),
    and flattening it would take that caution twice: it halved the flags of
    a breast_cancer fit with 30 % of the labels flipped (44 flags where 85
    had been 92 % right). 1 where the joint has no noise.
    """
    n = codes.shape[0]
    if n == 0 or 1.0 - float(np.trace(Q)) <= 0:
        return 1.0
    loss = _label_loss(P, codes, Q)
    low, high = _LOG_TEMPERATURE_RANGE
    grid = np.arange(low, high + _LOG_TEMPERATURE_STEP / 2, _LOG_TEMPERATURE_STEP)
    values = np.array([loss(g) for g in grid])
    k = int(np.argmin(values))  # the first of equal losses: the nearest to 1
    bounds = (grid[max(k - 1, 0)], grid[min(k + 1, grid.shape[0] - 1)])
    best = minimize_scalar(loss, bounds=bounds, method="bounded",
                           options={"xatol": 1e-4})  # fmt: skip
    log_tau = best.x if best.fun <= values[k] else grid[k]
    return float(np.exp(log_tau))


def least_temperature(P, codes, Q, fitted: float) -> float:
    """The least temperature the observed labels support: the low end of the
    95 % likelihood interval of ``fitted`` (:func:`fitted_temperature` on the
    same ``P``, ``codes`` and ``Q``), at least 1.

    The interval holds the temperatures whose log-likelihood of the labels
    (:func:`_label_loss`, summed over the rows) lies within half the
    chi-squared 95 % point of the maximum (Wilks). On a table of a hundred
    rows it stays near 1, the evidence as it is, even where the fitted
    temperature is far above (1.22 for 7.0 on 117 rows of mpg, where the
    evidence is wrong about a few cars that the fitted temperature would
    then correct); on a few thousand rows it closes around the fitted one.
    The corrections are read there (docs/decisions.md, *Corrections read on
    the evidence as sharp as the labels surely make it*).
    """
    if fitted <= 1.0:
        return 1.0
    loss, n = _label_loss(P, codes, Q), codes.shape[0]
    top = loss(np.log(fitted))

    def beyond(log_tau: float) -> float:  # > 0: outside the interval
        return n * (loss(log_tau) - top) - _INTERVAL_CRITICAL

    if beyond(0.0) <= 0:
        return 1.0
    return float(np.exp(brentq(beyond, 0.0, np.log(fitted), xtol=1e-6)))
