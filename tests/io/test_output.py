"""The output folder: checked before a run, replaced as one unit."""

import json
import os
import re

import pandas as pd
import pytest

from labelclean.exceptions import OutputError
from labelclean.io import (
    MARKER_NAME,
    OutputFolder,
    check_output_location,
    check_relative_name,
    file_sha256,
    read_parquet,
)


def _write_run(out, text="v1", **kwargs):
    with OutputFolder(out, **kwargs) as folder:
        folder.write_text("report.html", f"<p>{text}</p>")
        folder.write_json("report.json", {"text": text})
        folder.write_parquet("audit.parquet", pd.DataFrame({"a": [1, 2]}))
        with folder.parquet_writer("parts/cleaned.parquet") as writer:
            writer.write(pd.DataFrame({"a": [1]}))
    return folder


def test_commit_writes_files_and_marker(tmp_path):
    out = tmp_path / "out"
    folder = _write_run(out)
    assert sorted(os.listdir(out)) == [
        MARKER_NAME,
        "audit.parquet",
        "parts",
        "report.html",
        "report.json",
    ]
    marker = json.loads((out / MARKER_NAME).read_text())
    assert marker["files"]["report.json"]["sha256"] == file_sha256(out / "report.json")
    assert set(marker["files"]) == {
        "audit.parquet",
        "parts/cleaned.parquet",
        "report.html",
        "report.json",
    }
    assert folder.sha256 == {k: v["sha256"] for k, v in marker["files"].items()}
    assert folder.files["report.html"] == out.resolve() / "report.html"
    assert read_parquet(out / "parts" / "cleaned.parquet")["a"].tolist() == [1]
    # Nothing else is left next to the output folder.
    assert os.listdir(tmp_path) == ["out"]


def test_nothing_visible_before_commit_and_abort_on_error(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="fit failed"):
        with OutputFolder(out) as folder:
            folder.write_text("report.html", "x")
            assert not out.exists()
            raise RuntimeError("fit failed")
    assert os.listdir(tmp_path) == []


def test_failure_keeps_previous_results(tmp_path):
    out = tmp_path / "out"
    _write_run(out, "v1")
    before = {p.name: file_sha256(p) for p in out.iterdir() if p.is_file()}
    with pytest.raises(RuntimeError):
        with OutputFolder(out, overwrite=True) as folder:
            folder.write_text("report.html", "<p>v2</p>")
            raise RuntimeError("killed while writing")
    assert {p.name: file_sha256(p) for p in out.iterdir() if p.is_file()} == before
    assert os.listdir(tmp_path) == ["out"]


def test_failed_rename_restores_previous_results(tmp_path, monkeypatch):
    out = tmp_path / "out"
    _write_run(out, "v1")
    real_rename = os.rename

    def rename(src, dst):
        if ".labelclean-old-" not in str(dst) and ".labelclean-old-" not in str(src):
            raise OSError(18, "Invalid cross-device link")
        return real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OutputError, match="previous results were left in place"):
        _write_run(out, "v2", overwrite=True)
    monkeypatch.undo()
    assert json.loads((out / "report.json").read_text()) == {"text": "v1"}


def test_overwrite_replaces_whole_folder(tmp_path):
    out = tmp_path / "out"
    _write_run(out, "v1")
    with OutputFolder(out, overwrite=True) as folder:
        folder.write_json("report.json", {"text": "v2"})
    assert sorted(os.listdir(out)) == [MARKER_NAME, "report.json"]
    assert json.loads((out / "report.json").read_text()) == {"text": "v2"}
    assert os.listdir(tmp_path) == ["out"]


def test_existing_results_refused_without_overwrite(tmp_path):
    out = tmp_path / "out"
    _write_run(out)
    with pytest.raises(OutputError, match=re.escape("already holds results")):
        OutputFolder(out)


def test_foreign_files_never_replaced(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    with pytest.raises(OutputError, match="holds files labelclean did not write"):
        OutputFolder(out, overwrite=True)
    _write_run(tmp_path / "run")
    (tmp_path / "run" / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match=re.escape("(notes.txt)")):
        OutputFolder(tmp_path / "run", overwrite=True)


def test_empty_existing_folder_is_fine(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    _write_run(out)
    assert (out / "report.json").exists()


@pytest.mark.parametrize("relation", ["same", "out_inside_input", "input_inside_out"])
def test_output_overlapping_input_refused(tmp_path, relation):
    data = tmp_path / "data"
    data.mkdir()
    file = data / "in.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(file)
    before = file_sha256(file)
    if relation == "same":
        out, inputs, match = file, [file], "is the input"
    elif relation == "out_inside_input":
        out, inputs, match = data / "cleaned", [data], "lies inside the input folder"
    else:
        out, inputs, match = data, [file], "lies inside the output folder"
    with pytest.raises(OutputError, match=match):
        OutputFolder(out, inputs=inputs, overwrite=True)
    assert file_sha256(file) == before
    assert sorted(os.listdir(data)) == ["in.parquet"]


def test_output_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(OutputError, match="is an existing file"):
        check_output_location(tmp_path / "f")


def test_unwritable_location(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="not a writable folder"):
        check_output_location(blocker / "out")


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="permissions are not enforced for root",
)
def test_read_only_parent(tmp_path):
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="not a writable folder"):
            check_output_location(parent / "out")
    finally:
        parent.chmod(0o700)


def test_parents_are_created(tmp_path):
    out = tmp_path / "a" / "b" / "out"
    _write_run(out)
    assert (out / "report.json").exists()


@pytest.mark.parametrize(
    "name",
    [
        "",
        "/etc/passwd",
        "../up.txt",
        "a/../../b",
        "C:\\x",
        "a\\b",
        "x\x00",
        MARKER_NAME,
        ".",
    ],
)
def test_names_cannot_escape(tmp_path, name):
    with pytest.raises(OutputError):
        check_relative_name(name)
    folder = OutputFolder(tmp_path / "out")
    with pytest.raises(OutputError):
        folder.file_path(name)
    folder.abort()
    assert os.listdir(tmp_path) == []


def test_names_are_normalised():
    assert check_relative_name("./parts//a.parquet") == "parts/a.parquet"


def test_symlink_escape_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = OutputFolder(tmp_path / "out").open()
    staging = folder.file_path("x").parent
    (staging / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(OutputError, match="leaves the output folder"):
        folder.file_path("link/new/evil.txt")
    folder.abort()
    assert os.listdir(outside) == []
