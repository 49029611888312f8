"""``labelclean apply`` on batches whose features left the fit's range."""

import json
from html import unescape

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.noise import flip_labels
from labelclean.pipeline import dumps_cleaner, load_cleaner

runner = CliRunner()


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """A run on 600 rows (two numbers, a category, a date) and 300 new rows."""
    root = tmp_path_factory.mktemp("shift")
    X, y = make_blobs(900, centers=2, cluster_std=1.5, random_state=1)
    noisy, _ = flip_labels(np.array(["neg", "pos"])[y], 0.1, random_state=0)
    frame = pd.DataFrame(X, columns=["f1", "f2"])
    frame["shop"] = np.random.default_rng(0).choice(["north", "south", "east"], 900)
    frame["day"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(900), "h")
    frame["label"] = noisy
    frame.iloc[:600].to_parquet(root / "train.parquet", index=False)
    # the shipped pipeline for two classes, as a user's first run
    argv = ["run", str(root / "train.parquet"), "--label", "label"]
    res = runner.invoke(app, [*argv, "--out", str(root / "fit")])
    assert res.exit_code == 0, res.output
    return root, frame.iloc[600:].reset_index(drop=True)


def _apply(root, batch, name, *extra):
    path = root / f"{name}.parquet"
    batch.to_parquet(path, index=False)
    out = root / name
    res = runner.invoke(app, ["apply", str(root / "fit" / "model.skops"), str(path),
                              "--out", str(out), *extra])  # fmt: skip
    report = json.loads((out / "report.json").read_text())
    return res, report, out


def _check(report):
    (output,) = [v for v in report["validation"] if v["suite"] == "labelclean_output"]
    (check,) = [c for c in output["checks"] if c["name"] == "features_within_fit"]
    return check


def test_a_batch_like_the_fit_passes_with_later_dates(fitted):
    root, batch = fitted  # every day of the batch lies after the fit's last
    res, report, _ = _apply(root, batch, "same")
    assert res.exit_code == 0, res.output
    assert report["run"]["feature_shift"] == {"columns_compared": 4, "shifted": []}
    assert _check(report)["success"]
    assert "features_shifted" not in res.stderr
    assert "outside_fit" not in [r["reason"] for r in report["reasons"]]


def test_a_unit_change_is_named_and_fails_the_guardrail(fitted):
    root, batch = fitted
    changed = batch.assign(f1=batch["f1"] * 1000.0)
    res, report, out = _apply(root, changed, "unit")
    assert res.exit_code == 0, res.output  # published, and said loudly
    (item,) = report["run"]["feature_shift"]["shifted"]
    assert (item["column"], item["kind"]) == ("f1", "numeric")
    assert item["measure"] == "outside"
    assert item["batch"] > 0.9 and item["rows"] == 300
    audit = pd.read_parquet(out / "audit.parquet")
    assert len(audit) == 300
    far = audit["reason"] == "outside_fit"
    (line,) = [x for x in res.stderr.splitlines() if "[features_shifted]" in x]
    assert "'f1'" in line and "of values outside the fit's range" in line
    told = f"; {far.sum()} row(s) with a number far outside the fit's range were"
    assert line.endswith(told + " kept as they came (reason outside_fit)")
    assert report["cautions"][0]["code"] == "guardrails_failed"
    assert "features_within_fit" in report["cautions"][0]["message"]
    assert not _check(report)["success"] and _check(report)["examples"] == ["f1"]
    html = unescape((out / "report.html").read_text())
    assert "This batch's features are not where the fit's were: 'f1'" in html
    # a row whose f1 lies beyond a range width from the fit's range is kept
    # as it came: the evidence does not reach it
    assert far.mean() > 0.9 and (audit.loc[far, "decision"] == "kept").all()
    assert (audit.loc[far, "cleaned_label"] == audit.loc[far, "label"]).all()
    (entry,) = [r for r in report["reasons"] if r["reason"] == "outside_fit"]
    assert (
        entry["count"] == far.sum() and "no evidence reaches it" in entry["description"]
    )


def test_with_fail_on_a_shifted_batch_exits_7_and_withholds_its_rows(fitted):
    root, batch = fitted
    changed = batch.assign(f2=np.nan)  # the column went missing in every row
    res, report, out = _apply(root, changed, "strict", "--fail-on", "error")
    assert res.exit_code == 7, res.output
    assert "features_within_fit" in res.stderr.strip().splitlines()[-1]
    (item,) = report["run"]["feature_shift"]["shifted"]
    assert (item["column"], item["measure"], item["batch"]) == ("f2", "missing", 1.0)
    assert not (out / "cleaned.parquet").exists()
    assert (out / "cleaned.parquet.rejected").exists()
    assert len(pd.read_parquet(out / "audit.parquet")) == 300


def test_new_levels_of_a_category_are_named(fitted):
    root, batch = fitted
    changed = batch.assign(shop=batch["shop"].str.upper())  # recoded upstream
    res, report, _ = _apply(root, changed, "levels")
    (item,) = report["run"]["feature_shift"]["shifted"]
    assert (item["column"], item["measure"], item["batch"]) == ("shop", "outside", 1.0)
    assert "of a level the fit never saw" in res.stderr


def test_a_few_rows_out_of_range_are_no_shift(fitted):
    root, batch = fitted
    changed = batch.copy()
    changed.loc[:4, "f1"] = 1e6  # five extreme rows of 300
    res, report, out = _apply(root, changed, "few")
    assert report["run"]["feature_shift"]["shifted"] == []
    assert "features_within_fit" not in res.stderr
    # each of them is read on its own all the same
    reasons = pd.read_parquet(out / "audit.parquet")["reason"]
    assert (reasons == "outside_fit").tolist() == [True] * 5 + [False] * 295


def test_a_model_saved_without_a_profile_applies_uncompared(fitted, tmp_path):
    root, batch = fitted
    cleaner, meta = load_cleaner(root / "fit" / "model.skops")
    del cleaner.feature_profile_  # a model file written before the profile
    (tmp_path / "model.skops").write_bytes(dumps_cleaner(cleaner, metadata=meta))
    path = tmp_path / "batch.parquet"
    batch.assign(f1=batch["f1"] * 1000.0).to_parquet(path, index=False)
    res = runner.invoke(app, ["apply", str(tmp_path / "model.skops"), str(path),
                              "--out", str(tmp_path / "out")])  # fmt: skip
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["run"]["feature_shift"] is None
    output = report["validation"][-1]["checks"]
    assert "features_within_fit" not in [c["name"] for c in output]
    assert "outside_fit" not in [r["reason"] for r in report["reasons"]]
