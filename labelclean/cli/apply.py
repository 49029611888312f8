"""``labelclean apply``: decide new batches with a fitted pipeline."""

from pathlib import Path
from typing import Annotated

import typer

from labelclean.cli._common import progress_note, summarise, user_errors
from labelclean.cli._options import (
    BatchSize,
    Engine,
    EngineOption,
    FailOnOption,
    Force,
    Jobs,
    Out,
    Overwrite,
    Scheduler,
    overwrite_mode,
)


def apply(
    model: Annotated[
        Path,
        typer.Argument(help="model.skops written by `labelclean run` (or its folder)."),
    ],
    input: Annotated[
        Path, typer.Argument(help="Parquet file or folder with the training schema.")
    ],
    *,
    out: Out,
    overwrite: Overwrite = False,
    force: Force = False,
    batch_size: BatchSize = None,
    engine: EngineOption = Engine.local,
    scheduler: Scheduler = None,
    jobs: Jobs = -1,
    fail_on: FailOnOption = None,
) -> None:
    """Correct and discard labels of new batches the way a fitted pipeline does."""
    with user_errors(), progress_note("applying"):
        # lazy: keeps `labelclean --help` fast
        from labelclean.runner import apply_model

        result = apply_model(
            model,
            input,
            out,
            overwrite=overwrite_mode(overwrite, force),
            batch_size=batch_size,
            engine=engine.value,
            scheduler=scheduler,
            n_jobs=jobs,
            fail_on=fail_on.value if fail_on else "never",
        )
    summarise(result)
