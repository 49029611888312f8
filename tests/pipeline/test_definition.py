"""Pipeline definitions: loaded by name or path, rejected before anything runs."""

import hashlib
import json
import re
import sys
from numbers import Integral, Real
from pathlib import Path
from typing import ClassVar

import pytest
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions

from labelclean.exceptions import PipelineDefinitionError
from labelclean.pipeline import (
    StageRegistry,
    available_pipelines,
    load_pipeline,
    parse_pipeline,
)

REPO_PIPELINES = Path(__file__).resolve().parents[2] / "pipelines"


class _Booster(BaseEstimator):
    _parameter_constraints: ClassVar[dict] = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "regularizer": [StrOptions({"hard", "linear", "mixture"})],
    }

    def __init__(self, n_estimators=50, learning_rate=1.0, regularizer="hard"):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.regularizer = regularizer


@pytest.fixture
def registry():
    # Dummy kinds live in a private registry: the library's one is untouched.
    reg = StageRegistry()

    @reg.register("knn_confidence", params=["n_neighbors"], role="confidence")
    class KNN:
        pass

    @reg.register("splboost", estimator=_Booster)
    class SPL:
        pass

    return reg


GOOD = """
[pipeline]
name = "binary"
description = "two classes"
version = 1

[data]
label = "y"
id = "row"
exclude = ["leak"]

[[stages]]
name = "confidence"
kind = "knn_confidence"
params = { n_neighbors = 5 }

[[stages]]
name = "suspects"
kind = "splboost"
description = "self-paced boosting"
[stages.params]
n_estimators = 100
regularizer = "mixture"

[decisions]
correct_threshold = 0.9
suspect_confidence = 0.5

[validation]
max_discarded_share = 0.3
fail_on = "error"
"""


def _write(folder, name, text):
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _problems(excinfo):
    return dict(excinfo.value.errors)


def test_good_definition(tmp_path, registry):
    path = _write(tmp_path, "binary-file", GOOD)
    d = load_pipeline(path, registry=registry)
    assert d.name == "binary"
    assert d.description == "two classes"
    assert d.data.label == "y" and d.data.id == "row" and d.data.exclude == ("leak",)
    assert d.data.features is None
    assert [(s.name, s.kind) for s in d.stages] == [
        ("confidence", "knn_confidence"),
        ("suspects", "splboost"),
    ]
    assert dict(d.stage("suspects").params) == {
        "n_estimators": 100,
        "regularizer": "mixture",
    }
    assert d.decisions["correct_threshold"] == 0.9
    assert "outputs" not in d.to_dict()
    assert d.source == path
    assert d.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    as_dict = d.to_dict()
    assert json.loads(json.dumps(as_dict)) == as_dict
    assert as_dict["stages"][0] == {
        "name": "confidence",
        "kind": "knn_confidence",
        "params": {"n_neighbors": 5},
        "description": "",
    }
    with pytest.raises(TypeError):
        d.stages[0].params["n_neighbors"] = 1  # read-only
    with pytest.raises(KeyError, match="did you mean 'suspects'"):
        d.stage("suspect")


def test_name_defaults_to_file_stem(tmp_path, registry):
    text = GOOD.replace('name = "binary"\n', "")
    d = load_pipeline(_write(tmp_path, "my-pipe", text), registry=registry)
    assert d.name == "my-pipe"


def test_load_by_name(tmp_path, registry, monkeypatch):
    _write(tmp_path, "binary", GOOD)
    d = load_pipeline("binary", registry=registry, search_path=[tmp_path])
    assert d.source == tmp_path / "binary.toml"
    with pytest.raises(PipelineDefinitionError, match="did you mean 'binary'"):
        load_pipeline("binray", registry=registry, search_path=[tmp_path])
    monkeypatch.setenv("LABELCLEAN_PIPELINE_PATH", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert "binary" in available_pipelines()
    assert load_pipeline("binary", registry=registry).name == "binary"


def test_missing_file_and_bad_toml(tmp_path, registry):
    with pytest.raises(PipelineDefinitionError, match="does not exist"):
        load_pipeline(tmp_path / "nope.toml", registry=registry)
    path = _write(tmp_path, "dup", '[data]\nlabel = "a"\nlabel = "b"\n')
    with pytest.raises(PipelineDefinitionError, match=r"not valid TOML: .*line 3"):
        load_pipeline(path, registry=registry)
    bad = tmp_path / "latin.toml"
    bad.write_bytes('[data]\nlabel = "caf\xe9"\n'.encode("latin-1"))
    with pytest.raises(PipelineDefinitionError, match="not UTF-8"):
        load_pipeline(bad, registry=registry)


@pytest.mark.parametrize(
    "old, new, location, message",
    [
        (
            "[decisions]",
            "[decision]",
            "decision",
            "unknown section; did you mean 'decisions'?",
        ),
        (
            'label = "y"',
            'lable = "y"',
            "data -> lable",
            "unknown key; did you mean 'label'?",
        ),
        (
            'name = "suspects"',
            'name = "confidence"',
            "stages -> 1 -> name",
            "duplicate stage name 'confidence' (also stages -> 0)",
        ),
        (
            'kind = "splboost"',
            'kind = "splbost"',
            "stages -> 1 -> kind",
            "unknown stage kind 'splbost'; did you mean 'splboost'?",
        ),
        (
            "n_estimators = 100",
            "n_estimaters = 100",
            "stages -> 1 -> params -> n_estimaters",
            "unknown parameter for stage kind 'splboost'; did you mean 'n_estimators'?",
        ),
        (
            "n_estimators = 100",
            "n_estimators = 0",
            "stages -> 1 -> params -> n_estimators",
            "The 'n_estimators' parameter of _Booster must be an int in the range "
            "[1, inf). Got 0 instead.",
        ),
        (
            'regularizer = "mixture"',
            'regularizer = "mixed"',
            "stages -> 1 -> params -> regularizer",
            "The 'regularizer' parameter of _Booster must be a str among",
        ),
        (
            "n_neighbors = 5",
            "n_neighbours = 5",
            "stages -> 0 -> params -> n_neighbours",
            "did you mean 'n_neighbors'?",
        ),
        (
            'description = "self-paced boosting"',
            'descripton = "x"',
            "stages -> 1 -> descripton",
            "unknown key; did you mean 'description'?",
        ),
        (
            "correct_threshold = 0.9",
            "correct_threshold = 1.5",
            "decisions -> correct_threshold",
            "must be in [0, 1], got 1.5",
        ),
        (
            "correct_threshold = 0.9",
            "correct_threshold = true",
            "decisions -> correct_threshold",
            "must be a number in [0, 1]",
        ),
        (
            'fail_on = "error"',
            'fail_on = "erorr"',
            "validation -> fail_on",
            "did you mean 'error'?",
        ),
        (
            "suspect_confidence = 0.5",
            'final_fit = "weigted"',
            "decisions -> final_fit",
            "did you mean 'weighted'?",
        ),
        (
            "suspect_confidence = 0.5",
            'final_model = "autp"',
            "decisions -> final_model",
            "did you mean 'auto'?",
        ),
        ("version = 1", "version = 2", "pipeline -> version", "reads format version 1"),
        (
            'fail_on = "error"\n',
            'fail_on = "error"\n[outputs]\naudit = "my_audit.parquet"\n',
            "outputs",
            "the output files have fixed names",
        ),
        ('exclude = ["leak"]', 'exclude = "leak"', "data -> exclude", "must be a list"),
        (
            'name = "suspects"',
            'name = "2nd stage"',
            "stages -> 1 -> name",
            "must be a string of letters",
        ),
    ],
)
def test_problems_have_location_and_suggestion(
    tmp_path, registry, old, new, location, message
):
    assert old in GOOD
    path = _write(tmp_path, "p", GOOD.replace(old, new, 1))
    with pytest.raises(PipelineDefinitionError) as excinfo:
        load_pipeline(path, registry=registry)
    problems = _problems(excinfo)
    assert location in problems, problems
    assert message in problems[location]
    assert re.escape(location) and f"{location}: " in str(excinfo.value)
    assert str(path) in str(excinfo.value)


def test_all_problems_are_reported_together(registry):
    document = {
        "pipelin": {},
        "data": {"label": 3},
        "stages": [
            {"name": "a", "kind": "nope"},
            {"name": "a", "kind": "splboost", "params": {"learning_rate": -1}},
            {"kind": "knn_confidence", "params": []},
        ],
    }
    with pytest.raises(PipelineDefinitionError, match=r"\(7 problem\(s\)\)") as excinfo:
        parse_pipeline(document, registry=registry)
    assert set(_problems(excinfo)) == {
        "pipelin",
        "data -> label",
        "stages -> 0 -> kind",
        "stages -> 1 -> name",
        "stages -> 1 -> params -> learning_rate",
        "stages -> 2 -> name",
        "stages -> 2 -> params",
    }


def test_structure_errors(registry):
    for document, location in [
        ({}, "stages"),
        ({"stages": []}, "stages"),
        ({"stages": [1]}, "stages -> 0"),
        ({"stages": [{"name": "a"}]}, "stages -> 0 -> kind"),
        ({"stages": [{"kind": "export", "params": 3}]}, "stages -> 0 -> params"),
        ({"data": [], "stages": [{"name": "a", "kind": "export"}]}, "data"),
    ]:
        with pytest.raises(PipelineDefinitionError) as excinfo:
            parse_pipeline(document, registry=registry)
        assert location in _problems(excinfo), (document, _problems(excinfo))


def test_cross_field_checks(registry):
    stages = [{"name": "a", "kind": "splboost"}]
    with pytest.raises(PipelineDefinitionError) as excinfo:
        parse_pipeline(
            {
                "data": {"label": "y", "features": ["x", "y"], "exclude": ["x"]},
                "stages": stages,
            },
            registry=registry,
        )
    problems = _problems(excinfo)
    assert "names columns also in features: ['x']" in problems["data -> exclude"]
    assert "must not include the label column 'y'" in problems["data -> features"]


def test_definitions_cannot_import_or_run_code(tmp_path, registry):
    # A kind is only ever looked up in the registry: dotted paths, module
    # names and expressions are unknown kinds, and nothing gets imported.
    before = set(sys.modules)
    for kind in ["os.system", "subprocess:run", "__import__('os')", "pickle"]:
        with pytest.raises(PipelineDefinitionError, match="unknown stage kind"):
            parse_pipeline({"stages": [{"name": "a", "kind": kind}]}, registry=registry)
    assert set(sys.modules) == before


def test_unknown_pipeline_names_are_not_paths(tmp_path, registry):
    with pytest.raises(PipelineDefinitionError, match="unknown pipeline"):
        load_pipeline("..", registry=registry, search_path=[tmp_path])


def test_oversized_file(tmp_path, registry):
    path = tmp_path / "big.toml"
    path.write_text("# " + "x" * (1 << 20) + "\n")
    with pytest.raises(PipelineDefinitionError, match="more than the"):
        load_pipeline(path, registry=registry)


def _repo_definitions():
    return sorted(REPO_PIPELINES.glob("*.toml")) if REPO_PIPELINES.is_dir() else []


@pytest.mark.parametrize("path", _repo_definitions(), ids=lambda p: p.stem)
def test_every_shipped_definition_is_valid(path):
    # Uses the library's own registry: every kind a shipped file names must be
    # registered by importing labelclean.pipeline.
    definition = load_pipeline(path)
    assert definition.stages


def test_a_model_stage_may_compare_a_list_of_model_kinds():
    def document(kind, **extra):
        return {
            "stages": [
                {"name": "confidence", "kind": "knn"},
                {"name": "model", "kind": kind, **extra},
            ]
        }

    pair = ["cb_adaboost", "cb_adaboost_trees"]
    definition = parse_pipeline(document(pair), name="compared")
    assert definition.stages[1].kind == tuple(pair)
    assert definition.to_dict()["stages"][1]["kind"] == pair
    json.dumps(definition.to_dict())  # manifests and reports take it as it is
    bad = [
        (["cb_adaboost", "knn"], {}, "kind"),  # not a model
        ([], {}, "kind"),
        (["rosr", "rosr"], {}, "kind"),
        (["rosr", "cb_adaboost_tree"], {}, "kind"),
        (pair, {"params": {"n_estimators": 5}}, "params"),
    ]
    for kind, extra, where in bad:
        with pytest.raises(PipelineDefinitionError) as excinfo:
            parse_pipeline(document(kind, **extra), name="bad")
        problems = _problems(excinfo)
        assert list(problems) == [f"stages -> 1 -> {where}"], problems
        expected = "takes no params" if where == "params" else "distinct names among"
        assert expected in problems[f"stages -> 1 -> {where}"]
