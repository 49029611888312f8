"""The review round trip through the CLI: export the rows worth a person's
time (parquet, CSV, Label Studio tasks), apply verdicts (filled file or a
Label Studio export), and refuse bad verdicts with nothing written."""

import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.noise import flip_labels
from labelclean.review import evidence_against

runner = CliRunner()

PIPELINE = """
[pipeline]
name = "fast"
[data]
label = "label"
id = "key"
[[stages]]
name = "confidence"
kind = "knn"
[[stages]]
name = "model"
kind = "cb_adaboost"
params = { n_estimators = 30 }
"""


def _cleaned_blobs(root, centers, names, rate, n_rows):
    """Blobs labelled ``names`` with ``rate`` flipped, run through the fast
    pipeline into ``root / "run"``; returns the true label by key."""
    X, y = make_blobs(n_rows, centers=centers, random_state=0)
    truth = np.array(names)[y]
    noisy, _ = flip_labels(truth, rate, random_state=0)
    frame = pd.DataFrame(X, columns=["f1", "f2"])
    frame.insert(0, "key", [f"k{i:04d}" for i in range(n_rows)])
    frame["label"] = noisy
    frame.to_parquet(root / "in.parquet", index=False)
    (root / "fast.toml").write_text(PIPELINE)
    result = runner.invoke(
        app, ["run", str(root / "in.parquet"), "-p", str(root / "fast.toml"),
              "-o", str(root / "run")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return dict(zip(frame["key"], truth, strict=True))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("review")
    return root, _cleaned_blobs(root, [[0, 0], [2.5, 2.5]], ["cat", "dog"], 0.15, 600)


def _export(root, name, *extra):
    result = runner.invoke(
        app, ["review", "export", str(root / "run"), "--out", str(root / name), *extra]
    )
    assert result.exit_code == 0, result.output
    return root / name


def test_export_ranks_the_unsettled_rows_first(run):
    root, _ = run
    path = _export(run[0], "review.parquet", "--max-rows", "40", "--overwrite")
    rows = pd.read_parquet(path)
    assert len(rows) == 40
    assert list(rows.columns) == [
        "row_id", "f1", "f2", "observed_label", "decision", "reason", "proposal",
        "noise_probability", "priority", "why", "verdict",
    ]  # fmt: skip
    assert rows["priority"].is_monotonic_decreasing
    assert rows["verdict"].isna().all()
    assert rows["row_id"].str.startswith("k").all()  # the run's id column
    # The exported rows are the least settled of the whole audit.
    audit = pd.read_parquet(root / "run" / "audit.parquet")
    p = audit["noise_probability"]
    assert rows["priority"].min() >= np.sort(1 - np.abs(2 * p - 1))[-40] - 1e-12


def test_export_ranks_by_the_evidence_where_every_probability_ties(run, tmp_path):
    """A cautious run can give every row noise probability 0: the evidence
    against the observed label then decides, not the input order."""
    root, truth = run
    folder = tmp_path / "run"
    shutil.copytree(root / "run", folder)
    audit = pd.read_parquet(folder / "audit.parquet")
    audit["noise_probability"] = 0.0
    audit.to_parquet(folder / "audit.parquet", index=False)
    out = tmp_path / "r.parquet"
    result = runner.invoke(
        app, ["review", "export", str(folder), "--out", str(out), "--max-rows", "30"]
    )
    assert result.exit_code == 0, result.output
    rows = pd.read_parquet(out)
    against = 1 - audit[["confidence", "model_probability"]].mean(axis=1)
    ranked = audit.assign(against=against).sort_values(
        "against", ascending=False, kind="stable"
    )
    assert rows["row_id"].tolist() == ranked["key"].head(30).tolist()
    observed = dict(zip(rows["row_id"], rows["observed_label"], strict=True))
    wrong = np.mean([truth[k] != label for k, label in observed.items()])
    assert wrong >= 0.8  # the base rate is 0.15


def test_export_says_when_a_label_was_not_checked(tmp_path):
    """Where the evidence does not tell the classes apart, the run takes their
    labels as right and every noise probability is 0 by assumption. The rows
    exported first are then mostly wrong labels, and their `why` must not tell
    the reviewer that they are "0% likely mislabelled"."""
    centers = [[0, 0], [1.2, 0], [0, 1.2]]
    true_label = _cleaned_blobs(tmp_path, centers, ["a", "b", "c"], 0.25, 900)
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert "classes_not_checked" in [c["code"] for c in report["cautions"]]
    assert [c["noise_checked"] for c in report["classes"]] == [False] * 3
    html = (tmp_path / "run" / "report.html").read_text()
    assert html.count("not checked (up to ") == 3
    assert "), counting none in the classes not checked; among the rows" in html
    tasks = json.loads(_export(tmp_path, "review.json", "--max-rows", "30").read_text())
    rows = pd.DataFrame([t["data"] for t in tasks])
    # No proposal to pre-select: the run made no judgement on these labels.
    assert len(tasks) == 30 and not any("predictions" in t for t in tasks)
    observed = zip(rows["row_id"], rows["observed_label"], strict=True)
    wrong = np.mean([true_label[k] != label for k, label in observed])
    assert wrong >= 0.6  # the base rate is 0.25
    assert (rows["noise_probability"] == 0).all()
    assert (rows["reason"] == "not_checked").all()
    for why, label, text in zip(rows["why"], rows["observed_label"], rows["text"],
                                strict=True):  # fmt: skip
        assert why.startswith(
            f"not checked: the evidence does not tell '{label}' apart from the "
            "other classes, so the run took this label as right; "
        )
        assert why.endswith("kept as labelled, unchecked.")
        assert "likely mislabelled" not in why and why in text


def test_a_run_that_flags_no_row_says_so_in_every_kept_row(tmp_path):
    """Where the features agree with the labels only fairly the run flags no
    row, whatever a row's noise probability. Its kept rows used to read `ok`
    ("no stage found the label doubtful enough") beside probabilities near
    0.9; `run` and `apply` now give them reason `weak_evidence`, and the
    export's `why` and Label Studio tasks follow."""
    _cleaned_blobs(tmp_path, [[0, 0], [1.5, 1.5]], ["cat", "dog"], 0.35, 400)
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    reading = report["run"]["calibration"]["predictability"]
    assert reading["fair"] or reading["slight"]
    audit = pd.read_parquet(tmp_path / "run" / "audit.parquet")
    assert (audit["decision"] == "kept").all()
    assert (audit["reason"] == "weak_evidence").all()
    assert audit["noise_probability"].max() > 0.5  # more likely wrong, yet kept
    reasons = {r["reason"]: r for r in report["reasons"]}
    assert "slight or fair" in reasons["weak_evidence"]["description"]
    assert "weak_evidence" in (tmp_path / "run" / "report.html").read_text()
    result = runner.invoke(
        app, ["apply", str(tmp_path / "run"), str(tmp_path / "in.parquet"),
              "-o", str(tmp_path / "applied")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    applied = pd.read_parquet(tmp_path / "applied" / "audit.parquet")
    assert (applied["reason"] == "weak_evidence").all()
    tasks = json.loads(_export(tmp_path, "review.json", "--max-rows", "20").read_text())
    assert len(tasks) == 20 and not any("predictions" in t for t in tasks)
    for task in tasks:
        assert task["data"]["why"].endswith(
            "kept: the features predict the label too poorly for the run to flag "
            "any row."
        )


def test_label_studio_tasks_follow_its_import_format(run):
    root, _ = run
    path = _export(root, "tasks.json", "--max-rows", "10", "--overwrite")
    tasks = json.loads(path.read_text())
    config = (root / "tasks.label_config.xml").read_text()
    assert '<Text name="row" value="$text"/>' in config
    assert '<Choices name="verdict" toName="row"' in config
    for task in tasks:
        assert set(task) == {"id", "data", "predictions"}
        assert isinstance(task["data"]["text"], str) and "row_id" in task["data"]
        (prediction,) = task["predictions"]
        (result,) = prediction["result"]
        assert result["from_name"] == "verdict" and result["to_name"] == "row"
        assert result["type"] == "choices"
        assert result["value"]["choices"] in (["cat"], ["dog"])
        assert 0 <= prediction["score"] <= 1


def test_apply_verdicts_of_a_filled_file(run, tmp_path):
    root, truth = run
    rows = pd.read_parquet(_export(root, "review.parquet", "--overwrite"))
    rows["verdict"] = [truth[k] for k in rows["row_id"]]  # reviewers know the truth
    rows.loc[rows.index[-5:], "verdict"] = None  # five left unreviewed
    filled = tmp_path / "filled.csv"
    rows.to_csv(filled, index=False)
    out = tmp_path / "reviewed"
    result = runner.invoke(app, ["review", "apply", str(root / "run"), str(filled),
                                 "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    audit = pd.read_parquet(out / "audit.parquet")
    original = pd.read_parquet(root / "run" / "audit.parquet")
    assert len(audit) == len(original)  # every row accounted for
    done = audit[audit["reviewed"]]
    assert len(done) == len(rows) - 5
    assert (done["reason"] == "reviewed").all()
    assert (done["cleaned_label"] == done["key"].map(truth)).all()
    assert (done["review_label"] == done["cleaned_label"]).all()
    cleaned = pd.read_parquet(out / "cleaned.parquet")
    assert list(cleaned.columns) == ["key", "f1", "f2", "label"]
    assert set(done["key"]) <= set(cleaned["key"])  # reviewed rows are kept
    summary = json.loads((out / "review.json").read_text())
    assert summary["reviewed"] == len(done)
    flagged = done[original.set_index("key").loc[done["key"], "decision"].to_numpy()
                   != "kept"]  # fmt: skip
    wrong = flagged["observed_label"] != flagged["review_label"]
    if len(flagged):
        assert summary["flag_precision"] == pytest.approx(wrong.mean())
    assert {c["label"] for c in summary["classes"]} == {"cat", "dog"}
    # The reviewed result has its own report, with the agreement per class.
    report = json.loads((out / "report.json").read_text())
    assert report["run"]["review"] == summary
    assert report["summary"]["n_rows"] == len(original)
    page = (out / "report.html").read_text()
    assert "<h2>Review</h2>" in page and 'id="review-agreement"' in page
    assert '<a href="#review">Review</a>' in page
    assert f"A person then reviewed {len(done)} row(s)" in page  # in the summary


def test_apply_a_label_studio_export(run, tmp_path):
    root, truth = run
    tasks = json.loads(_export(root, "tasks.json", "--overwrite").read_text())
    for task in tasks[:8]:  # what Label Studio exports after annotation
        task["annotations"] = [{"was_cancelled": False, "result": [{
            "from_name": "verdict", "to_name": "row", "type": "choices",
            "value": {"choices": [truth[task["data"]["row_id"]]]}}]}]  # fmt: skip
    exported = tmp_path / "export.json"
    exported.write_text(json.dumps(tasks))
    out = tmp_path / "reviewed"
    result = runner.invoke(app, ["review", "apply", str(root / "run"), str(exported),
                                 "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    audit = pd.read_parquet(out / "audit.parquet")
    assert int(audit["reviewed"].sum()) == 8


def _benchmarks_label_studio():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks import _label_studio

    return _label_studio


def test_a_label_studio_that_exits_at_start_up_is_explained_by_its_log(tmp_path):
    # A CI machine's temporary folder goes with it: the error carries the log.
    server = tmp_path / "label-studio"
    lines = "\n".join(f"line {i}" for i in range(30))
    server.write_text(
        f"#!/bin/sh\nprintf '{lines}\\nTypeError: Unknown option'\nexit 1\n"
    )
    server.chmod(0o755)
    with pytest.raises(RuntimeError) as raised:
        with _benchmarks_label_studio().started(str(server), tmp_path, timeout=60):
            pytest.fail("a server that exits cannot answer")
    message = str(raised.value)
    assert message.startswith("Label Studio did not start")
    assert message.endswith("TypeError: Unknown option")
    assert "line 29" in message and "line 18" not in message  # its last 12 lines


@pytest.fixture(scope="module")
def label_studio(tmp_path_factory):
    """A real Label Studio on a fresh database, logged in; skipped when absent.

    ``.ci/run`` installs Label Studio in its own environment and names its
    executable in ``LABELCLEAN_LABEL_STUDIO``.
    """
    executable = os.environ.get("LABELCLEAN_LABEL_STUDIO")
    if not executable:
        pytest.skip("LABELCLEAN_LABEL_STUDIO (a label-studio executable) is not set")
    _label_studio = _benchmarks_label_studio()
    with _label_studio.started(executable, tmp_path_factory.mktemp("ls")) as url:
        yield _label_studio.Client(url)


def test_a_real_label_studio_imports_the_export_and_its_export_applies(
    run, label_studio, tmp_path
):
    root, truth = run
    tasks = json.loads(_export(root, "tasks.json", "--max-rows", "12",
                               "--overwrite").read_text())  # fmt: skip
    config = (root / "tasks.label_config.xml").read_text()
    project = label_studio.create_project("labelclean review", config)
    counts = label_studio.import_tasks(project, tasks)
    assert (counts["task_count"], counts["prediction_count"]) == (12, 12)
    stored = label_studio.tasks(project)
    assert sorted(t["data"]["row_id"] for t in stored) == sorted(
        t["data"]["row_id"] for t in tasks
    )
    for task in stored[:9]:  # a reviewer who knows the truth does nine
        label_studio.annotate(task["id"], truth[task["data"]["row_id"]])
    exported = tmp_path / "export.json"
    exported.write_text(json.dumps(label_studio.export(project)))
    out = tmp_path / "reviewed"
    result = runner.invoke(app, ["review", "apply", str(root / "run"), str(exported),
                                 "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    audit = pd.read_parquet(out / "audit.parquet")
    done = audit[audit["reviewed"]]
    assert len(done) == 9
    assert (done["cleaned_label"] == done["key"].map(truth)).all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.assign(row_id=["nope", *r["row_id"][1:]]), "unknown row id"),
        (lambda r: r.assign(verdict=["horse"] + ["cat"] * (len(r) - 1)),
         "outside the run's classes"),
        (lambda r: pd.concat([r, r.iloc[:1]]), "two verdicts"),
    ],
)  # fmt: skip
def test_bad_verdicts_are_refused_and_nothing_is_written(
    run, tmp_path, change, message
):
    root, _ = run
    rows = pd.read_parquet(_export(root, "review.parquet", "--overwrite"))
    rows = change(rows.assign(verdict="cat"))
    filled = tmp_path / "filled.parquet"
    rows.to_parquet(filled, index=False)
    out = tmp_path / "reviewed"
    result = runner.invoke(app, ["review", "apply", str(root / "run"), str(filled),
                                 "--out", str(out)])  # fmt: skip
    assert result.exit_code == 3, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0]
    assert not out.exists()


def test_reviewed_rows_are_known_truth_in_a_later_run(run, tmp_path):
    root, truth = run
    rows = pd.read_parquet(_export(root, "review.parquet", "--overwrite"))
    rows["verdict"] = [truth[k] for k in rows["row_id"]]
    filled = tmp_path / "filled.parquet"
    rows.to_parquet(filled, index=False)
    out = tmp_path / "again"
    argv = ["run", str(root / "in.parquet"), "-p", str(root / "fast.toml"), "-o",
            str(out), "--reviewed", str(filled)]  # fmt: skip
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    audit = pd.read_parquet(out / "audit.parquet").set_index("key")
    done = audit.loc[rows["row_id"]]
    assert (done["reason"] == "reviewed").all()
    assert (done["cleaned_label"] == rows["verdict"].to_numpy()).all()
    # The audit keeps what the rows were labelled; the cleaned file has the truth.
    source = pd.read_parquet(root / "in.parquet").set_index("key")
    assert (done["observed_label"] == source.loc[rows["row_id"], "label"]).all()
    cleaned = pd.read_parquet(out / "cleaned.parquet").set_index("key")
    assert (cleaned.loc[rows["row_id"], "label"] == rows["verdict"].to_numpy()).all()
    report = json.loads((out / "report.json").read_text())
    changed = int((rows["verdict"] != rows["observed_label"]).sum())
    assert report["run"]["reviewed"]["rows"] == len(rows)
    assert report["run"]["reviewed"]["labels_changed"] == changed
    # The guardrails judge labelclean's own flags, not a person's verdicts.
    checks = {c["name"]: c for v in report["validation"] for c in v["checks"]}
    own = audit[(audit["decision"] != "kept") & (audit["reason"] != "reviewed")]
    assert checks["flagged_vs_noise"]["unexpected_count"] == len(own)
    assert (
        f"{len(rows)} row(s) had been reviewed by a person"
        in (out / "report.html").read_text()
    )

    # A sampled fit cannot honour them; a bad verdict is refused.
    def again(name, *extra):
        return runner.invoke(
            app, ["run", str(root / "in.parquet"), "-p", str(root / "fast.toml"),
                  "-o", str(tmp_path / name), "--reviewed", str(filled), *extra],
        )  # fmt: skip

    sampled = again("sampled", "--max-fit-rows", "300")
    assert (
        sampled.exit_code == 3 and "needs the fit on every input row" in sampled.stderr
    )
    rows.loc[rows.index[0], "verdict"] = "horse"
    rows.to_parquet(filled, index=False)
    bad = again("bad")
    assert bad.exit_code == 3 and "outside the input's classes" in bad.stderr
    assert not (tmp_path / "bad").exists()


def test_evidence_against_reads_whichever_stage_the_audit_has():
    audit = pd.DataFrame(
        {
            "confidence": [0.9, np.nan, np.nan, 0.2],
            "model_probability": [0.7, 0.4, np.nan, np.nan],
        }
    )
    np.testing.assert_allclose(evidence_against(audit), [0.2, 0.6, 0.0, 0.8])
    only = audit[["confidence"]]
    np.testing.assert_allclose(evidence_against(only), [0.1, 0.0, 0.0, 0.8])
    assert evidence_against(audit[[]]).tolist() == [0.0] * 4
