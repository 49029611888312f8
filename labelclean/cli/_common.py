"""What every command shares: errors to exit codes, progress, summaries."""

import contextlib
import logging
import os
import signal
import sys
import threading
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


class _CurrentStdoutHandler(_CurrentStderrHandler):
    """Log to whatever ``sys.stdout`` is at the time of the record."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stdout

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


class _Formatter(logging.Formatter):
    """``WARNING: text`` for problems, the bare text for information."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.levelno >= logging.WARNING:
            return f"{record.levelname}: {text}"
        return text


class _OwnInformation(logging.Filter):
    """Pass warnings from anywhere, information from labelclean only.

    Libraries that configure their own loggers (Dask's ``distributed``
    announces every worker at INFO) stay off stderr unless
    ``LABELCLEAN_LOG_LEVEL=DEBUG`` asks for everything.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING or record.name.startswith("labelclean"):
            return True
        return os.environ.get("LABELCLEAN_LOG_LEVEL", "").upper() == "DEBUG"


def _configure_logging() -> _Once:
    root = logging.getLogger()
    for handler in root.handlers:
        if isinstance(handler, _CurrentStderrHandler):
            break
    else:
        handler = _CurrentStderrHandler()
        handler.setFormatter(_Formatter())
        handler.addFilter(_Once())
        handler.addFilter(_OwnInformation())
        root.addHandler(handler)
        if root.level == logging.NOTSET or root.level > logging.WARNING:
            root.setLevel(logging.WARNING)
    # What a run chose (label, id, features) is always shown, on stdout with
    # the summary: stderr is for problems (one line per error).
    choices = logging.getLogger("labelclean.choices")
    choices.setLevel(logging.INFO)
    choices.propagate = False
    if not any(isinstance(h, _CurrentStdoutHandler) for h in choices.handlers):
        out = _CurrentStdoutHandler()
        out.setFormatter(_Formatter())
        choices.addHandler(out)
    wanted = os.environ.get("LABELCLEAN_LOG_LEVEL", "").upper()
    if wanted in {"DEBUG", "INFO", "WARNING", "ERROR"}:
        # labelclean's own messages, e.g. INFO: each stage's wall time
        logging.getLogger("labelclean").setLevel(wanted)
        if wanted == "DEBUG":
            root.setLevel(logging.DEBUG)
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


def _terminated(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def _exit_cleanly_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM (what schedulers send) into an orderly exit.

    By default it kills the process where it stands; as ``SystemExit(143)``
    it unwinds the command, so the output folder's staging copy is removed
    and the previous results stay as they were.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Print a labelclean error as one line on stderr and exit with its code.

    Anything else is a bug and keeps its traceback. SIGTERM exits with code
    143 after cleaning up.
    """
    _configure_logging()
    try:
        with _exit_cleanly_on_sigterm(), _plain_warnings():
            yield
    except LabelcleanError as exc:
        _echo_cautions(getattr(exc, "cautions", ()))  # a run that failed its guardrails
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=exc.exit_code) from None


class _StatusHandler(logging.Handler):
    """Shows each finished stage (``labelclean.progress``) on a rich status."""

    def __init__(self, status: Any, what: str) -> None:
        super().__init__(logging.INFO)
        self.status = status
        self.what = what

    def emit(self, record: logging.LogRecord) -> None:
        self.status.update(f"{self.what}… {record.getMessage()}")


@contextlib.contextmanager
def progress_note(what: str) -> Iterator[None]:
    """Progress on stderr while work runs: a spinner with the last finished
    stage, its rows and the elapsed time; silent when not on a terminal."""
    # lazy: keeps `labelclean --help` fast
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        yield
        return
    progress = logging.getLogger("labelclean.progress")
    with console.status(f"{what}…") as status:
        handler = _StatusHandler(status, what)
        level = progress.level
        progress.addHandler(handler)
        progress.propagate = False  # on the status line, not as log lines
        progress.setLevel(logging.INFO)
        try:
            yield
        finally:
            progress.removeHandler(handler)
            progress.propagate = True
            progress.setLevel(level)


def summarise(result: Any) -> None:
    """One line on stdout saying what a run or apply wrote, then each of the
    report's cautions on stderr (``WARNING: [code] message``), so that a log
    holds what the report's first lines warn of."""
    d = result.decisions
    status = (
        "passed"
        if result.validation_success
        else "FAILED: " + ", ".join(result.failed_checks)
    )
    typer.echo(
        f"{result.n_rows:,} rows: {d['kept']:,} kept, {d['corrected']:,} corrected, "
        f"{d['discarded']:,} discarded; guardrails {status}; outputs in {result.out}"
    )
    _echo_cautions(result.cautions)


def _echo_cautions(cautions: Any) -> None:
    """Each caution as a ``WARNING: [code] message`` line on stderr."""
    for caution in cautions:
        typer.echo(f"WARNING: [{caution['code']}] {caution['message']}", err=True)
