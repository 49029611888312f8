"""What every command shares: errors to exit codes, progress, summaries."""

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import typer

from labelclean.exceptions import LabelcleanError

__all__ = ["progress_note", "summarise", "user_errors"]


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Print a labelclean error as one line on stderr and exit with its code.

    Anything else is a bug and keeps its traceback.
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    try:
        yield
    except LabelcleanError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=exc.exit_code) from None


@contextlib.contextmanager
def progress_note(what: str) -> Iterator[None]:
    """A spinner on stderr while work runs; silent when not on a terminal."""
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield
        return
    with console.status(f"{what}…"):
        yield


def summarise(result: Any) -> None:
    """One line on stdout saying what a run or apply wrote."""
    d = result.decisions
    status = (
        "passed"
        if result.validation_success
        else "FAILED: " + ", ".join(result.failed_checks)
    )
    typer.echo(
        f"{result.n_rows} rows: {d['kept']} kept, {d['corrected']} corrected, "
        f"{d['discarded']} discarded; guardrails {status}; outputs in {result.out}"
    )
