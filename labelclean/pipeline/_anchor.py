"""The surest rows' labels: how many disagree with the evidence.

Step 2 of the calibration (``docs/decisions.md``, "Calibrated decisions")
caps confident learning's noise count by the disagreement of the labels of
the rows the evidence is surest of, the anchor points of Liu and Tao (TPAMI
2016) and Patrini et al. (CVPR 2017): where the classes are pure there, a
label that disagrees with the most probable class is wrong.
"""

import numpy as np
from scipy.special import betaincinv
from scipy.stats import fisher_exact

__all__ = [
    "anchor_disagreement",
    "class_disagreement",
    "flags_against_surest_rows",
    "pair_cells",
    "withheld_cells",
]

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
        is raised to it too. ``no_wrong_label_seen`` (with ``blind`` only):
        no reading shows a wrong label, the pooled share and every class's
        own (each class read, :data:`_ANCHOR_MIN_ROWS` rows or more) both
        0; the predictable reading then flags nothing (docs/decisions.md,
        *No reading of the surest rows shows a wrong label*).
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
            "no_wrong_label_seen": bool(
                out["share"] == 0 and by_class == 0 and _every_class_read(blind)
            ),
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
    reads it. Fewer rows than :data:`_ANCHOR_MIN_ROWS` are read as one group
    of them all (with no group at all, the reading would be the empty
    minimum's 1: every label disagreeing, on a table of a dozen rows)."""
    n = top.shape[0]
    if 0 < n < _ANCHOR_MIN_ROWS:
        yield n, _disagreements_in_first(cumulative, top, n)
        return
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
    best = P.argmax(axis=1)
    total = 0.0
    for k in range(P.shape[1]):
        order = _surest_of(P, best, k)
        if order is None:
            continue
        disagree = np.r_[0.0, np.cumsum(codes[order] != k)]
        groups = _nested_groups(disagree, P[order, k])
        total += order.size / n * min((wrong / m for m, wrong in groups), default=1.0)
    return float(total)


def _every_class_read(P: np.ndarray) -> bool:
    """Whether :func:`class_disagreement` reads every class of ``P`` (each
    the most probable class of at least :data:`_ANCHOR_MIN_ROWS` rows)."""
    counts = np.bincount(P.argmax(axis=1), minlength=P.shape[1])
    return bool((counts >= _ANCHOR_MIN_ROWS).all())


def _surest_of(P: np.ndarray, best: np.ndarray, k: int) -> np.ndarray | None:
    """The rows whose most probable class (``best``) is ``k``, surest first;
    None where there are fewer than :data:`_ANCHOR_MIN_ROWS`."""
    rows = np.flatnonzero(best == k)
    if rows.size < _ANCHOR_MIN_ROWS:
        return None
    return rows[np.argsort(-P[rows, k], kind="stable")]


def _surest_labels(P: np.ndarray, codes: np.ndarray, best: np.ndarray, k: int):
    """The labels' counts among class ``k``'s surest rows (the largest of
    :data:`_ANCHOR_SHARES` of the rows whose most probable class is ``k``, at
    least :data:`_ANCHOR_MIN_ROWS`) and their number; None for a class with
    fewer such rows."""
    order = _surest_of(P, best, k)
    if order is None:
        return None
    m = max(_ANCHOR_MIN_ROWS, int(np.ceil(_ANCHOR_SHARES[-1] * order.size)))
    return np.bincount(codes[order[:m]], minlength=P.shape[1]), m


def flags_against_surest_rows(
    P: np.ndarray, codes: np.ndarray, flagged: np.ndarray, alternative: np.ndarray
) -> dict:
    """The flags that move labels against the way the surest rows show them
    flowing.

    A flag on a row labelled *l* whose most probable other class is *j* says
    that a row of *j* carries the label *l*. Class *j*'s surest rows (label-
    blind evidence ``P``, read as :func:`class_disagreement` reads them,
    the largest group) then ought to show labels *l* at least as often as
    *l*'s surest rows show labels *j*. A direction is **against** them when
    *l*'s surest rows show labels *j* significantly more often (one-sided
    Fisher exact test at :data:`_ANCHOR_ALPHA`, Bonferroni over the K(K - 1)
    directions) and at least twice as often: the surest rows see the pair's
    labels flowing from *l*'s rows to *j*, the flags move them the other way.
    That is what one-way noise read backwards, or a rare class inside a
    large one's region, looks like (docs/decisions.md, *Flags against the
    surest rows*).

    Returns ``{"flagged", "against", "pairs", "withheld"}``: the flags, those in
    directions against the surest rows, and per such direction holding
    flags ``{"label", "as", "flags", "share_as_label", "share_label_as"}``
    (class codes; the share of labels *l* among *j*'s surest rows, and of
    labels *j* among *l*'s); ``withheld`` is None (``calibrate`` puts there
    the reading whose directions it left out of the joint).
    """
    n_classes = P.shape[1]
    best = P.argmax(axis=1)
    read = [_surest_labels(P, codes, best, k) for k in range(n_classes)]
    pairs = []
    moves, counts = np.unique(
        np.c_[codes[flagged], alternative[flagged]], axis=0, return_counts=True
    )
    for (label, other), count in zip(moves, counts, strict=True):
        if read[label] is None or read[other] is None:
            continue
        (at_other, m_other), (at_label, m_label) = read[other], read[label]
        along, back = at_other[label], at_label[other]
        if back / m_label < 2.0 * along / m_other:
            continue
        table = [[back, m_label - back], [along, m_other - along]]
        p = fisher_exact(table, alternative="greater")[1]
        if p < _ANCHOR_ALPHA / (n_classes * (n_classes - 1)):
            pairs.append({
                "label": int(label), "as": int(other), "flags": int(count),
                "share_as_label": float(along / m_other),
                "share_label_as": float(back / m_label),
            })  # fmt: skip
    against = sum(p["flags"] for p in pairs)
    return {
        "flagged": int(flagged.sum()),
        "against": against,
        "pairs": pairs,
        "withheld": None,
    }


def pair_cells(pairs, n_classes: int) -> np.ndarray:
    """The joint's cells ``[observed, true]`` of the directions ``pairs``
    (:func:`flags_against_surest_rows`' ``pairs``)."""
    cells = np.zeros((n_classes, n_classes), dtype=bool)
    for pair in pairs:
        cells[pair["label"], pair["as"]] = True
    return cells


def withheld_cells(reading, n_classes: int) -> np.ndarray | None:
    """The joint's cells a calibration left out: the pairs of
    ``reading['withheld']`` (a calibration's ``flags_against_surest_rows``);
    None where it left none out (or in a file written before it could)."""
    withheld = reading.get("withheld") if isinstance(reading, dict) else None
    return None if not withheld else pair_cells(withheld["pairs"], n_classes)
