"""``labelclean review export``: the rows worth a person's time.

A run's audit holds, for every row, the calibrated probability that its label
is wrong (``noise_probability``). A reviewer's verdict changes the outcome
most where that probability is least settled: near one half the evidence
cannot tell a wrong label from a hard case, while near 0 or 1 the decision
already stands. So the rows are ranked by ``1 - |2p - 1|`` (1 at p = 0.5),
then by p, then by how little the evidence supports the observed label (one
minus the mean of ``confidence`` and ``model_probability``), then by input
order, and the first ``max_rows`` are exported
with their features, observed label, labelclean's proposal, its evidence in
words and an empty ``verdict`` column: parquet, CSV, or the task JSON that
Label Studio imports.
"""

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from labelclean.exceptions import DataValidationError, InputFileError, OutputError
from labelclean.io import (
    atomic_write_text,
    inspect_parquet,
    read_parquet,
    read_report_json,
    schema_field_types,
    write_parquet,
)
from labelclean.report import to_jsonable
from labelclean.report._why import flags_nothing, unchecked_labels, why

__all__ = [
    "export_review",
    "label_studio_config",
    "load_run",
    "review_rows",
    "to_label_studio",
]

#: Columns of the exported file, after ``row_id`` and the user's features.
REVIEW_COLUMNS = (
    "observed_label",
    "decision",
    "reason",
    "proposal",
    "noise_probability",
    "priority",
    "why",
    "verdict",
)


def _audit_path(run_dir: str | os.PathLike[str]) -> Path:
    folder = Path(run_dir)
    for name in ("audit.parquet", "audit"):
        if (folder / name).exists():
            return folder / name
    raise InputFileError(f"no audit.parquet in {str(folder)!r}.")


def load_run(run_dir: str | os.PathLike[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The audit (``audit.parquet`` or ``audit/``) and ``report.json`` of a run."""
    report = read_report_json(Path(run_dir))
    return read_parquet(_audit_path(run_dir)), report


def run_audit_schema(run_dir: str | os.PathLike[str]) -> Any:
    """The Arrow schema of a run's audit (read from the file footers)."""
    return inspect_parquet(_audit_path(run_dir)).schema


def evidence_against(audit: pd.DataFrame) -> np.ndarray:
    """1 - the mean of the stages' probabilities of the observed label
    (the audit's ``confidence`` and ``model_probability``, whichever it has;
    0 for a row with neither): how little the evidence supports each label
    before any calibration.

    Breaks ties of ``noise_probability``: where the run read the data
    cautiously (classes the evidence does not tell apart are assumed clean),
    every row's probability can be 0, and input order would pick the rows.
    ``benchmarks/real_data.py`` ranks the flips by it too.
    """
    columns = [c for c in ("confidence", "model_probability") if c in audit.columns]
    if not columns:
        return np.zeros(len(audit))
    values = audit[columns].apply(pd.to_numeric, errors="coerce")
    # a row with no evidence at all ranks last among its ties
    return (1.0 - values.mean(axis=1)).fillna(0.0).to_numpy(dtype=np.float64)


def review_rows(
    audit: pd.DataFrame, report: dict[str, Any], *, max_rows: int = 200
) -> pd.DataFrame:
    """The ``max_rows`` rows whose verdict would change the outcome most.

    Returns
    -------
    rows : DataFrame
        ``row_id``, the run's features, then :data:`REVIEW_COLUMNS`; ranked.
    """
    if "noise_probability" not in audit.columns:
        raise DataValidationError(
            "the audit has no noise_probability (a run with fixed thresholds); "
            "review export needs a calibrated run."
        )
    if max_rows < 1:
        raise ValueError(f"max_rows must be at least 1, got {max_rows}.")
    run = report.get("run") or {}
    id_column = (report.get("input") or {}).get("id_column")
    features = [c for c in run.get("features") or [] if c in audit.columns]
    p = pd.to_numeric(audit["noise_probability"], errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    priority = 1.0 - np.abs(2.0 * p - 1.0)
    against = evidence_against(audit)
    candidates = np.flatnonzero(np.isfinite(p))
    keys = (candidates, -against[candidates], -p[candidates], -priority[candidates])
    order = candidates[np.lexsort(keys)][:max_rows]
    picked = audit.iloc[order]
    row_id = (
        picked[id_column].to_numpy()
        if id_column in audit.columns
        else order.astype(np.int64)
    )
    proposal = np.where(
        picked["decision"].to_numpy() == "corrected",
        picked["cleaned_label"].astype(object).to_numpy(),
        np.where(
            picked["decision"].to_numpy() == "discarded",
            picked.get("trusted_label", picked["observed_label"])
            .astype(object)
            .to_numpy(),
            picked["observed_label"].astype(object).to_numpy(),
        ),
    )
    records = picked.to_dict("records")
    out = pd.DataFrame({"row_id": row_id})
    for c in features:
        out[c] = _values(picked[c])
    out["observed_label"] = _values(picked["observed_label"])
    out["decision"] = picked["decision"].to_numpy()
    out["reason"] = picked["reason"].to_numpy()
    out["proposal"] = proposal
    out["noise_probability"] = p[order]
    out["priority"] = priority[order]
    calibration = run.get("calibration")
    unchecked, silent = unchecked_labels(calibration), flags_nothing(calibration)
    copies = [c["column"] for c in run.get("label_copies") or ()]
    out["why"] = [
        why({k: to_jsonable(v) for k, v in r.items()}, unchecked=unchecked,
            silent=silent, copies=copies)
        for r in records
    ]  # fmt: skip
    out["verdict"] = pd.Series([None] * len(out), dtype=object)
    return out


def _values(column: pd.Series) -> Any:
    """A column's values to copy: integers with a missing value stay integers
    (``to_numpy`` makes them floats, and a code above 2**53 loses digits)."""
    return column.array if column.dtype.kind in "iu" else column.to_numpy()


def to_label_studio(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """Label Studio tasks: one per row, with labelclean's proposal as a
    prediction (``from_name`` ``verdict``, ``to_name`` ``row``, choices).

    The ``data`` of each task holds ``row_id``, a ``text`` line describing the
    row (its features and evidence) and every exported column; see
    :data:`LABEL_STUDIO_CONFIG` for the labelling interface that shows it. A
    row the run took as right without checking it (reason ``not_checked``),
    or kept because it flags no row (``weak_evidence``), has no prediction:
    labelclean proposes nothing there, and a pre-selected observed label
    would only invite its confirmation.
    """
    tasks = []
    for i, record in enumerate(rows.drop(columns="verdict").to_dict("records")):
        data = {str(k): to_jsonable(v) for k, v in record.items()}
        features = [
            f"{k} = {data[k]}" for k in data if k not in ("row_id", *REVIEW_COLUMNS)
        ]
        data["text"] = (
            f"row {data['row_id']}: " + ", ".join(features)
            + f". Observed label: {data['observed_label']}. {data['why']}"
        )  # fmt: skip
        task = {"id": i + 1, "data": data}
        if data.get("reason") not in ("not_checked", "weak_evidence"):
            choice = {"choices": [str(data["proposal"])]}
            task["predictions"] = [
                {
                    "model_version": "labelclean",
                    "score": data["noise_probability"],
                    "result": [
                        {"from_name": "verdict", "to_name": "row",
                         "type": "choices", "value": choice}
                    ],
                }
            ]  # fmt: skip
        tasks.append(task)
    return tasks


def label_studio_config(labels: list[Any]) -> str:
    """The labelling interface for the exported tasks (Label Studio XML)."""
    choices = "\n".join(f'    <Choice value="{_xml(v)}"/>' for v in labels)
    return (
        "<View>\n"
        '  <Text name="row" value="$text"/>\n'
        '  <Choices name="verdict" toName="row" choice="single" showInLine="true">\n'
        f"{choices}\n"
        "  </Choices>\n"
        "</View>\n"
    )


def _xml(value: Any) -> str:
    return (
        str(value)
        .replace("&", "&amp;")
        .replace('"', "&quot;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
    )


def export_review(
    run_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    max_rows: int = 200,
    overwrite: bool = False,
) -> pd.DataFrame:
    """Write the review file of a run: ``.parquet``, ``.csv`` or ``.json``
    (Label Studio tasks, with the labelling interface beside it as
    ``<name>.label_config.xml``).

    Returns
    -------
    rows : DataFrame
        The exported rows (see :func:`review_rows`).
    """
    out = Path(out)
    run = Path(run_dir).resolve()
    if out.resolve().is_relative_to(run):
        raise InputFileError(
            f"{str(out)!r} lies inside the run folder {str(run_dir)!r}, which "
            "labelclean replaces as a unit; write the review file elsewhere."
        )
    if out.exists() and not overwrite:
        raise OutputError(
            f"{str(out)!r} already exists; choose another file or pass --overwrite."
        )
    audit, report = load_run(run_dir)
    rows = review_rows(audit, report, max_rows=max_rows)
    suffix = out.suffix.lower()
    if suffix == ".parquet":
        # the run's types for the columns copied from its audit
        given = schema_field_types(run_audit_schema(run_dir))
        types = {c: given[c] for c in rows.columns if c in given and c != "row_id"}
        write_parquet(rows, out, preserve_index=False, field_types=types)
    elif suffix == ".csv":
        atomic_write_text(out, rows.to_csv(index=False))
    elif suffix == ".json":
        atomic_write_text(out, json.dumps(to_label_studio(rows), indent=2) + "\n")
        labels = [c["label"] for c in report.get("classes") or [] if c["n_observed"]]
        atomic_write_text(
            out.with_suffix(".label_config.xml"), label_studio_config(labels)
        )
    else:
        raise InputFileError(
            f"{str(out)!r}: give a .parquet, .csv or .json (Label Studio) file name."
        )
    return rows
