"""Seeded draws: integer seeds for sub-estimators, and stratified row samples.

Two samplers, one per place the rows are:

* :func:`stratified_rows`: rows in memory (class codes), for choices made on
  part of a large training set; every class keeps at least
  ``min_per_class`` rows so every later fold sees it;
* :func:`stratified_positions`: rows streamed in batches (a parquet source),
  in two passes over the labels and memory bounded by the sample, for fitting
  on part of an input too large to fit on whole.
"""

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["draw_seed", "stratified_positions", "stratified_rows"]


def draw_seed(random_state: Any) -> int:
    """An int32 seed drawn from ``random_state`` (int, RandomState or None)."""
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def stratified_rows(
    codes: np.ndarray, n_max: int | None, *, min_per_class: int, seed: int
) -> np.ndarray | None:
    """Sorted positions of a stratified, seeded sample of at most ~``n_max`` rows.

    Each class keeps its share of ``n_max`` rows (rounded), and at least
    ``min_per_class`` of them (all its rows if it has fewer), so that every
    fold of a later split sees it. Returns None when there are at most
    ``n_max`` rows (use them all).

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Integer class codes.
    n_max : int or None
        Target sample size; None means no sampling.
    min_per_class : int
        Fewest rows kept of each class.
    seed : int
        Seed of the draw.

    Returns
    -------
    rows : ndarray of int or None
    """
    n_samples = codes.shape[0]
    if n_max is None or n_samples <= n_max:
        return None
    rng = np.random.RandomState(seed)
    order = np.argsort(codes, kind="stable")
    picked = []
    for rows in np.split(order, np.cumsum(np.bincount(codes))[:-1]):
        quota = max(min_per_class, round(rows.shape[0] * n_max / n_samples))
        picked.append(rng.permutation(rows)[: min(quota, rows.shape[0])])
    return np.sort(np.concatenate(picked))


def stratified_positions(
    label_batches: Callable[[], Iterable[Any]], *, n_rows: int, random_state: int
) -> np.ndarray:
    """Positions of a stratified, seeded sample of ``n_rows`` streamed rows.

    Two passes over the label column only: the first counts each class, the
    quota of a class is its share of ``n_rows`` (largest remainders, at least
    one row per class); the second gives every row a uniform random key from
    one seeded generator, in input order, and keeps per class the rows with
    the smallest keys (a bounded reservoir). Memory holds the sample's
    positions and one batch, not the input.

    Parameters
    ----------
    label_batches : callable
        Called twice; each call returns an iterable over the label column
        in input order, one pandas Series per batch.
    n_rows : int
        Sample size.
    random_state : int
        Seed of the draw.

    Returns
    -------
    positions : ndarray of int64, sorted
    """
    counts: dict[Any, int] = {}
    for labels in label_batches():
        for value, k in labels.value_counts(sort=False).items():
            counts[value] = counts.get(value, 0) + int(k)
    total = sum(counts.values())
    classes = sorted(counts, key=str)
    share = np.array([counts[c] for c in classes], dtype=float) * n_rows / total
    quota = np.maximum(np.floor(share).astype(np.int64), 1)
    left = n_rows - int(quota.sum())
    if left > 0:
        order = np.argsort(-(share - np.floor(share)), kind="stable")
        quota[order[:left]] += 1
    quota = np.minimum(quota, [counts[c] for c in classes])
    rng = np.random.default_rng(random_state)
    keys = {c: np.empty(0) for c in classes}
    kept = {c: np.empty(0, dtype=np.int64) for c in classes}
    offset = 0
    for batch in label_batches():
        n = len(batch)
        draw = rng.random(n)
        labels = batch.to_numpy()
        for j, c in enumerate(classes):
            rows = np.flatnonzero(labels == c)
            if not rows.size:
                continue
            k = np.concatenate([keys[c], draw[rows]])
            p = np.concatenate([kept[c], rows + offset])
            if k.size > quota[j]:
                best = np.argpartition(k, quota[j] - 1)[: quota[j]]
                k, p = k[best], p[best]
            keys[c], kept[c] = k, p
        offset += n
    return np.sort(np.concatenate([kept[c] for c in classes]))
