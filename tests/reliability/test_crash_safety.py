"""A ``labelclean run`` killed with SIGKILL never leaves torn or mixed results.

Writer-level kills (one file, one output folder rewritten in a loop) are in
``tests/io/test_crash.py``; here the whole command runs in a child process
and is killed at moments found by watching the file system, not by hooks in
the library: the run opens a hidden staging folder next to ``--out`` before
it reads and fits (``.<out>.labelclean-*``), and writes its files into it.

* killed while the staging folder is still empty: the run was reading,
  validating or fitting;
* killed as soon as the first file appears in the staging folder, or 0.2 s
  later: the run was writing its outputs.

After each kill, the output folder holds either the previous complete results
(byte for byte) or a complete new result (every file listed in the marker,
with its digest, and nothing else), never a partial file under a final name;
and a new run into the same folder still works.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from reliability_utils import make_frame, python_env, tree_digest, write_pipeline

from labelclean.io import MARKER_NAME, file_sha256
from labelclean.runner import run_pipeline

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "SIGKILL"), reason="needs POSIX signals"
)

FINAL_NAMES = {
    "cleaned.parquet",
    "audit.parquet",
    "report.json",
    "report.html",
    "manifest.json",
    "model.skops",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    folder = tmp_path_factory.mktemp("crash")
    make_frame(n=150, seed=3).to_parquet(folder / "input.parquet")
    write_pipeline(folder)
    return folder


def _staging_dirs(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.labelclean-*"))


def _start(workspace: Path, out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable, "-m", "labelclean", "run", "input.parquet",
            "--pipeline", "fast.toml", "--label", "label", "--out", str(out),
            "--seed", "1", *extra,
        ],
        cwd=workspace,
        env=python_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip


def _wait_for(child: subprocess.Popen, condition, timeout: float = 240.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        if child.poll() is not None:
            return False
        time.sleep(0.002)
    return False


def _kill(child: subprocess.Popen) -> None:
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    child.stderr.close()


def _assert_complete(out: Path) -> None:
    """``out`` is one complete result: marker, listed files, right digests."""
    marker = json.loads((out / MARKER_NAME).read_text())
    listed = set(marker["files"])
    present = {p.name for p in out.iterdir()} - {MARKER_NAME}
    assert present == listed == FINAL_NAMES
    for name, info in marker["files"].items():
        assert file_sha256(out / name) == info["sha256"], name
    assert len(pd.read_parquet(out / "audit.parquet")) == 150


@pytest.fixture(scope="module")
def previous_run(workspace):
    """A complete earlier result (copied into each test's output folder)."""
    out = workspace / "previous"
    run_pipeline(
        workspace / "input.parquet",
        out,
        pipeline=workspace / "fast.toml",
        label="label",
        seed=0,
    )
    _assert_complete(out)
    return out


def _previous_result(previous_run: Path, out: Path) -> dict[str, str]:
    shutil.copytree(previous_run, out)
    return tree_digest(out)


def _assert_previous_or_new(out: Path, previous: dict[str, str] | None) -> str:
    if not out.exists():
        assert previous is None, "the previous results were lost"
        return "none"
    if previous is not None and tree_digest(out) == previous:
        return "previous"
    _assert_complete(out)
    return "new"


def _assert_rerun_works(workspace: Path, out: Path) -> None:
    result = run_pipeline(
        workspace / "input.parquet",
        out,
        pipeline=workspace / "fast.toml",
        label="label",
        seed=1,
        overwrite=True,
    )
    _assert_complete(result.out)


def test_killed_while_fitting_keeps_previous_results(workspace, previous_run):
    out = workspace / "out-fit"
    previous = _previous_result(previous_run, out)
    before_input = file_sha256(workspace / "input.parquet")

    child = _start(workspace, out, "--overwrite")
    assert _wait_for(child, lambda: bool(_staging_dirs(out))), "no staging folder"
    staging = _staging_dirs(out)[0]
    time.sleep(0.3)  # well inside reading, validation and fitting
    assert not any(staging.iterdir()), "the run was already writing"
    _kill(child)

    assert _assert_previous_or_new(out, previous) == "previous"
    assert file_sha256(workspace / "input.parquet") == before_input
    # Only hidden staging leftovers, never mistaken for results or input.
    leftovers = {p.name for p in workspace.iterdir()} - {
        "input.parquet", "fast.toml", out.name, previous_run.name,
    }  # fmt: skip
    assert all(name.startswith(f".{out.name}.labelclean-") for name in leftovers)
    _assert_rerun_works(workspace, out)


def test_killed_while_writing_keeps_previous_or_new_results(workspace, previous_run):
    out = workspace / "out-write"
    previous = _previous_result(previous_run, out)

    child = _start(workspace, out, "--overwrite")

    def writing() -> bool:
        return any(any(d.iterdir()) for d in _staging_dirs(out))

    started = _wait_for(child, writing)
    _kill(child)

    outcome = _assert_previous_or_new(out, previous)
    if started:
        assert outcome == "previous"
    # No partially written file under a final name anywhere.
    for path in out.iterdir():
        assert not path.name.endswith(".tmp")


def test_killed_first_run_leaves_nothing_or_everything(workspace):
    out = workspace / "out-first"
    child = _start(workspace, out)
    started = _wait_for(
        child, lambda: any(any(d.iterdir()) for d in _staging_dirs(out))
    )
    assert started, "the run never started writing"
    time.sleep(0.2)  # further into the writing (the report, the model)
    _kill(child)

    assert _assert_previous_or_new(out, None) in ("none", "new")
    assert not out.exists() or os.listdir(out)
