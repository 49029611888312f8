"""Results of validation: one :class:`CheckResult` per check, grouped in a suite.

Both are plain dataclasses; :meth:`ValidationResult.to_dict` gives the
JSON-serialisable form the report stores (``report.json`` -> ``validation``).
"""

from dataclasses import dataclass, field
from typing import Any

from labelclean.exceptions import DataValidationError
from labelclean.report import to_jsonable

__all__ = ["CheckResult", "ValidationResult"]


#: Row ids, labels and values in check results: JSON types, as in the report.
_plain = to_jsonable


def _examples_of(frame: Any, mask: Any, max_examples: int) -> list[Any]:
    return [_plain(v) for v in frame.index[mask][:max_examples].tolist()]


def _index_by_id(frame: Any, id_column: str | None) -> Any:
    """A frame whose index is the row identity reported in examples."""
    if id_column is not None and id_column in frame.columns:
        return frame.set_index(id_column, drop=False)
    return frame


@dataclass
class CheckResult:
    """The outcome of one check.

    Attributes
    ----------
    name : str
        Stable snake_case identifier, e.g. ``'label_not_null'``.
    description : str
        What was expected, in words.
    success : bool
    severity : {'error', 'warning'}
        Only failed errors make the result fail.
    column : str or None
        The column checked, if one.
    engine : {'schema', 'pandas', 'great_expectations'}
        What evaluated the check.
    unexpected_count : int or None
        Rows (or columns, classes for aggregate checks) that broke it.
    unexpected_percent : float or None
        ``unexpected_count`` as a percentage of the rows considered.
    examples : list
        Up to ``max_examples`` row ids (or column names, labels).
    message : str
        One sentence: what is wrong and how to fix it, or what passed.
    details : dict
        Extra JSON-serialisable facts (limits, observed values).
    """

    name: str
    description: str
    success: bool
    severity: str = "error"
    column: str | None = None
    engine: str = "pandas"
    unexpected_count: int | None = None
    unexpected_percent: float | None = None
    examples: list[Any] = field(default_factory=list)
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return {
            "name": self.name,
            "description": self.description,
            "success": bool(self.success),
            "severity": self.severity,
            "column": None if self.column is None else str(self.column),
            "engine": self.engine,
            "unexpected_count": self.unexpected_count,
            "unexpected_percent": self.unexpected_percent,
            "examples": [_plain(v) for v in self.examples],
            "message": self.message,
            "details": {str(k): _json_details(v) for k, v in self.details.items()},
        }


def _json_details(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_details(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_details(v) for v in value]
    return _plain(value)


@dataclass
class ValidationResult:
    """The checks of one suite.

    Attributes
    ----------
    suite : str
        ``'labelclean_input'`` or ``'labelclean_output'``.
    checks : list of CheckResult
    """

    suite: str
    checks: list[CheckResult]

    @property
    def success(self) -> bool:
        """True when no check of severity ``'error'`` failed."""
        return all(c.success for c in self.checks if c.severity == "error")

    @property
    def failures(self) -> list[CheckResult]:
        """Failed checks of severity ``'error'``."""
        return [c for c in self.checks if not c.success and c.severity == "error"]

    @property
    def warnings(self) -> list[CheckResult]:
        """Failed checks of severity ``'warning'``."""
        return [c for c in self.checks if not c.success and c.severity == "warning"]

    def check(self, name: str, column: str | None = None) -> CheckResult:
        """The check called ``name`` (on ``column``, when given)."""
        for c in self.checks:
            if c.name == name and (column is None or c.column == column):
                return c
        raise KeyError(f"no check {name!r} in suite {self.suite!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form, as the report stores it."""
        return {
            "suite": self.suite,
            "success": self.success,
            "n_checks": len(self.checks),
            "n_failed": len(self.failures),
            "n_warnings": len(self.warnings),
            "checks": [c.to_dict() for c in self.checks],
        }

    def raise_for_errors(self) -> None:
        """Raise :class:`DataValidationError` naming the failed checks, if any."""
        if self.failures:
            text = "; ".join(c.message for c in self.failures)
            raise DataValidationError(
                f"{len(self.failures)} check(s) of {self.suite} failed: {text}"
            )
