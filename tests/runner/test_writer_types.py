"""Integer columns with a missing value, as Spark, DuckDB or pyarrow write them
(no pandas metadata): used as numbers, kept exact (an id above 2**53 keeps its
last digits) and written back with the input's types by every command that
copies them."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.io import read_parquet

BIG = 2**60


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(0)
    n = 600
    x = rng.normal(size=n)
    label = np.where(x + rng.normal(scale=0.5, size=n) > 0, "a", "b")
    flipped = rng.random(n) < 0.1
    label = np.where(flipped, np.where(label == "a", "b", "a"), label)
    # The first row group holds no missing value, so streamed batches differ
    # in how pandas would type the same column.
    count = [None if i >= 100 and i % 7 == 0 else int(v)
             for i, v in enumerate(rng.poisson(3 + 3 * (x > 0)))]  # fmt: skip
    ref = [None if i % 50 == 49 else BIG + i for i in range(n)]
    frame = pa.table(
        {
            "ref": pa.array(ref, pa.int64()),
            "x": x,
            "count": pa.array(count, pa.int32()),
            "label": label,
        }
    )
    path = tmp_path_factory.mktemp("in") / "orders.parquet"
    pq.write_table(frame, path, row_group_size=100)
    return path


def _cli(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def _types(path):
    schema = pq.read_schema(path)
    return {name: schema.field(name).type for name in ("ref", "count")}


TYPES = {"ref": pa.int64(), "count": pa.int32()}


def _same_refs(path, table):
    """The output's ``ref`` values are distinct values of the input's, digit
    for digit (as floats, ids a few apart would merge)."""
    given = set(pq.read_table(table).column("ref").to_pylist())
    got = [v for v in pq.read_table(path).column("ref").to_pylist() if v is not None]
    return len(set(got)) == len(got) and set(got) <= given


def test_run_apply_score_and_review_keep_the_integers(table, tmp_path):
    before = table.read_bytes()
    run = tmp_path / "run"
    _cli("run", table, "-p", "binary-cbadaboost", "--label", "label",
         "--exclude", "ref", "--out", run, "--batch-size", "100")  # fmt: skip
    report = (run / "report.json").read_text()
    assert '"name": "count"' in report
    audit = read_parquet(run / "audit.parquet")
    assert audit["ref"].tolist()[:3] == [BIG, BIG + 1, BIG + 2]
    assert (audit["decision"] != "kept").any()  # the cleaned rows are a subset
    for name in ("audit.parquet", "cleaned.parquet"):
        assert _types(run / name) == TYPES
        assert _same_refs(run / name, table)
    assert (
        pq.read_table(run / "audit.parquet")
        .column("ref")
        .equals(pq.read_table(table).column("ref"))
    )

    applied = tmp_path / "apply"
    _cli("apply", run / "model.skops", table, "--out", applied, "--batch-size", "100")
    for name in ("audit.parquet", "cleaned.parquet"):
        assert _types(applied / name) == TYPES
        assert _same_refs(applied / name, table)

    scored = tmp_path / "scored.parquet"
    _cli("score", table, "--label", "label", "--exclude", "ref", "--out", scored)
    assert _types(scored) == TYPES and _same_refs(scored, table)

    review = tmp_path / "review.parquet"
    _cli("review", "export", run, "--out", review, "--max-rows", "50")
    assert pq.read_schema(review).field("count").type == pa.int32()
    rows = read_parquet(review)
    assert rows["count"].isna().any()  # the missing values stay missing
    verdicts = tmp_path / "verdicts.csv"
    rows.assign(verdict=rows["observed_label"])[["row_id", "verdict"]].to_csv(
        verdicts, index=False
    )
    reviewed = tmp_path / "reviewed"
    _cli("review", "apply", run, verdicts, "--out", reviewed)
    for name in ("audit.parquet", "cleaned.parquet"):
        assert _types(reviewed / name) == TYPES
        assert _same_refs(reviewed / name, table)
    assert table.read_bytes() == before


@pytest.mark.xdist_group("dask")
def test_apply_on_dask_keeps_the_integers(table, tmp_path, dask_scheduler):
    run = tmp_path / "run"
    _cli("run", table, "-p", "binary-cbadaboost", "--label", "label",
         "--exclude", "ref", "--out", run)  # fmt: skip
    out = tmp_path / "dask"
    _cli("apply", run / "model.skops", table, "--out", out, "--engine", "dask",
         "--scheduler", dask_scheduler, "--jobs", "1")  # fmt: skip
    parts = sorted((out / "audit").glob("*.parquet"))
    assert len(parts) == 6
    for part in parts:
        assert _types(part) == TYPES
    refs = [v for part in parts for v in pq.read_table(part).column("ref").to_pylist()]
    assert refs == pq.read_table(table).column("ref").to_pylist()
