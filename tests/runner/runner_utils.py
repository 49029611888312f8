"""Helpers shared by the runner's tests."""

from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.io import read_parquet


def cli(*args):
    """Run labelclean's command line in-process on ``args`` (paths allowed);
    a non-zero exit fails the test with the command's output."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def review_keeping_labels(run, review, folder):
    """``labelclean review apply`` on ``run`` with a verdict for each row of
    the exported ``review`` file that keeps its observed label; the reviewed
    run's folder (under ``folder``)."""
    rows = read_parquet(review)
    verdicts = folder / "verdicts.csv"
    rows.assign(verdict=rows["observed_label"])[["row_id", "verdict"]].to_csv(
        verdicts, index=False
    )
    reviewed = folder / "reviewed"
    cli("review", "apply", run, verdicts, "--out", reviewed)
    return reviewed
