"""Rows with the same encoded features, and the labels of neighbours counted
fairly among them.

A nearest-neighbour search must rank rows at the same distance somehow;
:class:`~labelclean.utils._neighbors.ExactPool` ranks them by position. For
rows with identical features that choice is not harmless: in a block of 40
identical rows, 20 of each label, every row's ten nearest others are the
first ten of the block, so the label listed first gets all the votes and the
other none, and shuffling the rows reverses the verdict (``docs/decisions.md``,
*Rows with the same features*). Public tables are full of such blocks (coded
survey answers, rows whose only differing columns were missing).

:func:`duplicate_blocks` finds the blocks once, and :func:`label_counts`
counts a neighbourhood's labels with each
block's places shared out: the places a block of identical rows takes in a
row's neighbourhood (how many of its rows the search kept does not depend on
the order, as they are all at one distance) each count the labels of the
whole block, among the rows allowed as neighbours and the row itself left
out, as shares. This is the expected count under a tie-break drawn at random
within the block, so it does not depend on the order of the rows. Ties at one
distance between rows that differ are still ranked by position.
"""

import numpy as np
import pandas as pd

__all__ = ["duplicate_blocks", "label_counts"]

#: Most (place, class) cells the shared counts hold in memory at once.
_CHUNK_CELLS = 1 << 22


def duplicate_blocks(X: np.ndarray) -> np.ndarray:
    """Blocks of two or more rows with identical encoded features.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The encoded training rows (finite floats).

    Returns
    -------
    block : ndarray of shape (n_samples,), dtype=int64
        Each row's block, numbered from 0 in the order of the rows' bytes;
        -1 for a row like no other.
    """
    # +0.0 turns -0.0 into 0.0, which lies at distance 0 from it.
    X = np.ascontiguousarray(X, dtype=np.float64) + 0.0
    block = np.full(X.shape[0], -1, dtype=np.int64)
    if X.shape[0] < 2:
        return block
    # A 64-bit hash per row finds the candidates fast; exact equality of the
    # bytes then decides (a collision of hashes joins nothing).
    hashes = pd.util.hash_pandas_object(pd.DataFrame(X), index=False).to_numpy()
    _, inverse, counts = np.unique(hashes, return_inverse=True, return_counts=True)
    candidates = np.flatnonzero(counts[inverse] > 1)
    if candidates.size == 0:
        return block
    rows = X[candidates].view(np.dtype((np.void, X.dtype.itemsize * X.shape[1])))
    _, same, sizes = np.unique(rows.ravel(), return_inverse=True, return_counts=True)
    in_block = sizes[same] > 1
    _, numbered = np.unique(same[in_block], return_inverse=True)
    block[candidates[in_block]] = numbered
    return block


def label_counts(
    block: np.ndarray,
    neighbors: np.ndarray,
    codes: np.ndarray,
    n_classes: int,
    mask: np.ndarray,
    *,
    self_rows: np.ndarray | None = None,
    take: np.ndarray | None = None,
) -> np.ndarray:
    """Per row, its neighbours' labels counted, blocks shared out.

    Parameters
    ----------
    block : ndarray of shape (n_samples,)
        The training rows' blocks (:func:`duplicate_blocks`).
    neighbors : ndarray of shape (n_rows, n_places)
        Training-row indices of each row's neighbours, all in ``mask``
        where ``take`` holds.
    codes : ndarray of int of shape (n_samples,)
        Label codes of the training rows.
    n_classes : int
    mask : ndarray of shape (n_samples,), dtype=bool
        Rows allowed as neighbours: a block's shares are counted among
        them.
    self_rows : ndarray of int of shape (n_rows,), default=None
        For training rows, their own index, left out of their block's
        shares; None for new rows.
    take : ndarray of shape (n_rows, n_places), dtype=bool, default=None
        Places to count; all when None.

    Returns
    -------
    counts : ndarray of shape (n_rows, n_classes), dtype=float64
        Each row's counts add up to its number of places taken; without
        blocks among the neighbours they are whole numbers.
    """
    n_rows, n_places = neighbors.shape
    counts = np.zeros((n_rows, n_classes))
    if n_rows == 0:
        return counts
    take = np.ones(neighbors.shape, dtype=bool) if take is None else take
    found = np.maximum(neighbors, 0)
    found_block = block[found]
    alone = take & (found_block < 0)
    at = (np.arange(n_rows)[:, None] * n_classes + codes[found])[alone]
    counts += np.bincount(at, minlength=n_rows * n_classes).reshape(n_rows, n_classes)
    shared = take & (found_block >= 0)
    if not shared.any():
        return counts
    members = mask & (block >= 0)
    n_blocks = int(block.max()) + 1
    totals = np.bincount(
        block[members] * n_classes + codes[members], minlength=n_blocks * n_classes
    ).reshape(n_blocks, n_classes)
    step = max(1, _CHUNK_CELLS // max(1, n_places * n_classes))
    for start in range(0, n_rows, step):
        part = slice(start, min(start + step, n_rows))
        rows, places = np.nonzero(shared[part])
        if rows.size == 0:
            continue
        which = found_block[part][rows, places]
        shares = totals[which].astype(np.float64)
        if self_rows is not None:
            own = self_rows[part][rows]
            inside = (block[own] == which) & mask[own]
            shares[np.flatnonzero(inside), codes[own[inside]]] -= 1.0
        # >= 1: the neighbour itself is in the block and in the mask
        shares /= np.maximum(shares.sum(axis=1, keepdims=True), 1.0)
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        counts[start + rows[starts]] += np.add.reduceat(shares, starts, axis=0)
    return counts
