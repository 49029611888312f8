"""CLI tests of run, apply, validate, report and demo (the cleaning job)."""

import hashlib
import json
import re
from html import unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics import f1_score
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.noise import flip_labels
from labelclean.pipeline import build_cleaner, load_cleaner, load_pipeline

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]

FAST_PIPELINE = """
[pipeline]
name = "fast"
[data]
label = "label"
id = "row_id"
[[stages]]
name = "confidence"
kind = "knn_confidence"
[[stages]]
name = "suspects"
kind = "splboost"
params = { n_estimators = 30, age = 2.0 }
[[stages]]
name = "model"
kind = "cb_adaboost"
params = { n_estimators = 30 }
[validation]
max_discarded_share = 0.3
"""


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def noisy_data(tmp_path_factory):
    """A training file, a held-out batch, and the truth for both."""
    root = tmp_path_factory.mktemp("data")
    X, y = make_blobs(900, centers=2, cluster_std=1.5, random_state=0)
    names = np.array(["neg", "pos"])[y]
    noisy, flipped = flip_labels(names, 0.2, random_state=0)
    frame = pd.DataFrame(X, columns=["f1", "f2"])
    frame["shop"] = pd.Categorical(np.where(X[:, 0] > 0, "north", "south"))
    frame["label"] = pd.Series(noisy, dtype="string")
    frame.insert(0, "row_id", np.arange(900) + 10_000)
    train, batch = root / "train.parquet", root / "batch.parquet"
    frame.iloc[:600].to_parquet(train, index=False)
    frame.iloc[600:].to_parquet(batch, index=False)
    pipeline = root / "fast.toml"
    pipeline.write_text(FAST_PIPELINE)
    return {"train": train, "batch": batch, "pipeline": pipeline, "flipped": flipped}


def _run(data, out, *extra):
    return runner.invoke(
        app,
        [
            "run",
            str(data["train"]),
            "--pipeline",
            str(data["pipeline"]),
            "--out",
            str(out),
            *extra,
        ],
    )


def test_run_writes_every_output_and_accounts_for_every_row(noisy_data, tmp_path):
    before = _sha(noisy_data["train"])
    out = tmp_path / "out"
    result = _run(noisy_data, out)
    assert result.exit_code == 0, result.output
    assert "600 rows:" in result.stdout
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    assert names == {
        "cleaned.parquet",
        "audit.parquet",
        "report.json",
        "report.html",
        "manifest.json",
        "model.skops",
    }
    assert _sha(noisy_data["train"]) == before
    original = pd.read_parquet(noisy_data["train"])
    audit = pd.read_parquet(out / "audit.parquet")
    cleaned = pd.read_parquet(out / "cleaned.parquet")
    # every input row exactly once, user columns unchanged
    assert len(audit) == len(original)
    assert audit["row_id"].is_unique
    pd.testing.assert_frame_equal(audit[original.columns], original)
    assert set(audit["decision"]) <= {"kept", "corrected", "discarded"}
    # cleaned = kept + corrected, with the new labels, same schema
    assert len(cleaned) == (audit["decision"] != "discarded").sum()
    assert list(cleaned.columns) == list(original.columns)
    assert (cleaned.dtypes == original.dtypes).all()
    merged = cleaned.merge(audit[["row_id", "cleaned_label"]], on="row_id")
    assert (merged["label"] == merged["cleaned_label"]).all()
    flipped = noisy_data["flipped"][:600]
    assert f1_score(flipped, audit["decision"] != "kept") > 0.7
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["n_rows"] == 600
    # well-separated classes, sure flags: nothing for a log to be warned of
    assert report["cautions"] == [] and "WARNING: [" not in result.stderr
    assert 'class="cautions"' not in (out / "report.html").read_text()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["inputs"][0]["sha256"] == before
    assert manifest["seed"] == 0


def test_the_shipped_two_class_pipeline_grows_trees_where_the_label_needs_them(
    tmp_path,
):
    # the label is the sign of x0·x1: no sum of stumps draws it, nor a linear
    # model; depth-3 trees do, and the default run's evidence finds them
    # out of fold
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(600, 4))
    truth = np.where(X[:, 0] * X[:, 1] > 0, "same", "opposite")
    noisy, flipped = flip_labels(truth, 0.1, random_state=0)
    data = tmp_path / "xor.parquet"
    frame = pd.DataFrame(X, columns=["x0", "x1", "x2", "x3"]).assign(label=noisy)
    frame.to_parquet(data, index=False)
    stumps = tmp_path / "stumps.toml"
    shipped = (ROOT / "pipelines" / "binary-cbadaboost.toml").read_text()
    kind = 'kind = ["cb_adaboost", "cb_adaboost_trees", "rosr"]'
    assert kind in shipped
    stumps.write_text(shipped.replace(kind, 'kind = "cb_adaboost"'))
    f1 = {}
    for name, extra in (("shipped", []), ("stumps", ["-p", str(stumps)])):
        out = tmp_path / name
        args = ["run", str(data), "--label", "label", "--out", str(out), *extra]
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        audit = pd.read_parquet(out / "audit.parquet")
        f1[name] = f1_score(flipped, audit["decision"] != "kept")
    final = json.loads((tmp_path / "shipped" / "report.json").read_text())["run"][
        "final_model"
    ]
    selection = final["selection"]
    assert selection["chosen"] == "cb_adaboost_trees"
    assert selection["difference"] > selection["standard_error"]
    assert f1["shipped"] > 0.7 and f1["shipped"] > f1["stumps"] + 0.2, f1
    html = unescape((tmp_path / "shipped" / "report.html").read_text())
    assert (
        "the out-of-fold evidence that decided the rows came from CB-AdaBoost "
        "(depth-3 trees) (chosen by out-of-fold error rate against the observed "
        "labels: CB-AdaBoost " in html
    )
    # and on which labels each candidate was fitted, as it gives the evidence
    assert (
        "each fitted to the labels it gives the evidence on, CB-AdaBoost and "
        "CB-AdaBoost (depth-3 trees) to the neighbours' soft labels and RoSR-L "
        "to the observed labels; the first kept" in html
    )


def test_report_names_the_final_model_auto_choice(noisy_data, tmp_path):
    # A definition without a model stage uses model='auto': for two classes it
    # compares RoSR-L and CB-AdaBoost out of fold for the evidence, and
    # stacks them, on the cleaned rows, for the final model.
    auto = tmp_path / "auto.toml"
    auto.write_text(FAST_PIPELINE.split('[[stages]]\nname = "model"')[0])
    out = tmp_path / "out"
    data = {**noisy_data, "pipeline": auto}
    result = _run(data, out)
    assert result.exit_code == 0, result.output
    final = json.loads((out / "report.json").read_text())["run"]["final_model"]
    assert set(final["selection"]["candidates"]) == {
        "rosr",
        "cb_adaboost",
        "cb_adaboost_trees",
    }
    # blobs: a linear boundary, so the evidence keeps the linear model
    assert final["selection"]["chosen"] == "rosr"
    assert final["selection"]["difference"] <= final["selection"]["standard_error"]
    # the final model: the candidates stacked, on the cleaned rows
    on_cleaned = final["selection"]["final"]
    cleaned = len(pd.read_parquet(out / "cleaned.parquet"))
    for candidate in on_cleaned["candidates"].values():
        assert candidate["rows"] == cleaned
    # with depth-5 trees beside the evidence's candidates
    assert set(on_cleaned["candidates"]) == {*final["selection"]["candidates"]} | {
        "cb_adaboost_deep"
    }
    assert on_cleaned["one_se_choice"] == "rosr"
    members = on_cleaned["stack"]["members"]
    assert on_cleaned["stack"]["rows"] == cleaned
    assert sum(m["weight"] for m in members.values()) == pytest.approx(1.0)
    assert all(m["weight"] >= 0.01 and m["temperature"] > 0 for m in members.values())
    assert final["name"] == on_cleaned["chosen"] == "stacked"
    assert final["estimator"] == "StackedModel"
    html = (out / "report.html").read_text()
    names = {"rosr": "RoSR-L", "cb_adaboost": "CB-AdaBoost"}
    names["cb_adaboost_trees"] = "CB-AdaBoost (depth-3 trees)"
    names["cb_adaboost_deep"] = "CB-AdaBoost (depth-5 trees)"
    listed = [f"{names[n]} ({m['weight']:.2f})" for n, m in members.items()]
    assert "The final model was a weighted average of " in html
    assert all(part in html for part in listed)
    assert "each calibrated by a temperature" in html
    # model.skops holds the stack, and it predicts the held-out batch
    loaded, _ = load_cleaner(out / "model.skops")
    assert type(loaded.model_).__name__ == "StackedModel"
    assert sorted(loaded.model_.names) == sorted(members)
    # ... as the same definition fitted from Python does, byte for byte
    train = pd.read_parquet(noisy_data["train"])
    features = ["f1", "f2", "shop"]
    python = build_cleaner(load_pipeline(auto), random_state=0)
    python.fit(train[features], train["label"])
    batch = pd.read_parquet(noisy_data["batch"])[features]
    assert type(python.model_).__name__ == "StackedModel"
    np.testing.assert_array_equal(
        loaded.predict_proba(batch), python.predict_proba(batch)
    )
    _, y_all = make_blobs(900, centers=2, cluster_std=1.5, random_state=0)
    truth = np.array(["neg", "pos"])[y_all][600:]
    assert np.mean(loaded.predict(batch) == truth) > 0.8
    # fitted on the cleaned rows, each weighted by how sure its label is
    assert final["fit"]["weighted"] and final["fit"]["n_rows"] == cleaned
    assert 0 < final["fit"]["mean_weight"] < 1
    assert (
        f"Each of them was fitted on the {cleaned} cleaned row(s), each weighted "
        "by the estimated probability that its label is right (mean "
        f"{final['fit']['mean_weight']:.2f}" in html
    )
    res = _run(noisy_data, tmp_path / "fixed")
    assert res.exit_code == 0, res.output
    # a definition can ask for the unweighted fit: the same decisions
    plain = tmp_path / "plain.toml"
    plain.write_text(FAST_PIPELINE + '[decisions]\nfinal_fit = "cleaned"\n')
    res = _run({**noisy_data, "pipeline": plain}, tmp_path / "plain")
    assert res.exit_code == 0, res.output
    fit = json.loads((tmp_path / "plain" / "report.json").read_text())
    rows = len(pd.read_parquet(tmp_path / "plain" / "cleaned.parquet"))
    assert fit["run"]["final_model"]["fit"] == {
        "rows": "cleaned",
        "n_rows": rows,
        "weighted": False,
    }
    assert "each weighted" not in (tmp_path / "plain" / "report.html").read_text()
    pd.testing.assert_frame_equal(
        pd.read_parquet(tmp_path / "plain" / "audit.parquet"),
        pd.read_parquet(tmp_path / "fixed" / "audit.parquet"),
    )
    run_info = json.loads((tmp_path / "fixed" / "report.json").read_text())["run"]
    assert run_info["final_model"]["name"] == "CBAdaBoostClassifier"
    assert list(run_info["final_model"]["selection"]["candidates"]) == [
        "CBAdaBoostClassifier"
    ]


def test_same_seed_byte_identical_outputs(noisy_data, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert _run(noisy_data, a, "--seed", "3", "--jobs", "1").exit_code == 0
    # threads fit the out-of-fold models; the bytes do not depend on them
    assert _run(noisy_data, b, "--seed", "3", "--jobs", "2").exit_code == 0
    for name in ("cleaned.parquet", "audit.parquet", "report.json"):
        assert _sha(a / name) == _sha(b / name), name


def test_apply_on_held_out_batch(noisy_data, tmp_path):
    out = tmp_path / "fit"
    assert _run(noisy_data, out).exit_code == 0
    runs = []
    # batches decided on threads (default) or one at a time: the same bytes
    for name, jobs in (("x", "-1"), ("y", "1")):
        res = runner.invoke(
            app,
            [
                "apply",
                str(out / "model.skops"),
                str(noisy_data["batch"]),
                "--out",
                str(tmp_path / name),
                "--batch-size",
                "64",
                "--jobs",
                jobs,
            ],
        )
        assert res.exit_code == 0, res.output
        runs.append(tmp_path / name)
    assert _sha(runs[0] / "audit.parquet") == _sha(runs[1] / "audit.parquet")
    audit = pd.read_parquet(runs[0] / "audit.parquet")
    assert len(audit) == 300
    train_audit = pd.read_parquet(out / "audit.parquet")
    flipped = noisy_data["flipped"]
    f1_run = f1_score(flipped[:600], train_audit["decision"] != "kept")
    f1_apply = f1_score(flipped[600:], audit["decision"] != "kept")
    assert abs(f1_run - f1_apply) < 0.1, (f1_run, f1_apply)


def test_apply_with_fail_on_withholds_a_batch_that_fails_a_guardrail(
    noisy_data, tmp_path
):
    out = tmp_path / "fit"
    assert _run(noisy_data, out).exit_code == 0
    _, y = make_blobs(900, centers=2, cluster_std=1.5, random_state=0)
    batch = pd.read_parquet(noisy_data["batch"])
    wrong = batch[y[600:] == 0].copy()  # every row of one blob labelled 'pos'
    wrong["label"] = pd.Series("pos", index=wrong.index, dtype="string")
    path = tmp_path / "wrong.parquet"
    wrong.to_parquet(path, index=False)
    args = ["apply", str(out / "model.skops"), str(path), "--out"]
    res = runner.invoke(app, [*args, str(tmp_path / "strict"), "--fail-on", "error"])
    assert res.exit_code == 7, res.output
    assert "class_net_change" in res.stderr
    # the log names the failed guardrail by the caution's code, as report.json does
    lines = res.stderr.strip().splitlines()
    assert lines[-1].startswith("error: output guardrail(s) failed")
    caution = "WARNING: [guardrails_failed] guardrail(s) "
    (said,) = [line for line in lines if line.startswith(caution)]
    assert "class_net_change" in said
    assert "failed; the cleaned rows were withheld as " in said
    assert said.endswith("'cleaned.parquet.rejected'")
    # a blob relabelled whole: the model contradicts those labels far more
    # than the fit's own rows', and the batch says so too
    assert any(line.startswith("WARNING: [disagreement_rose]") for line in lines)
    report = json.loads((tmp_path / "strict" / "report.json").read_text())
    assert report["cautions"][0]["code"] == "guardrails_failed"
    assert "withheld as 'cleaned.parquet.rejected'" in report["cautions"][0]["message"]
    assert (tmp_path / "strict" / "cleaned.parquet.rejected").exists()
    assert not (tmp_path / "strict" / "cleaned.parquet").exists()
    assert len(pd.read_parquet(tmp_path / "strict" / "audit.parquet")) == len(wrong)
    html = unescape((tmp_path / "strict" / "report.html").read_text())
    assert html.index("Stopped: the run failed its guardrail(s)") < html.index(
        "row(s) came in"
    )
    assert "then run apply again without --fail-on." in html  # no limits to raise
    # without --fail-on the same batch is published, as before, and the log says so
    res = runner.invoke(app, [*args, str(tmp_path / "lenient")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "lenient" / "cleaned.parquet").exists()
    assert "guardrails FAILED: " in res.stdout and "class_net_change" in res.stdout
    (line,) = [x for x in res.stderr.splitlines() if x.startswith(caution)]
    assert "failed; the cleaned rows were published all the same" in line
    report = json.loads((tmp_path / "lenient" / "report.json").read_text())
    assert [c["code"] for c in report["cautions"]] == [
        "guardrails_failed",
        "disagreement_rose",
    ]
    html = unescape((tmp_path / "lenient" / "report.html").read_text())
    assert "Read before relying on this run" in html
    assert "the cleaned rows were published all the same" in html


def test_apply_refuses_changed_schema(noisy_data, tmp_path):
    out = tmp_path / "fit"
    assert _run(noisy_data, out).exit_code == 0
    batch = pd.read_parquet(noisy_data["batch"]).drop(columns=["f2"])
    bad = tmp_path / "bad.parquet"
    batch.to_parquet(bad)
    res = runner.invoke(
        app, ["apply", str(out / "model.skops"), str(bad), "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 3
    assert "lacks feature column(s) ['f2']" in res.stderr
    assert not (tmp_path / "o").exists()


def test_existing_results_need_overwrite(noisy_data, tmp_path):
    out = tmp_path / "out"
    assert _run(noisy_data, out).exit_code == 0
    first = _sha(out / "audit.parquet")
    res = _run(noisy_data, out, "--seed", "1")
    assert res.exit_code == 5
    assert _sha(out / "audit.parquet") == first
    assert _run(noisy_data, out, "--seed", "1", "--overwrite").exit_code == 0


def test_report_rerenders_html(noisy_data, tmp_path):
    out = tmp_path / "out"
    assert _run(noisy_data, out).exit_code == 0
    (out / "report.html").unlink()
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0, res.output
    html = (out / "report.html").read_text()
    assert "<h2" in html and "Suspects" in html


def test_report_rendered_again_is_the_page_the_run_wrote(tmp_path):
    # report.json is written with sorted keys; `labelclean report` must not
    # reorder what the run's page said (the final model's candidates and
    # stack, the columns with missing values, each suspect's features).
    from sklearn.datasets import load_wine

    frame, y = load_wine(return_X_y=True, as_frame=True)
    rng = np.random.default_rng(0)
    for column in ("magnesium", "ash", "hue"):  # not in the alphabet's order
        frame.loc[rng.random(len(frame)) < 0.1, column] = np.nan
    frame["region"] = pd.Categorical(rng.choice(["north", "south", None], len(frame)))
    frame["cultivar"] = flip_labels(y.to_numpy(), 0.15, random_state=0)[0]
    source = tmp_path / "wine.parquet"
    frame.to_parquet(source)
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["run", str(source), "--label", "cultivar", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    written = (out / "report.html").read_bytes()
    said = r"Missing feature values in 'ash' \(\d+\), 'magnesium' \(\d+\), 'hue' "
    assert re.search(said, unescape(written.decode()))  # the input's order
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    assert (out / "report.html").read_bytes() == written


def test_a_partitioned_folders_unread_column_is_said_once(noisy_data, tmp_path):
    frame = pd.read_parquet(noisy_data["train"])
    frame["day"] = np.arange(len(frame)) % 3
    lake = tmp_path / "lake"
    frame.to_parquet(lake, partition_cols=["day"])  # day=0/, day=1/, day=2/
    res = runner.invoke(
        app, ["validate", str(lake), "--pipeline", str(noisy_data["pipeline"])]
    )
    assert res.exit_code == 0, res.output
    said = [line for line in res.stderr.splitlines() if line.startswith("WARNING")]
    assert said == [
        f"WARNING: the sub-folders of {str(lake)!r} are named like partitions "
        "('day=...'); labelclean reads only the columns the files hold, so 'day' "
        "is neither a feature nor in the outputs; write it into the files to keep it."
    ]


def test_validate_reports_checks(noisy_data, tmp_path):
    ok = runner.invoke(
        app,
        [
            "validate",
            str(noisy_data["train"]),
            "--pipeline",
            str(noisy_data["pipeline"]),
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert "label_not_null" in ok.stdout
    frame = pd.read_parquet(noisy_data["train"])
    frame.loc[3, "label"] = None  # a row without a label: discarded, a warning
    nulls = tmp_path / "nulls.parquet"
    frame.to_parquet(nulls)
    res = runner.invoke(
        app, ["validate", str(nulls), "--pipeline", str(noisy_data["pipeline"])]
    )
    assert res.exit_code == 0, res.output
    assert "WARN label_not_null: 1 row(s) have no label" in res.stdout
    frame["label"] = None  # no label at all: nothing to clean
    bad = tmp_path / "no_labels.parquet"
    frame.to_parquet(bad)
    res = runner.invoke(
        app, ["validate", str(bad), "--pipeline", str(noisy_data["pipeline"])]
    )
    assert res.exit_code == 3
    assert "FAIL at_least_two_classes" in res.stdout


def test_guardrail_fail_on_exits_after_writing(noisy_data, tmp_path):
    strict = tmp_path / "strict.toml"
    strict.write_text(
        FAST_PIPELINE.replace("max_discarded_share = 0.3", "max_discarded_share = 0.0")
    )
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        [
            "run",
            str(noisy_data["train"]),
            "--pipeline",
            str(strict),
            "--out",
            str(out),
            "--fail-on",
            "error",
            "--suspect-confidence",
            "0.9",
        ],
    )
    assert res.exit_code == 7, res.output
    assert "discarded_share" in res.stderr
    assert (out / "report.json").exists()
    report = json.loads((out / "report.json").read_text())
    codes = [c["code"] for c in report["cautions"]]
    assert codes[0] == "guardrails_failed"
    for code in codes:  # every caution is in the log, before the error line
        assert res.stderr.index(f"WARNING: [{code}]") < res.stderr.index("error:")


@pytest.mark.parametrize(
    "name", sorted(p.stem for p in (ROOT / "pipelines").glob("*.toml"))
)
def test_shipped_pipelines_load(name):
    from labelclean.pipeline import build_cleaner, load_pipeline

    cleaner = build_cleaner(load_pipeline(name))
    assert cleaner.confidence is not None


def test_demo(tmp_path):
    out = tmp_path / "demo"
    res = runner.invoke(app, ["demo", "--out", str(out)])
    assert res.exit_code == 0, res.output
    audit = pd.read_parquet(out / "audit.parquet")
    assert len(audit) == 178
    assert (out / "report.html").stat().st_size > 10_000
    # the summary gives the flags' estimates with the intervals of report.json
    cal = json.loads((out / "report.json").read_text())["run"]["calibration"]
    html = (out / "report.html").read_text()
    for key in ("flag_precision", "flag_recall"):
        lo, hi = cal[f"{key}_interval"]
        assert lo <= cal[key] <= hi
        assert f"of {cal[key]:.1%} (about {lo:.1%}–{hi:.1%})" in html


def test_memory_budget_fits_on_a_sample_and_says_so(noisy_data, tmp_path):
    from labelclean.runner import fit_bytes_per_row, run_pipeline

    per_row = fit_bytes_per_row(5)  # row_id, f1, f2, shop, label
    out = tmp_path / "out"
    run_pipeline(
        noisy_data["train"],
        out,
        pipeline=noisy_data["pipeline"],
        memory_budget=250 * per_row,
    )
    report = json.loads((out / "report.json").read_text())
    fitted = report["run"]["fitted_on"]
    assert fitted["sampled"] is True and fitted["reason"] == "memory_budget"
    assert fitted["rows"] == 250 and fitted["input_rows"] == 600
    audit = pd.read_parquet(out / "audit.parquet")
    assert sorted(audit["row_id"]) == list(range(10_000, 10_600))
    html = (out / "report.html").read_text()
    assert "sample of 250 of the 600 input rows (the memory budget)" in html
    # a budget the input fits in: every row is fitted
    whole = tmp_path / "whole"
    run_pipeline(
        noisy_data["train"], whole, pipeline=noisy_data["pipeline"], memory_budget=1e9
    )
    fitted = json.loads((whole / "report.json").read_text())["run"]["fitted_on"]
    assert fitted["sampled"] is False and fitted["rows"] == 600
    assert "fitted on all 600 input rows" in (whole / "report.html").read_text()


def test_info_log_gives_stage_times(noisy_data, tmp_path, monkeypatch):
    import logging

    monkeypatch.setenv("LABELCLEAN_LOG_LEVEL", "INFO")
    package = logging.getLogger("labelclean")
    before = package.level
    try:
        res = _run(noisy_data, tmp_path / "out")
    finally:
        package.setLevel(before)
    assert res.exit_code == 0, res.output
    assert "stage times (s): features" in res.stderr
    assert "run times (s): read" in res.stderr


def test_without_a_pipeline_the_shipped_one_for_the_label_runs(tmp_path):
    # No --pipeline: the label's classes choose the shipped pipeline, read
    # from the label column alone (a missing label is not a class), and the
    # run is the one that pipeline gives when named.
    X, y = make_blobs(160, centers=2, cluster_std=2.0, random_state=1)
    frame = pd.DataFrame(X, columns=["a", "b"])
    frame["label"] = pd.Series(np.array(["no", "yes"], dtype=object)[y])
    frame.loc[5, "label"] = None
    two = tmp_path / "two.parquet"
    frame.to_parquet(two, index=False)
    res = runner.invoke(
        app, ["run", str(two), "--label", "label", "--out", str(tmp_path / "d")]
    )
    assert res.exit_code == 0, res.output
    assert "pipeline 'binary-cbadaboost'" in res.stdout
    manifest = json.loads((tmp_path / "d" / "manifest.json").read_text())
    assert manifest["pipeline"]["name"] == "binary-cbadaboost"
    # its model stage is the evidence; the final model is 'auto''s stack
    report = json.loads((tmp_path / "d" / "report.json").read_text())
    final = report["run"]["final_model"]
    # blobs: a linear boundary, which RoSR-L draws clearly better than
    # CB-AdaBoost's stumps, the first of the candidates
    candidates = ["cb_adaboost", "cb_adaboost_trees", "rosr"]
    assert list(final["selection"]["candidates"]) == candidates
    assert final["selection"]["chosen"] == "rosr"
    assert final["selection"]["difference"] > final["selection"]["standard_error"]
    assert "cb_adaboost_deep" in final["selection"]["final"]["candidates"]
    assert final["name"] == final["selection"]["final"]["chosen"]
    args = ["run", str(two), "--label", "label", "--out", str(tmp_path / "n")]
    named = runner.invoke(app, [*args, "-p", "binary-cbadaboost"])
    assert named.exit_code == 0, named.output
    assert _sha(tmp_path / "d" / "audit.parquet") == _sha(
        tmp_path / "n" / "audit.parquet"
    )
    assert "pipeline 'binary" not in named.stdout
    # --final-model keeps the decisions and sets the saved model alone
    alone = runner.invoke(
        app, [*args[:-1], str(tmp_path / "s"), "--final-model", "cb_adaboost"]
    )
    assert alone.exit_code == 0, alone.output
    assert _sha(tmp_path / "s" / "audit.parquet") == _sha(
        tmp_path / "d" / "audit.parquet"
    )
    report = json.loads((tmp_path / "s" / "report.json").read_text())
    assert report["run"]["final_model"]["name"] == "cb_adaboost"
    assert "final" not in report["run"]["final_model"]["selection"]

    X, y = make_blobs(150, centers=3, random_state=0)
    three = tmp_path / "three.parquet"
    pd.DataFrame(X, columns=["a", "b"]).assign(label=y).to_parquet(three, index=False)
    res = runner.invoke(app, ["validate", str(three), "--label", "label"])
    assert res.exit_code == 0, res.output
    assert "pipeline 'multiclass-rosr'" in res.stdout

    res = runner.invoke(app, ["run", str(three), "--out", str(tmp_path / "x")])
    assert res.exit_code == 3
    assert "no label column: pass --label" in res.output
    assert not (tmp_path / "x").exists()


def test_a_large_multiclass_run_chooses_the_penalty_on_a_sample(tmp_path):
    # 10,600 rows: over the 10,000 cleaned rows above which RoSR-L's
    # penalties are compared on a sample, and from which the final model's
    # choices are read on one held-out fold of five (docs/decisions.md)
    X, y = make_blobs(10_600, centers=3, cluster_std=3.0, random_state=0)
    data = tmp_path / "large.parquet"
    frame = pd.DataFrame(X, columns=["a", "b"])
    frame.assign(label=np.array(["x", "y", "z"])[y]).to_parquet(data, index=False)
    out = tmp_path / "out"
    args = ["run", str(data), "--label", "label", "-p", "multiclass-rosr"]
    res = runner.invoke(app, [*args, "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert len(pd.read_parquet(out / "audit.parquet")) == 10_600
    report = json.loads((out / "report.json").read_text())
    penalty = report["run"]["final_model"]["selection"]["final_penalty"]
    n_cleaned = len(pd.read_parquet(out / "cleaned.parquet"))
    assert penalty["sampled_rows"] == 10_000 < n_cleaned
    held = penalty["held_out_rows"]
    assert abs(held - 2_000) <= 3  # one stratified fold of five
    for candidate in penalty["candidates"].values():
        assert candidate["rows"] == held
    assert penalty["scale"] == pytest.approx(10_000 / n_cleaned)
    assert penalty["chosen"] == pytest.approx(penalty["compared"] * penalty["scale"])
    html = (out / "report.html").read_text()
    without = " without self-paced weights" if penalty["weighting"] == "none" else ""
    chosen = (
        f"= {penalty['chosen']:.2g}{without} was chosen out of fold on {held:,} rows "
        "held out of a sample of 10,000 cleaned rows among 22 settings, with and "
        "without self-paced"
    )
    assert chosen in html
    final = report["run"]["final_model"]["selection"]["final"]
    assert final["held_out_rows"] == final["stack"]["rows"] > 2_000
    # Counts of rows read with thousands separators, on stdout and the page.
    assert res.stdout.strip().splitlines()[-1].startswith("10,600 rows: ")
    assert f"holds {n_cleaned:,} row(s)." in html
    assert "The pipeline was fitted on all 10,600 input rows." in html
    assert '<td class="num">10,600</td>' in html  # the input file's rows


def test_many_rows_at_one_point_pass_the_output_checks(tmp_path):
    # 148 rows at one point, all of one class: a training row's nearest
    # distance tier holds 147 others for its 10 places. Their shares once
    # summed to 1.0000000000000002, so the output check on probabilities
    # failed and the shipped pipeline (fail_on = "error") withheld the
    # cleaned rows with exit 7 (a public table of daily prices did this).
    X, y = make_blobs(200, centers=[[4, 4], [8, 8]], random_state=3)
    frame = pd.DataFrame(np.vstack([np.zeros((148, 2)), X]), columns=["a", "b"])
    frame["label"] = np.r_[np.zeros(148, int), y].astype(str)
    path = tmp_path / "ties.parquet"
    frame.to_parquet(path, index=False)
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(path), "--label", "label", "--out", str(out)])
    assert res.exit_code == 0, res.output
    audit = pd.read_parquet(out / "audit.parquet")
    assert len(audit) == len(frame)
    assert audit["confidence"].max() <= 1.0
    assert audit["trusted_probability"].max() <= 1.0
    assert (
        len(pd.read_parquet(out / "cleaned.parquet"))
        == (audit["decision"] != "discarded").sum()
    )


def test_the_run_checks_its_own_limits_where_the_fit_would_warn(tmp_path):
    # 'b' drawn where 'a' lies: a loose fixed rule takes most of it, which a
    # fit in Python warns of (GuardrailWarning); a run leaves that to its
    # output suite, at the definition's limits, and says it once
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (230, 2)), rng.normal(4, 1, (200, 2))])
    frame = pd.DataFrame(X, columns=["f1", "f2"])
    frame["label"] = ["a"] * 200 + ["b"] * 30 + ["c"] * 200
    frame.insert(0, "row_id", np.arange(len(frame)))
    data = {"train": tmp_path / "data.parquet", "pipeline": tmp_path / "loose.toml"}
    frame.to_parquet(data["train"], index=False)
    data["pipeline"].write_text(
        FAST_PIPELINE.replace(
            "max_discarded_share = 0.3",
            "max_discarded_share = 1.0\nmax_changed_share_per_class = 1.0",
        )
    )
    res = _run(data, tmp_path / "loose", "--suspect-confidence", "0.5")
    assert res.exit_code == 0, res.output
    audit = pd.read_parquet(tmp_path / "loose" / "audit.parquet")
    b = audit[audit["observed_label"] == "b"]
    assert (b["decision"] != "kept").mean() > 0.5  # the premise
    assert "class_net_change" not in res.stderr
    assert "decisions stand" not in res.stderr
    data["pipeline"].write_text(FAST_PIPELINE)  # 0.3 of a class at most
    res = _run(data, tmp_path / "strict", "--suspect-confidence", "0.5",
               "--fail-on", "error")  # fmt: skip
    assert res.exit_code == 7, res.output
    assert "class_net_change" in res.stderr and "decisions stand" not in res.stderr


def test_a_known_share_of_wrong_labels_from_the_command_line(tmp_path):
    X, y = make_blobs(600, centers=3, cluster_std=3.0, random_state=0)
    noisy, _ = flip_labels(np.array(["a", "b", "c"])[y], 0.2, random_state=0)
    frame = pd.DataFrame(X, columns=["f1", "f2"])
    frame["label"] = noisy
    data = tmp_path / "data.parquet"
    frame.to_parquet(data, index=False)
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["run", str(data), "--label", "label", "--out", str(out),
              "--known-noise-rate", "0.2"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    audit = pd.read_parquet(out / "audit.parquet")
    report = json.loads((out / "report.json").read_text())
    known = report["run"]["calibration"]["known_noise"]
    assert known["rate"] == 0.2
    assert (audit["reason"] == "known_noise").sum() == known["added"] > 0
    assert (audit["decision"] != "kept").sum() == round(0.2 * len(frame))
    assert f"WARNING: [known_noise] {known['added']} row(s) were discarded" in (
        res.stderr
    )
    # a share of 0 is refused in one line, before anything is fitted
    res = runner.invoke(
        app, ["run", str(data), "--label", "label", "--out", str(tmp_path / "z"),
              "--known-noise-rate", "0"],
    )  # fmt: skip
    assert res.exit_code == 6
    assert "known_noise_rate" in res.stderr and "Traceback" not in res.output
    assert not (tmp_path / "z").exists()


def test_a_table_of_twelve_rows_runs(tmp_path):
    # Two classes of six rows each, far apart. The confidence's ten
    # neighbours held every other row, so every label read one half, the
    # shipped pipeline's boosting found no split and `run` exited 3 saying
    # the features do not predict the label.
    X = np.r_[np.linspace(0, 1, 6), np.linspace(50, 51, 6)]
    frame = pd.DataFrame({"a": X, "b": X[::-1] * 0.1})
    frame["label"] = ["x"] * 6 + ["y"] * 6
    path = tmp_path / "tiny.parquet"
    frame.to_parquet(path, index=False)
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(path), "--label", "label", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "too few for n_neighbors=10" in res.output
    audit = pd.read_parquet(out / "audit.parquet")
    assert (audit["decision"] == "kept").all() and len(audit) == 12
    assert (audit["confidence"] == 1.0).all()
    report = json.loads((out / "report.json").read_text())
    assert report["run"]["neighbourhood"] == {"asked": 10, "used": 5, "rows": 12}
    html = unescape((out / "report.html").read_text())
    assert "read from 5 neighbours, not 10: the 12 rows" in html


def test_many_classes_along_one_column_get_an_evidence_that_fits_them(tmp_path):
    # eight classes three deviations apart on one column, no label wrong: at
    # RoSR-L's default penalty the evidence erred 0.30 out of fold and the run
    # discarded 20 right labels, 7.1 % of one class (docs/decisions.md, *The
    # evidence's penalty*)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 8, 800)
    frame = pd.DataFrame(
        {"signal": rng.normal(size=800) + 3.0 * y, "noise": rng.normal(size=800)}
    )
    data = tmp_path / "line.parquet"
    frame.assign(label=[f"c{k}" for k in y]).to_parquet(data, index=False)
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(data), "--label", "label", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "pipeline 'multiclass-rosr'" in res.stdout
    report = json.loads((out / "report.json").read_text())
    selection = report["run"]["final_model"]["selection"]
    penalty = selection["evidence_penalty"]
    errors = {float(k): c["error_rate"] for k, c in penalty["candidates"].items()}
    assert penalty["chosen"] < penalty["default"] == 1e-3
    assert errors[penalty["chosen"]] < errors[1e-3] - 0.1
    audit = pd.read_parquet(out / "audit.parquet")
    flagged = audit["decision"] != "kept"
    assert (audit["decision"] == "corrected").sum() == 0
    assert flagged.mean() <= 0.03
    assert flagged.groupby(audit["label"]).mean().max() <= 0.05
    html = unescape((out / "report.html").read_text())
    mu = f"\N{GREEK SMALL LETTER MU} = {penalty['chosen']:.2g}, not its default 0.001"
    assert f"the evidence's RoSR-L was fitted at the penalty {mu}" in html
