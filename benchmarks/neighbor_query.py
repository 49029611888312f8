"""The neighbour search of new rows among L_red: faiss + float64 rank vs scikit-learn.

``apply`` spends most of its time finding each new row's k = 10 nearest rows
among the reduced training set. This times labelclean's ``ExactPool`` (faiss
float32 screen of k + 8 candidates, float64 rank) against scikit-learn's
float64 brute-force ``NearestNeighbors``, on every processor, and counts the
rows whose neighbour lists differ.

    PYTHONPATH=. python benchmarks/neighbor_query.py
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from benchmarks._common import command, machine, write_section

N_QUERIES = 65_536  # one batch of the streaming engine
N_FEATURES = 20
K = 10


def mean_std_of(func, reps: int) -> tuple[float, float, np.ndarray]:
    times, out = [], None
    for _ in range(reps):
        start = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - start)
    return float(np.mean(times)), float(np.std(times)), out


def main() -> None:
    from sklearn.neighbors import NearestNeighbors

    from labelclean.confidence._neighbors import ExactPool

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    load = os.getloadavg()
    rows = []
    for n_pool in (8_619, 85_000):
        rng = np.random.default_rng(n_pool)
        pool = rng.normal(size=(n_pool, N_FEATURES))
        queries = rng.normal(size=(N_QUERIES, N_FEATURES))
        searcher = NearestNeighbors(algorithm="brute").fit(pool)
        exact = ExactPool(pool)
        exact.kneighbors(queries[:10], K)  # compile the rank kernel
        sk_mean, sk_std, sk = mean_std_of(
            lambda s=searcher, q=queries: s.kneighbors(q, K, return_distance=False),
            args.reps,
        )
        ep_mean, ep_std, ep = mean_std_of(
            lambda e=exact, q=queries: e.kneighbors(q, K), args.reps
        )
        differ = int((sk != ep).any(axis=1).sum())
        rows.append(
            f"| {n_pool:,} | {sk_mean:.3f} ± {sk_std:.3f} | {ep_mean:.3f} ± "
            f"{ep_std:.3f} | {N_QUERIES / sk_mean:,.0f} | {N_QUERIES / ep_mean:,.0f} "
            f"| {differ} |"
        )
        print(rows[-1], flush=True)
    lines = [
        "## Neighbour search of new rows (`benchmarks/neighbor_query.py`)",
        "",
        f"Machine: {machine()}",
        "",
        f"Command: `PYTHONPATH=. {command()}`",
        "",
        f"{N_QUERIES:,} new rows (one streamed batch), k = {K}, "
        f"{N_FEATURES} standard normal features; the pool stands for L_red "
        "(8,619 rows is L_red of the scale benchmark's model fitted on 1e4 "
        "rows). Seconds per batch, mean ± std over "
        f"{args.reps} repetitions, every processor; 'rows differing' counts rows "
        "whose ordered neighbour lists differ between the two.",
        "",
        "| pool rows | scikit-learn (s) | ExactPool (s) | scikit-learn rows/s "
        "| ExactPool rows/s | rows differing |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        f"Load average at start: {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}",
    ]
    write_section("neighbor-query", "\n".join(lines))


if __name__ == "__main__":
    main()
