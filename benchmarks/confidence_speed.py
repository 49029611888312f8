"""Speed, peak memory and exact/approximate agreement of KNNConfidence.

Each measurement runs in a fresh Python process, so import and numba
compilation are included in the wall time, as a user's job would pay them.

    python benchmarks/confidence_speed.py            # 1e5 and 1e6 rows
    python benchmarks/confidence_speed.py --quick    # 2e4 rows
    python benchmarks/confidence_speed.py --rows 100000 200000 400000 --exact-max 400000
    python benchmarks/confidence_speed.py --rows 50000 100000 --backends hnsw
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import numpy as np
from sklearn.datasets import make_classification
from labelclean.confidence import KNNConfidence
from labelclean.noise import flip_labels
n, algorithm, seed = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
X, y = make_classification(n_samples=n, n_features=20, n_informative=10,
                           n_redundant=0, n_clusters_per_class=2, flip_y=0.0,
                           random_state=seed)
X = X.astype(np.float32)
y_noisy, flipped = flip_labels(np.asarray(y), 0.2, random_state=seed)
t_data = time.perf_counter()
est = KNNConfidence(algorithm=algorithm, random_state=seed, n_jobs=-1).fit(X, y_noisy)
t_fit = time.perf_counter()
from sklearn.metrics import roc_auc_score
np.save(sys.argv[4], est.confidence_)
print(json.dumps({
    "wall_total": time.perf_counter() - t0,
    "wall_fit": t_fit - t_data,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "auroc": roc_auc_score(flipped, 1 - est.confidence_),
    "backend": est.neighbor_algorithm_,
}))
"""


def run(n: int, algorithm: str, seed: int, out: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), algorithm, str(seed), str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    import numpy as np

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument(
        "--exact-max", type=int, default=100_000, help="largest n the exact runs"
    )
    parser.add_argument(
        "--backends",
        nargs="+",
        default=["approximate"],
        choices=["hnsw", "approximate"],
        help="backends compared with the exact search",
    )
    parser.add_argument("--section", default="confidence-speed")
    parser.add_argument("--exact-only", action="store_true")
    parser.add_argument(
        "--note", default="", help="a sentence on the code measured (e.g. a commit)"
    )
    args = parser.parse_args()
    tmp = Path(__file__).with_name("_out")
    tmp.mkdir(exist_ok=True)
    rows = []
    agreement = []
    sizes = [20_000] if args.quick else args.rows
    backends = [] if args.exact_only else args.backends
    for n in sizes:
        found = {}
        for backend in backends:
            found[backend] = run(n, backend, 0, tmp / f"{backend}_{n}.npy")
            rows.append((n, found[backend]))
            print(rows[-1], flush=True)
        if n > args.exact_max:
            continue
        exact = run(n, "exact", 0, tmp / f"exact_{n}.npy")
        rows.append((n, exact))
        print(rows[-1], flush=True)
        e = np.load(tmp / f"exact_{n}.npy")
        for backend, result in found.items():
            a = np.load(tmp / f"{backend}_{n}.npy")
            diff = np.abs(a - e)
            gap = result["auroc"] - exact["auroc"]
            agreement.append((n, backend, float(diff.mean()), float(diff.max()), gap))
    lines = [
        *section_head("Label confidence: speed, memory, approximate vs exact"),
        "KNNConfidence with its defaults (KNN filter K=5, three rounds; confidence "
        "K=10) and `n_jobs=-1`, as `labelclean run` uses it, on "
        "`make_classification` data, 20 float32 features, 2 classes, "
        "20 % uniform flips. Each run is a fresh process: wall time includes "
        "imports and numba compilation." + (f" {args.note}" if args.note else ""),
        "",
        "| rows | backend | fit wall (s) | process wall (s) | peak RSS (MB) "
        "| AUROC of 1-γ |",
        "|---|---|---|---|---|---|",
    ]
    for n, r in rows:
        lines.append(
            f"| {n:,} | {r['backend']} | {r['wall_fit']:.1f} | {r['wall_total']:.1f} "
            f"| {r['peak_rss_mb']:.0f} | {r['auroc']:.4f} |"
        )
    lines += [
        "",
        "| rows | backend | mean abs(γ − γ_exact) | max | AUROC − exact AUROC |",
        "|---|---|---|---|---|",
    ]
    for n, backend, mean, mx, gap in agreement:
        lines.append(f"| {n:,} | {backend} | {mean:.4f} | {mx:.2f} | {gap:+.4f} |")
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
