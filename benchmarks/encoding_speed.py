"""Speed of the binned learners' quantisation, against another checkout.

Every out-of-fold model, the final model and SPLBoost quantise their rows
into bins before boosting, and ``predict`` quantises the rows it is given.
This times a public boosted learner on binned stumps with a single round,
``SPLBoostClassifier(n_estimators=1, age=3.0)``, on rows of 20 standard
normal features (1 % of the values missing, one column of 7 distinct
values): its ``fit`` (bin edges, bin codes, one stump) and its ``predict``
(bin codes, one stump per row), best of 3, in a fresh process per checkout
(numba compiled first).

``--repo`` runs the same process in another checkout, e.g. the commit before
a change (``git worktree add /tmp/before <commit>``), so that both are
measured in one run on the same rows; the predictions of both are hashed
and compared.

    python benchmarks/encoding_speed.py --repo /tmp/before
"""

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import run_in_checkout, section_head, write_section


def _rows(n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_rows, 20))
    X[:, 3] = rng.integers(0, 7, size=n_rows)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.random(X.shape) < 0.01] = np.nan
    return X, y


def child(n_rows: int) -> dict:
    """Times of one checkout (run in a fresh process with that checkout first
    on the path)."""
    import labelclean
    from labelclean.ensemble import SPLBoostClassifier

    X, y = _rows(n_rows)

    def make():
        return SPLBoostClassifier(n_estimators=1, age=3.0, random_state=0)

    make().fit(X[:100], y[:100]).predict(X[:10])
    out = {"fit": [], "predict": []}
    for _ in range(3):
        start = time.perf_counter()
        tree = make().fit(X, y)
        out["fit"].append(time.perf_counter() - start)
        start = time.perf_counter()
        predicted = tree.predict(X)
        out["predict"].append(time.perf_counter() - start)
    out = {k: min(v) for k, v in out.items()}
    out["labelclean"] = str(Path(labelclean.__file__).parent.parent)
    out["sha256"] = hashlib.sha256(predicted.tobytes()).hexdigest()
    return out


def _measure(repo: Path, n_rows: int) -> dict:
    return run_in_checkout(repo, __file__, f"m.child({n_rows})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repo", type=Path, help="another checkout to compare")
    parser.add_argument("--section", default="encoding-speed")
    args = parser.parse_args()

    checkouts = {"this checkout": ROOT}
    if args.repo is not None:
        checkouts[str(args.repo)] = args.repo.resolve()
    results = {name: _measure(path, args.rows) for name, path in checkouts.items()}
    same = len({r["sha256"] for r in results.values()}) == 1
    rows = [
        "| checkout | fit (s) | predict (s) |",
        "|---|---|---|",
        *(
            f"| {name} ({r['labelclean']}) | {r['fit']:.3f} | {r['predict']:.3f} |"
            for name, r in results.items()
        ),
    ]
    lines = [
        *section_head("Quantisation of the binned learners (encoding_speed.py)"),
        "`SPLBoostClassifier(n_estimators=1, age=3.0)` (binned stumps, one "
        f"round) on {args.rows:,} rows of 20 features (1 % missing, one column "
        "of 7 values): `fit` (bin edges, bin codes, one stump) and `predict` "
        "(bin codes, one stump per row); best of 3 in a fresh process per "
        "checkout.",
        "",
        *rows,
        "",
        f"Same predictions in every checkout: {'yes' if same else 'NO'}.",
        "",
    ]
    print("\n".join([*rows, lines[-2]]))
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
