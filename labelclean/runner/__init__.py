"""Running pipelines on files: the only room that reads and writes them.

- :func:`run_pipeline`: read a parquet file or folder, fit a pipeline
  definition, decide every row, write the output folder;
- :func:`apply_model`: decide new labelled batches with a saved model;
- :func:`score_file`: a confidence estimator's scores next to every row;
- :func:`validate_file`: check an input against a pipeline, without running;
- :func:`render_report`: render ``report.html`` again from ``report.json``;
- :func:`audit_partition`, :func:`dask_client`, :func:`read_partitions`: the
  Dask engine's pieces, for users who run the stages in their own Dask jobs.

Every engine (streamed batches here, partitions on Dask) goes through one
output path (``docs/architecture.md``).
"""

from labelclean.runner._apply import apply_model
from labelclean.runner._dask import audit_partition, dask_client, read_partitions
from labelclean.runner._outputs import OUTPUT_NAMES, RunResult, render_report
from labelclean.runner._run import (
    default_memory_budget,
    fit_bytes_per_row,
    run_pipeline,
    validate_file,
)
from labelclean.runner._score import score_file
from labelclean.runner._stream import DEFAULT_BATCH_SIZE

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "OUTPUT_NAMES",
    "RunResult",
    "apply_model",
    "audit_partition",
    "dask_client",
    "default_memory_budget",
    "fit_bytes_per_row",
    "read_partitions",
    "render_report",
    "run_pipeline",
    "score_file",
    "validate_file",
]
