"""Distinct points, and neighbours' labels counted fairly among ties.

A nearest-neighbour search must rank rows at the same distance somehow, and
any rank it gives them (by position, by a seeded draw) lets the order of the
rows decide between their labels. In a block of 40 identical rows, 20 of each
label, every row's ten nearest others are the first ten of the block, so the
label listed first got all the votes and shuffling the rows reversed the
verdict (``docs/decisions.md``, *Rows with the same features*); the same holds,
less visibly, for distinct rows at one distance from a third, common where
every feature is a category or a small integer.

So the search runs over *distinct points* (:func:`distinct_points`: rows with
the same encoded features are one point, which holds their labels as counts),
and a neighbourhood of k rows is read by :func:`tier_counts` in *tiers*: the
points at one distance form a tier; tiers nearer than the k-th row count in
full, and the tier that holds the k-th row shares the places left among all
its rows, by their labels. That is the expected count under a tie-break drawn
at random, and it depends on the rows, not on their order.
"""

import numpy as np
import pandas as pd

from labelclean.utils._compiled import compiled

__all__ = [
    "TIE_TOLERANCE",
    "distinct_points",
    "ranked_candidates",
    "tier_counts",
]

#: Width of a tie, T: squared distances from a row q within
#: ``T * d + T * sqrt(d) * |q| + (T * |q|)**2`` of a tier's first distance d
#: are one distance. The candidates come from a float32 screen, and float32
#: coordinates (rounded by up to e = 6e-8 of their size) move a squared
#: distance by up to about ``4 * e * sqrt(d) * |q| + 4 * (e * |q|)**2``; T,
#: some 16 e, is wider than that: rows the screen cannot order must not be
#: ordered later by float64 digits it never looked at, such as rows whose
#: encoded features differ below float32's resolution (a heavy-tailed
#: column's tiny values after standardising, whose last bits follow the
#: order in which the scaler summed the rows).
TIE_TOLERANCE = 1e-6


def distinct_points(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows with identical encoded features as one point.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Encoded rows (finite floats).

    Returns
    -------
    point_of : ndarray of shape (n_samples,), dtype=intp
        Each row's point, numbered in the order of first appearance (so that
        without repeated rows, point i is row i).
    first : ndarray of shape (n_points,), dtype=intp
        Each point's first row.
    """
    # +0.0 turns -0.0 into 0.0, which lies at distance 0 from it.
    X = np.ascontiguousarray(X, dtype=np.float64) + 0.0
    n_samples = X.shape[0]
    representative = np.arange(n_samples)
    if n_samples >= 2:
        # A 64-bit hash per row finds the candidates fast; equality of the
        # bytes then decides (a collision of hashes joins nothing).
        hashes = pd.util.hash_pandas_object(pd.DataFrame(X), index=False).to_numpy()
        _, inverse, counts = np.unique(hashes, return_inverse=True, return_counts=True)
        repeated = np.flatnonzero(counts[inverse] > 1)
        if repeated.size:
            rows = X[repeated].view(np.dtype((np.void, 8 * X.shape[1]))).ravel()
            _, first_of, same = np.unique(rows, return_index=True, return_inverse=True)
            representative[repeated] = repeated[first_of][same.ravel()]
    first, point_of = np.unique(representative, return_inverse=True)
    return point_of.astype(np.intp), first.astype(np.intp)


@compiled(nogil=True)
def _distances(Xq, Xp, cand):  # pragma: no cover - compiled
    """Squared float64 distances from each query row to its candidates
    (features summed in order; +inf where a candidate is -1)."""
    n, m = cand.shape
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            c = cand[i, j]
            if c < 0:
                out[i, j] = np.inf
                continue
            s = 0.0
            for f in range(Xq.shape[1]):
                t = Xq[i, f] - Xp[c, f]
                s += t * t
            out[i, j] = s
    return out


def ranked_candidates(
    Xq: np.ndarray, points: np.ndarray, cand: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidates ordered by float64 distance (then by point), their
    distances (entries -1 last), and each row's norm (for
    :func:`tier_counts`)."""
    cand = np.ascontiguousarray(cand, dtype=np.intp)
    dist = _distances(
        np.ascontiguousarray(Xq, dtype=np.float64),
        np.ascontiguousarray(points, dtype=np.float64),
        cand,
    )
    order = np.lexsort((cand, dist), axis=1) if cand.size else cand
    norm = np.sqrt((np.asarray(Xq, dtype=np.float64) ** 2).sum(axis=1))
    return (
        np.take_along_axis(cand, order, axis=1),
        np.take_along_axis(dist, order, axis=1),
        norm,
    )


@compiled(nogil=True)
def tier_counts(
    cand, dist, norm, point_counts, self_point, self_code, k, exhaustive
):  # pragma: no cover - compiled
    """Labels of each row's ``k`` nearest rows, the tier of the k-th shared.

    Parameters
    ----------
    cand, dist : ndarray of shape (n_rows, n_places)
        Candidate points ordered by distance, and their squared distances
        (-1 and +inf after the last).
    norm : ndarray of shape (n_rows,)
        Each row's norm (part of a tie's width, :data:`TIE_TOLERANCE`).
    point_counts : ndarray of shape (n_points, n_classes)
        Rows allowed as neighbours, per point and class.
    self_point, self_code : ndarray of shape (n_rows,)
        The row's own point and, when the row itself is counted in
        ``point_counts``, its class (left out); -1 otherwise.
    k : int
    exhaustive : bool
        Whether each list holds every point that has allowed rows; if not, a
        tier that reaches the end of a list may have members beyond it.

    Returns
    -------
    counts : ndarray of shape (n_rows, n_classes)
    taken : ndarray of shape (n_rows,)
        Places filled (k, or fewer when fewer rows are allowed).
    complete : ndarray of shape (n_rows,), dtype=bool
        False where the list ended before the k-th row's tier did: that row
        needs a longer list.
    """
    n, m = cand.shape
    n_classes = point_counts.shape[1]
    counts = np.zeros((n, n_classes))
    taken = np.zeros(n)
    complete = np.zeros(n, dtype=np.bool_)
    tier = np.empty(n_classes)
    for r in range(n):
        left = float(k)
        j = 0
        known = True
        while left > 0 and j < m and cand[r, j] >= 0:
            first = dist[r, j]
            width = first + np.sqrt(first) * norm[r] + TIE_TOLERANCE * norm[r] ** 2
            limit = first + TIE_TOLERANCE * width
            tier[:] = 0.0
            end = j
            while end < m and cand[r, end] >= 0 and dist[r, end] <= limit:
                p = cand[r, end]
                for c in range(n_classes):
                    tier[c] += point_counts[p, c]
                if p == self_point[r] and self_code[r] >= 0:
                    tier[self_code[r]] -= 1.0
                end += 1
            size = tier.sum()
            if size > 0:
                if not exhaustive and (end == m or cand[r, end] < 0):
                    known = False  # the tier may go on beyond the list
                    break
                # tier[c] * left / size, not tier[c] * (left / size): the
                # product of whole counts is exact, so a class holding the
                # whole tier gets exactly the places left and no count
                # passes k (25 * (7 / 25) is 7.000000000000001: a share of
                # 1.0000000000000002 failed the output check).
                for c in range(n_classes):
                    if left >= size:
                        counts[r, c] += tier[c]
                    else:
                        counts[r, c] += tier[c] * left / size
                left -= min(left, size)
            j = end
        if known and left > 0 and not exhaustive:
            known = False  # too few rows in the list
        taken[r] = k - left
        complete[r] = known
    return counts, taken, complete
