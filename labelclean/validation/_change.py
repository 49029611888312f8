"""Guardrails on how much a run changed: per class, and against the noise.

A cleaning run can harm a class by discarding its rows or by relabelling
them into another class; the guardrails count both (:func:`change_checks`).
They are computed from per-class counts, so the in-memory audit
(:func:`~labelclean.validation.validate_output`) and the streamed summary
give the same checks.
"""

from collections.abc import Mapping
from typing import Any

from labelclean.validation._results import CheckResult, _plain

__all__ = ["change_checks", "class_change_counts"]

#: The flagged share may exceed the upper end of the estimated noise rate's
#: interval by this factor (plus one point) before the run is called suspect.
FLAGGED_OVER_NOISE = 1.5


def class_change_counts(observed: Any, cleaned: Any, decision: Any) -> dict:
    """Per observed class: rows, discarded rows, rows corrected to another class.

    Parameters
    ----------
    observed, cleaned, decision : array-like
        The audit's ``observed_label``, ``cleaned_label`` and ``decision``.

    Returns
    -------
    counts : dict
        ``{label: {"n_observed", "discarded", "corrected_out"}}``.
    """
    import pandas as pd

    frame = pd.DataFrame(
        {
            "label": pd.Series(observed).to_numpy(),
            "discarded": pd.Series(decision).to_numpy() == "discarded",
            "corrected": pd.Series(decision).to_numpy() == "corrected",
        }
    )
    grouped = frame.groupby("label", dropna=True, sort=True).agg(
        n_observed=("discarded", "size"),
        discarded=("discarded", "sum"),
        corrected_out=("corrected", "sum"),
    )
    return {k: {c: int(v) for c, v in row.items()} for k, row in grouped.iterrows()}


def change_checks(
    counts: Mapping[Any, Mapping[str, int]],
    *,
    max_changed_share_per_class: float,
    calibration: Mapping[str, Any] | None = None,
    max_examples: int = 10,
) -> list[CheckResult]:
    """``class_net_change`` and, with a calibration, ``flagged_vs_noise``.

    Parameters
    ----------
    counts : mapping
        From :func:`class_change_counts` (or the summary's
        ``class_counts``): per class ``n_observed``, ``discarded`` and
        ``corrected_out``.
    max_changed_share_per_class : float
        Largest share of a class's rows that may leave it, discarded or
        corrected into another class.
    calibration : mapping, default=None
        The fitted cleaner's ``calibration_`` (``noise_rate`` and its
        interval); without it only the per-class check runs.
    max_examples : int, default=10
        Most classes named as examples.

    Returns
    -------
    checks : list of CheckResult
    """
    shares = {}
    for label, row in sorted(counts.items(), key=lambda kv: str(kv[0])):
        n = row.get("n_observed", 0)
        if n:
            moved = row.get("discarded", 0) + row.get("corrected_out", 0)
            shares[label] = (moved / n, moved, n)
    over = [
        k for k, (s, _, _) in shares.items() if s > max_changed_share_per_class + 1e-12
    ]
    checks = [
        CheckResult(
            name="class_net_change",
            description=(
                f"at most {max_changed_share_per_class:.1%} of each class is "
                "discarded or corrected into another class"
            ),
            success=not over,
            column="observed_label",
            engine="pandas",
            unexpected_count=len(over),
            examples=[_plain(k) for k in over[:max_examples]],
            message=(
                "class(es) "
                + ", ".join(
                    f"{_plain(k)!r} ({shares[k][1]} of {shares[k][2]}, "
                    f"{shares[k][0]:.1%})"
                    for k in over[:5]
                )
                + f" lost more than {max_changed_share_per_class:.1%} of their rows "
                "to discards and corrections; the evidence may not tell these "
                "classes apart."
                if over
                else "no class lost more than the allowed share to discards and "
                "corrections."
            ),
            details={
                "limit": max_changed_share_per_class,
                "shares": {str(k): v[0] for k, v in shares.items()},
            },
        )
    ]
    if calibration and calibration.get("noise_rate") is not None:
        n_rows = sum(v[2] for v in shares.values())
        flagged = sum(v[1] for v in shares.values())
        share = flagged / n_rows if n_rows else 0.0
        interval = calibration.get("noise_rate_interval") or [None, None]
        upper = interval[1] if interval[1] is not None else calibration["noise_rate"]
        limit = min(1.0, FLAGGED_OVER_NOISE * upper + 0.01)
        ok = share <= limit + 1e-12
        checks.append(
            CheckResult(
                name="flagged_vs_noise",
                description=(
                    "the share of rows discarded or corrected stays near the "
                    "estimated share of wrong labels"
                ),
                success=ok,
                column="decision",
                engine="pandas",
                unexpected_count=flagged,
                unexpected_percent=100.0 * share,
                message=(
                    f"{flagged} of {n_rows} rows ({share:.1%}) were discarded or "
                    f"corrected; the estimated noise is "
                    f"{calibration['noise_rate']:.1%} (up to {upper:.1%}), limit "
                    f"{limit:.1%}"
                    + (
                        "."
                        if ok
                        else "; the decisions flag more than the noise explains."
                    )
                ),
                details={
                    "share": share,
                    "limit": limit,
                    "noise_rate": calibration["noise_rate"],
                },
            )
        )
    return checks
