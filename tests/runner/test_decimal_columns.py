"""Exact numbers, calendar dates and times of day as databases write them
(decimal128, date32, time64): used as numbers, dates and durations since
midnight, judged as such by the validation, and written back with the input's
types by every command that copies them."""

import datetime
import decimal
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from runner_utils import cli, review_keeping_labels

from labelclean.io import ParquetBatchWriter, read_parquet, schema_field_types

PRICE = pa.decimal128(12, 4)
CLOCK = pa.time64("us")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    # The first row groups hold small amounts, the last ones large: pyarrow
    # infers a decimal's precision from the values it sees first, so a
    # stream whose first batch held only small amounts could not write the
    # later ones (it stopped the run after the fit).
    rng = np.random.default_rng(0)
    n = 600
    x = rng.normal(size=n)
    label = np.where(x + rng.normal(scale=0.5, size=n) > 0, "a", "b")
    amounts = np.r_[rng.uniform(1, 9, n // 2), rng.uniform(1_000, 99_999, n // 2)]
    price = pa.array([decimal.Decimal(f"{v:.2f}") for v in amounts], type=PRICE)
    start = np.datetime64("2020-01-01")
    day = pa.array(start + rng.integers(0, 900, n).astype("timedelta64[D]"),
                   type=pa.date32())  # fmt: skip
    seconds = rng.integers(0, 86_400, n)
    at = pa.array([datetime.time(s // 3600, s // 60 % 60, s % 60) for s in seconds],
                  type=CLOCK)  # fmt: skip
    path = tmp_path_factory.mktemp("in") / "sales.parquet"
    frame = pa.table({"x": x, "price": price, "day": day, "at": at, "label": label})
    pq.write_table(frame, path, row_group_size=100)
    return path


TYPES = (PRICE, pa.date32(), CLOCK)


def _types(path):
    schema = pq.read_schema(path)
    return tuple(schema.field(name).type for name in ("price", "day", "at"))


def test_run_apply_and_score_keep_the_input_types(table, tmp_path):
    before = table.read_bytes()
    run = tmp_path / "run"
    result = cli("run", table, "-p", "binary-cbadaboost", "--label", "label",
                  "--out", run, "--batch-size", "100")  # fmt: skip
    # judged as a number and a date, as the fit uses them, not as text
    assert "free text" not in result.stderr and "levels" not in result.stderr
    assert "'day' holds timestamps" in result.stderr
    report = json.loads((run / "report.json").read_text())
    kinds = {f["name"]: f["kind"] for f in report["run"]["feature_handling"]}
    assert kinds == {"x": "numeric", "price": "numeric", "day": "temporal",
                     "at": "temporal"}  # fmt: skip
    for name in ("audit.parquet", "cleaned.parquet"):
        assert _types(run / name) == TYPES
    audit = read_parquet(run / "audit.parquet")
    source = read_parquet(table)
    assert audit["price"].tolist() == source["price"].tolist()
    assert audit["at"].tolist() == source["at"].tolist()

    applied = tmp_path / "apply"
    cli("apply", run / "model.skops", table, "--out", applied, "--batch-size", "100")
    for name in ("audit.parquet", "cleaned.parquet"):
        assert _types(applied / name) == TYPES

    scored = tmp_path / "scored.parquet"
    cli("score", table, "--label", "label", "--out", scored)
    assert _types(scored) == TYPES

    # the review round trip: exported rows and the reviewed run
    review = tmp_path / "review.parquet"
    cli("review", "export", run, "--out", review, "--max-rows", "20")
    assert _types(review) == TYPES
    reviewed = review_keeping_labels(run, review, tmp_path)
    for name in ("audit.parquet", "cleaned.parquet"):
        assert _types(reviewed / name) == TYPES
    assert table.read_bytes() == before


@pytest.mark.xdist_group("dask")
def test_apply_on_dask_keeps_the_input_types(table, tmp_path, dask_scheduler):
    run = tmp_path / "run"
    cli("run", table, "-p", "binary-cbadaboost", "--label", "label", "--out", run)
    out = tmp_path / "dask"
    cli("apply", run / "model.skops", table, "--out", out, "--engine", "dask",
         "--scheduler", dask_scheduler, "--jobs", "1")  # fmt: skip
    for part in sorted((out / "audit").glob("*.parquet")):
        assert _types(part) == TYPES


def test_the_batch_writer_takes_given_types_for_the_first_batch(tmp_path):
    small = {"p": [decimal.Decimal("1.5000")], "n": [1]}
    large = {"p": [decimal.Decimal("12345678.1234")], "n": [2]}
    path = tmp_path / "out.parquet"
    types = schema_field_types(pa.schema([("p", PRICE), ("n", pa.int32())]))
    assert types == {"p": PRICE, "n": pa.int32()}
    with ParquetBatchWriter(path, field_types=types) as writer:
        writer.write(pd.DataFrame(small))
        writer.write(pd.DataFrame(large))
    assert pq.read_schema(path).field("p").type == PRICE
    assert pq.read_schema(path).field("n").type == pa.int32()
    assert read_parquet(path)["p"].tolist() == small["p"] + large["p"]
