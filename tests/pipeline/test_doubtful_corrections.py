"""Corrections the data cannot tell from no noise at all are withheld.

Two overlapping classes with every label right: a few rows of one class sit
deep in the other's region, and the evidence takes them for wrong labels at
an estimated correction precision over 0.9. The noise interval reaches 0
there (the labels admit no wrong label at all), so the low end of the
corrections' precision interval is 0: they are withheld and the rows
discarded, through the CLI, in the audit, the report and on new rows.
"""

import json
from html import unescape

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from typer.testing import CliRunner

import labelclean.pipeline._anchor as anchor_module
import labelclean.pipeline._corrections as corrections_module
from labelclean.cli.main import app
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.report import render_html

#: Fits of the decisions alone, without the default stack (test_calibration.py).
DECIDE = {"final_model": "cb_adaboost"}


@pytest.fixture(autouse=True)
def _flags_where_no_surest_row_disagrees(monkeypatch):
    """These clean tables show no wrong label among their surest rows, so the
    predictable reading flags nothing there (test_no_wrong_label_seen.py);
    that rule is set aside here, so that the corrections' own doubt is what
    is tested on the rows the evidence would flag."""
    monkeypatch.setattr(anchor_module, "_every_class_read", lambda P: False)


runner = CliRunner()


def _overlapping_clean_table(n=240, separation=2.0, seed=3):
    """Two Gaussian classes ``separation`` apart on both features; no label
    is wrong."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n) + separation * y,
            "b": rng.normal(size=n) + separation * y,
        }
    )
    return X, np.where(y == 1, "right", "left")


def _run(data, out):
    return runner.invoke(
        app, ["run", str(data), "-p", "binary-cbadaboost", "--label", "label",
              "--out", str(out)],
    )  # fmt: skip


def test_corrections_of_clean_overlapping_classes_are_withheld(tmp_path, monkeypatch):
    X, y = _overlapping_clean_table()
    data = tmp_path / "table.parquet"
    X.assign(label=y).to_parquet(data, index=False)

    # Without the rule the same run relabels rows whose labels are all right.
    with monkeypatch.context() as patch:
        patch.setattr(corrections_module, "DOUBTFUL_CORRECTION_PRECISION", 0.0)
        before = _run(data, tmp_path / "before")
    assert before.exit_code == 0, before.output
    before_audit = pd.read_parquet(tmp_path / "before" / "audit.parquet")
    relabelled = before_audit["decision"] == "corrected"
    assert relabelled.sum() >= 2

    res = _run(data, tmp_path / "out")
    assert res.exit_code == 0, res.output
    audit = pd.read_parquet(tmp_path / "out" / "audit.parquet")
    assert len(audit) == len(X)
    assert not (audit["decision"] == "corrected").any()
    # The rows once relabelled are discarded instead, and say why.
    once = relabelled.to_numpy()
    assert (audit.loc[once, "decision"] == "discarded").all()
    assert (audit.loc[once, "reason"] == "correction_not_precise").all()
    cleaned = pd.read_parquet(tmp_path / "out" / "cleaned.parquet")
    assert set(cleaned["label"]) <= set(y)
    kept = audit["decision"] == "kept"
    assert len(cleaned) == kept.sum()

    report = json.loads((tmp_path / "out" / "report.json").read_text())
    cal = report["run"]["calibration"]
    assert cal["corrections"] == 0 and not cal["corrections_allowed"]
    low, high = cal["doubtful_correction_precision_interval"]
    assert low < corrections_module.DOUBTFUL_CORRECTION_PRECISION <= high
    assert cal["noise_rate_interval"][0] == pytest.approx(0.0, abs=1e-9)
    assert all(pair["corrected"] == 0 for pair in cal["correction_pairs"])
    # The pairs had reached the target: only the rule stopped them.
    assert max(p["estimated_precision"] for p in cal["correction_pairs"]) >= 0.9
    html = (tmp_path / "out" / "report.html").read_text()
    assert "more likely wrong than right" in html
    assert "were discarded rather than relabelled" in html


def test_withheld_corrections_stay_withheld_on_new_rows(monkeypatch):
    X, y = _overlapping_clean_table()
    # New rows, some labelled against everything the features say.
    X_new, y_new = _overlapping_clean_table(n=120, seed=11)
    deep = (X_new["a"] + X_new["b"]).abs().to_numpy() > 4.0
    y_new = np.where(deep, np.where(y_new == "left", "right", "left"), y_new)

    with monkeypatch.context() as patch:
        patch.setattr(corrections_module, "DOUBTFUL_CORRECTION_PRECISION", 0.0)
        unruled = LabelCleaner(**DECIDE, random_state=0).fit(X, y).audit(X_new, y_new)
    assert (unruled["decision"].to_numpy()[deep] == "corrected").sum() >= 3

    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y)
    assert cleaner.calibration_["doubtful_correction_precision_interval"] is not None
    audit = cleaner.audit(X_new, y_new)
    assert len(audit) == len(X_new)
    assert not (audit["decision"] == "corrected").any()
    was_corrected = unruled["decision"].to_numpy() == "corrected"
    assert (audit["decision"].to_numpy()[was_corrected] == "discarded").all()
    assert (audit["reason"].to_numpy()[was_corrected] == "correction_not_precise").all()


def test_corrections_of_flipped_labels_stand():
    X, y = load_wine(return_X_y=True, as_frame=True)
    noisy, flipped = flip_labels(y.to_numpy(), 0.2, random_state=0)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, noisy)
    cal = cleaner.calibration_
    assert cal["doubtful_correction_precision_interval"] is None
    assert cal["corrections_allowed"] and cal["corrections"] > 0
    assert cal["correction_precision_interval"][0] >= 0.5
    audit = cleaner.audit_
    corrected = (audit["decision"] == "corrected").to_numpy()
    restored = audit["cleaned_label"].to_numpy()[corrected] == y.to_numpy()[corrected]
    assert flipped[corrected].all() and restored.all()


def test_the_report_names_the_least_noise_the_data_admit(tmp_path):
    X, y = _overlapping_clean_table()
    data = tmp_path / "table.parquet"
    X.assign(label=y).to_parquet(data, index=False)
    assert _run(data, tmp_path / "out").exit_code == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    cal = report["run"]["calibration"]
    text = unescape(render_html(report, plots=False))
    assert "the data admit no wrong label at all" in text
    low = cal["doubtful_correction_precision_interval"][0]
    assert f"reaches down to {100 * low:.1f}%" in text
    # Where the noise interval stops short of 0, the report gives its low end.
    cal["noise_rate_interval"][0] = 0.012
    text = unescape(render_html(report, plots=False))
    assert "the data admit as little noise as 1.2%" in text


def test_a_single_sure_correction_is_judged_on_its_expected_precision():
    # One correction whose posterior is 0.97: the share of it measured right
    # is 0 or 1, so its reported interval takes half a step (a half) on each
    # side and reaches below one half. The doubt reads the expected
    # precision's interval, which does not: the correction stands.
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 2, 200)
    P = np.where(codes[:, None] == np.arange(2), 0.97, 0.03)
    codes[0], alternative = 0, np.zeros(200, int)
    P[0], alternative[0] = [0.005, 0.995], 1
    Q = np.array([[0.475, 0.025], [0.025, 0.475]])
    corrected = np.zeros(200, bool)
    corrected[0] = True
    strength = np.where(corrected, 0.97, 0.0)
    estimated, expected = corrections_module.correction_estimates(
        (P, P), codes, Q, (alternative, strength, corrected, {"alpha": 0.0}),
        [0.03, 0.07],
    )  # fmt: skip
    reported = estimated["correction_precision_interval"]
    assert reported[0] < corrections_module.DOUBTFUL_CORRECTION_PRECISION
    thresholds, pairs = np.full((2, 2), 0.9), [{"corrected": 1}]
    assert expected[0] >= corrections_module.DOUBTFUL_CORRECTION_PRECISION
    assert expected[0] > reported[0] and expected[1] <= reported[1]
    kept = corrections_module.withhold_doubtful(
        thresholds, pairs, corrected, estimated, 0.9, expected
    )
    assert kept[3] is None and kept[1][0]  # not withheld
    assert np.isfinite(kept[0]).all() and pairs[0]["corrected"] == 1
    assert kept[2]["correction_precision_interval"] == reported
    # Judged on the reported interval, it would have been withheld.
    withheld = corrections_module.withhold_doubtful(
        np.full((2, 2), 0.9), [{"corrected": 1}], corrected, estimated, 0.9, reported
    )
    assert withheld[3] == reported and not withheld[1].any()
