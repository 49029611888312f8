"""Seeded label noise for tests, benchmarks and experiments.

:func:`flip_labels` corrupts a chosen share of labels either uniformly (every
row equally likely, the new label drawn uniformly from the other classes) or
class-conditionally (a flip rate per class, or a full transition matrix), and
returns the mask of the rows it changed, so that detection quality can be
measured against the truth.
"""

from collections.abc import Mapping
from numbers import Real

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from labelclean.utils._sklearn import Interval, StrOptions, validate_params
from labelclean.utils._validation import check_labels

__all__ = ["flip_labels"]


@validate_params(
    {
        "y": ["array-like"],
        "rate": [Interval(Real, 0.0, 1.0, closed="both"), dict, "array-like"],
        "kind": [StrOptions({"uniform", "class_conditional"})],
        "exact": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def flip_labels(
    y: ArrayLike,
    rate: float | Mapping[object, float] | ArrayLike,
    *,
    kind: str = "uniform",
    exact: bool = True,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Flip a share of labels at random.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Clean labels, of any type.
    rate : float, dict or array-like
        How much noise to add.

        - float: share of rows flipped. With ``kind='uniform'`` every row is
          equally likely; with ``kind='class_conditional'`` each class loses
          the same share.
        - dict ``{class: share}``: per-class flip rates (class-conditional).
        - array of shape (n_classes, n_classes): a row-stochastic transition
          matrix ``T[i, j] = P(noisy = classes[j] | clean = classes[i])``,
          classes in sorted order (class-conditional).
    kind : {'uniform', 'class_conditional'}, default='uniform'
        - 'uniform': rows are flipped regardless of class, the new label
          drawn uniformly among the other classes. The classic symmetric noise
          of the papers.
        - 'class_conditional': flips depend on the clean class (asymmetric
          noise), as given by ``rate``.
    exact : bool, default=True
        With a float or dict rate, flip exactly ``round(rate * n)`` rows (per
        class for class-conditional noise) rather than each row independently
        with probability ``rate``. Ignored for a transition matrix.
    random_state : int, RandomState instance or None, default=None
        Seed for reproducible noise.

    Returns
    -------
    y_noisy : ndarray or Series of shape (n_samples,)
        Labels after flipping, same dtype as the input labels; a Series with
        ``y``'s index and name (and categorical dtype) when ``y`` is one.
    flipped : ndarray or Series of shape (n_samples,), dtype=bool
        True where the label was changed (a Series on ``y``'s index when
        ``y`` is one).

    Examples
    --------
    >>> from labelclean.noise import flip_labels
    >>> y_noisy, flipped = flip_labels([0, 0, 1, 1, 2, 2, 0, 1, 2, 0], 0.2,
    ...                                random_state=0)
    >>> int(flipped.sum())
    2
    """
    rng = check_random_state(random_state)
    classes, codes = check_labels(y, min_classes=2)
    n_samples, n_classes = codes.shape[0], classes.shape[0]
    new_codes = codes.copy()

    if isinstance(rate, float | int) and kind == "uniform":
        chosen = _choose(np.arange(n_samples), float(rate), exact, rng)
        shift = rng.randint(1, n_classes, size=chosen.shape[0])
        new_codes[chosen] = (codes[chosen] + shift) % n_classes
    else:
        matrix = _transition_matrix(rate, classes)
        for k in range(n_classes):
            members = np.flatnonzero(codes == k)
            off = matrix[k].copy()
            off[k] = 0.0
            share = float(off.sum())
            if share == 0.0 or members.size == 0:
                continue
            if exact and not _is_matrix(rate):
                chosen = _choose(members, share, True, rng)
            else:
                chosen = members[rng.random_sample(members.size) < share]
            new_codes[chosen] = rng.choice(n_classes, size=chosen.size, p=off / share)
    flipped = new_codes != codes
    noisy = classes[new_codes]
    if isinstance(y, pd.Series):  # the caller's index, name and dtype
        dtype = y.dtype if isinstance(y.dtype, pd.CategoricalDtype) else None
        return (
            pd.Series(noisy, index=y.index, name=y.name, dtype=dtype),
            pd.Series(flipped, index=y.index, name="flipped"),
        )
    return noisy, flipped


def _is_matrix(rate: object) -> bool:
    return not isinstance(rate, float | int | Mapping)


def _choose(
    candidates: np.ndarray, rate: float, exact: bool, rng: np.random.RandomState
) -> np.ndarray:
    if exact:
        n_flip = round(rate * candidates.shape[0])
        return np.sort(rng.permutation(candidates)[:n_flip])
    return candidates[rng.random_sample(candidates.shape[0]) < rate]


def _transition_matrix(rate: object, classes: np.ndarray) -> np.ndarray:
    n_classes = classes.shape[0]
    if isinstance(rate, float | int):
        rates = np.full(n_classes, float(rate))
    elif isinstance(rate, Mapping):
        unknown = [c for c in rate if c not in set(classes.tolist())]
        if unknown:
            raise ValueError(
                f"rate names classes {unknown!r} that are not in y "
                f"(classes: {classes.tolist()!r}); use the labels of y as keys."
            )
        rates = np.array([float(rate.get(c, 0.0)) for c in classes.tolist()])
        if np.any((rates < 0) | (rates > 1)):
            raise ValueError(f"per-class rates must lie in [0, 1], got {rate!r}.")
    else:
        matrix = np.asarray(rate, dtype=float)
        if (
            matrix.shape != (n_classes, n_classes)
            or np.any(matrix < 0)
            or not np.allclose(matrix.sum(axis=1), 1.0)
        ):
            raise ValueError(
                f"a transition matrix must have shape ({n_classes}, {n_classes}), "
                "non-negative entries and rows summing to 1; got "
                f"{np.array2string(matrix, precision=3)}."
            )
        return matrix
    matrix = np.empty((n_classes, n_classes))
    for k in range(n_classes):
        matrix[k] = rates[k] / max(n_classes - 1, 1)
        matrix[k, k] = 1.0 - rates[k]
    return matrix
