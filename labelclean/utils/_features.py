"""Turning numeric, categorical and mixed feature tables into distance space.

Neighbour search and density estimation need one numeric matrix in which
distances mean something. :func:`make_feature_encoder` builds, from the column
types of the training data, a scikit-learn ``ColumnTransformer`` that

* standardises numeric columns (zero mean, unit variance; constant columns are
  left at zero), and datetime/timedelta columns after converting them to
  seconds; a missing value (NaN, None, NaT) is replaced by the column's median
  on the training rows, and every column that had missing values on the
  training rows gains a standardised 0/1 *missing indicator* column, so that
  "was missing" stays visible to every stage (``docs/decisions.md``, "Missing
  values");
* one-hot encodes categorical columns (pandas ``category``, strings, objects,
  booleans) and scales the indicators by ``1/sqrt(2)``, so that two rows that
  differ in one categorical column are at squared Euclidean distance 1 from
  each other on that column: the same as a one-standard-deviation difference
  in a numeric column. A missing category is a level of its own
  (``"<missing>"``). Rare levels beyond ``max_categories`` are pooled.

The squared distance is therefore a sum of per-column contributions on one
scale (a heterogeneous Euclidean-overlap metric). The encoder is an ordinary
fitted scikit-learn object, so it pickles and transforms new rows.
"""

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler
from sklearn.utils.validation import check_is_fitted, validate_data

from labelclean.exceptions import DataValidationError
from labelclean.utils._column_kinds import (
    as_fitted_codes,
    check_feature_frame,
    check_fitted_frame,
    coerce_object_columns,
)
from labelclean.utils._validation import (
    check_no_infinity,
    check_unique_columns,
    is_dataframe,
    non_numeric_columns,
)

__all__ = [
    "DEFAULT_MAX_CATEGORIES",
    "MISSING_VALUE_HANDLING",
    "FeatureSpaceMixin",
    "describe_features",
    "make_feature_encoder",
    "missing_value_counts",
    "restore_missing",
    "select_features",
]

_CATEGORICAL_WEIGHT = 1.0 / np.sqrt(2.0)

#: Most one-hot columns per categorical feature (the estimators' default
#: ``max_categories``); rarer levels are pooled into one.
DEFAULT_MAX_CATEGORIES = 32


def _to_seconds(frame: pd.DataFrame) -> np.ndarray:
    out = np.empty(frame.shape, dtype=np.float64)
    for j, name in enumerate(frame.columns):
        col = frame[name]
        if pd.api.types.is_datetime64_any_dtype(col.dtype):
            if getattr(col.dt, "tz", None) is not None:
                col = col.dt.tz_convert("UTC").dt.tz_localize(None)
            values = col.to_numpy(dtype="datetime64[ns]")
        else:
            values = col.to_numpy(dtype="timedelta64[ns]")
        seconds = values.astype(np.int64) / 1e9
        seconds[np.isnat(values)] = np.nan
        out[:, j] = seconds
    return out


def make_feature_encoder(
    X: pd.DataFrame | None, *, max_categories: int = DEFAULT_MAX_CATEGORIES
) -> ColumnTransformer:
    """Build an unfitted encoder mapping ``X`` to a numeric distance space.

    Parameters
    ----------
    X : DataFrame or None
        The training features, used only to read column kinds. ``None`` means a
        numeric array: every column is standardised.
    max_categories : int, default=32
        Most one-hot columns per categorical feature; rarer levels are pooled.

    Returns
    -------
    encoder : ColumnTransformer
        Unfitted; its output is a dense float array.
    """
    if X is None:
        return make_pipeline(_imputer(), StandardScaler())
    kinds = check_feature_frame(X)
    transformers = []
    weights = {}
    if kinds["numeric"]:
        transformers.append(
            ("numeric", make_pipeline(_imputer(), StandardScaler()), kinds["numeric"])
        )
    if kinds["temporal"]:
        to_seconds = FunctionTransformer(_to_seconds, feature_names_out="one-to-one")
        transformers.append(
            (
                "temporal",
                make_pipeline(to_seconds, _imputer(), StandardScaler()),
                kinds["temporal"],
            )
        )
    if kinds["categorical"]:
        onehot = OneHotEncoder(
            handle_unknown="infrequent_if_exist",
            max_categories=max_categories,
            sparse_output=False,
            dtype=np.float64,
        )
        transformers.append(
            (
                "categorical",
                make_pipeline(
                    FunctionTransformer(_as_string, feature_names_out="one-to-one"),
                    onehot,
                ),
                kinds["categorical"],
            )
        )
        weights["categorical"] = _CATEGORICAL_WEIGHT
    if not transformers:
        raise DataValidationError("X has no feature columns; pass at least one.")
    return ColumnTransformer(
        transformers,
        transformer_weights=weights or None,
        sparse_threshold=0.0,
        verbose_feature_names_out=False,
    )


def _median(values: np.ndarray) -> float:
    """The median of one column's present values; 0 for a column with none.

    ``SimpleImputer(strategy='median')`` sorts a masked copy of the whole
    matrix: about 3 s at 1e6 rows of 20 columns on a 2-core machine, paid by
    the pipeline's encoder and again by the confidence stage's. numpy's
    median (a partition per column) gives the same statistics, to the bit, in
    a sixth of the time: the ``features`` stage of ``run`` at 1e6 rows took
    4.3 s before (benchmarks/RESULTS.md, section ``scale``) and 1.2 s since
    (section ``stage-budget``).
    """
    return float(np.median(values)) if values.size else 0.0


def _imputer() -> SimpleImputer:
    """Median imputation with a missing indicator per column that had any.

    On complete training rows it adds no column and changes no value; a
    column that was missing on every training row is imputed with 0.
    """
    return SimpleImputer(strategy=_median, add_indicator=True, keep_empty_features=True)


def restore_missing(encoder, raw, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Put NaN back where the encoder imputed a numeric or date value.

    For learners that route missing values themselves (the binned boosting
    learners): ``Z`` keeps the scaled values and the missing-indicator
    columns, and the imputed entries become NaN again.

    Parameters
    ----------
    encoder : fitted encoder from :func:`make_feature_encoder`
    raw : DataFrame or ndarray
        The rows ``Z`` was encoded from.
    Z : ndarray of shape (n_samples, n_outputs)
        The encoder's output for ``raw`` (modified in place).

    Returns
    -------
    Z : ndarray
        ``Z`` with NaN in the imputed entries.
    fill : ndarray of shape (n_outputs,)
        The value the encoder puts in each output column for a missing value
        (NaN for columns that are not imputed): ``np.where(isnan(Z), fill,
        Z)`` gives the imputed encoding back.
    """
    fill = np.full(Z.shape[1], np.nan)
    for out, column, missing in _imputed_columns(encoder, raw):
        fill[out] = _imputed_value(encoder, out, column)
        if missing.any():
            Z[missing, out] = np.nan
    return Z, fill


def _imputed_columns(encoder, raw):
    """(output column, input column, missing mask) of every imputed column."""
    if not hasattr(encoder, "output_indices_"):  # a numeric array
        values = np.asarray(raw, dtype=np.float64)
        for j in range(values.shape[1]):
            yield j, j, np.isnan(values[:, j])
        return
    for name, _, columns in encoder.transformers_:
        if name not in ("numeric", "temporal"):
            continue
        start = encoder.output_indices_[name].start
        for k, column in enumerate(columns):
            yield start + k, column, raw[column].isna().to_numpy()


def _imputed_value(encoder, out, column) -> float:
    """Encoded value of a missing entry of ``column`` (output column ``out``)."""
    if not hasattr(encoder, "output_indices_"):
        imputer, scaler = encoder[0], encoder[-1]
        k = column
    else:
        name = next(n for n, _, cols in encoder.transformers_ if column in list(cols))
        pipe = encoder.named_transformers_[name]
        imputer, scaler = pipe[-2], pipe[-1]
        k = out - encoder.output_indices_[name].start
    value = float(imputer.statistics_[k])
    return float((value - scaler.mean_[k]) / scaler.scale_[k])


def missing_value_counts(X) -> dict[str, int]:
    """Missing values per feature column (only columns that have any).

    Parameters
    ----------
    X : DataFrame or ndarray
        Features; array columns are named ``x0, x1, ...``.

    Returns
    -------
    counts : dict of str to int
    """
    if isinstance(X, pd.DataFrame):
        counts = X.isna().sum()
        return {str(k): int(v) for k, v in counts.items() if v}
    values = np.asarray(X, dtype=np.float64)
    counts = np.isnan(values).sum(axis=0)
    return {f"x{j}": int(c) for j, c in enumerate(counts) if c}


def describe_features(encoder: Any, raw: Any) -> list[dict[str, Any]]:
    """How each feature column entered the distance space, for the report.

    Parameters
    ----------
    encoder : fitted encoder from :func:`make_feature_encoder`
    raw : DataFrame or ndarray
        The training features the encoder was fitted on.

    Returns
    -------
    features : list of dict
        Per input column, in input order: ``name``, ``kind`` (numeric,
        temporal, categorical), ``missing`` (training rows without a value),
        ``levels`` and ``pooled_levels`` (categorical columns: distinct
        values, and how many rare ones were pooled into one level) and
        ``handling`` (one sentence).
    """
    counts = missing_value_counts(raw)
    if not hasattr(encoder, "transformers_"):  # a numeric array
        names = [f"x{j}" for j in range(np.asarray(raw).shape[1])]
        return [_describe(name, "numeric", counts.get(name, 0)) for name in names]
    out = {}
    for kind, pipe, columns in encoder.transformers_:
        if kind not in ("numeric", "temporal", "categorical"):
            continue
        for k, column in enumerate(columns):
            entry = _describe(str(column), kind, counts.get(str(column), 0))
            if kind == "categorical":
                onehot = pipe[-1]
                levels = len(onehot.categories_[k])
                rare = (getattr(onehot, "infrequent_categories_", None) or [None])[k]
                pooled = 0 if rare is None else len(rare)
                entry["levels"] = levels
                entry["pooled_levels"] = pooled
                entry["handling"] = (
                    f"one-hot, {levels} level(s)"
                    + (
                        f"; the {pooled} rarest pooled into one level (max_categories)"
                        if pooled
                        else ""
                    )
                    + ("; missing is a level of its own" if entry["missing"] else "")
                )
            out[str(column)] = entry
    order = [str(c) for c in raw.columns] if isinstance(raw, pd.DataFrame) else out
    return [out[c] for c in order if c in out]


def _describe(name: str, kind: str, missing: int) -> dict[str, Any]:
    handling = {
        "numeric": "standardised",
        "temporal": "seconds, standardised",
    }.get(kind, "")
    if missing and kind != "categorical":
        handling += (
            "; missing: native in the boosting learners, else median + indicator"
        )
    return {
        "name": name,
        "kind": kind,
        "missing": int(missing),
        "levels": None,
        "pooled_levels": None,
        "handling": handling,
    }


def _as_string(frame: pd.DataFrame) -> np.ndarray:
    return frame.astype(object).where(frame.notna(), "<missing>").astype(str).to_numpy()


#: How missing feature values are handled, in words (report and docs).
MISSING_VALUE_HANDLING = (
    "numeric and date columns: the binned boosting learners route missing "
    "values natively (a missing bin); the confidence stage and RoSR-L get the "
    "training rows' median, plus a 0/1 missing-indicator column for every "
    "column that had missing values; categorical columns: a '<missing>' "
    "level; fitted on the training rows and reused for new rows"
)


def select_features(
    columns: Any,
    *,
    label: Any,
    id_column: Any = None,
    features: Any = None,
    exclude: Any = None,
) -> list:
    """The feature columns of a table, as the user chose them.

    ``features`` when given, else every column but the label and the id;
    then without the ``exclude`` columns.
    """
    if features:
        chosen = list(features)
    else:
        chosen = [c for c in columns if c not in (label, id_column)]
    excluded = set(exclude or ())
    return [c for c in chosen if c not in excluded]


class FeatureSpaceMixin:
    """Maps validated features into the encoded distance space (not public).

    Needs a ``max_categories`` parameter; sets ``feature_encoder_``.
    """

    # -- features ---------------------------------------------------------
    def _encode_features(self, X: ArrayLike, *, reset: bool) -> np.ndarray:
        """Validate ``X`` and map it to the encoded distance space."""
        check_unique_columns(X)
        if is_dataframe(X):
            X = coerce_object_columns(X)
        mixed = is_dataframe(X) and bool(non_numeric_columns(X))
        if not reset:
            check_is_fitted(self)
            expects_frame = isinstance(self.feature_encoder_, ColumnTransformer)
            if expects_frame and not mixed:
                if not is_dataframe(X):
                    raise DataValidationError(
                        f"{type(self).__name__} was fitted on a DataFrame with "
                        "categorical columns; pass a DataFrame with the same columns."
                    )
                mixed = True
        if mixed:
            validate_data(self, X, skip_check_array=True, reset=reset)
            if X.shape[0] == 0:
                raise DataValidationError("X has 0 rows; pass at least one row.")
            if reset:
                self.feature_encoder_ = make_feature_encoder(
                    X, max_categories=self.max_categories
                )
                return np.asarray(self.feature_encoder_.fit_transform(X), np.float64)
            X = as_fitted_codes(self.feature_encoder_, X)
            check_fitted_frame(self.feature_encoder_, X)
            return np.asarray(self.feature_encoder_.transform(X), np.float64)
        X = validate_data(
            self, X, reset=reset, dtype=np.float64, ensure_all_finite="allow-nan"
        )
        check_no_infinity(X, getattr(self, "feature_names_in_", None))
        if reset:
            self.feature_encoder_ = make_feature_encoder(None)
            return self.feature_encoder_.fit_transform(X)
        return self.feature_encoder_.transform(X)
