"""Any label type that parquet stores and pandas reads runs through `run`
and `apply`.

Labels that are non-integer floats, decimals, bytes or timestamps used to
stop the run with a traceback (scikit-learn refuses them as classification
targets, JSON refuses them as keys). The stages learn integer class codes,
and labels enter JSON through one conversion, so each runs to the end.
Durations stopped it too (NumPy's ``timedelta64`` is an integer type to
``isinstance``), and a model whose classes are dates, times of day or
decimals was refused by `apply` as if tampered with.
"""

import datetime as dt
import decimal

import numpy as np
import pandas as pd
import pytest
from reliability_utils import make_frame, write_pipeline
from typer.testing import CliRunner

from labelclean.cli.main import app

runner = CliRunner()

LABELS = {
    "float": (0.5, 1.5),
    "decimal": (decimal.Decimal("0.5"), decimal.Decimal("1.5")),
    "bytes": (b"cat", b"dog"),
    "timestamp": (dt.datetime(2020, 1, 1), dt.datetime(2021, 6, 1)),
    "date": (dt.date(2020, 1, 1), dt.date(2021, 6, 1)),
    "time": (dt.time(9, 30), dt.time(17, 0)),
    "duration": (pd.Timedelta(minutes=1), pd.Timedelta(hours=2)),
    # class codes that a float cannot tell apart (2**60 + 1 reads as 2**60)
    "big integer": (2**60 + 1, 2**60 + 2),
    "big integer, some missing": (2**60 + 1, 2**60 + 2),
}


@pytest.mark.parametrize("kind", sorted(LABELS))
def test_label_types_run_to_the_end(tmp_path, monkeypatch, kind):
    monkeypatch.chdir(tmp_path)
    frame = make_frame(n=80, seed=3)
    first, second = LABELS[kind]
    values = [first if v == "a" else second for v in frame["label"]]
    frame["label"] = pd.Series(values)
    if kind.endswith("some missing"):
        frame["label"] = frame["label"].astype("Int64").mask(frame.index % 20 == 0)
    frame.to_parquet("input.parquet")
    write_pipeline(tmp_path)
    argv = ["run", "input.parquet", "-p", "fast.toml", "--label", "label", "-o", "out"]
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    audit = pd.read_parquet("out/audit.parquet")
    assert len(audit) == 80
    assert set(audit["decision"]) <= {"kept", "corrected", "discarded"}
    cleaned = pd.read_parquet("out/cleaned.parquet")
    original = pd.read_parquet("input.parquet")
    assert cleaned["label"].dtype == original["label"].dtype
    assert set(cleaned["label"]) <= set(original["label"].dropna())
    assert np.isin(audit["observed_label"].dropna(), original["label"].dropna()).all()
    # the model file holds the classes, and apply loads it
    applied = runner.invoke(
        app, ["apply", "out/model.skops", "input.parquet", "-o", "new"]
    )
    assert applied.exit_code == 0, applied.output
    decided = pd.read_parquet("new/audit.parquet")
    assert len(decided) == 80
    assert np.isin(decided["cleaned_label"].dropna(), original["label"].dropna()).all()


def test_timestamps_with_a_time_zone_as_labels_say_apply_cannot_use_the_model(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    frame = make_frame(n=80, seed=3)
    first, second = (
        pd.Timestamp("2020-01-01", tz="UTC"),
        pd.Timestamp("2021-06-01", tz="UTC"),
    )
    frame["label"] = pd.Series([first if v == "a" else second for v in frame["label"]])
    frame.to_parquet("input.parquet")
    write_pipeline(tmp_path)
    argv = ["run", "input.parquet", "-p", "fast.toml", "--label", "label", "-o", "out"]
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert "timestamps with a time zone" in result.output
    cleaned = pd.read_parquet("out/cleaned.parquet")
    assert cleaned["label"].dtype == frame["label"].dtype
    applied = runner.invoke(
        app, ["apply", "out/model.skops", "input.parquet", "-o", "new"]
    )
    assert applied.exit_code != 0
    assert "timestamps with a time zone" in applied.output
    assert "tampered" not in applied.output
