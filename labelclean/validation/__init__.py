"""Validation of inputs (expectations) and outputs (guardrails) of a run.

great-expectations is imported only when a validation runs, so importing this
package is cheap.
"""

from labelclean.validation._expectations import validate_input, validate_output
from labelclean.validation._results import CheckResult, ValidationResult

__all__ = ["CheckResult", "ValidationResult", "validate_input", "validate_output"]
