"""Validation of a run's input (expectations) and output (guardrails).

- :func:`validate_input`: the input suite, before anything is fitted;
- :class:`InputChecks`: the same suite over a stream of batches;
- :func:`output_checks`: the output suite of a run, from its audit's summary;
- :func:`validate_output`: the output suite on a whole audit table;
- :func:`feature_shift_check`: the guardrail ``features_within_fit`` of a
  batch decided by a fitted pipeline (``labelclean apply``).

great-expectations is imported only when a validation runs, so importing this
package is cheap.
"""

from labelclean.validation._batches import InputChecks
from labelclean.validation._input import validate_input
from labelclean.validation._output import output_checks, validate_output
from labelclean.validation._results import CheckResult, ValidationResult
from labelclean.validation._shift import feature_shift_check

__all__ = [
    "CheckResult",
    "InputChecks",
    "ValidationResult",
    "feature_shift_check",
    "output_checks",
    "validate_input",
    "validate_output",
]
