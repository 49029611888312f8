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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from benchmarks._common import (
    Timer,
    mean_std,
    section_head,
    write_section,
)

N_QUERIES = 65_536  # one batch of the streaming engine
N_FEATURES = 20
K = 10


def timed_runs(func, reps: int) -> tuple[list[float], np.ndarray]:
    """Wall times of ``reps`` calls of ``func``, and its last result."""
    times, out = [], None
    for _ in range(reps):
        with Timer() as t:
            out = func()
        times.append(t.seconds)
    return times, out


def main() -> None:
    from sklearn.neighbors import NearestNeighbors

    from labelclean.utils import ExactPool

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
        sk_times, sk = timed_runs(
            lambda s=searcher, q=queries: s.kneighbors(q, K, return_distance=False),
            args.reps,
        )
        ep_times, ep = timed_runs(
            lambda e=exact, q=queries: e.kneighbors(q, K), args.reps
        )
        differ = int((sk != ep).any(axis=1).sum())
        rows.append(
            f"| {n_pool:,} | {mean_std(sk_times)} | {mean_std(ep_times)} "
            f"| {N_QUERIES / np.mean(sk_times):,.0f} "
            f"| {N_QUERIES / np.mean(ep_times):,.0f} | {differ} |"
        )
        print(rows[-1], flush=True)
    lines = [
        *section_head(
            "Neighbour search of new rows (`benchmarks/neighbor_query.py`)",
            path_prefix="PYTHONPATH=. ",
        ),
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
