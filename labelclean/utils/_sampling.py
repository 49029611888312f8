"""Stratified row samples for choices made on part of a large training set."""

import numpy as np

__all__ = ["stratified_rows"]


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
