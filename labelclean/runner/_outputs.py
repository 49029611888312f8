"""The one output path of every run: decide the rows, write every file.

:func:`write_outputs` is called by :func:`~labelclean.runner.run_pipeline`
and :func:`~labelclean.runner.apply_model`, whatever the engine: the rows are
streamed through the fitted pipeline (:func:`~labelclean.runner._stream.stream_decide`
here, :func:`~labelclean.runner._dask.decide_dask` on a cluster), the audit
and the cleaned rows are appended as they are decided, the report's summary
(:class:`~labelclean.report.AuditSummary`) is folded batch by batch, and the
output guardrails (:func:`~labelclean.validation.output_checks`) are computed
from that summary. Then ``report.json``, ``report.html``, the model and
``manifest.json`` are written. Every file goes into an
:class:`~labelclean.io.OutputFolder`, published as one unit.
"""

import importlib.metadata as md
import logging
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from labelclean import __version__
from labelclean.exceptions import DataValidationError, GuardrailError, InputFileError
from labelclean.io import file_sha256, read_as, read_report_json, rewrite_owned_file
from labelclean.report import render_html
from labelclean.runner._dask import decide_dask
from labelclean.runner._stream import InputChecks, stream_decide
from labelclean.utils._audit import AUDIT_COLUMNS, DECISION_REASONS, DECISIONS
from labelclean.utils._features import MISSING_VALUE_HANDLING
from labelclean.validation import feature_shift_check, output_checks

logger = logging.getLogger(__name__)

__all__ = ["OUTPUT_NAMES", "RunResult", "render_report", "write_outputs"]

#: The files of an output folder, by role.
OUTPUT_NAMES = {
    "cleaned": "cleaned.parquet",
    "audit": "audit.parquet",
    "report_json": "report.json",
    "report_html": "report.html",
    "manifest": "manifest.json",
    "model": "model.skops",
}


def output_names(engine: str = "local") -> dict[str, str]:
    """The names an output folder holds, by role: :data:`OUTPUT_NAMES`, but
    with the Dask engine the audit and the cleaned rows are folders of parts
    (``audit/part.NNNNN.parquet``), named by the files' stems."""
    if engine != "dask":
        return dict(OUTPUT_NAMES)
    parts = {k: OUTPUT_NAMES[k].rsplit(".", 1)[0] for k in ("audit", "cleaned")}
    return {**OUTPUT_NAMES, **parts}


#: The top-level sections of ``report.json`` (report/_json.py, assemble_report).
REPORT_SECTIONS = (
    "run",
    "input",
    "summary",
    "classes",
    "corrections",
    "reasons",
    "distributions",
    "suspects",
    "examples",
    "validation",
    "evidence",
)


@dataclass
class RunResult:
    """What a run or an apply did."""

    out: Path
    n_rows: int
    decisions: dict[str, int]
    validation_success: bool
    failed_checks: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    #: ``report.json``'s ``cautions``: ``{"code", "message"}`` each.
    cautions: list[dict[str, str]] = field(default_factory=list)


class Written(NamedTuple):
    """What :func:`write_outputs` wrote, for :func:`finish`."""

    #: The output guardrails (a ``ValidationResult``).
    output_result: Any
    #: Rows per decision.
    counts: dict[str, int]
    #: ``report.json``'s ``cautions`` (``{"code", "message"}`` each).
    cautions: list[dict[str, str]]


def versions() -> dict[str, str]:
    """Versions of labelclean, Python and the libraries that shape the outputs."""

    out = {"labelclean": __version__, "python": platform.python_version()}
    for name in ("numpy", "pandas", "scikit-learn", "scipy", "pyarrow", "skops"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:  # pragma: no cover
            out[name] = "not installed"
    return out


def neighbour_info(cleaner: Any) -> dict[str, Any]:
    """The report's record of the confidence's neighbours: how the distance
    weighed the columns (``neighbour_distance``) and read the numbers
    (``neighbour_scale``), and the neighbourhood asked for and used
    (``neighbourhood``: ``asked``, ``used``, the ``rows`` it was read in;
    None for a confidence without neighbours)."""
    confidence = getattr(cleaner, "confidence_estimator_", None)
    used = getattr(confidence, "n_neighbors_", None)
    return {
        "neighbour_distance": getattr(confidence, "feature_weighting_", None),
        "neighbour_scale": getattr(confidence, "feature_ranking_", None),
        "neighbourhood": None
        if used is None
        else {
            "asked": int(confidence.n_neighbors),
            "used": int(used),
            "rows": int(confidence.in_reduced_set_.sum()),
        },
    }


def input_files(source: Any) -> list[dict[str, Any]]:
    """Path, rows and SHA-256 of every input file (report and manifest), and
    ``read_as``: the columns read in a type common to a folder's files."""
    files = []
    own = source.file_schemas or (source.schema,) * len(source.files)
    for path, rows, schema in zip(source.files, source.file_rows, own, strict=True):
        entry = {"path": str(path), "rows": int(rows), "sha256": file_sha256(path)}
        retyped = read_as(schema, source.schema)
        if retyped:
            entry["read_as"] = retyped
        files.append(entry)
    return files


def write_outputs(
    folder: Any,
    *,
    cleaner: Any,
    source: Any,
    label: str,
    id_column: str | None,
    features: list[str],
    run_info: dict[str, Any],
    guardrails: dict[str, Any],
    model_bytes: bytes | None,
    manifest: dict[str, Any],
    batch_size: int,
    input_validation: Any = None,
    check_batches: bool = True,
    fit_positions: Any = None,
    fit_audit: Any = None,
    engine: str = "local",
    scheduler: str | None = None,
    n_jobs: int | None = None,
    fail_on: str = "never",
    feature_profile: Any = None,
) -> Written:
    """Decide every row of ``source`` with ``cleaner`` and write every output.

    Parameters
    ----------
    folder : OutputFolder
        The open output folder.
    cleaner : LabelCleaner
        The fitted pipeline.
    source : ParquetSource
        The input.
    label, id_column, features
        Columns, as at fit time.
    run_info : dict
        The report's ``run`` section (the engine is added here).
    guardrails : dict
        The definition's ``[validation]`` limits.
    model_bytes : bytes or None
        ``model.skops``'s content; None writes no model (``apply``).
    manifest : dict
        ``manifest.json``'s content.
    batch_size : int
        Rows per streamed batch.
    input_validation : ValidationResult, default=None
        The input suite's result on the rows the pipeline was fitted on.
    check_batches : bool, default=True
        Run the input checks batch by batch as the rows stream by (off when
        ``input_validation`` covers every row already).
    fit_positions, fit_audit : ndarray and DataFrame, default=None
        Positions of the rows the cleaner was fitted on and their fit-time
        audit; those rows keep it (no row is judged by a model that saw its
        label).
    engine : {'local', 'dask'}, default='local'
    scheduler : str, default=None
        Dask scheduler address.
    n_jobs : int, default=None
        Batches decided at once by the local engine.
    fail_on : {'never', 'error'}, default='never'
        Whether a failed guardrail withholds the cleaned rows; the report's
        ``run.withholding`` says what happened (:func:`withhold_if_failed`
        then moves them).
    feature_profile : dict, default=None
        The fit's ``feature_profile_`` (``apply``): each batch's features are
        counted against it, giving ``run.feature_shift`` and the guardrail
        ``features_within_fit``.

    Returns
    -------
    written : Written
        The output guardrails, the rows per decision and ``report.json``'s
        ``cautions``.
    """
    if source.num_rows == 0:
        raise DataValidationError("the input has no rows; pass at least one row.")
    meta = {"run": {k: run_info[k] for k in ("pipeline", "seed") if k in run_info}}
    checks, names = None, output_names(engine)
    if check_batches:
        checks = InputChecks(
            label=label,
            features=list(features),
            classes=cleaner.classes_.tolist(),
            id_column=id_column,
            reserved_columns=AUDIT_COLUMNS,
            feature_profile=feature_profile,
            fitted_features=model_bytes is None,  # apply: the model's features
        )
    outcome, engine_info = _decide(
        cleaner,
        source,
        folder,
        engine,
        label=label,
        features=features,
        id_column=id_column,
        names=names,
        metadata=meta,
        checks=checks,
        fit_positions=fit_positions,
        fit_audit=fit_audit,
        batch_size=batch_size,
        scheduler=scheduler,
        n_jobs=n_jobs,
    )
    shift = None if checks is None else checks.shift()
    output_result = _output_suite(
        outcome.summary, guardrails, run_info.get("calibration"), shift
    )
    run_info = {
        **run_info,
        "feature_shift": shift,
        "engine": engine_info,
        "withholding": _withholding(output_result, fail_on, engine),
    }
    validation = [] if input_validation is None else [input_validation.to_dict()]
    validation += _streamed_validation(checks, run_info)
    validation.append(output_result.to_dict())
    report = outcome.summary.report(
        label=label,
        run=run_info,
        validation=validation,
        reason_descriptions=DECISION_REASONS,
    )
    folder.write_json(OUTPUT_NAMES["report_json"], report)
    folder.write_text(OUTPUT_NAMES["report_html"], render_html(report))
    if model_bytes is not None:
        folder.write_bytes(OUTPUT_NAMES["model"], model_bytes)
    outputs = {k: names[k] for k in manifest.get("outputs", {})}
    folder.write_json(OUTPUT_NAMES["manifest"], {**manifest, "outputs": outputs})
    return Written(output_result, outcome.summary.decisions, report["cautions"])


def _output_suite(
    summary: Any, guardrails: dict[str, Any], calibration: Any, shift: Any = None
) -> Any:
    """The output checks with the definition's ``[validation]`` limits, and
    ``features_within_fit`` where the batch's features were compared with
    the fit's (``shift``: ``run.feature_shift``)."""
    result = output_checks(
        summary,
        max_discarded_share=guardrails.get("max_discarded_share", 0.5),
        max_discarded_share_per_class=guardrails.get("max_discarded_share_per_class"),
        require_all_classes=guardrails.get("require_all_classes", True),
        max_changed_share_per_class=guardrails.get("max_changed_share_per_class"),
        calibration=calibration,
        max_examples=guardrails.get("max_examples", 10),
    )
    if shift is not None:
        result.checks.append(feature_shift_check(shift))
    return result


def _decide(
    cleaner, source, folder, engine, *, batch_size, scheduler, n_jobs, **common
):
    """Every row decided by ``engine``; the outcome and the report's engine entry."""
    if engine == "dask":
        outcome = decide_dask(cleaner, source, folder, scheduler=scheduler, **common)
        return outcome, {"name": "dask", "n_partitions": outcome.n_batches}
    outcome = stream_decide(
        cleaner, source, folder, batch_size=batch_size, n_jobs=n_jobs, **common
    )
    info = {"name": "stream", "batch_size": batch_size, "n_batches": outcome.n_batches}
    return outcome, info


def _streamed_validation(checks: Any, run_info: dict[str, Any]) -> list[dict]:
    """The input checks run batch by batch (none when ``checks`` is None);
    ``apply``'s missing values, counted on the new rows, go into ``run_info``."""
    if checks is None:
        return []
    streamed = checks.result()
    if checks.missing_labels:  # the fit's rows all had one; say so once
        logger.warning("%s", streamed.check("label_not_null").message)
    if "missing_values" not in run_info:  # apply: the new rows' own counts
        run_info["missing_values"] = {
            "columns": dict(checks.missing_counts),
            "handling": MISSING_VALUE_HANDLING,
        }
    return [streamed.to_dict()]


def _withholds(output_result: Any, fail_on: str) -> bool:
    """Whether a failed guardrail withholds the cleaned rows."""
    return bool(output_result.failures) and fail_on in ("error", "warning")


def _withholding(output_result: Any, fail_on: str, engine: str) -> dict[str, Any]:
    """The report's ``run.withholding``: the fail-on setting, the guardrails
    that failed, and the name the cleaned rows were withheld under (None when
    they are published)."""
    withheld = _withholds(output_result, fail_on)
    return {
        "fail_on": fail_on,
        "failed": [c.name for c in output_result.failures],
        "withheld": f"{output_names(engine)['cleaned']}.rejected" if withheld else None,
    }


def withhold_if_failed(
    folder: Any, output_result: Any, fail_on: str, engine: str = "local"
) -> None:
    """A failed guardrail with fail-on: the cleaned rows are not published
    under their usable name (``cleaned.parquet.rejected``, ``cleaned.rejected/``);
    the audit and the report, which say why, are."""
    if _withholds(output_result, fail_on):
        folder.withhold(output_names(engine)["cleaned"])


def finish(
    folder: Any, n_rows: int, written: Written, fail_on: str, engine: str = "local"
) -> RunResult:
    """The :class:`RunResult`; raise :class:`GuardrailError` when asked to."""
    output_result, counts, cautions = written
    failed = [c.name for c in output_result.failures]
    names = output_names(engine)
    result = RunResult(
        out=folder.path,
        n_rows=n_rows,
        decisions={d: int(counts.get(d, 0)) for d in DECISIONS},
        validation_success=output_result.success,
        failed_checks=failed,
        files={name: str(folder.path / name) for name in names.values()},
        cautions=list(cautions),
    )
    if _withholds(output_result, fail_on):
        raise GuardrailError(
            f"output guardrail(s) failed: {', '.join(failed)}; the cleaned rows "
            f"were withheld ({names['cleaned']}.rejected), the audit and the "
            f"report were written to {str(folder.path)!r} (see report.html).",
            cautions=cautions,
        )
    return result


def render_report(folder_path: str | os.PathLike[str]) -> Path:
    """Re-render ``report.html`` from a run folder's ``report.json``.

    Returns
    -------
    path : Path
        The HTML file written (atomically).
    """
    folder = Path(folder_path)
    source = folder / OUTPUT_NAMES["report_json"] if folder.is_dir() else folder
    report = read_report_json(folder, required=REPORT_SECTIONS)
    try:
        html = render_html(report)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputFileError(
            f"cannot render {str(source)!r}: a section does not have the shape a "
            f"run writes ({type(exc).__name__}: {exc}); render the report.json a "
            "run wrote."
        ) from exc
    target = source.with_name(OUTPUT_NAMES["report_html"])
    return rewrite_owned_file(target, html.encode("utf-8"))
