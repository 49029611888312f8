"""Building ``report.json``, the canonical summary of a run, from its audit.

:func:`build_report` reads an audit table (see :mod:`labelclean.utils._audit`
and ``docs/audit.md``) plus the run's information and validation results,
and returns a plain dict of JSON types only: counts per class and per
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

from labelclean.utils._audit import (
    DECISIONS,
    EVIDENCE_COLUMNS,
    PROBABILITY_COLUMNS,
    check_audit_frame,
)

__all__ = ["REPORT_FORMAT", "REPORT_VERSION", "build_report", "to_jsonable"]

REPORT_FORMAT = "labelclean-report"
REPORT_VERSION = 1

_SUSPECT_EVIDENCE = ("confidence", "model_probability", "spl_weight")


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
    import numpy as np
    import pandas as pd

    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        return bool(value)
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
    if isinstance(value, np.datetime64 | np.timedelta64):
        return None if np.isnat(value) else str(value)
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
    import numpy as np

    if isinstance(value, bool | np.bool_):
        return (0, int(value))
    if isinstance(value, int | float | np.integer | np.floating):
        return (1, float(value))
    if isinstance(value, str):
        return (2, value)
    return (3, str(value))


def _label_codes(audit: Any) -> tuple[Any, Any, list[Any]]:
    """Integer codes of the observed and cleaned labels over one shared set."""
    import numpy as np
    import pandas as pd

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


def _histogram(audit: Any, column: str, n_bins: int, decisions: Any) -> dict[str, Any]:
    import numpy as np
    import pandas as pd

    values = pd.to_numeric(audit[column], errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    finite = np.isfinite(values)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    counts = {}
    for decision in DECISIONS:
        sel = finite & (decisions == decision)
        hist, _ = np.histogram(np.clip(values[sel], 0.0, 1.0), bins=edges)
        counts[decision] = [int(c) for c in hist]
    present = values[finite]
    summary = None
    if present.size:
        summary = {
            "min": float(present.min()),
            "q25": float(np.quantile(present, 0.25)),
            "median": float(np.median(present)),
            "q75": float(np.quantile(present, 0.75)),
            "max": float(present.max()),
            "mean": float(present.mean()),
        }
    return {
        "column": column,
        "bin_edges": [round(float(e), 12) for e in edges],
        "counts": counts,
        "n_missing": int((~finite).sum()),
        "n_outside_unit_interval": int(((present < 0) | (present > 1)).sum()),
        "summary": summary,
    }


def _row_id(audit: Any, id_column: str | None, position: int) -> Any:
    if id_column is not None and id_column in audit.columns:
        return to_jsonable(audit[id_column].iat[position])
    return to_jsonable(audit.index[position])


def _suspicion(audit: Any) -> Any:
    """1 - mean of the available [0, 1] evidence that the label is right."""
    import numpy as np
    import pandas as pd

    columns = [c for c in _SUSPECT_EVIDENCE if c in audit.columns]
    if not columns:
        return np.full(len(audit), np.nan)
    stacked = np.column_stack(
        [
            pd.to_numeric(audit[c], errors="coerce").to_numpy(
                dtype=np.float64, na_value=np.nan
            )
            for c in columns
        ]
    )
    stacked = np.where(np.isfinite(stacked), np.clip(stacked, 0.0, 1.0), np.nan)
    counts = np.isfinite(stacked).sum(axis=1)
    sums = np.nansum(stacked, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return 1.0 - mean


def _row_record(audit: Any, position: int, columns: Sequence[str]) -> dict[str, Any]:
    row = audit.iloc[position]
    record = {}
    for column in columns:
        value = row[column]
        if column == "neighbor_label_counts":
            record[column] = _parse_counts(None if _is_missing(value) else value)
        else:
            record[str(column)] = to_jsonable(value)
    return record


def _is_missing(value: Any) -> bool:
    import pandas as pd

    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def build_report(
    audit: Any,
    *,
    label: str | None = None,
    id_column: str | None = None,
    run: Mapping[str, Any] | None = None,
    validation: Sequence[Mapping[str, Any]] | Mapping[str, Any] | None = None,
    n_suspects: int = 50,
    n_examples: int = 5,
    n_bins: int = 20,
    max_example_columns: int = 12,
    reason_descriptions: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Summarise a run's audit as the canonical ``report.json`` dict.

    Parameters
    ----------
    audit : pandas.DataFrame
        One row per input row: the user's columns plus the audit columns of
        ``docs/audit.md``. Missing optional evidence columns are tolerated
        and listed under ``evidence.missing``.
    label : str, default=None
        Name of the user's label column, for the record.
    id_column : str, default=None
        Column identifying rows; ``None`` uses the audit's index.
    run : dict, default=None
        Information about the run (pipeline name and stages, parameters,
        seed, inputs, versions, ...); copied under ``run`` after
        :func:`to_jsonable`.
    validation : dict or list of dict, default=None
        Validation results (e.g. ``ValidationResult.to_dict()`` of the input
        suite and the output guardrails); copied under ``validation``.
    n_suspects : int, default=50
        Most suspects listed.
    n_examples : int, default=5
        Example rows listed per decision.
    n_bins : int, default=20
        Histogram bins over [0, 1].
    max_example_columns : int, default=12
        Most user columns shown in example rows.
    reason_descriptions : dict of str to str, default=None
        One sentence per reason code (e.g. ``{'low_confidence': 'confidence below the
        suspect threshold and no trusted alternative'}``), shown next to the
        reason counts.

    Returns
    -------
    report : dict
        JSON types only (``json.dumps(report, allow_nan=False)`` works). See
        ``docs/audit.md`` for the keys.

    Raises
    ------
    DataValidationError
        If ``audit`` does not follow the audit contract.

    Examples
    --------
    >>> import pandas as pd
    >>> from labelclean.report import build_report
    >>> audit = pd.DataFrame({
    ...     "x": [0.1, 0.2, 0.9],
    ...     "decision": ["kept", "corrected", "discarded"],
    ...     "reason": ["ok", "relabelled", "low_confidence"],
    ...     "observed_label": ["a", "a", "b"],
    ...     "cleaned_label": ["a", "b", None],
    ...     "confidence": [0.9, 0.1, 0.2],
    ... })
    >>> report = build_report(audit)
    >>> report["summary"]["decisions"]
    {'kept': 1, 'corrected': 1, 'discarded': 1}
    >>> [s["row_id"] for s in report["suspects"]["rows"]]
    [1, 2, 0]
    """
    import numpy as np
    import pandas as pd

    check_audit_frame(audit)
    n_rows = len(audit)
    from labelclean.utils._audit import AUDIT_COLUMNS

    evidence_present = [c for c in EVIDENCE_COLUMNS if c in audit.columns]
    evidence_missing = [c for c in EVIDENCE_COLUMNS if c not in audit.columns]
    user_columns = [c for c in audit.columns if c not in AUDIT_COLUMNS]

    decision = audit["decision"].to_numpy(dtype=object)
    counts = {d: int((decision == d).sum()) for d in DECISIONS}
    shares = {d: (counts[d] / n_rows if n_rows else 0.0) for d in DECISIONS}

    # Per class ---------------------------------------------------------------
    n_obs_codes, n_cln_codes, uniques = _label_codes(audit)
    n_labels = len(uniques)
    order_labels = sorted(range(n_labels), key=lambda j: _sort_key(uniques[j]))
    is_kept, is_corr, is_disc = (decision == d for d in DECISIONS)

    def _count(codes: Any, mask: Any) -> Any:
        sel = codes[mask & (codes >= 0)]
        return np.bincount(sel, minlength=n_labels)

    everything = np.ones(n_rows, dtype=bool)
    n_observed = _count(n_obs_codes, everything)
    kept = _count(n_obs_codes, is_kept)
    corrected_away = _count(n_obs_codes, is_corr)
    corrected_into = _count(n_cln_codes, is_corr)
    discarded = _count(n_obs_codes, is_disc)
    n_cleaned = _count(n_cln_codes, ~is_disc)
    classes = []
    for j in order_labels:
        n_obs = int(n_observed[j])
        classes.append(
            {
                "label": to_jsonable(uniques[j]),
                "n_observed": n_obs,
                "kept": int(kept[j]),
                "corrected_away": int(corrected_away[j]),
                "corrected_into": int(corrected_into[j]),
                "discarded": int(discarded[j]),
                "n_cleaned": int(n_cleaned[j]),
                "share_discarded": float(discarded[j] / n_obs) if n_obs else 0.0,
                "share_corrected": float(corrected_away[j] / n_obs) if n_obs else 0.0,
            }
        )

    # Corrections and reasons ---------------------------------------------------
    pairs, pair_counts = np.unique(
        np.column_stack([n_obs_codes[is_corr], n_cln_codes[is_corr]]).reshape(-1, 2),
        axis=0,
        return_counts=True,
    )
    rank_of = {j: r for r, j in enumerate(order_labels)}
    corrections = [
        {
            "from": to_jsonable(uniques[a]) if a >= 0 else None,
            "to": to_jsonable(uniques[b]) if b >= 0 else None,
            "count": int(n),
        }
        for (a, b), n in sorted(
            zip(pairs.tolist(), pair_counts.tolist(), strict=True),
            key=lambda item: (
                -item[1],
                rank_of.get(item[0][0], -1),
                rank_of.get(item[0][1], -1),
            ),
        )
    ]
    reason_values = audit["reason"].astype(object).where(audit["reason"].notna(), "")
    tally = (
        pd.DataFrame(
            {"decision": decision, "reason": reason_values.astype(str).to_numpy()}
        )
        .value_counts(sort=False)
        .reset_index(name="count")
    )
    reason_rows = sorted(
        (DECISIONS.index(str(d)), -int(n), str(r), str(d))
        for d, r, n in tally.itertuples(index=False)
    )
    explain = dict(reason_descriptions or {})
    reasons = [
        {
            "decision": d,
            "reason": r,
            "count": -negative,
            "description": str(explain[r]) if r in explain else None,
        }
        for _, negative, r, d in reason_rows
    ]

    # Distributions ------------------------------------------------------------
    distributions = {
        column: _histogram(audit, column, n_bins, decision)
        for column in PROBABILITY_COLUMNS
        if column in audit.columns
    }
    if "spl_zero_round" in audit.columns:
        rounds = audit["spl_zero_round"].dropna()
        values, tallies = np.unique(rounds.to_numpy(dtype=np.int64), return_counts=True)
        distributions["spl_zero_round"] = {
            "column": "spl_zero_round",
            "values": [int(v) for v in values],
            "counts": [int(c) for c in tallies],
            "n_missing": int(audit["spl_zero_round"].isna().sum()),
        }

    # Suspects -------------------------------------------------------------------
    suspicion = _suspicion(audit)
    flagged = decision != "kept"
    sort_suspicion = np.where(np.isfinite(suspicion), -suspicion, np.inf)
    # lexsort: last key is primary -> flagged first, then suspicion, then position
    order = np.lexsort((np.arange(n_rows), sort_suspicion, ~flagged))
    suspect_columns = [
        "decision",
        "reason",
        "observed_label",
        "cleaned_label",
        *evidence_present,
    ]
    suspects = []
    for rank, position in enumerate(order[:n_suspects].tolist(), start=1):
        record = {"rank": rank, "row_id": _row_id(audit, id_column, position)}
        record["suspicion"] = to_jsonable(suspicion[position])
        record.update(_row_record(audit, position, suspect_columns))
        suspects.append(record)

    # Examples -------------------------------------------------------------------
    shown_user = [c for c in user_columns if id_column is None or c != id_column][
        :max_example_columns
    ]
    example_columns = [
        "decision",
        "reason",
        "observed_label",
        "cleaned_label",
        *shown_user,
    ]
    examples = {}
    for d in DECISIONS:
        positions = np.flatnonzero(decision == d)[:n_examples]
        examples[d] = [
            {
                "row_id": _row_id(audit, id_column, int(p)),
                **_row_record(audit, int(p), example_columns),
            }
            for p in positions
        ]

    return assemble_report(
        run=run,
        validation=validation,
        n_rows=n_rows,
        label=label,
        id_column=id_column,
        user_columns=user_columns,
        n_classes_observed=int((n_observed > 0).sum()),
        counts=counts,
        shares=shares,
        classes=classes,
        corrections=corrections,
        reasons=reasons,
        distributions=distributions,
        suspects=suspects,
        example_columns=example_columns,
        examples=examples,
        evidence_present=evidence_present,
        evidence_missing=evidence_missing,
    )


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
    return {
        "format": REPORT_FORMAT,
        "version": REPORT_VERSION,
        "run": to_jsonable(dict(run or {})),
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
            "n_flagged": counts["corrected"] + counts["discarded"],
            "n_cleaned_rows": counts["kept"] + counts["corrected"],
            "validation_success": validation_success,
        },
        "classes": classes,
        "corrections": corrections,
        "reasons": reasons,
        "distributions": distributions,
        "suspects": {
            "ranking": (
                "corrected and discarded rows first, then by suspicion = 1 - mean of "
                "the available evidence among "
                + ", ".join(_SUSPECT_EVIDENCE)
                + " (each in [0, 1], higher = observed label more likely right), "
                "highest first; ties by input order"
            ),
            "n_listed": len(suspects),
            "rows": suspects,
        },
        "examples": {"columns": [str(c) for c in example_columns], **examples},
        "validation": validation_list,
        "evidence": {"present": evidence_present, "missing": evidence_missing},
    }
