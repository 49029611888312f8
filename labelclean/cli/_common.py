"""What every command shares: errors to exit codes, progress, summaries."""

import contextlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import typer

from labelclean.exceptions import LabelcleanError

__all__ = ["progress_note", "summarise", "user_errors"]


class _CurrentStderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Log to whatever ``sys.stderr`` is at the time of the record.

    A handler bound to the stream of the first command would write to a
    closed stream when the app is invoked again in one process (tests,
    notebooks) after that stream was replaced.
    """

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


class _Once(logging.Filter):
    """Drop a record whose text was already shown during this command."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if text in self.seen:
            return False
        self.seen.add(text)
        return True


def _configure_logging() -> _Once:
    root = logging.getLogger()
    for handler in root.handlers:
        if isinstance(handler, _CurrentStderrHandler):
            break
    else:
        handler = _CurrentStderrHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
        handler.addFilter(_Once())
        root.addHandler(handler)
        if root.level == logging.NOTSET or root.level > logging.WARNING:
            root.setLevel(logging.WARNING)
    wanted = os.environ.get("LABELCLEAN_LOG_LEVEL", "").upper()
    if wanted in {"DEBUG", "INFO", "WARNING", "ERROR"}:
        # labelclean's own messages only, e.g. INFO: each stage's wall time
        logging.getLogger("labelclean").setLevel(wanted)
    once = next(f for f in handler.filters if isinstance(f, _Once))
    once.seen.clear()
    return once


def _format_warning(
    message: Any, category: Any, filename: Any, lineno: Any, line: Any = None
) -> str:
    # The warning's own text (it says what happened and what to try), without
    # the file, line and source code of wherever it was raised.
    return str(message)


def _show_warning(
    message: Any,
    category: Any,
    filename: Any,
    lineno: Any,
    file: Any = None,
    line: Any = None,
) -> None:
    logging.getLogger("py.warnings").warning("%s", message)


@contextlib.contextmanager
def _plain_warnings() -> Iterator[None]:
    """Show each distinct warning once, as one ``WARNING: text`` line."""
    saved = warnings.formatwarning
    with warnings.catch_warnings():
        warnings.formatwarning = _format_warning
        warnings.showwarning = _show_warning
        try:
            yield
        finally:
            warnings.formatwarning = saved


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Print a labelclean error as one line on stderr and exit with its code.

    Anything else is a bug and keeps its traceback.
    """
    _configure_logging()
    try:
        with _plain_warnings():
            yield
    except LabelcleanError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=exc.exit_code) from None


@contextlib.contextmanager
def progress_note(what: str) -> Iterator[None]:
    """A spinner on stderr while work runs; silent when not on a terminal."""
    # lazy: keeps `labelclean --help` fast
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
