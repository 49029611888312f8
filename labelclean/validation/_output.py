"""The output suite of a run: the audit's contract and the guardrails.

* :func:`output_checks`: what every run and apply writes into its report,
  computed from the :class:`~labelclean.report.AuditSummary` that every
  engine folds batch by batch (the audit was produced by the pipeline, so
  its contract holds by construction and the summary counts the rest);
* :func:`validate_output`: the same suite on an audit table a user holds
  (e.g. one read back from ``audit.parquet``): its contract checked with
  great-expectations, naming example rows, then the same guardrails from its
  summary.
"""

from collections.abc import Sequence
from typing import Any

import pandas as pd

from labelclean.exceptions import DataValidationError
from labelclean.report import AuditSummary
from labelclean.utils._audit import DECISIONS, PROBABILITY_COLUMNS
from labelclean.validation._guardrails import guardrail_checks
from labelclean.validation._gx import ge_check, run_expectations
from labelclean.validation._results import (
    CheckResult,
    ValidationResult,
    _index_by_id,
)

__all__ = ["output_checks", "validate_output"]


def output_checks(
    summary: AuditSummary,
    *,
    max_discarded_share: float = 0.5,
    max_discarded_share_per_class: float | None = None,
    require_all_classes: bool = True,
    max_changed_share_per_class: float | None = None,
    calibration: Any = None,
    max_examples: int = 10,
) -> ValidationResult:
    """The output suite of a run, from its audit's summary.

    Parameters
    ----------
    summary : AuditSummary
        Every audit row, summarised.
    max_discarded_share, max_discarded_share_per_class, require_all_classes, \
max_changed_share_per_class, calibration, max_examples
        As for :func:`~labelclean.validation._guardrails.guardrail_checks`.

    Returns
    -------
    result : ValidationResult
        Suite ``'labelclean_output'``: ``audit_columns_present``,
        ``decision_known``, ``probability_in_unit_interval`` (one per evidence
        column present), then the guardrails.
    """
    checks = [
        CheckResult(
            name="audit_columns_present",
            description="the audit has the columns "
            "['decision', 'observed_label', 'cleaned_label']",
            success=True,
            engine="schema",
            unexpected_count=0,
            message="the audit has its decision columns.",
        ),
        CheckResult(
            name="decision_known",
            description=f"every decision is one of {list(DECISIONS)}",
            success=True,
            column="decision",
            engine="pandas",
            unexpected_count=0,
            message="every decision is known.",
        ),
    ]
    for column, bad in summary.outside_unit_interval().items():
        checks.append(
            CheckResult(
                name="probability_in_unit_interval",
                description=f"{column!r} lies in [0, 1]",
                success=bad == 0,
                column=column,
                engine="pandas",
                unexpected_count=bad,
                message=(
                    f"{bad} value(s) of {column!r} lie outside [0, 1]."
                    if bad
                    else f"every {column!r} value lies in [0, 1]."
                ),
            )
        )
    checks += guardrail_checks(
        summary,
        max_discarded_share=max_discarded_share,
        max_discarded_share_per_class=max_discarded_share_per_class,
        require_all_classes=require_all_classes,
        max_changed_share_per_class=max_changed_share_per_class,
        calibration=calibration,
        max_examples=max_examples,
    )
    return ValidationResult("labelclean_output", checks)


def validate_output(
    audit: Any,
    *,
    classes: Sequence[Any] | None = None,
    max_discarded_share: float = 0.5,
    max_discarded_share_per_class: float | None = None,
    require_all_classes: bool = True,
    max_changed_share_per_class: float | None = None,
    calibration: Any = None,
    id_column: str | None = None,
    max_examples: int = 10,
) -> ValidationResult:
    """Check the audit of a run against guardrails.

    Parameters
    ----------
    audit : pandas.DataFrame
        The audit: one row per input row with ``decision``,
        ``observed_label``, ``cleaned_label`` and optional evidence columns
        (``docs/audit.md``).
    classes : list, default=None
        Classes that must survive cleaning; ``None`` uses the observed ones.
    max_discarded_share : float, default=0.5
        Largest share of all rows that may be discarded.
    max_discarded_share_per_class : float, default=None
        Largest share of one observed class that may be discarded; ``None``
        uses ``max_discarded_share``.
    require_all_classes : bool, default=True
        Fail when a class has no row left in the cleaned output (a warning
        when false).
    max_changed_share_per_class : float, default=None
        Largest share of one observed class that may be discarded or
        corrected into another class (``class_net_change``); ``None`` uses
        ``max_discarded_share_per_class``.
    calibration : dict, default=None
        The fitted cleaner's ``calibration_``; adds ``flagged_vs_noise``.
    id_column : str, default=None
        Column whose values are reported as example row ids (else the index).
    max_examples : int, default=10
        Most example row ids per check.

    Returns
    -------
    result : ValidationResult
        Suite ``'labelclean_output'``. Checks: ``audit_columns_present``,
        ``decision_known``, ``probability_in_unit_interval`` (one per
        evidence column present; these three with great-expectations, naming
        example rows), then the guardrails of :func:`guardrail_checks`
        (computed from the audit's :class:`~labelclean.report.AuditSummary`,
        as in a run) on the rows with a known decision.
    """
    if not isinstance(audit, pd.DataFrame):
        raise TypeError(
            f"audit must be a pandas DataFrame, got {type(audit).__name__}."
        )
    checks: list[CheckResult] = []
    required = ("decision", "observed_label", "cleaned_label")
    missing = [c for c in required if c not in audit.columns]
    checks.append(
        CheckResult(
            name="audit_columns_present",
            description=f"the audit has the columns {list(required)}",
            success=not missing,
            engine="schema",
            unexpected_count=len(missing),
            examples=missing,
            message=(
                f"the audit lacks column(s) {missing}."
                if missing
                else "the audit has its decision columns."
            ),
        )
    )
    if missing:
        return ValidationResult("labelclean_output", checks)
    if audit.columns.has_duplicates:
        raise DataValidationError("the audit has duplicate column names.")

    frame = _index_by_id(audit, id_column)
    checks += _value_checks(frame, max_examples)
    known = frame.loc[frame["decision"].isin(DECISIONS)]
    if "reason" not in known.columns:  # the summary tallies reasons too
        known = known.assign(reason="")
    summary = AuditSummary(id_column=id_column, n_examples=max_examples)
    summary.add(known)
    checks += guardrail_checks(
        summary,
        classes=classes,
        max_discarded_share=max_discarded_share,
        max_discarded_share_per_class=max_discarded_share_per_class,
        require_all_classes=require_all_classes,
        max_changed_share_per_class=max_changed_share_per_class,
        calibration=calibration,
        max_examples=max_examples,
    )
    return ValidationResult("labelclean_output", checks)


def _value_checks(frame: Any, max_examples: int) -> list[CheckResult]:
    """``decision_known`` and ``probability_in_unit_interval``, naming rows."""
    # lazy: seconds to import; only when a suite runs
    import great_expectations.expectations as gxe

    checks: list[CheckResult] = []
    probability_columns = [c for c in PROBABILITY_COLUMNS if c in frame.columns]
    value_columns = ["decision", *probability_columns]
    expectations: list[tuple[str, Any]] = [
        (
            "decision_known",
            gxe.ExpectColumnValuesToBeInSet(  # type: ignore[attr-defined]
                column="decision", value_set=list(DECISIONS)
            ),
        ),
    ]
    for column in probability_columns:
        expectations.append(
            (
                f"probability:{column}",
                gxe.ExpectColumnValuesToBeBetween(  # type: ignore[attr-defined]
                    column=column, min_value=0, max_value=1
                ),
            )
        )
    subset = frame[value_columns].copy()
    for column in probability_columns:
        subset[column] = pd.to_numeric(subset[column], errors="coerce").astype(
            "float64"
        )
    outcomes = run_expectations(subset, expectations, max_examples=max_examples)

    checks.append(
        ge_check(
            outcomes.get("decision_known"),
            name="decision_known",
            column="decision",
            description=f"every decision is one of {list(DECISIONS)}",
            fail_message="{count} row(s) have an unknown decision.",
            pass_message="every decision is known.",
        )
    )
    for column in probability_columns:
        checks.append(
            ge_check(
                outcomes.get(f"probability:{column}"),
                name="probability_in_unit_interval",
                column=column,
                description=f"{column!r} lies in [0, 1]",
                fail_message="{count} value(s) of "
                + repr(column)
                + " lie outside [0, 1].",
                pass_message=f"every {column!r} value lies in [0, 1].",
            )
        )
    return checks
