"""The rows the models learn from, after SPLBoost's suspects."""

import warnings

import numpy as np

from labelclean.utils._labels import labels_text

__all__ = ["rows_kept_by_suspects"]


def rows_kept_by_suspects(suspect_estimator, codes: np.ndarray, classes):
    """SPLBoost's weights and zero rounds, and the rows the models learn from:
    those it gave weight, unless that leaves a class without rows (then every
    row, with a warning naming those classes by their labels in
    ``classes``)."""
    n_samples = codes.shape[0]
    if suspect_estimator is None:
        return None, None, np.arange(n_samples)
    spl_weight = np.asarray(suspect_estimator.spl_weights_, float)
    zero_round = getattr(suspect_estimator, "zero_weight_round_", None)
    kept = np.flatnonzero(spl_weight > 0)
    rows = np.bincount(codes, minlength=len(classes))
    emptied = np.flatnonzero(
        (np.bincount(codes[kept], minlength=len(classes)) == 0) & (rows > 0)
    )
    if emptied.size == 0:
        return spl_weight, zero_round, kept
    labels = np.asarray(classes, dtype=object)[emptied].tolist()
    named = labels_text(list(zip(labels, rows[emptied].tolist(), strict=True)), 8)
    warnings.warn(
        f"SPLBoost gave zero weight to every row of class(es) {named}; the "
        "models are fitted on all rows, the suspects' included.",
        UserWarning,
        stacklevel=4,  # the caller of LabelCleaner.fit (through _fit_context)
    )
    return spl_weight, zero_round, np.arange(n_samples)
