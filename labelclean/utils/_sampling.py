"""Seeded draws: integer seeds for sub-estimators, and stratified row samples.

One sampler (:func:`stratified_positions`), for the rows wherever they are:
streamed in batches from a parquet source (fitting on part of an input too
large to fit on whole), or in memory (:func:`stratified_rows`: choices made on
part of a large training set, with at least ``min_per_class`` rows of each
class so that every later fold sees it). And the stratified folds every
cross-validation of labelclean splits rows into (:func:`fold_count`,
:func:`stratified_folds`: a class too small for the folds is trained on in
every fold and held out by none), for the pipeline's out-of-fold evidence
and comparisons and for SPLBoost's choice of its age alike.
"""

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state

__all__ = [
    "draw_seed",
    "fold_count",
    "stratified_folds",
    "stratified_positions",
    "stratified_rows",
]


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


def fold_count(codes: np.ndarray, cv: int) -> int | None:
    """How many folds the rows of ``codes`` are split into: ``cv`` where two
    classes or more have ``cv`` rows or more, else the rows of the smallest
    class of two rows or more (at most ``cv``); None when fewer than two rows
    are of classes of two rows or more (:func:`stratified_folds` says where
    the rows of the smaller classes go)."""
    counts = np.bincount(codes)
    several = counts[counts > 1]
    if several.sum() < 2:
        return None
    return cv if (counts >= cv).sum() >= 2 else int(min(cv, several.min()))


def stratified_folds(codes: np.ndarray, n_folds: int, seed: int) -> list:
    """One stratified split of the rows into ``n_folds`` (train, test) pairs
    (:func:`fold_count`), seeded with ``seed``.

    The rows of a class with fewer than ``n_folds`` rows (a single row
    whatever ``n_folds``; two to four at five folds, where two classes fill
    them) are in no fold's test part and in every fold's training part: a
    model fitted without a class, or on all but one or two of its rows,
    could only call their labels impossible. They are the rows no fold
    scores, and every other row is split exactly as without them. (Once a
    class of one row made every row's evidence in-sample, and one of two to
    four rows cut the folds to its rows and had its rows read as all but
    impossible: on the tic-tac-toe endgames with 20 % of the labels flipped,
    one row relabelled to a class of its own took the flag F1 from 0.73 to
    0.11, three rows to 0.44; docs/decisions.md, *A stray class of a few
    rows* and *A class of two to four rows trained on in every fold*.)
    """
    counts = np.bincount(codes)
    held_out = counts[codes] >= n_folds
    rows, always = np.flatnonzero(held_out), np.flatnonzero(~held_out)
    split = StratifiedKFold(n_folds, shuffle=True, random_state=seed % 2**32).split(
        np.zeros((rows.size, 1)), codes[rows]
    )
    if always.size == 0:  # rows is every row: the split's own indices
        return list(split)
    return [(np.sort(np.concatenate([rows[train], always])), rows[test])
            for train, test in split]  # fmt: skip
