"""Clean labels of classes that overlap everywhere: how much does a fit flag?

Each table has one informative feature and one of pure noise. The classes
are normal along the first, one standard deviation wide, their means
``--separations`` standard deviations apart on a line; no label is flipped.
With two classes each has a region where it is nearly alone (the anchor
points the noise estimate leans on). With three or four, the middle
classes have none: at best a middle row is its class's with a probability
of 0.79 (three classes two deviations apart), so a fifth of the labels of
the rows most surely of a middle class are other classes', rightly. Every
flag discards a right label.

With ``--noise`` a share of the labels is flipped uniformly
(``labelclean.noise.flip_labels``, seeded) before the fit, to see what the
same decisions do where some labels are wrong.

Per cell (rows, classes, separation; ``--seeds`` seeds; one table per
seed, ``LabelCleaner(random_state=seed)``): the fits that flag any row, the
mean and the largest share of rows flagged, the largest share of a class,
the fits whose noise interval reaches 0 (the data admit that no label is
wrong) and those whose report carries the caution ``doubtful_flags``;
Cohen's κ the calibration reads; and cleanlab's ``find_label_issues`` on
5-fold logistic-regression probabilities of the same rows (share flagged),
in the same run; the corrections and how many of them restore the true
label (with no flips every correction relabels a right label); with
``--noise``, the flags' F1 against the flipped rows.

    python benchmarks/clean_overlap.py [--seeds 5] [--section clean-overlap]
    python benchmarks/clean_overlap.py --classes 2 --rows 600 2000 \
        --separations 1.5 2 2.5 3 --seeds 3 --noise 0.1 --section NAME
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.pipeline import make_pipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from benchmarks.real_data import cleanlab_flags, peer_models, preprocessor
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner


def table(n_rows: int, n_classes: int, separation: float, seed: int):
    """The features and the (right) labels of one table."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)
    X = pd.DataFrame(
        {"signal": rng.normal(size=n_rows) + separation * y,
         "noise": rng.normal(size=n_rows)}
    )  # fmt: skip
    return X, np.array([f"c{k}" for k in y])


def one_fit(X, y, seed: int, noise: float = 0.0) -> dict:
    """labelclean's and cleanlab's reading of one table, its labels ``y``
    flipped uniformly at the share ``noise`` first."""
    observed, flipped = y, np.zeros(len(y), bool)
    if noise:
        observed, flipped = flip_labels(y, noise, random_state=seed)
    cleaner = LabelCleaner(random_state=seed).fit(X, observed)
    cal = cleaner.calibration_
    flagged = cleaner.decisions_ != "kept"
    corrected = cleaner.decisions_ == "corrected"
    cleaned = np.asarray(cleaner.audit_["cleaned_label"])
    codes = pd.Series(observed).astype("category").cat.codes.to_numpy()
    lr = dict(peer_models(seed))["lr"]
    _, issues = cleanlab_flags(
        lambda: make_pipeline(preprocessor(), lr()), X, observed, codes
    )
    hits = int((flagged & flipped).sum())
    return {
        "f1": 2 * hits / max(int(flagged.sum()) + int(flipped.sum()), 1),
        "corrected": int(corrected.sum()),
        "right": int((cleaned[corrected] == np.asarray(y)[corrected]).sum()),
        "estimated": cal["correction_precision"] if corrected.any() else None,
        "share": float(flagged.mean()),
        "class": max(float(flagged[y == c].mean()) for c in np.unique(y)),
        "reaches_zero": cal["noise_rate_interval"][0] <= 0.0,
        "doubtful": any(
            c["code"] == "doubtful_flags" for c in cleaner.report()["cautions"]
        ),
        "kappa": float(cal["predictability"]["kappa"]),
        "cleanlab": float(np.mean(issues)),
    }


def _mean_of_some(values) -> str:
    """The mean of the values that are not None, or a dash."""
    known = [v for v in values if v is not None]
    return f"{np.mean(known):.3f}" if known else "–"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--rows", type=int, nargs="+", default=[300, 1000, 3000])
    parser.add_argument("--classes", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--separations", type=float, nargs="+", default=[1.5, 2.0, 3.0])
    parser.add_argument("--noise", type=float, default=0.0, help="share flipped")
    parser.add_argument("--section", default="clean-overlap")
    args = parser.parse_args()
    noisy = args.noise > 0
    warnings.simplefilter("ignore")
    lines = [
        *section_head(
            f"Classes that overlap everywhere, {args.noise:.0%} of their labels flipped"
            if noisy
            else "Clean labels of classes that overlap everywhere"
        ),
        "One normal feature per class mean on a line (one standard deviation "
        "wide, the means the separation apart) and one of noise; "
        + (
            f"{args.noise:.0%} of the labels flipped uniformly"
            if noisy
            else "no label flipped"
        )
        + f"; {args.seeds} seeds per cell, `LabelCleaner(random_state=seed)`. "
        + ("" if noisy else "Every flag discards a right label. ")
        + "Columns: fits flagging any row; "
        "mean and largest share of rows flagged; largest share of a class "
        "(mean over fits); fits whose noise interval reaches 0; fits whose "
        "report says `doubtful_flags`; mean κ; cleanlab's share flagged "
        "(logistic regression, 5 folds; mean); corrections over the fits, and "
        "how many restore the true label, and the precision labelclean "
        "estimated for them (mean over the fits that correct); flag F1 against "
        "the flips (mean).",
        "",
        "| rows | classes | separation | fits flagging | share flagged: mean "
        "/ largest | class share | interval reaches 0 | `doubtful_flags` "
        "| κ | cleanlab+LR flagged | corrections (right) | estimated "
        "correction precision | flag F1 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n_classes in args.classes:
        for sep in args.separations:
            for n_rows in args.rows:
                fits = [
                    one_fit(*table(n_rows, n_classes, sep, seed), seed, args.noise)
                    for seed in range(args.seeds)
                ]
                share = np.array([f["share"] for f in fits])
                lines.append(
                    f"| {n_rows} | {n_classes} | {sep:g} | "
                    f"{int((share > 0).sum())} of {len(fits)} | "
                    f"{share.mean():.3f} / {share.max():.3f} | "
                    f"{np.mean([f['class'] for f in fits]):.3f} | "
                    f"{sum(f['reaches_zero'] for f in fits)} | "
                    f"{sum(f['doubtful'] for f in fits)} | "
                    f"{np.mean([f['kappa'] for f in fits]):.2f} | "
                    f"{np.mean([f['cleanlab'] for f in fits]):.3f} | "
                    f"{sum(f['corrected'] for f in fits)} "
                    f"({sum(f['right'] for f in fits)}) | "
                    f"{_mean_of_some([f['estimated'] for f in fits])} | "
                    + (f"{np.mean([f['f1'] for f in fits]):.3f} |" if noisy else "– |")
                )
                print(lines[-1], flush=True)
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
