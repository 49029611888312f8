"""A first run on a fresh machine: the compiled code's cold start, against
another checkout.

labelclean's trees and neighbour counts are compiled with numba on first use
and cached (``cache=True``; ``NUMBA_CACHE_DIR`` where the package folder is
not writable). A machine or container without that cache pays the
compilation on its first run. This runs ``labelclean demo`` in a fresh
process with an empty ``NUMBA_CACHE_DIR`` (cold), then again with the cache
the first run left (warm), for each checkout, the checkouts alternating,
``--reps`` times. It reports the median wall time of each, the cold start's
cost (cold − warm) and the ratio of the two checkouts' costs, and checks that
every run wrote the same ``audit.parquet`` and ``model.skops``.

``--repo`` is the other checkout, e.g. the commit before a change
(``git worktree add /tmp/before <commit>``).

    python benchmarks/cold_start.py --repo /tmp/before --section cold-start
"""

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import section_head, write_section

#: The files of a demo run whose bytes every run must share.
COMPARED = ("audit.parquet", "model.skops")


def demo_run(repo: Path, cache: Path, out: Path) -> float:
    """Wall time of ``labelclean demo --out out`` in a fresh process that
    imports labelclean from ``repo`` and compiles into ``cache``."""
    code = (
        f"import sys; sys.path.insert(0, {str(repo)!r}); "
        "from labelclean.cli.main import app; "
        f"app(['demo', '--out', {str(out)!r}])"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True
    )
    return time.perf_counter() - start


def digests(out: Path) -> tuple[str, ...]:
    """SHA-256 of the compared files of a demo output folder."""
    return tuple(hashlib.sha256((out / n).read_bytes()).hexdigest() for n in COMPARED)


def measure(repos: dict[str, Path], reps: int) -> tuple[dict, set]:
    """Cold and warm times per checkout, and the set of output digests."""
    times = {name: {"cold": [], "warm": []} for name in repos}
    seen = set()
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(reps):
            for name, repo in repos.items():
                cache = Path(tmp) / f"cache-{name}-{rep}"
                cache.mkdir()
                for kind in ("cold", "warm"):
                    out = Path(tmp) / f"out-{name}-{rep}-{kind}"
                    seconds = demo_run(repo, cache, out)
                    times[name][kind].append(seconds)
                    seen.add(digests(out))
                    print(f"{name} rep {rep} {kind}: {seconds:.1f} s", flush=True)
    return times, seen


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, help="the other checkout")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--section", default="cold-start")
    args = parser.parse_args(argv)
    repos = {"this": ROOT}
    if args.repo is not None:
        repos["other"] = args.repo.resolve()
    times, seen = measure(repos, args.reps)
    if len(seen) != 1:
        raise SystemExit(f"the runs wrote {len(seen)} different outputs")
    med = {
        name: {kind: statistics.median(v) for kind, v in t.items()}
        for name, t in times.items()
    }
    lines = section_head("A first run on a fresh machine (cold_start.py)")
    lines += [
        f"`labelclean demo` in a fresh process, {args.reps} repetitions, the "
        "checkouts alternating: cold with an empty `NUMBA_CACHE_DIR`, then warm "
        "with the cache the cold run left. Median wall seconds; the cold "
        "start's cost is cold − warm. Every run wrote the same "
        "`audit.parquet` and `model.skops`.",
        "",
        "| checkout | cold (s) | warm (s) | cold start (s) | each cold run (s) |",
        "|---|---|---|---|---|",
    ]
    for name, repo in repos.items():
        m = med[name]
        each = ", ".join(f"{s:.1f}" for s in times[name]["cold"])
        lines.append(
            f"| {name} ({repo}) | {m['cold']:.1f} | {m['warm']:.1f} | "
            f"{m['cold'] - m['warm']:.1f} | {each} |"
        )
    if "other" in med:
        this, other = med["this"], med["other"]
        ratio = (this["cold"] - this["warm"]) / (other["cold"] - other["warm"])
        lines += [
            "",
            f"Cold start, this / other: {ratio:.2f}; cold run, this / other: "
            f"{this['cold'] / other['cold']:.2f}.",
        ]
    body = "\n".join(lines)
    print(body)
    write_section(args.section, body)


if __name__ == "__main__":
    main()
