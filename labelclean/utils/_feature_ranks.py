"""Reading a numeric column of the neighbour distance by its rank.

The encoded distance space (:func:`~labelclean.utils._features.make_feature_encoder`)
standardises each number: its distance is the difference in standard
deviations. A column with a long tail then has most of its rows within a
sliver of one standard deviation: on a public table of world records whose
race follows the distance run exactly (0.1 to 42.195 km), the marathon's
tail put 100 m, 200 m, 400 m and 800 m within 0.06 standard deviations of
one another, the year of the record (1900 to 2000) chose the neighbours,
and 7 of the 18 100 m records were discarded as mislabelled
(``docs/confidence.md``, *Numbers read by their rank*).

:func:`choose_feature_ranks` maps every numeric value of the distance to its
mid-rank among the training values (the share of training values below it,
ties counting half), centred and scaled to unit variance, and keeps that
reading only when, on the training rows, it makes the neighbours' majority
vote (10 neighbours, each row left out of its own vote) agree with the
observed labels more often, by more than :data:`GATE_STANDARD_ERRORS`
standard errors of the paired difference, the check the column weights pass
(:mod:`labelclean.utils._feature_weights`). It is an option
(``KNNConfidence(feature_scaling='auto')``), not the pipelines' default:
sharper neighbours also read overlap as noise. The ranks read no label, so
nothing needs cross-fitting. Missing-value indicators and one-hot columns
are left as they are. New rows are read by the training rows' ranks
(linear between at most :data:`MAX_KNOTS` knots, constant beyond the
training range).
"""

from typing import Any

import numpy as np

from labelclean.utils._feature_weights import (
    GATE_SAMPLE,
    GATE_STANDARD_ERRORS,
    vote_right,
)
from labelclean.utils._sampling import stratified_rows

__all__ = ["apply_ranks", "choose_feature_ranks"]

#: Most knots of a column's map from value to rank.
MAX_KNOTS = 1000

#: The standard deviation of a uniform share on [0, 1].
_UNIFORM_SD = 1.0 / np.sqrt(12.0)


def _knots(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A column's map from value to mid-rank share: its distinct values (at
    most :data:`MAX_KNOTS`, at evenly spaced quantiles above) and the share
    of the values below each, ties counting half."""
    values = np.sort(values)
    knots = np.unique(values)
    if knots.shape[0] > MAX_KNOTS:
        levels = (np.arange(MAX_KNOTS) + 0.5) / MAX_KNOTS
        knots = np.unique(np.quantile(values, levels))
    below = np.searchsorted(values, knots, side="left")
    upto = np.searchsorted(values, knots, side="right")
    return knots, (below + upto) / (2.0 * values.shape[0])


def apply_ranks(Z: np.ndarray, ranks: dict[str, Any] | None) -> np.ndarray:
    """``Z`` with the columns of ``ranks`` read by their training ranks
    (a copy; ``Z`` itself when ``ranks`` is None)."""
    if ranks is None:
        return Z
    out = np.array(Z, dtype=np.float64, copy=True)
    for j, xs, ps in zip(
        ranks["columns"], ranks["values"], ranks["shares"], strict=True
    ):
        out[:, j] = (np.interp(Z[:, j], xs, ps) - 0.5) / _UNIFORM_SD
    return out


def fit_ranks(Z: np.ndarray, columns: np.ndarray) -> dict[str, Any]:
    """The map of each of ``columns`` (outputs of ``Z``) to its ranks."""
    knots = [_knots(Z[:, j]) for j in columns]
    return {
        "columns": np.asarray(columns, dtype=np.int64),
        "values": [k[0] for k in knots],
        "shares": [k[1] for k in knots],
    }


def choose_feature_ranks(
    Z: np.ndarray, value_columns: np.ndarray, codes: np.ndarray, n_classes: int,
    *, seed: int,
) -> tuple[dict[str, Any] | None, dict[str, Any]]:  # fmt: skip
    """The ranks of ``value_columns`` where they make the neighbours better
    judges of the labels, else None; and the check's record (``difference``
    and ``standard_error`` of the ranked minus the standardised vote's share
    of right votes, the ``rows`` read, ``ranked``)."""
    record: dict[str, Any] = {
        "difference": None,
        "standard_error": None,
        "rows": 0,
        "ranked": False,
    }
    if value_columns.shape[0] == 0 or codes.shape[0] < 3:
        return None, record
    rows = stratified_rows(codes, GATE_SAMPLE, min_per_class=2, seed=seed)
    rows = np.arange(codes.shape[0]) if rows is None else rows
    ranks = fit_ranks(Z, value_columns)
    diff = vote_right(apply_ranks(Z[rows], ranks), codes[rows], n_classes) - (
        vote_right(Z[rows], codes[rows], n_classes)
    )
    se = float(diff.std(ddof=1) / np.sqrt(diff.shape[0]))
    record.update(
        difference=float(diff.mean()), standard_error=se, rows=int(rows.shape[0])
    )
    if not diff.mean() > GATE_STANDARD_ERRORS * se:
        return None, record
    record["ranked"] = True
    return ranks, record
