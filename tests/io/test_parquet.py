"""Reading parquet files and folders: values, dtypes, identity, and bad files."""

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from labelclean.exceptions import DataValidationError, InputFileError
from labelclean.io import (
    ParquetBatchWriter,
    file_sha256,
    inspect_parquet,
    iter_batches,
    list_parquet_files,
    read_labelclean_metadata,
    read_parquet,
    write_parquet,
)


def _frame(n=10, start=0):
    return pd.DataFrame(
        {
            "x": np.arange(start, start + n, dtype=np.float32),
            "n": pd.array([1, None] * (n // 2), dtype="Int64"),
            "s": pd.Series([f"r{i}" for i in range(start, start + n)], dtype="str"),
            "c": pd.Categorical(["a", "b"] * (n // 2)),
            "t": pd.date_range("2024-01-01", periods=n, tz="UTC"),
            "label": ["cat", "dog"] * (n // 2),
        }
    )


@pytest.fixture
def parquet_file(tmp_path):
    path = tmp_path / "data.parquet"
    _frame().to_parquet(path, row_group_size=4)
    return path


def test_read_parquet_matches_pandas(parquet_file):
    got = read_parquet(parquet_file)
    pd.testing.assert_frame_equal(got, pd.read_parquet(parquet_file))


def test_integers_with_a_missing_value_keep_their_digits(tmp_path):
    # Written by pyarrow (as by Spark or DuckDB): no pandas metadata, so
    # pandas alone reads the column as float64 and 2**60 + 1 as 2**60.
    big = 2**60
    ids = pa.array([big + 1, None, big + 3, big + 4, big + 5, big + 6], pa.int64())
    small = pa.array([1, 2, 3, 4, None, 6], pa.uint8())
    path = tmp_path / "ids.parquet"
    pq.write_table(pa.table({"id": ids, "k": small}), path, row_group_size=2)
    assert pd.read_parquet(path)["id"].dtype == np.float64

    got = read_parquet(path)
    assert got["id"].dtype == "Int64" and got["k"].dtype == "UInt8"
    assert got["id"].tolist() == [big + 1, pd.NA, big + 3, big + 4, big + 5, big + 6]
    # a batch without a missing value keeps NumPy's integers, as pandas does
    batches = list(iter_batches(path, row_id=None))
    assert [str(b["id"].dtype) for b in batches] == ["Int64", "int64", "int64"]
    assert [str(b["k"].dtype) for b in batches] == ["uint8", "uint8", "UInt8"]
    pd.testing.assert_frame_equal(pd.concat(batches), got)
    # and the values are written back exactly, in the input's type
    write_parquet(got, tmp_path / "out.parquet")
    back = pq.read_table(tmp_path / "out.parquet")
    assert back.column("id").equals(pa.chunked_array([ids]))
    assert back.schema.field("k").type == pa.uint8()


def test_given_field_types_keep_a_range_index(tmp_path):
    # Given a schema, pyarrow leaves a RangeIndex out of the file; the rows
    # of a later batch (a range from 5) then read back from 0.
    frame = pd.DataFrame({"a": [1, 2], "s": ["x", "y"]}, index=pd.RangeIndex(5, 7))
    path = write_parquet(
        frame, tmp_path / "out.parquet", field_types={"a": pa.int32(), "s": pa.string()}
    )
    back = read_parquet(path)
    assert back.index.equals(pd.RangeIndex(5, 7))
    assert pq.read_schema(path).field("s").type == pa.string()


def test_round_trip_keeps_dtypes_index_and_metadata(tmp_path):
    frame = _frame().set_index(pd.Index([f"id{i}" for i in range(10)], name="key"))
    path = write_parquet(frame, tmp_path / "out.parquet", metadata={"stage": "audit"})
    got = read_parquet(path)
    pd.testing.assert_frame_equal(got, frame)
    assert read_labelclean_metadata(path) == {"stage": "audit"}
    # pandas' own metadata is kept next to labelclean's.
    assert b"pandas" in pq.read_schema(path).metadata
    assert inspect_parquet(path).labelclean_metadata == {"stage": "audit"}


def test_read_labelclean_metadata_absent(parquet_file):
    assert read_labelclean_metadata(parquet_file) is None


def test_stream_equals_whole_read_and_keeps_identity(parquet_file):
    batches = list(iter_batches(parquet_file, batch_size=3, row_id="rid"))
    # row groups of 4 rows, batches of at most 3 -> 3+1, 3+1, 2
    assert [len(b) for b in batches] == [3, 1, 3, 1, 2]
    whole = read_parquet(parquet_file, row_id="rid")
    pd.testing.assert_frame_equal(pd.concat(batches), whole)
    assert whole["rid"].tolist() == list(range(10))
    # Non-regression: the metadata-only RangeIndex must not restart at 0 in
    # every batch.
    assert batches[1].index.tolist() == [3]
    assert batches[4].index.tolist() == [8, 9]


def test_stream_continues_a_sliced_range_index(tmp_path):
    frame = _frame(6)
    frame.index = pd.RangeIndex(100, 112, 2, name="pos")
    frame.to_parquet(tmp_path / "f.parquet")
    batches = list(iter_batches(tmp_path / "f.parquet", batch_size=4, row_id=None))
    assert pd.concat(batches).index.equals(frame.index)
    assert pd.concat(batches).index.name == "pos"


def test_stream_restores_materialised_index(tmp_path):
    frame = _frame(6).set_index("s")
    frame.to_parquet(tmp_path / "f.parquet")
    batches = list(iter_batches(tmp_path / "f.parquet", batch_size=4, columns=["x"]))
    got = pd.concat(batches)
    assert got.index.tolist() == frame.index.tolist()
    assert list(got.columns) == ["x", "row_id"]


def test_folder_reads_files_in_order(tmp_path):
    folder = tmp_path / "in"
    (folder / "part=1").mkdir(parents=True)
    _frame(4, start=0).to_parquet(folder / "a.parquet")
    _frame(2, start=4).to_parquet(folder / "part=1" / "b.parquet")
    (folder / "_SUCCESS").write_text("")
    (folder / ".tmp.parquet").write_bytes(b"junk")
    (folder / "notes.txt").write_text("not data")
    assert [p.name for p in list_parquet_files(folder)] == ["a.parquet", "b.parquet"]
    source = inspect_parquet(folder)
    assert source.num_rows == 6
    assert source.file_rows == (4, 2)
    got = read_parquet(folder, row_id="rid")
    assert got.index.tolist() == list(range(6))
    assert got["rid"].tolist() == list(range(6))
    assert got["x"].tolist() == list(range(6))
    # Categories of the files are united, so the dtype stays categorical.
    assert isinstance(got["c"].dtype, pd.CategoricalDtype)
    streamed = pd.concat(iter_batches(folder, batch_size=3, row_id="rid"))
    pd.testing.assert_frame_equal(streamed, got)


def test_folder_union_of_different_categories(tmp_path):
    pd.DataFrame({"c": pd.Categorical(["a"])}).to_parquet(tmp_path / "1.parquet")
    pd.DataFrame({"c": pd.Categorical(["z"])}).to_parquet(tmp_path / "2.parquet")
    got = read_parquet(tmp_path)
    assert got["c"].tolist() == ["a", "z"]
    assert isinstance(got["c"].dtype, pd.CategoricalDtype)


def test_empty_file_with_schema(tmp_path):
    path = tmp_path / "e.parquet"
    _frame(0).to_parquet(path)
    got = read_parquet(path, row_id="rid")
    assert len(got) == 0
    assert list(got.columns) == [*_frame(0).columns, "rid"]


def test_columns_and_row_id_errors(parquet_file):
    with pytest.raises(
        DataValidationError, match=re.escape("'lable' (did you mean 'label'?)")
    ):
        read_parquet(parquet_file, columns=["lable"])
    with pytest.raises(DataValidationError, match="already has a column named 'x'"):
        next(iter_batches(parquet_file, row_id="x"))
    with pytest.raises(ValueError, match="batch_size"):
        next(iter_batches(parquet_file, batch_size=0))


# -- bad inputs ----------------------------------------------------------------


def test_missing_path(tmp_path):
    with pytest.raises(InputFileError, match="does not exist"):
        read_parquet(tmp_path / "nope.parquet")


def test_empty_folder(tmp_path):
    (tmp_path / "readme.txt").write_text("x")
    with pytest.raises(InputFileError, match="holds no parquet files"):
        inspect_parquet(tmp_path)


def test_zero_byte_file(tmp_path):
    path = tmp_path / "zero.parquet"
    path.touch()
    with pytest.raises(InputFileError, match=re.escape("is empty (0 bytes)")):
        read_parquet(path)


@pytest.mark.parametrize(
    "content, hint",
    [
        (b"a,b,label\n1,2,cat\n", "looks like text (CSV?)"),
        (b'{"a": 1}', "looks like JSON"),
        (b"\x1f\x8b\x08\x00" + bytes(20), "gzip"),
        (b"\x00\x01\x02\x03\x04", "not recognised"),
    ],
)
def test_not_parquet(tmp_path, content, hint):
    path = tmp_path / "data.parquet"
    path.write_bytes(content)
    with pytest.raises(InputFileError, match="is not a parquet file") as info:
        read_parquet(path)
    assert hint in str(info.value)


def test_truncated_file(tmp_path, parquet_file):
    data = parquet_file.read_bytes()
    path = tmp_path / "cut.parquet"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputFileError, match="is truncated or corrupt"):
        inspect_parquet(path)


def test_corrupt_footer(tmp_path, parquet_file):
    data = bytearray(parquet_file.read_bytes())
    footer_len = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - footer_len
    data[start : start + 40] = b"\xff" * 40
    path = tmp_path / "bad.parquet"
    path.write_bytes(bytes(data))
    with pytest.raises(InputFileError, match="is corrupt") as info:
        inspect_parquet(path)
    assert "not a parquet file" not in str(info.value)


def test_corrupt_data_page_is_detected_with_checksums(tmp_path):
    # labelclean writes page checksums, so a flipped byte in an uncompressed
    # data page is an error, not silently wrong values.
    frame = pd.DataFrame({"x": np.arange(1000, dtype=np.int64)})
    path = write_parquet(frame, tmp_path / "f.parquet", compression=None)
    data = bytearray(path.read_bytes())
    pos = data.find((500).to_bytes(8, "little"))
    assert pos > 0
    data[pos] ^= 0xFF
    path.write_bytes(bytes(data))
    inspect_parquet(path)  # the footer is intact
    with pytest.raises(InputFileError, match="row group 0 cannot be read"):
        read_parquet(path)


def test_mixed_schemas_name_files_and_columns(tmp_path):
    pd.DataFrame({"a": [1], "label": ["x"]}).to_parquet(tmp_path / "1.parquet")
    pd.DataFrame({"a": ["1"], "lbl": ["x"]}).to_parquet(tmp_path / "2.parquet")
    with pytest.raises(InputFileError) as info:
        inspect_parquet(tmp_path)
    msg = str(info.value)
    assert "do not share one schema" in msg
    assert "2.parquet" in msg and "1.parquet" in msg
    assert "missing column(s) ['label']" in msg
    assert "extra column(s) ['lbl']" in msg
    assert re.search(r"column 'a' is (large_)?string instead of int64", msg)


def _partitions(folder, n=6):
    """Three files of one table, each written as an ETL job writes a day."""
    rows = np.arange(3 * n)
    label = np.array(["cat", "dog"])[rows % 2]
    first = pa.table({
        "count": pa.array(rows[:n], pa.int64()),  # no gap: integers
        "name": pa.array([f"r{i}" for i in rows[:n]], pa.string()),
        "colour": pa.array(["red", "blue"] * (n // 2)).dictionary_encode(),
        "when": pa.array(rows[:n] * 86_400_000_000, pa.timestamp("us")),
        "label": pa.array(label[:n]),
        "size": pa.array(["s", "m"] * (n // 2)).dictionary_encode(),
    })  # fmt: skip
    second = pa.table({
        "count": pa.array([None, *rows[n + 1 : 2 * n]], pa.float64()),  # a gap
        "name": pa.array([f"r{i}" for i in rows[n : 2 * n]], pa.large_string()),
        "colour": pa.array(["red", "blue"] * (n // 2), pa.string()),
        "when": pa.array(rows[n : 2 * n] * 86_400_000_000_000, pa.timestamp("ns")),
        "label": pa.array(label[n : 2 * n]),
        "size": pa.array(["s", "m"] * (n // 2)).dictionary_encode(),
    })  # fmt: skip
    third = pa.table({
        "count": pa.array(rows[2 * n :], pa.int64()),
        "name": pa.nulls(n),  # no value at all in this file
        "colour": pa.array(["red", "blue"] * (n // 2)).dictionary_encode(),
        "when": pa.array(rows[2 * n :] * 86_400_000_000, pa.timestamp("us")),
        "label": pa.array(label[2 * n :]),
        "size": pa.array(["s", "m"] * (n // 2)).dictionary_encode(),
    })  # fmt: skip
    for i, table in enumerate((first, second, third)):
        pq.write_table(table, folder / f"day{i}.parquet")
    return n


def test_files_whose_types_differ_but_hold_the_same_values_are_read_as_one(
    tmp_path, caplog
):
    n = _partitions(tmp_path)

    with caplog.at_level("WARNING", logger="labelclean"):
        source = inspect_parquet(tmp_path)
    frame = read_parquet(source)

    types = {f.name: f.type for f in source.schema}
    # the double file holds whole numbers only: the column stays integers
    assert types["count"] == pa.int64() and types["name"] == pa.large_string()
    assert types["colour"] == pa.string() and types["when"] == pa.timestamp("ns")
    assert len(frame) == 3 * n
    assert frame["count"].isna().sum() == 1
    assert frame["count"].dtype == "Int64"
    assert frame["count"].iloc[[0, 2 * n]].tolist() == [0, 2 * n]
    assert frame["name"].isna().sum() == n and frame["name"].iloc[n + 1] == "r7"
    assert frame["colour"].iloc[-1] == "blue"
    # a dictionary in every file stays one: a category
    assert isinstance(frame["size"].dtype, pd.CategoricalDtype)
    days = (frame["when"] - pd.Timestamp(0)).dt.days.to_numpy()
    np.testing.assert_array_equal(days, np.arange(3 * n))
    streamed = pd.concat(iter_batches(source, batch_size=4, row_id=None))
    pd.testing.assert_frame_equal(streamed, frame)
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1
    assert "'count' (double, int64) as int64" in said[0]


def test_partition_folders_whose_values_are_not_read_are_named(tmp_path, caplog):
    # Spark, Hive and pyarrow's datasets write a column's value into the
    # folder names (key=value/) and leave it out of the files.
    table = pa.table({"x": [1.0, 2.0, 3.0, 4.0], "year": [2023, 2023, 2024, 2024],
                      "region": list("nsns"), "label": list("abab")})  # fmt: skip
    pq.write_to_dataset(table, tmp_path / "lake", partition_cols=["year", "region"])
    with caplog.at_level("WARNING", logger="labelclean"):
        source = inspect_parquet(tmp_path / "lake")
    assert source.columns == ["x", "label"] and source.num_rows == 4
    (said,) = [r.getMessage() for r in caplog.records]
    assert "named like partitions ('region=...', 'year=...')" in said
    assert "'region', 'year' are neither features nor in the outputs" in said

    # Nothing is said where the files hold the column too, or of other names.
    caplog.clear()
    for i, part in enumerate(["region=n", "region=s", "old=1/2024", "a=b=c"]):
        (tmp_path / "kept" / part).mkdir(parents=True)
        pq.write_table(table.slice(i, 1), tmp_path / "kept" / part / "p.parquet")
    with caplog.at_level("WARNING", logger="labelclean"):
        inspect_parquet(tmp_path / "kept")
    (said,) = [r.getMessage() for r in caplog.records]
    assert "('a=...', 'old=...')" in said and "'region'" not in said
    caplog.clear()
    with caplog.at_level("WARNING", logger="labelclean"):
        inspect_parquet(tmp_path / "kept" / "region=n" / "p.parquet")  # one file
    assert caplog.records == []


def test_files_of_integers_and_fractions_are_read_as_floats(tmp_path):
    pq.write_table(
        pa.table({"v": pa.array([1, 2], pa.int64())}), tmp_path / "a.parquet"
    )
    pq.write_table(pa.table({"v": pa.array([0.5, None])}), tmp_path / "b.parquet")
    assert read_parquet(tmp_path)["v"].tolist()[:3] == [1.0, 2.0, 0.5]
    # NaN (not a gap) has no integer either
    pq.write_table(pa.table({"v": pa.array([3.0, np.nan])}), tmp_path / "b.parquet")
    assert inspect_parquet(tmp_path).schema.field("v").type == pa.float64()


def test_files_exported_from_csv_with_an_empty_column_are_read_as_one(tmp_path):
    # Read back from CSV, a day whose text column is empty has it as double
    # (all NaN) and a day without a gap has its counts as integers.
    days = [
        pd.DataFrame({"count": [1.0, None, 3.0], "note": ["a", None, "c"],
                      "gone": [None] * 3, "label": ["x", "y", "x"]}),
        pd.DataFrame({"count": [4, 5, 6], "note": [None] * 3,
                      "gone": pd.array([None] * 3, dtype="str"),
                      "label": ["y", "x", "y"]}),
    ]  # fmt: skip
    for i, day in enumerate(days):
        csv = tmp_path / f"day{i}.csv"
        day.to_csv(csv, index=False)
        pd.read_csv(csv).to_parquet(tmp_path / f"day{i}.parquet", index=False)
    assert pd.read_parquet(tmp_path / "day1.parquet")["note"].dtype == np.float64

    frame = read_parquet(tmp_path)

    assert frame["count"].tolist()[3:] == [4.0, 5.0, 6.0]
    assert frame["note"].iloc[[0, 2]].tolist() == ["a", "c"]
    assert frame["note"].isna().sum() == 4
    assert pd.api.types.is_string_dtype(frame["note"].dtype)
    assert frame["gone"].isna().all()
    pd.testing.assert_frame_equal(pd.concat(iter_batches(tmp_path, row_id=None)), frame)


def test_a_column_with_no_value_in_any_file_keeps_a_type_of_its_files(tmp_path):
    for i, kind in enumerate((pa.float64(), pa.large_string())):
        pq.write_table(
            pa.table({"gone": pa.nulls(2, kind), "x": pa.array([1.0, 2.0])}),
            tmp_path / f"{i}.parquet",
        )
    source = inspect_parquet(tmp_path)
    assert source.schema.field("gone").type == pa.float64()
    assert read_parquet(source)["gone"].isna().all()


def test_numbers_in_some_files_and_text_in_others_are_read_as_their_digits(tmp_path):
    pq.write_table(
        pa.table({"v": pa.array([7, 2**60], pa.int64())}), tmp_path / "a.parquet"
    )
    pq.write_table(pa.table({"v": pa.array([12.0, None])}), tmp_path / "b.parquet")
    pq.write_table(
        pa.table({"v": pa.array(["x9", None]).dictionary_encode()}),
        tmp_path / "c.parquet",
    )
    source = inspect_parquet(tmp_path)
    assert source.schema.field("v").type == pa.string()
    values = read_parquet(source)["v"]
    assert values.isna().tolist() == [False, False, False, True, False, True]
    assert values.dropna().tolist() == ["7", str(2**60), "12", "x9"]
    # A whole number a double does not hold exactly has no known digits.
    pq.write_table(pa.table({"v": pa.array([2.0**60, None])}), tmp_path / "b.parquet")
    with pytest.raises(InputFileError, match="do not share one schema"):
        inspect_parquet(tmp_path)


def test_zero_padded_codes_beside_numbers_are_refused(tmp_path):
    # A day read as numbers holds 1 where the export wrote "001": read as
    # text it would be "1", another code than the other days' "001".
    pq.write_table(
        pa.table({"v": pa.array([1, 2], pa.int64())}), tmp_path / "a.parquet"
    )
    pq.write_table(pa.table({"v": pa.array(["001", "136A"])}), tmp_path / "b.parquet")
    with pytest.raises(InputFileError) as info:
        inspect_parquet(tmp_path)
    assert str(info.value) == (
        "column 'v' holds codes with leading zeros such as '001' in "
        f"{str(tmp_path / 'b.parquet')!r} and numbers in "
        f"{str(tmp_path / 'a.parquet')!r}, where a CSV reader read a day of digits "
        "as numbers and dropped their zeros: the same code would read as two; "
        "export the column as text in every file."
    )
    pq.write_table(pa.table({"v": pa.array(["101", "136A"])}), tmp_path / "b.parquet")
    assert inspect_parquet(tmp_path).schema.field("v").type == pa.string()


def test_files_whose_values_differ_in_kind_are_refused(tmp_path):
    _partitions(tmp_path)
    pq.write_table(
        pa.table({"count": pa.array(["1"] * 6), "name": pa.nulls(6),
                  "colour": pa.array(["red"] * 6), "when": pa.nulls(6),
                  "label": pa.array(["cat"] * 6),
                  "size": pa.array(["s"] * 6).dictionary_encode()}),
        tmp_path / "day3.parquet",
    )  # fmt: skip
    with pytest.raises(InputFileError, match="do not share one schema") as info:
        inspect_parquet(tmp_path)
    assert re.search(
        r"column 'count' is (large_)?string instead of int64", str(info.value)
    )
    assert "missing column" not in str(info.value)  # refused for the kind alone


def test_bad_file_inside_folder_is_named(tmp_path):
    pd.DataFrame({"a": [1]}).to_parquet(tmp_path / "1.parquet")
    (tmp_path / "2.parquet").write_bytes(b"")
    with pytest.raises(InputFileError, match=re.escape("2.parquet")):
        read_parquet(tmp_path)


def test_reading_never_modifies_the_input(parquet_file):
    before = file_sha256(parquet_file)
    mtime = parquet_file.stat().st_mtime_ns
    read_parquet(parquet_file)
    list(iter_batches(parquet_file, batch_size=2))
    assert file_sha256(parquet_file) == before
    assert parquet_file.stat().st_mtime_ns == mtime


# -- writing -----------------------------------------------------------------


def test_batch_writer_streams(tmp_path):
    path = tmp_path / "s.parquet"
    with ParquetBatchWriter(path, metadata={"k": 1}) as writer:
        for frame in [_frame(4), _frame(4, start=4)]:
            writer.write(frame)
        assert not path.exists()  # nothing under the final name before close
    got = read_parquet(path)
    assert got["x"].tolist() == list(range(8))
    assert writer.num_rows == 8
    assert read_labelclean_metadata(path) == {"k": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["s.parquet"]


def test_batch_writer_with_schema_and_no_rows(tmp_path):
    schema = pa.schema([("a", pa.int64())])
    path = ParquetBatchWriter(tmp_path / "e.parquet", schema).close()
    assert pq.read_table(path).num_rows == 0


def test_batch_writer_failure_leaves_previous_file(tmp_path):
    path = tmp_path / "s.parquet"
    write_parquet(pd.DataFrame({"x": [1.0]}), path)
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="boom"):
        with ParquetBatchWriter(path) as writer:
            writer.write(_frame(4))
            raise RuntimeError("boom")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.parquet"]


def test_batch_writer_rejects_incompatible_batch(tmp_path):
    path = tmp_path / "s.parquet"
    writer = ParquetBatchWriter(path)
    writer.write(pd.DataFrame({"x": [1.0]}))
    with pytest.raises(DataValidationError, match="every batch needs the same"):
        writer.write(pd.DataFrame({"y": ["a"]}))
    assert list(tmp_path.iterdir()) == []


def test_write_parquet_rejects_duplicate_columns(tmp_path):
    frame = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(DataValidationError, match="duplicate column names"):
        write_parquet(frame, tmp_path / "d.parquet")
    assert list(tmp_path.iterdir()) == []


def test_write_parquet_is_deterministic(tmp_path):
    a = write_parquet(_frame(), tmp_path / "a.parquet", metadata={"seed": 0})
    b = write_parquet(_frame(), tmp_path / "b.parquet", metadata={"seed": 0})
    assert file_sha256(a) == file_sha256(b)
