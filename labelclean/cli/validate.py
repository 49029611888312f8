"""``labelclean validate``: check an input against a pipeline, without running."""

import json
from pathlib import Path
from typing import Annotated

import typer

from labelclean.cli._common import user_errors
from labelclean.cli._options import Exclude, Feature, IdColumn, Label, Pipeline


def validate(
    input: Annotated[
        Path, typer.Argument(help="Parquet file or folder of parquet files.")
    ],
    *,
    pipeline: Pipeline = None,
    label: Label = None,
    id_column: IdColumn = None,
    feature: Feature = None,
    exclude: Exclude = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the full result as JSON.")
    ] = False,
) -> None:
    """Check the input's schema and values; exit 3 if a check fails."""
    with user_errors():
        # lazy: keeps `labelclean --help` fast
        from labelclean.runner import validate_file

        result = validate_file(
            input,
            pipeline=pipeline,
            label=label,
            id_column=id_column,
            features=feature,
            exclude=exclude,
        )
    if json_output:
        typer.echo(json.dumps(result.to_dict(), sort_keys=True))
    else:
        for check in result.checks:
            status = (
                "ok  "
                if check.success
                else ("WARN" if check.severity == "warning" else "FAIL")
            )
            typer.echo(f"{status} {check.name}: {check.message}")
    if not result.success:
        typer.echo(f"error: the input failed {len(result.failures)} check(s)", err=True)
        raise typer.Exit(code=3)
