"""The audit frame's parts that do not decide: missing labels, the user's
columns beside the audit's, and the neighbours' counts as JSON.

:class:`~labelclean.pipeline._decisions.DecisionsMixin` builds the audit
(``audit_``, :meth:`~labelclean.pipeline.LabelCleaner.audit`) from these;
the rows' decisions are its own.
"""

import json
from typing import Any

import numpy as np
import pandas as pd

from labelclean.report import to_jsonable
from labelclean.utils._audit import renamed_user_columns
from labelclean.utils._validation import is_dataframe

__all__ = [
    "LABEL_EVIDENCE",
    "missing_labels",
    "neighbor_counts_json",
    "stand_in_labels",
    "with_user_columns",
]


#: Audit columns about the observed label itself (empty for a row without one).
LABEL_EVIDENCE = ("confidence", "spl_weight", "model_probability", "noise_probability")


def missing_labels(y: Any, n_rows: int) -> np.ndarray:
    """Which labels of ``y`` are missing (None, NaN, NA)."""
    values = y if isinstance(y, pd.Series) else pd.Series(np.asarray(y, dtype=object))
    missing = np.asarray(values.isna(), dtype=bool)
    return missing if missing.shape == (n_rows,) else np.zeros(n_rows, dtype=bool)


def stand_in_labels(y: Any, missing: np.ndarray, stand_in: Any) -> Any:
    """``y`` with each missing label replaced by ``stand_in`` (rows whose
    evidence is then computed as if labelled so, and later emptied)."""
    if not missing.any():
        return y
    values = np.asarray(y, dtype=object).copy()
    values[missing] = stand_in
    return values


def with_user_columns(X: Any, y: Any, audit: pd.DataFrame) -> pd.DataFrame:
    """The audit with the rows' own columns first, as the CLI writes it.

    ``X``'s columns (``x0, x1, ...`` for an array), then ``y`` under its name
    when it is a named Series that ``X`` does not hold, then the audit
    columns. A user column named like an audit column is renamed
    ``<name>_input`` (:func:`~labelclean.utils._audit.renamed_user_columns`),
    as the CLI's audit names it.
    """
    if is_dataframe(X):
        user = X.set_axis(audit.index)
    else:
        values = np.asarray(X)
        user = pd.DataFrame(
            values, index=audit.index, columns=[f"x{j}" for j in range(values.shape[1])]
        )
    if isinstance(y, pd.Series) and y.name is not None and y.name not in user.columns:
        user = user.assign(**{str(y.name): y.set_axis(audit.index)})
    user = user.rename(columns=renamed_user_columns(list(user.columns)))
    return pd.concat([user, audit], axis=1)


def neighbor_counts_json(counts: np.ndarray, classes: np.ndarray) -> pd.Series:
    """Neighbours' label counts per row as JSON strings (zero counts omitted).

    Rows with the same counts get the same string, and a neighbourhood of k
    rows over K classes has few distinct count vectors, so each distinct
    vector is formatted once and the strings are gathered by index.
    """
    names = [
        c if isinstance(c, str) else json.dumps(to_jsonable(c))
        for c in classes.tolist()
    ]
    # Shares of blocks of identical rows make fractions (two decimals kept).
    counts = np.round(np.asarray(counts, dtype=np.float64), 2)
    n_rows = counts.shape[0]
    if n_rows == 0:
        return pd.Series([], dtype=object)
    whole = bool((counts == np.floor(counts)).all())
    base = int(counts.max()) + 1
    if whole and counts.min() >= 0 and base ** counts.shape[1] < 2**53:
        keys = counts @ (base ** np.arange(counts.shape[1], dtype=np.int64))
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(
            counts, axis=0, return_index=True, return_inverse=True
        )
    formatted = np.empty(first.shape[0], dtype=object)
    for u, row in enumerate(counts[first]):
        nz = np.flatnonzero(row)
        formatted[u] = json.dumps(
            {names[j]: _count_value(row[j]) for j in nz}, sort_keys=True
        )
    return pd.Series(formatted[inverse.ravel()], dtype=object)


def _count_value(count: float) -> int | float:
    """A neighbour count for JSON: whole counts as integers."""
    return int(count) if float(count).is_integer() else float(count)
