"""The rows the models learn from, after SPLBoost's suspects."""

import warnings

import numpy as np

__all__ = ["rows_kept_by_suspects"]


def rows_kept_by_suspects(suspect_estimator, codes: np.ndarray, n_classes: int):
    """SPLBoost's weights and zero rounds, and the rows the models learn from:
    those it gave weight, unless that leaves a class without rows (then every
    row, with a warning)."""
    n_samples = codes.shape[0]
    if suspect_estimator is None:
        return None, None, np.arange(n_samples)
    spl_weight = np.asarray(suspect_estimator.spl_weights_, float)
    zero_round = getattr(suspect_estimator, "zero_weight_round_", None)
    kept = np.flatnonzero(spl_weight > 0)
    if np.unique(codes[kept]).shape[0] == n_classes:
        return spl_weight, zero_round, kept
    warnings.warn(
        "SPLBoost gave zero weight to every row of a class; the final "
        "model is fitted on all rows.",
        UserWarning,
        stacklevel=4,  # the caller of LabelCleaner.fit (through _fit_context)
    )
    return spl_weight, zero_round, np.arange(n_samples)
