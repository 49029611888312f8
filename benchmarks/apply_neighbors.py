"""New rows against a large model's L_red: the approximate neighbour search.

A model fitted on 200,000 rows or more keeps the approximate neighbour index
(``NeighborIndex(algorithm='approximate')``); ``apply`` searches each new
row's k = 10 nearest rows among L_red with it. This builds such an index on
``make_classification`` rows (20 features, 85 % of them standing for L_red),
stores it the way a model file does (pickled arrays only), and then, in a
fresh process per checkout, measures what an ``apply`` process pays: loading
it, the first query (which builds the search structure), 65,536 rows (one
streamed batch), and the recall of 2,000 rows' neighbours against the exact
search.

``--repo`` runs the query process against another checkout, e.g. the commit
before a change (``git worktree add /tmp/before <commit>``), so that both
versions are measured in one run on the same stored index.

    python benchmarks/apply_neighbors.py --rows 1000000 --repo /tmp/before
"""

import argparse
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import Timer, section_head, write_section

OUT = ROOT / "benchmarks" / "_out"
K = 10
BATCH = 65_536
RECALL_ROWS = 2_000


def build(n_rows: int) -> Path:
    """Build (once) the index, the L_red mask, new rows and their exact neighbours."""
    from sklearn.datasets import make_classification

    from labelclean.utils import ExactPool, NeighborIndex

    folder = OUT / f"apply-neighbors-{n_rows}"
    if (folder / "index.pkl").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    X, _ = make_classification(n_rows + BATCH, n_features=20, n_informative=10,
                               random_state=0)  # fmt: skip
    X = ((X - X.mean(0)) / X.std(0)).astype(np.float32)
    new, X = X[n_rows:], X[:n_rows]
    mask = np.random.RandomState(1).rand(n_rows) < 0.85
    index = NeighborIndex(X, n_candidates=18, algorithm="approximate", random_state=0)
    pool = np.flatnonzero(mask)
    exact = pool[ExactPool(X[pool]).kneighbors(new[:RECALL_ROWS], K)]
    np.savez(folder / "rows.npz", new=new, mask=mask, exact=exact)
    (folder / "index.pkl").write_bytes(pickle.dumps(index))
    return folder


def query(folder: Path) -> dict:
    """What one apply process pays (run in a fresh process)."""
    with Timer() as t:
        index = pickle.loads((folder / "index.pkl").read_bytes())
    rows = np.load(folder / "rows.npz")
    new, mask, exact = rows["new"], rows["mask"], rows["exact"]
    out = {"load": t.seconds}
    with Timer() as t:
        index.query(new[:10], mask, K)
    out["first_query"] = t.seconds
    with Timer() as t:
        found = index.query(new, mask, K)
    out["rows_per_second"] = new.shape[0] / t.seconds
    pairs = zip(found[:RECALL_ROWS], exact, strict=True)
    hits = [len(set(a) & set(b)) for a, b in pairs]
    out["recall"] = float(np.mean(hits)) / K
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repo", action="append", default=[],
                        help="another checkout to measure as well")  # fmt: skip
    parser.add_argument("--query", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.query:
        print(json.dumps(query(Path(args.query))))
        return
    folder = build(args.rows)
    lines = [
        *section_head("New rows against a large model's L_red (apply_neighbors.py)"),
        f"Index of {args.rows:,} `make_classification` rows (20 features), "
        "approximate backend, 85 % of the rows in L_red; one fresh process per "
        f"checkout: load the stored index, first query (10 rows), {BATCH:,} new "
        f"rows, recall of {RECALL_ROWS:,} rows' {K} neighbours against the exact "
        "search.",
        "",
        "| checkout | load (s) | first query (s) | rows/s | recall@10 |",
        "|---|---|---|---|---|",
    ]
    for repo in [str(ROOT), *args.repo]:
        # labelclean from ``repo`` (imported first), this script from here
        code = (
            f"import sys; sys.path.insert(0, {repo!r}); import labelclean; "
            "import importlib.util as u; "
            f"s = u.spec_from_file_location('apply_neighbors', {__file__!r}); "
            "m = u.module_from_spec(s); s.loader.exec_module(m); m.main()"
        )
        done = subprocess.run(
            [sys.executable, "-c", code, "--query", str(folder)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        r = json.loads(done.stdout.strip().splitlines()[-1])
        name = "this checkout" if repo == str(ROOT) else repo
        lines.append(
            f"| {name} | {r['load']:.1f} | {r['first_query']:.1f} | "
            f"{r['rows_per_second']:,.0f} | {r['recall']:.4f} |"
        )
        print(lines[-1], flush=True)
    write_section(f"apply-neighbors-{args.rows}", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
