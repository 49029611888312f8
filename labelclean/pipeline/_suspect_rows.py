"""The rows the models learn from, after SPLBoost's suspects."""

import warnings

import numpy as np

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
    n_classes = len(classes)
    emptied = np.flatnonzero(
        (np.bincount(codes[kept], minlength=n_classes) == 0)
        & (np.bincount(codes, minlength=n_classes) > 0)
    )
    if emptied.size == 0:
        return spl_weight, zero_round, kept
    rows = np.bincount(codes, minlength=n_classes)
    named = ", ".join(
        f"{label!r} ({rows[c]:,} row{'s' if rows[c] != 1 else ''})"
        for c, label in zip(
            emptied[:8], np.asarray(classes, dtype=object)[emptied[:8]], strict=True
        )
    ) + (f" and {emptied.size - 8} more" if emptied.size > 8 else "")
    warnings.warn(
        f"SPLBoost gave zero weight to every row of class(es) {named}; the "
        "models are fitted on all rows, the suspects' included.",
        UserWarning,
        stacklevel=4,  # the caller of LabelCleaner.fit (through _fit_context)
    )
    return spl_weight, zero_round, np.arange(n_samples)
