"""Base class of the label-confidence estimators.

:class:`BaseConfidence` holds what :class:`~labelclean.confidence.KNNConfidence`
and :class:`~labelclean.confidence.BayesConfidence` share: turning numeric,
categorical or mixed features into one distance space (see
:mod:`labelclean.utils._features`), encoding labels of any type, the noise
filter that both run first, and the scoring of new rows from per-class
probabilities. A concrete estimator implements ``fit`` and
``_class_probabilities``.
"""

from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.validation import check_is_fitted

from labelclean.exceptions import DataValidationError
from labelclean.filters import KNNFilter
from labelclean.utils._features import FeatureSpaceMixin
from labelclean.utils._sklearn import (
    HasMethods,
    Interval,
    OlderFilesMixin,
    StrOptions,
)

__all__ = ["BaseConfidence"]


class BaseConfidence(
    OlderFilesMixin, FeatureSpaceMixin, TransformerMixin, BaseEstimator
):
    """Shared machinery of the label-confidence estimators (not public).

    They are transformers too: ``transform(X)`` gives each row's per-class
    confidence (``predict_proba``), columns ``confidence_<class>``, so they
    fit in a scikit-learn pipeline and honour ``set_output(transform=
    "pandas")``. ``fit_transform(X, y)`` gives the training rows' confidence
    as ``fit`` computed it (KNN: leave-one-out neighbours, each row never its
    own neighbour), which is what to use on training rows and is not
    ``fit(X, y).transform(X)``, where every row finds itself.
    """

    _parameter_constraints: dict = {
        "noise_filter": [StrOptions({"knn"}), HasMethods(["fit_resample"]), None],
        "algorithm": [StrOptions({"auto", "exact", "hnsw", "approximate"})],
        "max_categories": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    # -- labels -----------------------------------------------------------
    def _encode_new_labels(self, y: ArrayLike, n_samples: int) -> np.ndarray:
        """Codes of labels of new rows, which must be known classes."""
        values = np.asarray(y)
        if values.ndim != 1 or values.shape[0] != n_samples:
            raise DataValidationError(
                f"y must hold one label per row of X ({n_samples}), got shape "
                f"{values.shape}."
            )
        codes = np.searchsorted(self.classes_, values)
        codes = np.clip(codes, 0, self.classes_.shape[0] - 1)
        unknown = self.classes_[codes] != values
        if np.any(unknown):
            raise DataValidationError(
                f"y holds labels not seen in fit: {np.unique(values[unknown])[:5]!r}; "
                f"known classes are {self.classes_.tolist()!r}."
            )
        return codes

    # -- the noise filter -------------------------------------------------
    def _make_filter(self):
        """The filter to run before estimating confidence, or None."""
        if self.noise_filter is None:
            return None
        if isinstance(self.noise_filter, str):
            return KNNFilter(
                algorithm=self.algorithm,
                max_categories=self.max_categories,
                n_jobs=self.n_jobs,
            )
        return clone(self.noise_filter)

    # -- scoring ------------------------------------------------------------
    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Estimated probability of each true class for new rows.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            New rows, with the columns seen in ``fit``.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns ordered as ``classes_``; rows sum to one.
        """
        Z = self._encode_features(X, reset=False)
        return self._class_probabilities(Z)

    def transform(self, X: ArrayLike) -> np.ndarray:
        """Per-class confidence of new rows (:meth:`predict_proba`).

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            New rows, with the columns seen in ``fit``.

        Returns
        -------
        proba : ndarray or DataFrame of shape (n_samples, n_classes)
            A DataFrame with ``set_output(transform="pandas")``.
        """
        return self.predict_proba(X)

    def fit_transform(self, X: ArrayLike, y: ArrayLike) -> np.ndarray:
        """Fit, and give the training rows' per-class confidence.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Training rows.
        y : array-like of shape (n_samples,)
            Their observed labels.

        Returns
        -------
        proba : ndarray or DataFrame of shape (n_samples, n_classes)
            As ``fit`` computed it for the training rows (see the class
            docstring); a DataFrame with ``set_output(transform="pandas")``.
        """
        return np.array(self.fit(X, y)._training_proba(), dtype=np.float64)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of the :meth:`transform` columns: ``confidence_<class>``."""
        check_is_fitted(self)
        return np.asarray([f"confidence_{c}" for c in self.classes_], dtype=object)

    def score_samples(self, X: ArrayLike, y: ArrayLike | None = None) -> np.ndarray:
        """Label confidence γ of new rows: the probability that ``y`` is right.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            New rows, with the columns seen in ``fit``.
        y : array-like of shape (n_samples,), default=None
            Their observed labels, among ``classes_``. Without labels, the
            confidence in each row's most probable class is returned.

        Returns
        -------
        confidence : ndarray of shape (n_samples,)
            γ in [0, 1]; higher means the label is more likely right.
        """
        proba = self.predict_proba(X)
        if y is None:
            return proba.max(axis=1)
        codes = self._encode_new_labels(y, proba.shape[0])
        return proba[np.arange(proba.shape[0]), codes]

    def _trusted(self, proba: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Most probable class per row; ties go to the observed label."""
        best = proba.max(axis=1, keepdims=True)
        at_best = np.isclose(proba, best, rtol=0.0, atol=1e-12)
        trusted = np.argmax(at_best, axis=1)
        keep_observed = at_best[np.arange(codes.shape[0]), codes]
        trusted[keep_observed] = codes[keep_observed]
        return trusted

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = True  # imputed by the feature encoder
        return tags
