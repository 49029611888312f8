"""``labelclean report``: re-render report.html from report.json."""

from pathlib import Path
from typing import Annotated

import typer

from labelclean.cli._common import user_errors


def report(
    folder: Annotated[
        Path, typer.Argument(help="Output folder of a run (or its report.json).")
    ],
) -> None:
    """Render the HTML report again from the run's report.json."""
    with user_errors():
        # lazy: keeps `labelclean --help` fast
        from labelclean.runner import render_report

        path = render_report(folder)
    typer.echo(f"wrote {path}")
