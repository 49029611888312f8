"""The audit table's column contract, and a check that a table honours it.

The audit has one row per input row: the user's columns unchanged, then the
columns named here (documented in ``docs/audit.md``). The decision columns
are required; the evidence columns are optional because not every pipeline
produces every kind of evidence (no KNN stage, no SPLBoost stage, ...), and
the report leaves out what is absent.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from labelclean.exceptions import DataValidationError

__all__ = [
    "AUDIT_COLUMNS",
    "DECISIONS",
    "DECISION_REASONS",
    "EVIDENCE_COLUMNS",
    "PROBABILITY_COLUMNS",
    "REQUIRED_AUDIT_COLUMNS",
    "check_audit_frame",
    "label_dtype_with_missing",
    "renamed_user_columns",
]

#: The three decisions, in the order reports show them.
DECISIONS: tuple[str, ...] = ("kept", "corrected", "discarded")

#: Every reason code with one sentence for the report.
DECISION_REASONS = {
    "ok": "no stage found the label doubtful enough",
    "not_checked": (
        "the evidence does not tell the row's class apart from the others, so "
        "the run took its label as right without checking it"
    ),
    "weak_evidence": (
        "the features agree with the labels too little (slight or fair "
        "agreement) for the run to flag any row, so the label was kept whatever "
        "its noise probability, which is a rough estimate here"
    ),
    "trusted_alternative": (
        "the confidence stage and the final model both trust another label "
        "above the correction threshold"
    ),
    "low_confidence": (
        "label confidence below the suspect threshold, the final model agrees the "
        "label is doubtful, and no alternative is trusted enough"
    ),
    "spl_zero_weight": (
        "SPLBoost gave the row zero weight, the final model agrees the label is "
        "doubtful, and no alternative is trusted enough"
    ),
    "low_confidence_and_spl_zero": (
        "low label confidence and zero SPLBoost weight, the final model agrees, "
        "and no alternative is trusted enough"
    ),
    "likely_mislabeled": (
        "the estimated probability that the label is wrong reaches the operating "
        "point calibrated on this data, and no other label is trusted by both "
        "stages"
    ),
    "reviewed": "a person reviewed the row; its cleaned label is the verdict",
    "outside_fit": (
        "a number of the row lies farther outside the range the model was "
        "fitted on than that range is wide, so no evidence reaches it and its "
        "label was kept as it came"
    ),
    "known_noise": (
        "the run was told what share of the labels is wrong, and the evidence "
        "doubts this label among the most, so the row is discarded to reach "
        "that share (not flagged by the evidence alone)"
    ),
    "correction_not_precise": (
        "the label is likely wrong, but the other class is not probable enough "
        "to relabel it (for this row, for corrections between these two classes "
        "on this data, because the evidence cannot tell it from a third "
        "class, because the evidence agrees with the labels too little to "
        "rewrite any, or because the data cannot rule out that the labels hold "
        "no wrong label at all), so the row is discarded"
    ),
    "missing_label": (
        "the row has no label, so there is nothing to check or to train on; "
        "trusted_label and model_label say what the fitted stages would label it"
    ),
}

#: Columns every audit holds.
REQUIRED_AUDIT_COLUMNS: tuple[str, ...] = (
    "decision",
    "reason",
    "observed_label",
    "cleaned_label",
)

#: Optional per-row evidence.
EVIDENCE_COLUMNS: tuple[str, ...] = (
    "confidence",
    "trusted_label",
    "trusted_probability",
    "spl_weight",
    "spl_zero_round",
    "model_probability",
    "model_label",
    "neighbor_label_counts",
    "noise_probability",
)

#: Evidence columns whose values lie in [0, 1], higher meaning "the observed
#: label is more likely right" (``trusted_probability`` is the probability of
#: the trusted label, not of the observed one).
PROBABILITY_COLUMNS: tuple[str, ...] = (
    "confidence",
    "model_probability",
    "spl_weight",
    "trusted_probability",
)

#: Every column labelclean adds to the user's columns.
AUDIT_COLUMNS: tuple[str, ...] = REQUIRED_AUDIT_COLUMNS + EVIDENCE_COLUMNS


def label_dtype_with_missing(dtype: Any) -> Any:
    """The dtype a label column of ``dtype`` takes once it holds a missing
    value (``cleaned_label`` of a discarded row): pandas' nullable integer
    for NumPy's, as a float would merge class codes above 2**53 with their
    neighbours; else what pandas gives."""
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        return pd.api.types.pandas_dtype(
            dtype.name.capitalize().replace("Uint", "UInt")
        )
    return pd.Series([], dtype=dtype).reindex([0]).dtype


def renamed_user_columns(
    columns: Sequence[Any], added: Sequence[str] = AUDIT_COLUMNS
) -> dict[Any, str]:
    """New names, in an output, for the user's columns named like ``added``.

    Real tables have columns called ``decision``, ``reason`` or
    ``confidence``. In the audit (and the output of ``score``) such a column
    keeps its values under ``<name>_input`` (``<name>_input_2``, ... when that
    name is taken too), so that labelclean's own columns keep their names;
    the cleaned data holds the user's columns as they came in.

    Parameters
    ----------
    columns : sequence
        The user's column names, in order.
    added : sequence of str, default=AUDIT_COLUMNS
        The columns labelclean adds next to them.

    Returns
    -------
    renamed : dict
        Old name to new name, for the clashing columns only (empty when none
        clashes), in the order of ``columns``.
    """
    taken = {str(c) for c in columns} | set(added)
    renamed: dict[Any, str] = {}
    for column in columns:
        if column not in added:
            continue
        new, k = f"{column}_input", 1
        while new in taken:
            k += 1
            new = f"{column}_input_{k}"
        taken.add(new)
        renamed[column] = new
    return renamed


def check_audit_frame(
    audit: Any, *, required: Sequence[str] = REQUIRED_AUDIT_COLUMNS
) -> None:
    """Raise a clear error when ``audit`` does not follow the audit contract.

    Parameters
    ----------
    audit : pandas.DataFrame
        The audit table.
    required : sequence of str, default=REQUIRED_AUDIT_COLUMNS
        Columns that must be present.

    Raises
    ------
    DataValidationError
        If ``audit`` is not a DataFrame, lacks a required column, has
        duplicate column names, or holds a decision outside
        :data:`DECISIONS`.
    """

    if not isinstance(audit, pd.DataFrame):
        raise DataValidationError(
            f"the audit must be a pandas DataFrame, got {type(audit).__name__}."
        )
    if audit.columns.has_duplicates:
        dupes = sorted({str(c) for c in audit.columns[audit.columns.duplicated()]})
        raise DataValidationError(f"the audit has duplicate column names {dupes}.")
    missing = [c for c in required if c not in audit.columns]
    if missing:
        raise DataValidationError(
            f"the audit lacks the column(s) {missing}; an audit holds the user's "
            f"columns plus {list(REQUIRED_AUDIT_COLUMNS)} (see docs/audit.md)."
        )
    decisions = audit["decision"]
    bad = decisions[~decisions.isin(DECISIONS)]
    if len(bad):
        examples = sorted({str(v) for v in bad.head(5)})
        raise DataValidationError(
            f"the audit's 'decision' column holds {len(bad)} value(s) outside "
            f"{list(DECISIONS)}, e.g. {examples}."
        )
