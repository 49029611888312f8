"""Crashes that became one-line errors: huge feature values, list labels,
damaged model files; and random column types through `run` never give a
traceback."""

import decimal
import zipfile

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_utils import (
    EXIT_DATA,
    EXIT_DEFINITION,
    make_frame,
    write_pipeline,
)
from typer.testing import CliRunner

from labelclean.cli.main import app

runner = CliRunner()


def _error_line(result):
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1, result.stderr
    assert all(line.startswith(("error: ", "WARNING: ")) for line in lines)
    return errors[0]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_pipeline(tmp_path)
    return tmp_path


def _run(path, out="out"):
    return runner.invoke(
        app, ["run", str(path), "-p", "fast.toml", "--label", "label", "-o", out]
    )


def test_a_huge_feature_value_is_a_data_error(workdir):
    frame = make_frame(n=60)
    frame.loc[7, "f2"] = 1e308
    frame.to_parquet("in.parquet")
    result = _run("in.parquet")
    assert result.exit_code == EXIT_DATA
    line = _error_line(result)
    assert "feature column 'f2' has 1 value(s) of magnitude 1e+150 or more" in line


def test_list_labels_are_a_data_error(workdir):
    frame = make_frame(n=60)
    frame["label"] = [[1, 2] if i % 2 else [3] for i in range(60)]
    frame.to_parquet("in.parquet")
    result = _run("in.parquet")
    assert result.exit_code == EXIT_DATA
    assert "not one class per row" in _error_line(result)


@pytest.fixture
def model(workdir):
    make_frame(n=60).to_parquet("in.parquet")
    assert _run("in.parquet", "fit").exit_code == 0
    data = (workdir / "fit" / "model.skops").read_bytes()
    return sio.loads(data, trusted=sio.get_untrusted_types(data=data))


def _apply(path):
    return runner.invoke(app, ["apply", str(path), "in.parquet", "-o", "applied"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p["metadata"].pop("features"), "its metadata lacks ['features']"),
        (lambda p: p["metadata"].update(schema="oops"), "schema is not a mapping"),
        (lambda p: p["metadata"].update(label=["x"]), "label is not a column name"),
        (lambda p: p.update(cleaner="not an estimator"),
         "holds a str where the fitted pipeline belongs"),
        (lambda p: p.update(metadata=[1, 2]), "metadata is a list"),
    ],
)  # fmt: skip
def test_damaged_model_metadata_is_a_definition_error(workdir, model, change, message):
    payload = dict(model, metadata=dict(model["metadata"]))
    change(payload)
    (workdir / "damaged.skops").write_bytes(sio.dumps(payload))
    result = _apply(workdir / "damaged.skops")
    assert result.exit_code == EXIT_DEFINITION
    assert message in _error_line(result)
    assert not (workdir / "applied").exists()


def test_a_deeply_nested_model_file_is_a_definition_error(workdir, model):
    source = zipfile.ZipFile(workdir / "fit" / "model.skops")
    text = source.read("schema.json").decode()
    node = '{"__class__": "list", "__module__": "builtins", "__loader__": "ListNode", '
    deep = (node + '"content": [') * 3000 + "]}" * 3000
    at = text.index('"metadata"')
    text = text[:at] + '"metadata": ' + deep + ', "old_metadata"' + text[at + 10 :]
    with zipfile.ZipFile(workdir / "deep.skops", "w") as out:
        for item in source.infolist():
            body = text if item.filename == "schema.json" else source.read(item)
            out.writestr(item, body)
    result = _apply(workdir / "deep.skops")
    assert result.exit_code == EXIT_DEFINITION
    assert "nested too deeply" in _error_line(result)


# -- random column types through `run` ---------------------------------------

N = 40


def _column(kind, rng):
    if kind == "int":
        return rng.integers(-5, 5, N)
    if kind == "float":
        return rng.normal(size=N)
    if kind == "float_nan":
        return np.where(rng.random(N) < 0.2, np.nan, rng.normal(size=N))
    if kind == "float_inf":
        return np.where(np.arange(N) == 3, np.inf, rng.normal(size=N))
    if kind == "huge":
        return np.where(np.arange(N) == 5, 1e308, rng.normal(size=N))
    if kind == "str":
        return rng.choice(["x", "y", "z"], N)
    if kind == "bool":
        return rng.random(N) < 0.5
    if kind == "datetime":
        return pd.date_range("2024-01-01", periods=N, freq="D")
    if kind == "category":
        return pd.Categorical(rng.choice(["lo", "mid", "hi"], N))
    if kind == "bytes":
        return [bytes([int(v)]) for v in rng.integers(97, 100, N)]
    if kind == "decimal":
        return [decimal.Decimal(int(v)) / 2 for v in rng.integers(0, 4, N)]
    if kind == "list":
        return [[int(v)] for v in rng.integers(0, 3, N)]
    if kind == "none_mixed":
        return [None if i % 7 == 0 else "a" for i in range(N)]
    raise AssertionError(kind)


KINDS = ["int", "float", "float_nan", "float_inf", "huge", "str", "bool",
         "datetime", "category", "bytes", "decimal", "list", "none_mixed"]  # fmt: skip


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    label_kind=st.sampled_from(KINDS),
    feature_kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=3),
    seed=st.integers(0, 2**16),
)
def test_random_dtypes_through_run(workdir, label_kind, feature_kinds, seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {f"c{i}": _column(k, rng) for i, k in enumerate(feature_kinds)}
    )
    frame["label"] = _column(label_kind, rng)
    path = workdir / f"in-{seed}.parquet"
    try:
        frame.to_parquet(path)
    except Exception:  # pyarrow cannot store this combination; not our input
        return
    out = workdir / f"out-{seed}-{label_kind}-{'-'.join(feature_kinds)}"
    result = _run(path, str(out))
    assert result.exit_code in (0, EXIT_DATA), (result.exit_code, result.output)
    if result.exit_code == 0:
        audit = pd.read_parquet(out / "audit.parquet")
        assert len(audit) == N  # every row accounted for
        assert "Traceback" not in result.output
    else:
        _error_line(result)
        assert not out.exists()
