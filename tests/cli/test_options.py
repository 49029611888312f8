"""Numeric options are checked where they are parsed: a usage error, exit 2."""

import pytest
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.cli.run import FinalModel
from labelclean.pipeline import LabelCleaner

runner = CliRunner()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "in.parquet", "-p", "multiclass-rosr", "-o", "out", "--seed", "-1"],
         "greater than or equal to 0"),
        (["run", "in.parquet", "-p", "multiclass-rosr", "-o", "out", "--seed",
          "99999999999999"], "less than or equal to 4294967295"),
        (["demo", "-o", "out", "--seed", "-5"], "greater than or equal to 0"),
        (["score", "in.parquet", "--label", "y", "--out", "s.parquet", "--seed",
          "-2"], "greater than or equal to 0"),
        (["run", "in.parquet", "-p", "multiclass-rosr", "-o", "out", "--jobs", "0"],
         "0 threads cannot run anything"),
        (["apply", "model.skops", "in.parquet", "-o", "out", "--jobs", "0"],
         "0 threads cannot run anything"),
    ],
)  # fmt: skip
def test_out_of_range_numbers_are_usage_errors(tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []  # nothing was written


def test_the_largest_seed_and_negative_job_counts_are_accepted(tmp_path, monkeypatch):
    # Parsing succeeds; the run then stops on the missing input (exit 4).
    monkeypatch.chdir(tmp_path)
    argv = ["run", "missing.parquet", "-p", "multiclass-rosr", "-o", "out",
            "--label", "y", "--seed", "4294967295", "--jobs", "-2"]  # fmt: skip
    result = runner.invoke(app, argv)
    assert result.exit_code == 4, result.output


def _lines(output):
    return [line for line in output.splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"format": "labelclean-report", "version": 1}, "is not a complete"),
        (
            {
                "format": "labelclean-report",
                "version": 1,
                "run": {},
                "classes": [],
                "corrections": [],
                "reasons": [],
                "validation": [],
                "distributions": {},
                "suspects": {},
                "examples": {},
                "input": 3,
                "summary": "x",
                "evidence": {},
            },
            "does not have the shape a run writes",
        ),
    ],
)
def test_report_of_an_incomplete_report_json_is_one_line(tmp_path, content, message):
    import json

    (tmp_path / "report.json").write_text(json.dumps(content))
    result = runner.invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 4, result.output
    assert len(_lines(result.output)) == 1 and message in result.output
    assert not (tmp_path / "report.html").exists()


def test_score_never_writes_into_the_input_folder(tmp_path):
    import numpy as np
    import pandas as pd

    folder = tmp_path / "data"
    folder.mkdir()
    pd.DataFrame({"x": np.arange(40.0), "y": [0, 1] * 20}).to_parquet(
        folder / "part.parquet"
    )
    out = folder / "scores.parquet"
    result = runner.invoke(
        app, ["score", str(folder), "--label", "y", "--out", str(out)]
    )
    assert result.exit_code == 5, result.output
    assert "lies inside the input folder" in result.output
    assert sorted(p.name for p in folder.iterdir()) == ["part.parquet"]


def test_final_model_choices_are_the_cleaners():
    assert [m.value for m in FinalModel] == ["auto", *LabelCleaner.MODEL_KINDS]
