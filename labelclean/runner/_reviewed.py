"""Reviewed rows as known truth in a later ``run`` (``--reviewed FILE``).

A verdict file (what ``labelclean review apply`` takes) names rows of the
input by the id column (or, without one, by position) and gives their true
labels. The fit then learns from those labels instead of the observed ones,
so a wrong label a person has already fixed no longer misleads the
neighbours and models that judge the other rows; and those rows are never
flagged: their audit says ``reviewed``, their cleaned label is the verdict.
"""

from typing import Any

import numpy as np
import pandas as pd

from labelclean.exceptions import DataValidationError
from labelclean.review import read_verdicts

__all__ = ["mark_reviewed", "reviewed_rows"]


def reviewed_rows(
    frame: pd.DataFrame, path: Any, label: str, id_column: str | None
) -> tuple[np.ndarray, np.ndarray]:
    """Positions in ``frame`` of the reviewed rows, and their verdicts."""
    verdicts = read_verdicts(path)
    keys = frame[id_column] if id_column else pd.Series(np.arange(len(frame)))
    lookup = {str(k): i for i, k in enumerate(keys.tolist())}
    classes = {str(v): v for v in pd.unique(frame[label].dropna())}
    positions, labels, problems = [], [], []
    unknown = [r for r in verdicts["row_id"] if str(r) not in lookup]
    outside = [v for v in verdicts["verdict"] if str(v).strip() not in classes]
    dupes = verdicts["row_id"].astype(str)
    dupes = sorted(set(dupes[dupes.duplicated()]))
    if unknown:
        problems.append(f"{len(unknown)} unknown row id(s) {unknown[:5]!r}")
    if outside:
        problems.append(
            f"{len(outside)} verdict(s) outside the input's classes "
            f"{sorted(set(map(str, outside)))[:5]!r}"
        )
    if dupes:
        problems.append(f"{len(dupes)} row(s) with two verdicts {dupes[:5]!r}")
    if problems:
        raise DataValidationError(
            "the reviewed rows cannot be used: " + "; ".join(problems) + "."
        )
    for r, v in zip(verdicts["row_id"], verdicts["verdict"], strict=True):
        positions.append(lookup[str(r)])
        labels.append(classes[str(v).strip()])
    return np.asarray(positions, dtype=np.int64), np.asarray(labels, dtype=object)


def mark_reviewed(
    audit: pd.DataFrame, positions: np.ndarray, original: np.ndarray
) -> pd.DataFrame:
    """The fit's audit with the reviewed rows as a person decided them.

    ``audit`` was computed with the verdicts as labels; the reviewed rows get
    their original observed label back, the verdict as cleaned label, the
    decision that follows (kept or corrected) and reason ``reviewed``.
    """
    audit = audit.copy()
    verdict = audit["observed_label"].to_numpy(dtype=object)[positions]
    observed = np.array(audit["observed_label"], dtype=object)
    cleaned = np.array(audit["cleaned_label"], dtype=object)
    decision = np.array(audit["decision"], dtype=object)
    reason = np.array(audit["reason"], dtype=object)
    observed[positions] = original
    cleaned[positions] = verdict
    decision[positions] = np.where(verdict == original, "kept", "corrected")
    reason[positions] = "reviewed"
    dtype = audit["observed_label"].dtype
    audit["observed_label"] = pd.Series(observed, index=audit.index).astype(dtype)
    audit["cleaned_label"] = pd.Series(cleaned, index=audit.index).astype(dtype)
    audit["decision"] = decision
    audit["reason"] = reason
    return audit
