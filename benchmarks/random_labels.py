"""Labels drawn at random: how much does a fit flag where nothing can be known?

Each table has four standard-normal features and labels drawn uniformly at
random, independently of them (two or three classes; 100, 200 and 400 rows;
10 seeds per size). No label is wrong and none can be told from another, so
every flag discards a row for nothing. Reports, per size and number of
classes, the fits that flagged any row, the mean and the largest share of
rows flagged, and the fits read as agreeing hardly better than chance
(``calibration_['predictability']['slight']``).

    python benchmarks/random_labels.py [--seeds 10] [--section random-labels]
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from labelclean.pipeline import LabelCleaner


def table(n_rows: int, n_classes: int, seed: int):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n_rows, 4)), columns=list("abcd"))
    return X, rng.integers(0, n_classes, n_rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--section", default="random-labels")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    lines = [
        *section_head("Random labels: rows flagged where nothing can be known"),
        f"Four standard-normal features, labels drawn at random; {args.seeds} "
        "seeds per cell, `LabelCleaner(random_state=0)`. Every flag is wrong.",
        "",
        "| rows | classes | fits flagging | mean share flagged | largest share "
        "| read as slight |",
        "|---|---|---|---|---|---|",
    ]
    for n_rows in (100, 200, 400):
        for n_classes in (2, 3):
            shares, slight = [], 0
            for seed in range(args.seeds):
                X, y = table(n_rows, n_classes, seed)
                cleaner = LabelCleaner(random_state=0).fit(X, y)
                shares.append(float(np.mean(cleaner.decisions_ != "kept")))
                slight += bool(cleaner.calibration_["predictability"]["slight"])
            shares = np.asarray(shares)
            lines.append(
                f"| {n_rows} | {n_classes} | {int((shares > 0).sum())} of "
                f"{args.seeds} | {shares.mean():.3f} | {shares.max():.3f} "
                f"| {slight} of {args.seeds} |"
            )
            print(n_rows, n_classes, "done", flush=True)
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
