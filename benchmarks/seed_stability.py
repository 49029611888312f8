"""How much the decisions move with ``random_state``: one split, several seeds.

The same rows and labels are cleaned with ``random_state`` 0 to ``--seeds``
− 1, with ``LabelCleaner``'s defaults and with each ``--variant`` (a
parameter set otherwise, ``KEY=VALUE``; by default ``cv_repeats=3``, the
out-of-fold evidence averaged over three splits into folds). The tables are
``real_data.py``'s (half of each, split seed 0), each with its own labels and
with 20 % of them flipped uniformly (seed 0). Per table and setting: the
rows flagged (mean ± sd over the seeds), the flag F1 against the flips
(mean ± sd), the share of rows whose decision (kept, corrected, discarded)
is the same in every seed, and the fit time. A seed should not decide
whether a table is cleaned.

    python benchmarks/seed_stability.py
    python benchmarks/seed_stability.py --data iris wine --seeds 3 \
        --variant model=rosr --variant suspects=None
"""

import argparse
import ast
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, section_head, write_section
from benchmarks.real_data import DATASETS
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner


def _variant(text):
    key, _, value = text.partition("=")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def _table(name):
    X, y = DATASETS[name]()
    y = np.asarray(y)
    X_tr, _, y_tr, _ = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    return X_tr.reset_index(drop=True), np.asarray(y_tr)


def measure(X, y, flipped, seeds, params):
    """Decisions, flag counts, flag F1s and fit times over the seeds."""
    decisions, flags, f1, seconds = [], [], [], []
    for seed in range(seeds):
        with Timer() as t:
            cleaner = LabelCleaner(**params, random_state=seed).fit(X, y)
        seconds.append(t.seconds)
        decided = np.asarray(cleaner.decisions_, dtype=str)
        flagged = decided != "kept"
        decisions.append(decided)
        flags.append(int(flagged.sum()))
        if flipped.any():
            f1.append(2 * (flagged & flipped).sum() / (flagged.sum() + flipped.sum()))
    same = np.all(np.asarray(decisions) == decisions[0], axis=0).mean()
    return {"flags": flags, "f1": f1, "same": float(same), "seconds": seconds}


def _ms(values, fmt="{:.3f}"):
    if not values:
        return "–"
    arr = np.asarray(values, dtype=float)
    sd = arr.std(ddof=1) if arr.size > 1 else 0.0
    return f"{fmt.format(arr.mean())} ± {fmt.format(sd)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        nargs="+",
        default=[
            "iris",
            "wine",
            "penguins",
            "cars",
            "mpg",
            "seattle_weather",
            "anes96",
        ],
    )
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--variant", action="append", default=None)
    parser.add_argument("--section", default="seed-stability")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    settings = {"defaults": {}}
    for text in args.variant or ["cv_repeats=3"]:
        settings[text] = dict([_variant(text)])
    rows = [
        "| data | labels | setting | flagged | F1 | same decision in every seed "
        "| fit (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    summary = {name: {"f1_sd": [], "same": [], "zero_and_not": 0} for name in settings}
    for name in args.data:
        X, y = _table(name)
        y_flip, flipped = flip_labels(y, 0.2, random_state=0)
        for labels, (y_used, truth) in {
            "own": (y, np.zeros(y.shape[0], dtype=bool)),
            "20 % flips": (np.asarray(y_flip), np.asarray(flipped)),
        }.items():
            for setting, params in settings.items():
                out = measure(X, y_used, truth, args.seeds, params)
                rows.append(
                    f"| {name} | {labels} | {setting} | {_ms(out['flags'], '{:.1f}')} "
                    f"| {_ms(out['f1'])} | {out['same']:.3f} "
                    f"| {_ms(out['seconds'], '{:.1f}')} |"
                )
                print(rows[-1], flush=True)
                part = summary[setting]
                part["same"].append(out["same"])
                part["zero_and_not"] += min(out["flags"]) == 0 < max(out["flags"])
                if out["f1"]:
                    part["f1_sd"].append(float(np.std(out["f1"], ddof=1)))
    lines = [
        *section_head("Decisions against the seed (seed_stability.py)"),
        f"{args.seeds} seeds (`random_state`) on one split per table (half of "
        "the rows, split seed 0); own labels and 20 % uniform flips (seed 0); "
        "`LabelCleaner`'s defaults and each variant (the parameter it sets). "
        "Mean ± sd over the seeds.",
        "",
        *rows,
        "",
    ]
    for setting, part in summary.items():
        lines.append(
            f"- {setting}: mean sd of the flag F1 over the seeds "
            f"{np.mean(part['f1_sd']):.3f}; mean share of rows decided the same "
            f"in every seed {np.mean(part['same']):.3f}; tables whose flags are "
            f"none in one seed and some in another {part['zero_and_not']} of "
            f"{2 * len(args.data)}."
        )
    text = "\n".join(lines) + "\n"
    print(text)
    write_section(args.section, text)


if __name__ == "__main__":
    main()
