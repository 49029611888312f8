"""Nothing a file says can run code, reach outside the output, or go online.

* model files are skops archives loaded with an allow-list of types: a
  crafted archive naming any other type, a pickle renamed ``.skops`` and a
  skops file of an arbitrary object are refused with exit code 6 before
  anything in them is constructed;
* pipeline definitions are data: stage kinds come from the registry only, so
  ``os.system`` is just an unknown kind, and nothing is imported or evaluated;
* output names from a definition cannot leave the output folder;
* a full ``labelclean run`` opens no network connection (audit hook).
"""

import pickle
from pathlib import Path

import pytest
from reliability_utils import (
    EXIT_DEFINITION,
    NETWORK_EVENTS,
    make_frame,
    tree_digest,
    write_pipeline,
)
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.exceptions import PipelineDefinitionError
from labelclean.pipeline import load_pipeline, loads_cleaner, parse_pipeline

SIDE_EFFECTS: list[str] = []


def _record(tag):
    SIDE_EFFECTS.append(tag)


class Payload:
    """An object whose reconstruction would have a side effect."""

    def __init__(self, marker=None):
        self.marker = marker

    def __setstate__(self, state):
        SIDE_EFFECTS.append("setstate")
        self.__dict__.update(state)

    def __reduce__(self):
        return (_record, ("reduce",))


@pytest.fixture(autouse=True)
def _clear_side_effects():
    SIDE_EFFECTS.clear()
    yield
    SIDE_EFFECTS.clear()


def _apply(tmp_path: Path, model_bytes: bytes):
    make_frame().to_parquet(tmp_path / "input.parquet")
    model = tmp_path / "model.skops"
    model.write_bytes(model_bytes)
    before = tree_digest(tmp_path)
    result = CliRunner().invoke(
        app, ["apply", str(model), str(tmp_path / "input.parquet"), "--out",
              str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == EXIT_DEFINITION, (result.stderr, result.exception)
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert tree_digest(tmp_path) == before
    return result.stderr


def test_skops_file_of_a_foreign_class_is_refused(tmp_path):
    import skops.io as sio

    data = sio.dumps(
        {"format": "labelclean-model", "version": 1, "cleaner": Payload("x")}
    )
    stderr = _apply(tmp_path, data)
    assert "refusing to load" in stderr
    assert "test_security.Payload" in stderr
    assert SIDE_EFFECTS == []


def test_skops_file_of_a_callable_is_refused(tmp_path):
    # A function reference (e.g. os.system) is a type skops would import.
    import os

    import skops.io as sio

    data = sio.dumps({"format": "labelclean-model", "version": 1, "f": os.system})
    stderr = _apply(tmp_path, data)
    assert "refusing to load" in stderr
    assert "system" in stderr


def test_pickle_renamed_skops_is_never_unpickled(tmp_path):
    data = pickle.dumps(Payload("boom"))
    assert pickle.loads(data) is None and SIDE_EFFECTS == ["reduce"]
    SIDE_EFFECTS.clear()
    stderr = _apply(tmp_path, data)
    assert "is not a labelclean model file" in stderr
    assert SIDE_EFFECTS == []


def test_python_api_refuses_before_constructing(tmp_path):
    import skops.io as sio

    data = sio.dumps({"format": "labelclean-model", "version": 1, "p": Payload()})
    with pytest.raises(PipelineDefinitionError, match="refusing to load"):
        loads_cleaner(data)
    assert SIDE_EFFECTS == []


@pytest.mark.parametrize(
    "kind",
    ["os.system", "subprocess.run", "builtins.eval", "__import__",
     "labelclean.pipeline._persist.loads_cleaner", "KNNConfidence"],
)  # fmt: skip
def test_definition_kinds_come_from_the_registry_only(kind, monkeypatch):
    import importlib
    import sys

    imported = []
    real_import_module = importlib.import_module
    monkeypatch.setattr(
        importlib,
        "import_module",
        lambda name, *a: imported.append(name) or real_import_module(name, *a),
    )
    modules_before = set(sys.modules)
    document = {"stages": [{"name": "c", "kind": kind, "params": {"x": "1"}}]}
    with pytest.raises(PipelineDefinitionError, match="unknown stage kind"):
        parse_pipeline(document)
    assert imported == []
    assert set(sys.modules) == modules_before


def test_definition_values_are_never_evaluated(tmp_path):
    text = (
        "[pipeline]\nname = \"__import__('os').system('touch PWNED')\"\n"
        '[[stages]]\nname = "confidence"\nkind = "knn_confidence"\n'
        "params = { algorithm = \"__import__('os').getcwd()\" }\n"
    )
    path = write_pipeline(tmp_path, text, name="evil")
    with pytest.raises(PipelineDefinitionError, match="algorithm"):
        load_pipeline(path)
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize(
    "name",
    ["../escape.parquet", "/etc/audit.parquet", "a/../../b.parquet",
     "C:\\\\audit.parquet", ".labelclean-output.json"],
)  # fmt: skip
def test_definitions_cannot_name_output_files(name):
    # Output files have fixed names; a definition cannot point one anywhere.
    document = {
        "stages": [{"name": "c", "kind": "knn"}],
        "outputs": {"audit": name},
    }
    with pytest.raises(PipelineDefinitionError, match="fixed names"):
        parse_pipeline(document)


def test_output_file_names_are_checked_at_write_time(tmp_path):
    from labelclean.exceptions import OutputError
    from labelclean.io import OutputFolder

    with pytest.raises(OutputError):
        with OutputFolder(tmp_path / "out") as folder:
            folder.write_text("../escape.txt", "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def _is_loopback_probe(event) -> bool:
    # urllib3 (imported by great-expectations' dependencies) checks at import
    # whether IPv6 works by binding a socket to ('::1', 0): local, no traffic.
    name, args = event
    return name == "socket.bind" and args.endswith(("('::1', 0))", "('127.0.0.1', 0))"))


def test_a_full_run_opens_no_network_connection(audited_runs):
    for run in audited_runs:
        assert run["returncode"] == 0, run["stderr"]
        assert run["events"] is not None, "the audit hook did not report"
        network = [
            e
            for e in run["events"]
            if e[0] in NETWORK_EVENTS and not _is_loopback_probe(e)
        ]
        assert network == [], network
        names = {e[0] for e in run["events"]}
        assert not names & {"socket.connect", "socket.getaddrinfo", "urllib.Request"}
        assert (run["out"] / "cleaned.parquet").is_file()
