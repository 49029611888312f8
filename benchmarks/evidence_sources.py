"""How well each source of evidence ranks the flipped labels, and what the
final model gives up to a plain model, on `real_data.py`'s tables.

The calibrated decisions read one ranking: the mean of the confidence
stage's soft label and the model stage's out-of-fold probability of each
row's label (`review.evidence_against`). Both parts learn from the soft
labels of the neighbours, as the papers have it (CB-AdaBoost's γ), so where
the neighbours cannot read the label the whole evidence cannot either. This
script measures, per table and cell, the AUROC of each ranking for the
flipped rows, on the same fit:

* ``evidence``: labelclean's, as the decisions read it;
* ``neighbours`` and ``model``: its two parts alone (1 − the audit's
  ``confidence``; 1 − its ``model_probability``);
* ``trees, observed``: CB-AdaBoost with depth-3 binned trees fitted, out of
  fold (5 stratified folds), on the observed labels themselves (γ = 1, i.e.
  SAMME AdaBoost) on the fit's own encoded features (``feature_encoder_``,
  missing values imputed as it gives them),
  and ``neighbours + trees``: the mean of that and the neighbours' soft
  label, what the evidence would be if the model stage learnt the observed
  labels;
* ``cleanlab HGB``: 1 − the out-of-fold probability of the label from
  histogram gradient boosting on the peers' preprocessing (`real_data.py`),
  as cleanlab ranks the rows.

and the clean-test accuracy of labelclean's final model (``model_``) beside
gradient boosting's, fitted on the noisy labels as they are and on the rows
labelclean kept with their cleaned labels, and CB-AdaBoost with depth-3
trees on the noisy labels (γ = 1): which part of a gap is the learner and
which the cleaning.

It measures; no decision reads these rankings. The own labels are not
measured (no flips, no AUROC), and a better ranking does not say how many
rows to flag.

    python benchmarks/evidence_sources.py --data flights --reps 3
    python benchmarks/evidence_sources.py --noise u20 cc20 --reps 2
"""

import argparse
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from benchmarks.real_data import (
    DATASETS,
    _as_object,
    _m,
    make_cleaner,
    parse_cell,
    preprocessor,
    ranking_auc,
    split_and_flip,
)
from labelclean.ensemble import BinnedTreeClassifier, CBAdaBoostClassifier
from labelclean.review import evidence_against

SOURCES = (
    "evidence",
    "neighbours",
    "model",
    "trees, observed",
    "neighbours + trees",
    "cleanlab HGB",
)
MODELS = ("labelclean", "HGB noisy", "HGB on kept rows", "trees noisy")


def _trees(seed):
    return CBAdaBoostClassifier(BinnedTreeClassifier(max_depth=3), random_state=seed)


def _trees_out_of_fold(Z, codes, n_classes, seed):
    """Depth-3 CB-AdaBoost on the observed labels (γ = 1), out of fold."""
    proba = np.zeros((codes.shape[0], n_classes))
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    for train, held in folds.split(Z, codes):
        model = _trees(seed).fit(Z[train], codes[train], gamma=np.ones(train.size))
        proba[np.ix_(held, model.classes_)] = model.predict_proba(Z[held])
    return proba


def measure(X, y, cell, rep) -> dict:
    """One repetition of ``cell``: each ranking's AUROC and each model's
    clean-test accuracy."""
    kind, rate = parse_cell(cell)
    X_tr, X_te, _, y_te, y_noisy, flipped = split_and_flip(X, y, kind, rate, rep)
    y_te = np.asarray(y_te)
    n_classes = np.unique(y_noisy).shape[0]
    cleaner = make_cleaner("pipeline:shipped", rep, n_classes).fit(X_tr, y_noisy)
    audit = cleaner.audit_
    classes = cleaner.classes_
    codes = np.searchsorted(classes, y_noisy)
    rows = np.arange(codes.shape[0])
    Z = np.asarray(cleaner.feature_encoder_.transform(X_tr), dtype=np.float64)
    trees = _trees_out_of_fold(Z, codes, classes.shape[0], rep)
    neighbours = audit["confidence"].to_numpy(dtype=float)
    Xo_tr, Xo_te = _as_object(X_tr), _as_object(X_te)

    def hgb():
        return make_pipeline(
            preprocessor(), HistGradientBoostingClassifier(random_state=rep)
        )

    hgb_proba = cross_val_predict(hgb(), Xo_tr, codes, cv=5, method="predict_proba")
    rankings = {
        "evidence": evidence_against(audit),
        "neighbours": 1 - neighbours,
        "model": 1 - audit["model_probability"].to_numpy(dtype=float),
        "trees, observed": 1 - trees[rows, codes],
        "neighbours + trees": 1 - (neighbours + trees[rows, codes]) / 2,
        "cleanlab HGB": 1 - hgb_proba[rows, codes],
    }
    out = {name: ranking_auc(flipped, score) for name, score in rankings.items()}
    kept = (audit["decision"] != "discarded").to_numpy()
    cleaned = audit["cleaned_label"].to_numpy()
    Z_te = np.asarray(cleaner.feature_encoder_.transform(X_te), dtype=np.float64)
    noisy_trees = _trees(rep).fit(Z, codes, gamma=np.ones(codes.shape[0]))
    accuracy = {
        "labelclean": cleaner.predict(X_te),
        "HGB noisy": hgb().fit(Xo_tr, y_noisy).predict(Xo_te),
        "HGB on kept rows": hgb().fit(Xo_tr[kept], cleaned[kept]).predict(Xo_te),
        "trees noisy": classes[noisy_trees.predict(Z_te)],
    }
    out.update({name: float(np.mean(p == y_te)) for name, p in accuracy.items()})
    out["flagged"] = float((audit["decision"] != "kept").mean())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", nargs="+", choices=list(DATASETS))
    parser.add_argument("--noise", nargs="+", default=["u20", "cc20"])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--section", default="evidence-sources")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    names = args.data or [
        "iris", "wine", "penguins", "cars", "mpg", "seattle_weather", "anes96",
        "flights",
    ]  # fmt: skip
    rows = []
    for name in names:
        X, y = DATASETS[name]()
        for cell in args.noise:
            results = defaultdict(list)
            for rep in range(args.reps):
                for key, value in measure(X, y, cell, rep).items():
                    results[key].append(value)
            line = [name, cell, *(_m(results[s]) for s in SOURCES)]
            line += [_m(results[m]) for m in MODELS] + [_m(results["flagged"])]
            rows.append(line)
            print(" | ".join(line), flush=True)
    lines = [
        *section_head("Sources of evidence: how each ranks the flips "
                      "(evidence_sources.py)"),
        f"{args.reps} repetitions (`real_data.py`'s splits and flips, seeds 0–"
        f"{args.reps - 1}); labelclean as `labelclean run` runs it (the shipped "
        "pipeline). AUROC of each ranking for the flipped training rows (the "
        "module docstring defines them), then clean-test accuracy of labelclean's "
        "final model, of histogram gradient boosting on the noisy labels and on "
        "the rows labelclean kept (cleaned labels), and of depth-3 CB-AdaBoost "
        "on the noisy labels (γ = 1); share of rows labelclean flags. Mean ± sd.",
        "",
        "| data | noise | " + " | ".join(f"AUROC {s}" for s in SOURCES)
        + " | " + " | ".join(f"acc {m}" for m in MODELS) + " | flagged |",
        "|" + "---|" * (3 + len(SOURCES) + len(MODELS)),
        *("| " + " | ".join(line) + " |" for line in rows),
    ]  # fmt: skip
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
