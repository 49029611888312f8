"""The stage kinds a pipeline definition can name, and building a cleaner.

Each kind maps to one labelclean estimator and a role in the cleaning run:
``confidence`` (label confidence), ``suspects`` (SPLBoost) or ``model`` (the
final model). The estimator's own ``get_params()`` and
``_parameter_constraints`` validate a stage's ``params`` (see
:mod:`labelclean.pipeline._registry`); :func:`build_cleaner` turns a validated
definition into a :class:`~labelclean.pipeline.LabelCleaner`.
"""

from collections.abc import Mapping
from typing import Any

from labelclean.confidence import BayesConfidence, KNNConfidence
from labelclean.exceptions import PipelineDefinitionError
from labelclean.pipeline._cleaner import LabelCleaner
from labelclean.pipeline._registry import STAGE_KINDS

__all__ = ["DECISION_DEFAULTS", "build_cleaner"]

STAGE_KINDS.register(
    "knn_confidence",
    estimator=KNNConfidence,
    role="confidence",
    description="KNN noise filter, then γ = neighbours' label agreement (§III-E)",
)(KNNConfidence)
STAGE_KINDS.register(
    "bayes_confidence",
    estimator=BayesConfidence,
    role="confidence",
    description="KNN noise filter, then γ by Bayes' rule with noise-corrected priors",
)(BayesConfidence)


def _register_estimators() -> None:
    from labelclean.ensemble import CBAdaBoostClassifier, SPLBoostClassifier

    STAGE_KINDS.register(
        "splboost",
        estimator=SPLBoostClassifier,
        role="suspects",
        description="SPLBoost: rows with zero self-paced weight are suspects",
    )(SPLBoostClassifier)
    STAGE_KINDS.register(
        "cb_adaboost",
        estimator=CBAdaBoostClassifier,
        role="model",
        description="CB-AdaBoost on the soft labels (two classes or more)",
    )(CBAdaBoostClassifier)
    from labelclean.linear_model import RoSRClassifier

    STAGE_KINDS.register(
        "rosr",
        estimator=RoSRClassifier,
        role="model",
        description="RoSR-L: softmax regression with per-class self-paced weights",
    )(RoSRClassifier)
    try:
        from labelclean.ensemble import SPBLClassifier
    except ImportError:  # pragma: no cover - built in a later change
        return
    STAGE_KINDS.register(
        "spbl",
        estimator=SPBLClassifier,
        role="model",
        description="SPBL: self-paced, fully corrective multi-class boosting",
    )(SPBLClassifier)


_register_estimators()

#: Decision thresholds used when a definition's ``[decisions]`` omits them.
#: None: calibrated decisions (a threshold given switches to the fixed rule).
DECISION_DEFAULTS: dict[str, Any] = {
    "target_precision": None,
    "correct_threshold": None,
    "suspect_confidence": None,
    "model_threshold": None,
    "require_agreement": True,
}


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
        Seed of the run (passed to every stage that takes one).
    overrides : dict, default=None
        Decision thresholds that replace the definition's (e.g. from the CLI).
    n_jobs : int, default=None
        The cleaner's ``n_jobs`` (threads for the out-of-fold models).

    Returns
    -------
    cleaner : LabelCleaner
        Unfitted.

    Raises
    ------
    PipelineDefinitionError
        If the stages do not form a cleaning run: exactly one confidence
        stage, at most one suspects stage and at most one model stage.
    """
    by_role: dict[str, list[Any]] = {"confidence": [], "suspects": [], "model": []}
    for position, stage in enumerate(definition.stages):
        kind = STAGE_KINDS.get(stage.kind)
        params = dict(stage.params)
        estimator = kind.factory(**params)
        if "random_state" in estimator.get_params() and "random_state" not in params:
            estimator.set_params(random_state=random_state)
        by_role[kind.role].append((position, estimator))
    problems = []
    if len(by_role["confidence"]) != 1:
        problems.append(
            f"stages: need exactly one confidence stage (knn_confidence or "
            f"bayes_confidence), found {len(by_role['confidence'])}"
        )
    for role in ("suspects", "model"):
        if len(by_role[role]) > 1:
            where = ", ".join(f"stages -> {p}" for p, _ in by_role[role])
            problems.append(f"stages: at most one {role} stage, found {where}")
    if problems:
        raise PipelineDefinitionError(
            f"invalid pipeline {definition.name!r}: " + "; ".join(problems)
        )
    decisions = {**DECISION_DEFAULTS, **dict(definition.decisions)}
    decisions.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return LabelCleaner(
        confidence=by_role["confidence"][0][1],
        suspects=by_role["suspects"][0][1] if by_role["suspects"] else None,
        model=by_role["model"][0][1] if by_role["model"] else "auto",
        target_precision=decisions["target_precision"],
        correct_threshold=decisions["correct_threshold"],
        suspect_confidence=decisions["suspect_confidence"],
        model_threshold=decisions["model_threshold"],
        require_agreement=decisions["require_agreement"],
        random_state=random_state,
        n_jobs=n_jobs,
    )
