"""The folds of the out-of-fold evidence, repeated over fresh splits.

Every row's out-of-fold probability comes from a model fitted without it, on
the other folds. With one split, which rows share the row's fold (and so are
missing from its model) is the split's chance, and on a table of a few
hundred rows the probabilities move with it: the surest rows, whose labels
read the noise, and the gates at their margins then follow ``random_state``
(docs/decisions.md, *A gate at its margin moves with the seed*). Repeating
the split with fresh seeds and averaging each row's out-of-fold
probabilities over the repeats keeps every probability out of fold (each
repeat's model was fitted without the row) and averages most of that chance
away, as repeated cross-validation does for an error estimate
(docs/decisions.md, *Out-of-fold evidence averaged over repeated splits*).
"""

from numbers import Integral

import numpy as np
from sklearn.model_selection import StratifiedKFold

__all__ = [
    "AUTO_CV_REPEATS",
    "REPEATED_FOLDS_MAX_SAMPLES",
    "average_over_folds",
    "folds_per_repeat",
    "repeated_folds",
    "resolve_cv_repeats",
]

#: Repeats of ``cv_repeats='auto'`` on tables of at most
#: :data:`REPEATED_FOLDS_MAX_SAMPLES` rows.
AUTO_CV_REPEATS = 3

#: Above this many rows ``cv_repeats='auto'`` splits once: each repeat costs
#: another round of out-of-fold fits, and with this many rows every fold's
#: model is fitted on tens of thousands of rows, so which rows it misses
#: moves its probabilities least.
REPEATED_FOLDS_MAX_SAMPLES = 50_000


def resolve_cv_repeats(cv_repeats, n_samples: int) -> int:
    """The number of splits: ``cv_repeats`` itself, or for ``'auto'``
    :data:`AUTO_CV_REPEATS` up to :data:`REPEATED_FOLDS_MAX_SAMPLES` rows and
    one above."""
    if isinstance(cv_repeats, Integral):
        return int(cv_repeats)
    return AUTO_CV_REPEATS if n_samples <= REPEATED_FOLDS_MAX_SAMPLES else 1


def repeated_folds(codes: np.ndarray, cv: int, repeats: int, seed: int):
    """``repeats`` stratified ``k``-fold splits of the rows, one after the
    other in one list of (train, test) pairs (``k``: ``cv``, or fewer when a
    class has fewer rows); None when a class has a single row.

    Split ``r`` is seeded with ``seed + r``, so that one repeat gives the
    split of a single ``StratifiedKFold`` seeded with ``seed``.
    """
    counts = np.bincount(codes)
    n_folds = int(min(cv, counts[counts > 0].min()))
    if n_folds < 2:
        return None
    rows = np.zeros((codes.shape[0], 1))
    splits = (
        StratifiedKFold(n_folds, shuffle=True, random_state=(seed + r) % 2**32).split(
            rows, codes
        )
        for r in range(repeats)
    )
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
