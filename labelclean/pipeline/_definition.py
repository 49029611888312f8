"""Declarative pipeline definitions: TOML files in ``pipelines/``, checked first.

A definition names the stages of a cleaning pipeline and their parameters
(the format is documented in ``docs/pipelines.md``)::

    [pipeline]
    name = "binary-cbadaboost"
    description = "Two classes: KNN confidence, SPLBoost suspects, CB-AdaBoost."

    [data]
    label = "label"

    [[stages]]
    name = "confidence"
    kind = "knn"
    params = { n_neighbors = 5 }

    [[stages]]
    name = "model"
    kind = ["cb_adaboost", "cb_adaboost_trees"]  # compared out of fold

:func:`load_pipeline` finds a definition by name (a file stem in the search
path, see :func:`pipeline_search_path`) or by path, reads it with the
standard library's :mod:`tomllib`, and validates all of it before anything
runs: unknown sections and keys, wrong types and out-of-range values,
duplicate or malformed stage names, unknown stage kinds (looked up in a
:class:`~labelclean.pipeline.StageRegistry`), unknown or invalid stage
parameters. All problems are reported together in one :class:`PipelineDefinitionError`,
each with its location (``stages -> 2 -> params -> n_estimators``, stages
counted from 0) and a "did you mean" suggestion where one is close. Nothing
in a definition is imported or evaluated.
"""

import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from labelclean.exceptions import PipelineDefinitionError
from labelclean.pipeline._kinds import MODEL_KINDS, STAGE_KINDS, model_list_problem
from labelclean.pipeline._registry import StageRegistry
from labelclean.utils._suggest import did_you_mean

__all__ = [
    "FORMAT_VERSION",
    "DataSpec",
    "PipelineDefinition",
    "StageSpec",
    "parse_pipeline",
]

#: Version of the definition format this module reads.
FORMAT_VERSION = 1
#: Environment variable with extra folders of definitions (os.pathsep-separated).
_STAGE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")

Location = tuple[str | int, ...]
Problems = list[tuple[Location, str]]


# --------------------------------------------------------------------------
# Field checkers: each returns an error message or None.
# --------------------------------------------------------------------------


def _is_str(v: Any) -> str | None:
    return None if isinstance(v, str) and v.strip() else "must be a non-empty string"


def _is_text(v: Any) -> str | None:
    return None if isinstance(v, str) else "must be a string"


def _is_bool(v: Any) -> str | None:
    return None if isinstance(v, bool) else "must be true or false"


def _is_str_list(v: Any) -> str | None:
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        return "must be a list of non-empty strings"
    if len(set(v)) != len(v):
        return "must not repeat a name"
    return None


def _is_list(v: Any) -> str | None:
    if not isinstance(v, list) or not v:
        return "must be a non-empty list"
    return None


def _number(
    lo: float, hi: float, *, integer: bool = False
) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        kind = "an integer" if integer else "a number"
        ok_type = isinstance(v, int) if integer else isinstance(v, int | float)
        if isinstance(v, bool) or not ok_type:
            return f"must be {kind} in [{lo:g}, {hi:g}]"
        if isinstance(v, float) and not math.isfinite(v):
            return f"must be a finite number in [{lo:g}, {hi:g}]"
        if not lo <= v <= hi:
            return f"must be in [{lo:g}, {hi:g}], got {v!r}"
        return None

    return check


def _one_of(*choices: str) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        if v in choices:
            return None
        return f"must be one of {list(choices)}, got {v!r}" + did_you_mean(
            str(v), choices
        )

    return check


def _version(v: Any) -> str | None:
    if isinstance(v, bool) or v != FORMAT_VERSION:
        return (
            f"is {v!r}, but this labelclean reads format version {FORMAT_VERSION}; "
            "upgrade labelclean or rewrite the definition"
        )
    return None


_PROBABILITY = _number(0.0, 1.0)

#: Keys allowed in each table section, with their checks. ``stages`` is an
#: array of tables checked separately.
SECTIONS: dict[str, dict[str, Callable[[Any], str | None]]] = {
    "pipeline": {"name": _is_str, "description": _is_text, "version": _version},
    "data": {
        "label": _is_str,
        "id": _is_str,
        "features": _is_str_list,
        "exclude": _is_str_list,
        "label_domain": _is_list,
    },
    "decisions": {
        "target_precision": _PROBABILITY,
        "known_noise_rate": _PROBABILITY,
        "correct_threshold": _PROBABILITY,
        "suspect_confidence": _PROBABILITY,
        "model_threshold": _PROBABILITY,
        "require_agreement": _is_bool,
        "final_fit": _one_of("weighted", "cleaned", "soft"),
        "final_model": _one_of("auto", *MODEL_KINDS),
    },
    "validation": {
        "max_discarded_share": _PROBABILITY,
        "max_discarded_share_per_class": _PROBABILITY,
        "max_changed_share_per_class": _PROBABILITY,
        "require_all_classes": _is_bool,
        "fail_on": _one_of("never", "error", "warning"),
        "max_examples": _number(0, 10_000, integer=True),
    },
}
_STAGE_KEYS = ("name", "kind", "params", "description")
_TOP_KEYS = (*SECTIONS, "stages")


# --------------------------------------------------------------------------
# The parsed definition
# --------------------------------------------------------------------------


def _frozen(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _thawed(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thawed(v) for v in value]
    return value


@dataclass(frozen=True)
class StageSpec:
    """One ``[[stages]]`` entry: a named, parameterised stage kind (a model
    stage's ``kind`` may be a tuple of model kinds, compared out of fold)."""

    name: str
    kind: str | tuple[str, ...]
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    description: str = ""


@dataclass(frozen=True)
class DataSpec:
    """The ``[data]`` section: which columns play which part."""

    label: str | None = None
    id: str | None = None
    features: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    label_domain: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class PipelineDefinition:
    """A validated pipeline definition (immutable).

    Attributes
    ----------
    name : str
        ``[pipeline] name``, else the file stem.
    description : str
    version : int
        Definition format version.
    data : DataSpec
    stages : tuple of StageSpec
        In running order.
    decisions, validation : mapping
        The sections as given (read-only); defaults are the pipeline's
        business.
    source : Path or None
        The file read, if any.
    sha256 : str
        Digest of the file's bytes (or of the canonical JSON of a mapping),
        for run manifests.
    """

    name: str
    description: str
    version: int
    data: DataSpec
    stages: tuple[StageSpec, ...]
    decisions: Mapping[str, Any]
    validation: Mapping[str, Any]
    source: Path | None
    sha256: str

    def stage(self, name: str) -> StageSpec:
        """The stage called ``name``."""
        for stage in self.stages:
            if stage.name == name:
                return stage
        names = [s.name for s in self.stages]
        raise KeyError(
            f"no stage {name!r} in pipeline {self.name!r}{did_you_mean(name, names)}"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form, for manifests and reports."""
        return {
            "name": self.name,
            "description": self.description,
            "version": self.version,
            "data": {
                "label": self.data.label,
                "id": self.data.id,
                "features": list(self.data.features) if self.data.features else None,
                "exclude": list(self.data.exclude),
                "label_domain": (
                    list(self.data.label_domain) if self.data.label_domain else None
                ),
            },
            "stages": [
                {
                    "name": s.name,
                    "kind": _thawed(s.kind),
                    "params": _thawed(s.params),
                    "description": s.description,
                }
                for s in self.stages
            ],
            "decisions": _thawed(self.decisions),
            "validation": _thawed(self.validation),
            "source": str(self.source) if self.source is not None else None,
            "sha256": self.sha256,
        }


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


def _format_location(location: Location) -> str:
    return " -> ".join(str(part) for part in location) or "(top level)"


def _raise(source: str, problems: Problems) -> None:
    text = "; ".join(
        f"{_format_location(loc)}: {msg.rstrip('.')}" for loc, msg in problems
    )
    error = PipelineDefinitionError(
        f"invalid pipeline definition {source} ({len(problems)} problem(s)): {text}"
    )
    error.errors = [  # type: ignore[attr-defined]
        (_format_location(loc), msg) for loc, msg in problems
    ]
    raise error


def _check_table(
    table: Any, location: Location, fields: Mapping[str, Callable[[Any], str | None]]
) -> Problems:
    if not isinstance(table, Mapping):
        return [(location, "must be a table")]
    problems: Problems = []
    for key, value in table.items():
        if key not in fields:
            problems.append(
                (
                    (*location, key),
                    f"unknown key{did_you_mean(key, fields)} (allowed: "
                    f"{', '.join(fields)})",
                )
            )
            continue
        message = fields[key](value)
        if message:
            problems.append(((*location, key), message))
    return problems


def _check_stages(stages: Any, registry: StageRegistry) -> Problems:
    if not isinstance(stages, list) or not stages:
        return [(("stages",), "must hold at least one [[stages]] table")]
    problems: Problems = []
    seen: dict[str, int] = {}
    for i, stage in enumerate(stages):
        loc: Location = ("stages", i)
        if not isinstance(stage, Mapping):
            problems.append((loc, "must be a table"))
            continue
        for key in stage:
            if key not in _STAGE_KEYS:
                problems.append(
                    (
                        (*loc, key),
                        f"unknown key{did_you_mean(key, _STAGE_KEYS)} (allowed: "
                        f"{', '.join(_STAGE_KEYS)})",
                    )
                )
        name = stage.get("name")
        if name is None:
            problems.append(((*loc, "name"), "is required"))
        elif not isinstance(name, str) or not _STAGE_NAME.match(name):
            problems.append(
                (
                    (*loc, "name"),
                    f"{name!r} must be a string of letters, digits, '_' or '-', "
                    "starting with a letter",
                )
            )
        elif name in seen:
            problems.append(
                (
                    (*loc, "name"),
                    f"duplicate stage name {name!r} (also stages -> {seen[name]})",
                )
            )
        else:
            seen[name] = i
        if "description" in stage and not isinstance(stage["description"], str):
            problems.append(((*loc, "description"), "must be a string"))
        params = stage.get("params", {})
        if not isinstance(params, Mapping):
            problems.append(((*loc, "params"), "must be a table"))
            params = None
        kind = stage.get("kind")
        if kind is None:
            problems.append(((*loc, "kind"), "is required"))
            continue
        if isinstance(kind, list):
            problems.extend(_check_model_list(kind, params, loc))
            continue
        if not isinstance(kind, str) or kind not in registry:
            problems.append(((*loc, "kind"), registry.unknown_message(kind)))
            continue
        if params is not None:
            for sub, message in registry.get(kind).check_params(params):
                problems.append(((*loc, "params", *sub), message))
    return problems


def _check_model_list(kinds: list, params: Any, loc: Location) -> Problems:
    """A model stage's list of kinds: the candidates compared out of fold
    (``LabelCleaner(model=[...])``), distinct built-in model kinds, no params."""
    problems: Problems = []
    problem = model_list_problem(kinds)
    if problem:
        problems.append(
            (
                (*loc, "kind"),
                "a list of kinds names the models compared out of fold, the first "
                f"kept unless another is clearly better: {problem}",
            )
        )
    if params:
        problems.append(
            ((*loc, "params"), "a stage whose kind is a list of kinds takes no params")
        )
    return problems


def _problems(document: Mapping[str, Any], registry: StageRegistry) -> Problems:
    """Every problem of a definition, with its location."""
    problems: Problems = []
    for key in document:
        if key == "outputs":
            problems.append(
                (
                    (key,),
                    "is not a section of a definition: the output files have fixed "
                    "names (cleaned.parquet, audit.parquet, report.json, "
                    "report.html, manifest.json, model.skops); remove it",
                )
            )
        elif key not in _TOP_KEYS:
            problems.append(
                (
                    (key,),
                    f"unknown section{did_you_mean(key, _TOP_KEYS)} (allowed: "
                    f"{', '.join(_TOP_KEYS)})",
                )
            )
    for section, fields in SECTIONS.items():
        if section in document:
            problems += _check_table(document[section], (section,), fields)
    if "stages" not in document:
        problems.append((("stages",), "is required: add at least one [[stages]] table"))
    else:
        problems += _check_stages(document["stages"], registry)
    data = document.get("data", {})
    if isinstance(data, Mapping):
        overlap = set(data.get("features") or []) & set(data.get("exclude") or [])
        if (
            isinstance(data.get("features"), list)
            and isinstance(data.get("exclude"), list)
            and overlap
        ):
            problems.append(
                (
                    ("data", "exclude"),
                    f"names columns also in features: {sorted(overlap)}",
                )
            )
        for key in ("label", "id"):
            value = data.get(key)
            if (
                isinstance(value, str)
                and isinstance(data.get("features"), list)
                and value in data["features"]
            ):
                problems.append(
                    (
                        ("data", "features"),
                        f"must not include the {key} column {value!r}",
                    )
                )
    return problems


def parse_pipeline(
    document: Mapping[str, Any],
    *,
    name: str | None = None,
    source: Path | None = None,
    registry: StageRegistry | None = None,
    sha256: str | None = None,
) -> PipelineDefinition:
    """Validate a parsed definition (a dict, as :func:`tomllib.loads` returns).

    Parameters
    ----------
    document : mapping
        The definition's content.
    name : str, default=None
        Name used when ``[pipeline] name`` is absent.
    source : Path, default=None
        Where the document came from, for messages.
    registry : StageRegistry, default=None
        Stage kinds allowed; the library's :data:`STAGE_KINDS` by default.
    sha256 : str, default=None
        Digest of the source bytes; computed from the canonical JSON of
        ``document`` when not given.

    Returns
    -------
    definition : PipelineDefinition

    Raises
    ------
    PipelineDefinitionError
        Listing every problem found, each with its location. The error's
        ``errors`` attribute holds them as ``(location, message)`` pairs.
    """
    registry = STAGE_KINDS if registry is None else registry
    label = repr(str(source)) if source is not None else repr(name or "<definition>")
    if not isinstance(document, Mapping):
        _raise(label, [((), "must be a table of sections")])
    problems = _problems(document, registry)
    if problems:
        _raise(label, problems)

    meta = document.get("pipeline", {})
    definition_name = meta.get("name") or name or "pipeline"
    if sha256 is None:
        canonical = json.dumps(document, sort_keys=True, default=str).encode()
        sha256 = hashlib.sha256(canonical).hexdigest()
    data = document.get("data", {})
    features = data.get("features")
    domain = data.get("label_domain")
    return PipelineDefinition(
        name=definition_name,
        description=meta.get("description", ""),
        version=meta.get("version", FORMAT_VERSION),
        data=DataSpec(
            label=data.get("label"),
            id=data.get("id"),
            features=tuple(features) if features is not None else None,
            exclude=tuple(data.get("exclude", ())),
            label_domain=tuple(domain) if domain is not None else None,
        ),
        stages=tuple(
            StageSpec(
                name=s["name"],
                kind=_frozen(s["kind"]),
                params=_frozen(dict(s.get("params", {}))),
                description=s.get("description", ""),
            )
            for s in document["stages"]
        ),
        decisions=_frozen(dict(document.get("decisions", {}))),
        validation=_frozen(dict(document.get("validation", {}))),
        source=source,
        sha256=sha256,
    )
