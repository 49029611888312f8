"""Options shared by several commands."""

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

Label = Annotated[
    str | None,
    typer.Option(
        "--label", help="Label column (default: the pipeline's [data] label)."
    ),
]
IdColumn = Annotated[
    str | None,
    typer.Option("--id", help="Row-identifier column (kept, never a feature)."),
]
Feature = Annotated[
    list[str] | None,
    typer.Option("--feature", help="Feature column to use (repeatable; default all)."),
]
Exclude = Annotated[
    list[str] | None,
    typer.Option("--exclude", help="Column to leave out of the features (repeatable)."),
]
Pipeline = Annotated[
    str | None,
    typer.Option(
        "--pipeline",
        "-p",
        help="Pipeline name (a file stem in pipelines/) or TOML path (default: "
        "binary-cbadaboost for a label of two classes, multiclass-rosr for more).",
    ),
]
Out = Annotated[Path, typer.Option("--out", "-o", help="Output folder.")]
Overwrite = Annotated[
    bool,
    typer.Option(
        "--overwrite",
        help="Replace a previous labelclean result in --out (refused for files "
        "changed since labelclean wrote them).",
    ),
]
Force = Annotated[
    bool,
    typer.Option(
        "--force",
        help="With --overwrite: also replace files changed since labelclean "
        "wrote them.",
    ),
]


def overwrite_mode(overwrite: bool, force: bool) -> bool | str:
    """``overwrite`` as the runner takes it: False, True or 'force'."""
    return "force" if force else overwrite


#: Largest seed: NumPy's legacy generators take seeds in [0, 2**32 - 1].
MAX_SEED = 2**32 - 1


def _thread_count(value: int) -> int:
    if value == 0:
        raise typer.BadParameter(
            "0 threads cannot run anything; give a count (1, 2, ...) or -1 for "
            "every processor."
        )
    return value


Seed = Annotated[
    int,
    typer.Option(
        "--seed",
        min=0,
        max=MAX_SEED,
        help="Random seed (same seed, same bytes).",
    ),
]
Jobs = Annotated[
    int,
    typer.Option(
        "--jobs",
        callback=_thread_count,
        help="Threads for fitting and for deciding streamed batches (-1: every "
        "processor). Outputs do not depend on it, except with the approximate "
        "neighbour search (fits on 200,000 rows or more).",
    ),
]
BatchSize = Annotated[
    int | None,
    typer.Option(
        "--batch-size", min=1, max=10_000_000, help="Rows per streamed batch."
    ),
]


class Engine(StrEnum):
    """Where rows are decided."""

    local = "local"
    dask = "dask"


EngineOption = Annotated[
    Engine,
    typer.Option(
        "--engine",
        help="local: stream batches in this process; dask: partitions on a Dask "
        "cluster (needs the 'dask' extra).",
    ),
]
Scheduler = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="Dask scheduler address (tcp://host:8786); default "
        "DASK_SCHEDULER_ADDRESS, else a local cluster.",
    ),
]


class FailOn(StrEnum):
    """When guardrail failures make the command exit non-zero."""

    never = "never"
    error = "error"


FailOnOption = Annotated[
    FailOn | None,
    typer.Option(
        help="Exit non-zero (7) when an output guardrail fails, and withhold the "
        "cleaned rows (cleaned.parquet.rejected)."
    ),
]
