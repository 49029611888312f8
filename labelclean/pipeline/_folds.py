"""The folds of the out-of-fold evidence, optionally repeated over fresh splits.

Every row's out-of-fold probability comes from a model fitted without it, on
the other folds. With one split, which rows share the row's fold (and so are
missing from its model) is the split's chance. ``LabelCleaner(cv_repeats=R)``
splits ``R`` times with fresh seeds and averages each row's out-of-fold
probabilities over the splits: every probability stays out of fold (each
split's model was fitted without the row) and most of the split's chance is
averaged away, as repeated cross-validation does for an error estimate. The
default is one split: on public tables the decisions averaged over three
splits moved with the seed no less than a single split's, at 1.4 to 1.8
times the fit time (docs/decisions.md, *Out-of-fold evidence averaged over
repeated splits*).
"""

import warnings

import numpy as np

from labelclean.utils._sampling import fold_count, stratified_folds
from labelclean.utils._validation import is_dataframe

__all__ = [
    "average_over_folds",
    "cross_fitted_proba",
    "folds_per_repeat",
    "proba_in_classes",
    "repeated_folds",
]


def repeated_folds(codes: np.ndarray, cv: int, repeats: int, seed: int):
    """``repeats`` stratified splits of the rows (:func:`stratified_folds`
    into :func:`fold_count` folds), one after the other in one list of
    (train, test) pairs; None when :func:`fold_count` is.

    Split ``r`` is seeded with ``seed + r``, so that one repeat gives the
    split of a single ``StratifiedKFold`` seeded with ``seed``.
    """
    n_folds = fold_count(codes, cv)
    if n_folds is None:
        return None
    splits = (stratified_folds(codes, n_folds, seed + r) for r in range(repeats))
    return [pair for split in splits for pair in split]


def folds_per_repeat(folds, repeats: int) -> int:
    """How many folds one split of :func:`repeated_folds` has."""
    return len(folds) // max(int(repeats), 1)


def average_over_folds(tests, parts, shape) -> np.ndarray:
    """Each row's mean over the folds that held it out: ``parts[i]`` holds
    the probabilities of the rows ``tests[i]`` (None: that fold could not
    score them). Rows no fold scored are NaN. The sums run in the order of
    the folds, so the result does not depend on the order the folds were
    fitted in."""
    total = np.zeros(shape)
    count = np.zeros(shape[0])
    for test, part in zip(tests, parts, strict=True):
        if part is not None:
            total[test] += part
            count[test] += 1
    out = np.full(shape, np.nan)
    seen = count > 0
    out[seen] = total[seen] / count[seen, None]
    return out


def proba_in_classes(est, raw, classes) -> np.ndarray:
    """``est``'s class probabilities of ``raw`` in the columns of ``classes``
    (0 for a class ``est`` did not see)."""
    proba = est.predict_proba(raw)
    out = np.zeros((proba.shape[0], classes.shape[0]))
    out[:, np.searchsorted(classes, est.classes_)] = proba
    return out


def cross_fitted_proba(make, fitted, raw, y, folds, classes) -> np.ndarray:
    """Per-class probabilities of each row from stages fitted without it:
    ``make()`` builds a fresh stage, fitted on each fold's other rows; each
    row's mean over the repeated splits' folds that held it out. Without
    folds, ``fitted``'s own probabilities, as for the rows no fold held
    out (those of a class with a single row, :func:`repeated_folds`)."""
    if folds is None:
        return proba_in_classes(fitted, raw, classes)
    labels, parts = np.asarray(y), []
    for train, test in folds:
        est = make()
        part = raw.iloc[train] if is_dataframe(raw) else raw[train]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            est.fit(part, labels[train])
        rest = raw.iloc[test] if is_dataframe(raw) else raw[test]
        parts.append(proba_in_classes(est, rest, classes))
    shape = (len(labels), classes.shape[0])
    out = average_over_folds([test for _, test in folds], parts, shape)
    unscored = np.isnan(out).any(axis=1)
    if unscored.any():
        rows = raw.iloc[unscored] if is_dataframe(raw) else raw[unscored]
        out[unscored] = proba_in_classes(fitted, rows, classes)
    return out
