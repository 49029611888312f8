"""The Dask engine gives the same rows and decisions as the single-machine stream."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")

from labelclean.io import read_parquet
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner, dumps_cleaner, load_cleaner
from labelclean.runner import apply_model, run_pipeline
from labelclean.runner._dask import (
    audit_partition,
    dask_client,
    read_partitions,
)
from labelclean.runner._run import feature_schema as _feature_schema

FEATURES = [f"f{i}" for i in range(4)]


def _frame(n, seed):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, len(FEATURES)))
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    y, _ = flip_labels(y, 0.2, random_state=seed)
    frame = pd.DataFrame(X, columns=FEATURES)
    frame["label"] = y
    return frame


@pytest.fixture(scope="module")
def client():
    with dask_client(n_workers=1, threads_per_worker=1, processes=False) as c:
        yield c


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    train = _frame(300, 0)
    cleaner = LabelCleaner(cv=3, random_state=0).fit(train[FEATURES], train["label"])
    folder = tmp_path_factory.mktemp("model")
    meta = {
        "label": "label",
        "id_column": None,
        "features": FEATURES,
        "schema": _feature_schema(train, FEATURES),
        "label_dtype": "int64",
        "pipeline": "test",
        "seed": 0,
    }
    (folder / "model.skops").write_bytes(dumps_cleaner(cleaner, metadata=meta))
    data = folder / "new"
    data.mkdir()
    new = _frame(900, 1)
    new.iloc[:500].to_parquet(data / "a.parquet", row_group_size=200)
    new.iloc[500:].to_parquet(data / "b.parquet", row_group_size=200)
    return cleaner, folder / "model.skops", new, data


def _report_without_engine(path):
    report = json.loads(path.read_text())
    report["run"].pop("engine")
    for dist in report["distributions"].values():
        if dist.get("summary"):
            dist["summary"]["mean"] = round(dist["summary"]["mean"], 12)
    return report


def test_apply_dask_counts_the_features_like_the_stream(fitted, client, tmp_path):
    """A column missing in one file's rows: its partitions' counts add up on
    Dask to the stream's, and name it; rows far outside the fit's range are
    kept as ``outside_fit`` on both engines alike."""
    _, model, new, _ = fitted
    data = tmp_path / "new"
    data.mkdir()
    first = new.iloc[:500].copy()
    first.loc[first.index[::50], "f0"] = 1e6  # ten rows far outside
    first.to_parquet(data / "a.parquet", row_group_size=200)
    new.iloc[500:].assign(f2=np.nan).to_parquet(data / "b.parquet", row_group_size=200)
    local = apply_model(model, data, tmp_path / "local", batch_size=128)
    dask = apply_model(model, data, tmp_path / "dask", engine="dask",
                       scheduler=client.scheduler.address)  # fmt: skip
    shifts = [
        json.loads((tmp_path / e / "report.json").read_text())["run"]["feature_shift"]
        for e in ("local", "dask")
    ]
    assert shifts[0] == shifts[1]
    (item,) = shifts[0]["shifted"]
    assert (item["column"], item["measure"]) == ("f2", "missing")
    assert item["batch"] == pytest.approx(400 / 900) and item["rows"] == 900
    assert local.failed_checks == dask.failed_checks
    assert "features_within_fit" in local.failed_checks
    audits = [read_parquet(tmp_path / "local" / "audit.parquet"),
              read_parquet(tmp_path / "dask" / "audit")]  # fmt: skip
    pd.testing.assert_frame_equal(*audits, check_index_type=False)
    assert (audits[0]["reason"] == "outside_fit").sum() == 10


def test_apply_dask_equals_local_stream(fitted, client, tmp_path):
    _, model, new, data = fitted
    apply_model(model, data, tmp_path / "local", batch_size=128)
    apply_model(
        model,
        data,
        tmp_path / "dask",
        engine="dask",
        scheduler=client.scheduler.address,
    )
    for name in ("audit", "cleaned"):
        local = read_parquet(tmp_path / "local" / f"{name}.parquet")
        dask = read_parquet(tmp_path / "dask" / name)
        assert len(list((tmp_path / "dask" / name).glob("part.*.parquet"))) == 5
        pd.testing.assert_frame_equal(local, dask, check_index_type=False)
    assert len(read_parquet(tmp_path / "dask" / "audit")) == len(new)
    # Each manifest names what its folder holds: files, or folders of parts.
    for engine, parts in (("local", ".parquet"), ("dask", "")):
        manifest = json.loads((tmp_path / engine / "manifest.json").read_text())
        assert manifest["outputs"]["audit"] == f"audit{parts}"
        assert manifest["outputs"]["cleaned"] == f"cleaned{parts}"
        for name in manifest["outputs"].values():
            assert (tmp_path / engine / name).exists(), (engine, name)
    assert _report_without_engine(
        tmp_path / "local" / "report.json"
    ) == _report_without_engine(tmp_path / "dask" / "report.json")


def test_audit_partition_in_user_dask_job(fitted, client):
    cleaner, _, new, data = fitted
    ddf = read_partitions(data)
    assert ddf.npartitions == 5
    shipped = client.scatter(cleaner, broadcast=True)
    meta = audit_partition(new.iloc[:2], cleaner, label="label", features=FEATURES)
    out = ddf.map_partitions(
        audit_partition,
        shipped,
        label="label",
        features=FEATURES,
        meta=meta.iloc[:0],
    ).compute()
    whole = cleaner.audit(new[FEATURES], new["label"])
    assert out["decision"].tolist() == whole["decision"].tolist()
    np.testing.assert_array_equal(out["confidence"], whole["confidence"])


def test_run_sampled_dask_equals_local(client, tmp_path):
    frame = _frame(900, 2)
    frame.to_parquet(tmp_path / "in.parquet", row_group_size=300)
    kw = {
        "pipeline": "binary-cbadaboost",
        "label": "label",
        "max_fit_rows": 300,
        "batch_size": 200,
    }
    local = run_pipeline(tmp_path / "in.parquet", tmp_path / "l", **kw)
    on_dask = run_pipeline(
        tmp_path / "in.parquet",
        tmp_path / "d",
        engine="dask",
        scheduler=client.scheduler.address,
        **kw,
    )
    for result in (local, on_dask):  # the files (and part folders) written
        assert all(Path(path).exists() for path in result.files.values())
    assert Path(on_dask.files["audit"]).is_dir()
    a = read_parquet(tmp_path / "l" / "audit.parquet")
    b = read_parquet(tmp_path / "d" / "audit")
    pd.testing.assert_frame_equal(a, b, check_index_type=False)
    # the sample keeps its fit-time evidence (out-of-fold model probabilities),
    # the other rows are decided by the fitted pipeline, as apply would
    cleaner, _ = load_cleaner(tmp_path / "l" / "model.skops")
    again = cleaner.audit(frame[FEATURES], frame["label"])
    fit_time = (a["model_probability"] != again["model_probability"]).to_numpy()
    assert fit_time.sum() == 300
    assert a["spl_weight"].notna().all()
    assert a["spl_zero_round"][~fit_time].isna().all()
    report = json.loads((tmp_path / "l" / "report.json").read_text())
    assert report["run"]["fitted_on"]["sampled"] is True
    assert report["run"]["fitted_on"]["rows"] == 300
    assert local.n_rows == 900


def test_failed_guardrail_withholds_dask_parts(client, tmp_path):
    from labelclean.exceptions import GuardrailError

    frame = _frame(600, 3)
    frame.to_parquet(tmp_path / "in.parquet", row_group_size=200)
    strict = tmp_path / "strict.toml"
    strict.write_text(
        '[pipeline]\nname = "strict"\n[[stages]]\nname = "confidence"\n'
        'kind = "knn_confidence"\n[[stages]]\nname = "model"\nkind = "rosr"\n'
        '[validation]\nmax_changed_share_per_class = 0.0\nfail_on = "error"\n'
    )
    out = tmp_path / "out"
    with pytest.raises(
        GuardrailError, match=r"class_net_change.*\(cleaned\.rejected\)"
    ) as raised:
        run_pipeline(
            tmp_path / "in.parquet",
            out,
            pipeline=strict,
            label="label",
            engine="dask",
            scheduler=client.scheduler.address,
        )
    assert not (out / "cleaned").exists()
    # the error carries the run's cautions, the failed guardrail first
    report = json.loads((out / "report.json").read_text())
    assert raised.value.cautions == report["cautions"]
    assert raised.value.cautions[0]["code"] == "guardrails_failed"
    assert "withheld as 'cleaned.rejected'" in raised.value.cautions[0]["message"]
    assert list((out / "cleaned.rejected").glob("part.*.parquet"))
    report = json.loads((out / "report.json").read_text())
    assert report["run"]["withholding"]["withheld"] == "cleaned.rejected"
    assert len(read_parquet(out / "audit")) == len(frame)


def test_cli_with_dask_keeps_dask_logging_off_stderr(tmp_path, monkeypatch):
    # A local cluster announces every worker at INFO; none of it reaches stderr
    # unless LABELCLEAN_LOG_LEVEL=DEBUG asks for everything.
    from typer.testing import CliRunner

    from labelclean.cli.main import app

    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    path = tmp_path / "in.parquet"
    _frame(200, 3).to_parquet(path)
    argv = ["run", str(path), "-p", "multiclass-rosr", "--label", "label",
            "-o", str(tmp_path / "out"), "--engine", "dask"]  # fmt: skip
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    monkeypatch.setenv("LABELCLEAN_LOG_LEVEL", "DEBUG")
    import logging

    root, package = logging.getLogger(), logging.getLogger("labelclean")
    levels = root.level, package.level
    try:
        argv[-3] = str(tmp_path / "out2")
        loud = CliRunner().invoke(app, argv)
    finally:
        root.setLevel(levels[0])
        package.setLevel(levels[1])
    assert loud.exit_code == 0, loud.output
    assert "Scheduler" in loud.stderr or "worker" in loud.stderr.lower()
