"""Self-paced weights: how much each row counts given its loss and the age.

Self-paced learning gives row ``i`` the weight ``v_i`` minimising
``v * loss_i + f(v; lambda)`` for a regularizer ``f`` and an age (threshold)
``lambda``; rows whose loss reaches the threshold get ``v = 0``. The three
self-paced estimators share these closed forms:

* :func:`spl_weights` and :func:`latent_loss`: the regularizers of SPLBoost
  (splboost.md §II-C, Theorem 1), on the logarithm of the exponential loss
  (which overflows);
* :func:`mixture_weights`: the mixture (logarithmic) regularizer of SPBL
  (spbl.md eq. 7-8) and RoSR-L (rosr.md eq. 12 / 18), also SPLBoost's
  ``'mixture_log'``;
* :func:`share_threshold`: the threshold that selects a given share of a
  group's weight (SPBL's and RoSR-L's annealing).
"""

import numpy as np

__all__ = [
    "REGULARIZERS",
    "latent_loss",
    "mixture_weights",
    "share_threshold",
    "spl_weights",
]

#: SPLBoost's regularizers (:func:`spl_weights`).
REGULARIZERS = ("hard", "linear", "polynomial", "mixture", "mixture_log")

#: Relative margin that puts a threshold just above the loss of the last row
#: selected, so that this row is selected (``v > 0``).
THRESHOLD_MARGIN = 1e-6


def mixture_weights(losses, lam, zeta):
    """Mixture weights (spbl.md eq. 8, rosr.md eq. 12 / 18).

    1 up to ``zeta lam / (zeta + lam)``, 0 from ``lam`` on,
    ``zeta / loss - zeta / lam`` in between.

    Parameters
    ----------
    losses : ndarray
        Each row's loss (non-negative).
    lam, zeta : float or ndarray
        Threshold and mixture parameter, one value or one per row.

    Returns
    -------
    v : ndarray
        Weights in [0, 1], same shape as ``losses``.
    """
    with np.errstate(divide="ignore"):
        v = zeta / losses - zeta / lam
    v = np.where(losses <= zeta * lam / (zeta + lam), 1.0, v)
    v = np.where(losses >= lam, 0.0, v)
    return np.clip(v, 0.0, 1.0)


def share_threshold(losses, weights, share, *, double_ties=False):
    """Smallest threshold that selects ``share`` of the weight of a group.

    The rows are ranked by loss; the threshold is placed just above the loss
    of the row at which the cumulative (initial) weight first reaches
    ``share`` of the group's weight, so that this row and every row before it
    have ``loss < lambda`` (selected, ``v > 0``).

    Parameters
    ----------
    losses, weights : ndarray of shape (n_rows,)
        The group's losses and initial weights.
    share : float
        Share of the group's weight to select, in (0, 1].
    double_ties : bool, default=False
        When every selected row ties on the same loss, return twice that loss,
        so that the group keeps a real weight instead of one that rounds to
        zero (RoSR-L).

    Returns
    -------
    lam : float
    """
    order = np.argsort(losses, kind="stable")
    sorted_losses = losses[order]
    cum = np.cumsum(weights[order])
    m = int(np.searchsorted(cum, share * cum[-1] * (1.0 - 1e-12), side="left"))
    m = min(m, sorted_losses.shape[0] - 1)
    loss_m = float(sorted_losses[m])
    if double_ties and sorted_losses[0] * (1.0 + THRESHOLD_MARGIN) >= loss_m:
        return 2.0 * loss_m + np.finfo(float).tiny
    return loss_m * (1.0 + THRESHOLD_MARGIN) + np.finfo(float).tiny


def _cutoff(regularizer: str, age: float) -> float:
    """Loss at and above which ``v* = 0`` (and the latent loss is constant)."""
    return age * age if regularizer == "mixture" else age


def _zeta(zeta, age):
    return 0.5 * age if zeta is None else zeta


def spl_weights(log_loss, age, regularizer="hard", *, t=4.0, zeta=None):
    """Self-paced weights ``v*(age; loss)`` in [0, 1] from ``log(loss)``.

    Parameters
    ----------
    log_loss : ndarray
        Natural logarithm of each row's loss (exponential loss here).
    age : float
        The age parameter lambda (may be ``inf``: every weight is 1).
    regularizer : {"hard", "linear", "polynomial", "mixture", "mixture_log"}
        - "hard": ``v = 1`` if ``loss < age`` else 0.
        - "linear": ``v = 1 - loss / age`` below ``age``, else 0.
        - "polynomial": ``v = (1 - loss / age) ** (1 / (t - 1))`` below ``age``.
        - "mixture": the form of splboost §II-C (regularizer
          ``zeta**2 / (v + zeta / age)``): 1 up to ``(age zeta / (age + zeta))**2``,
          0 from ``age**2``, else ``zeta * (1 / sqrt(loss) - 1 / age)``.
        - "mixture_log": the form of SPBL eq. 7-8 (regularizer
          ``-zeta log(v + zeta / age)``): 1 up to ``zeta age / (zeta + age)``,
          0 from ``age``, else ``zeta / loss - zeta / age``.
    t : float, default=4.0
        Exponent of the polynomial regularizer (> 1).
    zeta : float, default=None
        Mixture parameter; None means ``age / 2``.

    Returns
    -------
    v : ndarray
        Weights in [0, 1], same shape as ``log_loss``.
    """
    log_loss = np.asarray(log_loss, dtype=np.float64)
    if not np.isfinite(age):
        return np.ones_like(log_loss)
    cutoff = _cutoff(regularizer, age)
    if regularizer == "hard":
        return (log_loss < np.log(cutoff)).astype(np.float64)
    # Losses at or beyond the cutoff all give 0; clipping avoids overflow.
    loss = np.exp(np.minimum(log_loss, np.log(cutoff)))
    if regularizer == "linear":
        v = 1.0 - loss / age
    elif regularizer == "polynomial":
        v = np.clip(1.0 - loss / age, 0.0, 1.0) ** (1.0 / (t - 1.0))
    elif regularizer == "mixture":
        z = _zeta(zeta, age)
        v = z * (1.0 / np.sqrt(loss) - 1.0 / age)
    elif regularizer == "mixture_log":
        return mixture_weights(loss, age, _zeta(zeta, age)) * (
            log_loss < np.log(cutoff)
        )
    else:  # pragma: no cover - validated by the estimator
        raise ValueError(f"unknown regularizer {regularizer!r}")
    v = np.clip(v, 0.0, 1.0)
    v[log_loss >= np.log(cutoff)] = 0.0
    return v


def latent_loss(log_loss, age, regularizer="hard", *, t=4.0, zeta=None):
    """Latent SPL loss ``F(loss) = integral_0^loss v*(age; l) dl`` (Theorem 1).

    Parameters are those of :func:`spl_weights`.

    Returns
    -------
    value : ndarray
        The latent loss of each row; constant from the cutoff on.
    """
    log_loss = np.asarray(log_loss, dtype=np.float64)
    if not np.isfinite(age):
        return np.exp(log_loss)
    cutoff = _cutoff(regularizer, age)
    loss = np.exp(np.minimum(log_loss, np.log(cutoff)))
    if regularizer == "hard":
        return loss
    if regularizer == "linear":
        return loss - loss**2 / (2.0 * age)
    if regularizer == "polynomial":
        p = t / (t - 1.0)
        # loss ≤ age up to rounding (exp of the clipped log): clip the base.
        return age / p * (1.0 - np.maximum(1.0 - loss / age, 0.0) ** p)
    z = _zeta(zeta, age)
    if regularizer == "mixture":
        a = (age * z / (age + z)) ** 2
        mid = a + 2.0 * z * (np.sqrt(loss) - np.sqrt(a)) - z * (loss - a) / age
    else:  # mixture_log
        a = z * age / (z + age)
        mid = a + z * np.log(np.maximum(loss, a) / a) - z * (loss - a) / age
    return np.where(loss <= a, loss, mid)
