"""Helpers shared by the reliability tests: fast pipelines, data, snapshots.

The library's own pipelines fit SPLBoost with a cross-validated age, which is
slow; these tests use small definitions (KNN confidence + CB-AdaBoost with few
rounds) written next to the data.
"""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]

#: A fast, complete cleaning pipeline (no SPLBoost stage).
FAST_PIPELINE = """\
[pipeline]
name = "fast"
version = 1

[[stages]]
name = "confidence"
kind = "knn_confidence"
params = { n_neighbors = 5 }

[[stages]]
name = "model"
kind = "cb_adaboost"
params = { n_estimators = 20 }
"""

#: Audit events that mean network activity (PEP 578 / the audit events table).
NETWORK_EVENTS = (
    "socket.connect",
    "socket.bind",
    "socket.getaddrinfo",
    "socket.gethostbyname",
    "socket.gethostbyaddr",
    "socket.sendto",
    "socket.sendmsg",
    "urllib.Request",
    "http.client.connect",
    "http.client.send",
    "ftplib.connect",
    "smtplib.connect",
    "webbrowser.open",
)

#: Exit codes of the command-line interface, by class of error.
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_INPUT = 4
EXIT_OUTPUT = 5
EXIT_DEFINITION = 6
EXIT_GUARDRAIL = 7


def write_pipeline(folder: Path, text: str = FAST_PIPELINE, name: str = "fast") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def make_frame(n: int = 40, seed: int = 0, noise: float = 0.1) -> pd.DataFrame:
    """Two well separated classes in three numeric features, a few flipped."""
    rng = np.random.RandomState(seed)
    label = np.array(["a", "b"])[np.arange(n) % 2]
    centre = np.where(label == "a", -1.5, 1.5)[:, None]
    X = rng.normal(size=(n, 3)) + centre
    flip = rng.rand(n) < noise
    label = np.where(flip, np.where(label == "a", "b", "a"), label)
    frame = pd.DataFrame(X, columns=["f1", "f2", "f3"])
    frame["label"] = label
    return frame


def tree_digest(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``folder`` (dirs as 'dir')."""
    out = {}
    for path in sorted(Path(folder).rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def python_env() -> dict[str, str]:
    """Environment for a child ``python -m labelclean`` on this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("GX_ANALYTICS_ENABLED", "False")
    return env


def run_cli_process(args, *, cwd, timeout=300, **kwargs):
    """Run ``python -m labelclean ARGS`` in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "labelclean", *map(str, args)],
        cwd=cwd,
        env=python_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kwargs,
    )
