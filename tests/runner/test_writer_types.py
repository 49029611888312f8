"""Columns as Spark, DuckDB or pyarrow write them (no pandas metadata), in
types pandas does not give back: written with the input's types by every
command that copies them. An integer column with a missing value is used as
a number and kept exact (as a float, an id above 2**53 loses its last
digits); ``string`` stays ``string`` (pandas writes ``large_string``),
``time32`` stays ``time32``, ``large_binary`` stays ``large_binary``."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from runner_utils import cli, review_keeping_labels
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
            "note": pa.array(np.where(x > 0, "high", "low"), pa.string()),
            "at": pa.array(
                (43_200 + 9_000 * np.tanh(x)).astype(np.int32), pa.time32("s")
            ),
            "blob": pa.array([b"%d" % (i % 5) for i in range(n)], pa.large_binary()),
            "label": label,
        }
    )
    path = tmp_path_factory.mktemp("in") / "orders.parquet"
    pq.write_table(frame, path, row_group_size=100)
    return path


def _types(path):
    schema = pq.read_schema(path)
    return {name: schema.field(name).type for name in KEPT}


#: Not features: an id, and bytes (which have no distance).
EXCLUDE = ("--exclude", "ref", "--exclude", "blob")
#: The input's columns whose types every output keeps.
KEPT = ("ref", "count", "note", "at", "blob")


@pytest.fixture(scope="module")
def types(table):
    given = _types(table)
    assert given["ref"] == pa.int64() and given["note"] == pa.string()
    return given


def _same_refs(path, table):
    """The output's ``ref`` values are distinct values of the input's, digit
    for digit (as floats, ids a few apart would merge)."""
    given = set(pq.read_table(table).column("ref").to_pylist())
    got = [v for v in pq.read_table(path).column("ref").to_pylist() if v is not None]
    return len(set(got)) == len(got) and set(got) <= given


def test_run_apply_score_and_review_keep_the_types(table, types, tmp_path):
    before = table.read_bytes()
    run = tmp_path / "run"
    cli("run", table, "-p", "binary-cbadaboost", "--label", "label", *EXCLUDE,
         "--out", run, "--batch-size", "100")  # fmt: skip
    report = (run / "report.json").read_text()
    assert '"name": "count"' in report
    audit = read_parquet(run / "audit.parquet")
    assert audit["ref"].tolist()[:3] == [BIG, BIG + 1, BIG + 2]
    assert (audit["decision"] != "kept").any()  # the cleaned rows are a subset
    for name in ("audit.parquet", "cleaned.parquet"):
        assert _types(run / name) == types
        assert _same_refs(run / name, table)
    assert (
        pq.read_table(run / "audit.parquet")
        .column("ref")
        .equals(pq.read_table(table).column("ref"))
    )

    applied = tmp_path / "apply"
    cli("apply", run / "model.skops", table, "--out", applied, "--batch-size", "100")
    for name in ("audit.parquet", "cleaned.parquet"):
        assert _types(applied / name) == types
        assert _same_refs(applied / name, table)

    scored = tmp_path / "scored.parquet"
    cli("score", table, "--label", "label", *EXCLUDE, "--out", scored)
    assert _types(scored) == types and _same_refs(scored, table)

    review = tmp_path / "review.parquet"
    cli("review", "export", run, "--out", review, "--max-rows", "50")
    exported = pq.read_schema(review)
    assert {n: exported.field(n).type for n in ("count", "note", "at")} == {
        n: types[n] for n in ("count", "note", "at")
    }
    rows = read_parquet(review)
    assert rows["count"].isna().any()  # the missing values stay missing
    reviewed = review_keeping_labels(run, review, tmp_path)
    for name in ("audit.parquet", "cleaned.parquet"):
        assert _types(reviewed / name) == types
        assert _same_refs(reviewed / name, table)
    assert table.read_bytes() == before


@pytest.mark.xdist_group("dask")
def test_apply_on_dask_keeps_the_types(table, types, tmp_path, dask_scheduler):
    run = tmp_path / "run"
    cli("run", table, "-p", "binary-cbadaboost", "--label", "label",
         *EXCLUDE, "--out", run)  # fmt: skip
    out = tmp_path / "dask"
    cli("apply", run / "model.skops", table, "--out", out, "--engine", "dask",
         "--scheduler", dask_scheduler, "--jobs", "1")  # fmt: skip
    parts = sorted((out / "audit").glob("*.parquet"))
    assert len(parts) == 6
    for part in parts:
        assert _types(part) == types
    refs = [v for part in parts for v in pq.read_table(part).column("ref").to_pylist()]
    assert refs == pq.read_table(table).column("ref").to_pylist()


def _days(folder, second_ref):
    """A folder of two daily exports of one table: the first as written by
    Spark (``ref`` and ``count`` as ``int64``), the second read back from CSV
    by pandas (a slice where ``count`` has a gap holds it as ``double``;
    ``ref`` as ``second_ref``, ``double``)."""
    rng = np.random.default_rng(1)
    folder.mkdir()
    for day, n in enumerate((300, 300)):
        x = rng.normal(size=n)
        count = rng.poisson(3 + 3 * (x > 0)).astype(float)
        label = np.where(x + rng.normal(scale=0.5, size=n) > 0, "a", "b")
        if day == 0:
            columns = {"ref": pa.array(BIG + np.arange(n), pa.int64()),
                       "count": pa.array(count.astype(np.int64))}  # fmt: skip
        else:
            count[::9] = np.nan
            columns = {"ref": pa.array(second_ref(n), pa.float64()),
                       "count": pa.array(count, from_pandas=True)}  # fmt: skip
        columns.update(x=x, label=label)
        pq.write_table(pa.table(columns), folder / f"day{day}.parquet")
    return folder


def test_a_folder_of_integers_and_whole_floats_keeps_its_integers(tmp_path):
    # Whole numbers 256 apart are exact in a double at 2**60.
    folder = _days(
        tmp_path / "days", lambda n: (BIG + 256 * np.arange(1, n + 1)).astype(float)
    )
    run = tmp_path / "run"
    result = cli("run", folder, "--label", "label", "--exclude", "ref", "--out", run)
    assert "'count' (double, int64) as int64" in result.stderr
    audit = pq.read_table(run / "audit.parquet")
    assert audit.schema.field("ref").type == pa.int64()
    assert audit.schema.field("count").type == pa.int64()
    refs = audit.column("ref").to_pylist()
    assert refs[:300] == [BIG + i for i in range(300)]
    assert refs[300:] == [BIG + 256 * i for i in range(1, 301)]
    assert audit.column("count").null_count == 34  # the gaps stay missing
    assert '"name": "count"' in (run / "report.json").read_text()  # a feature


def test_a_folder_whose_integers_no_double_holds_says_so(tmp_path):
    folder = _days(tmp_path / "days", lambda n: np.arange(n) + 0.5)
    result = CliRunner().invoke(
        app, ["run", str(folder), "--label", "label", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 4
    assert (
        "column 'ref' holds integers beyond 2**53 in "
        f"'{folder / 'day0.parquet'}' and numbers no integer type holds in "
        f"'{folder / 'day1.parquet'}'"
    ) in result.stderr
    assert "corrupt" not in result.stderr
    assert not (tmp_path / "r").exists()
