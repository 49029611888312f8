"""Does a fitted pipeline judge new batches as well as its training rows?

For breast_cancer and digits with 10/20/30 % uniform flips in *both* halves
(train and a held-out batch), fits ``LabelCleaner`` on the noisy training half
(what ``labelclean run`` does) and decides the noisy held-out half with the
fitted stages (what ``labelclean apply`` does: ``LabelCleaner.audit``, the
code the streaming and Dask engines call per batch). Reports the F1 of the
flagged rows (corrected ∪ discarded) against the flipped rows on each side,
their difference, and whether two applies give identical decisions.

    python benchmarks/apply_consistency.py [--reps 10] [--final-fit cleaned]
    python benchmarks/apply_consistency.py --data wine iris penguins cars mpg

``--final-fit`` sets ``LabelCleaner(final_fit=...)`` (the final model decides
new rows with its ``model_probability``); a value other than the default
writes its own section.
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import mean_std, section_head, write_section
from benchmarks.real_data import DATASETS as PUBLIC_TABLES
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument(
        "--final-fit", choices=["weighted", "cleaned", "soft"], default="weighted"
    )
    parser.add_argument(
        "--data", nargs="+", default=["breast_cancer", "digits"],
        choices=["breast_cancer", "digits", *PUBLIC_TABLES],
    )  # fmt: skip
    parser.add_argument("--section", default=None)
    args = parser.parse_args()
    loaders = {
        "breast_cancer": lambda: load_breast_cancer(return_X_y=True),
        "digits": lambda: load_digits(return_X_y=True),
        **PUBLIC_TABLES,
    }
    warnings.simplefilter("ignore")
    lines = [
        *section_head(
            "run against apply: flag quality on the training rows and on a new batch"
        ),
        f"{args.reps} repetitions, `final_fit='{args.final_fit}'`; half train / half "
        "held-out batch (stratified), "
        "both with the same rate of uniform flips (independent draws). F1 of "
        "flagged rows against flipped rows; Δ = apply − run.",
        "",
        "| data | noise | F1 run (training rows) | F1 apply (new batch) | Δ "
        "| identical reruns |",
        "|---|---|---|---|---|---|",
    ]
    for name in args.data:
        X, y = loaders[name]()
        y = np.asarray(y)
        for noise in (0.1, 0.2, 0.3):
            run_f1, apply_f1, same = [], [], []
            for rep in range(args.reps):
                X_tr, X_new, y_tr, y_new = train_test_split(
                    X, y, test_size=0.5, stratify=y, random_state=rep
                )
                y_tr_noisy, flip_tr = flip_labels(
                    np.asarray(y_tr), noise, random_state=rep
                )
                y_new_noisy, flip_new = flip_labels(
                    np.asarray(y_new), noise, random_state=10_000 + rep
                )
                cleaner = LabelCleaner(final_fit=args.final_fit, random_state=rep)
                cleaner.fit(X_tr, y_tr_noisy)
                first = cleaner.audit(X_new, y_new_noisy)
                second = cleaner.audit(X_new, y_new_noisy)
                run_f1.append(f1_score(flip_tr, cleaner.decisions_ != "kept"))
                apply_f1.append(f1_score(flip_new, first["decision"] != "kept"))
                same.append(first.equals(second))
            delta = np.mean(apply_f1) - np.mean(run_f1)
            lines.append(
                f"| {name} | {noise:.0%} | {mean_std(run_f1)} | {mean_std(apply_f1)} "
                f"| {delta:+.4f} | {all(same)} |"
            )
            print(name, noise, "done", flush=True)
    suffix = "" if args.final_fit == "weighted" else f"-{args.final_fit}"
    write_section(args.section or f"apply-consistency{suffix}", "\n".join(lines))


if __name__ == "__main__":
    main()
