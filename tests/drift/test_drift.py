"""Label-noise drift: every run and apply records its profile; `drift`
flags a batch whose noise doubled in one class and stays quiet on a batch
drawn from the same distribution."""

import base64
import json
import re
from html import unescape

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.drift import compare
from labelclean.noise import flip_labels

runner = CliRunner()

PIPELINE = """
[pipeline]
name = "fast"
[data]
label = "label"
[[stages]]
name = "confidence"
kind = "knn"
[[stages]]
name = "model"
kind = "cb_adaboost"
params = { n_estimators = 30 }
"""


def _batch(seed, rates):
    X, y = make_blobs(1500, centers=[[0, 0], [3, 3]], random_state=seed)
    noisy, _ = flip_labels(
        np.array(["a", "b"])[y], rates, kind="class_conditional", random_state=seed
    )
    frame = pd.DataFrame(X, columns=["f1", "f2"])
    frame["label"] = noisy
    return frame


@pytest.fixture(scope="module")
def weeks(tmp_path_factory):
    """A fitted pipeline, two batches like its training data, and one where
    twice as many rows of 'b' carry the label 'a'."""
    root = tmp_path_factory.mktemp("drift")
    (root / "fast.toml").write_text(PIPELINE)
    same = {"a": 0.1, "b": 0.1}
    _batch(0, same).to_parquet(root / "train.parquet")
    argv = ["run", str(root / "train.parquet"), "-p", str(root / "fast.toml"),
            "-o", str(root / "train")]  # fmt: skip
    assert runner.invoke(app, argv).exit_code == 0
    for name, seed, rates in [
        ("week1", 1, same), ("week2", 2, same), ("week3", 3, {"a": 0.1, "b": 0.2})
    ]:  # fmt: skip
        _batch(seed, rates).to_parquet(root / f"{name}.parquet")
        result = runner.invoke(
            app,
            ["apply", str(root / "train" / "model.skops"),
             str(root / f"{name}.parquet"), "-o", str(root / name)],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    return root


def test_every_run_and_apply_records_its_noise_profile(weeks):
    for name in ("train", "week1"):
        report = json.loads((weeks / name / "report.json").read_text())
        profile = report["noise_profile"]
        labels = [c["label"] for c in profile["classes"]]
        assert labels == ["a", "b"]
        for c in profile["classes"]:
            # about 10 % of each observed class is wrong
            assert 0.04 < c["mean_noise_probability"] < 0.16
            assert c["rows_with_noise_probability"] == c["rows"]
        assert "confidence" in report["distributions"]  # its distribution


def test_quiet_on_a_batch_from_the_same_distribution(weeks, tmp_path):
    out = tmp_path / "drift"
    result = runner.invoke(
        app, ["drift", str(weeks / "week1"), str(weeks / "week2"), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "no class drifted" in result.stdout
    drift = json.loads((out / "drift.json").read_text())
    assert drift["success"] and drift["alerts"] == []
    assert "No class drifted." in (out / "drift.html").read_text()


def test_flags_doubled_noise_in_one_class(weeks, tmp_path):
    out = tmp_path / "drift"
    argv = ["drift", str(weeks / "week2"), str(weeks / "week3"), "-o", str(out),
            "--baseline", str(weeks / "week1")]  # fmt: skip
    result = runner.invoke(app, argv)
    assert result.exit_code == 7, result.output
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("error: label-noise drift")
    drift = json.loads((out / "drift.json").read_text())  # written all the same
    assert drift["baseline"] == str(weeks / "week1")
    assert [r["name"] for r in drift["runs"]] == [
        str(weeks / f"week{i}") for i in (1, 2, 3)
    ]
    # Rows of 'b' relabelled 'a': the share of wrong labels among the rows
    # labelled 'a' rose (from about 10 % to about 18 %), and so did the share
    # of them the model assigns to 'b'; 'b' did not drift.
    assert [(a["run"], a["label"], a["measure"]) for a in drift["alerts"]] == [
        (str(weeks / "week3"), "a", "noise_probability"),
        (str(weeks / "week3"), "a", "disagreement"),
    ]
    assert all(a["increase"] > 0.05 for a in drift["alerts"])
    assert errors[0].endswith(f"(and 1 more alert(s)); see {out / 'drift.html'}.")
    page = (out / "drift.html").read_text()
    assert "class='alert'" in page and "default-src 'none'" in page
    # The trend is an SVG whose class names are text the browser draws.
    (plot,) = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', page)
    svg = base64.b64decode(plot).decode("utf-8")
    assert ">a</text>" in svg and ">b</text>" in svg


def test_compare_needs_the_rise_to_exceed_its_standard_error():
    def report(mean, sd, n):
        return {
            "noise_profile": {
                "classes": [
                    {"label": "rare", "rows": n, "rows_with_noise_probability": n,
                     "mean_noise_probability": mean, "sd_noise_probability": sd}
                ]
            }
        }  # fmt: skip

    # +10 points on 12 rows with a wide spread: within sampling noise.
    assert compare([report(0.1, 0.3, 12), report(0.2, 0.4, 12)])["success"]
    # The same rise on 2,000 rows is drift.
    assert not compare([report(0.1, 0.3, 2000), report(0.2, 0.4, 2000)])["success"]
    # A fall is never drift.
    assert compare([report(0.3, 0.1, 2000), report(0.1, 0.1, 2000)])["success"]


def test_a_folder_without_a_report_is_an_input_error(weeks, tmp_path):
    (tmp_path / "empty").mkdir()
    result = runner.invoke(
        app, ["drift", str(weeks / "week1"), str(tmp_path / "empty"), "-o",
              str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 4
    assert "no report.json" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_class_kept_unchecked_is_named_not_checked_never_quiet(tmp_path):
    """Where the evidence does not tell the classes apart, every noise
    probability is 0 by assumption, in the training run and in every batch:
    a rise of the wrong labels could not show, so `drift` must not call such
    a class quiet."""
    (tmp_path / "fast.toml").write_text(PIPELINE)
    for name, seed, rate in [("train", 0, 0.25), ("later", 1, 0.4)]:
        X, y = make_blobs(900, centers=[[0, 0], [1.2, 0], [0, 1.2]],
                          random_state=seed)  # fmt: skip
        frame = pd.DataFrame(X, columns=["f1", "f2"])
        frame["label"] = flip_labels(
            np.array(["a", "b", "c"])[y], rate, random_state=seed
        )[0]
        frame.to_parquet(tmp_path / f"{name}.parquet")
    argv = ["run", str(tmp_path / "train.parquet"), "-p",
            str(tmp_path / "fast.toml"), "-o", str(tmp_path / "train")]  # fmt: skip
    fitted = runner.invoke(app, argv)
    assert fitted.exit_code == 0, fitted.output
    # Every class is unchecked: said as such, not "apart from the others".
    every = (
        "the evidence tells none of the classes ('a', 'b', 'c') apart from the "
        "others: every label was kept unchecked"
    )
    assert f"WARNING: [classes_not_checked] {every}" in fitted.stderr
    # The story says why nothing was flagged, with agreement only fair (as
    # here) and, re-rendered from report.json, with it moderate, where the
    # first lines do not: never "no operating point was precise enough".
    report = json.loads((tmp_path / "train" / "report.json").read_text())
    assert report["run"]["calibration"]["predictability"]["fair"]
    report["run"]["calibration"]["predictability"].update(fair=False, low=True)
    (tmp_path / "moderate").mkdir()
    (tmp_path / "moderate" / "report.json").write_text(json.dumps(report))
    rendered = runner.invoke(app, ["report", str(tmp_path / "moderate")])
    assert rendered.exit_code == 0, rendered.output
    for run in ("train", "moderate"):
        page = unescape((tmp_path / run / "report.html").read_text())
        assert (
            "No row was flagged: the evidence tells none of the classes apart "
            "from the others, so no label can be checked" in page
        )
        assert "apart from the others, so their labels cannot be checked" not in page
        assert "no operating point was precise enough" not in page
    argv = ["apply", str(tmp_path / "train" / "model.skops"),
            str(tmp_path / "later.parquet"), "-o", str(tmp_path / "later")]  # fmt: skip
    applied = runner.invoke(app, argv)
    assert applied.exit_code == 0, applied.output
    # The batch's own log says so too (its report has no calibration).
    assert f"WARNING: [classes_not_checked] {every}" in applied.stderr
    profile = json.loads((tmp_path / "later" / "report.json").read_text())
    shares = [c["not_checked_share"] for c in profile["noise_profile"]["classes"]]
    assert shares == [1.0, 1.0, 1.0]
    out = tmp_path / "drift"
    argv = ["drift", str(tmp_path / "train"), str(tmp_path / "later"), "-o", str(out)]
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert "no checked class drifted" in result.stdout
    assert (
        "WARNING: [classes_not_checked] class(es) 'a', 'b', 'c' were kept "
        "unchecked in a run: their drift cannot be seen in the estimated wrong "
        "labels, only in the rows the model assigns to another class" in result.stderr
    )
    drift = json.loads((out / "drift.json").read_text())
    assert drift["not_checked_classes"] == ["a", "b", "c"]
    later = drift["runs"][1]["classes"]
    assert all(c["not_checked"] and not c["alert"] for c in later.values())
    # The model's disagreement is still read (more flips: it rose, within
    # three standard errors on 300 rows a class).
    assert all(0 < c["disagreement_increase"] < 3 * 0.05 for c in later.values())
    assert all(c["disagreement_z"] < 3 for c in later.values())
    page = (out / "drift.html").read_text()
    assert page.count("<span class='muted'>not checked</span>") == 6
    assert (
        "No checked class drifted. Not checked, so their drift cannot be seen in "
        "the estimated wrong labels: class(es) a, b, c" in page
    )


def test_compare_never_calls_an_unchecked_class_drifted():
    def report(mean, unchecked):
        return {
            "noise_profile": {
                "classes": [
                    {"label": "x", "rows": 2000, "rows_with_noise_probability": 2000,
                     "mean_noise_probability": mean, "sd_noise_probability": 0.1,
                     "not_checked_share": unchecked}
                ]
            }
        }  # fmt: skip

    assert not compare([report(0.1, 0.0), report(0.3, 0.0)])["success"]
    for base, now in ((1.0, 0.0), (0.0, 1.0)):
        drift = compare([report(0.1, base), report(0.3, now)])
        assert drift["success"] and drift["not_checked_classes"] == ["x"]
    # Profiles written before the share: checked, as they were.
    old = report(0.1, None)
    assert compare([old, old])["not_checked_classes"] == []


def test_compare_reads_the_models_disagreement_without_the_noise_estimate():
    def report(share, rows, unchecked=0.0, mean=0.05):
        return {
            "noise_profile": {
                "classes": [
                    {"label": "x", "rows": rows, "rows_with_noise_probability": rows,
                     "mean_noise_probability": mean, "sd_noise_probability": 0.1,
                     "not_checked_share": unchecked,
                     "rows_with_model_label": rows, "disagreement_share": share}
                ]
            }
        }  # fmt: skip

    # The noise estimate flat, the model's disagreement up 15 points on 400
    # rows: drift, named by its measure.
    drift = compare([report(0.10, 400), report(0.25, 400)], names=["w1", "w2"])
    assert [(a["label"], a["measure"]) for a in drift["alerts"]] == [
        ("x", "disagreement")
    ]
    alert = drift["alerts"][0]
    assert (alert["baseline"], alert["value"]) == (0.10, 0.25)
    assert alert["z"] > 3
    # The same rise on 12 rows is within sampling noise, and a class with no
    # disagreement at all on a few rows does not make every change significant.
    assert compare([report(0.10, 12), report(0.25, 12)])["success"]
    assert compare([report(0.0, 8), report(0.25, 8)])["success"]
    # A class kept unchecked has no noise estimate to compare, but its
    # disagreement is compared all the same.
    drift = compare([report(0.10, 400, 1.0), report(0.25, 400, 1.0, mean=0.9)])
    assert [a["measure"] for a in drift["alerts"]] == ["disagreement"]
    assert drift["not_checked_classes"] == ["x"]
    # Profiles written before the measure: nothing to compare there.
    old = report(0.10, 400)
    del old["noise_profile"]["classes"][0]["disagreement_share"]
    assert compare([old, report(0.25, 400)])["success"]


def test_a_kind_of_wrong_label_the_fit_never_saw_drifts(tmp_path):
    """The fit saw clean labels, so its estimate of the noise gives no row of
    a new batch a probability of being wrong, even where a third of one
    class's rows now carry another label (a labelling rule that changed):
    the model's disagreement shows it."""
    (tmp_path / "fast.toml").write_text(PIPELINE)
    centers = [[0, 0], [4, 0], [0, 4]]
    for name, seed, moved in [("train", 0, 0.0), ("same", 1, 0.0), ("later", 2, 0.35)]:
        X, y = make_blobs(900, centers=centers, cluster_std=0.8, random_state=seed)
        labels = np.array(["a", "b", "c"])[y]
        rng = np.random.RandomState(seed)
        labels[(y == 2) & (rng.rand(y.size) < moved)] = "b"  # c recorded as b
        frame = pd.DataFrame(X, columns=["f1", "f2"])
        frame["label"] = labels
        frame.to_parquet(tmp_path / f"{name}.parquet")
    argv = ["run", str(tmp_path / "train.parquet"), "-p",
            str(tmp_path / "fast.toml"), "-o", str(tmp_path / "train")]  # fmt: skip
    assert runner.invoke(app, argv).exit_code == 0
    applied = {}
    for name in ("same", "later"):
        model = str(tmp_path / "train" / "model.skops")
        argv = ["apply", model, str(tmp_path / f"{name}.parquet"), "-o",
                str(tmp_path / name)]  # fmt: skip
        applied[name] = runner.invoke(app, argv)
        assert applied[name].exit_code == 0, applied[name].output
    # Each batch's own report compares it with the fit's rows (the training
    # run's report beside the model file): the changed batch says so.
    assert "[disagreement_rose]" not in applied["same"].stderr
    said = [line for line in applied["later"].stderr.splitlines()
            if line.startswith("WARNING: [disagreement_rose]")]  # fmt: skip
    assert len(said) == 1 and "'b' " in said[0] and "'c'" not in said[0]
    report = json.loads((tmp_path / "later" / "report.json").read_text())
    assert "disagreement_rose" in [c["code"] for c in report["cautions"]]
    assert [c["label"] for c in report["run"]["fit_disagreement"]] == ["a", "b", "c"]
    # A model file moved away from its run's report is not compared.
    (tmp_path / "moved").mkdir()
    (tmp_path / "moved" / "model.skops").write_bytes(
        (tmp_path / "train" / "model.skops").read_bytes()
    )
    argv = ["apply", str(tmp_path / "moved" / "model.skops"),
            str(tmp_path / "later.parquet"), "-o", str(tmp_path / "alone")]  # fmt: skip
    alone = runner.invoke(app, argv)
    assert alone.exit_code == 0 and "[disagreement_rose]" not in alone.stderr
    report = json.loads((tmp_path / "alone" / "report.json").read_text())
    assert report["run"]["fit_disagreement"] is None
    out = tmp_path / "drift"
    argv = ["drift", str(tmp_path / "train"), str(tmp_path / "same"),
            str(tmp_path / "later"), "-o", str(out)]  # fmt: skip
    result = runner.invoke(app, argv)
    assert result.exit_code == 7, result.output
    drift = json.loads((out / "drift.json").read_text())
    later = drift["runs"][2]["classes"]["b"]
    assert later["mean_noise_probability"] < 0.05  # the estimate sees nothing
    assert later["disagreement_share"] > 0.2
    assert [(a["run"], a["label"], a["measure"]) for a in drift["alerts"]] == [
        (str(tmp_path / "later"), "b", "disagreement")
    ]
    before = drift["runs"][0]["classes"]["b"]["disagreement_share"]
    assert f"class 'b' rose from {100 * before:.1f}%" in result.stderr
    assert "of its rows assigned to another class by the model" in result.stderr
    page = (out / "drift.html").read_text()
    assert "class='alert'" in page and "model: " in page


def _profile_report(classes):
    """A report.json with only what `drift` reads: per class (label, rows,
    share kept unchecked)."""
    return {
        "format": "labelclean-report",
        "noise_profile": {
            "classes": [
                {"label": label, "rows": rows, "rows_with_noise_probability": rows,
                 "mean_noise_probability": 0.0, "sd_noise_probability": 0.0,
                 "not_checked_share": unchecked, "rows_with_model_label": rows,
                 "disagreement_share": 0.5}
                for label, rows, unchecked in classes
            ]
        },
    }  # fmt: skip


def test_an_unchecked_class_that_grows_is_a_warning_not_drift(tmp_path):
    """A class the fit could not check whose share of the rows jumps (rainy
    days recorded as 'fog' once the record stopped naming rain): more rows
    carry a label nothing checked. Said, not called drift: seasons move a
    class's share too."""
    base = _profile_report([("fog", 5, 1.0), ("rain", 195, 0.0), ("sun", 200, 0.0)])
    later = _profile_report([("fog", 150, 1.0), ("rain", 50, 0.0), ("sun", 200, 0.0)])
    small = _profile_report([("fog", 9, 1.0), ("rain", 191, 0.0), ("sun", 200, 0.0)])
    grown = _profile_report([("fog", 5, 1.0), ("rain", 195, 0.0), ("sun", 350, 0.0)])
    for name, report in (("base", base), ("later", later), ("small", small),
                         ("grown", grown)):  # fmt: skip
        (tmp_path / name).mkdir()
        (tmp_path / name / "report.json").write_text(json.dumps(report))
    drift = compare(
        [base, later, small, grown], names=["base", "later", "small", "grown"]
    )
    assert drift["success"]
    # 'fog' from 1.2 % to 37.5 % of the rows; +1 point is within chance, and a
    # checked class that grows ('sun' in 'grown') is not this warning's.
    assert [(g["run"], g["label"]) for g in drift["unchecked_growth"]] == [
        ("later", "fog")
    ]
    growth = drift["unchecked_growth"][0]
    assert growth["baseline"] == pytest.approx(5 / 400)
    assert growth["value"] == pytest.approx(150 / 400)
    out = tmp_path / "drift"
    argv = ["drift", *(str(tmp_path / n) for n in ("base", "later", "small")),
            "-o", str(out)]  # fmt: skip
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    line = (
        f"WARNING: [unchecked_class_grew] class 'fog', kept unchecked, went from "
        f"1.2% of the rows to 37.5% in {tmp_path / 'later'}: more rows carry a label "
        "nothing checked ('labelclean review export' ranks its rows for a person)"
    )
    assert line in result.stderr.splitlines()
    assert result.stderr.count("[unchecked_class_grew]") == 1
    assert (
        "Warning: class &#x27;fog&#x27;, kept unchecked, went from 1.2%"
        in (out / "drift.html").read_text()
    )


def test_a_run_whose_features_left_the_fits_range_is_named(weeks, tmp_path):
    """A week whose f2 went missing upstream: `drift` says so beside any
    alert (the changes may come from the column), without exit 7 for it."""
    frame = _batch(4, {"a": 0.1, "b": 0.1}).assign(f2=np.nan)
    frame.to_parquet(tmp_path / "week4.parquet")
    argv = ["apply", str(weeks / "train" / "model.skops"),
            str(tmp_path / "week4.parquet"), "-o", str(tmp_path / "week4")]  # fmt: skip
    assert runner.invoke(app, argv).exit_code == 0
    out = tmp_path / "drift"
    argv = ["drift", str(weeks / "week1"), str(tmp_path / "week4"), "-o", str(out)]
    result = runner.invoke(app, argv)
    drift = json.loads((out / "drift.json").read_text())
    (item,) = drift["features_shifted"]
    assert (item["run"], item["column"], item["measure"]) == (
        str(tmp_path / "week4"), "f2", "missing")  # fmt: skip
    assert drift["runs"][0]["shifted_features"] == []
    (line,) = [x for x in result.stderr.splitlines() if "[features_shifted]" in x]
    assert f"the features of {tmp_path / 'week4'} left the fit's range" in line
    assert "'f2' 100.0% of rows missing (fit: 0.0%)" in line
    page = unescape((out / "drift.html").read_text())
    assert "left the fit's range: 'f2' 100.0% of rows missing (fit: 0.0%); its" in page
    # the first week's report, as every run's before the comparison: none
    assert compare([{"noise_profile": {"classes": []}}])["features_shifted"] == []
