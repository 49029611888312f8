"""The label column's checks in the input suite: present values, the
expected domain, at least two classes, no class of a single row, and the
label's spelling (:func:`~labelclean.validation._columns.label_warnings`)."""

from collections.abc import Sequence
from typing import Any

from labelclean.utils._labels import spelling_hint
from labelclean.validation._columns import MIN_ROWS_FOR_ID, label_warnings
from labelclean.validation._gx import ge_check, run_expectations
from labelclean.validation._results import CheckResult, _plain

__all__ = ["class_count_checks", "label_checks"]


def label_checks(
    frame: Any,
    indexed: Any,
    label: str,
    label_domain: Sequence[Any] | None,
    max_examples: int,
) -> list[CheckResult]:
    """``label_not_null``, ``label_in_domain``, ``at_least_two_classes`` and
    ``no_single_row_class``."""
    checks: list[CheckResult] = []
    # lazy: seconds to import; only when a suite runs
    import great_expectations.expectations as gxe

    label_frame = indexed[[label]]
    expectations: list[tuple[str, Any]] = [
        (
            "label_not_null",
            gxe.ExpectColumnValuesToNotBeNull(  # type: ignore[attr-defined]
                column=label
            ),
        )
    ]
    if label_domain is not None:
        expectations.append(
            (
                "label_in_domain",
                gxe.ExpectColumnValuesToBeInSet(  # type: ignore[attr-defined]
                    column=label, value_set=[_plain(v) for v in label_domain]
                ),
            )
        )
    outcomes = run_expectations(label_frame, expectations, max_examples=max_examples)
    checks.append(
        ge_check(
            outcomes.get("label_not_null"),
            name="label_not_null",
            column=label,
            description=f"every row has a label in {label!r}",
            fail_message="{count} row(s) have no label in "
            + repr(label)
            + "; they are discarded (reason missing_label) and not fitted on.",
            pass_message="every row has a label.",
            severity="warning",
        )
    )
    if label_domain is not None:
        domain = [_plain(v) for v in label_domain]
        allowed = set(domain)
        outside = [
            _plain(v)
            for v in frame[label].dropna().unique()
            if _plain(v) not in allowed
        ][:5]
        hint = spelling_hint(outside, domain, "expected label")
        detail = f" ({outside!r}; expected one of {domain!r}){hint}".replace(
            "{", "{{"
        ).replace("}", "}}")
        checks.append(
            ge_check(
                outcomes.get("label_in_domain"),
                name="label_in_domain",
                column=label,
                description=f"labels lie in {domain}",
                fail_message="{count} row(s) have a label outside the expected "
                "domain" + detail + "; fix them or widen the domain.",
                pass_message="every label lies in the expected domain.",
            )
        )
    checks += class_count_checks(frame, label, max_examples)
    checks += label_warnings(frame, label, max_examples)
    return checks


def class_count_checks(frame: Any, label: str, max_examples: int) -> list:
    """``at_least_two_classes`` and ``no_single_row_class``."""
    checks: list[CheckResult] = []
    counts = frame[label].value_counts(dropna=True)
    n_classes = len(counts)
    checks.append(
        CheckResult(
            name="at_least_two_classes",
            description="the labels hold at least two classes",
            success=n_classes >= 2,
            column=label,
            engine="pandas",
            message=(
                f"{n_classes} classes."
                if n_classes >= 2
                else f"{n_classes} class(es) in {label!r}; labelclean needs at "
                "least two to find wrong labels."
            ),
            details={"class_counts": {str(k): int(v) for k, v in counts.items()}},
        )
    )
    checks.append(single_row_check(counts.to_dict(), label, max_examples))
    return checks


def single_row_check(
    counts: dict[Any, int], label: Any, max_examples: int, fitted: bool = True
) -> CheckResult:
    """``no_single_row_class``: a warning where some classes have a single
    row. On the rows a pipeline is fitted on (``fitted``), an error where
    every one of them does on :data:`MIN_ROWS_FOR_ID` rows or more: the
    label then numbers the rows, as an id does, and no label has another of
    its class to be checked against. Counted over the batches a run decides
    (not ``fitted``; ``apply``'s new rows may hold a few rows of many
    classes), it stays a warning and does not say why."""
    single = [k for k, v in counts.items() if v == 1]
    every = fitted and len(single) >= MIN_ROWS_FOR_ID and len(single) == len(counts)
    named = [_plain(v) for v in single[:5]]
    if every:
        message = (
            f"every one of the {len(single)} classes in {label!r} has a single "
            "row, as a row id's values do: no label can be checked against "
            "another of its class; choose the label column (--label)."
        )
    elif single:
        why = "; such labels cannot be checked against neighbours." if fitted else "."
        message = f"class(es) {named} have a single row{why}"
    else:
        message = "every class has at least two rows."
    return CheckResult(
        name="no_single_row_class",
        description="every class has at least two rows",
        success=not single,
        severity="error" if every else "warning",
        column=label,
        engine="pandas",
        unexpected_count=len(single),
        examples=[_plain(v) for v in single[:max_examples]],
        message=message,
    )
