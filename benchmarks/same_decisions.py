"""Does a change move any decision? Two checkouts, the same fits, compared row by row.

``same_outputs.py`` compares output bytes on two tables; a change that moves
numbers in their last bits (a sum taken in another order) fails it without
moving anything a user acts on. This script fits ``LabelCleaner`` with its
defaults in two checkouts, in fresh processes, on issue 13's public tables
(``real_data.py``: the same split, flips and seeds), and counts what differs:
decisions, cleaned labels, the final model's test predictions, and the
largest difference of ``noise_probability`` and of the test probabilities::

    git worktree add --detach /tmp/before <old commit>
    python benchmarks/same_decisions.py --repo /tmp/before --data iris wine
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# In a child of run_in_checkout labelclean is already imported from the other
# checkout when this file loads, so these names come from that checkout.
from benchmarks._common import run_in_checkout, section_head, write_section
from benchmarks.real_data import DATASETS, parse_cell, split_and_flip
from labelclean.pipeline import LabelCleaner

ROOT = Path(__file__).resolve().parents[1]


def child(name: str, cell: str, seed: int) -> dict:
    """Fit in this process's labelclean; return what the comparison needs."""
    warnings.simplefilter("ignore")
    X, y = DATASETS[name]()
    X_tr, X_te, _, y_te, y_noisy, _ = split_and_flip(
        X, np.asarray(y), *parse_cell(cell), seed
    )
    cleaner = LabelCleaner(random_state=seed, n_jobs=-1).fit(X_tr, y_noisy)
    audit = cleaner.audit_
    predictions = cleaner.predict(X_te)
    return {
        "accuracy": float(np.mean(predictions == np.asarray(y_te))),
        "decisions": [str(d) for d in cleaner.decisions_],
        "cleaned": [str(v) for v in audit["cleaned_label"]],
        "noise": audit["noise_probability"].astype(float).tolist(),
        "predictions": [str(v) for v in predictions],
        "probabilities": cleaner.predict_proba(X_te).tolist(),
    }


def compare(before: dict, after: dict) -> dict:
    """Counts of rows that differ, and the largest numeric differences."""

    def differ(key):
        return int(np.sum(np.asarray(before[key]) != np.asarray(after[key])))

    def largest(key):
        a, b = np.asarray(before[key], float), np.asarray(after[key], float)
        return float(np.nanmax(np.abs(a - b))) if a.size else 0.0

    return {
        "rows": len(before["decisions"]),
        "flagged": int(np.sum(np.asarray(after["decisions"]) != "kept")),
        "decisions": differ("decisions"),
        "cleaned": differ("cleaned"),
        "predictions": differ("predictions"),
        "accuracy": (before["accuracy"], after["accuracy"]),
        "noise": largest("noise"),
        "probabilities": largest("probabilities"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="the other checkout")
    parser.add_argument("--data", nargs="+", choices=list(DATASETS), required=True)
    parser.add_argument("--noise", nargs="+", default=["u0", "u20", "cc20"])
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--section", default="same-decisions")
    parser.add_argument("--note", default="", help="a line saying what was compared")
    args = parser.parse_args()
    script = Path(__file__).resolve()
    lines = [
        *section_head("Same decisions in two checkouts (same_decisions.py)"),
        *([args.note, ""] if args.note else []),
        f"Before: `{args.repo}`; after: this checkout. {args.reps} repetitions per "
        "cell (the split and flip seeds of real_data.py). Rows whose decision, "
        "cleaned label or test prediction differ; the final model's accuracy on "
        "the clean test half; largest absolute difference of "
        "noise_probability and of the test probabilities.",
        "",
        "| data | noise | seed | rows | flagged | decisions | cleaned labels "
        "| test predictions | test accuracy before → after "
        "| max Δ noise_probability | max Δ probability |",
        "|" + "---|" * 11,
    ]
    for name in args.data:
        for cell in args.noise:
            for seed in range(args.reps):
                call = f"m.child({name!r}, {cell!r}, {seed})"
                got = compare(
                    run_in_checkout(args.repo, script, call),
                    run_in_checkout(ROOT, script, call),
                )
                line = (
                    f"| {name} | {cell} | {seed} | {got['rows']} | {got['flagged']} "
                    f"| {got['decisions']} | {got['cleaned']} | {got['predictions']} "
                    f"| {got['accuracy'][0]:.3f} → {got['accuracy'][1]:.3f} "
                    f"| {got['noise']:.2e} | {got['probabilities']:.2e} |"
                )
                print(line, flush=True)
                lines.append(line)
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
