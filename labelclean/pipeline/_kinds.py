"""The built-in stage kinds: one vocabulary for Python and for definitions.

Each kind is a name, the estimator it builds with its defaults inside a
cleaning run, and its role: ``confidence`` (label confidence), ``suspects``
(SPLBoost) or ``model`` (the final model). The same names are the string
values :class:`~labelclean.pipeline.LabelCleaner` takes (``confidence='knn'``,
``suspects='splboost'``, ``model='rosr'``) and the ``kind`` of a
``[[stages]]`` table in a TOML definition, and both build the stage through
:data:`STAGE_KINDS`, so a definition and the equivalent ``LabelCleaner(...)``
build the same estimators. ``knn_confidence`` and ``bayes_confidence`` are the
kinds' older names, still accepted in definitions.
"""

from numbers import Integral
from typing import Any

import numpy as np
from sklearn.base import clone

from labelclean.confidence import BayesConfidence, KNNConfidence
from labelclean.ensemble import (
    BinnedTreeClassifier,
    CBAdaBoostClassifier,
    SAMMEClassifier,
    SPBLClassifier,
    SPLBoostClassifier,
)
from labelclean.ensemble._cb_adaboost import EARLY_STOPPING_ROWS
from labelclean.linear_model import RoSRClassifier
from labelclean.pipeline._registry import StageRegistry
from labelclean.utils._features import DEFAULT_MAX_CATEGORIES

__all__ = [
    "AUTO_CANDIDATES",
    "AUTO_CANDIDATES_MULTICLASS",
    "DEEP_LEARNING_RATES",
    "DEEP_TREE_DEPTH",
    "FINAL_ONLY_CANDIDATES",
    "MAX_DEEP_TREE_DEPTH",
    "MODEL_KINDS",
    "PIPELINE_AGE_GRID",
    "ROWS_PER_LEAF",
    "STAGE_KINDS",
    "TEMPERED_EVIDENCE_KINDS",
    "TREE_DEPTH",
    "check_model_list",
    "deep_tree_depth",
    "deep_tree_params",
    "deep_tree_settings",
    "make_stage",
    "max_categories_of",
    "model_candidates",
    "model_list_problem",
    "register_stage_kind",
]

#: SPLBoost's λ grid inside the pipeline: six ages spanning the paper's
#: [1, 6] instead of its 51 (a sixth of the cross-validation cost).
PIPELINE_AGE_GRID = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0)

#: Depth of the trees of the ``'cb_adaboost_trees'`` final model.
TREE_DEPTH = 3

#: Least depth of the trees of the ``'cb_adaboost_deep'`` final model: up to
#: 32 leaves, the capacity of scikit-learn's ``HistGradientBoostingClassifier``
#: trees (31 leaves by default); deeper on more rows (:func:`deep_tree_depth`).
DEEP_TREE_DEPTH = 5

#: The deepest trees ``'cb_adaboost_deep'`` grows, however many the rows.
MAX_DEEP_TREE_DEPTH = 10

#: Rows per leaf, on average, that a ``'cb_adaboost_deep'`` tree must keep
#: to grow one level deeper than :data:`DEEP_TREE_DEPTH`
#: (:func:`deep_tree_depth`).
ROWS_PER_LEAF = 50


#: Learning rates ``'cb_adaboost_deep'`` chooses between on its held-out
#: rows when it stops early (:func:`deep_tree_params`).
DEEP_LEARNING_RATES = (1.0, 0.3)


def deep_tree_params(n_rows: int) -> dict:
    """``'cb_adaboost_deep'``'s settings on ``n_rows`` training rows: trees
    :func:`deep_tree_depth` deep and, above scikit-learn's 10,000 rows, early
    stopping on a tenth of them held out, at the better on those rows of
    :data:`DEEP_LEARNING_RATES` (docs/decisions.md, *Deep trees stop early,
    on rows held out*)."""
    params = {"estimator__max_depth": deep_tree_depth(n_rows)}
    if n_rows > EARLY_STOPPING_ROWS:
        params.update(early_stopping=True, learning_rate=DEEP_LEARNING_RATES)
    return params


def deep_tree_settings(n_rows: int) -> dict:
    """:func:`deep_tree_params` as ``model_selection_`` records them: the
    ``depth`` and whether the fits stop ``early``."""
    params = deep_tree_params(n_rows)
    return {
        "depth": params["estimator__max_depth"],
        "early_stopping": "early_stopping" in params,
    }


def deep_tree_depth(n_rows: int) -> int:
    """Depth of ``'cb_adaboost_deep'``'s trees on ``n_rows`` training rows:
    the deepest whose ``2 ** depth`` leaves keep :data:`ROWS_PER_LEAF` rows
    each on average, at least :data:`DEEP_TREE_DEPTH` and at most
    :data:`MAX_DEEP_TREE_DEPTH` (docs/decisions.md, *Trees as deep as the
    rows allow*)."""
    depth = int(np.floor(np.log2(max(n_rows, 1) / ROWS_PER_LEAF)))
    return min(max(depth, DEEP_TREE_DEPTH), MAX_DEEP_TREE_DEPTH)


def _knn(**params) -> KNNConfidence:
    return KNNConfidence(**{"feature_weights": "auto", **params})


def _splboost(**params) -> SPLBoostClassifier:
    return SPLBoostClassifier(**{"age_grid": PIPELINE_AGE_GRID, **params})


def _cb_adaboost_on_trees(depth: int):
    """The factory of CB-AdaBoost whose weak learner is a depth-``depth``
    binned tree (a given ``estimator`` wins)."""

    def build(**params) -> CBAdaBoostClassifier:
        params.setdefault("estimator", BinnedTreeClassifier(max_depth=depth))
        return CBAdaBoostClassifier(**params)

    return build


_cb_adaboost_trees = _cb_adaboost_on_trees(TREE_DEPTH)


def _adaboost_trees(**params) -> SAMMEClassifier:
    params.setdefault("estimator", BinnedTreeClassifier(max_depth=TREE_DEPTH))
    return SAMMEClassifier(**params)


_cb_adaboost_deep = _cb_adaboost_on_trees(DEEP_TREE_DEPTH)


def _builtin_kinds() -> StageRegistry:
    registry = StageRegistry()
    kinds = [
        ("knn", _knn, KNNConfidence, "confidence", ("knn_confidence",),
         "KNN noise filter, then γ = neighbours' label agreement (§III-E), "
         "columns weighted by what they tell of the label where that helps"),
        ("bayes", BayesConfidence, BayesConfidence, "confidence",
         ("bayes_confidence",),
         "KNN noise filter, then γ by Bayes' rule with noise-corrected priors"),
        ("splboost", _splboost, SPLBoostClassifier, "suspects", (),
         "SPLBoost: rows with zero self-paced weight are suspects"),
        ("cb_adaboost", CBAdaBoostClassifier, CBAdaBoostClassifier, "model", (),
         "CB-AdaBoost with stumps on the soft labels"),
        ("cb_adaboost_trees", _cb_adaboost_trees, CBAdaBoostClassifier, "model", (),
         f"CB-AdaBoost with depth-{TREE_DEPTH} binned trees on the soft labels"),
        ("cb_adaboost_deep", _cb_adaboost_deep, CBAdaBoostClassifier, "model", (),
         "CB-AdaBoost with binned trees as deep as the rows allow (depth "
         f"{DEEP_TREE_DEPTH} to {MAX_DEEP_TREE_DEPTH}); a final-model candidate of "
         "model='auto' on the cleaned rows"),
        ("adaboost_trees", _adaboost_trees, SAMMEClassifier, "model", (),
         f"AdaBoost (SAMME) with depth-{TREE_DEPTH} binned trees on the observed "
         "labels: CB-AdaBoost with every label confidence 1"),
        ("rosr", RoSRClassifier, RoSRClassifier, "model", (),
         "RoSR-L: softmax regression with per-class self-paced weights"),
        ("spbl", SPBLClassifier, SPBLClassifier, "model", (),
         "SPBL: self-paced, fully corrective multi-class boosting"),
    ]  # fmt: skip
    for name, factory, estimator, role, aliases, description in kinds:
        registry.register(
            name,
            estimator=estimator,
            role=role,
            description=description,
            aliases=aliases,
        )(factory)
    return registry


#: The library's registry of stage kinds: the built-in ones, and any an
#: application adds with :func:`register_stage_kind`.
STAGE_KINDS = _builtin_kinds()

#: Decorator registering a stage kind in :data:`STAGE_KINDS`.
register_stage_kind = STAGE_KINDS.register

#: The built-in final models: the names ``LabelCleaner(model=...)`` takes
#: besides ``'auto'``.
MODEL_KINDS = tuple(
    name for name in STAGE_KINDS if STAGE_KINDS.get(name).role == "model"
)

#: Model kinds whose out-of-fold probabilities the evidence takes calibrated
#: by a temperature fitted to the observed labels: boosting on hard labels
#: grows surer with its rounds than its held-out rows bear out
#: (docs/decisions.md, *The multi-class pipeline's evidence*).
TEMPERED_EVIDENCE_KINDS = ("adaboost_trees",)

#: The final models ``model='auto'`` compares for two classes; the first is
#: kept unless another is clearly better out of fold (:func:`choose_model`).
AUTO_CANDIDATES = ("rosr", "cb_adaboost", "cb_adaboost_trees")

#: The candidates for more than two classes (boosted stumps are weak
#: multi-class learners; depth-3 trees capture interactions).
AUTO_CANDIDATES_MULTICLASS = ("rosr", "cb_adaboost_trees")

#: Candidates ``model='auto'`` compares, and stacks, only for the final
#: model on the cleaned rows, never for the evidence (docs/decisions.md,
#: *Deeper trees for the final model*).
FINAL_ONLY_CANDIDATES = ("cb_adaboost_deep",)


def model_candidates(spec: Any, n_classes: int, final: bool = False) -> list[str]:
    """Names of the models ``LabelCleaner(model=spec)`` evaluates out of fold;
    the first is kept unless another is clearly better (:func:`choose_model`).

    A list or tuple of kind names is itself; ``'auto'`` the candidates for
    ``n_classes`` (with ``final``, for the final model on the cleaned rows,
    also :data:`FINAL_ONLY_CANDIDATES`); another name, or an estimator's
    class name, stands alone."""
    if isinstance(spec, (list, tuple)):
        return list(spec)
    if not isinstance(spec, str):
        return [type(spec).__name__]
    if spec != "auto":
        return [spec]
    names = AUTO_CANDIDATES if n_classes == 2 else AUTO_CANDIDATES_MULTICLASS
    return list(names + (FINAL_ONLY_CANDIDATES if final else ()))


def model_list_problem(names: Any) -> str | None:
    """Why a list of models cannot be compared out of fold (empty, a name
    repeated, or not a built-in model kind), or None. One rule for
    ``LabelCleaner(model=[...])`` and a definition's list of kinds."""
    names = list(names)
    unknown = [n for n in names if not isinstance(n, str) or n not in MODEL_KINDS]
    if names and not unknown and len(set(names)) == len(names):
        return None
    return f"distinct names among {', '.join(MODEL_KINDS)}; got {names!r}"


def check_model_list(spec: Any) -> None:
    """Refuse ``LabelCleaner(model=[...])`` when :func:`model_list_problem`
    finds one."""
    if not isinstance(spec, (list, tuple)):
        return
    problem = model_list_problem(spec)
    if problem:
        raise ValueError(
            "The 'model' parameter of LabelCleaner, given as a list, names the "
            "candidates to compare out of fold, the first kept unless another is "
            f"clearly better: {problem}."
        )


def make_stage(spec: Any, seed: int) -> Any:
    """A fresh stage: a built-in kind's name (:data:`STAGE_KINDS`) or a clone
    of an estimator, seeded with ``seed`` unless it has a seed of its own."""
    if isinstance(spec, str):
        est = STAGE_KINDS.get(spec).build()
    else:
        est = clone(spec)
    if "random_state" in est.get_params() and est.random_state is None:
        est.set_params(random_state=seed)
    return est


def max_categories_of(confidence: Any) -> int:
    """Most one-hot columns a categorical feature keeps in a run: the
    confidence stage's ``max_categories`` (``confidence`` is a kind's name
    or an estimator), or the default where it has none. The cleaner's own
    encoding (the models' features, the report's account of each column)
    and the input suite's warnings follow it, so that every stage reads a
    column's levels alike and the report says what was done. A value the
    stage would refuse gives the default here: the stage's own check then
    names the parameter when it is fitted."""
    if isinstance(confidence, str):
        confidence = STAGE_KINDS.get(confidence).build()
    value = confidence.get_params().get("max_categories")
    ok = isinstance(value, Integral) and not isinstance(value, bool) and value >= 2
    return int(value) if ok else DEFAULT_MAX_CATEGORIES
