"""A batch's features against the fit's: the guardrail ``features_within_fit``.

``labelclean apply`` counts, as the rows stream by, each feature column's
missing values and its values outside what the fit saw
(:func:`~labelclean.utils._feature_profile.count_outside`). A column shifted
when one of two shares rose beyond the limits ``labelclean drift`` uses
(more than 5 points and more than 3 standard errors of the difference,
:func:`~labelclean.report._batch.proportion_change`):

- **missing**: its share of rows without a value, against the fit's share;
- **outside**: its share of values under the fit's lowest or over its highest
  (numbers), against the chance that a value drawn like the fit's ``n`` falls
  outside their range, ``2 / (n + 1)``; or of a level the fit never saw
  (categories), against the share of the fit's values whose level was seen
  once (the Good-Turing estimate of the chance of a new level).

Dates are compared on their missing values only: later batches lie past the
fit's last date by design.
"""

from typing import Any

from labelclean.report._batch import (
    MAX_INCREASE,
    MIN_Z,
    describe_shift,
    proportion_change,
    quoted,
)
from labelclean.validation._results import CheckResult

__all__ = ["feature_shift", "feature_shift_check"]


def feature_shift(
    profile: dict[str, dict[str, Any]],
    counts: dict[str, list[int]],
    *,
    max_increase: float = MAX_INCREASE,
    min_z: float = MIN_Z,
) -> dict[str, Any]:
    """The report's ``run.feature_shift``: the columns compared and, for each
    column and measure that rose beyond the limits, ``column``, ``kind``,
    ``measure`` (``'missing'`` or ``'outside'``), ``fit`` and ``batch``
    shares, ``z`` and the batch's ``rows`` it was read on."""
    shifted = []
    for name, (rows, missing, outside) in counts.items():
        entry = profile[name]
        fit_values = entry["rows"] - entry["missing"]
        measures = [("missing", entry["missing"] / entry["rows"], entry["rows"],
                     missing / rows if rows else None, rows)]  # fmt: skip
        if entry["kind"] != "temporal" and fit_values and rows > missing:
            chance = (
                entry["singletons"] / fit_values
                if entry["kind"] == "categorical"
                else 2.0 / (fit_values + 1.0)
            )
            measures.append(("outside", chance, fit_values,
                             outside / (rows - missing), rows - missing))  # fmt: skip
        for measure, then, n_then, now, n_now in measures:
            increase, z = proportion_change([then, now], [n_then, n_now])
            if increase is not None and increase > max_increase and z > min_z:
                shifted.append({"column": name, "kind": entry["kind"],
                                "measure": measure, "fit": then, "batch": now,
                                "z": z, "rows": n_now})  # fmt: skip
    return {"columns_compared": len(counts), "shifted": shifted}


def feature_shift_check(shift: dict[str, Any]) -> CheckResult:
    """The guardrail ``features_within_fit`` from :func:`feature_shift`."""
    shifted = shift["shifted"]
    columns = list(dict.fromkeys(item["column"] for item in shifted))
    told = "; ".join(describe_shift(item) for item in shifted[:8])
    return CheckResult(
        name="features_within_fit",
        description=(
            "no feature column has more missing values, or more values outside "
            "what the fit saw, than the fit's rows would give (by more than "
            f"{100 * MAX_INCREASE:.0f} points and {MIN_Z:g} standard errors)"
        ),
        success=not shifted,
        engine="pandas",
        unexpected_count=len(columns),
        unexpected_percent=100.0 * len(columns) / max(shift["columns_compared"], 1),
        examples=columns[:10],
        message=(
            f"feature column(s) {quoted(columns)} left the fit's range: {told}; "
            "the model reads them as it learnt them, so this batch's decisions "
            "may blame right labels: check the columns' units and sources, or "
            "fit a new model on such rows (labelclean run)"
            if shifted
            else f"all {shift['columns_compared']} feature columns lie where the "
            "fit's did."
        ),
        details={"shifted": shifted},
    )
