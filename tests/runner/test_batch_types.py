"""A later batch's column types, as ETL jobs produce them.

Another dtype of the same kind is encoded as at fit: integers that became
floats because a value went missing, ``float32``, strings read back as a
category, a timestamp of another unit. Another kind (strings where numbers
were, numbers where categories or timestamps were) is refused with one line
that names the column, through the command line and the Python API alike;
but codes fitted as text that a reader typed as numbers are read as their
digits.
"""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.exceptions import DataValidationError
from labelclean.io import read_parquet
from labelclean.pipeline import LabelCleaner

EXIT_DATA = 3


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    count = rng.integers(0, 4, n)
    colour = rng.choice(["red", "green", "blue"], n)
    score = x + 0.6 * count + 0.8 * (colour == "red") + rng.normal(scale=0.7, size=n)
    return pd.DataFrame(
        {
            "x": x,
            "count": count.astype(np.int64),
            "colour": pd.array(colour, dtype="str"),
            "when": pd.Series(
                np.datetime64("2024-01-01", "ns")
                + rng.integers(0, 10**6, n).astype("timedelta64[s]")
            ).astype("datetime64[ns]"),
            "label": np.where(score > np.median(score), "high", "low"),
        }
    )


@pytest.fixture(scope="module")
def fitted_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("types")
    _table(500, 0).to_parquet(folder / "train.parquet", index=False)
    result = CliRunner().invoke(
        app,
        ["run", str(folder / "train.parquet"), "-p", "binary-cbadaboost",
         "--label", "label", "--out", str(folder / "run")],
    )  # fmt: skip
    assert result.exit_code == 0, (result.stderr, result.exception)
    return folder


def _apply(folder, batch: pd.DataFrame, name: str):
    path = folder / f"{name}.parquet"
    batch.to_parquet(path, index=False)
    out = folder / f"out-{name}"
    result = CliRunner().invoke(
        app,
        ["apply", str(folder / "run" / "model.skops"), str(path), "--out", str(out)],
    )
    return result, out


def test_another_dtype_of_the_same_kind_is_applied_as_at_fit(fitted_run):
    batch = _table(300, 1)
    reference, ref_out = _apply(fitted_run, batch, "same")
    assert reference.exit_code == 0, (reference.stderr, reference.exception)

    changed = batch.astype({"x": np.float32, "colour": "category"})
    changed["count"] = changed["count"].astype(np.float64)
    changed.loc[:9, "count"] = np.nan  # an integer column with a gap is float64
    changed["when"] = changed["when"].astype("datetime64[us]")
    result, out = _apply(fitted_run, changed, "changed")

    assert result.exit_code == 0, (result.stderr, result.exception)
    audit = pd.read_parquet(out / "audit.parquet")
    expected = pd.read_parquet(ref_out / "audit.parquet")
    assert len(audit) == len(batch)
    # rows 0-9 lost a value; every other row is decided as before
    rest = slice(10, None)
    assert (audit["decision"][rest] == expected["decision"][rest]).all()
    np.testing.assert_allclose(
        audit["model_probability"][rest], expected["model_probability"][rest],
        atol=1e-5,
    )  # fmt: skip


def test_a_column_with_no_value_has_no_kind_to_differ(fitted_run):
    # Read back from a CSV export, an empty text column is float64 (NaN).
    batch = _table(60, 5).assign(colour=np.nan)
    result, out = _apply(fitted_run, batch, "empty")

    assert result.exit_code == 0, (result.stderr, result.exception)
    audit = pd.read_parquet(out / "audit.parquet")
    assert len(audit) == len(batch) and audit["colour"].isna().all()


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda b: b.assign(count=b["count"].astype(str)),
         "'count': int64 at fit, str now"),
        (lambda b: b.assign(colour=b["colour"].map({"red": 1, "green": 2,
                                                    "blue": 3})),
         "'colour': categories at fit, numbers now (int64)"),
        (lambda b: b.assign(when=b["when"].astype("int64")),
         "'when': datetime64[ns] at fit, int64 now"),
    ],
    ids=["numbers-as-text", "categories-as-numbers", "timestamps-as-numbers"],
)  # fmt: skip
def test_another_kind_is_refused_on_the_command_line(fitted_run, change, fragment):
    result, out = _apply(fitted_run, change(_table(50, 2)), "kind")

    assert result.exit_code == EXIT_DATA
    assert fragment in result.stderr
    assert "cast them back to the training types" in result.stderr
    assert not out.exists()


def test_another_kind_is_refused_by_the_estimator():
    table = _table(300, 3)
    X, y = table.drop(columns="label"), table["label"]
    cleaner = LabelCleaner(random_state=0).fit(X, y)
    new = _table(40, 4).drop(columns="label")
    same_kind = new.astype({"count": np.float64, "colour": "category"})
    np.testing.assert_allclose(
        cleaner.predict_proba(same_kind), cleaner.predict_proba(new)
    )

    as_numbers = new.assign(colour=new["colour"].map({"red": 1, "green": 2,
                                                      "blue": 3}))  # fmt: skip
    with pytest.raises(DataValidationError, match="'colour': categories at fit, "
                       "numbers now"):  # fmt: skip
        cleaner.predict_proba(as_numbers)
    with pytest.raises(DataValidationError, match="'when': timestamps at fit"):
        cleaner.audit(new.assign(when=new["when"].astype("int64")), y.iloc[:40])
    # numbers in an object column are read as numbers, as they were fitted
    as_objects = new.assign(count=pd.Series(new["count"].tolist(), dtype=object))
    np.testing.assert_allclose(
        cleaner.predict_proba(as_objects), cleaner.predict_proba(new)
    )
    # a column with no value at all has no kind: it is missing everywhere
    empty = new.assign(count=pd.Series([None] * len(new), dtype=object))
    assert cleaner.predict_proba(empty).shape == (len(new), 2)


def _write_days(folder) -> int:
    """A folder of daily files as pandas writes them: ``count`` is ``int64``
    in the day without a gap and ``double`` in the day with one (whole
    numbers: read as integers)."""
    folder.mkdir()
    days = [_table(200, 10), _table(200, 11)]
    days[1]["count"] = days[1]["count"].astype(np.float64)
    days[1].loc[:4, "count"] = np.nan
    for i, day in enumerate(days):
        day.to_parquet(folder / f"day{i}.parquet", index=False)
    return sum(len(d) for d in days)


def _run_and_apply(days, tmp_path, engine, request):
    """``run`` on the folder ``days``, then ``apply`` of its model to it, on
    ``engine``: the run's result and each command's audit."""
    engine_args = ["--engine", engine]
    if engine == "dask":
        engine_args += ["--scheduler", request.getfixturevalue("dask_scheduler")]
    run = CliRunner().invoke(
        app,
        ["run", str(days), "-p", "binary-cbadaboost", "--label", "label",
         "--out", str(tmp_path / "run"), *engine_args],
    )  # fmt: skip
    assert run.exit_code == 0, (run.stderr, run.exception)
    applied = CliRunner().invoke(
        app,
        ["apply", str(tmp_path / "run" / "model.skops"), str(days),
         "--out", str(tmp_path / "apply"), *engine_args],
    )  # fmt: skip
    assert applied.exit_code == 0, (applied.stderr, applied.exception)
    name = "audit" if engine == "dask" else "audit.parquet"
    return run, {out: read_parquet(tmp_path / out / name) for out in ("run", "apply")}


@pytest.mark.parametrize(
    "engine", ["local", pytest.param("dask", marks=pytest.mark.xdist_group("dask"))]
)
def test_a_folder_of_files_with_promotable_types_runs_and_applies(
    tmp_path, engine, request
):
    n_rows = _write_days(tmp_path / "days")
    run, audits = _run_and_apply(tmp_path / "days", tmp_path, engine, request)
    assert "read 'count' (double, int64) as int64" in run.stderr
    for out, audit in audits.items():
        assert len(audit) == n_rows
        assert audit["count"].dtype == "Int64"
        assert audit["count"].isna().sum() == 5
        # the report and the manifest say which file was read in which type
        for name in ("report.json", "manifest.json"):
            document = json.loads((tmp_path / out / name).read_text())
            files = (document.get("run") or document)["inputs"]
            assert [f.get("read_as") for f in files] == [
                None,
                {"count": "double as int64"},
            ]
        page = (tmp_path / out / "report.html").read_text()
        assert "<code>count</code>: double as int64" in page


def _write_csv_days(folder) -> list[str]:
    """Three days of one table, each read back from its CSV export: a shop
    code is all digits on two days (``int64``, and ``double`` where the day
    has a gap) and a code with a letter on the third (text). Returns the
    codes as the exports wrote them."""
    folder.mkdir()
    codes = []
    for i in range(3):
        day = _table(150, 20 + i)
        shop = (100 + np.arange(150) % 7).astype(str).astype(object)
        if i == 1:
            shop[::10] = None
        if i == 2:
            shop[::5] = "207a"
        day["shop"] = shop
        day.to_csv(csv := folder / f"day{i}.csv", index=False)
        pd.read_csv(csv).to_parquet(folder / f"day{i}.parquet", index=False)
        csv.unlink()
        codes += [None if pd.isna(s) else s for s in shop]
    return codes


@pytest.mark.parametrize(
    "engine", ["local", pytest.param("dask", marks=pytest.mark.xdist_group("dask"))]
)
def test_codes_read_as_numbers_on_some_days_run_as_text(tmp_path, engine, request):
    codes = _write_csv_days(days := tmp_path / "days")
    kinds = [pd.read_parquet(days / f"day{i}.parquet")["shop"].dtype for i in range(3)]
    assert [k.kind for k in kinds[:2]] == ["i", "f"] and kinds[2] == "str"
    run, audits = _run_and_apply(days, tmp_path, engine, request)
    assert "read 'shop' (double, int64, large_string) as string" in run.stderr
    for out, audit in audits.items():
        # Every code as the exports wrote it: "104", not "104.0"; gaps missing.
        assert pd.api.types.is_string_dtype(audit["shop"].dtype)
        assert [None if pd.isna(s) else s for s in audit["shop"]] == codes
        files = json.loads((tmp_path / out / "manifest.json").read_text())["inputs"]
        assert [f.get("read_as", {}).get("shop") for f in files] == [
            "int64 as string",
            "double as string",
            "large_string as string",
        ]


def test_numbers_whose_text_is_unknown_are_still_refused(tmp_path):
    # A day whose codes hold a fraction: its text ("104.50"?) is not known.
    _write_csv_days(days := tmp_path / "days")
    day = pd.read_parquet(days / "day1.parquet")
    day.loc[3, "shop"] = 104.5
    day.to_parquet(days / "day1.parquet", index=False)
    result = CliRunner().invoke(
        app, ["run", str(days), "--label", "label", "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 4
    assert "do not share one schema" in result.stderr
    assert "column 'shop' is large_string instead of int64" in result.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "engine", ["local", pytest.param("dask", marks=pytest.mark.xdist_group("dask"))]
)
def test_a_batch_of_codes_typed_as_numbers_applies_as_their_text(
    tmp_path, engine, request
):
    # Fitted on days whose shop codes are text ("207a" among them), then
    # applied to one day's export alone, which a CSV reader typed as numbers
    # (int64; double where the day has a gap): each number is its code.
    _write_csv_days(days := tmp_path / "days")
    _run_and_apply(days, tmp_path, engine, request)
    engine_args = ["--engine", engine]
    if engine == "dask":
        engine_args += ["--scheduler", request.getfixturevalue("dask_scheduler")]
    name = "audit" if engine == "dask" else "audit.parquet"
    for day in ("day0", "day1"):
        batch = pd.read_parquet(days / f"{day}.parquet")
        as_text = batch.assign(shop=pd.array(
            [None if pd.isna(s) else str(int(s)) for s in batch["shop"]], dtype="str"
        ))  # fmt: skip
        as_text.to_parquet(text := tmp_path / f"{day}-text.parquet", index=False)
        audits = {}
        for source in (days / f"{day}.parquet", text):
            result = CliRunner().invoke(
                app,
                ["apply", str(tmp_path / "run" / "model.skops"), str(source),
                 "--out", str(out := tmp_path / f"apply-{source.stem}"),
                 *engine_args],
            )  # fmt: skip
            assert result.exit_code == 0, (result.stderr, result.exception)
            assert "features_shifted" not in result.stderr
            audits[source.stem] = read_parquet(out / name)
        numbers, texts = audits[day], audits[f"{day}-text"]
        assert len(numbers) == len(batch)
        # the batch's own type is kept, and every row is decided as its text
        assert numbers["shop"].dtype.kind == batch["shop"].dtype.kind
        pd.testing.assert_frame_equal(
            numbers.drop(columns="shop"), texts.drop(columns="shop")
        )


def test_the_estimator_reads_codes_typed_as_numbers_as_their_text():
    table = _table(300, 32)
    codes = np.random.default_rng(1).choice(["104", "105", "207a"], 300)
    X = table.drop(columns="label").assign(shop=pd.array(codes, dtype="str"))
    cleaner = LabelCleaner(random_state=0).fit(X, table["label"])
    new = _table(40, 33).drop(columns="label")
    shops = np.random.default_rng(2).choice([104, 105], 40)
    as_text = new.assign(shop=pd.array(shops.astype(str), dtype="str"))
    as_numbers = new.assign(shop=shops.astype(np.int64))
    with_gap = as_numbers.astype({"shop": np.float64})
    with_gap.loc[:2, "shop"] = np.nan
    np.testing.assert_array_equal(
        cleaner.predict_proba(as_numbers), cleaner.predict_proba(as_text)
    )
    gap_text = as_text.assign(shop=as_text["shop"].where(with_gap["shop"].notna()))
    np.testing.assert_array_equal(
        cleaner.predict_proba(with_gap), cleaner.predict_proba(gap_text)
    )
    assert with_gap["shop"].dtype == np.float64  # the caller's frame is not changed
    with pytest.raises(DataValidationError, match="'shop': categories at fit"):
        cleaner.predict_proba(new.assign(shop=np.full(40, 104.5)))


def test_numbers_where_zero_padded_codes_were_fitted_are_refused(tmp_path):
    table = _table(300, 30)
    table["shop"] = pd.array(
        np.random.default_rng(0).choice(["007", "012", "104", "207a"], 300), dtype="str"
    )
    table.to_parquet(train := tmp_path / "train.parquet", index=False)
    result = CliRunner().invoke(
        app, ["run", str(train), "--label", "label", "--out", str(tmp_path / "run")]
    )
    assert result.exit_code == 0, (result.stderr, result.exception)
    batch = _table(80, 31).assign(shop=np.int64(7))
    result, out = _apply(tmp_path, batch, "padded")
    assert result.exit_code == EXIT_DATA
    assert (
        "column 'shop' holds numbers where it held codes at fit, some with "
        "leading zeros such as '007'" in result.stderr
    )
    assert "read the column as text" in result.stderr
    assert not out.exists()
