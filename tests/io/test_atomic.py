"""Atomic writes: a failure at any point leaves the previous file intact."""

import json
import os

import pandas as pd
import pyarrow.parquet as pq
import pytest

from labelclean.exceptions import OutputError
from labelclean.io import (
    atomic_open,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    dumps_json,
    file_sha256,
    write_parquet,
)


def test_writes_and_replaces(tmp_path):
    path = tmp_path / "f.txt"
    atomic_write_text(path, "one")
    atomic_write_text(path, "two")
    assert path.read_text() == "two"
    assert os.listdir(tmp_path) == ["f.txt"]


def test_failure_inside_block_keeps_previous_file(tmp_path):
    path = tmp_path / "f.bin"
    atomic_write_bytes(path, b"previous")
    with pytest.raises(RuntimeError, match="disk on fire"):
        with atomic_open(path) as handle:
            handle.write(b"partial new cont")
            raise RuntimeError("disk on fire")
    assert path.read_bytes() == b"previous"
    assert os.listdir(tmp_path) == ["f.bin"]


def test_failure_during_fsync_keeps_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "f.bin"
    atomic_write_bytes(path, b"previous")

    def failing_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(path, b"new")
    monkeypatch.undo()
    assert path.read_bytes() == b"previous"
    assert os.listdir(tmp_path) == ["f.bin"]


def test_failure_during_rename_keeps_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "f.bin"
    atomic_write_bytes(path, b"previous")

    def failing_replace(src, dst):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="Input/output error"):
        atomic_write_bytes(path, b"new")
    monkeypatch.undo()
    assert path.read_bytes() == b"previous"
    assert os.listdir(tmp_path) == ["f.bin"]


def test_parquet_failure_mid_write_keeps_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "audit.parquet"
    write_parquet(pd.DataFrame({"a": [1, 2]}), path)
    before = file_sha256(path)
    real_write_table = pq.write_table

    def write_then_fail(table, where, **kwargs):
        real_write_table(table.slice(0, 1), where, **kwargs)  # some bytes land
        raise KeyboardInterrupt  # e.g. Ctrl-C in the middle of writing

    monkeypatch.setattr(pq, "write_table", write_then_fail)
    with pytest.raises(KeyboardInterrupt):
        write_parquet(pd.DataFrame({"a": [3, 4, 5]}), path)
    assert file_sha256(path) == before
    assert os.listdir(tmp_path) == ["audit.parquet"]


def test_unwritable_location_is_an_output_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="cannot write"):
        atomic_write_text(blocker / "sub.txt", "x")
    with pytest.raises(OutputError, match="cannot write"):
        atomic_write_text(tmp_path / "missing" / "sub.txt", "x")
    with pytest.raises(OutputError, match="is a directory"):
        atomic_write_text(tmp_path, "x")


def test_json_is_stable_and_strict(tmp_path):
    obj = {"b": [1, 2.5, None], "a": "é"}
    assert (
        dumps_json(obj)
        == '{\n  "a": "é",\n  "b": [\n    1,\n    2.5,\n    null\n  ]\n}\n'
    )
    with pytest.raises(ValueError):
        atomic_write_json(tmp_path / "nan.json", {"x": float("nan")})
    with pytest.raises(TypeError):
        atomic_write_json(tmp_path / "obj.json", {"x": object()})
    assert os.listdir(tmp_path) == []
    path = atomic_write_json(tmp_path / "ok.json", obj)
    assert json.loads(path.read_text(encoding="utf-8")) == obj


def test_file_sha256(tmp_path):
    path = atomic_write_bytes(tmp_path / "f", b"abc")
    assert file_sha256(path, chunk_size=1) == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
