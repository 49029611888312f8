"""Fixtures of the reliability tests.

``audited_runs`` runs the full ``labelclean run`` command twice, in two fresh
processes started side by side (with different hash seeds), each under a
``sys.addaudithook`` hook that records every network-related audit event.
The determinism tests compare their outputs byte for byte; the security tests
check that neither touched the network.
"""

import json
import subprocess
import sys
import textwrap

import pytest
from reliability_utils import NETWORK_EVENTS, make_frame, python_env, write_pipeline

_AUDITED_MAIN = """
import json, sys

log_path = sys.argv[1]
events = []
network = set({network!r})

def hook(event, args):
    if event.startswith("socket.") or event in network:
        events.append([event, repr(args)[:300]])

sys.addaudithook(hook)
sys.argv = ["labelclean", *sys.argv[2:]]
try:
    from labelclean.cli.main import app
    app()
finally:
    with open(log_path, "w") as handle:
        json.dump(events, handle)
"""


@pytest.fixture(scope="session")
def audited_runs(tmp_path_factory):
    """Two audited ``labelclean run`` processes on the same input and seed.

    Returns
    -------
    runs : list of dict
        ``out`` (output folder), ``events`` (audit events recorded),
        ``returncode``, ``stderr``.
    """
    folder = tmp_path_factory.mktemp("audited")
    make_frame(n=120, seed=11).to_parquet(folder / "input.parquet")
    write_pipeline(folder)
    script = textwrap.dedent(_AUDITED_MAIN.format(network=NETWORK_EVENTS))
    children = []
    for i in (1, 2):
        env = python_env()
        env["PYTHONHASHSEED"] = str(i)
        args = [
            sys.executable, "-c", script, str(folder / f"events-{i}.json"),
            "run", "input.parquet", "--pipeline", "fast.toml", "--label", "label",
            "--seed", "7", "--out", f"out-{i}",
        ]  # fmt: skip
        children.append(
            subprocess.Popen(
                args,
                cwd=folder,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    runs = []
    for i, child in zip((1, 2), children, strict=True):
        _, stderr = child.communicate(timeout=600)
        events_path = folder / f"events-{i}.json"
        events = json.loads(events_path.read_text()) if events_path.exists() else None
        runs.append(
            {
                "out": folder / f"out-{i}",
                "events": events,
                "returncode": child.returncode,
                "stderr": stderr,
                "folder": folder,
            }
        )
    return runs
