"""Running a cleaning pipeline on parquet files: the library behind the CLI.

* :func:`run_pipeline` reads a parquet file or folder, validates it, fits the
  pipeline a definition describes, decides every row and writes the output
  folder (``cleaned.parquet``, ``audit.parquet``, ``report.json``,
  ``report.html``, ``manifest.json``, ``model.skops``) as one unit;
* :func:`apply_model` decides new labelled batches with a saved model;
* :func:`validate_file` checks an input against a pipeline without running;
* :func:`render_report` re-renders ``report.html`` from ``report.json``.

Nothing here prints; every function returns what it did.
"""

import json
import logging
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from labelclean import __version__
from labelclean.exceptions import DataValidationError, LabelcleanError
from labelclean.pipeline._cleaner import (
    AUDIT_EVIDENCE_COLUMNS,
    _StageClock,
    final_model_info,
)
from labelclean.pipeline._decisions import DECISION_REASONS

logger = logging.getLogger(__name__)

__all__ = [
    "GuardrailError",
    "RunResult",
    "apply_model",
    "render_report",
    "run_pipeline",
    "validate_file",
]

OUTPUT_NAMES = {
    "cleaned": "cleaned.parquet",
    "audit": "audit.parquet",
    "report_json": "report.json",
    "report_html": "report.html",
    "manifest": "manifest.json",
    "model": "model.skops",
}


class GuardrailError(LabelcleanError, RuntimeError):
    """The run finished and wrote its outputs, but a guardrail failed."""

    exit_code = 7


@dataclass
class RunResult:
    """What a run or an apply did."""

    out: Path
    n_rows: int
    decisions: dict[str, int]
    validation_success: bool
    failed_checks: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"labelclean": __version__, "python": platform.python_version()}
    for name in ("numpy", "pandas", "scikit-learn", "scipy", "pyarrow", "skops"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:  # pragma: no cover
            out[name] = "not installed"
    return out


def _resolve_columns(
    frame: pd.DataFrame,
    label: str,
    id_column: str | None,
    features: list[str] | None,
    exclude: list[str] | None,
) -> list[str]:
    if features:
        chosen = list(features)
    else:
        chosen = [c for c in frame.columns if c not in (label, id_column)]
    return [c for c in chosen if c not in set(exclude or ())]


def _input_failures_message(result: Any) -> str:
    parts = []
    for check in result.failures:
        text = check.message if getattr(check, "message", None) else check.name
        parts.append(text.rstrip(". "))
    return "; ".join(parts) + "."


def _log_input_warnings(result: Any) -> None:
    for check in result.checks:
        if not check.success and check.severity == "warning" and check.message:
            logger.warning("%s", check.message)


def _cleaned_frame(frame: pd.DataFrame, audit: pd.DataFrame, label: str):
    keep = (audit["decision"] != "discarded").to_numpy()
    cleaned = frame.loc[keep].copy()
    new = audit["cleaned_label"].to_numpy()[keep]
    cleaned[label] = pd.Series(new, index=cleaned.index).astype(frame[label].dtype)
    return cleaned


def _feature_schema(frame: pd.DataFrame, columns: list[str]) -> dict[str, str]:
    return {str(c): str(frame[c].dtype) for c in columns}


def _check_schema(frame: pd.DataFrame, expected: dict[str, str], label: str) -> None:
    missing = [c for c in expected if c not in frame.columns]
    if missing:
        raise DataValidationError(
            f"the input lacks feature column(s) {missing!r} the model was fitted "
            "with; pass batches with the training schema."
        )
    changed = {
        c: (expected[c], str(frame[c].dtype))
        for c in expected
        if str(frame[c].dtype) != expected[c]
    }
    if changed:
        detail = ", ".join(
            f"{c!r}: {a} at fit, {b} now" for c, (a, b) in changed.items()
        )
        raise DataValidationError(
            f"the input's column types differ from the training data ({detail}); "
            "cast them back to the training types."
        )
    if label not in frame.columns:
        raise DataValidationError(
            f"the input has no label column {label!r}; `apply` audits labelled batches."
        )


def _write_outputs(
    folder: Any,
    *,
    frame: pd.DataFrame,
    audit_cols: pd.DataFrame,
    label: str,
    id_column: str | None,
    run_info: dict[str, Any],
    input_result: Any,
    guardrails: dict[str, Any],
    model_bytes: bytes | None,
    manifest: dict[str, Any],
) -> tuple[Any, dict[str, int]]:
    from labelclean.report import build_report, render_html
    from labelclean.validation import validate_output

    audit = pd.concat([frame, audit_cols], axis=1)
    output_result = validate_output(
        audit,
        max_discarded_share=guardrails.get("max_discarded_share", 0.5),
        max_discarded_share_per_class=guardrails.get("max_discarded_share_per_class"),
        require_all_classes=guardrails.get("require_all_classes", True),
        max_changed_share_per_class=guardrails.get("max_changed_share_per_class"),
        calibration=(run_info.get("calibration") if run_info else None),
        id_column=id_column,
        max_examples=guardrails.get("max_examples", 10),
    )
    validation = [input_result.to_dict(), output_result.to_dict()]
    report = build_report(
        audit,
        label=label,
        id_column=id_column,
        run=run_info,
        validation=validation,
        reason_descriptions=DECISION_REASONS,
    )
    meta = {"run": {k: run_info[k] for k in ("pipeline", "seed") if k in run_info}}
    folder.write_parquet(
        OUTPUT_NAMES["cleaned"], _cleaned_frame(frame, audit_cols, label), metadata=meta
    )
    folder.write_parquet(OUTPUT_NAMES["audit"], audit, metadata=meta)
    folder.write_json(OUTPUT_NAMES["report_json"], report)
    folder.write_text(OUTPUT_NAMES["report_html"], render_html(report))
    if model_bytes is not None:
        folder.write_bytes(OUTPUT_NAMES["model"], model_bytes)
    folder.write_json(OUTPUT_NAMES["manifest"], manifest)
    counts = audit_cols["decision"].value_counts()
    decisions = {d: int(counts.get(d, 0)) for d in ("kept", "corrected", "discarded")}
    return output_result, decisions


def fit_bytes_per_row(n_columns: int) -> float:
    """Estimated peak bytes per row of fitting a pipeline on ``n_columns``.

    Measured on 1e6 rows x 20 float32 features (``benchmarks/RESULTS.md``,
    section ``scale``) with a margin: the input frame, float64 copies for
    the stages, the neighbour graph and the boosting arrays.
    """
    return 1_024.0 + 96.0 * n_columns


def default_memory_budget() -> float:
    """Half the machine's physical memory, in bytes (8 GB if unknown)."""
    try:
        return 0.5 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover
        return 8e9


def run_pipeline(
    input_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    pipeline: str | os.PathLike[str],
    label: str | None = None,
    id_column: str | None = None,
    features: list[str] | None = None,
    exclude: list[str] | None = None,
    seed: int = 0,
    decisions: dict[str, Any] | None = None,
    overwrite: bool = False,
    fail_on: str | None = None,
    max_fit_rows: int | None = None,
    batch_size: int | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    n_jobs: int | None = None,
    memory_budget: float | None = None,
) -> RunResult:
    """Clean a parquet file or folder with a pipeline definition.

    When the input has more than ``max_fit_rows`` rows, the pipeline is
    fitted on a stratified, seeded sample of ``max_fit_rows`` rows, and every
    input row is then decided by streaming the input batch by batch through
    the fitted pipeline (bounded memory; see ``docs/scale.md``). The rows of
    the sample keep the decision and evidence of the fit (leave-one-out
    neighbours, out-of-fold model), so no row is ever judged by a model that
    saw its label; the other rows are decided as :func:`apply_model` would.
    The report says which (``run.fitted_on``).

    Parameters
    ----------
    input_path : path-like
        A parquet file or a folder of parquet files with one schema; never
        modified.
    out : path-like
        Output folder; replaced as a unit, refused if it holds anything but a
        previous labelclean result (and that only with ``overwrite``).
    pipeline : str or path-like
        A definition name in ``pipelines/`` or a path to a TOML file.
    label, id_column : str, default=None
        Label and row-id columns; default to the definition's ``[data]``.
    features, exclude : list of str, default=None
        Feature columns to use / leave out (default: the definition's, else
        every column but the label and id).
    seed : int, default=0
        Seed of every random choice; same input + seed = byte-identical
        outputs.
    decisions : dict, default=None
        Decision thresholds overriding the definition's.
    overwrite : bool, default=False
        Replace a previous result in ``out``.
    fail_on : {'never', 'error'} or None, default=None
        Raise :class:`GuardrailError` (after writing) when an output guardrail
        fails; default from the definition's ``[validation] fail_on``.
    max_fit_rows : int, default=None
        Most rows to fit on; ``None`` fits on every row that the memory
        budget allows.
    batch_size : int, default=None
        Rows per batch when streaming (default
        :data:`~labelclean.pipeline._stream.DEFAULT_BATCH_SIZE`).
    engine : {'local', 'dask'}, default='local'
        Where the rows are decided after the fit (the fit always runs here):
        'dask' writes ``audit/`` and ``cleaned/`` folders of parquet parts,
        one per input row group, from tasks on a Dask cluster.
    scheduler : str, default=None
        Dask scheduler address; default ``DASK_SCHEDULER_ADDRESS``, else a
        local cluster.
    n_jobs : int, default=None
        Threads for fitting (:class:`LabelCleaner`'s ``n_jobs``), and batches
        decided at once when rows are streamed; the outputs do not depend on
        it, except with the approximate neighbour search (200,000 rows or
        more), where the same ``n_jobs`` gives the same bytes.
    memory_budget : float, default=None
        Bytes the fit may use. Without ``max_fit_rows``, an input whose fit
        would need more (:func:`fit_bytes_per_row` per row) is fitted on a
        stratified, seeded sample that fits. None means
        :func:`default_memory_budget` (half the machine's memory).

    Returns
    -------
    result : RunResult
    """
    from labelclean.io import (
        OutputFolder,
        file_sha256,
        inspect_parquet,
        iter_batches,
        read_parquet,
    )
    from labelclean.pipeline._definition import load_pipeline
    from labelclean.pipeline._persist import dumps_cleaner
    from labelclean.pipeline._stages import build_cleaner
    from labelclean.utils._sampling import stratified_positions
    from labelclean.validation import validate_input

    definition = load_pipeline(pipeline)
    label = label or definition.data.label
    if not label:
        raise DataValidationError(
            f"no label column: pipeline {definition.name!r} names none; pass --label."
        )
    id_column = id_column or definition.data.id
    features = features or (
        list(definition.data.features) if definition.data.features else None
    )
    exclude = [*(exclude or []), *definition.data.exclude]
    from labelclean.pipeline._stream import (
        DEFAULT_BATCH_SIZE,
        read_rows,
    )

    if max_fit_rows is not None and max_fit_rows < 2:
        raise ValueError(f"max_fit_rows must be at least 2, got {max_fit_rows!r}.")
    batch_size = batch_size or DEFAULT_BATCH_SIZE
    source = inspect_parquet(input_path)
    sample_reason = "max_fit_rows"
    if max_fit_rows is None:
        budget = default_memory_budget() if memory_budget is None else memory_budget
        per_row = fit_bytes_per_row(len(source.schema.names))
        if source.num_rows * per_row > budget:
            max_fit_rows = max(2, int(budget // per_row))
            sample_reason = "memory_budget"
            logger.info(
                "fitting on a sample of %d rows: %d rows need about %.1f GB to "
                "fit, over the memory budget of %.1f GB",
                max_fit_rows,
                source.num_rows,
                source.num_rows * per_row / 1e9,
                budget / 1e9,
            )
    sampled = max_fit_rows is not None and source.num_rows > max_fit_rows
    inputs = [Path(input_path), *([definition.source] if definition.source else [])]
    clock = _StageClock()
    with OutputFolder(out, inputs=inputs, overwrite=overwrite) as folder:
        if sampled:
            positions = stratified_positions(
                lambda: (
                    f[label] for f in iter_batches(source, columns=[label], row_id=None)
                ),
                n_rows=int(max_fit_rows),
                random_state=seed,
            )
            frame = read_rows(source, positions, batch_size)
        else:
            frame = read_parquet(source)
        clock.lap("read")
        input_result = validate_input(
            frame,
            label=label,
            features=features,
            exclude=exclude,
            label_domain=definition.data.label_domain,
            id_column=id_column,
            reserved_columns=AUDIT_EVIDENCE_COLUMNS,
        )
        if not input_result.success:
            raise DataValidationError(
                "the input failed validation: " + _input_failures_message(input_result)
            )
        _log_input_warnings(input_result)
        columns = _resolve_columns(frame, label, id_column, features, exclude)
        cleaner = build_cleaner(
            definition, random_state=seed, overrides=decisions, n_jobs=n_jobs
        )
        clock.lap("validate_input")
        cleaner.fit(frame[columns], frame[label])
        clock.lap("fit")
        files = [
            {"path": str(p), "rows": int(r), "sha256": file_sha256(p)}
            for p, r in zip(source.files, source.file_rows, strict=True)
        ]
        run_info = {
            "pipeline": {"name": definition.name, "sha256": definition.sha256},
            "definition": definition.to_dict(),
            "seed": seed,
            "label": label,
            "id_column": id_column,
            "features": [str(c) for c in columns],
            "parameters": _jsonable_params(cleaner),
            "final_model": final_model_info(cleaner),
            "calibration": getattr(cleaner, "calibration_", None),
            "missing_values": getattr(cleaner, "missing_values_", None),
            "inputs": files,
            "fitted_on": {
                "rows": len(frame),
                "input_rows": int(source.num_rows),
                "sampled": sampled,
                "reason": sample_reason if sampled else None,
                "sample": (
                    "stratified by label, seeded; sampled rows keep their "
                    "fit-time decisions, the others are decided by the fitted "
                    "pipeline"
                    if sampled
                    else None
                ),
            },
        }
        model_meta = {
            "label": label,
            "id_column": id_column,
            "features": [str(c) for c in columns],
            "schema": _feature_schema(frame, columns),
            "label_dtype": str(frame[label].dtype),
            "pipeline": definition.name,
            "seed": seed,
        }
        manifest = {
            "format": "labelclean-manifest",
            "version": 1,
            "command": "run",
            "versions": _versions(),
            "inputs": files,
            "pipeline": {
                "name": definition.name,
                "source": str(definition.source) if definition.source else None,
                "sha256": definition.sha256,
            },
            "seed": seed,
            "outputs": dict(OUTPUT_NAMES),
        }
        if sampled or engine == "dask":
            if not sampled:
                positions = np.arange(len(frame))
            output_result, counts = _stream_outputs(
                folder,
                cleaner=cleaner,
                source=source,
                label=label,
                id_column=id_column,
                features=[str(c) for c in columns],
                run_info=run_info,
                guardrails=dict(definition.validation),
                model_bytes=dumps_cleaner(cleaner, metadata=model_meta),
                manifest=manifest,
                batch_size=batch_size,
                extra_validation=[input_result.to_dict()],
                fit_positions=positions,
                fit_audit=cleaner.audit_,
                engine=engine,
                scheduler=scheduler,
                n_jobs=n_jobs,
            )
        else:
            output_result, counts = _write_outputs(
                folder,
                frame=frame,
                audit_cols=cleaner.audit_,
                label=label,
                id_column=id_column,
                run_info=run_info,
                input_result=input_result,
                guardrails=dict(definition.validation),
                model_bytes=dumps_cleaner(cleaner, metadata=model_meta),
                manifest=manifest,
            )
        fail_on = fail_on or definition.validation.get("fail_on", "never")
        _withhold_if_failed(folder, output_result, fail_on)
    clock.lap("outputs")
    logger.info(
        "run times (s): %s", ", ".join(f"{k} {v:.1f}" for k, v in clock.times.items())
    )
    return _finish(folder, int(source.num_rows), counts, output_result, fail_on)


def _withhold_if_failed(folder: Any, output_result: Any, fail_on: str) -> None:
    """A failed guardrail with fail-on: the cleaned rows are not published
    under their usable name (``cleaned.parquet.rejected``, ``cleaned.rejected/``);
    the audit and the report, which say why, are."""
    if output_result.failures and fail_on in ("error", "warning"):
        for name in (OUTPUT_NAMES["cleaned"], "cleaned"):
            folder.withhold(name)


def _finish(folder, n_rows, counts, output_result, fail_on) -> RunResult:
    failed = [c.name for c in output_result.failures]
    result = RunResult(
        out=folder.path,
        n_rows=n_rows,
        decisions=counts,
        validation_success=output_result.success,
        failed_checks=failed,
        files={name: str(folder.path / name) for name in OUTPUT_NAMES.values()},
    )
    if failed and fail_on in ("error", "warning"):
        raise GuardrailError(
            f"output guardrail(s) failed: {', '.join(failed)}; the cleaned rows "
            "were withheld (cleaned.parquet.rejected), the audit and the report "
            f"were written to {str(folder.path)!r} (see report.html)."
        )
    return result


def _jsonable_params(cleaner: Any) -> dict[str, Any]:
    """The cleaner's parameters for the report, without ``n_jobs`` (how the
    run was computed, not what it computed)."""
    out = {}
    for key, value in cleaner.get_params(deep=False).items():
        if key == "n_jobs":
            continue
        if hasattr(value, "get_params"):
            out[key] = {
                "estimator": type(value).__name__,
                "params": {k: repr(v) for k, v in value.get_params(deep=False).items()},
            }
        else:
            out[key] = (
                value if isinstance(value, str | int | float | bool) else repr(value)
            )
    return out


def apply_model(
    model_path: str | os.PathLike[str],
    input_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    fail_on: str = "never",
    batch_size: int | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    n_jobs: int | None = None,
) -> RunResult:
    """Decide the rows of new labelled batches with a saved model.

    The input is streamed: read one record batch at a time
    (:func:`~labelclean.io.iter_batches`), decided by
    :meth:`LabelCleaner.audit`, appended to ``audit.parquet`` and
    ``cleaned.parquet``, and folded into the report's summary
    (:class:`~labelclean.report.AuditSummary`). Memory holds a few batches
    (``n_jobs + 2``), the model and the summary, whatever the size of the
    input; the rows and decisions are those of ``cleaner.audit`` on the whole
    input.

    Parameters
    ----------
    model_path : path-like
        ``model.skops`` from a run's output folder (or the folder itself).
    input_path : path-like
        A parquet file or folder with the training schema.
    out : path-like
        Output folder, as for :func:`run_pipeline` (no model is written).
    overwrite : bool, default=False
        Replace a previous result in ``out``.
    fail_on : {'never', 'error'}, default='never'
        Raise :class:`GuardrailError` when an output guardrail fails.
    batch_size : int, default=None
        Rows per batch (default
        :data:`~labelclean.pipeline._stream.DEFAULT_BATCH_SIZE`).
    engine : {'local', 'dask'}, default='local'
        'local' streams batches in this process; 'dask' decides the row
        groups as partitions on a Dask cluster and writes ``audit/`` and
        ``cleaned/`` folders of parquet parts (``docs/scale.md``).
    scheduler : str, default=None
        Dask scheduler address; default ``DASK_SCHEDULER_ADDRESS``, else a
        local cluster.
    n_jobs : int, default=None
        Batches decided at once by the local engine, each on one thread
        (joblib's convention: None is 1, -1 every processor); the outputs do
        not depend on it.

    Returns
    -------
    result : RunResult
    """
    from labelclean.io import OutputFolder, file_sha256, inspect_parquet
    from labelclean.pipeline._persist import load_cleaner
    from labelclean.pipeline._stream import DEFAULT_BATCH_SIZE

    clock = _StageClock()
    cleaner, meta = load_cleaner(model_path)
    clock.lap("load_model")
    label, id_column = meta["label"], meta.get("id_column")
    source = inspect_parquet(input_path)
    _check_source_schema(source, meta, label)
    with OutputFolder(
        out, inputs=[Path(input_path), Path(model_path)], overwrite=overwrite
    ) as folder:
        files = [
            {"path": str(p), "rows": int(r), "sha256": file_sha256(p)}
            for p, r in zip(source.files, source.file_rows, strict=True)
        ]
        run_info = {
            "pipeline": {"name": meta.get("pipeline"), "model": str(model_path)},
            "command": "apply",
            "seed": meta.get("seed"),
            "label": label,
            "features": meta["features"],
            "final_model": final_model_info(cleaner),
            "inputs": files,
        }
        manifest = {
            "format": "labelclean-manifest",
            "version": 1,
            "command": "apply",
            "versions": _versions(),
            "inputs": files,
            "model": {"path": str(model_path), "sha256": file_sha256(model_path)}
            if Path(model_path).is_file()
            else {"path": str(model_path)},
            "outputs": {k: v for k, v in OUTPUT_NAMES.items() if k != "model"},
        }
        output_result, counts = _stream_outputs(
            folder,
            cleaner=cleaner,
            source=source,
            label=label,
            id_column=id_column,
            features=list(meta["features"]),
            run_info=run_info,
            guardrails={},
            model_bytes=None,
            manifest=manifest,
            batch_size=batch_size or DEFAULT_BATCH_SIZE,
            engine=engine,
            scheduler=scheduler,
            n_jobs=n_jobs,
        )
        _withhold_if_failed(folder, output_result, fail_on)
    clock.lap("decide_and_write")
    n_rows = sum(counts.values())
    logger.info(
        "apply times (s): %s; %.0f rows/s while deciding and writing",
        ", ".join(f"{k} {v:.1f}" for k, v in clock.times.items()),
        n_rows / max(clock.times["decide_and_write"], 1e-9),
    )
    return _finish(folder, n_rows, counts, output_result, fail_on)


def _check_source_schema(source: Any, meta: dict[str, Any], label: str) -> None:
    """Refuse an input whose columns or types differ from the training data."""
    import pyarrow as pa

    empty = pa.Table.from_batches([], schema=source.schema).to_pandas()
    _check_schema(empty, meta["schema"], label)


def _stream_outputs(
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
    extra_validation: list[dict[str, Any]] | None = None,
    fit_positions: Any = None,
    fit_audit: Any = None,
    engine: str = "local",
    scheduler: str | None = None,
    n_jobs: int | None = None,
) -> tuple[Any, dict[str, int]]:
    """Stream ``source`` through ``cleaner`` and write every output file."""
    from labelclean.pipeline._stream import output_checks, stream_decide
    from labelclean.report import render_html

    if source.num_rows == 0:
        raise DataValidationError("the input has no rows; pass at least one row.")
    meta = {"run": {k: run_info[k] for k in ("pipeline", "seed") if k in run_info}}
    common = {
        "label": label,
        "features": features,
        "id_column": id_column,
        "names": OUTPUT_NAMES,
        "metadata": meta,
        "reserved_columns": tuple(AUDIT_EVIDENCE_COLUMNS),
        "fit_positions": fit_positions,
        "fit_audit": fit_audit,
    }
    if engine == "dask":
        from labelclean.pipeline._dask import decide_dask

        outcome = decide_dask(cleaner, source, folder, scheduler=scheduler, **common)
        engine_info = {"name": "dask", "n_partitions": outcome.n_batches}
    else:
        outcome = stream_decide(
            cleaner, source, folder, batch_size=batch_size, n_jobs=n_jobs, **common
        )
        engine_info = {
            "name": "stream",
            "batch_size": batch_size,
            "n_batches": outcome.n_batches,
        }
    output_result = output_checks(
        outcome.summary,
        max_discarded_share=guardrails.get("max_discarded_share", 0.5),
        max_discarded_share_per_class=guardrails.get("max_discarded_share_per_class"),
        require_all_classes=guardrails.get("require_all_classes", True),
        max_changed_share_per_class=guardrails.get("max_changed_share_per_class"),
        calibration=(run_info.get("calibration") if run_info else None),
    )
    run_info = {**run_info, "engine": engine_info}
    if "missing_values" not in run_info:  # apply: the new rows' own counts
        from labelclean.pipeline._cleaner import MISSING_VALUE_HANDLING

        run_info["missing_values"] = {
            "columns": dict(outcome.input_checks.missing_counts),
            "handling": MISSING_VALUE_HANDLING,
        }
    validation = [
        *(extra_validation or []),
        outcome.input_checks.result().to_dict(),
        output_result.to_dict(),
    ]
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
    folder.write_json(OUTPUT_NAMES["manifest"], manifest)
    return output_result, outcome.summary.decisions


def validate_file(
    input_path: str | os.PathLike[str],
    *,
    pipeline: str | os.PathLike[str],
    label: str | None = None,
    id_column: str | None = None,
    features: list[str] | None = None,
    exclude: list[str] | None = None,
) -> Any:
    """Check an input against a pipeline's expectations without running it.

    Returns
    -------
    result : ValidationResult
        The input suite's result (``.success``, ``.failures``, ``.to_dict()``).
    """
    from labelclean.io import inspect_parquet, read_parquet
    from labelclean.pipeline._definition import load_pipeline
    from labelclean.validation import validate_input

    definition = load_pipeline(pipeline)
    label = label or definition.data.label
    if not label:
        raise DataValidationError(
            f"no label column: pipeline {definition.name!r} names none; pass --label."
        )
    frame = read_parquet(inspect_parquet(input_path))
    return validate_input(
        frame,
        label=label,
        features=features or definition.data.features,
        exclude=[*(exclude or []), *definition.data.exclude],
        label_domain=definition.data.label_domain,
        id_column=id_column or definition.data.id,
        reserved_columns=AUDIT_EVIDENCE_COLUMNS,
    )


def render_report(folder_path: str | os.PathLike[str]) -> Path:
    """Re-render ``report.html`` from a run folder's ``report.json``.

    Returns
    -------
    path : Path
        The HTML file written (atomically).
    """
    from labelclean.exceptions import InputFileError
    from labelclean.io import atomic_write_text
    from labelclean.report import render_html

    folder = Path(folder_path)
    source = folder / OUTPUT_NAMES["report_json"] if folder.is_dir() else folder
    try:
        report = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputFileError(
            f"no report.json in {str(folder)!r}; pass a folder a `labelclean run` "
            "wrote."
        ) from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputFileError(f"{str(source)!r} is not valid JSON: {exc}.") from exc
    if not isinstance(report, dict) or report.get("format") != "labelclean-report":
        raise InputFileError(f"{str(source)!r} is not a labelclean report.")
    target = source.with_name(OUTPUT_NAMES["report_html"])
    atomic_write_text(target, render_html(report))
    return target
