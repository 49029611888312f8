"""Soft-labelled against cleaned-label fitting of the final model.

On breast_cancer (half train / half test, stratified, seeded), with 0-30 %
uniform flips of the training labels, fits LabelCleaner with
``final_fit='soft'`` and ``final_fit='cleaned'`` for CB-AdaBoost and RoSR-L,
and reports the clean-test accuracy of the final model. Mean ± sd over
repetitions.

    python benchmarks/final_fit.py [--reps 3]
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import command, machine, mean_std, write_section
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    X, y = load_breast_cancer(return_X_y=True)
    variants = [
        (model, fit) for model in ("cb_adaboost", "rosr") for fit in ("soft", "cleaned")
    ]
    lines = [
        "## Final model: soft labels or cleaned labels",
        "",
        f"Machine: {machine()}",
        "",
        f"Command: `{command()}`",
        "",
        f"breast_cancer, {args.reps} repetitions, clean-test accuracy of "
        "`LabelCleaner(model=..., final_fit=...)`, mean ± sd.",
        "",
        "| noise | " + " | ".join(f"{m}, {f}" for m, f in variants) + " |",
        "|---|" + "---|" * len(variants),
    ]
    for noise in (0.0, 0.1, 0.2, 0.3):
        acc = {v: [] for v in variants}
        for rep in range(args.reps):
            X_tr, X_te, y_tr, y_te = train_test_split(
                X, y, test_size=0.5, stratify=y, random_state=rep
            )
            y_noisy = (
                flip_labels(np.asarray(y_tr), noise, random_state=rep)[0]
                if noise
                else y_tr
            )
            for model, fit in variants:
                cleaner = LabelCleaner(model=model, final_fit=fit, random_state=rep)
                cleaner.fit(X_tr, y_noisy)
                acc[(model, fit)].append((cleaner.predict(X_te) == y_te).mean())
        lines.append(
            f"| {noise:.0%} | " + " | ".join(mean_std(acc[v]) for v in variants) + " |"
        )
        print(noise, "done", flush=True)
    write_section("final-fit", "\n".join(lines))


if __name__ == "__main__":
    main()
