"""Validation of labels and feature frames, with errors that say how to fix them."""

from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets

from labelclean.exceptions import DataValidationError

__all__ = [
    "check_classifier_labels",
    "check_labels",
    "check_no_infinity",
    "check_unique_columns",
    "is_dataframe",
    "non_numeric_columns",
    "refuse_continuous_labels",
]


def is_dataframe(X: object) -> bool:
    """Return True when ``X`` is a pandas DataFrame."""
    return isinstance(X, pd.DataFrame)


def check_unique_columns(X: object) -> None:
    """Refuse a DataFrame that names two columns alike.

    Raises
    ------
    DataValidationError
        If ``X`` is a DataFrame with duplicate column names (a feature would
        be ambiguous; scikit-learn's own check raises a foreign error).
    """
    if is_dataframe(X) and X.columns.has_duplicates:  # type: ignore[attr-defined]
        columns = X.columns  # type: ignore[attr-defined]
        dupes = sorted({str(c) for c in columns[columns.duplicated()]})
        raise DataValidationError(
            f"X has duplicate column names {dupes}; rename them so each feature "
            "is named once."
        )


def check_no_infinity(X: np.ndarray, feature_names: Sequence[object] | None = None):
    """Refuse ±inf in a numeric feature matrix (missing values are accepted).

    Raises
    ------
    DataValidationError
        Naming the first column with an infinite value.
    """
    bad = np.isinf(X)
    if bad.any():
        column = int(np.flatnonzero(bad.any(axis=0))[0])
        name = feature_names[column] if feature_names is not None else f"x{column}"
        raise DataValidationError(
            f"X contains infinity: feature column {str(name)!r} has "
            f"{int(bad[:, column].sum())} infinite value(s); replace them with a "
            "finite value or leave them missing (NaN), or drop the column."
        )


def non_numeric_columns(X: pd.DataFrame) -> list[str]:
    """Names of the columns of ``X`` that are not plain (non-bool) numbers."""
    out = []
    for name, dtype in X.dtypes.items():
        if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(
            dtype
        ):
            out.append(name)
    return out


def check_labels(
    y: object, *, n_samples: int | None = None, min_classes: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Validate observed labels and encode them as integer codes.

    Labels may be of any hashable type (integers, floats, strings, booleans,
    pandas categoricals); the classes are the sorted distinct values.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Observed labels.
    n_samples : int, default=None
        Expected number of labels, when known.
    min_classes : int, default=2
        Fewest distinct classes accepted.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        Sorted distinct labels.
    codes : ndarray of shape (n_samples,), dtype=intp
        Position of each label in ``classes``.

    Raises
    ------
    DataValidationError
        If the labels are not one-dimensional, contain missing values, have the
        wrong length, mix incomparable types, or hold fewer than ``min_classes``
        classes.
    """
    if y is None:
        raise DataValidationError(
            "This estimator requires y to be passed, but the target y is None; "
            "pass the observed labels."
        )
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise DataValidationError(
                f"y must be one-dimensional, got a DataFrame with {y.shape[1]} "
                "columns; pass the single label column, e.g. df['label']."
            )
        y = y.iloc[:, 0]
    if isinstance(y, pd.Series | pd.Categorical | pd.Index):
        missing = np.asarray(pd.isna(y))
        values = np.asarray(y, dtype=object) if missing.any() else np.asarray(y)
    else:
        values = np.asarray(y)
        if values.ndim == 2 and values.shape[1] == 1:
            values = values.ravel()
        missing = np.asarray(pd.isna(values)) if values.ndim == 1 else None
    if values.ndim != 1:
        raise DataValidationError(
            f"y must be one-dimensional, got an array of shape {values.shape}; "
            "pass one label per row."
        )
    if n_samples is not None and values.shape[0] != n_samples:
        raise DataValidationError(
            f"y has {values.shape[0]} labels but X has {n_samples} rows; "
            "pass one label per row of X."
        )
    if missing is not None and missing.any():
        where = np.flatnonzero(missing)[:5].tolist()
        raise DataValidationError(
            f"y contains {int(missing.sum())} missing label(s) (NaN/None), first at "
            f"row positions {where}; drop or fill those rows before fitting "
            "(labelclean run does: it discards them with reason missing_label)."
        )
    if values.dtype == object:
        nested = [
            v
            for v in values[:1000]
            if isinstance(v, list | tuple | dict | set | np.ndarray)
        ]
        if nested:
            raise DataValidationError(
                f"y holds {type(nested[0]).__name__} values (e.g. {nested[0]!r}), "
                "not one class per row; give each row a single label (a string or "
                "a number)."
            )
    try:
        classes, codes = np.unique(values, return_inverse=True)
    except (TypeError, ValueError) as exc:
        kinds = sorted({type(v).__name__ for v in values[:1000]})
        raise DataValidationError(
            f"y mixes label types that cannot be compared ({', '.join(kinds)}); "
            "convert the labels to one type, e.g. y.astype(str)."
        ) from exc
    if classes.shape[0] < min_classes:
        raise DataValidationError(
            f"y has only {classes.shape[0]} class ({_preview(classes)}) but at least "
            f"{min_classes} classes are needed to judge whether a label is wrong; "
            "check the label column."
        )
    return classes, codes.astype(np.intp, copy=False)


def _preview(values: Sequence[object], limit: int = 5) -> str:
    shown = ", ".join(repr(v) for v in np.asarray(values)[:limit].tolist())
    return shown + (", ..." if len(values) > limit else "")


def check_classifier_labels(y: object, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`check_labels` for a classifier: classification targets, at least
    two classes (scikit-learn's message and error type for one class)."""
    check_classification_targets(y)
    classes, codes = check_labels(y, n_samples=n_samples, min_classes=1)
    if classes.shape[0] < 2:
        raise ValueError(
            f"y has only 1 class ({classes[0]!r}); a classifier needs at "
            "least 2 classes. Check the label column."
        )
    return classes, codes


def refuse_continuous_labels(classes: np.ndarray, n_samples: int) -> None:
    """Refuse a regression target: non-integer float labels, most of them
    distinct. A few float classes (0.5 / 1.5) are labels like any other."""
    if classes.dtype.kind != "f" or np.all(np.mod(classes, 1) == 0):
        return
    if classes.shape[0] > max(2, n_samples // 2):
        raise DataValidationError(
            f"the labels look continuous ({classes.shape[0]} distinct float values "
            f"in {n_samples} rows): labelclean cleans class labels; bin a numeric "
            "target into classes first."
        )
