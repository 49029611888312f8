"""Exceptions raised by labelclean.

Every labelclean error derives from :class:`LabelcleanError` and from the builtin
that matches it, so ``except ValueError`` keeps working for callers that do not
know labelclean. Each class carries the exit code the command-line interface
uses for it, so that a job runner can tell the classes of failure apart.
"""

__all__ = [
    "CompilationCacheWarning",
    "DataValidationError",
    "GuardrailError",
    "GuardrailWarning",
    "InputFileError",
    "LabelWritingWarning",
    "LabelcleanError",
    "OutputError",
    "PipelineDefinitionError",
]


class LabelcleanError(Exception):
    """Base class of every error labelclean raises on purpose."""

    exit_code = 1


class DataValidationError(LabelcleanError, ValueError):
    """The data (features or labels) cannot be used as given."""

    exit_code = 3


class InputFileError(LabelcleanError, OSError):
    """An input file or folder is missing, unreadable or not parquet."""

    exit_code = 4


class OutputError(LabelcleanError, OSError):
    """The output location cannot be written safely."""

    exit_code = 5


class PipelineDefinitionError(LabelcleanError, ValueError):
    """A pipeline definition or a fitted pipeline file is invalid."""

    exit_code = 6


class GuardrailError(LabelcleanError, RuntimeError):
    """The run finished and wrote its outputs, but a guardrail failed.

    ``cautions`` holds the run's ``report.json`` cautions (``{"code",
    "message"}`` each; empty where the error does not come from a run), which
    the command line prints before the error line.
    """

    exit_code = 7

    def __init__(self, *args: object, cautions=()) -> None:
        super().__init__(*args)
        self.cautions = list(cautions)


class LabelWritingWarning(UserWarning):
    """Labels whose writing says something is wrong: one class written
    several ways (``'yes'`` and ``'Yes '``), or a missing value written as a
    label (``'N/A'``). Each is read as a class of its own; nothing is merged
    (docs/validation.md, *How the labels are written*)."""


class GuardrailWarning(UserWarning):
    """A fit whose decisions fail an output guardrail at the shipped
    pipelines' limits: more than half of a class discarded or corrected into
    another class (``class_net_change``), or far more rows flagged than the
    estimated noise explains (``flagged_vs_noise``). ``labelclean run`` with
    those pipelines withholds the cleaned rows and exits 7 on the same checks;
    a fit in Python keeps its decisions and says so with this warning
    (docs/validation.md, *Output guardrails*)."""


class CompilationCacheWarning(UserWarning):
    """numba finds no folder it can write its compiled code to (no writable
    ``NUMBA_CACHE_DIR``, package folder or user cache folder), so every
    process compiles labelclean's trees and neighbour counts again
    (docs/scale.md, *A first run on a fresh machine*)."""
