"""Seeded draws: integer seeds for sub-estimators, and stratified row samples.

One sampler (:func:`stratified_positions`), for the rows wherever they are:
streamed in batches from a parquet source (fitting on part of an input too
large to fit on whole), or in memory (:func:`stratified_rows`: choices made on
part of a large training set, with at least ``min_per_class`` rows of each
class so that every later fold sees it).
"""

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

__all__ = ["draw_seed", "stratified_positions", "stratified_rows"]


def draw_seed(random_state: Any) -> int:
    """An int32 seed drawn from ``random_state`` (int, RandomState or None)."""
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def stratified_rows(
    codes: np.ndarray, n_max: int | None, *, min_per_class: int, seed: int
) -> np.ndarray | None:
    """Sorted positions of a stratified, seeded sample of about ``n_max`` rows.

    The sample of :func:`stratified_positions` drawn from rows in memory, with
    at least ``min_per_class`` rows of each class (all its rows if it has
    fewer), so that every fold of a later split sees it. Returns None when
    there are at most ``n_max`` rows (use them all).

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
    if n_max is None or codes.shape[0] <= n_max:
        return None
    return stratified_positions(
        lambda: [codes],
        n_rows=n_max,
        random_state=seed,
        min_per_class=min_per_class,
    )


def _quotas(counts: np.ndarray, n_rows: int, min_per_class: int) -> np.ndarray:
    """Rows per class: its share of ``n_rows`` (largest remainders), at least
    ``min_per_class``, at most the class's rows."""
    share = counts.astype(float) * n_rows / counts.sum()
    quota = np.maximum(np.floor(share).astype(np.int64), min_per_class)
    left = n_rows - int(quota.sum())
    if left > 0:
        order = np.argsort(-(share - np.floor(share)), kind="stable")
        quota[order[:left]] += 1
    return np.minimum(quota, counts)


def stratified_positions(
    label_batches: Callable[[], Iterable[Any]],
    *,
    n_rows: int,
    random_state: int,
    min_per_class: int = 1,
) -> np.ndarray:
    """Positions of a stratified, seeded sample of ``n_rows`` streamed rows.

    Two passes over the labels only: the first counts each class and sets
    its quota (:func:`_quotas`); the second gives every row a uniform random
    key from one seeded generator, in input order, and keeps per class the
    rows with the smallest keys (a bounded reservoir). Memory holds the
    sample's positions and one batch, not the input.

    Parameters
    ----------
    label_batches : callable
        Called twice; each call returns an iterable over the labels in input
        order, one array or Series per batch.
    n_rows : int
        Sample size.
    random_state : int
        Seed of the draw.
    min_per_class : int, default=1
        Fewest rows kept of each class.

    Returns
    -------
    positions : ndarray of int64, sorted
    """
    counts: dict[Any, int] = {}
    for labels in label_batches():
        for value, k in pd.Series(labels).value_counts(sort=False).items():
            counts[value] = counts.get(value, 0) + int(k)
    classes = sorted(counts, key=str)
    quota = _quotas(
        np.array([counts[c] for c in classes], dtype=np.int64), n_rows, min_per_class
    )
    rng = np.random.default_rng(random_state)
    keys = {c: np.empty(0) for c in classes}
    kept = {c: np.empty(0, dtype=np.int64) for c in classes}
    offset = 0
    for batch in label_batches():
        labels = np.asarray(batch)
        draw = rng.random(labels.shape[0])
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
        offset += labels.shape[0]
    return np.sort(np.concatenate([kept[c] for c in classes]))
