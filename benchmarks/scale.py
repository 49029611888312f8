"""Scale: wall time and peak memory of `run` and `apply` against the number of rows.

Writes section ``scale`` of ``benchmarks/RESULTS.md``. Every measurement is a
separate ``python -m labelclean`` process (so peak RSS is that command's own,
read with ``os.wait4``), on synthetic parquet data: 20 float32 features, two
classes from a noisy linear rule, 20 % of labels flipped uniformly; row
groups of 65,536 rows.

* ``run`` at several sizes (all rows fitted; and, at the largest size, with
  ``--max-fit-rows``), the fitted exponent of time against rows;
* ``apply`` of one fitted model to inputs of growing size: rows per second,
  and peak memory, which must not grow with the input.

Usage::

    PYTHONPATH=. nice -n 5 python benchmarks/scale.py --quick
    PYTHONPATH=. nice -n 5 python benchmarks/scale.py
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import command, machine, write_section

N_FEATURES = 20
ROW_GROUP = 65_536


def make_data(path: Path, n_rows: int, seed: int, flip: float = 0.2) -> None:
    """Write ``n_rows`` synthetic rows to ``path``, one row group at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    w = np.random.default_rng(12345).normal(size=N_FEATURES)
    names = [f"f{i}" for i in range(N_FEATURES)]
    writer = None
    try:
        for start in range(0, n_rows, ROW_GROUP):
            n = min(ROW_GROUP, n_rows - start)
            X = rng.normal(size=(n, N_FEATURES)).astype(np.float32)
            y = (X @ w + 0.5 * rng.normal(size=n) > 0).astype(np.int64)
            flipped = rng.random(n) < flip
            y[flipped] = 1 - y[flipped]
            table = pa.table({**{c: X[:, i] for i, c in enumerate(names)}, "label": y})
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table, row_group_size=ROW_GROUP)
    finally:
        if writer is not None:
            writer.close()


def timed(args: list[str]) -> tuple[float, float]:
    """Run ``python -m labelclean ARGS``; return (wall seconds, peak RSS MiB)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "labelclean", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) not in (0, 7):
        raise RuntimeError(f"labelclean {' '.join(args)} failed:\n{err}")
    return wall, usage.ru_maxrss / 1024.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    run_sizes = [10_000, 30_000] if args.quick else [10_000, 30_000, 100_000]
    apply_sizes = [200_000, 800_000] if args.quick else [2_000_000, 8_000_000]
    sampled = (300_000, 50_000) if args.quick else (1_000_000, 100_000)
    load_start = os.getloadavg()
    lines = [
        "## Scale: `run` and `apply` against rows (`benchmarks/scale.py`)",
        "",
        f"Machine: {machine()}",
        "",
        f"Command: `PYTHONPATH=. nice -n 5 {command()}`",
        "",
        "Synthetic data: 20 float32 features, 2 classes (noisy linear rule), 20 % "
        "uniform flips, pipeline `binary-cbadaboost`, seed 0. Each row is one "
        "`python -m labelclean` process; peak RSS is that process's. **The "
        "machine (2 cores) was shared with other benchmarks; every time is an "
        "upper bound.**",
        "",
    ]
    with tempfile.TemporaryDirectory(dir=os.environ.get("SCALE_TMP")) as tmp:
        tmp = Path(tmp)
        rows = ["| rows | fitted on | wall (s) | peak RSS (MiB) |", "|---|---|---|---|"]
        times = []
        for n in run_sizes:
            data = tmp / f"run_{n}.parquet"
            make_data(data, n, seed=n)
            wall, rss = timed(
                [
                    "run",
                    str(data),
                    "-p",
                    "binary-cbadaboost",
                    "--label",
                    "label",
                    "--out",
                    str(tmp / f"out_{n}"),
                ]
            )
            times.append(wall)
            rows.append(f"| {n:,} | all rows | {wall:.1f} | {rss:.0f} |")
            print(rows[-1], flush=True)
        n_big, n_fit = sampled
        data = tmp / "run_big.parquet"
        make_data(data, n_big, seed=7)
        wall, rss = timed(
            [
                "run",
                str(data),
                "-p",
                "binary-cbadaboost",
                "--label",
                "label",
                "--max-fit-rows",
                str(n_fit),
                "--out",
                str(tmp / "out_big"),
            ]
        )
        rows.append(f"| {n_big:,} | sample of {n_fit:,} | {wall:.1f} | {rss:.0f} |")
        print(rows[-1], flush=True)
        slope = np.polyfit(np.log(run_sizes), np.log(times), 1)[0]
        lines += [
            "### `run`",
            "",
            *rows,
            "",
            f"Fitted exponent of wall time against rows (all rows fitted, "
            f"{run_sizes[0]:,} to {run_sizes[-1]:,}): **{slope:.2f}**. From "
            "100,000 rows on, the neighbour search switches to pynndescent, whose "
            "numba compilation (about 25 s per process) is included.",
            "",
        ]
        model = tmp / f"out_{run_sizes[0]}" / "model.skops"
        arows = [
            "| input rows | wall (s) | rows / s | peak RSS (MiB) |",
            "|---|---|---|---|",
        ]
        for n in apply_sizes:
            data = tmp / f"apply_{n}.parquet"
            make_data(data, n, seed=n + 1)
            wall, rss = timed(
                ["apply", str(model), str(data), "--out", str(tmp / f"app_{n}")]
            )
            arows.append(f"| {n:,} | {wall:.1f} | {n / wall:,.0f} | {rss:.0f} |")
            print(arows[-1], flush=True)
            data.unlink()
        lines += [
            "### `apply` (streamed, batches of 65,536 rows)",
            "",
            f"Model: the `run` on {run_sizes[0]:,} rows above (exact neighbour "
            "search over its reduced set). Wall time includes start-up, imports "
            "and writing audit, cleaned data and report.",
            "",
            *arows,
            "",
        ]
    load_end = os.getloadavg()
    lines.append(
        "Load average (1, 5, 15 min) at start "
        + ", ".join(f"{x:.2f}" for x in load_start)
        + "; at end "
        + ", ".join(f"{x:.2f}" for x in load_end)
        + "."
    )
    write_section("scale", "\n".join(lines))


if __name__ == "__main__":
    main()
