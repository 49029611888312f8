"""Output files others can read, nothing of the user's lost, nothing left
behind: modes, --overwrite of edited files, `report` ownership, staging on
failure and on SIGTERM, mount points, a full disk, thread-independent model
bytes, and a bound on boosting rounds."""

import errno
import os
import signal
import stat
import subprocess
import sys
import time

import pytest
from reliability_utils import (
    EXIT_DEFINITION,
    EXIT_OUTPUT,
    FAST_PIPELINE,
    make_frame,
    python_env,
    tree_digest,
    write_pipeline,
)
from typer.testing import CliRunner

from labelclean.cli.main import app

runner = CliRunner()


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make_frame(n=120, seed=3).to_parquet(tmp_path / "in.parquet")
    write_pipeline(tmp_path)
    return tmp_path


def _run(out="out", *extra):
    return runner.invoke(
        app,
        ["run", "in.parquet", "-p", "fast.toml", "--label", "label", "-o", out,
         *extra],
    )  # fmt: skip


def _one_error_line(result):
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def _hidden(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize(("umask", "file_mode", "dir_mode"),
                         [(0o022, 0o644, 0o755), (0o027, 0o640, 0o750),
                          (0o002, 0o664, 0o775)])  # fmt: skip
def test_outputs_follow_the_umask(workdir, umask, file_mode, dir_mode):
    old = os.umask(umask)
    try:
        result = _run()
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    out = workdir / "out"
    assert stat.S_IMODE(out.stat().st_mode) == dir_mode
    for path in out.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == file_mode, path.name


def test_overwrite_keeps_the_folder_mode(workdir):
    assert _run().exit_code == 0
    out = workdir / "out"
    os.chmod(out, 0o2775)  # a shared, group-sticky folder
    result = _run("out", "--overwrite")
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o2775


def test_overwrite_refuses_to_delete_an_edited_file(workdir):
    assert _run().exit_code == 0
    report = workdir / "out" / "report.html"
    report.write_text(report.read_text() + "<!-- my review notes -->")
    before = tree_digest(workdir / "out")
    result = _run("out", "--overwrite")
    assert result.exit_code == EXIT_OUTPUT
    line = _one_error_line(result)
    assert "changed since labelclean wrote them (report.html)" in line
    assert "--force" in line
    assert tree_digest(workdir / "out") == before  # nothing touched
    forced = _run("out", "--overwrite", "--force")
    assert forced.exit_code == 0, forced.output
    assert "my review notes" not in report.read_text()


def test_report_writes_only_where_it_owns_the_file(workdir):
    assert _run().exit_code == 0
    # A report.json copied next to someone else's report.html.
    other = workdir / "some" / "dir"
    other.mkdir(parents=True)
    (other / "x.json").write_bytes((workdir / "out" / "report.json").read_bytes())
    (other / "report.html").write_text("<p>not labelclean's</p>")
    result = runner.invoke(app, ["report", str(other / "x.json")])
    assert result.exit_code == EXIT_OUTPUT
    assert "was not written by labelclean" in _one_error_line(result)
    assert (other / "report.html").read_text() == "<p>not labelclean's</p>"
    # Where no report.html exists, it is written.
    (other / "report.html").unlink()
    assert runner.invoke(app, ["report", str(other / "x.json")]).exit_code == 0
    assert (other / "report.html").read_text().startswith("<!DOCTYPE html>")
    # In the run's own folder it re-renders, and a later --overwrite still
    # recognises the file as labelclean's.
    assert runner.invoke(app, ["report", "out"]).exit_code == 0
    assert _run("out", "--overwrite").exit_code == 0
    # A report the user edited is not replaced by `report` either.
    report = workdir / "out" / "report.html"
    report.write_text("edited")
    result = runner.invoke(app, ["report", "out"])
    assert result.exit_code == EXIT_OUTPUT
    assert "changed since labelclean wrote it" in _one_error_line(result)
    assert report.read_text() == "edited"


def test_a_failed_commit_leaves_no_staging_copy(workdir, monkeypatch):
    assert _run().exit_code == 0
    before = tree_digest(workdir / "out")
    real_rename = os.rename

    def rename(src, dst):
        if ".labelclean-" in str(src) and "old" not in str(src):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    result = _run("out", "--overwrite")
    assert result.exit_code == EXIT_OUTPUT
    assert "cannot move the results" in _one_error_line(result)
    assert _hidden(workdir) == []  # no staging copy, no backup
    assert tree_digest(workdir / "out") == before  # the previous results


def test_a_full_disk_is_an_output_error(workdir, monkeypatch):
    assert _run().exit_code == 0
    before = tree_digest(workdir / "out")

    def fsync(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", fsync)
    result = _run("out", "--overwrite")
    assert result.exit_code == EXIT_OUTPUT
    assert "No space left on device" in _one_error_line(result)
    assert _hidden(workdir) == []
    assert tree_digest(workdir / "out") == before


def test_a_mount_point_is_refused_before_the_fit(workdir, monkeypatch):
    (workdir / "mnt").mkdir()
    real = os.path.ismount
    monkeypatch.setattr(os.path, "ismount", lambda p: str(p).endswith("mnt") or real(p))
    started = time.perf_counter()
    result = _run("mnt")
    assert result.exit_code == EXIT_OUTPUT
    line = _one_error_line(result)
    assert "is a mount point" in line and "mnt/run" in line
    assert time.perf_counter() - started < 30  # refused up front
    assert list((workdir / "mnt").iterdir()) == [] and _hidden(workdir) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_removes_the_staging_copy(tmp_path):
    # A slow enough run: many rows, a pipeline with many rounds.
    make_frame(n=6000, seed=1).to_parquet(tmp_path / "in.parquet")
    write_pipeline(
        tmp_path, FAST_PIPELINE.replace("n_estimators = 20", "n_estimators = 3000")
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "labelclean", "run", "in.parquet", "-p", "fast.toml",
         "--label", "label", "-o", "out"],
        cwd=tmp_path, env=python_env(), stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not _hidden(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _hidden(tmp_path), "the run never started staging"
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert "Traceback" not in stderr
    assert _hidden(tmp_path) == []
    assert not (tmp_path / "out").exists()


def test_model_bytes_do_not_depend_on_jobs(workdir):
    assert _run("one", "--jobs", "1").exit_code == 0
    assert _run("two", "--jobs", "2").exit_code == 0
    assert tree_digest(workdir / "one") == tree_digest(workdir / "two")


def test_an_absurd_number_of_rounds_is_refused(workdir):
    write_pipeline(
        workdir,
        FAST_PIPELINE.replace("n_estimators = 20", f"n_estimators = {2**63 - 1}"),
        name="huge",
    )
    started = time.perf_counter()
    result = runner.invoke(
        app, ["run", "in.parquet", "-p", "huge.toml", "--label", "label", "-o", "o"]
    )
    assert result.exit_code == EXIT_DEFINITION, result.output
    assert "n_estimators" in _one_error_line(result)
    assert time.perf_counter() - started < 60
