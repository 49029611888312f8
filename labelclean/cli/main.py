"""The ``labelclean`` command-line application.

One :class:`typer.Typer` app; each command lives in its own module and only
parses options, calls one library function, and turns a
:class:`~labelclean.exceptions.LabelcleanError` into one line on stderr and the
error's exit code. The library (:mod:`labelclean.runner` and everything
below it) is imported inside the commands, so ``labelclean --help`` answers
quickly.
"""

import os
from typing import Annotated

# Before any OpenMP runtime loads (faiss, scikit-learn): idle OpenMP threads
# sleep instead of spinning. A run fits SPLBoost on a thread while the
# neighbour search runs on every core; spinning threads then fight that
# thread for the cores (measured: `run` on 1e5 rows took 30 s instead of
# 40 s, docs/scale.md). A value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import typer

from labelclean import __version__
from labelclean.cli.apply import apply
from labelclean.cli.demo import demo
from labelclean.cli.drift import drift
from labelclean.cli.report import report
from labelclean.cli.review import review
from labelclean.cli.run import run
from labelclean.cli.score import score
from labelclean.cli.validate import validate

app = typer.Typer(
    name="labelclean",
    help="Find, correct and discard wrong labels in tabular (parquet) data.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"labelclean {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Show the version and exit.",
            callback=_version_callback,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Find, correct and discard wrong labels in tabular (parquet) data."""


for _command in (run, apply, demo, validate, report, score, drift):
    app.command(name=_command.__name__)(_command)
app.add_typer(review)
