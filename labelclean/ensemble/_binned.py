"""Binned weak learners: decision stumps and shallow trees on quantised features.

Features are quantised once into at most 255 bins per feature, plus one bin
for missing values (:class:`_BinMapper`); a tree is then grown level by level
from weighted class histograms over the bins, one pass over the rows per
level. Missing values are routed natively, as histogram gradient boosting
does: each split sends them to the side that reduces the impurity most
(learned from the training rows that had them), or, when no training row at
that node had one, to the child with more weight. The histogram
kernel is compiled with numba; :func:`histograms_numpy` computes the same
histograms with ``np.bincount`` and serves as the reference in the property
tests.

:class:`BinnedTreeClassifier` is a public, stand-alone scikit-learn classifier.
The boosting core (``labelclean.ensemble._base``) quantises the training data
once per boosting fit and calls the private ``_fit_binned`` /
``_predict_binned`` methods every round, so no round re-quantises or copies the
data.
"""

from numbers import Integral
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from labelclean.ensemble._splits import _goes_left, grow_nodes
from labelclean.utils._compiled import compiled
from labelclean.utils._sklearn import (
    Interval,
    OlderFilesMixin,
    StrOptions,
    check_sample_weight,
    fit_context,
)

__all__ = ["BinnedTreeClassifier"]

_CRITERIA = {"gini": 0, "entropy": 1}
# Rows drawn to place the quantile edges of a feature with many distinct values.
_SUBSAMPLE = 200_000


def midpoint_percentiles(ordered: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.percentile(ordered, q, method="midpoint")`` of a sorted column
    without missing values, read off the sorted values directly.

    The same operations as numpy's (Hyndman and Fan's midpoint: the mean of
    the two order statistics around ``(n - 1) q``, numpy's two-sided linear
    interpolation at weight 0 or 1/2), so the same values to the bit
    (``test_midpoint_percentiles_are_numpys``; only where a column holds
    both ``-0.0`` and ``0.0`` may the sort and numpy's partition place them
    apart, and an edge at zero carry the other sign). numpy selects each of the
    2 × 254 order statistics of 255 bins by a partition of its own, and
    every ensemble of a fit (each fold's, each candidate's) quantises its
    rows anew: read off the sorted column, a default fit on 1,000 rows of
    500 columns takes 0.80 times as long (benchmarks/RESULTS.md, section
    ``fit-cost-wide-edges``).
    """
    n = ordered.shape[0]
    at = (n - 1) * np.true_divide(q, 100)
    virtual = 0.5 * (np.floor(at) + np.ceil(at))
    below = np.floor(virtual)
    above = below + 1
    last = virtual >= n - 1
    below[last] = -1
    above[last] = -1
    gamma = np.where(virtual % 1 == 0, 0.0, 0.5)
    a = ordered[below.astype(np.intp)]
    b = ordered[above.astype(np.intp)]
    diff = b - a
    out = a + diff * gamma
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return out


class _BinMapper:
    """Quantise each feature into at most ``max_bins`` ordered bins.

    A feature with at most ``max_bins`` distinct values gets one bin per value,
    with edges halfway between consecutive values; otherwise the edges are
    quantiles of (a subsample of) the column. ``bin(x)`` is the number of
    edges strictly below ``x``, so ``bin(x) <= b`` exactly when
    ``x <= edges[b]``: a split found on bins is a threshold on raw values.
    A missing value (NaN) goes to the feature's last bin, ``n_bins_[j]``,
    one past its value bins; edges are placed on the observed values only.
    """

    def __init__(self, max_bins: int = 255, random_state=None):
        self.max_bins = max_bins
        self.random_state = random_state

    def fit(self, X: np.ndarray) -> "_BinMapper":
        rng = check_random_state(self.random_state)
        if X.shape[0] > _SUBSAMPLE:
            rows = np.sort(rng.choice(X.shape[0], _SUBSAMPLE, replace=False))
            sample = X[rows]
        else:
            sample = X
        self.edges_ = []
        for j in range(X.shape[1]):
            column = sample[:, j]
            ordered = np.sort(column[~np.isnan(column)])
            first = np.ones(ordered.shape[0], dtype=bool)  # np.unique's mask
            first[1:] = ordered[1:] != ordered[:-1]
            values = ordered[first]
            if values.shape[0] <= self.max_bins:
                edges = (values[:-1] + values[1:]) / 2.0
            else:
                qs = np.linspace(0.0, 100.0, self.max_bins + 1)[1:-1]
                edges = np.unique(midpoint_percentiles(ordered, qs))
            self.edges_.append(np.ascontiguousarray(edges, dtype=np.float64))
        self.n_bins_ = np.array([e.shape[0] + 1 for e in self.edges_], dtype=np.intp)
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Bin codes (uint8, C-ordered) of ``X``; NaN goes to ``n_bins_[j]``."""
        n_features = len(self.edges_)
        # every feature's edges padded with +inf to _EDGE_SLOTS (no value is
        # above +inf, so the padding never counts)
        flat = np.full((n_features, _EDGE_SLOTS), np.inf)
        for j, edges in enumerate(self.edges_):
            flat[j, : edges.shape[0]] = edges
        return _transform(np.asarray(X, dtype=np.float64), flat, self.n_bins_ - 1)


#: Edge slots per feature in :func:`_transform`: 2**8 - 1, at least the 254
#: edges of 255 bins, so that eight halving steps always end the search.
_EDGE_SLOTS = 255


@compiled(nogil=True)
def _transform(X, edges, n_edges):
    """Number of edges of feature j below ``X[i, j]`` (``edges`` holds
    ``_EDGE_SLOTS`` sorted values per feature, padded with +inf);
    ``n_edges[j] + 1`` (the missing bin) for NaN.

    A binary search of fixed length whose steps add a comparison's outcome
    instead of branching on it: the compiler turns it into straight-line
    code, five to six times as fast on random data as a search that branches,
    with the same codes (a one-round SPLBoost's ``predict``, mostly this, on
    1e6 rows of 20 features: 0.16 s against 0.90 s; benchmarks/RESULTS.md,
    section ``encoding-speed``).
    """
    n_samples, n_features = X.shape
    out = np.empty((n_samples, n_features), dtype=np.uint8)
    for j in range(n_features):
        e = edges[j]
        missing = n_edges[j] + 1
        for i in range(n_samples):
            x = X[i, j]
            pos = 128 * (e[127] < x)
            pos += 64 * (e[pos + 63] < x)
            pos += 32 * (e[pos + 31] < x)
            pos += 16 * (e[pos + 15] < x)
            pos += 8 * (e[pos + 7] < x)
            pos += 4 * (e[pos + 3] < x)
            pos += 2 * (e[pos + 1] < x)
            pos += e[pos] < x
            out[i, j] = missing if np.isnan(x) else pos
    return out


def histograms_numpy(X_binned, y, weight, node_of_row, n_nodes, n_bins, n_classes):
    """Reference implementation of :func:`_histograms` with ``np.bincount``."""
    n_features = X_binned.shape[1]
    keep = (weight != 0.0) & (node_of_row >= 0)
    Xk, yk, wk, nk = X_binned[keep], y[keep], weight[keep], node_of_row[keep]
    size = n_nodes * n_features * n_bins * n_classes
    hist = np.zeros(size)
    for j in range(n_features):
        flat = ((nk * n_features + j) * n_bins + Xk[:, j].astype(np.intp)) * n_classes
        hist += np.bincount(flat + yk, weights=wk, minlength=size)
    return hist.reshape(n_nodes, n_features, n_bins, n_classes)


@compiled(nogil=True)
def _predict_codes(
    X_binned,
    feature,
    split_bin,
    missing_left,
    missing_bin,
    children_left,
    children_right,
    label,
):
    out = np.empty(X_binned.shape[0], dtype=np.intp)
    for i in range(X_binned.shape[0]):
        node = 0
        while children_left[node] >= 0:
            f = feature[node]
            if _goes_left(
                X_binned[i, f], f, node, split_bin, missing_left, missing_bin
            ):
                node = children_left[node]
            else:
                node = children_right[node]
        out[i] = label[node]
    return out


@compiled(nogil=True)
def _ensemble_scores(
    X_binned,
    feature,
    split_bin,
    missing_left,
    missing_bin,
    left,
    right,
    label,
    weight,
    out,
):
    """Add ``weight[m]`` to ``out[i, label of tree m's leaf for row i]``.

    Trees are the rows of the node arrays; per row the trees are added in
    order, so the sums equal adding the trees' predictions one at a time.
    """
    for i in range(X_binned.shape[0]):
        for m in range(feature.shape[0]):
            node = 0
            while left[m, node] >= 0:
                f = feature[m, node]
                if _goes_left(
                    X_binned[i, f], f, node, split_bin[m], missing_left[m], missing_bin
                ):
                    node = left[m, node]
                else:
                    node = right[m, node]
            out[i, label[m, node]] += weight[m]


def ensemble_scores(trees, weights, X_binned, n_classes, mapper):
    """SAMME scores of binned trees (fitted by ``_fit_binned`` on data
    quantised by ``mapper``) in one pass."""
    n_nodes = max(t.tree_feature_.shape[0] for t in trees)
    shape = (len(trees), n_nodes)
    feature = np.zeros(shape, dtype=np.intp)
    split_bin = np.zeros(shape, dtype=np.intp)
    missing_left = np.zeros(shape, dtype=np.bool_)
    left = np.full(shape, -1, dtype=np.intp)
    right = np.full(shape, -1, dtype=np.intp)
    label = np.zeros(shape, dtype=np.intp)
    for m, tree in enumerate(trees):
        k = tree.tree_feature_.shape[0]
        feature[m, :k] = np.maximum(tree.tree_feature_, 0)
        split_bin[m, :k] = tree._split_bin
        missing_left[m, :k] = tree.tree_missing_left_
        left[m, :k], right[m, :k] = tree._children
        label[m, :k] = np.argmax(tree.tree_value_, axis=1)
    out = np.zeros((X_binned.shape[0], n_classes))
    _ensemble_scores(
        np.ascontiguousarray(X_binned),
        feature,
        split_bin,
        missing_left,
        mapper.n_bins_,
        left,
        right,
        label,
        np.asarray(weights, dtype=np.float64),
        out,
    )
    return out


@compiled(nogil=True)
def _apply_raw(X, feature, threshold, missing_left, children_left, children_right):
    out = np.empty(X.shape[0], dtype=np.intp)
    for i in range(X.shape[0]):
        node = 0
        while children_left[node] >= 0:
            x = X[i, feature[node]]
            if np.isnan(x):
                go_left = missing_left[node]
            else:
                go_left = x <= threshold[node]
            if go_left:
                node = children_left[node]
            else:
                node = children_right[node]
        out[i] = node
    return out


def _grow_tree(X_binned, y, weight, n_classes, n_bins, max_depth, criterion):
    """Grow a tree level by level; return its arrays (node-indexed), each
    node's value its class shares.

    The level loop runs compiled (:func:`grow_nodes`): in Python, its glue
    took about an eighth of the time of a depth-3 tree on 1,200 rows (ad
    hoc; docs/boosting.md, *A learner per round*)."""
    feature, split_bin, to_left, left, right, value = grow_nodes(
        X_binned, y, weight, n_classes, n_bins, max_depth, criterion
    )
    totals = value.sum(axis=1, keepdims=True)
    value = np.divide(value, totals, out=np.zeros_like(value), where=totals > 0)
    return feature, split_bin, to_left, left, right, value


class BinnedTreeClassifier(OlderFilesMixin, ClassifierMixin, BaseEstimator):
    """Depth-limited decision tree grown on quantised features.

    Each feature is quantised once into at most ``max_bins`` bins; the tree is
    grown level by level from weighted class histograms over the bins (one
    pass over the rows per level, compiled with numba), choosing at every node
    the split that most reduces the weighted Gini impurity or entropy. It is
    the default weak learner of the boosting classifiers in
    :mod:`labelclean.ensemble`, where the data are quantised once per boosting
    fit rather than once per round; ``max_depth=1`` gives a decision stump.

    Parameters
    ----------
    max_depth : int, default=3
        Greatest depth of the tree; 1 is a stump.
    max_bins : int, default=255
        Largest number of bins per feature for its observed values (at most
        255; one more bin holds missing values). A feature with at most
        ``max_bins`` distinct values keeps every value apart, so the tree then
        sees the same candidate thresholds as an exact tree.
    criterion : {"gini", "entropy"}, default="gini"
        Impurity whose weighted decrease chooses the splits.
    random_state : int, RandomState instance or None, default=None
        Seeds the row subsample (200,000 rows) used to place quantile edges
        when there are more rows than that; otherwise unused.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when X has string column names.
    tree_feature_ : ndarray of shape (n_nodes,)
        Split feature of each node, -1 for leaves.
    tree_threshold_ : ndarray of shape (n_nodes,)
        Split threshold of each node: rows with ``x <= threshold`` go left.
    tree_missing_left_ : ndarray of shape (n_nodes,)
        Whether rows with a missing (NaN) split feature go left at each node:
        the side that reduced the impurity more on the training rows with a
        missing value there, or the child with more weight when there were
        none.
    tree_value_ : ndarray of shape (n_nodes, n_classes)
        Weighted class shares of each node.

    See Also
    --------
    sklearn.tree.DecisionTreeClassifier : Exact (unbinned) decision tree.

    Notes
    -----
    Rows with zero sample weight take no part in the fit: they place no bin
    edges and add nothing to the histograms. Missing values (NaN) are
    accepted in ``fit`` and ``predict``; ±inf is an error. Ties between
    equally good splits go to the lowest feature index and then the lowest
    threshold.

    References
    ----------
    .. [1] G. Ke et al., "LightGBM: A highly efficient gradient boosting decision
       tree", NeurIPS 2017 (histogram-based split finding).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from labelclean.ensemble import BinnedTreeClassifier
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> clf = BinnedTreeClassifier(max_depth=2).fit(X, y)
    >>> float(clf.score(X, y)) > 0.8
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "max_depth": [Interval(Integral, 1, 32, closed="both")],
        "max_bins": [Interval(Integral, 2, 255, closed="both")],
        "criterion": [StrOptions(set(_CRITERIA))],
        "random_state": ["random_state"],
    }

    def __init__(self, max_depth=3, max_bins=255, criterion="gini", random_state=None):
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.criterion = criterion
        self.random_state = random_state

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the tree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights; rows with weight 0 are ignored.

        Returns
        -------
        self : BinnedTreeClassifier
            The fitted tree.
        """
        X, y = validate_data(
            self, X, y, dtype=np.float64, ensure_all_finite="allow-nan"
        )
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        sample_weight = check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=True
        )
        positive = sample_weight > 0
        if not positive.any():
            raise ValueError("sample_weight is zero for every row; nothing to fit.")
        mapper = _BinMapper(self.max_bins, self.random_state).fit(X[positive])
        X_binned = mapper.transform(X)
        return self._fit_binned(
            X_binned, codes.astype(np.intp), sample_weight, len(self.classes_), mapper
        )

    def _fit_binned(self, X_binned, codes, sample_weight, n_classes, mapper):
        """Fit on data already quantised by ``mapper`` (the boosting fast path)."""
        feature, split_bin, missing_left, left, right, value = _grow_tree(
            X_binned,
            codes,
            np.ascontiguousarray(sample_weight, dtype=np.float64),
            n_classes,
            mapper.n_bins_,
            self.max_depth,
            _CRITERIA[self.criterion],
        )
        if not hasattr(self, "classes_"):
            self.classes_ = np.arange(n_classes)
        threshold = np.full(feature.shape[0], np.nan)
        for node in np.flatnonzero(feature >= 0):
            edges = mapper.edges_[feature[node]]
            # The last value bin as split: every observed value left.
            b = split_bin[node]
            threshold[node] = edges[b] if b < edges.shape[0] else np.inf
        self.tree_feature_ = feature
        self.tree_threshold_ = threshold
        self.tree_missing_left_ = missing_left
        self._missing_bin = mapper.n_bins_
        self.tree_value_ = value
        self._split_bin = split_bin
        self._children = (left, right)
        return self

    def _predict_binned(self, X_binned):
        """Class codes for data quantised by the mapper used in the fit."""
        return _predict_codes(
            X_binned,
            self.tree_feature_,
            self._split_bin,
            self.tree_missing_left_,
            self._missing_bin,
            *self._children,
            np.argmax(self.tree_value_, axis=1),
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # routed natively (a missing bin)
        return tags

    def _leaves(self, X):
        check_is_fitted(self)
        X = validate_data(
            self, X, dtype=np.float64, reset=False, ensure_all_finite="allow-nan"
        )
        X = np.ascontiguousarray(X)
        return _apply_raw(
            X,
            self.tree_feature_,
            self.tree_threshold_,
            self.tree_missing_left_,
            *self._children,
        )

    def predict_proba(self, X):
        """Weighted class shares of the leaf each row falls in.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns ordered like ``classes_``.
        """
        leaves = self._leaves(X)
        return self.tree_value_[leaves]

    def predict(self, X):
        """Majority class (by weight) of the leaf each row falls in.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted labels.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
