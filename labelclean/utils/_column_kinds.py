"""What kind of feature each column is, and what cannot be used.

:func:`check_feature_frame` sorts a table's columns into numbers, dates and
durations (temporal) and categories, and refuses what has no distance
(nested values, complex numbers, mixed objects, infinite values);
:func:`coerce_object_columns` first types the object columns pandas makes of
parquet's exact numbers, calendar dates and times of day. At ``apply``
:func:`check_fitted_frame` holds a batch's columns to the kinds read at fit
(:func:`fitted_kinds`), after :func:`as_fitted_codes` has read codes that a
batch's reader typed as numbers as the text they were fitted as. The encoder
that turns the kinds into a distance space is
:func:`~labelclean.utils._features.make_feature_encoder`.
"""

import datetime
import decimal
import re
from typing import Any

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer

from labelclean.exceptions import DataValidationError

__all__ = [
    "EXACT_IN_DOUBLE",
    "MAX_FEATURE_MAGNITUDE",
    "ZERO_PADDED",
    "as_fitted_codes",
    "check_feature_frame",
    "check_fitted_frame",
    "coerce_object_columns",
    "dtype_kind",
    "fitted_kinds",
    "number_text",
    "whole_numbers",
]

#: Largest feature magnitude accepted: squares of larger values overflow
#: float64 when the columns are standardised.
MAX_FEATURE_MAGNITUDE = 1e150


def dtype_kind(dtype: Any) -> str | None:
    """How a column of ``dtype`` is used: ``'numeric'``, ``'temporal'``,
    ``'categorical'`` or ``'unsupported'``; None for ``object``, whose values
    decide (:func:`_column_kind`)."""
    if pd.api.types.is_bool_dtype(dtype):
        return "categorical"
    if pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(
        dtype
    ):
        return "temporal"
    if pd.api.types.is_complex_dtype(dtype):
        return "unsupported"
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if pd.api.types.is_object_dtype(dtype):
        return None
    if pd.api.types.is_string_dtype(dtype):
        return "categorical"
    return "unsupported"


def _column_kind(series: pd.Series) -> str:
    kind = dtype_kind(series.dtype)
    if kind is not None:
        return kind
    # Object columns hold anything; accept scalar labels only (not lists,
    # dicts or arbitrary objects, which have no meaningful distance).
    sample = series.dropna().head(1000)
    scalar = (str, bool, np.bool_, int, np.integer)
    if all(isinstance(v, scalar) for v in sample):
        return "categorical"
    return "unsupported"


def _all_of(values: pd.Series, kind: type) -> bool:
    """Whether every value of ``values`` (non-missing, at least one) is of
    type ``kind`` exactly (a text column is told apart by its first value)."""
    present = values.dropna()
    if not len(present) or type(present.iloc[0]) is not kind:
        return False
    return bool(present.map(lambda v: type(v) is kind).all())


def coerce_object_columns(X: pd.DataFrame) -> pd.DataFrame:
    """``X`` with object columns of exact numbers, dates and times typed.

    Parquet files written by databases and ETL tools hold ``decimal128``,
    ``date32`` and ``time64`` columns; pandas reads them as object columns of
    :class:`decimal.Decimal`, :class:`datetime.date` and :class:`datetime.time`
    values. Such a column (every value of one of these types, or missing)
    becomes ``float64``, ``datetime64`` or ``timedelta64`` (a time of day as
    the time since midnight, on its clock: a time zone it carries is not
    read), so that it is used as a number, a date or a duration like any
    other. ``X`` itself is not changed; the same frame is returned when no
    column needs it.
    """
    changed = {}
    for name in X.columns:
        col = X[name]
        if not pd.api.types.is_object_dtype(col.dtype):
            continue
        if _all_of(col, decimal.Decimal):
            changed[name] = pd.to_numeric(col).astype(np.float64)
        elif _all_of(col, datetime.date):  # dates only: no time zone to mix
            changed[name] = pd.to_datetime(col)
        elif _all_of(col, datetime.time):
            changed[name] = _since_midnight(col)
    if not changed:
        return X
    X = X.copy(deep=False)
    for name, values in changed.items():
        X[name] = values
    return X


def _since_midnight(values: pd.Series) -> pd.Series:
    """Times of day as ``timedelta64`` since midnight, on their clock (pandas
    reads ``HH:MM:SS.ffffff``); missing stays NaT."""
    clock = values.map(lambda t: str(t.replace(tzinfo=None)), na_action="ignore")
    return pd.to_timedelta(clock)


def check_feature_frame(X: pd.DataFrame) -> dict[str, list[str]]:
    """Sort the columns of ``X`` by kind and reject what cannot be used.

    Parameters
    ----------
    X : DataFrame of shape (n_samples, n_features)
        Feature table.

    Returns
    -------
    kinds : dict
        Column names under the keys ``'numeric'``, ``'temporal'`` and
        ``'categorical'``.

    Raises
    ------
    DataValidationError
        For duplicate column names, columns of unsupported type (nested lists,
        dicts, complex numbers, mixed objects), and missing or infinite values
        in numeric columns (missing values are accepted: the encoder imputes
        them).
    """
    if X.columns.has_duplicates:
        dupes = sorted({str(c) for c in X.columns[X.columns.duplicated()]})
        raise DataValidationError(
            f"X has duplicate column names {dupes}; rename them so each feature "
            "is named once."
        )
    kinds: dict[str, list[str]] = {"numeric": [], "temporal": [], "categorical": []}
    for name in X.columns:
        col = X[name]
        kind = _column_kind(col)
        if kind == "unsupported":
            example = col.dropna().head(1).tolist()
            raise DataValidationError(
                f"feature column {name!r} has type {col.dtype} with values like "
                f"{example!r}, which labelclean cannot compare; drop the column or "
                "convert it to numbers or strings."
            )
        if kind == "numeric":
            values = col.to_numpy(dtype=np.float64, na_value=np.nan)
            bad = np.isinf(values)
            if bad.any():
                raise DataValidationError(
                    f"feature column {name!r} has {int(bad.sum())} infinite "
                    "value(s); replace them with a finite value or leave them "
                    "missing (NaN), or drop the column."
                )
            huge = np.abs(np.nan_to_num(values)) >= MAX_FEATURE_MAGNITUDE
            if huge.any():
                raise DataValidationError(
                    f"feature column {name!r} has {int(huge.sum())} value(s) of "
                    f"magnitude {MAX_FEATURE_MAGNITUDE:.0e} or more (e.g. "
                    f"{values[huge][0]:g}), too large to standardise (their squares "
                    "overflow); if they stand for missing values, make them NaN, "
                    "else rescale the column."
                )
        kinds[kind].append(name)
    return kinds


def fitted_kinds(encoder: Any) -> dict[str, str]:
    """Feature column -> the kind
    :func:`~labelclean.utils._features.make_feature_encoder` read at fit
    (empty for an encoder of numeric arrays)."""
    if not isinstance(encoder, ColumnTransformer):
        return {}
    return {
        str(column): kind
        for kind, _, columns in encoder.transformers_
        if kind in ("numeric", "temporal", "categorical")
        for column in columns
    }


def check_fitted_frame(encoder: Any, X: pd.DataFrame) -> None:
    """:func:`check_feature_frame`, and every column used as at fit.

    A column of another dtype of the same kind (integers that became floats
    when a value went missing, ``float32``, strings read as a category, a
    timestamp of another unit) is encoded as before. A column of another kind
    is refused: strings where numbers were, or numbers where categories or
    timestamps were, would be encoded as unknown levels or as numbers of
    another scale, without an error (``DataValidationError``); numbers where
    codes were fitted are read by :func:`as_fitted_codes` first. A column with
    no value at all has no kind and passes: it is missing in every row; so
    does an ``object`` column of numbers (:func:`_has_kind`).
    """
    now = check_feature_frame(X)
    fitted = fitted_kinds(encoder)
    words = {
        "numeric": "numbers",
        "temporal": "timestamps",
        "categorical": "categories",
    }
    changed = [
        f"{name!r}: {words[fitted[str(name)]]} at fit, {words[kind]} now "
        f"({X[name].dtype})"
        for kind, names in now.items()
        for name in names
        if fitted.get(str(name), kind) != kind and _has_kind(X[name])
    ]
    if changed:
        raise DataValidationError(
            "feature column(s) of another kind than at fit ("
            + "; ".join(changed)
            + "); a column must stay a number, a category or a timestamp as it "
            "was at fit; cast them back to the training types."
        )


def _has_kind(series: pd.Series) -> bool:
    """Whether ``series`` says what kind it is: not when it has no value, nor
    when it is an ``object`` column without text (numbers or booleans there
    are read as numbers where numbers were fitted, and as their text where
    categories were)."""
    values = series.dropna()
    if not len(values):
        return False
    if pd.api.types.is_object_dtype(series.dtype):
        return bool(values.map(lambda v: isinstance(v, str)).any())
    return True


#: The largest integer a float64 holds exactly, with every smaller one: a
#: float column of codes under it has one text per value (and the folder rule
#: of :mod:`labelclean.io._schemas` reads the same line).
EXACT_IN_DOUBLE = 2**53

#: A number written with leading zeros (``"007"``, ``"-01"``): a reader that
#: types such codes as numbers drops the zeros.
ZERO_PADDED = r"^[+-]?0[0-9]"


def as_fitted_codes(encoder: Any, X: pd.DataFrame) -> pd.DataFrame:
    """``X`` with each column of numbers that was fitted as text read as the
    digits of its values.

    A CSV reader types a day's codes as numbers when every one of them is
    digits (``104``, where the fitted days held ``104`` and ``207a`` as
    text); a number is then the code written with its digits, and is
    encoded as that level. The values must be whole numbers that have one
    such text: integers, or floats whose present values are whole and under
    2**53 (a column of integers with a gap is read as floats). A column whose
    fitted codes have leading zeros (``'007'``) is refused
    (``DataValidationError``): the reader dropped the zeros, so the same code
    would read as another level. Other columns, and columns of other kinds,
    are left to :func:`check_fitted_frame`. ``X`` itself is not changed.
    """
    levels = _fitted_levels(encoder)
    out = X
    for name in X.columns:
        column = X[name]
        fitted = levels.get(str(name), ())
        if not (any(map(_digits, fitted)) and whole_numbers(column)):
            continue  # no code was digits at fit: numbers now are no codes
        padded = [v for v in fitted if re.match(ZERO_PADDED, v)]
        if padded:
            raise DataValidationError(
                f"column {name!r} holds numbers where it held codes at fit, "
                f"some with leading zeros such as {padded[0]!r}: a reader "
                "that typed the codes as numbers dropped their zeros, and the "
                "same code would read as another; read the column as text."
            )
        if out is X:
            out = X.copy(deep=False)
        out[name] = number_text(column)
    return out


def number_text(column: pd.Series) -> pd.Series:
    """The digits of a column of whole numbers (:func:`whole_numbers`), as
    a code is written (``104``, not ``104.0``); missing values stay missing
    (None)."""
    present = column.notna()
    values = column[present]
    if not pd.api.types.is_integer_dtype(values.dtype):
        values = values.astype(np.int64)  # whole, under 2**53: exact
    text = pd.Series(None, index=column.index, dtype=object)
    text[present] = values.astype(object).map(str)
    return text


def _fitted_levels(encoder: Any) -> dict[str, list[str]]:
    """Categorical feature column -> the levels its one-hot encoder was
    fitted on (the text of each value)."""
    if not isinstance(encoder, ColumnTransformer):
        return {}
    for kind, pipe, columns in encoder.transformers_:
        if kind == "categorical":
            onehot = pipe[-1]
            return {
                str(c): [str(v) for v in levels]
                for c, levels in zip(columns, onehot.categories_, strict=True)
            }
    return {}


def whole_numbers(column: pd.Series) -> bool:
    """Whether ``column`` is typed as numbers (not booleans) whose present
    values are whole numbers a float64 holds exactly."""
    dtype = column.dtype
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        return False
    if pd.api.types.is_integer_dtype(dtype):
        return True
    values = column.dropna().to_numpy(dtype=np.float64)
    return bool(
        np.all(np.isfinite(values))
        and np.all(values == np.round(values))
        and np.all(np.abs(values) < EXACT_IN_DOUBLE)
    )


def _digits(level: str) -> bool:
    """Whether a code is written in the digits 0-9 alone."""
    return bool(level) and level.isascii() and level.isdigit()
