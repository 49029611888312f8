"""The output guardrails a fit's own decisions would fail, said as warnings.

``labelclean run`` checks its output with the pipeline's ``[validation]``
limits and, with the shipped pipelines, withholds the cleaned rows when a
class loses more than half of its rows or the flags far outrun the estimated
noise. A fit in Python (``LabelCleaner.fit``, ``fit_resample`` inside an ETL
job or an imbalanced-learn pipeline) has no such step, so without this a
class could lose most of its rows in silence. :func:`warn_failed_guardrails`
runs the same checks (:func:`labelclean.validation._guardrails.change_checks`,
the same arithmetic) at the shipped limits on the fit's decisions and warns
(:class:`~labelclean.exceptions.GuardrailWarning`) for each that fails. The
decisions stand: a warning, not a refusal, as the fit has no output to
withhold.
"""

import warnings
from typing import Any

import numpy as np

from labelclean.exceptions import GuardrailWarning
from labelclean.validation._guardrails import change_checks

__all__ = ["SHIPPED_MAX_CHANGED_SHARE", "class_change_counts", "warn_failed_guardrails"]

#: ``max_changed_share_per_class`` of the shipped pipelines (``pipelines/``).
SHIPPED_MAX_CHANGED_SHARE = 0.5


def class_change_counts(
    labels: list, codes: np.ndarray, decision: np.ndarray, new_codes: np.ndarray
) -> dict[Any, dict[str, int]]:
    """Per observed class: its rows, those discarded, those corrected out.

    The counts :meth:`labelclean.report.AuditSummary.class_counts` gives the
    output suite, read from the decisions alone: a whole summary of the
    fit's audit (distributions, examples, suspects) would cost a large fit
    what the run's own summary already costs it once (a test keeps the two
    equal).
    """
    n_classes = len(labels)

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(codes[mask], minlength=n_classes)

    every = np.ones(codes.shape[0], dtype=bool)
    observed, discarded = count(every), count(decision == "discarded")
    moved = count((decision == "corrected") & (new_codes != codes))
    return {
        label: {
            "n_observed": int(observed[k]),
            "discarded": int(discarded[k]),
            "corrected_out": int(moved[k]),
        }
        for k, label in enumerate(labels)
    }


def warn_failed_guardrails(
    labels: list,
    codes: np.ndarray,
    decided: tuple,
    calibration: dict[str, Any] | None,
) -> None:
    """Warn once for each of ``class_net_change`` (at
    :data:`SHIPPED_MAX_CHANGED_SHARE`) and ``flagged_vs_noise`` that the
    decisions fail.

    Parameters
    ----------
    labels : list
        The classes (``classes_``) as plain values, in code order.
    codes : ndarray of shape (n_samples,)
        Observed label codes.
    decided : tuple
        ``LabelCleaner._decide``'s result: decisions, reasons, new codes, ...
    calibration : dict or None
        The fit's ``calibration_``: adds ``flagged_vs_noise`` and each class's
        estimated share of wrong labels to the message.
    """
    decision, _, new_codes = decided[:3]
    counts = class_change_counts(labels, codes, decision, new_codes)
    checks = change_checks(
        counts,
        max_changed_share_per_class=SHIPPED_MAX_CHANGED_SHARE,
        calibration=calibration,
    )
    for check in checks:
        if not check.success:
            warnings.warn(
                f"{check.name}: {check.message} labelclean run with the shipped "
                "pipelines would withhold these cleaned rows and exit 7; the "
                "fit's decisions stand (docs/validation.md).",
                GuardrailWarning,
                stacklevel=5,  # the caller of LabelCleaner.fit (through _fit_context)
            )
