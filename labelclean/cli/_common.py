"""What every command shares: turning labelclean errors into exit codes."""

import contextlib
import logging
from collections.abc import Iterator

import typer

from labelclean.exceptions import LabelcleanError

__all__ = ["user_errors"]


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
