"""A machine where numba can cache nothing: labelclean still runs, the same.

numba raises where a function asks for its disk cache and no folder is
writable (``NUMBA_CACHE_DIR``, the ``__pycache__`` beside the source, the
user's cache folder): a read-only image run by a user without a writable
home. The package is copied into such a place here: every ``__pycache__`` a
file, ``HOME`` a file, ``NUMBA_CACHE_DIR`` under that file.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from labelclean.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
COMPARED = ("audit.parquet", "cleaned.parquet", "model.skops")


def locked_copy(tmp_path):
    """The package and the shipped pipelines copied where numba cannot cache,
    and the environment of a process that runs them."""
    folder = tmp_path / "locked"
    shutil.copytree(
        ROOT / "labelclean",
        folder / "labelclean",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copytree(ROOT / "pipelines", folder / "pipelines")
    for package in (folder / "labelclean").rglob("*"):
        if package.is_dir():
            (package / "__pycache__").touch()
    for package in (folder, folder / "labelclean"):
        (package / "__pycache__").touch()
    home = tmp_path / "home"
    home.touch()
    env = {
        k: v for k, v in os.environ.items() if k not in {"XDG_CACHE_HOME", "PYTHONPATH"}
    }
    env.update(
        HOME=str(home),
        NUMBA_CACHE_DIR=str(home / "numba"),
        MPLCONFIGDIR=str(tmp_path / "matplotlib"),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONPATH=str(folder),
    )
    return folder, env


def test_a_machine_where_numba_cannot_cache_runs_the_demo_the_same(tmp_path):
    folder, env = locked_copy(tmp_path)
    # The place is locked: a function that asks for the cache fails there.
    (folder / "probe.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef one():\n    return 1\n"
    )
    probe = subprocess.run(
        [sys.executable, "-c", "import probe"],
        env=env,
        cwd=folder,
        capture_output=True,
        text=True,
    )
    assert probe.returncode != 0 and "no locator available" in probe.stderr

    locked = subprocess.run(
        [sys.executable, "-m", "labelclean", "demo", "--out", str(tmp_path / "out")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert locked.returncode == 0, locked.stderr
    warned = [
        line
        for line in locked.stderr.splitlines()
        if line.startswith("WARNING: numba finds no writable folder")
    ]
    # once, as one plain line; and so the copy ran, not the installed package
    # (whose __pycache__ folders are writable)
    assert len(warned) == 1, locked.stderr
    assert "NUMBA_CACHE_DIR" in warned[0]
    assert "@compiled" not in locked.stderr  # no source line of a raw warning

    here = CliRunner().invoke(app, ["demo", "--out", str(tmp_path / "here")])
    assert here.exit_code == 0, here.output
    for name in COMPARED:
        assert (tmp_path / "out" / name).read_bytes() == (
            tmp_path / "here" / name
        ).read_bytes(), name
