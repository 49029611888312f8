"""New rows of a large model: what a faster neighbour search would cost γ.

``apply`` scores a new row by its K = 10 nearest rows of L_red. With a model
fitted on 1e6 rows that search is most of ``apply``'s time (section
``apply-neighbors-1000000``: about 10,000 rows/s with the HNSW graph), far
from 50,000 rows/s. This measures the two ways out that keep the search
simple, on the data of ``benchmarks/scale.py`` (20 features, a noisy linear
rule, 20 % of the labels flipped; a seeded 85 % of the model's rows stand for
L_red, as in ``apply_neighbors.py``):

* a bounded, stratified reference set: the new rows search only ``R`` rows
  of L_red (a per-class seeded sample), exactly (``ExactPool``, as ``apply``
  does below 75,000 rows). Reported: rows/s of the search alone, the mean
  |γ − γ_full| against the search among all of L_red, and the AUROC of 1 − γ
  against the new rows' flips;
* faiss's inverted-file index (k-means cells) over all of L_red: recall@10
  against the exact search and the search's rows/s, by cells probed.

    python benchmarks/new_row_search.py                  # 1e6 model rows
    python benchmarks/new_row_search.py --rows 200000 --queries 5000
"""

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import Timer, section_head, write_section
from benchmarks.scale import _flipped_path, make_data

K = 10
REFERENCE_SIZES = (5_000, 10_000, 20_000, 50_000, 100_000)


def _load(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    import pyarrow.parquet as pq

    frame = pq.read_table(path).to_pandas()
    y = frame.pop("label").to_numpy()
    return frame.to_numpy(dtype=np.float64), y, np.load(_flipped_path(path))


def _stratified(y: np.ndarray, rows: np.ndarray, size: int, seed: int) -> np.ndarray:
    """``size`` of ``rows``, each class in its share, seeded."""
    rng = np.random.default_rng(seed)
    picked = []
    for c in np.unique(y[rows]):
        of_class = rows[y[rows] == c]
        n = round(size * of_class.size / rows.size)
        picked.append(rng.choice(of_class, min(n, of_class.size), replace=False))
    return np.sort(np.concatenate(picked))


def main() -> None:
    from sklearn.metrics import roc_auc_score

    from labelclean.utils import ExactPool

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--section", default="new-row-search")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        fit, new = Path(tmp) / "fit.parquet", Path(tmp) / "new.parquet"
        make_data(fit, args.rows, seed=args.rows)
        make_data(new, args.queries, seed=args.rows + 1)
        X, y, _ = _load(fit)
        Q, yq, flipped = _load(new)
    mean, std = X.mean(axis=0), X.std(axis=0)
    X, Q = (X - mean) / std, (Q - mean) / std
    pool = np.flatnonzero(np.random.default_rng(1).random(X.shape[0]) < 0.85)

    def gamma(reference: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        searcher = ExactPool(X[reference])
        with Timer() as t:
            found = reference[searcher.kneighbors(Q, K)]
        return (y[found] == yq[:, None]).mean(axis=1), found, Q.shape[0] / t.seconds

    g_full, exact, rate_full = gamma(pool)
    auroc_full = roc_auc_score(flipped, 1 - g_full)
    rows = [
        "| reference rows | search rows/s | mean abs(γ − γ_full) | AUROC of 1 − γ "
        "| AUROC − full |",
        "|---|---|---|---|---|",
        f"| all of L_red ({pool.size:,}) | {rate_full:,.0f} | 0 | {auroc_full:.4f} "
        "| 0 |",
    ]
    for size in REFERENCE_SIZES:
        g, _, rate = gamma(_stratified(y, pool, size, seed=0))
        auroc = roc_auc_score(flipped, 1 - g)
        rows.append(
            f"| {size:,} | {rate:,.0f} | {np.abs(g - g_full).mean():.4f} | "
            f"{auroc:.4f} | {auroc - auroc_full:+.4f} |"
        )
        print(rows[-1], flush=True)

    # lazy: faiss is slow to import
    import faiss

    ivf_rows = [
        "| cells | cells probed | build (s) | search rows/s | recall@10 |",
        "|---|---|---|---|---|",
    ]
    X32, Q32 = X[pool].astype(np.float32), Q.astype(np.float32)
    for n_cells in (2048, 4096):
        with Timer() as t:
            index = faiss.IndexIVFFlat(faiss.IndexFlatL2(X32.shape[1]), 20, n_cells)
            index.cp.seed = 0
            rng = np.random.default_rng(0)
            train = rng.choice(X32.shape[0], min(X32.shape[0], 64 * n_cells), False)
            index.train(X32[train])
            index.add(X32)
        for probed in (8, 16, 32):
            index.nprobe = probed
            with Timer() as s:
                found = pool[index.search(Q32, K)[1]]
            hits = [len(set(a) & set(b)) for a, b in zip(found, exact, strict=True)]
            ivf_rows.append(
                f"| {n_cells:,} | {probed} | {t.seconds:.1f} | "
                f"{Q.shape[0] / s.seconds:,.0f} | {np.mean(hits) / K:.3f} |"
            )
            print(ivf_rows[-1], flush=True)

    lines = [
        *section_head(
            "New rows of a large model: reference sets and IVF (new_row_search.py)"
        ),
        f"{args.rows:,} model rows and {args.queries:,} new rows of `scale.py`'s "
        "two-class data (20 features, 20 % of the labels flipped); a seeded 85 % "
        "of the model rows stand for L_red. γ = share of the K = 10 nearest "
        "reference rows carrying the new row's label; AUROC of 1 − γ against the "
        "new rows' flips. Exact searches by `ExactPool` (faiss float32 screen, "
        "float64 ranking) on both cores; reference sets are per-class seeded "
        "samples of L_red.",
        "",
        *rows,
        "",
        "faiss `IndexIVFFlat` over all of L_red (k-means on 64 rows a cell), "
        "recall@10 against the exact search:",
        "",
        *ivf_rows,
        "",
    ]
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
