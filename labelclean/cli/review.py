"""``labelclean review export`` and ``review apply``: a human review round trip."""

from pathlib import Path
from typing import Annotated

import typer

from labelclean.cli._common import user_errors
from labelclean.cli._options import Force, Out, Overwrite, overwrite_mode

review = typer.Typer(
    name="review",
    help="Export the rows worth a person's time; apply the verdicts.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

RunDir = Annotated[Path, typer.Argument(help="Folder written by `run` or `apply`.")]


@review.command("export")
def export(
    run_dir: RunDir,
    *,
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="File to write: .parquet, .csv or .json (Label Studio tasks).",
        ),
    ],
    max_rows: Annotated[
        int, typer.Option(min=1, max=1_000_000, help="Most rows to export.")
    ] = 200,
    overwrite: Overwrite = False,
) -> None:
    """Write the rows whose verdict would change the outcome most."""
    with user_errors():
        # lazy: keeps `labelclean --help` fast
        from labelclean.review import export_review

        rows = export_review(run_dir, out, max_rows=max_rows, overwrite=overwrite)
    typer.echo(f"{len(rows):,} row(s) to review in {out}")


@review.command("apply")
def apply(
    run_dir: RunDir,
    verdicts: Annotated[
        Path,
        typer.Argument(help="The filled review file, or a Label Studio export."),
    ],
    *,
    out: Out,
    overwrite: Overwrite = False,
    force: Force = False,
) -> None:
    """Apply reviewers' verdicts; write a new output folder."""
    with user_errors():
        # lazy: keeps `labelclean --help` fast
        from labelclean.review import apply_review

        summary = apply_review(
            run_dir, verdicts, out, overwrite=overwrite_mode(overwrite, force)
        )
    precision = summary["flag_precision"]
    changed = summary["labels_changed_by_reviewers"]
    typer.echo(
        f"{summary['reviewed']} reviewed row(s), {changed} label(s) changed"
        + (f"; flag precision {precision:.2f}" if precision is not None else "")
        + f"; outputs in {out}"
    )
