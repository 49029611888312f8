"""Input expectations, with great-expectations for values.

:func:`validate_input` checks a frame before a run: the label column is
there and has no missing values, labels lie in the expected domain, there
are at least two classes, the feature columns exist and are usable (the same
rules the feature encoder applies), no column clashes with labelclean's own
output columns.

Schema and dtype checks are done with pandas directly (great-expectations'
type expectations disagree with pandas' extension dtypes); value-level rules
(not null, in set, between, share not in set) run through an ephemeral
great-expectations 1.x context, imported lazily, with analytics and progress
bars off and nothing written to disk. Aggregate rules (per-class shares,
class presence) are computed with pandas, and their success is decided with
labelclean's own arithmetic so limits are exact.

It returns a :class:`ValidationResult`: JSON-serialisable through
:meth:`ValidationResult.to_dict`, one :class:`CheckResult` per check with the
number of unexpected rows and up to ``max_examples`` of their row ids.
"""

import shlex
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from labelclean.exceptions import DataValidationError
from labelclean.utils._audit import renamed_user_columns
from labelclean.utils._column_kinds import check_feature_frame, coerce_object_columns
from labelclean.utils._features import DEFAULT_MAX_CATEGORIES
from labelclean.utils._suggest import close_match
from labelclean.validation._columns import choice_checks, feature_warnings
from labelclean.validation._label_checks import label_checks
from labelclean.validation._results import (
    CheckResult,
    ValidationResult,
    _examples_of,
    _index_by_id,
    _plain,
)

__all__ = ["validate_input"]


def _first_nested(column: Any) -> Any:
    """The first list, dict or array among the values of an object column."""
    if column.dtype != object:
        return None
    nested = (list, tuple, dict, set, frozenset, np.ndarray)
    for value in column.dropna().head(1000):
        if isinstance(value, nested):
            return value
    return None


def _check_not_nested(column: Any, name: Hashable) -> None:
    # Object columns holding lists, dicts or arrays cannot be compared or
    # one-hot encoded; say so before the encoder fails on unhashable values.
    value = _first_nested(column)
    if value is not None:
        raise DataValidationError(
            f"feature column {name!r} holds nested values like "
            f"{type(value).__name__}s, which labelclean cannot compare; drop the "
            "column or flatten it into scalar columns."
        )


def _is_constant(column: Any) -> bool:
    """One value in every row (missing counting as a value), by comparison
    with the first row: linear, where counting the distinct values hashes
    the column (0.8 s for 20 columns of 1e6 rows)."""
    missing = column.isna()
    if bool(missing.iloc[0]):
        return bool(missing.all())
    return not bool(missing.any()) and bool((column == column.iloc[0]).all())


def _suggest(name: str, columns: Iterable[Hashable]) -> str:
    close = close_match(name, columns)
    return f" (did you mean {close!r}?)" if close else ""


# --------------------------------------------------------------------------
# Input suite
# --------------------------------------------------------------------------


def validate_input(
    frame: Any,
    *,
    label: str,
    features: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    label_domain: Sequence[Any] | None = None,
    id_column: str | None = None,
    reserved_columns: Sequence[str] = (),
    max_examples: int = 10,
    max_categories: int = DEFAULT_MAX_CATEGORIES,
    fitted_features: bool = False,
) -> ValidationResult:
    """Check an input frame before a run, without changing it.

    Parameters
    ----------
    frame : pandas.DataFrame
        The input rows.
    label : str
        The label column.
    features : list of str, default=None
        Feature columns; ``None`` means every column except ``label``,
        ``id_column`` and ``exclude``.
    exclude : list of str, default=()
        Columns that are not features.
    label_domain : list, default=None
        The labels allowed; ``None`` accepts any.
    id_column : str, default=None
        Column identifying rows: it must be unique, and example row ids come
        from it (else from the index).
    reserved_columns : list of str, default=()
        Names the run will add to the output (labelclean's audit columns). An
        input column with one of these names is a warning: the audit holds it
        as ``<name>_input``; the id column named so is an error (rows are
        named by it).
    max_examples : int, default=10
        Most example row ids per check.
    max_categories : int, default=32
        Most one-hot columns the run keeps per categorical column (the
        confidence stage's ``max_categories``): a column with more levels
        is named (``feature_levels_pooled``).
    fitted_features : bool, default=False
        ``features`` are a fitted model's (``labelclean apply``): a column it
        reads cannot be left out, so an unusable one is to be mended in the
        input, not excluded.

    Returns
    -------
    result : ValidationResult
        Suite ``'labelclean_input'``. Checks: ``has_rows``,
        ``unique_column_names``, ``label_column_present``,
        ``no_reserved_column_names``, ``id_column_present``, ``id_unique``,
        ``excluded_columns_present``, ``label_and_id_not_features``,
        ``feature_columns_present``, ``has_features``, ``feature_usable``
        (one per unusable column), ``feature_not_constant`` (warning, one
        per constant column), ``feature_looks_like_id``,
        ``feature_looks_like_text``, ``feature_is_timestamp``,
        ``feature_dates_as_text`` and ``feature_levels_pooled`` (warnings, see
        :mod:`labelclean.validation._columns`), ``features_vary`` (only when
        every feature is constant), ``label_not_null`` (warning: such rows
        are discarded), ``label_in_domain``,
        ``at_least_two_classes``, ``no_single_row_class`` (warning),
        ``label_placeholders`` and ``label_variants`` (warnings: text
        labels that read as a missing value, or that differ only in case,
        spacing or Unicode form), ``label_looks_continuous`` (warning).
    """

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"frame must be a pandas DataFrame, got {type(frame).__name__}."
        )
    checks, dupes = _schema_checks(frame, max_examples)
    if dupes:
        return ValidationResult("labelclean_input", checks)
    checks += _column_checks(frame, label, id_column, reserved_columns, max_examples)
    if id_column is not None:
        checks += _id_checks(frame, id_column, max_examples)
        if id_column not in frame.columns:
            id_column = None
    feature_list, found = _feature_list(
        frame, label, id_column, features, exclude, max_examples
    )
    checks += found
    indexed = _index_by_id(frame, id_column)
    if feature_list:
        fitted = _fitted_rows(frame, label)
        checks += _feature_checks(
            frame, indexed, feature_list, max_examples, fitted, max_categories,
            fixed=fitted_features,
        )  # fmt: skip
    if label in frame.columns:
        nested = _first_nested(frame[label])
        if nested is not None:
            checks.append(
                CheckResult(
                    name="label_values_scalar",
                    description="one label per row",
                    success=False,
                    column=str(label),
                    engine="pandas",
                    message=f"label column {label!r} holds "
                    f"{type(nested).__name__}s (e.g. {_plain(nested)!r}), not one "
                    "class per row; give each row a single label (a string or a "
                    "number).",
                )
            )
            return ValidationResult("labelclean_input", checks)
        checks += label_checks(frame, indexed, label, label_domain, max_examples)
    return ValidationResult("labelclean_input", checks)


def _schema_checks(frame: Any, max_examples: int) -> tuple[list[CheckResult], list]:
    """``has_rows`` and ``unique_column_names``; also the duplicated names."""
    checks: list[CheckResult] = []
    n = len(frame)
    checks.append(
        CheckResult(
            name="has_rows",
            description="the input has at least one row",
            success=n > 0,
            engine="schema",
            message=f"the input has {n} row(s)."
            if n
            else "the input has no rows; check the input file or filter.",
        )
    )
    dupes = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    checks.append(
        CheckResult(
            name="unique_column_names",
            description="every column name appears once",
            success=not dupes,
            engine="schema",
            unexpected_count=len(dupes),
            examples=dupes[:max_examples],
            message=(
                f"column name(s) {dupes} appear more than once; rename them."
                if dupes
                else "column names are unique."
            ),
        )
    )
    return checks, dupes


def _column_checks(
    frame: Any,
    label: str,
    id_column: str | None,
    reserved_columns: Sequence[str],
    max_examples: int,
) -> list[CheckResult]:
    """``label_column_present`` and ``no_reserved_column_names``."""
    checks: list[CheckResult] = []
    columns = list(frame.columns)
    has_label = label in frame.columns
    checks.append(
        CheckResult(
            name="label_column_present",
            description=f"the label column {label!r} exists",
            success=has_label,
            column=label,
            engine="schema",
            message=(
                f"label column {label!r} found."
                if has_label
                else f"label column {label!r} not found{_suggest(label, columns)}; "
                f"pass the right --label (columns: {[str(c) for c in columns][:20]})."
            ),
        )
    )
    renamed = renamed_user_columns(columns, tuple(reserved_columns))
    if id_column is not None and id_column in renamed:
        message = (
            f"the id column {id_column!r} has a name labelclean adds to its "
            "output; rename it."
        )
    elif renamed:
        message = (
            f"input column(s) {list(renamed)} have names labelclean adds to its "
            f"output; the audit holds them as {list(renamed.values())}."
        )
    else:
        message = "no input column clashes with labelclean's output columns."
    checks.append(
        CheckResult(
            name="no_reserved_column_names",
            description="no input column is named like a labelclean output column",
            success=not renamed,
            severity="error" if id_column in renamed else "warning",
            engine="schema",
            unexpected_count=len(renamed),
            examples=list(renamed)[:max_examples],
            message=message,
        )
    )
    return checks


def _id_checks(frame: Any, id_column: str, max_examples: int) -> list[CheckResult]:
    """``id_column_present`` and ``id_unique``."""
    checks: list[CheckResult] = []
    columns = list(frame.columns)
    n = len(frame)
    has_id = id_column in frame.columns
    checks.append(
        CheckResult(
            name="id_column_present",
            description=f"the id column {id_column!r} exists",
            success=has_id,
            column=id_column,
            engine="schema",
            message=(
                f"id column {id_column!r} found."
                if has_id
                else f"id column {id_column!r} not found"
                f"{_suggest(id_column, columns)}; pass the right --id."
            ),
        )
    )
    if has_id:
        ids = frame[id_column]
        dup_mask = (ids.duplicated(keep=False) | ids.isna()).to_numpy()
        n_bad = int(dup_mask.sum())
        checks.append(
            CheckResult(
                name="id_unique",
                description=f"every row has its own non-null {id_column!r}",
                success=n_bad == 0,
                column=id_column,
                engine="pandas",
                unexpected_count=n_bad,
                unexpected_percent=100.0 * n_bad / n if n else None,
                examples=[_plain(v) for v in ids[dup_mask].head(max_examples)],
                message=(
                    f"{n_bad} row(s) share an id or have none in {id_column!r}; "
                    "ids must be unique to track rows."
                    if n_bad
                    else f"ids in {id_column!r} are unique."
                ),
            )
        )

    return checks


def _feature_list(
    frame: Any,
    label: str,
    id_column: str | None,
    features: Sequence[str] | None,
    exclude: Sequence[str],
    max_examples: int,
) -> tuple[list, list[CheckResult]]:
    """The feature columns present; ``feature_columns_present``, ``has_features``."""
    checks: list[CheckResult] = []
    columns = list(frame.columns)
    checks += choice_checks(columns, label, id_column, features, exclude)
    skip = {label, *exclude} | ({id_column} if id_column else set())
    if features is None:
        feature_list = [c for c in columns if c not in skip]
    else:
        feature_list = [c for c in features if c not in skip]
        missing = [c for c in feature_list if c not in frame.columns]
        checks.append(
            CheckResult(
                name="feature_columns_present",
                description="every requested feature column exists",
                success=not missing,
                engine="schema",
                unexpected_count=len(missing),
                examples=missing[:max_examples],
                message=(
                    "feature column(s) "
                    + ", ".join(f"{m!r}{_suggest(m, columns)}" for m in missing)
                    + " not found; fix the feature list."
                    if missing
                    else "all feature columns found."
                ),
            )
        )
        feature_list = [c for c in feature_list if c in frame.columns]
    checks.append(
        CheckResult(
            name="has_features",
            description="at least one feature column",
            success=bool(feature_list),
            engine="schema",
            unexpected_count=None,
            message=(
                f"{len(feature_list)} feature column(s)."
                if feature_list
                else "no feature columns are left; give feature columns or exclude "
                "fewer."
            ),
        )
    )
    return feature_list, checks


def _fitted_rows(frame: Any, label: str) -> Any:
    """The rows a fit uses (those with a label), or ``None`` for every row.

    The column warnings describe the features as the fit and its report see
    them; rows without a label are discarded before the fit.
    """
    if label not in frame.columns:
        return None
    labelled = frame[label].notna().to_numpy()
    return None if labelled.all() or not labelled.any() else labelled


def _unusable(
    indexed: Any, name: Any, exc: Exception, max_examples: int, fixed: bool
) -> Any:
    """``feature_usable`` failed for column ``name``, with the rows that make
    it so where they can be named (infinite numbers), and the option that
    runs without the column; with ``fixed`` features (a fitted model's) there
    is none, and the message says to mend the values."""
    col = indexed[name]
    bad = np.zeros(len(col), dtype=bool)  # missing values are fine
    if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(
        col.dtype
    ):
        bad = np.isinf(col.to_numpy(dtype=np.float64, na_value=np.nan))
    n, n_bad = len(col), int(bad.sum())
    return CheckResult(
        name="feature_usable",
        description=f"feature column {name!r} can be used",
        success=False,
        column=str(name),
        engine="pandas",
        unexpected_count=n_bad or None,
        unexpected_percent=100.0 * n_bad / n if n and n_bad else None,
        examples=_examples_of(indexed, bad, max_examples),
        message=(
            f"{str(exc).removesuffix(', or drop the column.').rstrip('.')}. The "
            "fitted model reads this column: mend its values in the batch."
            if fixed
            else f"{exc} --exclude {shlex.quote(str(name))} leaves it out."
        ),
        details={"dtype": str(col.dtype)},
    )


def _feature_checks(
    frame: Any,
    indexed: Any,
    feature_list: list,
    max_examples: int,
    fitted: Any = None,
    max_categories: int = DEFAULT_MAX_CATEGORIES,
    fixed: bool = False,
) -> list[CheckResult]:
    """``feature_usable``, ``feature_not_constant`` and ``features_vary``,
    and the column warnings, read on the ``fitted`` rows (a mask; ``None``:
    every row) with ``max_categories`` levels kept a column."""
    checks: list[CheckResult] = []
    n = len(frame)
    constant = []
    for name in feature_list:
        try:
            _check_not_nested(frame[name], name)
            # Decimals and calendar dates are judged as the fit uses them:
            # numbers and dates, not text.
            typed = coerce_object_columns(frame[[name]])
            check_feature_frame(typed)
        except DataValidationError as exc:
            checks.append(_unusable(indexed, name, exc, max_examples, fixed))
            continue
        rows = typed if fitted is None else typed[fitted]
        checks += feature_warnings(
            rows, name, labelled=fitted is not None, max_categories=max_categories
        )
        if n > 1 and _is_constant(frame[name]):
            constant.append(name)
            what = (
                "has no values (every one is missing)"
                if frame[name].isna().all()
                else "is constant"
            )
            checks.append(
                CheckResult(
                    name="feature_not_constant",
                    description=f"feature column {name!r} varies",
                    success=False,
                    severity="warning",
                    column=str(name),
                    engine="pandas",
                    message=f"feature column {name!r} {what} and carries no "
                    "information; consider excluding it.",
                )
            )
    if constant and len(constant) == len(feature_list):
        checks.append(
            CheckResult(
                name="features_vary",
                description="at least one feature column varies",
                success=False,
                engine="pandas",
                unexpected_count=len(constant),
                examples=[str(c) for c in constant[:max_examples]],
                message="every feature column is constant, so rows cannot be "
                "told apart and no label can be checked; give feature columns "
                "that vary.",
            )
        )

    return checks
