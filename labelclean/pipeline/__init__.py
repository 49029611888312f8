"""Cleaning pipelines: stage kinds, declarative definitions, and running them.

Stage kinds are registered in :data:`STAGE_KINDS` with
:func:`register_stage_kind`; :func:`load_pipeline` reads and validates a TOML
definition from ``pipelines/`` (see ``docs/pipelines.md``) before anything
runs.
"""

from labelclean.pipeline import _stages  # noqa: F401  (registers the stage kinds)
from labelclean.pipeline._cleaner import AUDIT_EVIDENCE_COLUMNS, LabelCleaner
from labelclean.pipeline._dask import audit_partition, dask_client, read_partitions
from labelclean.pipeline._definition import (
    FORMAT_VERSION,
    DataSpec,
    PipelineDefinition,
    StageSpec,
    available_pipelines,
    load_pipeline,
    parse_pipeline,
    pipeline_search_path,
)
from labelclean.pipeline._persist import load_cleaner
from labelclean.pipeline._registry import (
    STAGE_KINDS,
    StageKind,
    StageRegistry,
    register_stage_kind,
)
from labelclean.pipeline._run import (
    apply_model,
    render_report,
    run_pipeline,
    validate_file,
)
from labelclean.pipeline._stages import build_cleaner

__all__ = [
    "AUDIT_EVIDENCE_COLUMNS",
    "FORMAT_VERSION",
    "STAGE_KINDS",
    "DataSpec",
    "LabelCleaner",
    "PipelineDefinition",
    "StageKind",
    "StageRegistry",
    "StageSpec",
    "apply_model",
    "audit_partition",
    "available_pipelines",
    "build_cleaner",
    "dask_client",
    "load_cleaner",
    "load_pipeline",
    "parse_pipeline",
    "pipeline_search_path",
    "read_partitions",
    "register_stage_kind",
    "render_report",
    "run_pipeline",
    "validate_file",
]
