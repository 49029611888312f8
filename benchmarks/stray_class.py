"""A stray class of a few rows beside a table's own classes, in two checkouts.

Real labels hold such classes: a typo, a category retired years ago, a code
entered once. This script takes ``real_data.py``'s split and flips of a
table (``--noise``: ``u0`` and ``u20`` by default), relabels ``--stray``
rows of the training half, drawn at random (seeded), to a class of their
own, and fits ``LabelCleaner`` with its defaults in two checkouts (each in
fresh processes, at the same time). Per cell it reports, before → after:
the flag F1 against the flipped rows and the rows flagged (the stray rows
left out of both: whether they are wrong labels is not defined), the
estimated noise rate against the flipped share, and the final model's
accuracy on the clean test half. With no stray row the
cell is the table as ``real_data.py`` has it, the reference a stray class
should not move far from::

    git worktree add --detach /tmp/before <old commit>
    python benchmarks/stray_class.py --repo /tmp/before
"""

import argparse
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# In a child of run_in_checkout labelclean is already imported from the other
# checkout when this file loads, so these names come from that checkout.
from benchmarks._common import run_in_checkout, write_comparison
from benchmarks.real_data import DATASETS, _mean, parse_cell, split_and_flip
from labelclean.pipeline import LabelCleaner

ROOT = Path(__file__).resolve().parents[1]


def _breast_cancer():
    data = load_breast_cancer(as_frame=True)
    return data.data, data.target


TABLES = {"breast_cancer": _breast_cancer, **DATASETS}


def with_stray(y_noisy, flipped, n_stray: int, seed: int):
    """``y_noisy`` with ``n_stray`` rows (seeded) relabelled to a class of
    their own (one past the largest integer label, or ``'stray'``), and the
    mask of those rows."""
    y = np.asarray(y_noisy).copy()
    stray = np.zeros(y.shape[0], dtype=bool)
    if n_stray:
        rows = np.random.RandomState(1000 + seed).choice(y.shape[0], n_stray, False)
        stray[rows] = True
        if np.issubdtype(y.dtype, np.integer):
            y[rows] = y.max() + 1
        else:
            y = y.astype(object)
            y[rows] = "stray"
    return y, stray


def child(name: str, cell: str, n_stray: int, reps: int) -> list[dict]:
    """Fit in this process's labelclean; what the comparison needs per fit."""
    warnings.simplefilter("ignore")
    X, y = TABLES[name]()
    out = []
    for seed in range(reps):
        X_tr, X_te, _, y_te, y_noisy, flipped = split_and_flip(
            X, np.asarray(y), *parse_cell(cell), seed
        )
        labels, stray = with_stray(y_noisy, flipped, n_stray, seed)
        cleaner = LabelCleaner(random_state=seed, n_jobs=-1).fit(X_tr, labels)
        flagged = (np.asarray(cleaner.decisions_) != "kept") & ~stray
        out.append({
            "flagged": int(flagged.sum()),
            "hits": int((flagged & flipped).sum()),
            "flips": int((flipped & ~stray).sum()),
            "noise": float(cleaner.noise_rate_),
            "accuracy": float(np.mean(
                np.asarray(cleaner.predict(X_te)).astype(str)
                == np.asarray(y_te).astype(str)
            )),
            "flipped_share": float(flipped.mean()),
        })  # fmt: skip
    return out


def f1(fit: dict) -> float:
    both = fit["flagged"] + fit["flips"]
    return 2 * fit["hits"] / both if both else 0.0


def cell_line(name, cell, n_stray, before, after) -> str:
    def both(value, fmt):
        return " → ".join(
            format(_mean([value(f) for f in fits]), fmt) for fits in (before, after)
        )

    noisy = parse_cell(cell)[1] > 0
    share = [f["flipped_share"] for f in after]
    return (
        f"| {name} | {cell} | {n_stray} | {both(f1, '.3f') if noisy else '–'} "
        f"| {both(lambda f: f['flagged'], '.1f')} "
        f"| {both(lambda f: f['noise'], '.3f')} ({_mean(share):.3f}) "
        f"| {both(lambda f: f.get('accuracy', np.nan), '.3f')} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="the other checkout")
    parser.add_argument(
        "--data", nargs="+", choices=list(TABLES),
        default=["breast_cancer", "iris", "wine", "penguins", "tictactoe"],
    )  # fmt: skip
    parser.add_argument("--noise", nargs="+", default=["u0", "u20"])
    parser.add_argument("--stray", nargs="+", type=int, default=[0, 1, 3, 8])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--section", default="stray-class")
    parser.add_argument("--note", default="", help="a line saying what was compared")
    args = parser.parse_args()
    script = Path(__file__).resolve()
    cells = [(d, c, s) for d in args.data for c in args.noise for s in args.stray]
    lines = [
        "| data | noise | stray rows | flag F1 | rows flagged "
        "| noise estimate (flipped) | final-model accuracy (clean test half) |",
        "|---|---|---|---|---|---|---|",
    ]
    results = {}
    with ThreadPoolExecutor(2) as pool:
        for d, c, s in cells:
            call = f"m.child({d!r}, {c!r}, {s}, {args.reps})"
            before = pool.submit(run_in_checkout, args.repo, script, call)
            after = pool.submit(run_in_checkout, ROOT, script, call)
            results[d, c, s] = (before.result(), after.result())
            lines.append(cell_line(d, c, s, *results[d, c, s]))
            print(lines[-1], flush=True)
    noisy = [k for k in results if parse_cell(k[1])[1] > 0]
    summary = []
    for n_stray in args.stray:
        keys = [k for k in noisy if k[2] == n_stray]
        means = [
            _mean([_mean([f1(f) for f in results[k][i]]) for k in keys]) for i in (0, 1)
        ]
        summary.append(
            f"- {n_stray} stray row(s): mean flag F1 over {len(keys)} noisy cells "
            f"{means[0]:.3f} → {means[1]:.3f}"
        )
    write_comparison(
        args.section,
        "A stray class of a few rows (stray_class.py)",
        args.note,
        f"Before: `{args.repo}`; after: this checkout; `LabelCleaner()` with its "
        f"defaults. {args.reps} repetitions per cell (real_data.py's splits, "
        "flips and seeds), means over them; the stray rows (relabelled to a "
        "class of their own after the flips, seeded) are left out of the flag "
        "F1 and the rows flagged.",
        lines,
        summary,
    )


if __name__ == "__main__":
    main()
