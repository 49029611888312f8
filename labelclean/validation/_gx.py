"""Running value-level expectations through an ephemeral great-expectations context.

great-expectations (1.x) is imported lazily, inside :func:`run_expectations`,
with the recipe of the project's ecosystem notes: ``GX_ANALYTICS_ENABLED`` set
to ``False``, an in-memory (ephemeral) context that writes no files, and
progress bars off. :func:`ge_check` turns one expectation's outcome into a
:class:`~labelclean.validation.CheckResult`; an expectation that could not be
evaluated (GE reports its exception in ``exception_info``, flat or nested)
becomes a failed check that says so, never a silent pass.
"""

import logging
import os
from collections.abc import Sequence
from typing import Any

from labelclean.validation._results import CheckResult, _plain

__all__ = ["ge_check", "run_expectations"]


def run_expectations(
    frame: Any,
    expectations: Sequence[tuple[str, Any]],
    *,
    max_examples: int,
) -> dict[str, dict[str, Any]]:
    """Validate ``frame`` against ``(key, expectation)`` pairs in one batch.

    Returns, per key, ``success``, ``unexpected_count``,
    ``unexpected_percent``, ``element_count``, ``missing_count``,
    ``examples`` (row index values) and ``error`` (exception text or None).
    """
    if not expectations:
        return {}
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    logging.getLogger("great_expectations").setLevel(logging.WARNING)
    # lazy: seconds to import; only when a suite runs
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    # Some great-expectations modules set their own logger to INFO on import
    # (e.g. "Created temporary directory ... for ephemeral docs site"), which
    # would put noise next to the CLI's one-line messages on stderr.
    for name, item in logging.root.manager.loggerDict.items():
        if (
            name.startswith("great_expectations.")
            and isinstance(item, logging.Logger)
            and logging.NOTSET < item.level < logging.WARNING
        ):
            item.setLevel(logging.WARNING)

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    batch_definition = (
        context.data_sources.add_pandas("labelclean")
        .add_dataframe_asset("frame")
        .add_batch_definition_whole_dataframe("whole")
    )
    suite = context.suites.add(gx.ExpectationSuite(name="labelclean"))
    keys_by_id: dict[str, str] = {}
    for key, expectation in expectations:
        added = suite.add_expectation(expectation)
        keys_by_id[str(added.id)] = key
    # An unnamed index makes GE report unexpected rows by index value alone
    # (a named one gives dicts of the row's values).
    batch = batch_definition.get_batch(
        batch_parameters={"dataframe": frame.rename_axis(index=None)}
    )
    result = batch.validate(
        suite,
        result_format={
            "result_format": "COMPLETE",
            "partial_unexpected_count": max_examples,
        },
    )
    out: dict[str, dict[str, Any]] = {}
    for r in result.results:
        config = r.expectation_config
        found = None if config is None else keys_by_id.get(str(config.id))
        if found is None:  # pragma: no cover - defensive
            continue
        info = r.result or {}
        error = None
        exc_info = r.exception_info or {}
        if exc_info.get("raised_exception"):
            error = exc_info.get("exception_message")
        else:
            for nested in exc_info.values():
                if isinstance(nested, dict) and nested.get("raised_exception"):
                    error = nested.get("exception_message")
                    break
        out[found] = {
            "success": bool(r.success),
            "unexpected_count": info.get("unexpected_count"),
            "unexpected_percent": info.get("unexpected_percent"),
            "element_count": info.get("element_count"),
            "missing_count": info.get("missing_count"),
            "examples": list(info.get("unexpected_index_list") or [])[:max_examples],
            "error": error,
        }
    return out


def ge_check(
    outcome: dict[str, Any] | None,
    *,
    name: str,
    column: str,
    description: str,
    fail_message: str,
    pass_message: str,
    severity: str = "error",
) -> CheckResult:
    if outcome is None or outcome.get("error"):
        error = None if outcome is None else outcome.get("error")
        return CheckResult(
            name=name,
            description=description,
            success=False,
            severity=severity,
            column=column,
            engine="great_expectations",
            message=f"{description}: could not be evaluated ({error}).",
        )
    count = int(outcome["unexpected_count"] or 0)
    percent = outcome["unexpected_percent"]
    success = bool(outcome["success"])
    return CheckResult(
        name=name,
        description=description,
        success=success,
        severity=severity,
        column=column,
        engine="great_expectations",
        unexpected_count=count,
        unexpected_percent=None if percent is None else float(percent),
        examples=[_plain(v) for v in outcome["examples"]],
        message=pass_message if success else fail_message.format(count=count),
        details={"missing_count": outcome.get("missing_count")},
    )
