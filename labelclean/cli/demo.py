"""``labelclean demo``: the whole job on bundled example data."""

from pathlib import Path
from typing import Annotated

import typer

from labelclean.cli._common import progress_note, summarise, user_errors
from labelclean.cli._options import Force, Overwrite, Seed, overwrite_mode


def demo(
    *,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path(
        "demo-out"
    ),
    seed: Seed = 0,
    overwrite: Overwrite = False,
    force: Force = False,
) -> None:
    """Clean the bundled wine data (15 % flipped labels) with the RoSR-L pipeline."""
    with user_errors(), progress_note("cleaning the example data"):
        # lazy: keeps `labelclean --help` fast
        from labelclean.datasets import example_path
        from labelclean.runner import run_pipeline

        result = run_pipeline(
            example_path("wine_noisy"),
            out,
            pipeline="multiclass-rosr",
            label="cultivar",
            id_column="sample_id",
            seed=seed,
            overwrite=overwrite_mode(overwrite, force),
        )
    summarise(result)
