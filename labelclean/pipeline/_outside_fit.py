"""New rows whose features left the fit's range (``LabelCleaner.audit``).

Two readings of the fit's ``feature_profile_`` (``docs/drift.md``, *Features
that left the fit's range*):

- :func:`warn_shifted_features`: the rows of one call, taken together, hold a
  column with more missing values or more values outside the fit's range than
  rows drawn like the fit's would give (``labelclean apply``'s guardrail
  ``features_within_fit``): a :class:`~labelclean.exceptions.GuardrailWarning`;
- :func:`keep_far_rows`: a row with a number farther outside the fit's range
  than the range is wide is kept as it came, with reason ``outside_fit``: the
  evidence does not reach it, so it cannot justify changing its label. This
  reading is the row's own, so a row gets it in any batch.
"""

import warnings
from typing import Any

import numpy as np

from labelclean.exceptions import GuardrailWarning
from labelclean.utils._feature_profile import count_outside, rows_far_outside
from labelclean.validation import feature_shift_check
from labelclean.validation._shift import feature_shift

__all__ = ["keep_far_rows", "warn_shifted_features"]


def warn_shifted_features(profile: dict[str, Any] | None, X: Any) -> None:
    """Warn when the feature columns of new rows ``X`` left the fit's range
    (``profile``: ``feature_profile_``; None, a model fitted before it was
    kept, warns of nothing)."""
    if profile is None:
        return
    check = feature_shift_check(feature_shift(profile, count_outside(profile, X)))
    if not check.success:
        warnings.warn(
            f"{check.name}: {check.message}; the decisions stand but for rows "
            "far outside the fit's range (reason outside_fit; docs/drift.md).",
            GuardrailWarning,
            stacklevel=3,  # the caller of LabelCleaner.audit
        )


def keep_far_rows(
    profile: dict[str, Any] | None, X: Any, codes: np.ndarray, decided: tuple
) -> tuple:
    """``decided`` (decisions, reasons, new codes, noise probabilities of new
    rows) with every row of ``X`` far outside the fit's range
    (:func:`~labelclean.utils._feature_profile.rows_far_outside`) kept with
    its observed label ``codes``, reason ``outside_fit`` and no noise
    probability."""
    far = rows_far_outside(profile, X)
    if not far.any():
        return decided
    decision, reason, new_codes, noise = (np.array(a, copy=True) for a in decided)
    decision[far], reason[far], new_codes[far] = "kept", "outside_fit", codes[far]
    noise = noise.astype(np.float64)
    noise[far] = np.nan
    return decision, reason, new_codes, noise
