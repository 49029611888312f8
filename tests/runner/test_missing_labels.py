"""Rows without a label: discarded with reason ``missing_label``, never fitted
on, every row still in the audit (run, apply, a sampled fit and the API)."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.pipeline import LabelCleaner

UNLABELLED = [3, 50, 120, 177]  # rows of classes a, a, b, c


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    data = load_wine(as_frame=True)
    frame = data.frame.rename(columns={"target": "cultivar"})
    frame["cultivar"] = frame["cultivar"].map({0: "a", 1: "b", 2: "c"}).astype(object)
    truth = frame["cultivar"].copy()
    frame.loc[UNLABELLED, "cultivar"] = None
    path = tmp_path_factory.mktemp("in") / "wine.parquet"
    frame.to_parquet(path)
    return path, frame, truth


def _run(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


@pytest.mark.parametrize("extra", [[], ["--max-fit-rows", "120", "--batch-size", "50"]])
def test_run_discards_unlabelled_rows_and_fits_on_the_others(wine, tmp_path, extra):
    path, frame, truth = wine
    before = path.read_bytes()
    out = tmp_path / "out"
    result = _run("run", path, "-p", "multiclass-rosr", "--label", "cultivar",
                  "-o", out, *extra)  # fmt: skip
    assert "4 row(s) have no label in 'cultivar'" in result.stderr
    audit = pd.read_parquet(out / "audit.parquet")
    assert len(audit) == len(frame) and audit.index.equals(frame.index)
    rows = audit.loc[UNLABELLED]
    assert (rows["decision"] == "discarded").all()
    assert (rows["reason"] == "missing_label").all()
    assert rows[["observed_label", "cleaned_label", "confidence"]].isna().all().all()
    assert rows["noise_probability"].isna().all()
    # what the fitted stages would label them (wine's classes are separable)
    np.testing.assert_array_equal(rows["model_label"], truth[UNLABELLED])
    assert (audit.drop(index=UNLABELLED)["reason"] != "missing_label").all()
    cleaned = pd.read_parquet(out / "cleaned.parquet")
    assert not set(UNLABELLED) & set(cleaned.index)
    assert cleaned["cultivar"].notna().all()
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["n_missing_label"] == 4
    assert report["summary"]["n_flagged"] == (
        report["summary"]["decisions"]["discarded"]
        + report["summary"]["decisions"]["corrected"]
        - 4
    )
    checks = {c["name"]: c for v in report["validation"] for c in v["checks"]}
    assert checks["label_not_null"]["severity"] == "warning"
    assert checks["label_not_null"]["unexpected_count"] == 4
    # the unlabelled rows are not discards of labels: the share leaves them out
    assert "rows without a label aside" in checks["discarded_share"]["message"]
    assert checks["discarded_share"]["details"]["share"] == pytest.approx(
        (report["summary"]["decisions"]["discarded"] - 4) / (len(frame) - 4)
    )
    assert all(r["row_id"] not in UNLABELLED for r in report["suspects"]["rows"])
    html = (out / "report.html").read_text()
    assert "4 of the discarded rows had no label" in html
    if not extra:
        assert "fitted on the 174 input rows that have a label, of 178" in html
    assert path.read_bytes() == before


def test_apply_discards_unlabelled_rows(wine, tmp_path):
    path, frame, _ = wine
    _run("run", path, "-p", "multiclass-rosr", "--label", "cultivar",
         "-o", tmp_path / "fit")  # fmt: skip
    _run("apply", tmp_path / "fit" / "model.skops", path, "-o", tmp_path / "new",
         "--batch-size", "50")  # fmt: skip
    audit = pd.read_parquet(tmp_path / "new" / "audit.parquet")
    assert len(audit) == len(frame)
    assert (audit.loc[UNLABELLED, "reason"] == "missing_label").all()
    assert audit.loc[UNLABELLED, "model_label"].notna().all()


def test_integer_labels_with_missing_values_keep_their_type(tmp_path):
    data = load_wine(as_frame=True)
    frame = data.frame.rename(columns={"target": "cultivar"})
    frame["cultivar"] = frame["cultivar"].astype("Int64")
    frame.loc[UNLABELLED, "cultivar"] = pd.NA
    path = tmp_path / "in.parquet"
    frame.to_parquet(path)
    _run("run", path, "-p", "multiclass-rosr", "--label", "cultivar",
         "-o", tmp_path / "out", "--batch-size", "50",
         "--max-fit-rows", "120")  # fmt: skip
    audit = pd.read_parquet(tmp_path / "out" / "audit.parquet")
    assert audit["observed_label"].dtype == "Int64"
    assert audit["cleaned_label"].dtype == "Int64"
    assert (audit.loc[UNLABELLED, "reason"] == "missing_label").all()


def test_the_api_audits_rows_without_a_label_but_does_not_fit_on_them(wine):
    _, frame, truth = wine
    X = frame.drop(columns="cultivar")
    labelled = frame["cultivar"].notna()
    cleaner = LabelCleaner(random_state=0)
    cleaner.fit(X[labelled], frame.loc[labelled, "cultivar"])
    audit = cleaner.audit(X, frame["cultivar"], user_columns=False)
    assert (audit.loc[UNLABELLED, "reason"] == "missing_label").all()
    assert audit.loc[UNLABELLED, "spl_weight"].isna().all()
    np.testing.assert_array_equal(audit.loc[UNLABELLED, "trusted_label"],
                                  truth[UNLABELLED])  # fmt: skip
    with pytest.raises(ValueError, match="missing label"):
        LabelCleaner(random_state=0).fit(X, frame["cultivar"])
