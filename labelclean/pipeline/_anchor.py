"""The surest rows' labels: how many disagree with the evidence.

Step 2 of the calibration (``docs/decisions.md``, "Calibrated decisions")
caps confident learning's noise count by the disagreement of the labels of
the rows the evidence is surest of, the anchor points of Liu and Tao (TPAMI
2016) and Patrini et al. (CVPR 2017): where the classes are pure there, a
label that disagrees with the most probable class is wrong.
"""

import numpy as np
from scipy.optimize import brentq, minimize_scalar
from scipy.special import betaincinv

__all__ = ["anchor_disagreement", "disagreement_floor"]

#: Shares of the rows, most confident first, whose labels measure the noise
#: where the classes are pure (the smallest group has ``_ANCHOR_MIN_ROWS``).
_ANCHOR_SHARES = (0.02, 0.05, 0.1, 0.2)
_ANCHOR_MIN_ROWS = 20
#: One-sided level of the anchor cap's upper confidence limit (Bonferroni
#: over the shares).
_ANCHOR_ALPHA = 0.05
#: χ² quantile of the floor's one-sided 95 % lower limit (1 degree of freedom).
_FLOOR_CHI2 = 2.706


def anchor_disagreement(
    P: np.ndarray, codes: np.ndarray, blind: np.ndarray | None = None
) -> dict[str, float]:
    """Share of labels that disagree with the evidence among its surest rows.

    For each share in :data:`_ANCHOR_SHARES` of the rows, ranked by their
    highest class probability, the share of those rows whose label is not
    the most probable class; rows tied in that probability across a group's
    edge are shared out by their labels (:func:`_disagreements_in_first`).

    ``blind``: evidence blind to each row's own label
    (:func:`~labelclean.pipeline._noise_estimate.label_blind_evidence`), read
    the same way. ``P``'s surest rows hold too few wrong labels; ``blind``'s
    are less sure, so they hold more of the classes' overlap and their
    limits are wider. Only the upper limit,
    the most noise the data admit, takes the second reading: it is raised to
    ``blind``'s share where that share exceeds it (the wrong labels ``P``
    hid were then measured, not merely admitted by a wider limit); the
    share, its lower limit and the excess, which must not count overlap as
    noise, are ``P``'s (docs/decisions.md, *The surest rows are chosen blind
    to their own labels*).

    Returns
    -------
    anchor : dict
        ``share``: the smallest such share; ``lower_limit`` and
        ``upper_limit``: the smallest one-sided Clopper–Pearson limits
        (:data:`_ANCHOR_ALPHA` each, Bonferroni over the shares);
        ``beyond_evidence``: the smallest excess of the share over the
        disagreement the evidence itself expects there (the mean of one minus
        the highest probability), at least 0. A share the evidence expects is
        overlap; only the excess points to wrong labels.
    """
    if blind is not None:
        out = anchor_disagreement(P, codes)
        measured = anchor_disagreement(blind, codes)["share"]
        return {**out, "upper_limit": max(out["upper_limit"], measured)}
    n = codes.shape[0]
    top = P.max(axis=1)
    order = np.argsort(-top, kind="stable")
    top = top[order]
    disagree = np.r_[0.0, np.cumsum(codes[order] != np.argmax(P[order], axis=1))]
    lower, point, upper, excess = 1.0, 1.0, 1.0, 1.0
    alpha = _ANCHOR_ALPHA / len(_ANCHOR_SHARES)
    for share in _ANCHOR_SHARES:
        m = max(_ANCHOR_MIN_ROWS, int(np.ceil(share * n)))
        if m > n:
            break
        k = _disagreements_in_first(disagree, top, m)
        point = min(point, k / m)
        excess = min(excess, k / m - float(np.mean(1.0 - top[:m])))
        lower = min(lower, float(betaincinv(k, m - k + 1, alpha)) if k else 0.0)
        if k < m:
            upper = min(upper, float(betaincinv(k + 1, m - k, 1.0 - alpha)))
    return {
        "lower_limit": min(lower, point),
        "share": point,
        "upper_limit": upper,
        "beyond_evidence": max(0.0, min(excess, point)),
    }


def _disagreements_in_first(cumulative, top, m: int) -> float:
    """Disagreeing labels among the ``m`` surest rows, rows tied in ``top``
    (sorted, descending) shared out: where the ``m``-th row's tie runs past
    ``m``, the places left take the tie's share of disagreement (the
    expected count under a random tie-break), so that the reading does not
    depend on the order of the rows (identical rows of a block that mixes
    labels are tied; docs/decisions.md, *The surest rows' ties are shared
    out*). ``cumulative[i]``: disagreements among the first ``i`` rows."""
    start = int(np.searchsorted(-top, -top[m - 1], side="left"))
    end = int(np.searchsorted(-top, -top[m - 1], side="right"))
    if end == m:
        return float(cumulative[m])
    tied = cumulative[end] - cumulative[start]
    return float(cumulative[start] + (m - start) * tied / (end - start))


def disagreement_floor(P: np.ndarray, codes: np.ndarray) -> dict[str, float]:
    """The share of labels that disagree with the evidence even where it is
    certain, read from every row rather than from the surest few.

    Each row's label disagrees with the evidence's most probable class with
    probability ``ρ + (1 − ρ) min(1, c e)``, ``e`` one minus the row's
    highest probability: a disagreement in proportion to the evidence's own
    doubt (overlap, read by an evidence whose scale ``c`` is fitted, since
    evidence learnt from noisy labels is not calibrated) on top of a floor
    ``ρ`` that does not fall with the doubt (labels wrong where the classes
    are pure). ``ρ`` and ``c`` are fitted by maximum likelihood; the
    floor's one-sided 95 % lower limit is where the profile likelihood
    ratio against the best fit reaches the χ² quantile (2.71; Venzon and
    Moolgavkar 1988). Where the classes overlap everywhere the doubt
    explains the disagreement and the floor is 0; the smallest group of the
    surest rows can hold no wrong label by chance, or through an evidence
    that leans to the rows' own labels, where a floor read from every row
    still shows (docs/decisions.md, *The floor of the disagreement*).

    Returns
    -------
    floor : dict
        ``floor``: the fitted ρ; ``floor_lower_limit``: its lower limit
        (0 where ρ = 0 is not rejected at one-sided 5 %).
    """
    doubt = 1.0 - P.max(axis=1)
    disagree = codes != np.argmax(P, axis=1)
    if not disagree.any() or disagree.all():
        return {
            "floor": float(disagree.mean()),
            "floor_lower_limit": float(disagree.mean()),
        }

    def loss(rho: float) -> tuple[float, float]:
        """Negative log-likelihood at floor ``rho``, the scale profiled out."""

        def at(log_c: float) -> float:
            p = rho + (1.0 - rho) * np.minimum(1.0, np.exp(log_c) * doubt)
            p = np.clip(p, 1e-12, 1.0 - 1e-12)
            return -float(np.sum(np.where(disagree, np.log(p), np.log1p(-p))))

        best = minimize_scalar(at, bounds=(-8.0, 8.0), method="bounded")
        return float(best.fun), float(best.x)

    fit = minimize_scalar(lambda r: loss(r)[0], bounds=(0.0, 0.999), method="bounded",
                          options={"xatol": 1e-5})  # fmt: skip
    rho, least = float(fit.x), min(float(fit.fun), loss(0.0)[0])
    if loss(0.0)[0] - least <= _FLOOR_CHI2 / 2.0:
        return {"floor": rho, "floor_lower_limit": 0.0}
    lower = brentq(
        lambda r: loss(r)[0] - least - _FLOOR_CHI2 / 2.0, 0.0, rho, xtol=1e-5
    )
    return {"floor": rho, "floor_lower_limit": float(lower)}
