"""Where the fit's feature values lay, for comparing a new batch with them.

A pipeline applied to new rows reads their features as it learnt them. A
column that changed its unit, went missing or took new levels moves every
row's evidence, and the labels take the blame (``docs/drift.md``, *Features
that left the fit's range*). :func:`feature_profile` records, per feature
column of the training rows, what such a change is measured against: the
missing values, the range of a number or date, the levels of a category and
how many of them were seen once. :func:`count_outside` counts a batch's rows
against it; counts of several batches (or Dask partitions) add up.
"""

from typing import Any

import numpy as np
import pandas as pd

from labelclean.utils._column_kinds import (
    coerce_object_columns,
    fitted_kinds,
    number_text,
    whole_numbers,
)
from labelclean.utils._features import _as_string, _to_seconds

__all__ = ["count_outside", "feature_profile", "rows_far_outside"]


def feature_profile(raw: Any, encoder: Any) -> dict[str, dict[str, Any]]:
    """Per feature column, what the training rows held.

    Parameters
    ----------
    raw : DataFrame or ndarray
        The training features (array columns are named ``x0, x1, ...``).
    encoder : fitted encoder from :func:`make_feature_encoder`
        Says how each column was read (``'numeric'``, ``'temporal'`` or
        ``'categorical'``; an encoder of numeric arrays: all numeric).

    Returns
    -------
    profile : dict of str to dict
        Per column: ``kind``, ``rows``, ``missing``; numbers and dates add
        ``low`` and ``high`` (dates in seconds since 1970), categories
        ``levels`` (sorted text, an array) and ``singletons`` (levels seen
        once).
    """
    frame, kinds = _as_frame(raw), fitted_kinds(encoder)
    profile = {}
    for name in frame.columns:
        kind = kinds.get(str(name), "numeric")
        column = frame[name]
        entry: dict[str, Any] = {
            "kind": kind,
            "rows": len(column),
            "missing": int(column.isna().sum()),
        }
        if kind == "categorical":
            counts = pd.Series(_text(column.dropna())).value_counts()
            # an array of text, not a list: a model file loads a column of
            # many levels at once (a list of 200,000 took 2.9 s, 44 MB)
            entry["levels"] = np.array(sorted(counts.index.tolist()), dtype=str)
            entry["singletons"] = int((counts == 1).sum())
        else:
            values = _numbers(column, kind)
            values = values[~np.isnan(values)]
            entry["low"] = float(values.min()) if values.size else None
            entry["high"] = float(values.max()) if values.size else None
        profile[str(name)] = entry
    return profile


def count_outside(
    profile: dict[str, dict[str, Any]], batch: Any
) -> dict[str, list[int]]:
    """A batch's rows against :func:`feature_profile`, per profiled column
    present in it: ``[rows, missing, outside]``, where ``outside`` counts
    values under the fit's lowest or over its highest (numbers, dates) or of
    a level the fit never saw (categories). An array is read by position
    (``x0, x1, ...``), as the profile of an array fit names its columns."""
    batch = _as_frame(batch)
    counts = {}
    for name, entry in profile.items():
        if name not in batch.columns:
            continue
        column = batch[name]
        missing = int(column.isna().sum())
        if entry["kind"] == "categorical":
            if whole_numbers(column):  # codes a reader typed as numbers
                column = number_text(column)  # as the encoder reads them
            text = pd.Series(_text(column.dropna()), dtype=object)
            outside = int((~text.isin(entry["levels"])).sum())
        elif entry["low"] is None:  # no value at fit: nothing to lie outside
            outside = 0
        else:
            values = _numbers(column, entry["kind"])
            with np.errstate(invalid="ignore"):
                far = (values < entry["low"]) | (values > entry["high"])
            outside = int(far.sum())
        counts[name] = [len(column), missing, outside]
    return counts


def rows_far_outside(profile: dict[str, dict[str, Any]] | None, X: Any) -> np.ndarray:
    """Rows of ``X`` with a number farther outside the fit's range than the
    range is wide: under ``low - (high - low)`` or over ``high + (high - low)``.

    Nothing the fit learnt reaches such a row: its neighbours all lie at the
    edge and the models extrapolate (a value 1,000 times the fit's, a unit
    changed upstream). Dates are not read (later batches lie past the fit's
    last date by design), nor columns the fit held constant or never filled.
    An array ``X`` is read by position (``x0, x1, ...``); None (a model
    fitted before the profile was kept) marks no row.
    """
    far = np.zeros(len(X), dtype=bool)
    if not profile:
        return far
    frame = _as_frame(X)
    for name, entry in profile.items():
        if entry["kind"] != "numeric" or entry["low"] is None or name not in frame:
            continue
        width = entry["high"] - entry["low"]
        if width > 0:
            values = _numbers(frame[name], "numeric")
            with np.errstate(invalid="ignore"):
                far |= (values < entry["low"] - width) | (
                    values > entry["high"] + width
                )
    return far


def _as_frame(raw: Any) -> pd.DataFrame:
    if isinstance(raw, pd.DataFrame):
        return coerce_object_columns(raw)
    values = np.asarray(raw, dtype=np.float64)
    return pd.DataFrame(values, columns=[f"x{j}" for j in range(values.shape[1])])


def _numbers(column: pd.Series, kind: str) -> np.ndarray:
    """The column as floats (dates in seconds), missing as NaN; values that
    are no number (an ``object`` column) count as missing."""
    if kind == "temporal" and (
        pd.api.types.is_datetime64_any_dtype(column.dtype)
        or pd.api.types.is_timedelta64_dtype(column.dtype)
    ):
        return _to_seconds(column.to_frame())[:, 0]
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)


def _text(values: pd.Series) -> list[str]:
    """Category values as text, as the encoder compares them."""
    return _as_string(values.to_frame())[:, 0].tolist()
