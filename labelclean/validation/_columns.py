"""Checks of the user's column choice: what becomes a feature, and the label.

Every non-label column becomes a feature unless the user says otherwise, so
columns that should not predict a label (row ids, free text, timestamps)
would silently enter the distance space. These checks name them:

* errors: an ``--exclude`` name that is not a column, the label or the id
  column named as a feature;
* warnings (the run goes on, the user sees one line and the report lists
  them): a feature that looks like a row id (a different value in every
  row), like free text (long strings, or mostly distinct values), a
  timestamp, dates written as text (read as categories, not as dates),
  or a categorical column whose rare levels will be pooled; a
  numeric label that looks like a measurement rather than classes; text
  labels that differ only in case, spacing or Unicode form, or that read as
  a missing value; categorical levels of a feature written several ways, or
  numbers stored as text because a gap was written as ``'?'``.

Each warning names the flag that drops the column.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from labelclean.utils._features import DEFAULT_MAX_CATEGORIES
from labelclean.utils._labels import (
    label_placeholders,
    label_variants,
    labels_text,
    variants_text,
)
from labelclean.utils._suggest import close_match
from labelclean.validation._results import CheckResult

__all__ = [
    "choice_checks",
    "feature_warnings",
    "label_text_checks",
    "label_warnings",
]

#: Rows needed before "a different value in every row" means "an id".
MIN_ROWS_FOR_ID = 20
#: Mean length from which string values read as free text.
TEXT_LENGTH = 30
#: Values whose mean length is measured (the first ones of the column).
TEXT_SAMPLE = 10_000
#: Distinct numeric labels from which a label looks like a measurement.
CONTINUOUS_LABEL_VALUES = 50


def _hint(name: Any, columns: Sequence[Any]) -> str:
    close = close_match(name, columns)
    return f" (did you mean {close!r}?)" if close else ""


def choice_checks(
    columns: Sequence[Any],
    label: Any,
    id_column: Any,
    features: Sequence[Any] | None,
    exclude: Sequence[Any],
) -> list[CheckResult]:
    """``excluded_columns_present`` and ``label_and_id_not_features``."""
    checks = []
    unknown = [c for c in exclude if c not in columns]
    checks.append(
        CheckResult(
            name="excluded_columns_present",
            description="every excluded column exists",
            success=not unknown,
            engine="schema",
            unexpected_count=len(unknown),
            examples=[str(c) for c in unknown],
            message=(
                "excluded column(s) "
                + ", ".join(f"{c!r}{_hint(c, columns)}" for c in unknown)
                + " not found; fix the --exclude names."
                if unknown
                else "every excluded column exists."
            ),
        )
    )
    named = [c for c in (label, id_column) if c is not None and c in (features or ())]
    checks.append(
        CheckResult(
            name="label_and_id_not_features",
            description="neither the label nor the id column is a feature",
            success=not named,
            engine="schema",
            unexpected_count=len(named),
            examples=[str(c) for c in named],
            message=(
                "; ".join(
                    f"{c!r} is the label column and cannot also be a feature (a "
                    "label that predicts itself finds no wrong labels)"
                    if c == label
                    else f"{c!r} is the id column and cannot also be a feature "
                    "(an id tells rows apart, not classes)"
                    for c in named
                )
                + "; remove it from the features."
                if named
                else "the label and id columns are not features."
            ),
        )
    )
    return checks


def _warning(name: str, column: Any, message: str, **details: Any) -> CheckResult:
    return CheckResult(
        name=name,
        description=f"feature column {column!r} is a usable feature",
        success=False,
        severity="warning",
        column=str(column),
        engine="pandas",
        message=message,
        details=details,
    )


def _is_text_like(series: pd.Series) -> bool:
    dtype = series.dtype
    return pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype)


#: A time of day after a date: ``09:30``, ``9:30:00``, ``09:30:00.25``, with
#: a zone or not.
_CLOCK = (
    r"(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?: ?[AaPp][Mm])?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?"
)
#: Dates as text: ISO 8601 (``2024-03-14``), year first with slashes
#: (``2024/03/14``) and day or month first (``3/14/2024``, ``14.03.2024``),
#: each with a time of day or not.
_DATE_TEXT = (
    rf"(?:\d{{4}}[-/]\d{{1,2}}[-/]\d{{1,2}}|\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{4}}){_CLOCK}"
)
#: Distinct values read to decide that a column holds dates as text.
DATE_SAMPLE = 1_000


def _dates_written_as_text(values: pd.Series) -> str | None:
    """A value of ``values`` (non-missing) if every one of their first
    :data:`DATE_SAMPLE` distinct values is written as a date
    (:data:`_DATE_TEXT`) that pandas reads as one; None otherwise."""
    distinct = pd.Series(values.unique()[:DATE_SAMPLE])
    if distinct.empty or not all(isinstance(v, str) for v in distinct):
        return None
    if not distinct.str.fullmatch(_DATE_TEXT).all():
        return None
    read = pd.to_datetime(distinct, format="mixed", errors="coerce", utc=True)
    return str(distinct.iloc[0]) if read.notna().all() else None


def feature_warnings(
    frame: pd.DataFrame,
    name: Any,
    *,
    labelled: bool = False,
    max_categories: int = DEFAULT_MAX_CATEGORIES,
) -> list[CheckResult]:
    """Warnings about one usable feature column (see the module docstring).

    ``labelled``: ``frame`` holds only the rows with a label (the rows the
    fit uses), and the level count says so. ``max_categories``: the most
    one-hot columns the run's encoding keeps per column (the confidence
    stage's, :func:`~labelclean.pipeline._kinds.max_categories_of`).
    """
    series = frame[name]
    n = len(series)
    drop = f"drop it with --exclude {name}"
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        return [
            _warning(
                "feature_is_timestamp",
                name,
                f"feature column {name!r} holds timestamps, used as seconds; if "
                f"when a row was made should not predict its label, {drop}.",
            )
        ]
    integral = pd.api.types.is_integer_dtype(series.dtype)
    text = _is_text_like(series) and not isinstance(series.dtype, pd.CategoricalDtype)
    categorical = text or isinstance(series.dtype, pd.CategoricalDtype)
    if pd.api.types.is_bool_dtype(series.dtype) or not (integral or categorical):
        return []  # floats and booleans: nothing to say
    values = series.dropna()
    distinct = int(values.nunique())
    # Mean length on a bounded sample: the first rows say whether it is text.
    sample = values.iloc[:TEXT_SAMPLE]
    length = float(sample.astype(str).str.len().mean()) if text and len(sample) else 0.0
    # Dates written as text: the more telling reading of distinct values.
    out = _dates_as_text_warnings(values, name, distinct, drop) if categorical else []
    many = text and distinct > max(max_categories, n // 2) and distinct < n
    if not out and (length >= TEXT_LENGTH or many):
        out.append(
            _warning(
                "feature_looks_like_text",
                name,
                f"feature column {name!r} looks like free text ({distinct} "
                f"distinct values, {length:.0f} characters on average): each "
                f"value is a category, compared only for equality; {drop} or "
                "encode it yourself.",
                distinct=distinct,
                mean_length=round(length, 1),
            )
        )
    elif not out and n >= MIN_ROWS_FOR_ID and distinct == n and (integral or text):
        return [
            _warning(
                "feature_looks_like_id",
                name,
                f"feature column {name!r} has a different value in every row, like "
                f"a row id: {_ID_USE[bool(integral)]}; {drop} (or name it with "
                f"--id {name}).",
                distinct=distinct,
            )
        ]
    if categorical and not out:  # free text or dates: not levels written twice
        counts = values.value_counts(sort=False).to_dict()
        out += _level_variant_warnings(counts, name, drop)
        out += _numbers_as_text_warnings(counts, name)
    levels = distinct + int(len(values) < n)  # a missing value is a level
    if categorical and levels > max_categories:
        scope = f" in the {n} rows with a label" if labelled else ""
        out.append(_pooled_warning(name, levels, max_categories, scope))
    return out


#: What becomes of an id-like feature: text values are levels, each seen
#: once; whole numbers are used as numbers, so a row id sorts the rows as the
#: file (or whoever numbered them) ordered them, classes grouped or not.
_ID_USE = {
    False: "it cannot tell classes apart",
    True: "used as a number, it tells classes apart only as far as the order "
    "the rows were numbered in does",
}


def _pooled_warning(name: Any, levels: int, kept: int, scope: str) -> CheckResult:
    """``feature_levels_pooled``: ``levels`` levels, ``kept`` one-hot columns
    (the rarest levels pooled into the last)."""
    pooled = levels - (kept - 1)
    return _warning(
        "feature_levels_pooled",
        name,
        f"feature column {name!r} has {levels} levels{scope}: the {kept - 1} "
        f"most frequent are kept and the other {pooled} are pooled into one "
        f"level. The confidence stage's max_categories ({kept}) sets how many "
        "are kept (in a pipeline definition: params = { max_categories = N } "
        "on that stage).",
        levels=levels,
        pooled=pooled,
    )


def _dates_as_text_warnings(values, name, distinct: int, drop: str) -> list:
    """``feature_dates_as_text`` where :func:`_dates_written_as_text` reads
    dates in ``values``; none otherwise."""
    written = _dates_written_as_text(values)
    if written is None:
        return []
    message = (
        f"feature column {name!r} holds dates written as text (e.g. {written!r}): "
        f"each of its {distinct} values is a category, compared only for "
        "equality, not a point in time; to use it as a date, store it as a date "
        f"or timestamp; if when a row was made should not predict its label, {drop}."
    )
    return [
        _warning(
            "feature_dates_as_text", name, message, distinct=distinct, example=written
        )
    ]


def _label_warning(
    name: str, label: Any, description: str, message: str, **fields: Any
) -> CheckResult:
    return CheckResult(
        name=name,
        description=description,
        success=False,
        severity="warning",
        column=str(label),
        engine="pandas",
        message=message,
        **fields,
    )


def label_text_checks(
    counts: Mapping[Any, int], label: Any, max_examples: int = 10
) -> list[CheckResult]:
    """``label_variants`` and ``label_placeholders``: text labels, counted in
    ``counts`` (label → rows), that differ only in case, spacing or Unicode
    form (one class written several ways, read as several classes), or that
    read as a missing value (:mod:`labelclean.utils._labels`)."""
    checks = []
    placeholders = label_placeholders(counts)
    if placeholders:
        checks.append(
            _label_warning(
                "label_placeholders",
                label,
                "no label reads as a missing value",
                f"label column {label!r} holds labels that read as a missing "
                f"value: {labels_text(placeholders)}; each is read as a class "
                "of its own. If those rows have no label, write it as missing "
                "(null): they are then discarded (reason missing_label) and "
                "not fitted on.",
                unexpected_count=sum(n for _, n in placeholders),
                examples=[name for name, _ in placeholders][:max_examples],
            )
        )
    groups = label_variants(counts)
    if not groups:
        return checks
    rarer = [name for group in groups for name, _ in group[1:]]
    checks.append(
        _label_warning(
            "label_variants",
            label,
            "each class is written one way",
            f"label column {label!r} holds labels that differ only in case, "
            f"spacing or Unicode form: {variants_text(groups)}; each spelling "
            "is read as a class of its own. If they name one class, write it "
            "one way before the run.",
            unexpected_count=sum(n for group in groups for _, n in group[1:]),
            examples=rarer[:max_examples],
            details={"groups": [[list(item) for item in group] for group in groups]},
        )
    )
    return checks


def _numbers_as_text_warnings(counts: Mapping[Any, int], name: Any) -> list:
    """``feature_numbers_as_text``: a text feature whose values are numbers
    but for a few that read as a missing value (``'?'``, ``'NA'``): an
    export wrote the gaps as text, so the column is read as categories."""
    placeholders = label_placeholders(counts)
    missing = {label for label, _ in placeholders}
    others = [v for v, n in counts.items() if n > 0 and v not in missing]
    if not placeholders or not others:
        return []
    numbers = pd.to_numeric(pd.Series([str(v) for v in others]), errors="coerce")
    if numbers.isna().any():
        return []
    return [
        _warning(
            "feature_numbers_as_text",
            name,
            f"feature column {name!r} holds numbers and {labels_text(placeholders)}, "
            f"so it is read as text: each of its {len(others)} distinct numbers is a "
            "category, and the rarer are pooled. If those values mark missing "
            "numbers, convert the column to numbers with them missing (NaN) "
            "before the run.",
            placeholders=[label for label, _ in placeholders],
            numbers=len(others),
        )
    ]


def _level_variant_warnings(
    counts: Mapping[Any, int], name: Any, drop: str
) -> list[CheckResult]:
    """``feature_level_variants``: text levels of a feature that differ only in
    case, spacing or Unicode form (one value written several ways, read as
    several levels; :mod:`labelclean.utils._labels`)."""
    groups = label_variants(counts)
    if not groups:
        return []
    return [
        _warning(
            "feature_level_variants",
            name,
            f"feature column {name!r} has levels that differ only in case, "
            f"spacing or Unicode form: {variants_text(groups)}; each is a level "
            f"of its own. If they are one value, write it one way before the run, "
            f"or {drop}.",
            groups=[[list(item) for item in group] for group in groups],
        )
    ]


def label_warnings(
    frame: pd.DataFrame, label: Any, max_examples: int = 10
) -> list[CheckResult]:
    """``label_variants`` and ``label_placeholders`` (text labels), and
    ``label_looks_continuous`` (a numeric label with many distinct values)."""
    series = frame[label]
    if pd.api.types.is_bool_dtype(series.dtype) or not pd.api.types.is_numeric_dtype(
        series.dtype
    ):
        counts = series.value_counts(dropna=True, sort=False).to_dict()
        return label_text_checks(counts, label, max_examples)
    values = series.dropna().to_numpy(dtype=np.float64)
    distinct = int(np.unique(values).size)
    fractional = bool(np.any(values != np.round(values)))
    if distinct <= 2 or (not fractional and distinct < CONTINUOUS_LABEL_VALUES):
        return []
    if fractional or distinct >= CONTINUOUS_LABEL_VALUES:
        return [
            _label_warning(
                "label_looks_continuous",
                label,
                "the label holds classes, not a measurement",
                f"label column {label!r} is numeric with {distinct} distinct "
                "values"
                + (", not all whole numbers" if fractional else "")
                + "; each value is treated as a class. If it is a measurement, "
                "bin it into classes first.",
                details={"distinct": distinct},
            )
        ]
    return []
