"""Building a :class:`~labelclean.pipeline.LabelCleaner` from a definition.

:func:`build_cleaner` turns the stages of a validated definition into the
cleaner's ``confidence``, ``suspects`` and ``model`` (by each kind's role),
and its ``[decisions]`` into the cleaner's decision parameters. A stage
without parameters is passed by its kind's name, exactly as
``LabelCleaner(confidence='knn', ...)`` would take it; a stage with
parameters as the kind's estimator, unseeded; a model stage whose kind is
a list as the tuple of its names (``LabelCleaner(model=(...))``). Either
way the cleaner seeds every stage from its own ``random_state`` (one
seeding policy), so a definition and the equivalent ``LabelCleaner(...)``
give the same bytes.
"""

from collections.abc import Mapping
from typing import Any

from labelclean.exceptions import PipelineDefinitionError
from labelclean.pipeline._cleaner import LabelCleaner
from labelclean.pipeline._kinds import STAGE_KINDS

__all__ = ["build_cleaner"]


def build_cleaner(
    definition: Any,
    *,
    random_state: int | None = 0,
    overrides: Mapping[str, Any] | None = None,
    n_jobs: int | None = None,
) -> LabelCleaner:
    """A :class:`LabelCleaner` configured by a validated pipeline definition.

    Parameters
    ----------
    definition : PipelineDefinition
        From :func:`~labelclean.pipeline.load_pipeline`.
    random_state : int or None, default=0
        The cleaner's seed, from which every stage without a ``random_state``
        parameter of its own is seeded (as :class:`LabelCleaner` does).
    overrides : dict, default=None
        Decision parameters that replace the definition's (e.g. from the CLI);
        None values are ignored.
    n_jobs : int, default=None
        The cleaner's ``n_jobs`` (threads for the out-of-fold models).

    Returns
    -------
    cleaner : LabelCleaner
        Unfitted. Decision parameters the definition does not set keep
        :class:`LabelCleaner`'s defaults.

    Raises
    ------
    PipelineDefinitionError
        If the stages do not form a cleaning run: exactly one confidence
        stage, at most one suspects stage and at most one model stage.
    """
    by_role: dict[str, list[Any]] = {"confidence": [], "suspects": [], "model": []}
    for position, stage in enumerate(definition.stages):
        if isinstance(stage.kind, tuple):  # model kinds compared out of fold
            by_role["model"].append((position, stage.kind))
            continue
        kind = STAGE_KINDS.get(stage.kind)
        spec = kind.build(stage.params) if stage.params else kind.name
        by_role[kind.role].append((position, spec))
    problems = []
    if len(by_role["confidence"]) != 1:
        problems.append(
            "stages: need exactly one confidence stage (knn or bayes), found "
            f"{len(by_role['confidence'])}"
        )
    for role in ("suspects", "model"):
        if len(by_role[role]) > 1:
            where = ", ".join(f"stages -> {p}" for p, _ in by_role[role])
            problems.append(f"stages: at most one {role} stage, found {where}")
    if problems:
        raise PipelineDefinitionError(
            f"invalid pipeline {definition.name!r}: " + "; ".join(problems)
        )
    decisions = dict(definition.decisions)
    decisions.update({k: v for k, v in (overrides or {}).items() if v is not None})
    cleaner = LabelCleaner(
        confidence=by_role["confidence"][0][1],
        suspects=by_role["suspects"][0][1] if by_role["suspects"] else None,
        model=by_role["model"][0][1] if by_role["model"] else "auto",
        **decisions,
        random_state=random_state,
        n_jobs=n_jobs,
    )
    try:  # a value the definition's check or an option let through (0 for
        # a share that must be above 0): said now, in one line, not at fit
        cleaner._validate_params()
    except ValueError as exc:
        raise PipelineDefinitionError(
            f"invalid pipeline {definition.name!r}: [decisions] {exc}"
        ) from None
    return cleaner
