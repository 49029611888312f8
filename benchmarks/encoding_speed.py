"""Speed of the two encodings every large fit repeats, against what they replaced.

* **Median imputation** of the feature encoder (fitted by the pipeline and
  again by the confidence stage): labelclean's imputer (numpy's median per
  column, ``labelclean.utils._features._imputer``) against scikit-learn's
  ``SimpleImputer(strategy='median')`` (a sort of a masked copy of the
  matrix), with the statistics compared.
* **Quantisation** of the binned learners (every out-of-fold model, the final
  model and SPLBoost quantise their rows): ``_BinMapper.transform`` (a
  fixed-length binary search without branches) against the branching binary
  search it replaced (kept below as the reference), with the codes compared.

Rows of 20 standard normal features, 1 % of the values missing, one column
of 7 distinct values; the best of 3 timings of each, in one process (numba
compiled first).

    python benchmarks/encoding_speed.py [--rows 1000000]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import command, machine, write_section


@njit(cache=True, nogil=True)
def branching_transform(X, edges, n_edges):  # pragma: no cover - compiled
    """The search ``_BinMapper.transform`` used before: first edge >= x."""
    n_samples, n_features = X.shape
    out = np.empty((n_samples, n_features), dtype=np.uint8)
    for i in range(n_samples):
        for j in range(n_features):
            x = X[i, j]
            if np.isnan(x):
                out[i, j] = n_edges[j] + 1
                continue
            lo, hi = 0, n_edges[j]
            while lo < hi:
                mid = (lo + hi) >> 1
                if edges[j, mid] < x:
                    lo = mid + 1
                else:
                    hi = mid
            out[i, j] = lo
    return out


def best_of(fn, repeats=3):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    from sklearn.impute import SimpleImputer

    from labelclean.ensemble._binned import _BinMapper
    from labelclean.utils._features import _imputer

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--section", default="encoding-speed")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.rows, 20))
    X[:, 3] = rng.integers(0, 7, size=args.rows)
    X[rng.random(X.shape) < 0.01] = np.nan

    ours, fitted = best_of(lambda: _imputer().fit(X))
    sklearn_median = SimpleImputer(
        strategy="median", add_indicator=True, keep_empty_features=True
    )
    theirs, reference = best_of(lambda: sklearn_median.fit(X))
    same_stats = np.array_equal(fitted.statistics_, reference.statistics_)

    mapper = _BinMapper(255, 0).fit(X)
    flat = np.full((X.shape[1], max(int(mapper.n_bins_.max()) - 1, 1)), np.inf)
    for j, edges in enumerate(mapper.edges_):
        flat[j, : edges.shape[0]] = edges
    mapper.transform(X[:10])
    branching_transform(X[:10], flat, mapper.n_bins_ - 1)
    new, codes = best_of(lambda: mapper.transform(X))
    old, old_codes = best_of(lambda: branching_transform(X, flat, mapper.n_bins_ - 1))
    same_codes = np.array_equal(codes, old_codes)

    lines = [
        "## Encoding speed: median imputation and quantisation (encoding_speed.py)",
        "",
        f"Machine: {machine()}",
        "",
        f"Command: `{command()}`",
        "",
        f"{args.rows:,} rows of 20 features (1 % missing, one column of 7 "
        "values); best of 3, one process.",
        "",
        "| step | labelclean (s) | before (s) | before / labelclean | same result |",
        "|---|---|---|---|---|",
        f"| median imputation (fit) | {ours:.3f} | {theirs:.3f} (SimpleImputer "
        f"median) | {theirs / ours:.1f} | {'yes' if same_stats else 'NO'} |",
        f"| quantisation (transform) | {new:.3f} | {old:.3f} (branching search) "
        f"| {old / new:.1f} | {'yes' if same_codes else 'NO'} |",
        "",
    ]
    print("\n".join(lines[-4:]))
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
