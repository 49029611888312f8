"""Numeric options are checked where they are parsed: a usage error, exit 2."""

import pytest
from typer.testing import CliRunner

from labelclean.cli.main import app

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
