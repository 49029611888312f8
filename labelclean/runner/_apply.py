"""Applying a saved pipeline to new labelled batches: the library behind ``apply``.

:func:`apply_model` loads ``model.skops``, checks that the input has the
training schema, and decides every row through the one output path
(:func:`~labelclean.runner._outputs.write_outputs`), streamed in bounded
memory or on Dask.
"""

import logging
import os
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
from pandas.api.types import pandas_dtype

from labelclean.exceptions import (
    DataValidationError,
    InputFileError,
    PipelineDefinitionError,
)
from labelclean.io import OutputFolder, file_sha256, inspect_parquet, read_report_json
from labelclean.pipeline import final_model_info, load_cleaner
from labelclean.report._batch import fit_disagreement
from labelclean.runner._outputs import (
    OUTPUT_NAMES,
    RunResult,
    finish,
    input_files,
    versions,
    withhold_if_failed,
    write_outputs,
)
from labelclean.runner._stream import DEFAULT_BATCH_SIZE
from labelclean.utils._column_kinds import dtype_kind
from labelclean.utils._timing import StageClock

logger = logging.getLogger(__name__)

__all__ = ["apply_model"]


def apply_model(
    model_path: str | os.PathLike[str],
    input_path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    overwrite: bool | str = False,
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
    overwrite : bool or 'force', default=False
        Replace a previous result in ``out`` (``'force'``: even files changed
        since labelclean wrote them).
    fail_on : {'never', 'error'}, default='never'
        Raise :class:`GuardrailError` when an output guardrail fails.
    batch_size : int, default=None
        Rows per batch (default
        :data:`~labelclean.runner.DEFAULT_BATCH_SIZE`).
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
    clock = StageClock("apply")
    cleaner, meta = load_cleaner(model_path)
    clock.lap("load_model")
    _check_metadata(meta, model_path)
    label, id_column = meta["label"], meta.get("id_column")
    source = inspect_parquet(input_path)
    _check_source_schema(source, meta, label)
    with OutputFolder(
        out, inputs=[Path(input_path), Path(model_path)], overwrite=overwrite
    ) as folder:
        files = input_files(source)
        run_info = {
            "pipeline": {"name": meta.get("pipeline"), "model": str(model_path)},
            "command": "apply",
            "seed": meta.get("seed"),
            "label": label,
            "features": meta["features"],
            "final_model": final_model_info(cleaner),
            "inputs": files,
            "fit_disagreement": _fit_disagreement(model_path, meta),
        }
        manifest = {
            "format": "labelclean-manifest",
            "version": 1,
            "command": "apply",
            "versions": versions(),
            "inputs": files,
            "model": {"path": str(model_path), "sha256": file_sha256(model_path)}
            if Path(model_path).is_file()
            else {"path": str(model_path)},
            "outputs": {k: v for k, v in OUTPUT_NAMES.items() if k != "model"},
        }
        written = write_outputs(
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
            fail_on=fail_on,
            feature_profile=getattr(cleaner, "feature_profile_", None),
        )
        withhold_if_failed(folder, written.output_result, fail_on, engine)
    clock.lap("decide_and_write")
    n_rows = sum(written.counts.values())
    logger.info(
        "apply times (s): %s; %.0f rows/s while deciding and writing",
        clock.summary(),
        n_rows / max(clock.times["decide_and_write"], 1e-9),
    )
    return finish(folder, n_rows, written, fail_on, engine)


def _fit_disagreement(model_path: Any, meta: dict[str, Any]) -> Any:
    """The fit's own rows' disagreement with the model (per class, the share
    it assigns to another class), read from the ``report.json`` beside the
    model file when the run that wrote it fitted this model (the same label,
    features and seed); None otherwise: the batch is then not compared
    (``docs/drift.md``)."""
    path = Path(model_path)
    try:
        report = read_report_json(path if path.is_dir() else path.parent,
                                  required=("noise_profile", "run"))  # fmt: skip
    except InputFileError:
        return None
    run = report["run"] if isinstance(report["run"], dict) else {}
    same = (
        run.get("command", "run") == "run"
        and run.get("label") == meta.get("label")
        and run.get("seed") == meta.get("seed")
        and list(run.get("features") or ()) == list(meta.get("features") or ())
    )
    return fit_disagreement(report["noise_profile"]) if same else None


def _check_source_schema(source: Any, meta: dict[str, Any], label: str) -> None:
    """Refuse an input whose columns or types differ from the training data;
    a column with no value in any file has no kind to differ (a CSV export
    types an empty text column ``double``)."""
    frame = pa.Table.from_batches([], schema=source.schema).to_pandas()
    _check_schema(frame, meta["schema"], label, source.valueless_columns)


def _check_schema(
    frame: pd.DataFrame,
    expected: dict[str, str],
    label: str,
    valueless: Collection[str] = (),
) -> None:
    missing = [c for c in expected if c not in frame.columns]
    if missing:
        raise DataValidationError(
            f"the input lacks feature column(s) {missing!r} the model was fitted "
            "with; pass batches with the training schema."
        )
    # Another dtype of the same kind is encoded as at fit (integers that
    # became floats when a value went missing, another timestamp unit);
    # object columns, whose values decide their kind, are checked per batch,
    # and so are numbers where codes were fitted: a reader types a batch of
    # codes that are all digits as numbers (``as_fitted_codes``).
    changed = {
        c: (expected[c], str(frame[c].dtype))
        for c in expected
        if _kind_of(expected[c]) not in (None, dtype_kind(frame[c].dtype))
        and dtype_kind(frame[c].dtype) is not None
        and (_kind_of(expected[c]), dtype_kind(frame[c].dtype))
        != ("categorical", "numeric")
        and c not in valueless
    }
    if changed:
        detail = ", ".join(
            f"{c!r}: {a} at fit, {b} now" for c, (a, b) in changed.items()
        )
        raise DataValidationError(
            f"the input's column types differ from the training data ({detail}); "
            "a column must stay a number, a category or a timestamp as it was "
            "at fit; cast them back to the training types."
        )
    if label not in frame.columns:
        raise DataValidationError(
            f"the input has no label column {label!r}; `apply` audits labelled batches."
        )


def _kind_of(dtype_name: str) -> str | None:
    """:func:`dtype_kind` of a dtype named in a model file (None: unknown)."""
    try:
        return dtype_kind(pandas_dtype(dtype_name))
    except (TypeError, ValueError):
        return None


def _check_metadata(meta: Any, model_path: Any) -> None:
    """Refuse a model file whose metadata is not what ``run`` writes."""
    problem = None
    if not isinstance(meta, dict):
        problem = f"its metadata is a {type(meta).__name__}, not a mapping"
    else:
        missing = [k for k in ("label", "features", "schema") if k not in meta]
        if missing:
            problem = f"its metadata lacks {missing}"
        elif not isinstance(meta["label"], str):
            problem = "its metadata's label is not a column name"
        elif not isinstance(meta["features"], list) or not all(
            isinstance(c, str) for c in meta["features"]
        ):
            problem = "its metadata's features are not a list of column names"
        elif not isinstance(meta["schema"], dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in meta["schema"].items()
        ):
            problem = "its metadata's schema is not a mapping of column to type"
        elif not isinstance(meta.get("id_column"), str | None):
            problem = "its metadata's id column is not a column name"
    if problem:
        raise PipelineDefinitionError(
            f"the model file {str(model_path)!r} is damaged: {problem}; use the "
            "model.skops a `labelclean run` wrote."
        )
