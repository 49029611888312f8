"""The CLI shows its choices: the features used, warnings for columns that
should probably not be features, errors for impossible column choices,
progress on a terminal, and no other library's chatter on stderr."""

import decimal
import html
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs
from typer.testing import CliRunner

from labelclean.cli.main import app

runner = CliRunner()

PIPELINE = """
[pipeline]
name = "fast"
[[stages]]
name = "confidence"
kind = "knn"
[[stages]]
name = "suspects"
kind = "splboost"
params = { n_estimators = 20 }
[[stages]]
name = "model"
kind = "cb_adaboost"
params = { n_estimators = 20 }
"""


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Blobs plus an id-like number, free text, a timestamp and many levels."""
    root = tmp_path_factory.mktemp("choices")
    X, y = make_blobs(300, centers=2, random_state=0)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(X, columns=["f1", "f2"])
    frame["record"] = np.arange(300) + 5_000
    frame["note"] = [
        f"the customer wrote a long comment, number {i}" for i in range(300)
    ]
    frame["created"] = pd.date_range("2024-01-01", periods=300, freq="h")
    frame["town"] = rng.choice([f"town{i}" for i in range(60)], size=300)
    frame["label"] = np.array(["a", "b"])[y]
    path = root / "in.parquet"
    frame.to_parquet(path, index=False)
    pipeline = root / "fast.toml"
    pipeline.write_text(PIPELINE)
    return {"input": path, "pipeline": pipeline, "root": root}


def _run(table, out, *extra, source=None):
    return runner.invoke(
        app,
        ["run", str(source or table["input"]), "-p", str(table["pipeline"]),
         "--label", "label", "-o", str(out), *extra],
    )  # fmt: skip


def test_suspicious_columns_warn_and_the_features_are_named(table, tmp_path):
    result = _run(table, tmp_path / "out")
    assert result.exit_code == 0, result.output
    err = result.stderr
    assert (
        "label 'label'; 6 feature(s) (2 categorical, 3 numeric, 1 temporal): f1, f2, "
        "record, note, created, town" in result.stdout
    )
    assert (
        "WARNING: feature column 'record' has a different value in every row, "
        "like a row id"
        in err
        and "--exclude record" in err
    )
    # whole numbers are used as numbers: the row order is what they carry
    assert "used as a number, it tells classes apart only as far as the order" in err
    assert "WARNING: feature column 'note' looks like free text" in err
    assert "--exclude note" in err
    assert "WARNING: feature column 'created' holds timestamps" in err
    assert (
        "WARNING: feature column 'town' has 60 levels: the 31 most frequent are "
        "kept and the other 29 are pooled into one level." in err
    )
    # The same warnings are in the report, and the report lists the handling.
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    checks = {c["name"] for s in report["validation"] for c in s["checks"]
              if not c["success"]}  # fmt: skip
    assert {"feature_looks_like_id", "feature_looks_like_text",
            "feature_is_timestamp", "feature_levels_pooled"} <= checks  # fmt: skip
    town = next(f for f in report["run"]["feature_handling"] if f["name"] == "town")
    assert town["levels"] == 60 and town["pooled_levels"] == 29


def test_the_confidence_stages_max_categories_holds_for_the_whole_run(table, tmp_path):
    # A definition that keeps more levels in the neighbours' distance keeps
    # them everywhere: the warning, the report's account of the column and
    # the encoding of the models' features read the same setting.
    wide = tmp_path / "wide.toml"
    wide.write_text(
        table["pipeline"]
        .read_text()
        .replace('kind = "knn"', 'kind = "knn"\nparams = { max_categories = 64 }')
    )
    out = tmp_path / "out"
    result = runner.invoke(
        app,
        ["run", str(table["input"]), "-p", str(wide), "--label", "label",
         "-o", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "'town' has 60 levels" not in result.stderr
    report = json.loads((out / "report.json").read_text())
    town = next(f for f in report["run"]["feature_handling"] if f["name"] == "town")
    assert town["levels"] == 60 and town["pooled_levels"] == 0
    pooled = [c["column"] for s in report["validation"] for c in s["checks"]
              if c["name"] == "feature_levels_pooled"]  # fmt: skip
    assert pooled == ["note"]  # 300 levels: still more than 64
    assert "the 63 most frequent are kept" in result.stderr
    assert "The confidence stage's max_categories (64) sets how many" in result.stderr
    validated = runner.invoke(
        app, ["validate", str(table["input"]), "-p", str(wide), "--label", "label"]
    )
    assert "'town' has 60 levels" not in validated.output + validated.stderr


def test_the_level_warning_counts_the_rows_the_report_counts(table, tmp_path):
    # Rows without a label are discarded before the fit; levels only they
    # hold are not in the fit. The warning and the report count the same
    # rows, and the warning says which.
    frame = pd.read_parquet(table["input"], columns=["f1", "f2", "town", "label"])
    extra = frame.iloc[:12].copy()
    extra["town"] = [f"elsewhere{i}" for i in range(12)]
    extra["label"] = None
    source = tmp_path / "unlabelled.parquet"
    pd.concat([frame, extra], ignore_index=True).to_parquet(source, index=False)
    result = _run(table, tmp_path / "out", source=source)
    assert result.exit_code == 0, result.output
    assert (
        "WARNING: feature column 'town' has 60 levels in the 300 rows with a "
        "label: the 31 most frequent are kept and the other 29 are pooled into "
        "one level." in result.stderr
    )
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    town = next(f for f in report["run"]["feature_handling"] if f["name"] == "town")
    assert town["levels"] == 60 and town["pooled_levels"] == 29
    pooled = next(
        c
        for s in report["validation"]
        for c in s["checks"]
        if c["name"] == "feature_levels_pooled"
    )
    assert pooled["details"]["levels"] == 60


def test_the_announced_kinds_are_the_encoders(table, tmp_path):
    # The line before the fit reads each column as the feature encoder does:
    # a duration is temporal (seconds), a flag and an exact number as stored.
    frame = pd.read_parquet(table["input"], columns=["f1", "f2", "label"])
    frame["wait"] = pd.to_timedelta(np.abs(frame["f2"]) * 600, unit="s")
    frame["member"] = frame["f1"] > 0
    frame["price"] = [decimal.Decimal(f"{v:.2f}") for v in frame["f1"]]
    path = tmp_path / "kinds.parquet"
    frame.to_parquet(path, index=False)
    result = _run(table, tmp_path / "out", source=path)
    assert result.exit_code == 0, result.output
    assert (
        "5 feature(s) (1 categorical, 3 numeric, 1 temporal): f1, f2, wait, member, "
        "price" in result.stdout
    )
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    kinds = {f["name"]: f["kind"] for f in report["run"]["feature_handling"]}
    assert kinds == {"f1": "numeric", "f2": "numeric", "wait": "temporal",
                     "member": "categorical", "price": "numeric"}  # fmt: skip


def test_excluding_the_suspicious_columns_silences_them(table, tmp_path):
    result = _run(table, tmp_path / "out", "--exclude", "record", "--exclude",
                  "note", "--exclude", "created", "--exclude", "town")  # fmt: skip
    assert result.exit_code == 0, result.output
    # No warning about a column is left; the report's cautions ('WARNING:
    # [code] ...') speak of the evidence, not of the columns.
    warned = [
        line
        for line in result.stderr.splitlines()
        if line.startswith("WARNING: ") and not line.startswith("WARNING: [")
    ]
    assert warned == []
    assert "label 'label'; 2 feature(s) (2 numeric): f1, f2" in result.stdout


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--exclude", "V99"], "excluded column(s) 'V99' not found"),
        (["--exclude", "recrd"], "'recrd' (did you mean 'record'?) not found"),
        (["--feature", "label", "--feature", "f1"],
         "'label' is the label column and cannot also be a feature"),
        (["--id", "record", "--feature", "record", "--feature", "f1"],
         "'record' is the id column and cannot also be a feature"),
    ],
)  # fmt: skip
def test_impossible_column_choices_are_errors(table, tmp_path, extra, message):
    out = tmp_path / "out"
    result = _run(table, out, *extra)
    assert result.exit_code == 3, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("error")]
    assert len(lines) == 1 and message in lines[0]
    assert not out.exists()


def _run_as_labelled(table, tmp_path, values, label):
    """``run`` on the table's two numeric features with ``values`` as the
    ``label`` column; the data in its own file."""
    frame = pd.read_parquet(table["input"])[["f1", "f2"]]
    frame[label] = values(frame)
    path = tmp_path / f"{label}.parquet"
    frame.to_parquet(path)
    return runner.invoke(
        app, ["run", str(path), "-p", str(table["pipeline"]), "--label", label,
              "-o", str(tmp_path / "out")],
    )  # fmt: skip


def test_a_label_that_looks_continuous_warns(table, tmp_path):
    # 0.5 steps: few dozen values
    result = _run_as_labelled(
        table, tmp_path, lambda f: np.round(f["f1"] * 3) / 2, "label"
    )
    assert result.exit_code in (0, 3), result.output
    assert "WARNING: label column 'label' is numeric with" in result.stderr
    assert "not all whole numbers; each value is treated as a class" in result.stderr


def test_a_label_of_row_ids_is_refused_before_any_output(table, tmp_path):
    # a different value in each row
    result = _run_as_labelled(
        table, tmp_path, lambda f: np.arange(len(f)) * 3 + 7, "order"
    )
    assert result.exit_code == 3, result.output
    n = len(pd.read_parquet(table["input"]))
    assert (
        f"every one of the {n} classes in 'order' has a single row, as a "
        "row id's values do" in result.stderr
    )
    assert "regression problem" not in result.stderr  # no other library's words
    assert not (tmp_path / "out").exists()


def test_many_small_classes_warn_in_labelclean_words_only(tmp_path):
    # 25 classes in 40 rows: scikit-learn would add that the label "could
    # represent a regression problem"; the input suite has named the classes.
    rng = np.random.default_rng(0)
    label = [f"c{i}" for i in range(15) for _ in range(2)] + [
        f"s{i}" for i in range(10)
    ]
    frame = pd.DataFrame({"f1": rng.normal(size=40), "f2": rng.normal(size=40),
                          "label": label})  # fmt: skip
    frame.to_parquet(tmp_path / "many.parquet")
    result = runner.invoke(app, ["run", str(tmp_path / "many.parquet"), "--label",
                                 "label", "-o", str(tmp_path / "out")])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "WARNING: class(es) ['s0', 's1', 's2', 's3', 's4'] have a single row" in (
        result.stderr
    )
    assert "regression problem" not in result.stderr


def test_progress_is_shown_on_a_terminal_only(table, tmp_path, monkeypatch):
    quiet = _run(table, tmp_path / "quiet", "--exclude", "note")
    assert quiet.exit_code == 0
    assert "done in" not in quiet.stderr  # not a terminal: no progress
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich then treats stderr as a terminal
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    shown = _run(table, tmp_path / "shown", "--exclude", "note")
    assert shown.exit_code == 0, shown.output
    # The status line shows the last finished stage with the rows and the time.
    assert "cleaning… run on 300 rows: outputs done in" in shown.stderr
    assert "s elapsed)" in shown.stderr


def test_report_keeps_an_ordered_label_in_its_order(table, tmp_path):
    frame = pd.read_parquet(table["input"])[["f1", "f2"]]
    order = ["low", "mid", "high"]  # not alphabetical
    codes = np.digitize(frame["f1"], np.quantile(frame["f1"], [1 / 3, 2 / 3]))
    frame["label"] = pd.Categorical.from_codes(codes, categories=order, ordered=True)
    path = tmp_path / "ordered.parquet"
    frame.to_parquet(path)
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["run", str(path), "-p", str(table["pipeline"]), "--label", "label",
              "-o", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert [c["label"] for c in report["classes"]] == order
    assert report["label_matrix"]["labels"] == order
    html = (out / "report.html").read_text()
    assert (
        html.index("<td>low</td>")
        < html.index("<td>mid</td>")
        < html.index("<td>high</td>")
    )


@pytest.mark.parametrize("streamed", [False, True])
def test_labels_written_two_ways_warn_and_are_a_caution(table, tmp_path, streamed):
    # An export wrote 9 rows of class 'b' as 'B ': the run reads them as a
    # third class, says so before the fit, and cautions in the report; a
    # streamed run counts every row, not only those of its fitted sample.
    frame = pd.read_parquet(table["input"], columns=["f1", "f2", "label"])
    frame.loc[frame.index[frame["label"] == "b"][:9], "label"] = "B "
    source = tmp_path / "variants.parquet"
    frame.to_parquet(source, index=False)
    extra = ["--max-fit-rows", "150", "--batch-size", "100"] if streamed else []
    out = tmp_path / "out"
    result = _run(table, out, *extra, source=source)
    assert result.exit_code == 0, result.output
    assert (
        "WARNING: label column 'label' holds labels that differ only in case, "
        "spacing or Unicode form: 'b' (" in result.stderr
    )
    caution = (
        "WARNING: [label_variants] labels that differ only in case, spacing or "
        "Unicode form were read as separate classes: 'b' (141 rows) and 'B ' "
        "(9 rows); if they name one class, write it one way and run again"
    )
    assert caution in result.stderr
    assert "are read as separate classes" not in result.stderr  # fit's, said once
    report = json.loads((out / "report.json").read_text())
    assert {"code": "label_variants", "message": caution.split("] ", 1)[1]} in (
        report["cautions"]
    )
    # A streamed run's report holds its sample's suite and, last, the suite
    # over every batch.
    checks = [c for s in report["validation"] for c in s["checks"]
              if c["name"] == "label_variants"]  # fmt: skip
    assert len(checks) == 1 + streamed
    assert checks[-1]["details"]["groups"] == [[["b", 141], ["B ", 9]]]
    assert checks[-1]["examples"] == ["B "] and checks[-1]["unexpected_count"] == 9
    page = (out / "report.html").read_text()  # first in the cautions' box
    box = page.split('<div class="cautions" role="note">', 1)[1].split("</div>")[0]
    assert (
        "<li>Labels that differ only in case, spacing or Unicode form were read "
        "as separate classes: &#39;b&#39; (141 rows) and &#39;B &#39; (9 rows); "
        "if they name one class, write it one way and run again.</li>" in box
    )
    audit = pd.read_parquet(out / "audit.parquet")
    assert len(audit) == 300 and (audit["observed_label"] == "B ").sum() == 9


def test_labels_that_read_as_missing_warn_and_are_a_caution(table, tmp_path):
    # An export wrote 12 missing labels as 'N/A': they are a class of their
    # own to the run, and both the input check and the report say so.
    frame = pd.read_parquet(table["input"], columns=["f1", "f2", "label"])
    frame.loc[frame.index[:12], "label"] = "N/A"
    source = tmp_path / "placeholders.parquet"
    frame.to_parquet(source, index=False)
    checked = runner.invoke(app, ["validate", str(source), "--label", "label"])
    assert checked.exit_code == 0, checked.output  # a warning, not a failure
    assert (
        "WARN label_placeholders: label column 'label' holds labels that "
        "read as a missing value: 'N/A' (12 rows)" in checked.stdout
    )
    out = tmp_path / "out"
    result = _run(table, out, source=source)
    assert result.exit_code == 0, result.output
    message = (
        "labels that read as a missing value were read as classes: 'N/A' (12 "
        "rows); if those rows have no label, write it as missing (null) and run "
        "again"
    )
    assert f"WARNING: [label_placeholders] {message}" in result.stderr
    report = json.loads((out / "report.json").read_text())
    assert {"code": "label_placeholders", "message": message} in report["cautions"]
    assert "label_variants" not in {c["code"] for c in report["cautions"]}


def test_apply_names_a_new_label_that_is_a_fitted_class_written_otherwise(
    table, tmp_path
):
    fit = tmp_path / "fit"
    assert _run(table, fit).exit_code == 0
    batch = pd.read_parquet(table["input"])
    batch.loc[[3, 7], "label"] = ["A ", "N/A"]
    source = tmp_path / "batch.parquet"
    batch.to_parquet(source, index=False)
    out = tmp_path / "applied"
    result = runner.invoke(
        app, ["apply", str(fit / "model.skops"), str(source), "-o", str(out)]
    )
    assert result.exit_code == 3, result.output
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("error")]
    assert (
        "2 row(s) have a label outside the fitted classes ['a', 'b'], e.g. "
        "['A ', 'N/A'] ('A ' is written like the fitted class 'a'; 'N/A' reads "
        "as a missing value); relabel those rows (a missing label is discarded "
        "as missing_label)" in line
    )
    assert not out.exists()


@pytest.fixture(scope="module")
def copied(tmp_path_factory):
    """Three blobs whose labels were 10 % flipped, beside a text column that
    holds the labels before the flips: a label copy that differs from the
    label on exactly the flipped rows."""
    root = tmp_path_factory.mktemp("copied")
    X, y = make_blobs(300, centers=3, cluster_std=0.6, random_state=1)
    frame = pd.DataFrame(X, columns=["f1", "f2"])
    classes = np.array(["red", "green", "blue"])
    frame["source_b"] = classes[y]
    frame["town"] = np.random.default_rng(1).choice(["x", "y", "red"], size=300)
    flipped = np.random.default_rng(2).choice(300, size=30, replace=False)
    frame["label"] = classes[y]
    frame.loc[flipped, "label"] = classes[(y[flipped] + 1) % 3]
    path = root / "copied.parquet"
    frame.to_parquet(path, index=False)
    return path, frame


def test_a_column_that_copies_the_label_is_named_with_the_flags_it_explains(
    table, copied, tmp_path
):
    source, frame = copied
    out = tmp_path / "out"
    result = _run(table, out, source=source)
    assert result.exit_code == 0, result.output
    audit = pd.read_parquet(out / "audit.parquet")
    flagged = audit["decision"].to_numpy() != "kept"
    differs = (frame["source_b"] != frame["label"]).to_numpy()
    assert flagged.sum() >= 20 and (flagged & differs).sum() >= 0.9 * flagged.sum()
    report = json.loads((out / "report.json").read_text())
    (copy,) = report["run"]["label_copies"]  # 'town' shares a class, not the label
    assert copy == {
        "column": "source_b",
        "rows": 300,
        "equal": pytest.approx(0.9),
        "kappa": pytest.approx(0.85, abs=0.01),  # 3 even classes, 90 % equal
        "flagged": int(flagged.sum()),
        "flagged_where_different": int((flagged & differs).sum()),
        "corrected_to_column": int(
            ((audit["decision"] == "corrected") & differs
             & (audit["cleaned_label"] == frame["source_b"])).sum()
        ),
    }  # fmt: skip
    caution = next(c for c in report["cautions"] if c["code"] == "label_copy")
    assert caution["message"].startswith(
        "column 'source_b' holds the label's classes and equals the label in "
        "90.0% of the 300 rows compared (Cohen's κ 0.85); "
        f"{int((flagged & differs).sum())} of the "
        f"{int(flagged.sum())} flagged among them are rows where it differs"
    )
    assert caution["message"].endswith(
        "run again with --exclude source_b to judge the labels by the other columns"
    )
    assert f"WARNING: [label_copy] {caution['message']}" in result.stderr
    page = (out / "report.html").read_text()
    assert caution["message"][1:] in html.unescape(page)  # capitalised there

    exported = runner.invoke(
        app, ["review", "export", str(out), "--out", str(tmp_path / "r.parquet")]
    )
    assert exported.exit_code == 0, exported.output
    rows = pd.read_parquet(tmp_path / "r.parquet")
    named = rows["why"].str.contains("column 'source_b' holds")
    assert named.any()
    assert (named == (rows["source_b"] != rows["observed_label"])).all()

    alone = _run(table, tmp_path / "alone", "--exclude", "source_b", source=source)
    assert alone.exit_code == 0, alone.output
    report = json.loads((tmp_path / "alone" / "report.json").read_text())
    assert report["run"]["label_copies"] == []
    assert "label_copy" not in {c["code"] for c in report["cautions"]}


def test_dates_written_as_text_are_named(table, tmp_path):
    frame = pd.read_parquet(table["input"], columns=["f1", "f2", "created", "label"])
    frame["created"] = frame["created"].dt.strftime("%m/%d/%Y %H:%M:%S")
    source = tmp_path / "dates.parquet"
    frame.to_parquet(source, index=False)
    result = runner.invoke(
        app, ["validate", str(source), "-p", str(table["pipeline"]), "--label", "label"]
    )
    assert result.exit_code == 0, result.output
    said = result.output + result.stderr
    assert (
        "feature column 'created' holds dates written as text (e.g. "
        "'01/01/2024 00:00:00')" in said
    )
    assert "like a row id" not in said  # the more telling warning only


def test_a_numbering_that_groups_the_label_is_a_caution(table, tmp_path):
    # A table filed class by class and numbered as filed: the numbering tells
    # the label through the order alone.
    rng = np.random.default_rng(3)
    label = np.repeat(["ham", "spam"], 100)
    frame = pd.DataFrame({
        "row": np.arange(1, 201), "f1": rng.normal(size=200) + (label == "spam"),
        "f2": rng.normal(size=200), "label": label,
    })  # fmt: skip
    frame.to_parquet(tmp_path / "filed.parquet", index=False)
    out = tmp_path / "out"
    result = _run(table, out, source=tmp_path / "filed.parquet")
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["run"]["row_orders"] == [
        {"column": "row", "rows": 200, "kappa": pytest.approx(0.99, abs=0.01)}
    ]
    caution = next(c for c in report["cautions"] if c["code"] == "label_in_row_order")
    assert caution["message"].startswith(
        "column 'row' numbers the rows (a different whole number in each), and in "
        "its order consecutive rows share their label far beyond chance (Cohen's "
        "κ 0.99 over 200 rows)"
    )
    assert caution["message"].endswith("run again with --exclude row")
    assert f"WARNING: [label_in_row_order] {caution['message']}" in result.stderr
    assert caution["message"][1:] in html.unescape((out / "report.html").read_text())

    # numbered in an order that has nothing to do with the label: no caution
    frame.assign(row=rng.permutation(200) + 1).to_parquet(tmp_path / "mixed.parquet")
    mixed = _run(table, tmp_path / "mixed", source=tmp_path / "mixed.parquet")
    assert mixed.exit_code == 0, mixed.output
    report = json.loads((tmp_path / "mixed" / "report.json").read_text())
    assert report["run"]["row_orders"] == []
    assert "label_in_row_order" not in {c["code"] for c in report["cautions"]}

    left_out = _run(table, tmp_path / "left", "--exclude", "row",
                    source=tmp_path / "filed.parquet")  # fmt: skip
    report = json.loads((tmp_path / "left" / "report.json").read_text())
    assert report["run"]["row_orders"] == []
    assert "[label_in_row_order]" not in left_out.stderr


def test_an_unusable_column_is_refused_with_the_option_that_leaves_it_out(
    table, tmp_path
):
    frame = pd.read_parquet(table["input"])
    frame["sensor reading"] = np.where(np.arange(300) == 7, np.inf, 1.0 + frame["f1"])
    frame["tags"] = [[i, 1] for i in range(300)]
    frame.to_parquet(source := tmp_path / "in.parquet", index=False)
    refused = _run(table, tmp_path / "refused", source=source)
    assert refused.exit_code == 3
    # Each unusable column is named, with the option written as a shell takes it.
    err = refused.stderr
    assert "feature column 'sensor reading' has 1 infinite value(s)" in err
    assert "--exclude 'sensor reading' leaves it out" in err
    assert "feature column 'tags' holds nested values" in err
    assert "--exclude tags leaves it out" in err
    assert not (tmp_path / "refused").exists()
    # Following the advice for both columns runs, and every row is in the audit.
    done = _run(table, out := tmp_path / "out", "--exclude", "sensor reading",
                "--exclude", "tags", source=source)  # fmt: skip
    assert done.exit_code == 0, done.output
    assert len(pd.read_parquet(out / "audit.parquet")) == 300
    assert "sensor reading" not in done.stdout.split("feature(s)")[1].splitlines()[0]
