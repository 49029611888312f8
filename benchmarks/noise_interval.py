"""Does the reported share of wrong labels hold the share that was flipped?

``LabelCleaner.calibration_`` reports ``noise_rate`` with an interval
(``noise_rate_interval``), and the report opens with both ("Estimated share
of wrong labels: ... (about ...)"). This script measures them on the tables
and flips of ``real_data.py`` (the same splits, flips and seeds): per cell,
the mean estimate against the share of the training labels flipped, and how
often the interval holds that share; and each observed class's estimate
(``noise_rate_per_class``, reported without an interval) against the share
of that class's labels flipped.

The tables' own labels carry whatever noise they came with, unknown here:
in the clean cells (0 %) the script counts the intervals that reach 0 (the
data admit that no label is wrong) instead of a coverage. With flips, the
flipped share is a floor of the true noise for the same reason; a table
whose own labels hold a few per cent of wrong labels makes an interval that
sits just above the flipped share right, and counts it a miss here.

The final model does not enter the estimates, so each fit trains the
cheapest one (``final_model='cb_adaboost'``).

    python benchmarks/noise_interval.py                      # 8 tables, 5 reps
    python benchmarks/noise_interval.py --data iris --reps 2 --noise u0 u20
"""

import argparse
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import mean_std, section_head, write_section
from benchmarks.real_data import DATASETS, parse_cell, split_and_flip
from labelclean.pipeline import LabelCleaner

#: The tables of ``real_data.py`` small enough for five repetitions here.
TABLES = [name for name in DATASETS if name not in ("diamonds", "make_classification")]
CELLS = ["u0", "u10", "u20", "u30", "cc10", "cc20", "cc30"]


def measure(name: str, cell: str, rep: int, X, y) -> dict:
    """One fit: the flipped share, the estimate and its interval."""
    kind, rate = parse_cell(cell)
    X_tr, _, _, _, y_noisy, flipped = split_and_flip(X, y, kind, rate, rep)
    cleaner = LabelCleaner(random_state=rep, final_model="cb_adaboost", n_jobs=-1)
    calibration = cleaner.fit(X_tr, y_noisy).calibration_
    low, high = calibration["noise_rate_interval"]
    per_class = [  # the flipped share of each observed class, its estimate
        (float(np.mean(flipped[y_noisy == label])), float(estimate), *interval)
        for label, estimate, interval in zip(
            calibration["classes"],
            calibration["noise_rate_per_class"],
            calibration["noise_rate_per_class_interval"],
            strict=True,
        )
    ]
    pred = calibration["predictability"]
    reading = "cautious" if pred["low"] else "predictable"
    return {
        "flipped": float(np.mean(flipped)),
        "estimate": float(calibration["noise_rate"]),
        "low": float(low),
        "high": float(high),
        "reading": reading,
        "class_error": float(np.mean([abs(c[0] - c[1]) for c in per_class])),
        "classes": per_class,
    }


def summarise(name: str, cell: str, fits: list[dict]) -> tuple[str, list[bool]]:
    """A table row for one cell, and whether each fit's interval held."""
    flipped = np.array([f["flipped"] for f in fits])
    estimate = np.array([f["estimate"] for f in fits])
    low = np.array([f["low"] for f in fits])
    high = np.array([f["high"] for f in fits])
    cautious = sum(f["reading"] == "cautious" for f in fits)
    if parse_cell(cell)[1] == 0:
        held, verdict = [], f"{int(np.sum(low < 5e-4))} of {len(fits)} reach 0"
    else:
        held = list((low - 1e-9 <= flipped) & (flipped <= high + 1e-9))
        below = int(np.sum(high < flipped - 1e-9))
        verdict = f"{sum(held)} of {len(fits)} (below: {below})"
    classes = np.array([c for f in fits for c in f["classes"]])
    if parse_cell(cell)[1] == 0:
        by_class = f"{int(np.sum(classes[:, 2] < 5e-4))} of {len(classes)} reach 0"
    else:
        inside = (classes[:, 2] - 1e-9 <= classes[:, 0]) & (
            classes[:, 0] <= classes[:, 3] + 1e-9
        )
        by_class = (
            f"{int(inside.sum())} of {len(classes)} "
            f"(below: {int(np.sum(classes[:, 3] < classes[:, 0] - 1e-9))})"
        )
    row = (
        f"| {name} | {cell} | {flipped.mean():.3f} | {mean_std(estimate)} | "
        f"{mean_std(high - low)} | {verdict} | "
        f"{mean_std([f['class_error'] for f in fits])} | {by_class} | "
        f"{mean_std(classes[:, 3] - classes[:, 2])} | {cautious} of {len(fits)} |"
    )
    return row, held


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", nargs="+", choices=TABLES, default=TABLES)
    parser.add_argument("--noise", nargs="+", default=CELLS)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--section", default="noise-interval")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    lines = [
        *section_head("The reported share of wrong labels (noise_interval.py)"),
        f"{args.reps} repetitions (split and flip seeds 0–{args.reps - 1}) of "
        "`real_data.py`'s cells; `LabelCleaner(final_model='cb_adaboost')` on the "
        "training half. flipped: share of the training labels flipped; estimate: "
        "`calibration_['noise_rate']`; width: of `noise_rate_interval`; held: fits "
        "whose interval holds the flipped share (below: the interval's top under "
        "it); at 0 %, the intervals that reach 0 instead; class error: mean "
        "over the observed classes of |estimated − flipped share of the class's "
        "labels| (`noise_rate_per_class`); class held: observed classes (of "
        "every fit) whose interval (`noise_rate_per_class_interval`) holds the "
        "class's flipped share, or reaches 0 at 0 %; class width: of those "
        "intervals; cautious: fits read "
        "in the cautious reading (the features predict the label poorly). "
        "Mean ± sd.",
        "",
        "| data | cell | flipped | estimate | width | held | class error | "
        "class held | class width | cautious |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    by_reading, by_class = defaultdict(list), defaultdict(list)
    for name in args.data:
        X, y = DATASETS[name]()
        y = np.asarray(y)
        for cell in args.noise:
            fits = [measure(name, cell, rep, X, y) for rep in range(args.reps)]
            row, held = summarise(name, cell, fits)
            lines.append(row)
            print(row, flush=True)
            for fit, ok in zip(fits, held, strict=False):
                by_reading[fit["reading"]].append(ok)
                by_class[fit["reading"]] += [
                    low - 1e-9 <= flipped <= high + 1e-9
                    for flipped, _, low, high in fit["classes"]
                ]
    lines.append("")
    for reading, held in sorted(by_reading.items()):
        lines.append(
            f"- {reading} reading, fits with flips: the interval holds the flipped "
            f"share in {sum(held)} of {len(held)}."
        )
    for reading, held in sorted(by_class.items()):
        lines.append(
            f"- {reading} reading, classes of fits with flips: the class's interval "
            f"holds its flipped share in {sum(held)} of {len(held)}."
        )
    everything = [ok for held in by_reading.values() for ok in held]
    lines.append(
        f"- all fits with flips: {sum(everything)} of {len(everything)} "
        f"({np.mean(everything):.0%})."
    )
    body = "\n".join(lines)
    print(body)
    write_section(args.section, body)


if __name__ == "__main__":
    main()
