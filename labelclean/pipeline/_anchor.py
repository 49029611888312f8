"""The surest rows' labels: how many disagree with the evidence.

Step 2 of the calibration (``docs/decisions.md``, "Calibrated decisions")
caps confident learning's noise count by the disagreement of the labels of
the rows the evidence is surest of, the anchor points of Liu and Tao (TPAMI
2016) and Patrini et al. (CVPR 2017): where the classes are pure there, a
label that disagrees with the most probable class is wrong.
"""

import numpy as np
from scipy.special import betaincinv

__all__ = ["anchor_disagreement", "class_disagreement"]

#: Shares of the rows, most confident first, whose labels measure the noise
#: where the classes are pure (the smallest group has ``_ANCHOR_MIN_ROWS``).
_ANCHOR_SHARES = (0.02, 0.05, 0.1, 0.2)
_ANCHOR_MIN_ROWS = 20
#: One-sided level of the anchor cap's upper confidence limit (Bonferroni
#: over the shares).
_ANCHOR_ALPHA = 0.05
#: A share of disagreeing labels that, once the surest rows' lower limit is
#: above it, makes them show no noise: wrong labels that leave most of each
#: class's labels right cannot make most of the surest rows' labels disagree
#: (docs/decisions.md, *Most of the surest rows disagreeing*).
_MOST = 0.5


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
    to their own labels*). ``blind``'s excess is returned beside them
    (``blind_beyond_evidence``): the noise correction of κ reads the two
    (:func:`~labelclean.pipeline._predictability.corrected_agreement`).

    Returns
    -------
    anchor : dict
        ``share``: the smallest such share; ``lower_limit`` and
        ``upper_limit``: the smallest one-sided Clopper–Pearson limits
        (:data:`_ANCHOR_ALPHA` each, Bonferroni over the shares);
        ``beyond_evidence``: the smallest excess of the share over the
        disagreement the evidence itself expects there (the mean of one minus
        the highest probability), at least 0. A share the evidence expects is
        overlap; only the excess points to wrong labels. It is 0 where even
        the lower limit is above one half: most of the surest rows' labels
        then surely disagree, which wrong labels cannot do while most of each
        class's labels are right (the premise of every estimate here), so the
        evidence is wrong where it is surest, as out-of-fold evidence is for
        identical rows of two labels, each seeing only the other.
        ``evidence_wrong_where_surest``: whether that is so; confident
        learning's count then measures the evidence's errors as much as the
        labels', and the data admit that no label is wrong (the noise
        interval reaches 0: :func:`~labelclean.pipeline._calibration.calibrate`).
        ``blind_beyond_evidence``: ``blind``'s excess (with ``blind`` only).
        ``blind_by_class``: ``blind`` read class by class
        (:func:`class_disagreement`, with ``blind`` only); the upper limit
        is raised to it too.
    """
    if blind is not None:
        out = anchor_disagreement(P, codes)
        second = anchor_disagreement(blind, codes)
        by_class = class_disagreement(blind, codes)
        return {
            **out,
            "upper_limit": max(out["upper_limit"], second["share"], by_class),
            "blind_beyond_evidence": second["beyond_evidence"],
            "blind_by_class": by_class,
        }
    top = P.max(axis=1)
    order = np.argsort(-top, kind="stable")
    top = top[order]
    disagree = np.r_[0.0, np.cumsum(codes[order] != np.argmax(P[order], axis=1))]
    lower, point, upper, excess = 1.0, 1.0, 1.0, 1.0
    alpha = _ANCHOR_ALPHA / len(_ANCHOR_SHARES)
    for m, k in _nested_groups(disagree, top):
        point = min(point, k / m)
        excess = min(excess, k / m - float(np.mean(1.0 - top[:m])))
        lower = min(lower, float(betaincinv(k, m - k + 1, alpha)) if k else 0.0)
        if k < m:
            upper = min(upper, float(betaincinv(k + 1, m - k, 1.0 - alpha)))
    wrong_where_surest = min(lower, point) > _MOST
    if wrong_where_surest:  # no noise shown
        excess = 0.0
    return {
        "evidence_wrong_where_surest": bool(wrong_where_surest),
        "lower_limit": min(lower, point),
        "share": point,
        "upper_limit": upper,
        "beyond_evidence": max(0.0, min(excess, point)),
    }


def _nested_groups(cumulative, top):
    """``(m, disagreements)`` for each group of :data:`_ANCHOR_SHARES` of the
    rows (at least :data:`_ANCHOR_MIN_ROWS`, none beyond the rows there are);
    ``top`` sorted descending, ``cumulative`` as :func:`_disagreements_in_first`
    reads it."""
    n = top.shape[0]
    for share in _ANCHOR_SHARES:
        m = max(_ANCHOR_MIN_ROWS, int(np.ceil(share * n)))
        if m > n:
            return
        yield m, _disagreements_in_first(cumulative, top, m)


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


def class_disagreement(P: np.ndarray, codes: np.ndarray) -> float:
    """The surest rows read class by class: the share of wrong labels they
    show, as the anchor points of each class would.

    The pooled reading ranks every row by its highest probability, so its
    surest rows are the easiest class's; where the wrong labels flow one
    way (positives recorded as negatives, one class read as another), that
    class is clean and its rows vouch for the others. Here each class's
    rows (those whose most probable class it is, at least
    :data:`_ANCHOR_MIN_ROWS`) are ranked alone, the smallest share of
    labels naming another class over the same nested groups is taken, and
    the classes' shares are weighted by their rows: the share of wrong
    labels the classes' own surest rows show, a measurement and not a
    limit (docs/decisions.md, *Wrong labels that flow one way: each class's
    surest rows*).
    """
    n = codes.shape[0]
    top, best = P.max(axis=1), P.argmax(axis=1)
    total = 0.0
    for k in range(P.shape[1]):
        rows = np.flatnonzero(best == k)
        if rows.size < _ANCHOR_MIN_ROWS:
            continue
        order = rows[np.argsort(-top[rows], kind="stable")]
        disagree = np.r_[0.0, np.cumsum(codes[order] != k)]
        groups = _nested_groups(disagree, top[order])
        total += rows.size / n * min((wrong / m for m, wrong in groups), default=1.0)
    return float(total)
