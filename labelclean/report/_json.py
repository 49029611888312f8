"""The shape of ``report.json``, the canonical summary of a run.

:func:`assemble_report` gives the report its one shape from the parts an
:class:`~labelclean.report.AuditSummary` computes from an audit (see
``docs/audit.md``) plus the run's information and validation results: a plain
dict of JSON types only with counts per class and per
decision, corrections from one label to another, reason codes, histograms of
every probability-like evidence column, the suspects ranked with their
evidence, example rows, the validation results and the run's parameters.
The HTML report (:mod:`labelclean.report._html`) is rendered from this dict
alone, so the JSON is everything a reader or a machine needs.

:func:`to_jsonable` converts numpy, pandas and datetime values to JSON types
and is used for everything that enters the report.
"""

import datetime as dt
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from labelclean.report._cautions import cautions

__all__ = ["REPORT_FORMAT", "REPORT_VERSION", "assemble_report", "to_jsonable"]

REPORT_FORMAT = "labelclean-report"
REPORT_VERSION = 1

_SUSPECT_EVIDENCE = ("confidence", "model_probability", "spl_weight")

#: How the suspects (the flagged rows) are ranked, in words.
SUSPECT_RANKING = (
    "corrected and discarded rows, most suspicious first: suspicion is the "
    "calibrated probability that the observed label is wrong "
    "(noise_probability) where the audit has it, else 1 - the mean of the "
    "available evidence among " + ", ".join(_SUSPECT_EVIDENCE) + " (each in "
    "[0, 1], higher = observed label more likely right); ties by input order"
)


def to_jsonable(value: Any) -> Any:
    """Convert ``value`` to JSON types (dict, list, str, int, float, bool, None).

    numpy scalars and arrays become Python numbers and lists; NaN, NaT,
    ``pd.NA`` and infinities become ``None``; dates and timestamps become ISO
    8601 strings; bytes are decoded as UTF-8 (hex when not text); mapping
    keys become strings; anything else becomes ``str(value)``.

    Parameters
    ----------
    value : object

    Returns
    -------
    value : JSON-serialisable object
    """

    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, np.datetime64 | np.timedelta64):  # timedelta64 is an integer
        return None if np.isnat(value) else str(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        f = float(value)
        return f if math.isfinite(f) else None
    if isinstance(value, Mapping):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in value.items()}
    if isinstance(
        value, list | tuple | set | frozenset | np.ndarray | pd.Series | pd.Index
    ):
        items = list(value)
        if isinstance(value, set | frozenset):
            items = _sorted_values(items)
        return [to_jsonable(v) for v in items]
    if value is pd.NaT or value is pd.NA:
        return None
    if isinstance(value, pd.Timestamp | dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, pd.Timedelta | dt.timedelta):
        return str(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value.hex()
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def _sorted_values(values: Sequence[Any]) -> list[Any]:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: (type(v).__name__, str(v)))


def _sort_key(value: Any) -> tuple[int, Any]:

    if isinstance(value, bool | np.bool_):
        return (0, int(value))
    if isinstance(value, int | float | np.integer | np.floating):
        return (1, float(value))
    if isinstance(value, str):
        return (2, value)
    return (3, str(value))


def _label_codes(audit: Any) -> tuple[Any, Any, list[Any]]:
    """Integer codes of the observed and cleaned labels over one shared set."""

    n = len(audit)
    both = pd.concat(
        [audit["observed_label"].astype(object), audit["cleaned_label"].astype(object)],
        ignore_index=True,
    )
    codes, uniques = pd.factorize(both, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    return codes[:n], codes[n:], list(uniques)


def _parse_counts(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, Mapping):
        return to_jsonable(value)
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return to_jsonable(parsed)
    return to_jsonable(value)


def _row_id(audit: Any, id_column: str | None, position: int) -> Any:
    if id_column is not None and id_column in audit.columns:
        return to_jsonable(audit[id_column].iat[position])
    return to_jsonable(audit.index[position])


def _suspicion(audit: Any) -> Any:
    """How suspect each row's label is, in [0, 1] (higher = more suspect).

    The calibrated probability that the label is wrong (``noise_probability``)
    where the audit has it; otherwise 1 - the mean of the available [0, 1]
    evidence that the label is right (:data:`_SUSPECT_EVIDENCE`).
    """

    columns = [c for c in _SUSPECT_EVIDENCE if c in audit.columns]
    mean = np.full(len(audit), np.nan)
    if columns:
        stacked = np.column_stack([_numeric(audit[c]) for c in columns])
        stacked = np.where(np.isfinite(stacked), np.clip(stacked, 0.0, 1.0), np.nan)
        counts = np.isfinite(stacked).sum(axis=1)
        sums = np.nansum(stacked, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = 1.0 - np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    if "noise_probability" not in audit.columns:
        return mean
    noise = np.clip(_numeric(audit["noise_probability"]), 0.0, 1.0)
    return np.where(np.isfinite(noise), noise, mean)


def _numeric(column: Any) -> Any:
    return pd.to_numeric(column, errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )


def _records(audit: Any, columns: Sequence[str]) -> list[dict[str, Any]]:
    """Each row of ``audit`` as a dict of JSON values over ``columns``.

    Column by column (one conversion per column, not one lookup per cell),
    so that listing ten thousand suspects takes a fraction of a second.
    """
    values = {str(c): _column_values(audit[c], str(c)) for c in columns}
    names = list(values)
    return (
        [
            dict(zip(names, row, strict=True))
            for row in zip(*values.values(), strict=True)
        ]
        if names
        else [{} for _ in range(len(audit))]
    )


def _column_values(column: Any, name: str) -> list[Any]:
    if name == "neighbor_label_counts":
        return [_parse_counts(None if _is_missing(v) else v) for v in column.tolist()]
    if pd.api.types.is_float_dtype(column.dtype):
        floats = column.to_numpy(dtype=np.float64, na_value=np.nan)
        return [float(v) if math.isfinite(v) else None for v in floats.tolist()]
    if pd.api.types.is_bool_dtype(column.dtype) and not column.hasnans:
        return [bool(v) for v in column.tolist()]
    if pd.api.types.is_integer_dtype(column.dtype) and not column.hasnans:
        return [int(v) for v in column.tolist()]
    return [to_jsonable(v) for v in column.tolist()]


def _is_missing(value: Any) -> bool:

    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def assemble_report(
    *,
    run: Mapping[str, Any] | None,
    validation: Sequence[Mapping[str, Any]] | Mapping[str, Any] | None,
    n_rows: int,
    label: str | None,
    id_column: str | None,
    user_columns: Sequence[Any],
    n_classes_observed: int,
    counts: dict[str, int],
    shares: dict[str, Any],
    classes: list[Any],
    corrections: list[Any],
    reasons: list[Any],
    distributions: dict[str, Any],
    suspects: list[Any],
    suspect_features: Sequence[Any],
    label_matrix: dict[str, Any],
    noise_profile: dict[str, Any],
    example_columns: Sequence[Any],
    examples: dict[str, Any],
    evidence_present: list[str],
    evidence_missing: list[str],
) -> dict[str, Any]:
    """The ``report.json`` dict from its computed parts.

    Shared by :func:`build_report` (a whole audit frame) and
    :class:`~labelclean.report.AuditSummary` (merged batch summaries), so the
    report's shape is defined once.
    """
    if validation is None:
        validation_list = []
    elif isinstance(validation, Mapping):
        validation_list = [to_jsonable(validation)]
    else:
        validation_list = [to_jsonable(v) for v in validation]
    validation_success = (
        all(bool(v.get("success", True)) for v in validation_list)
        if validation_list
        else None
    )
    # Rows without a label are discarded, but no label of theirs was judged.
    n_missing_label = sum(
        int(r.get("count", 0)) for r in reasons if r.get("reason") == "missing_label"
    )
    run_json = to_jsonable(dict(run or {}))
    return {
        "format": REPORT_FORMAT,
        "version": REPORT_VERSION,
        "run": run_json,
        "cautions": cautions(run_json, classes, noise_profile, reasons),
        "input": {
            "n_rows": n_rows,
            "label_column": label,
            "id_column": id_column,
            "user_columns": [str(c) for c in user_columns],
            "n_classes_observed": n_classes_observed,
        },
        "summary": {
            "n_rows": n_rows,
            "decisions": counts,
            "shares": shares,
            "n_flagged": counts["corrected"] + counts["discarded"] - n_missing_label,
            "n_missing_label": n_missing_label,
            "n_cleaned_rows": counts["kept"] + counts["corrected"],
            "validation_success": validation_success,
        },
        "classes": classes,
        "corrections": corrections,
        "reasons": reasons,
        "distributions": distributions,
        "suspects": {
            "ranking": SUSPECT_RANKING,
            "n_listed": len(suspects),
            "n_flagged": counts["corrected"] + counts["discarded"] - n_missing_label,
            "feature_columns": [str(c) for c in suspect_features],
            "rows": suspects,
        },
        "label_matrix": label_matrix,
        "noise_profile": noise_profile,
        "examples": {"columns": [str(c) for c in example_columns], **examples},
        "validation": validation_list,
        "evidence": {"present": evidence_present, "missing": evidence_missing},
    }
