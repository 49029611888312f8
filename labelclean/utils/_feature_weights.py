"""Weighing the neighbour distance's columns by what they tell of the label.

The encoded distance space (:func:`~labelclean.utils._features.make_feature_encoder`)
gives every input column the same say. Where few of many columns bear on the
label, the neighbours are then mostly chosen by columns that do not, and their
labels are a poor soft label: on a public two-class table whose label follows
one column of 26 (a first name deciding sex), 18.6 % of the neighbours' soft
labels were wrong (``docs/decisions.md``, *The neighbours' soft labels where
few columns bear on the label*).

:func:`choose_feature_weights` weighs each input column by its adjusted mutual
information with the observed label (Vinh, Epps and Bailey, JMLR 2010: the
mutual information less what chance alone gives, so a column of row numbers
or of one level per row weighs nothing), scaled so that the columns' mean
weight is 1, and keeps the weights only when, on the training rows, they make
the neighbours' majority vote (10 neighbours, each row left out of its own
vote) agree with the observed labels more often, by more than
:data:`GATE_STANDARD_ERRORS` standard errors of the paired difference. The
check is cross-fitted: each of :data:`GATE_FOLDS` folds is voted on with
weights read on the other folds' rows, so that no row's label chooses the
columns its own vote is read in. Where
no column bears on the label more than another, or the weights do not make
the neighbours better judges of the labels, the distance stays as it was.

Both the information and the check read the observed labels, wrong ones
included; a label flipped at random carries no information about any column,
so flips lower every column's weight alike and the check, not the weights,
decides whether a column stands out.
"""

from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import adjusted_mutual_info_score

from labelclean.utils._neighbors import CANDIDATE_MARGIN, NeighborIndex
from labelclean.utils._sampling import stratified_rows

__all__ = [
    "GATE_STANDARD_ERRORS",
    "choose_feature_weights",
    "output_columns",
    "value_outputs",
    "vote_right",
]

#: Rows the information and the check read (a stratified, seeded sample above).
GATE_SAMPLE = 5000

#: Neighbours of the check's majority vote.
GATE_NEIGHBORS = 10

#: How much better the weighted vote must be, in standard errors.
GATE_STANDARD_ERRORS = 2.0

#: Folds of the check: each fold's rows vote with weights read on the others.
GATE_FOLDS = 5

#: Quantile bins of a numeric or date column with more distinct values.
N_BINS = 10


def column_codes(values: Any) -> np.ndarray:
    """Integer codes of one input column for the mutual information.

    Numeric and date columns with more than :data:`N_BINS` distinct values
    are cut at their quantiles (equal values share a bin); other columns are
    read as categories. A missing value is a code of its own.
    """
    series = pd.Series(values)
    if pd.api.types.is_bool_dtype(series) or not (
        pd.api.types.is_numeric_dtype(series)
        or pd.api.types.is_datetime64_any_dtype(series)
        or pd.api.types.is_timedelta64_dtype(series)
    ):
        return pd.factorize(series, use_na_sentinel=True)[0].astype(np.int64)
    if not pd.api.types.is_numeric_dtype(series):  # dates: their nanoseconds
        missing = series.isna().to_numpy()
        x = np.asarray(series.array.asi8, dtype=np.float64)
        x[missing] = np.nan
    else:
        x = series.to_numpy(dtype=np.float64, na_value=np.nan)
    present = ~np.isnan(x)
    distinct = np.unique(x[present])
    if distinct.size > N_BINS:
        edges = np.quantile(x[present], np.linspace(0.0, 1.0, N_BINS + 1)[1:-1])
        codes = np.searchsorted(np.unique(edges), x, side="right")
    else:
        codes = np.searchsorted(distinct, x)
    return np.where(present, codes, -1).astype(np.int64)


def output_columns(encoder: Any, n_inputs: int) -> np.ndarray:
    """Position of the input column behind each of the encoder's outputs.

    Reads the fitted encoder of
    :func:`~labelclean.utils._features.make_feature_encoder`: a numeric or
    date column gives its scaled value and, if it had missing values, a
    missing indicator; a categorical column one output per one-hot level
    (rare levels pooled into one).
    """
    if not hasattr(encoder, "output_indices_"):  # numeric array: imputer, scaler
        return _imputed_outputs(encoder[0], np.arange(n_inputs))
    names = list(getattr(encoder, "feature_names_in_", []))
    out = np.full(sum(s.stop - s.start for s in encoder.output_indices_.values()), -1)
    for name, pipe, columns in encoder.transformers_:
        where = encoder.output_indices_.get(name)
        if where is None or where.stop == where.start:
            continue
        inputs = np.array([names.index(c) for c in columns], dtype=np.int64)
        if name == "categorical":
            out[where] = _onehot_outputs(pipe[-1], inputs)
        else:
            out[where] = _imputed_outputs(pipe[-2], inputs)
    return out


def value_outputs(encoder: Any, n_inputs: int) -> np.ndarray:
    """Positions of the encoder's outputs that carry a number or a date's
    scaled value (not a missing indicator, not a one-hot level)."""
    if not hasattr(encoder, "output_indices_"):  # numeric array: imputer, scaler
        return np.arange(n_inputs, dtype=np.int64)
    found = []
    for name, _, columns in encoder.transformers_:
        where = encoder.output_indices_.get(name)
        if name in ("numeric", "temporal") and where is not None:
            found.append(np.arange(where.start, where.start + len(columns)))
    return np.concatenate(found or [np.empty(0)]).astype(np.int64)


def _imputed_outputs(imputer: Any, inputs: np.ndarray) -> np.ndarray:
    """Inputs behind an imputer's outputs: the columns, then the indicators."""
    indicator = getattr(imputer, "indicator_", None)
    flagged = [] if indicator is None else list(indicator.features_)
    return np.concatenate([inputs, inputs[flagged]]).astype(np.int64)


def _onehot_outputs(onehot: Any, inputs: np.ndarray) -> np.ndarray:
    """Inputs behind a one-hot encoder's outputs, rare levels pooled."""
    infrequent = getattr(onehot, "infrequent_categories_", None)
    counts = []
    for i, levels in enumerate(onehot.categories_):
        rare = None if infrequent is None else infrequent[i]
        counts.append(len(levels) - (0 if rare is None else len(rare) - 1))
    return np.repeat(inputs, counts).astype(np.int64)


def _label_information(columns: list, codes: np.ndarray) -> np.ndarray:
    """Adjusted mutual information of each coded column with the labels (≥ 0)."""
    return np.array([max(0.0, adjusted_mutual_info_score(codes, c)) for c in columns])


def vote_right(Z: np.ndarray, codes: np.ndarray, n_classes: int) -> np.ndarray:
    """How right each row's leave-one-out neighbour vote is about its label.

    1 where the row's label has the most votes alone, 1/m where it ties with
    m - 1 others, 0 otherwise; neighbours tied at the k-th distance share the
    places left, so no order of the rows decides.
    """
    index = NeighborIndex(
        Z, n_candidates=GATE_NEIGHBORS + CANDIDATE_MARGIN, algorithm="exact"
    )
    k = min(GATE_NEIGHBORS, codes.shape[0] - 1)
    counts = index.training_label_counts(
        np.ones(codes.shape[0], bool), k, codes, n_classes
    )
    index.release()
    at_top = np.isclose(counts, counts.max(axis=1, keepdims=True), rtol=0.0, atol=1e-9)
    return at_top[np.arange(codes.shape[0]), codes] / at_top.sum(axis=1)


def _folds(codes: np.ndarray, seed: int) -> np.ndarray:
    """A seeded fold per row, each class spread evenly over the folds."""
    order = np.random.RandomState(seed).permutation(codes.shape[0])
    fold = np.empty(codes.shape[0], dtype=np.int64)
    for k in np.unique(codes):
        rows = order[codes[order] == k]
        fold[rows] = np.arange(rows.shape[0]) % GATE_FOLDS
    return fold


def _column_weights(info: np.ndarray) -> np.ndarray | None:
    """Each column's weight, its information over the mean; None if all 0."""
    return info / info.mean() if info.any() else None


def _cross_fitted_right(Z, columns, outputs, codes, n_classes, seed) -> np.ndarray:
    """The weighted vote's rightness, each row's weights read without its fold.

    Weights read from every row's label would favour, in each row's own
    vote, the columns its label happens to follow: with random labels and
    four columns, the weighted vote looked 11 points better than the plain
    one. So the rows of each fold are voted on in the space of weights read
    from the other folds' rows; the neighbours may be any row but the row
    itself.
    """
    fold = _folds(codes, seed)
    right = np.zeros(codes.shape[0])
    for f in range(GATE_FOLDS):
        inside = fold == f
        weights = _column_weights(
            _label_information([c[~inside] for c in columns], codes[~inside])
        )
        if weights is None:  # the other folds see nothing: the plain vote
            Zw = Z
        else:
            Zw = Z * np.sqrt(weights[outputs])
        right[inside] = vote_right(Zw, codes, n_classes)[inside]
    return right


def choose_feature_weights(
    X: Any, Z: np.ndarray, encoder: Any, codes: np.ndarray, n_classes: int, *, seed: int
) -> tuple[np.ndarray | None, dict[str, Any]]:
    """Per-output weights of the distance, or None where they do not help.

    Parameters
    ----------
    X : DataFrame or ndarray of shape (n_samples, n_features)
        The training rows as given (the columns the information is read on).
    Z : ndarray of shape (n_samples, n_outputs)
        Their encoding by ``encoder``.
    encoder : fitted encoder from :func:`make_feature_encoder`
    codes : ndarray of int of shape (n_samples,)
        Observed label codes.
    n_classes : int
    seed : int
        Seed of the sample read above :data:`GATE_SAMPLE` rows and of the
        check's folds.

    Returns
    -------
    weights : ndarray of shape (n_outputs,) or None
        Factors to multiply ``Z``'s columns by (square roots of the column
        weights, so that squared distances are weighted); None keeps the
        distance as it was.
    record : dict
        ``information`` (per input column), ``difference`` and
        ``standard_error`` of the check (weighted minus plain share of right
        votes, the weights cross-fitted), ``rows`` read, and ``weighted``.
    """
    rows = stratified_rows(codes, GATE_SAMPLE, min_per_class=2, seed=seed)
    rows = np.arange(codes.shape[0]) if rows is None else rows
    frame = X if hasattr(X, "iloc") else pd.DataFrame(np.asarray(X))
    sample = frame.iloc[rows]
    columns = [column_codes(sample.iloc[:, j]) for j in range(frame.shape[1])]
    info = _label_information(columns, codes[rows])
    names = [str(c) for c in frame.columns]
    record: dict[str, Any] = {
        "information": dict(zip(names, info.round(6).tolist(), strict=True)),
        "difference": None,
        "standard_error": None,
        "rows": int(rows.shape[0]),
        "weighted": False,
    }
    weights = _column_weights(info)
    if weights is None or rows.shape[0] < 2 * GATE_FOLDS:
        return None, record
    outputs = output_columns(encoder, frame.shape[1])
    diff = _cross_fitted_right(
        Z[rows], columns, outputs, codes[rows], n_classes, seed
    ) - vote_right(Z[rows], codes[rows], n_classes)
    se = float(diff.std(ddof=1) / np.sqrt(diff.shape[0]))
    record.update(difference=float(diff.mean()), standard_error=se)
    if not diff.mean() > GATE_STANDARD_ERRORS * se:
        return None, record
    record["weighted"] = True
    return np.sqrt(weights[outputs]), record
