"""Which final models ``model='auto'`` should compare: cost and accuracy.

``model='auto'`` chooses the final model out of fold among RoSR-L and
CB-AdaBoost with binned depth-3 trees (and boosted stumps for two classes).
This script measures, on the development sets of ``dev_sets.py`` with 20 %
uniform flips of the training labels (half train / half test, stratified,
seeded), each candidate fitted alone as the final model of ``LabelCleaner``
(its out-of-fold evidence and its fit on the kept rows): the clean-test
accuracy and the fit time, beside SPLBoost with the same binned depth-3
trees as weak learner (SPLBoost's paper uses C4.5 trees), so that the cost
of adding it to the comparison can be weighed against what it would add.

    python benchmarks/final_candidates.py --reps 3
    python benchmarks/final_candidates.py --data breast_cancer diabetes --reps 2
"""

import argparse
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, mean_std, section_head, write_section
from benchmarks.dev_sets import DATASETS
from labelclean.ensemble import BinnedTreeClassifier, SPLBoostClassifier
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner

CANDIDATES = {
    "rosr": lambda seed: "rosr",
    "cb_adaboost_trees": lambda seed: "cb_adaboost_trees",
    "splboost_trees": lambda seed: SPLBoostClassifier(
        BinnedTreeClassifier(max_depth=3), random_state=seed
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", choices=list(DATASETS))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--noise", type=float, default=0.2)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    names = args.data or ["breast_cancer", "diabetes", "midwest", "fair", "digits"]
    lines = [
        *section_head(
            "Final-model candidates: accuracy and cost (final_candidates.py)"
        ),
        f"{args.reps} repetitions (split and flip seeds 0–{args.reps - 1}); "
        f"{args.noise:.0%} uniform flips of the training half; each candidate "
        "as LabelCleaner's only final model (`model=`), defaults otherwise. "
        "Accuracy on the clean test half and the whole fit's time, mean ± sd.",
        "",
        "| data | rows (train) | "
        + " | ".join(f"acc {c}" for c in CANDIDATES)
        + " | "
        + " | ".join(f"fit s {c}" for c in CANDIDATES)
        + " |",
        "|" + "---|" * (2 + 2 * len(CANDIDATES)),
    ]
    for name in names:
        X, y = DATASETS[name]()
        y = np.asarray(y)
        acc, secs = defaultdict(list), defaultdict(list)
        for rep in range(args.reps):
            X_tr, X_te, y_tr, y_te = train_test_split(
                X, y, test_size=0.5, stratify=y, random_state=rep
            )
            y_noisy, _ = flip_labels(np.asarray(y_tr), args.noise, random_state=rep)
            for cand, make in CANDIDATES.items():
                with Timer() as t:
                    cleaner = LabelCleaner(model=make(rep), random_state=rep).fit(
                        X_tr, y_noisy
                    )
                secs[cand].append(t.seconds)
                acc[cand].append(float(np.mean(cleaner.predict(X_te) == y_te)))
        lines.append(
            f"| {name} | {len(y_tr):,} | "
            + " | ".join(mean_std(acc[c]) for c in CANDIDATES)
            + " | "
            + " | ".join(f"{np.mean(secs[c]):.1f}" for c in CANDIDATES)
            + " |"
        )
        print(lines[-1], flush=True)
        write_section("final-candidates", "\n".join([*lines, "", "(partial)"]))
    write_section("final-candidates", "\n".join(lines))


if __name__ == "__main__":
    main()
