"""``labelclean run``: clean a parquet file or folder with a pipeline."""

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from labelclean.cli._common import progress_note, summarise, user_errors
from labelclean.cli._options import (
    BatchSize,
    Engine,
    EngineOption,
    Exclude,
    FailOnOption,
    Feature,
    Force,
    IdColumn,
    Jobs,
    Label,
    Out,
    Overwrite,
    Pipeline,
    Scheduler,
    Seed,
    overwrite_mode,
)

Input = Annotated[Path, typer.Argument(help="Parquet file or folder of parquet files.")]
TargetPrecision = Annotated[
    float | None,
    typer.Option(
        min=0.0,
        max=1.0,
        help="Estimated precision the flags and corrections must reach "
        "(calibrated on the input's own rows).",
    ),
]
KnownNoiseRate = Annotated[
    float | None,
    typer.Option(
        min=0.0,
        max=1.0,
        help="Share of wrong labels known from outside the data (e.g. an audit "
        "of a sample): the rows the evidence doubts most are discarded up to it "
        "(reason known_noise).",
    ),
]
CorrectThreshold = Annotated[
    float | None,
    typer.Option(
        min=0.0,
        max=1.0,
        help="Fixed rule: probability needed to correct a label "
        "(replaces the calibrated decisions).",
    ),
]
SuspectConfidence = Annotated[
    float | None,
    typer.Option(
        min=0.0,
        max=1.0,
        help="Fixed rule: confidence below which rows are suspects "
        "(replaces the calibrated decisions).",
    ),
]


class FinalModel(StrEnum):
    """``LabelCleaner(final_model=...)``'s values: 'auto' and the model kinds
    (``labelclean.pipeline.LabelCleaner.MODEL_KINDS``, written out here so
    that ``--help`` does not import the estimators; a test keeps them equal)."""

    auto = "auto"
    adaboost_trees = "adaboost_trees"
    cb_adaboost = "cb_adaboost"
    cb_adaboost_deep = "cb_adaboost_deep"
    cb_adaboost_trees = "cb_adaboost_trees"
    rosr = "rosr"
    spbl = "spbl"


FinalModelOption = Annotated[
    FinalModel | None,
    typer.Option(
        help="The model saved for predictions (model.skops): auto (the stack the "
        "shipped pipelines fit) or one kind; the model stage's own kind (e.g. "
        "rosr) fits only that, as the papers do, in about half the time. The "
        "decisions do not change.",
    ),
]
MaxFitRows = Annotated[
    int | None,
    typer.Option(
        min=2,
        help="Fit on a stratified seeded sample of at most this many rows, "
        "then decide every row by streaming.",
    ),
]
MemoryBudget = Annotated[
    float | None,
    typer.Option(
        min=0.1,
        help="GB the fit may use; larger inputs are fitted on a stratified "
        "seeded sample (default: half the machine's memory).",
    ),
]


def run(
    input: Input,
    *,
    out: Out,
    pipeline: Pipeline = None,
    label: Label = None,
    id_column: IdColumn = None,
    feature: Feature = None,
    exclude: Exclude = None,
    seed: Seed = 0,
    target_precision: TargetPrecision = None,
    known_noise_rate: KnownNoiseRate = None,
    correct_threshold: CorrectThreshold = None,
    suspect_confidence: SuspectConfidence = None,
    final_model: FinalModelOption = None,
    fail_on: FailOnOption = None,
    overwrite: Overwrite = False,
    force: Force = False,
    max_fit_rows: MaxFitRows = None,
    batch_size: BatchSize = None,
    engine: EngineOption = Engine.local,
    scheduler: Scheduler = None,
    jobs: Jobs = -1,
    memory_budget: MemoryBudget = None,
    reviewed: Annotated[
        Path | None,
        typer.Option(
            help="Verdict file of a review (`labelclean review`): those rows are "
            "known truth for the fit and are not flagged.",
        ),
    ] = None,
) -> None:
    """Find, correct and discard wrong labels; write cleaned data, audit and report."""
    overrides = {
        k: v
        for k, v in {
            "target_precision": target_precision,
            "known_noise_rate": known_noise_rate,
            "correct_threshold": correct_threshold,
            "suspect_confidence": suspect_confidence,
            "final_model": final_model.value if final_model else None,
        }.items()
        if v is not None
    }
    with user_errors(), progress_note("cleaning"):
        # lazy: keeps `labelclean --help` fast
        from labelclean.runner import run_pipeline

        result = run_pipeline(
            input,
            out,
            pipeline=pipeline,
            label=label,
            id_column=id_column,
            features=feature,
            exclude=exclude,
            seed=seed,
            decisions=overrides,
            overwrite=overwrite_mode(overwrite, force),
            fail_on=fail_on.value if fail_on else None,
            max_fit_rows=max_fit_rows,
            batch_size=batch_size,
            engine=engine.value,
            scheduler=scheduler,
            n_jobs=jobs,
            memory_budget=None if memory_budget is None else memory_budget * 1e9,
            reviewed=reviewed,
        )
    summarise(result)
