"""labelclean against the tools users would pick instead, on the same splits.

For scikit-learn's bundled breast_cancer, wine (class 0 against the rest) and
digits data, each split half train / half test (stratified, seeded), with
0/10/20/30 % of the *training* labels flipped uniformly, this script runs in
one process:

* labelclean: ``LabelCleaner`` with its defaults (KNN confidence, SPLBoost
  suspects, final model ``'auto'``: RoSR-L, or for two classes CB-AdaBoost
  when it is clearly better out of fold); flagged rows =
  corrected ∪ discarded; its final model predicts the test set;
* cleanlab ``find_label_issues`` on 5-fold cross-validated probabilities of
  LogisticRegression and of HistGradientBoostingClassifier, and
  ``CleanLearning`` with each as the final model;
* imbalanced-learn's ``EditedNearestNeighbours(sampling_strategy='all')``
  (removed rows are its flags; LogisticRegression on what it keeps);
* plain AdaBoost (stumps, 200 rounds) and LogisticRegression on noisy labels.

Reported: precision, recall and F1 of the flagged rows against the flipped
rows; the precision of labelclean's corrections (new label = true label); and
the accuracy on the clean test labels. Mean ± sd over repetitions.

    pip install -e ".[peers]"
    python benchmarks/peers.py            # 10 repetitions
    python benchmarks/peers.py --quick    # 2 repetitions, breast_cancer only
    python benchmarks/peers.py --data digits   # one dataset, section peers-digits
    python benchmarks/peers.py --data digits --methods labelclean --section S
        # labelclean alone (e.g. before and after a change; the peers'
        # numbers do not depend on it), written to section S
"""

import argparse
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.ensemble import AdaBoostClassifier, HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, precision_score, recall_score
from sklearn.model_selection import cross_val_predict, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import (
    Timer,
    at_least,
    mean_std,
    section_head,
    write_section,
)
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner


def wine_binary():
    X, y = load_wine(return_X_y=True)
    return X, (y == 0).astype(int)


DATASETS = {
    "breast_cancer": lambda: load_breast_cancer(return_X_y=True),
    "wine (0 vs rest)": wine_binary,
    "digits": lambda: load_digits(return_X_y=True),
}


def logreg():
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))


def hgb(seed):
    return HistGradientBoostingClassifier(random_state=seed)


def flag_scores(flipped, flagged):
    return (
        precision_score(flipped, flagged, zero_division=0),
        recall_score(flipped, flagged, zero_division=0),
        f1_score(flipped, flagged, zero_division=0),
    )


#: The methods ``--methods`` can choose, in the order they run.
METHODS = ("labelclean", "cleanlab", "enn", "plain")


def run_methods(
    methods, X_tr, y_tr_noisy, y_tr, flipped, X_te, y_te, seed, results, timings
):
    """The ``methods`` (names of :data:`METHODS`) on one split."""
    if "labelclean" in methods:
        run_labelclean(
            X_tr, y_tr_noisy, y_tr, flipped, X_te, y_te, seed, results, timings
        )
    if "cleanlab" in methods:
        run_cleanlab(X_tr, y_tr_noisy, flipped, X_te, y_te, seed, results, timings)
    if "enn" in methods:
        run_enn(X_tr, y_tr_noisy, y_tr, flipped, X_te, y_te, results)
    if "plain" in methods:
        run_plain(X_tr, y_tr_noisy, X_te, y_te, seed, results)


def run_labelclean(X_tr, y_tr_noisy, y_tr, flipped, X_te, y_te, seed, results, timings):
    with Timer() as t:
        cleaner = LabelCleaner(random_state=seed).fit(X_tr, y_tr_noisy)
    timings["labelclean"].append(t.seconds)
    flagged = cleaner.decisions_ != "kept"
    corrected = cleaner.decisions_ == "corrected"
    new = cleaner.audit_["cleaned_label"].to_numpy()[corrected]
    results["labelclean"]["flags"].append(flag_scores(flipped, flagged))
    results["labelclean"]["acc"].append((cleaner.predict(X_te) == y_te).mean())
    results["labelclean"]["flag_share"].append(flagged.mean())
    right = int((new == y_tr[corrected]).sum())
    results["labelclean"]["corrections"].append((right, int(corrected.sum())))
    if corrected.any():
        results["labelclean"]["corr_prec"].append(right / corrected.sum())


def run_cleanlab(X_tr, y_tr_noisy, flipped, X_te, y_te, seed, results, timings):
    """cleanlab's flags and CleanLearning, with LogisticRegression and HGB."""
    from cleanlab.classification import CleanLearning
    from cleanlab.filter import find_label_issues

    for name, make in (("cleanlab+LR", logreg), ("cleanlab+HGB", lambda: hgb(seed))):
        with Timer() as t:
            probs = cross_val_predict(
                make(), X_tr, y_tr_noisy, cv=5, method="predict_proba"
            )
            issues = find_label_issues(y_tr_noisy, probs)
            cl = CleanLearning(make(), seed=seed).fit(X_tr, y_tr_noisy)
        timings[name].append(t.seconds)
        results[name]["flags"].append(flag_scores(flipped, issues))
        results[name]["acc"].append((cl.predict(X_te) == y_te).mean())
        results[name]["flag_share"].append(issues.mean())


def run_enn(X_tr, y_tr_noisy, y_tr, flipped, X_te, y_te, results):
    """imbalanced-learn's EditedNearestNeighbours, LogisticRegression on the rest."""
    from imblearn.under_sampling import EditedNearestNeighbours

    enn = EditedNearestNeighbours(sampling_strategy="all")
    X_enn, y_enn = enn.fit_resample(StandardScaler().fit_transform(X_tr), y_tr_noisy)
    removed = np.ones(len(y_tr), bool)
    removed[enn.sample_indices_] = False
    results["ENN"]["flags"].append(flag_scores(flipped, removed))
    scaler = StandardScaler().fit(X_tr)
    lr = LogisticRegression(max_iter=2000).fit(X_enn, y_enn)
    results["ENN"]["acc"].append((lr.predict(scaler.transform(X_te)) == y_te).mean())
    results["ENN"]["flag_share"].append(removed.mean())


def run_plain(X_tr, y_tr_noisy, X_te, y_te, seed, results):
    """AdaBoost (stumps) and LogisticRegression on the noisy labels."""
    ada = AdaBoostClassifier(
        DecisionTreeClassifier(max_depth=1), n_estimators=200, random_state=seed
    ).fit(X_tr, y_tr_noisy)
    results["AdaBoost"]["acc"].append((ada.predict(X_te) == y_te).mean())
    results["LogisticRegression"]["acc"].append(
        (logreg().fit(X_tr, y_tr_noisy).predict(X_te) == y_te).mean()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="labelclean against peers.")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument(
        "--data",
        choices=["breast_cancer", "wine", "digits"],
        help="One dataset only (its own section), e.g. to run datasets in parallel.",
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        choices=METHODS,
        default=list(METHODS),
        help="Run these methods only (default: all); the verdicts need "
        "labelclean and cleanlab.",
    )
    parser.add_argument("--section", help="Section of RESULTS.md to write.")
    args = parser.parse_args()
    reps = 2 if args.quick else args.reps
    datasets = ["breast_cancer"] if args.quick else list(DATASETS)
    if args.data:
        datasets = [d for d in DATASETS if d.startswith(args.data)]
    warnings.simplefilter("ignore")
    lines = [
        *section_head(
            "labelclean against peers (cleanlab, imbalanced-learn, plain models)"
        ),
        f"{reps} repetitions; half train / half test (stratified); uniform flips of "
        "the training labels; test labels clean. Flag P/R/F1: flagged rows "
        "(labelclean: corrected ∪ discarded; cleanlab: find_label_issues on 5-fold "
        "CV probabilities; ENN: removed rows) against the flipped rows. Corr. prec.: "
        "share of labelclean's corrections that restore the true label (mean over "
        "repetitions with corrections; in brackets, right of made over all "
        "repetitions). Accuracy: "
        "each method's final model on the clean test half (labelclean: its final "
        "model; cleanlab: CleanLearning; ENN: LogisticRegression on what it keeps). "
        "Mean ± sd over repetitions.",
        "",
        "| data | noise | method | flag precision | flag recall | flag F1 "
        "| flagged share | corr. prec. | test accuracy |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    verdicts = []
    timings = defaultdict(list)
    section = args.section or "peers" + (f"-{args.data}" if args.data else "")
    judged = {"labelclean", "cleanlab"} <= set(args.methods)
    for data_name in datasets:
        X, y = DATASETS[data_name]()
        for noise in (0.0, 0.1, 0.2, 0.3):
            results = defaultdict(lambda: defaultdict(list))
            for rep in range(reps):
                X_tr, X_te, y_tr, y_te = train_test_split(
                    X, y, test_size=0.5, stratify=y, random_state=rep
                )
                if noise > 0:
                    y_noisy, flipped = flip_labels(
                        np.asarray(y_tr), noise, random_state=rep
                    )
                else:
                    y_noisy, flipped = y_tr.copy(), np.zeros(len(y_tr), bool)
                run_methods(
                    args.methods,
                    *(X_tr, y_noisy, y_tr, flipped, X_te, y_te, rep, results, timings),
                )
            for method, res in results.items():
                flags = np.array(res["flags"]) if res["flags"] else None
                cells = ["–", "–", "–"]
                if flags is not None and noise > 0:
                    cells = [mean_std(flags[:, i]) for i in range(3)]
                share = mean_std(res["flag_share"]) if res["flag_share"] else "–"
                corr = mean_std(res["corr_prec"]) if res["corr_prec"] else "–"
                if res["corrections"]:
                    right, made = np.sum(res["corrections"], axis=0)
                    corr += f" ({right}/{made})"
                lines.append(
                    f"| {data_name} | {noise:.0%} | {method} | "
                    + " | ".join(cells)
                    + f" | {share} | {corr} | {mean_std(res['acc'])} |"
                )
            if judged and noise > 0 and data_name != "wine (0 vs rest)":
                ours_f1 = np.mean(np.array(results["labelclean"]["flags"])[:, 2])
                best_f1 = max(
                    np.mean(np.array(results[m]["flags"])[:, 2])
                    for m in ("cleanlab+LR", "cleanlab+HGB")
                )
                ours_acc = np.mean(results["labelclean"]["acc"])
                best_acc = max(
                    np.mean(results[m]["acc"]) for m in ("cleanlab+LR", "cleanlab+HGB")
                )
                f1_ok = "yes" if at_least(ours_f1, best_f1) else "no"
                acc_ok = "yes" if at_least(ours_acc, best_acc) else "no"
                verdicts.append(
                    f"| {data_name} | {noise:.0%} | {ours_f1:.3f} vs {best_f1:.3f} "
                    f"| {f1_ok} | {ours_acc:.3f} vs {best_acc:.3f} | {acc_ok} |"
                )
            print(data_name, noise, "done", flush=True)
            partial = [*lines, "", f"(partial: written after {data_name} {noise:.0%})"]
            write_section(section, "\n".join(partial))
    if verdicts:  # none for wine alone: it takes no part in the verdicts
        lines += [
            "",
            "Against the better cleanlab variant, per cell (flag F1 and test "
            "accuracy):",
            "",
            "| data | noise | F1 labelclean vs best cleanlab | ≥ | accuracy "
            "labelclean vs best CleanLearning | ≥ |",
            "|---|---|---|---|---|---|",
            *verdicts,
        ]
    lines += [
        "",
        "Mean fit time per training half (s): "
        + ", ".join(f"{k} {np.mean(v):.1f}" for k, v in timings.items())
        + ".",
    ]
    write_section(section, "\n".join(lines))


if __name__ == "__main__":
    main()
