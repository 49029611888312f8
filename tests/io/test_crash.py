"""Crash safety: a writer killed with SIGKILL at any moment leaves no torn file.

A child process rewrites outputs in a loop; the parent kills it after a
delay and checks that what sits under the final names is a complete earlier
version, never a partial one.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from labelclean.io import MARKER_NAME, file_sha256, read_labelclean_metadata

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "SIGKILL"), reason="needs POSIX signals"
)

ROOT = Path(__file__).resolve().parents[2]

FILE_WRITER = """
import sys, numpy as np, pandas as pd
from labelclean.io import write_parquet
path = sys.argv[1]
frame = pd.DataFrame({"x": np.arange(200_000, dtype=np.float64)})
print("ready", flush=True)
version = 0
while True:
    version += 1
    write_parquet(frame.assign(v=version), path, metadata={"version": version},
                  compression=None)
"""

FOLDER_WRITER = """
import sys, numpy as np, pandas as pd
from labelclean.io import OutputFolder
out = sys.argv[1]
frame = pd.DataFrame({"x": np.arange(100_000, dtype=np.float64)})
print("ready", flush=True)
version = 0
while True:
    version += 1
    with OutputFolder(out, overwrite=True) as folder:
        folder.write_parquet("audit.parquet", frame.assign(v=version),
                             compression=None)
        folder.write_json("report.json", {"version": version})
"""


def _run_and_kill(script, target, delay):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), str(target)],
        stdout=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    try:
        assert child.stdout.readline().strip() == b"ready"
        time.sleep(delay)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()


@pytest.mark.parametrize("delay", [0.15, 0.4, 0.9])
def test_killed_file_writer_leaves_a_complete_file(tmp_path, delay):
    target = tmp_path / "audit.parquet"
    _run_and_kill(FILE_WRITER, target, delay)
    if target.exists():  # a kill before the first rename leaves nothing
        import pandas as pd

        version = read_labelclean_metadata(target)["version"]
        frame = pd.read_parquet(target)
        assert len(frame) == 200_000
        assert (frame["v"] == version).all()
    # Only hidden temporary files may remain next to it.
    assert all(p.name.startswith(".") for p in tmp_path.iterdir() if p != target)


@pytest.mark.parametrize("delay", [0.2, 0.6])
def test_killed_folder_writer_leaves_a_complete_folder(tmp_path, delay):
    out = tmp_path / "out"
    _run_and_kill(FOLDER_WRITER, out, delay)
    visible = [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")]
    assert visible in ([], ["out"])
    if out.exists():
        marker = json.loads((out / MARKER_NAME).read_text())
        for name, info in marker["files"].items():
            assert file_sha256(out / name) == info["sha256"]
        version = json.loads((out / "report.json").read_text())["version"]
        assert read_labelclean_metadata(out / "audit.parquet") is None
        import pandas as pd

        assert (pd.read_parquet(out / "audit.parquet")["v"] == version).all()
