"""``labelclean score``: label confidence of every row of a parquet file."""

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from labelclean.cli._common import user_errors
from labelclean.cli._options import Seed


class Method(StrEnum):
    """Confidence estimators available from the command line."""

    knn = "knn"
    bayes = "bayes"


def score(
    input: Annotated[
        Path,
        typer.Argument(help="Parquet file or folder of parquet files to score."),
    ],
    *,
    label: Annotated[str, typer.Option("--label", help="Name of the label column.")],
    out: Annotated[
        Path,
        typer.Option("--out", help="Parquet file to write (input rows + scores)."),
    ],
    method: Annotated[
        Method, typer.Option("--method", help="Confidence estimator.")
    ] = Method.knn,
    id_column: Annotated[
        str | None, typer.Option("--id", help="Row-identifier column (not a feature).")
    ] = None,
    feature: Annotated[
        list[str] | None,
        typer.Option(
            "--feature", help="Feature column to use (repeatable; default all)."
        ),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude", help="Column to leave out of the features (repeatable)."
        ),
    ] = None,
    noise_level: Annotated[
        float | None,
        typer.Option(
            "--noise-level",
            min=0.0,
            max=0.99,
            help="Known share of wrong labels (bayes only; estimated if omitted).",
        ),
    ] = None,
    seed: Seed = 0,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an existing output file.")
    ] = False,
) -> None:
    """Estimate each row's label confidence and write it next to the row."""
    with user_errors():
        # lazy: keeps `labelclean --help` fast
        from labelclean.runner import score_file

        summary = score_file(
            input,
            out,
            label=label,
            method=method.value,
            id_column=id_column,
            features=feature,
            exclude=exclude,
            noise_level=noise_level,
            random_state=seed,
            overwrite=overwrite,
        )
    typer.echo(
        f"scored {summary.n_rows} rows ({summary.method}); mean confidence "
        f"{summary.mean_confidence:.3f}; {summary.n_trusted_differs} rows have a "
        f"different trusted label; wrote {summary.output}"
    )
