"""Tables of a few rows a class: does a fit finish, and what does it flag?

A user's first try is often a toy table. Per bundled scikit-learn table
(iris, wine, breast_cancer) and size (``--sizes``, rows a class), each
repetition draws that many rows of every class (seeded), flips ``--noise``
of their labels uniformly (at least one row), fits ``LabelCleaner()`` with
its defaults and records: whether the fit finished (else the error's class
and first words), the flipped rows flagged (discarded or corrected), the
right labels flagged, and the final model's accuracy on the table's other
rows with their own labels. Same rows, flips and seeds for every checkout,
so two runs of this script are comparable row by row.

    python benchmarks/tiny_tables.py                  # section tiny-tables
    python benchmarks/tiny_tables.py --sizes 4 6 --reps 2 --section try
"""

import argparse
import functools
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_iris, load_wine

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner

TABLES = {"iris": load_iris, "wine": load_wine, "breast_cancer": load_breast_cancer}
TITLE = "Tables of a few rows a class (tiny_tables.py)"


@functools.cache
def load(name: str):
    """A table's features and labels, read once."""
    X, y = TABLES[name](return_X_y=True, as_frame=True)
    return X, y.to_numpy()


def draw(y: np.ndarray, per_class: int, rep: int, noise: float):
    """Rows of a sample (``per_class`` of each class) and their labels with
    ``noise`` of them (at least one) flipped uniformly: rows, labels,
    flipped."""
    rng = np.random.default_rng(rep)
    rows = np.concatenate([
        rng.choice(np.flatnonzero(y == c), per_class, replace=False)
        for c in np.unique(y)
    ])  # fmt: skip
    if noise == 0:
        return rows, y[rows], np.zeros(rows.shape[0], dtype=bool)
    rate = max(noise, 1 / rows.shape[0])
    labels, flipped = flip_labels(y[rows], rate, random_state=rep)
    return rows, np.asarray(labels), np.asarray(flipped)


def run(name: str, per_class: int, rep: int, noise: float, out) -> None:
    """One fit; its counts into ``out[(name, per_class)]``."""
    X, y = load(name)
    rows, labels, flipped = draw(y, per_class, rep, noise)
    cell = out[(name, per_class)]
    try:
        cleaner = LabelCleaner(random_state=rep).fit(X.iloc[rows], labels)
    except Exception as error:  # recorded: finding these is the point
        cell["failed"].append(f"{type(error).__name__}: {str(error)[:60]}")
        return
    flagged = np.asarray(cleaner.decisions_ != "kept")
    others = np.setdiff1d(np.arange(y.shape[0]), rows)
    cell["fits"].append(1)
    cell["flips"].append(int(flipped.sum()))
    cell["found"].append(int((flagged & flipped).sum()))
    cell["wrong"].append(int((flagged & ~flipped).sum()))
    cell["accuracy"].append(
        float(np.mean(cleaner.predict(X.iloc[others]) == y[others]))
    )


def table(out, sizes) -> list[str]:
    lines = [
        "| data | rows a class | fits finished | flips flagged | right labels "
        "flagged | accuracy on the other rows | errors |",
        "|---|---|---|---|---|---|---|",
    ]
    for (name, per_class), cell in out.items():
        if per_class not in sizes:
            continue
        acc = np.asarray(cell["accuracy"])
        accuracy = f"{acc.mean():.3f} ± {acc.std(ddof=1):.3f}" if acc.size > 1 else "–"
        done = len(cell["fits"])
        lines.append(
            f"| {name} | {per_class} | {done} of {done + len(cell['failed'])} | "
            f"{sum(cell['found'])} of {sum(cell['flips'])} | {sum(cell['wrong'])} | "
            f"{accuracy} | {'; '.join(sorted(set(cell['failed'])))} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[3, 4, 6, 8, 10, 15])
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--noise", type=float, default=0.1)
    parser.add_argument("--section", default="tiny-tables")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    out = defaultdict(lambda: defaultdict(list))
    for name in TABLES:
        for per_class in args.sizes:
            for rep in range(args.reps):
                run(name, per_class, rep, args.noise, out)
    totals = defaultdict(list)
    for cell in out.values():
        for key, values in cell.items():
            totals[key].extend(values)
    flips = (
        f"{args.noise:.0%} of their labels flipped uniformly (at least one)"
        if args.noise
        else "no label flipped"
    )
    lines = [
        *section_head(TITLE),
        f"{args.reps} repetitions a cell: that many rows of each class drawn "
        f"(seeded), {flips}, `LabelCleaner()` with its defaults; accuracy of the "
        "final model on the table's other rows (mean ± sd over the fits that "
        "finished).",
        "",
        *table(out, args.sizes),
        "",
        f"Over all cells: {len(totals['fits'])} of "
        f"{len(totals['fits']) + len(totals['failed'])} fits finished; "
        f"{sum(totals['found'])} of {sum(totals['flips'])} flips flagged, "
        f"{sum(totals['wrong'])} right labels flagged; mean accuracy "
        f"{np.mean(totals['accuracy']):.3f}.",
    ]
    write_section(args.section, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
