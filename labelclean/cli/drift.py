"""``labelclean drift``: is a batch's label noise higher than the baseline's?"""

from pathlib import Path
from typing import Annotated

import typer

from labelclean.cli._common import user_errors
from labelclean.cli._options import Force, Out, Overwrite, overwrite_mode


def drift(
    runs: Annotated[
        list[Path],
        typer.Argument(help="Folders written by `run` or `apply`, in time order."),
    ],
    *,
    out: Out,
    baseline: Annotated[
        Path | None,
        typer.Option(help="Folder to compare with (default: the first run)."),
    ] = None,
    max_increase: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Largest tolerated rise of a class's estimated share of wrong "
            "labels, or of its share of rows the model assigns to another class "
            "(0.05 = 5 points).",
        ),
    ] = 0.05,
    min_z: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=100.0,
            help="A rise counts only beyond this many standard errors.",
        ),
    ] = 3.0,
    overwrite: Overwrite = False,
    force: Force = False,
) -> None:
    """Compare runs' label-noise profiles; exit 7 when a class drifted."""
    with user_errors():
        # lazy: keeps `labelclean --help` fast
        from labelclean.drift import describe_alert, drift_report
        from labelclean.exceptions import GuardrailError

        result = drift_report(
            runs,
            out,
            baseline=baseline,
            max_increase=max_increase,
            min_z=min_z,
            overwrite=overwrite_mode(overwrite, force),
        )
        typer.echo(
            f"{len(result['runs'])} run(s) against {result['baseline']}: "
            + (
                (
                    "no checked class drifted"
                    if result["not_checked_classes"]
                    else "no class drifted"
                )
                if result["success"]
                else f"{len(result['alerts'])} drift alert(s)"
            )
            + f"; outputs in {out}"
        )
        _warn_unchecked(result)
        if not result["success"]:
            first = result["alerts"][0]
            raise GuardrailError(
                f"label-noise drift: {describe_alert(first)}"
                + (
                    f" (and {len(result['alerts']) - 1} more alert(s))"
                    if len(result["alerts"]) > 1
                    else ""
                )
                + f"; see {Path(out) / 'drift.html'}."
            )


def _warn_unchecked(result) -> None:
    """The warnings on stderr of the classes a run kept unchecked: their
    noise probability cannot drift, and those whose share of the rows grew."""
    # lazy: keeps `labelclean --help` fast
    from labelclean.drift import describe_growth, shifted_runs

    if result["not_checked_classes"]:
        names = ", ".join(repr(c) for c in result["not_checked_classes"])
        typer.echo(
            f"WARNING: [classes_not_checked] class(es) {names} were kept "
            "unchecked in a run: their drift cannot be seen in the estimated "
            "wrong labels, only in the rows the model assigns to another class",
            err=True,
        )
    for growth in result.get("unchecked_growth", []):
        typer.echo(
            f"WARNING: [unchecked_class_grew] {describe_growth(growth)} "
            "('labelclean review export' ranks its rows for a person)",
            err=True,
        )
    for run, told in shifted_runs(result):
        typer.echo(
            f"WARNING: [features_shifted] the features of {run} left the fit's "
            f"range: {told}; its changes may come from the columns, not the labels",
            err=True,
        )
