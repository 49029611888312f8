"""Base class of the filters: estimators that keep some rows, maybe relabelled.

A filter changes the number of rows, so it is a sampler in
imbalanced-learn's sense, not a transformer. :class:`BaseFilter` owns the one
:meth:`~BaseFilter.fit_resample`: ``fit`` finds the rows to keep
(``sample_indices_``), the template returns them in the caller's containers
(DataFrame, Series, list or array, with the caller's index, columns and
dtypes). A filter that also corrects labels (the whole cleaning pipeline,
:class:`~labelclean.pipeline.LabelCleaner`) overrides
:meth:`~BaseFilter._resampled_labels`.
"""

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator

from labelclean.utils._sklearn import OlderFilesMixin

__all__ = ["BaseFilter", "take_rows"]


def take_rows(data: Any, indices: np.ndarray, values: Any = None) -> Any:
    """Rows ``indices`` of ``data`` in its own container type.

    Parameters
    ----------
    data : DataFrame, Series, list or array-like
        Rows (or labels) as the caller passed them.
    indices : ndarray of int
        Positions to keep.
    values : array-like, default=None
        New values for the kept rows of a one-dimensional ``data`` (corrected
        labels); None keeps ``data``'s own.

    Returns
    -------
    rows : same container as ``data``
        A Series keeps its index, name and dtype; a list stays a list.
    """
    if values is None:
        if hasattr(data, "iloc"):
            return data.iloc[indices]
        if isinstance(data, list):
            return [data[i] for i in indices]
        return np.asarray(data)[indices]
    if isinstance(data, pd.Series):
        return pd.Series(
            values, index=data.index[indices], name=data.name, dtype=data.dtype
        )
    if isinstance(data, list):
        return list(values)
    return np.asarray(values)


class BaseFilter(OlderFilesMixin, BaseEstimator):
    """Shared ``fit_resample`` of the filters (not public).

    A subclass implements ``fit(X, y)``, which sets ``sample_indices_`` (the
    positions of the kept rows, sorted).
    """

    def fit_resample(self, X: ArrayLike, y: ArrayLike):
        """Fit, then return the rows kept, in the caller's containers.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Features.
        y : array-like of shape (n_samples,)
            Observed labels.

        Returns
        -------
        X_resampled : same container as X, shape (n_kept, n_features)
            Kept rows, with the caller's columns, dtypes and index.
        y_resampled : same container as y, shape (n_kept,)
            Their labels (after correction, for a filter that corrects).
        """
        self.fit(X, y)
        indices = self.sample_indices_
        return take_rows(X, indices), take_rows(y, indices, self._resampled_labels())

    def _resampled_labels(self) -> Any:
        """Labels of the kept rows after fit; None keeps the observed ones."""
        return None
