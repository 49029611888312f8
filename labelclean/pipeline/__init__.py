"""The cleaning pipeline: one estimator, its stages, and declarative definitions.

- :class:`LabelCleaner`: the whole pipeline as one scikit-learn estimator
  (confidence, SPLBoost suspects, final model, one decision per row);
- stage kinds (:data:`STAGE_KINDS`, :func:`register_stage_kind`; the levels
  a categorical column keeps, :func:`max_categories_of`) and TOML
  definitions (:func:`load_pipeline`, ``docs/pipelines.md``) that build a
  :class:`LabelCleaner` (:func:`build_cleaner`);
- the fixed decision rule (:func:`decide`) on a fitted cleaner's
  ``evidence_`` (:class:`Evidence`);
- persistence of a fitted pipeline (:func:`dumps_cleaner`,
  :func:`load_cleaner`).

Nothing here reads or writes data files; that is :mod:`labelclean.runner`.
"""

from labelclean.pipeline._cleaner import LabelCleaner
from labelclean.pipeline._decisions import Evidence, decide, final_model_info
from labelclean.pipeline._definition import (
    FORMAT_VERSION,
    DataSpec,
    PipelineDefinition,
    StageSpec,
    parse_pipeline,
)
from labelclean.pipeline._kinds import (
    STAGE_KINDS,
    max_categories_of,
    register_stage_kind,
)
from labelclean.pipeline._loading import (
    available_pipelines,
    load_pipeline,
    pipeline_search_path,
    shipped_pipeline_name,
)
from labelclean.pipeline._persist import dumps_cleaner, load_cleaner, loads_cleaner
from labelclean.pipeline._registry import StageKind, StageRegistry
from labelclean.pipeline._stages import build_cleaner

__all__ = [
    "FORMAT_VERSION",
    "STAGE_KINDS",
    "DataSpec",
    "Evidence",
    "LabelCleaner",
    "PipelineDefinition",
    "StageKind",
    "StageRegistry",
    "StageSpec",
    "available_pipelines",
    "build_cleaner",
    "decide",
    "dumps_cleaner",
    "final_model_info",
    "load_cleaner",
    "load_pipeline",
    "loads_cleaner",
    "max_categories_of",
    "parse_pipeline",
    "pipeline_search_path",
    "register_stage_kind",
    "shipped_pipeline_name",
]
