"""Running a cleaning pipeline on parquet files: the library behind ``run``.

* :func:`run_pipeline` reads a parquet file or folder, validates it, fits the
  pipeline a definition describes (on every row, or on a stratified sample
  when the input is too large), then writes the output folder
  (``cleaned.parquet``, ``audit.parquet``, ``report.json``, ``report.html``,
  ``manifest.json``, ``model.skops``) through the one output path,
  :func:`~labelclean.runner._outputs.write_outputs`;
* :func:`validate_file` checks an input against a pipeline without running.

Nothing here prints; every function returns what it did.
"""

import logging
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from labelclean.exceptions import (
    DataValidationError,
    GuardrailWarning,
    LabelWritingWarning,
)
from labelclean.io import (
    OutputFolder,
    inspect_parquet,
    iter_batches,
    read_parquet,
)
from labelclean.pipeline import (
    build_cleaner,
    dumps_cleaner,
    final_model_info,
    load_pipeline,
    max_categories_of,
    shipped_pipeline_name,
)
from labelclean.report._copies import label_copies
from labelclean.report._row_order import row_orders
from labelclean.runner._outputs import (
    OUTPUT_NAMES,
    RunResult,
    finish,
    input_files,
    neighbour_info,
    versions,
    withhold_if_failed,
    write_outputs,
)
from labelclean.runner._reviewed import mark_reviewed, reviewed_rows
from labelclean.runner._stream import DEFAULT_BATCH_SIZE, read_rows
from labelclean.utils._audit import AUDIT_COLUMNS
from labelclean.utils._column_kinds import coerce_object_columns, dtype_kind
from labelclean.utils._features import select_features
from labelclean.utils._sampling import stratified_positions
from labelclean.utils._timing import StageClock
from labelclean.validation import validate_input

logger = logging.getLogger(__name__)
#: What a run chose (label, id, features): the CLI always shows it.
choices = logging.getLogger("labelclean.choices")

__all__ = [
    "default_memory_budget",
    "fit_bytes_per_row",
    "run_pipeline",
    "validate_file",
]


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


def _feature_columns(frame: pd.DataFrame, cols: Any) -> list:
    """The feature columns of the fit, as the user chose them."""
    return select_features(
        frame.columns,
        label=cols.label,
        id_column=cols.id_column,
        features=cols.features,
        exclude=cols.exclude,
    )


def _fit(cleaner, frame, columns, cols, reviewed, positions) -> tuple[Any, Any]:
    """Fit ``cleaner``; its audit columns (reviewed rows as a person decided
    them) and the report's ``run.reviewed`` (None without ``--reviewed``)."""
    labels, known = _with_verdicts(frame, cols, reviewed, positions)
    with warnings.catch_warnings():
        # The input suite has said so already (label_variants, classes of a
        # single row: scikit-learn's "regression problem" line, ...), and the
        # output suite checks the decisions at the definition's own limits.
        warnings.simplefilter("ignore", LabelWritingWarning)
        warnings.simplefilter("ignore", GuardrailWarning)
        warnings.filterwarnings("ignore", "The number of unique classes is greater")
        if known is None:
            cleaner.fit(frame[columns], labels)
        else:
            mask = np.zeros(len(frame), dtype=bool)
            mask[known[0]] = True
            cleaner.fit(frame[columns], labels, reviewed=mask,
                        labels_before_review=frame[cols.label])  # fmt: skip
    fit_audit = cleaner.audit_[
        [c for c in cleaner.audit_.columns if c in AUDIT_COLUMNS]
    ]
    if known is None:
        return fit_audit, None
    rows, original = known
    verdicts = labels.to_numpy(dtype=object)[rows]
    info = {
        "file": str(reviewed),
        "rows": int(rows.shape[0]),
        "labels_changed": int((verdicts != original).sum()),
    }
    return mark_reviewed(fit_audit, rows, original), info


def _with_verdicts(frame, cols, reviewed, positions) -> tuple[pd.Series, Any]:
    """The labels to fit on: the reviewed rows' verdicts where given."""
    labels = frame[cols.label]
    if reviewed is None:
        return labels, None
    if positions is not None:
        raise DataValidationError(
            "--reviewed needs the fit on every input row; raise --memory-budget "
            "or leave out --max-fit-rows."
        )
    rows, verdicts = reviewed_rows(frame, reviewed, cols.label, cols.id_column)
    original = labels.to_numpy(dtype=object)[rows]
    labels = labels.copy()
    labels.iloc[rows] = verdicts
    return labels, (rows, original)


def _announce(frame: pd.DataFrame, cols: Any, columns: list[str]) -> None:
    """One line naming the label, the id and the features, before the fit."""
    kinds: dict[str, list[str]] = {}
    typed = coerce_object_columns(frame[columns])  # decimals, dates
    for c in columns:
        # The encoder's own reading of the column (object columns of
        # scalars are categorical; unsupported ones fail validation later).
        kinds.setdefault(dtype_kind(typed[c].dtype) or "categorical", []).append(str(c))
    shown = ", ".join(str(c) for c in columns[:20])
    more = f", ... and {len(columns) - 20} more" if len(columns) > 20 else ""
    by_kind = ", ".join(f"{len(v)} {k}" for k, v in sorted(kinds.items()))
    choices.info(
        "label %r%s; %d feature(s) (%s): %s%s",
        cols.label,
        f", id {cols.id_column!r}" if cols.id_column else "",
        len(columns),
        by_kind,
        shown,
        more,
    )


def feature_schema(frame: pd.DataFrame, columns: list[str]) -> dict[str, str]:
    """Column -> dtype name of the feature columns (stored in the model file)."""
    return {str(c): str(frame[c].dtype) for c in columns}


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


@dataclass(frozen=True)
class _Columns:
    """The columns a run uses: the label, the id, and the feature choice."""

    label: str
    id_column: str | None
    features: list[str] | None
    exclude: list[str]


def _columns(definition: Any, label, id_column, features, exclude) -> _Columns:
    """The call's columns, falling back on the definition's ``[data]``."""
    label = label or definition.data.label
    if not label:
        raise DataValidationError(
            f"no label column: pipeline {definition.name!r} names none; pass --label."
        )
    return _Columns(
        label=label,
        id_column=id_column or definition.data.id,
        features=features
        or (list(definition.data.features) if definition.data.features else None),
        exclude=[*(exclude or []), *definition.data.exclude],
    )


def pipeline_for(source: Any, pipeline: Any, label: str | None) -> Any:
    """``pipeline``, or when it is None the shipped pipeline for the number of
    classes in ``label`` (:func:`~labelclean.pipeline.shipped_pipeline_name`),
    read from that column alone until a third class; missing labels are not
    counted."""
    if pipeline is not None:
        return pipeline
    if not label:
        raise DataValidationError(
            "no label column: pass --label (or --pipeline with a [data] label)."
        )
    classes: set[Any] = set()
    for batch in iter_batches(source, columns=[label], row_id=None):
        classes.update(batch[label].dropna().unique().tolist())
        if len(classes) > 2:
            break
    name = shipped_pipeline_name(len(classes))
    many = "more than two classes" if len(classes) > 2 else "two classes"
    choices.info("pipeline %r, the shipped one for a label of %s", name, many)
    return name


def _fit_size(
    source: Any, max_fit_rows: int | None, memory_budget: float | None
) -> tuple[int | None, str | None]:
    """Rows to fit on (None: every row) and why fewer than all."""
    if max_fit_rows is not None and max_fit_rows < 2:
        raise ValueError(f"max_fit_rows must be at least 2, got {max_fit_rows!r}.")
    if max_fit_rows is not None:
        if source.num_rows > max_fit_rows:
            return max_fit_rows, "max_fit_rows"
        return None, None
    budget = default_memory_budget() if memory_budget is None else memory_budget
    per_row = fit_bytes_per_row(len(source.schema.names))
    if source.num_rows * per_row <= budget:
        return None, None
    n_rows = max(2, int(budget // per_row))
    logger.info(
        "fitting on a sample of %d rows: %d rows need about %.1f GB to fit, over "
        "the memory budget of %.1f GB",
        n_rows,
        source.num_rows,
        source.num_rows * per_row / 1e9,
        budget / 1e9,
    )
    if source.num_rows > n_rows:
        return n_rows, "memory_budget"
    return None, None


def _read_fit_rows(
    source: Any, label: str, n_rows: int | None, seed: int, batch_size: int
) -> tuple[pd.DataFrame, np.ndarray | None]:
    """The rows to fit on and their positions (None: every row, in order)."""
    if n_rows is None:
        return read_parquet(source), None
    positions = stratified_positions(
        lambda: (f[label] for f in iter_batches(source, columns=[label], row_id=None)),
        n_rows=int(n_rows),
        random_state=seed,
    )
    return read_rows(source, positions, batch_size), positions


def _max_categories(definition: Any) -> int:
    """The levels a categorical column keeps in a run of ``definition``."""
    return max_categories_of(build_cleaner(definition).confidence)


def _validated(frame: pd.DataFrame, definition: Any, cols: _Columns) -> Any:
    """The input suite's result; raise when it fails."""
    result = validate_input(
        frame,
        label=cols.label,
        features=cols.features,
        exclude=cols.exclude,
        label_domain=definition.data.label_domain,
        id_column=cols.id_column,
        reserved_columns=AUDIT_COLUMNS,
        max_categories=_max_categories(definition),
    )
    if not result.success:
        raise DataValidationError(
            "the input failed validation: " + _input_failures_message(result)
        )
    _log_input_warnings(result)
    return result


def run_pipeline(
    input_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    pipeline: str | os.PathLike[str] | None = None,
    label: str | None = None,
    id_column: str | None = None,
    features: list[str] | None = None,
    exclude: list[str] | None = None,
    seed: int = 0,
    decisions: dict[str, Any] | None = None,
    overwrite: bool | str = False,
    fail_on: str | None = None,
    max_fit_rows: int | None = None,
    batch_size: int | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    n_jobs: int | None = None,
    memory_budget: float | None = None,
    reviewed: str | os.PathLike[str] | None = None,
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
    pipeline : str or path-like, default=None
        A definition name in ``pipelines/`` or a path to a TOML file. None:
        the shipped pipeline for the number of classes in ``label``
        (:func:`pipeline_for`).
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
    overwrite : bool or 'force', default=False
        Replace a previous result in ``out`` (``'force'``: even files changed
        since labelclean wrote them).
    fail_on : {'never', 'error'} or None, default=None
        Raise :class:`GuardrailError` (after writing) when an output guardrail
        fails; default from the definition's ``[validation] fail_on``.
    max_fit_rows : int, default=None
        Most rows to fit on; ``None`` fits on every row that the memory
        budget allows.
    batch_size : int, default=None
        Rows per batch when streaming (default
        :data:`~labelclean.runner.DEFAULT_BATCH_SIZE`).
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
    reviewed : path-like, default=None
        A verdict file (see ``labelclean review``) whose rows are known
        truth: the fit learns their verdicts, and they are never flagged
        (reason ``reviewed``). Needs the fit on every input row.

    Returns
    -------
    result : RunResult
    """
    source = inspect_parquet(input_path)
    definition = load_pipeline(pipeline_for(source, pipeline, label))
    cols = _columns(definition, label, id_column, features, exclude)
    batch_size = batch_size or DEFAULT_BATCH_SIZE
    n_fit, sample_reason = _fit_size(source, max_fit_rows, memory_budget)
    inputs = [Path(input_path), *([definition.source] if definition.source else [])]
    inputs += [Path(reviewed)] if reviewed is not None else []
    clock = StageClock(f"run on {source.num_rows} rows")
    with OutputFolder(out, inputs=inputs, overwrite=overwrite) as folder:
        frame, positions = _read_fit_rows(source, cols.label, n_fit, seed, batch_size)
        clock.lap("read")
        input_result = _validated(frame, definition, cols)
        sampled = positions is not None
        frame, positions = _labelled(frame, positions, cols.label, reviewed)
        columns = _feature_columns(frame, cols)
        cleaner = build_cleaner(
            definition, random_state=seed, overrides=decisions, n_jobs=n_jobs
        )
        _announce(frame, cols, columns)
        clock.lap("validate_input")
        fit_audit, review_info = _fit(
            cleaner, frame, columns, cols, reviewed, positions
        )
        clock.lap("fit")
        files = input_files(source)
        sample = {"rows": len(frame), "reason": sample_reason}
        run_info = _run_info(definition, cleaner, cols, columns, seed, files, source)
        run_info["fitted_on"] = _fitted_on(sample, source, sampled)
        fail_on = fail_on or definition.validation.get("fail_on", "never")
        if review_info is not None:
            run_info["reviewed"] = review_info
        model_meta = _model_meta(definition, cols, columns, frame, seed)
        written = write_outputs(
            folder,
            cleaner=cleaner,
            source=source,
            label=cols.label,
            id_column=cols.id_column,
            features=[str(c) for c in columns],
            run_info=run_info,
            guardrails=dict(definition.validation),
            model_bytes=dumps_cleaner(cleaner, metadata=model_meta),
            manifest=_manifest(definition, files, seed),
            batch_size=batch_size,
            input_validation=input_result,
            check_batches=sampled,
            fit_positions=np.arange(len(frame)) if positions is None else positions,
            fit_audit=fit_audit,
            engine=engine,
            scheduler=scheduler,
            n_jobs=n_jobs,
            fail_on=fail_on,
        )
        withhold_if_failed(folder, written.output_result, fail_on, engine)
    clock.lap("outputs")
    logger.info("run times (s): %s", clock.summary())
    return finish(folder, int(source.num_rows), written, fail_on, engine)


def _labelled(frame: pd.DataFrame, positions: Any, label: str, reviewed: Any):
    """The rows of ``frame`` that have a label, and their input positions
    (``positions`` unchanged when every row has one). The others are decided
    while streaming: discarded, reason ``missing_label``."""
    has_label = frame[label].notna().to_numpy()
    if has_label.all():
        return frame, positions
    if reviewed is not None:
        raise DataValidationError(
            f"--reviewed needs a label in every row; {int((~has_label).sum())} "
            f"row(s) have none in {label!r}."
        )
    rows = np.arange(len(frame)) if positions is None else np.asarray(positions)
    return frame.loc[has_label], rows[has_label]


def _model_meta(definition, cols, columns, frame, seed) -> dict[str, Any]:
    """What ``apply`` needs to know of the fit, stored in the model file."""
    return {
        "label": cols.label,
        "id_column": cols.id_column,
        "features": [str(c) for c in columns],
        "schema": feature_schema(frame, columns),
        "label_dtype": str(frame[cols.label].dtype),
        "pipeline": definition.name,
        "seed": seed,
    }


def _run_info(definition, cleaner, cols, columns, seed, files, source) -> dict:
    """The report's ``run`` section."""
    return {
        "pipeline": {"name": definition.name, "sha256": definition.sha256},
        "definition": definition.to_dict(),
        "seed": seed,
        "label": cols.label,
        "id_column": cols.id_column,
        "features": [str(c) for c in columns],
        "parameters": _jsonable_params(cleaner),
        "final_model": final_model_info(cleaner),
        "calibration": getattr(cleaner, "calibration_", None),
        "missing_values": getattr(cleaner, "missing_values_", None),
        "feature_handling": getattr(cleaner, "feature_handling_", None),
        "label_copies": label_copies(cleaner.audit_, [str(c) for c in columns]),
        "row_orders": row_orders(cleaner.audit_, [str(c) for c in columns]),
        **neighbour_info(cleaner),
        "inputs": files,
    }


def _fitted_on(sample: dict[str, Any], source: Any, sampled: bool) -> dict:
    """The report's ``run.fitted_on``: the rows the pipeline was fitted on."""
    return {
        "rows": sample["rows"],
        "input_rows": int(source.num_rows),
        "sampled": sampled,
        "reason": sample["reason"] if sampled else None,
        "sample": (
            "stratified by label, seeded; sampled rows keep their fit-time "
            "decisions, the others are decided by the fitted pipeline"
            if sampled
            else None
        ),
    }


def _manifest(definition: Any, files: list[dict[str, Any]], seed: int) -> dict:
    """``manifest.json`` of a run."""
    return {
        "format": "labelclean-manifest",
        "version": 1,
        "command": "run",
        "versions": versions(),
        "inputs": files,
        "pipeline": {
            "name": definition.name,
            "source": str(definition.source) if definition.source else None,
            "sha256": definition.sha256,
        },
        "seed": seed,
        "outputs": dict(OUTPUT_NAMES),
    }


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


def validate_file(
    input_path: str | os.PathLike[str],
    *,
    pipeline: str | os.PathLike[str] | None = None,
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
    source = inspect_parquet(input_path)
    definition = load_pipeline(pipeline_for(source, pipeline, label))
    label = label or definition.data.label
    if not label:
        raise DataValidationError(
            f"no label column: pipeline {definition.name!r} names none; pass --label."
        )
    frame = read_parquet(source)
    return validate_input(
        frame,
        label=label,
        features=features or definition.data.features,
        exclude=[*(exclude or []), *definition.data.exclude],
        label_domain=definition.data.label_domain,
        id_column=id_column or definition.data.id,
        reserved_columns=AUDIT_COLUMNS,
        max_categories=_max_categories(definition),
    )
