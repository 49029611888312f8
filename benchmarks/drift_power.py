"""How often ``labelclean drift`` speaks, on batches whose labels are known.

For each table of ``real_data.py`` (none of which chose a default), per
repetition: a random half of the rows is the training batch, fitted with
``LabelCleaner()`` on its own labels; the other half is cut into two new
batches, each decided by the fitted cleaner (``audit``, as ``labelclean
apply`` does) with

* ``same``: its own labels (the training distribution: an alert is a false
  alarm);
* ``u20``: 20 % of its labels flipped uniformly;
* ``cc20``: 20 % of each class's labels moved to the next class, a kind of
  wrong label the training labels need not have.

Each batch's report (``build_report``) is compared with the training
report's (``compare``, default limits: 5 points and 3 standard errors), and
the batch counts as alerted by a measure when any class drifts on it: the
mean noise probability, the share of rows the model assigns to another
class (``disagreement``), or either (what ``labelclean drift`` exits 7 on).

    pip install -e ".[peers]" palmerpenguins vega_datasets plotnine statsmodels
    python benchmarks/drift_power.py              # section drift-power
    python benchmarks/drift_power.py --data iris wine --reps 1
"""

import argparse
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from benchmarks.real_data import DATASETS, class_conditional
from labelclean.drift import compare
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.report import build_report

TABLES = ("iris", "wine", "penguins", "cars", "mpg", "seattle_weather_fixed",
          "anes96", "tictactoe")  # fmt: skip
KINDS = ("same", "u20", "cc20")
MEASURES = ("noise_probability", "disagreement")
TITLE = "How often drift speaks on batches of known labels (drift_power.py)"


def batch_labels(y, kind: str, seed: int):
    """A batch's labels: its own, or with 20 % of them flipped."""
    if kind == "same":
        return y
    if kind == "u20":
        return flip_labels(y, 0.2, random_state=seed)[0]
    return class_conditional(y, 0.2, seed)[0]


def alerted(train_report, batch_report) -> set[str]:
    """The measures on which some class of the batch drifted."""
    drift = compare([train_report, batch_report])
    return {alert["measure"] for alert in drift["alerts"]}


def run_table(name: str, reps: int, out: dict) -> None:
    X, y = DATASETS[name]()
    y = np.asarray(y).astype(str)
    for rep in range(reps):
        order = np.random.RandomState(rep).permutation(y.shape[0])
        train, *batches = np.array_split(order, [y.shape[0] // 2, 3 * y.shape[0] // 4])
        cleaner = LabelCleaner(random_state=rep, n_jobs=-1)
        cleaner.fit(X.iloc[train].reset_index(drop=True), y[train])
        train_report = build_report(cleaner.audit_)
        for b, rows in enumerate(batches):
            Xb = X.iloc[rows].reset_index(drop=True)
            for kind in KINDS:
                yb = batch_labels(y[rows], kind, 100 * rep + b)
                said = alerted(train_report, build_report(cleaner.audit(Xb, yb)))
                for measure in MEASURES:
                    out[(name, kind, measure)].append(measure in said)
                out[(name, kind, "either")].append(bool(said))
                out[(name, kind, "rows")].append(len(rows))
        print(name, rep, "done", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", nargs="+", choices=TABLES, default=list(TABLES))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--section", default="drift-power")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    out: dict = defaultdict(list)
    head = [
        *section_head(TITLE),
        f"{args.reps} repetitions: half the rows fitted on their own labels, the "
        "other half cut into two batches decided by the fitted cleaner with their "
        "own labels (same), 20 % flipped uniformly (u20) or 20 % of each class "
        "moved to the next (cc20). Share of batches on which some class drifted "
        "(default limits), by the mean noise probability, by the share of rows "
        "the model assigns to another class, and by either (what `labelclean "
        "drift` exits 7 on). Under same, an alert is a false alarm.",
        "",
        "| data | batch rows | same: noise / model / either | u20: noise / model / "
        "either | cc20: noise / model / either |",
        "|---|---|---|---|---|",
    ]
    lines = list(head)

    def cell(keys) -> str:
        return " / ".join(
            f"{sum(out[k])} of {len(out[k])}" if k[2] == "either" else f"{sum(out[k])}"
            for k in keys
        )

    for name in args.data:
        run_table(name, args.reps, out)
        rows = int(np.mean(out[(name, "same", "rows")]))
        cells = [
            cell([(name, kind, m) for m in (*MEASURES, "either")]) for kind in KINDS
        ]
        lines.append(f"| {name} | {rows} | " + " | ".join(cells) + " |")
        write_section(args.section, "\n".join([*lines, "", "(partial)"]))
    totals = []
    for kind in KINDS:
        parts = []
        for measure in (*MEASURES, "either"):
            hits = [v for n in args.data for v in out[(n, kind, measure)]]
            parts.append(f"{sum(hits)}")
        count = sum(len(out[(n, kind, "either")]) for n in args.data)
        totals.append(" / ".join(parts) + f" of {count}")
    lines.append("| all | – | " + " | ".join(totals) + " |")
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
