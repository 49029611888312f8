"""``labelclean review apply``: reviewers' verdicts into a new output folder.

The verdicts come as the exported file with its ``verdict`` column filled
(parquet or CSV; an empty verdict means "not reviewed"), or as a Label
Studio export (JSON: each task's ``data.row_id`` and its first
non-cancelled annotation's choice). They are checked before anything is
written: every row id must be a row of the run, every verdict one of the
run's classes, and no row may get two verdicts.

The new folder holds the run's cleaned rows with the reviewers' labels
applied (a reviewed row is kept under its verdict even if labelclean had
discarded it), the audit with ``review_label`` and ``reviewed`` columns
(reviewed rows get reason ``reviewed``), and ``review.json``: how often the
reviewers agreed with labelclean, per class: the measured precision of its
flags (a flagged row whose verdict is not its observed label) and of its
corrections (verdict equal to the corrected label).
"""

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from labelclean.exceptions import DataValidationError, InputFileError
from labelclean.io import OutputFolder, read_parquet, schema_field_types
from labelclean.report import build_report, render_html, to_jsonable
from labelclean.review._export import load_run, run_audit_schema

__all__ = ["apply_review", "read_verdicts"]


def read_verdicts(path: str | os.PathLike[str]) -> pd.DataFrame:
    """``row_id`` and ``verdict`` of every reviewed row of a verdict file."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            return _label_studio_verdicts(json.loads(path.read_text(encoding="utf-8")))
        if suffix == ".csv":
            frame = pd.read_csv(path, dtype={"verdict": object})
        else:
            frame = read_parquet(path)
    except FileNotFoundError as exc:
        raise InputFileError(f"verdict file {str(path)!r} does not exist.") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputFileError(f"cannot read {str(path)!r}: {exc}.") from exc
    missing = [c for c in ("row_id", "verdict") if c not in frame.columns]
    if missing:
        raise DataValidationError(
            f"{str(path)!r} lacks the column(s) {missing}; fill the `verdict` column "
            "of the file `labelclean review export` wrote."
        )
    frame = frame[["row_id", "verdict"]]
    filled = frame["verdict"].notna() & (frame["verdict"].astype(str).str.strip() != "")
    return frame[filled].reset_index(drop=True)


def _label_studio_verdicts(tasks: Any) -> pd.DataFrame:
    if not isinstance(tasks, list):
        raise DataValidationError("a Label Studio export is a JSON list of tasks.")
    rows = []
    for task in tasks:
        data = task.get("data") or {} if isinstance(task, dict) else {}
        if "row_id" not in data:
            raise DataValidationError(
                "a Label Studio task has no data.row_id; export the project whose "
                "tasks `labelclean review export` wrote."
            )
        for annotation in task.get("annotations") or []:
            if annotation.get("was_cancelled"):
                continue
            choices = [
                c
                for r in annotation.get("result") or []
                if r.get("from_name") == "verdict"
                for c in (r.get("value") or {}).get("choices") or []
            ]
            if choices:
                rows.append({"row_id": data["row_id"], "verdict": choices[0]})
                break
    return pd.DataFrame(rows, columns=["row_id", "verdict"])


def _match_labels(verdicts: pd.Series, classes: list[Any]) -> tuple[list, list]:
    """Each verdict as the run's class it names (by its text), and the unknown."""
    by_text = {str(c): c for c in classes}
    matched, unknown = [], []
    for v in verdicts.tolist():
        key = str(v).strip()
        if key in by_text:
            matched.append(by_text[key])
        else:
            matched.append(None)
            unknown.append(v)
    return matched, unknown


def _positions(
    audit: pd.DataFrame, report: dict[str, Any], row_ids: pd.Series
) -> tuple:
    id_column = (report.get("input") or {}).get("id_column")
    keys = (
        audit[id_column] if id_column in audit.columns else pd.Series(range(len(audit)))
    )
    lookup = {str(k): i for i, k in enumerate(keys.tolist())}
    positions, unknown = [], []
    for r in row_ids.tolist():
        i = lookup.get(str(r))
        positions.append(i)
        if i is None:
            unknown.append(r)
    return positions, unknown


def apply_review(
    run_dir: str | os.PathLike[str],
    verdicts_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    overwrite: bool | str = False,
) -> dict[str, Any]:
    """Apply reviewers' verdicts to a run; write a new output folder.

    Returns
    -------
    review : dict
        What ``review.json`` holds: counts and, per class, the agreement.

    Raises
    ------
    DataValidationError
        Unknown row ids, verdicts outside the run's classes, or two verdicts
        for one row (nothing is written).
    """
    audit, report = load_run(run_dir)
    verdicts = read_verdicts(verdicts_path)
    classes = [c["label"] for c in report.get("classes") or [] if c["n_observed"]]
    positions, unknown_rows = _positions(audit, report, verdicts["row_id"])
    labels, unknown_labels = _match_labels(verdicts["verdict"], classes)
    problems = []
    if unknown_rows:
        problems.append(f"{len(unknown_rows)} unknown row id(s) {unknown_rows[:5]!r}")
    if unknown_labels:
        problems.append(
            f"{len(unknown_labels)} verdict(s) outside the run's classes "
            f"{sorted(set(map(str, unknown_labels)))[:5]!r} (classes: {classes!r})"
        )
    dupes = verdicts["row_id"].astype(str)
    dupes = sorted(set(dupes[dupes.duplicated()]))
    if dupes:
        problems.append(f"{len(dupes)} row(s) with two verdicts {dupes[:5]!r}")
    if problems:
        raise DataValidationError(
            "the verdicts cannot be applied: " + "; ".join(problems) + "; fix the "
            "verdict file (nothing was written)."
        )
    reviewed = audit.copy()
    reviewed["review_label"] = pd.Series([None] * len(audit), dtype=object)
    reviewed["reviewed"] = False
    pos = np.asarray(positions, dtype=np.int64)
    reviewed.iloc[pos, reviewed.columns.get_loc("review_label")] = pd.Series(
        labels, dtype=object
    ).to_numpy()
    reviewed.iloc[pos, reviewed.columns.get_loc("reviewed")] = True
    summary = _agreement(audit.iloc[pos], labels, classes)
    observed = reviewed["observed_label"].astype(object).to_numpy()
    verdict = np.asarray(labels, dtype=object)
    cleaned = np.array(reviewed["cleaned_label"], dtype=object)  # writable copies
    decision = np.array(reviewed["decision"], dtype=object)
    reason = np.array(reviewed["reason"], dtype=object)
    cleaned[pos] = verdict
    decision[pos] = np.where(verdict == observed[pos], "kept", "corrected")
    reason[pos] = "reviewed"
    reviewed["cleaned_label"] = cleaned
    reviewed["decision"] = decision
    reviewed["reason"] = reason
    label_column = (report.get("input") or {}).get("label_column")
    audit_columns = set(audit.columns) - set(report["input"].get("user_columns") or [])
    user = [c for c in audit.columns if c not in audit_columns]
    kept = reviewed[reviewed["decision"] != "discarded"]
    cleaned_rows = kept[user].copy()
    if label_column in cleaned_rows.columns:
        cleaned_rows[label_column] = kept["cleaned_label"].array
    run = dict(report.get("run") or {}, review=summary)
    new_report = build_report(
        reviewed.drop(columns=["review_label", "reviewed"]),
        label=label_column,
        id_column=(report.get("input") or {}).get("id_column"),
        run=run,
    )
    with OutputFolder(
        out, inputs=[Path(run_dir), Path(verdicts_path)], overwrite=overwrite
    ) as folder:
        # the run's columns keep their types (a decimal's precision too)
        types = schema_field_types(run_audit_schema(run_dir))
        folder.write_parquet("audit.parquet", reviewed, field_types=types)
        folder.write_parquet("cleaned.parquet", cleaned_rows, field_types=types)
        folder.write_json("review.json", summary)
        folder.write_json("report.json", new_report)
        folder.write_text("report.html", render_html(new_report))
    return summary


def _agreement(rows: pd.DataFrame, labels: list[Any], classes: list[Any]) -> dict:
    """How often the reviewers agreed with labelclean, per observed class."""
    observed = rows["observed_label"].astype(object).to_numpy()
    decision = rows["decision"].astype(object).to_numpy()
    cleaned = rows["cleaned_label"].astype(object).to_numpy()
    verdict = np.asarray(labels, dtype=object)
    flagged = decision != "kept"
    wrong = verdict != observed
    corrected = decision == "corrected"
    per_class = []
    for c in classes:
        mine = observed == c
        f, k = flagged & mine, corrected & mine
        per_class.append(
            {
                "label": c,
                "reviewed": int(mine.sum()),
                "flagged_reviewed": int(f.sum()),
                "flag_precision": float(wrong[f].mean()) if f.any() else None,
                "corrections_reviewed": int(k.sum()),
                "correction_precision": (
                    float((verdict[k] == cleaned[k]).mean()) if k.any() else None
                ),
                "kept_but_wrong": int((~flagged & mine & wrong).sum()),
            }
        )
    return to_jsonable(
        {
            "format": "labelclean-review",
            "version": 1,
            "reviewed": len(rows),
            "labels_changed_by_reviewers": int(wrong.sum()),
            "flag_precision": float(wrong[flagged].mean()) if flagged.any() else None,
            "correction_precision": (
                float((verdict[corrected] == cleaned[corrected]).mean())
                if corrected.any()
                else None
            ),
            "classes": per_class,
        }
    )
