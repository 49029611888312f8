"""KNN label confidence (cb-adaboost.md §III-E).

:class:`KNNConfidence` runs the noise filter
(:class:`~labelclean.filters.KNNFilter`) and then scores every row by the
share of its nearest neighbours in the reduced set L_red that carry its label
(eq. III.14). The filter's rounds and the confidence read neighbourhoods from
one :class:`~labelclean.utils._neighbors.NeighborIndex`, so they share a
single neighbour search.
"""

import warnings
from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from labelclean.confidence._base import BaseConfidence
from labelclean.utils._column_kinds import coerce_object_columns
from labelclean.utils._feature_ranks import apply_ranks, choose_feature_ranks
from labelclean.utils._feature_weights import choose_feature_weights, value_outputs
from labelclean.utils._neighbors import CANDIDATE_MARGIN, NeighborIndex
from labelclean.utils._sampling import draw_seed
from labelclean.utils._sklearn import Interval, StrOptions, fit_context
from labelclean.utils._validation import check_labels, is_dataframe

__all__ = ["KNNConfidence"]


def _local(k: int, n_rows: int, n_fitted: int | None = None) -> int:
    """``k`` capped at half of ``n_rows`` rows (rounded up) less one, at
    least 1, with a warning where that cuts it. Beyond it a row's
    neighbourhood is most of the table, the same for every row, so it says
    nothing of the row: on 12 rows of two classes K = 10 read every right
    label at one half, and the soft labels said nothing (docs/confidence.md,
    *Tables smaller than the neighbourhood*). ``n_fitted``: the rows fitted
    on, named where the noise filter left fewer."""
    cap = max(1, -(-n_rows // 2) - 1)
    if cap < k:
        rows = f"{n_rows} row(s)"
        if n_fitted is not None and n_fitted > n_rows:
            rows = f"the {n_rows} of {n_fitted} row(s) the noise filter kept"
        warnings.warn(
            f"{rows} are too few for n_neighbors={k}: a neighbourhood "
            f"of more than {cap} would hold most of the table; using {cap}.",
            UserWarning,
            stacklevel=3,
        )
    return min(k, cap)


class KNNConfidence(BaseConfidence):
    """Label confidence γ from nearest neighbours in the filtered set.

    γ_i is the share of the ``n_neighbors`` nearest rows of row i in the
    reduced set L_red (the rows a :class:`KNNFilter` keeps) that carry row i's
    label, row i itself excluded (cb-adaboost.md eq. III.14). Rows tied at the
    distance of the k-th neighbour share the places left, each counting its
    label by its share (the expected count of a tie-break drawn at random),
    so the order of the rows never decides. The neighbours'
    label shares are also each row's soft label over all classes, so the
    estimator works for any number of classes, and the trusted label is the
    class most of the neighbours carry.

    Parameters
    ----------
    n_neighbors : int, default=10
        Neighbourhood size K of the confidence. The paper uses K = 5; with
        K = 10, γ takes finer steps and ranks wrong labels better (AUROC of
        1 - γ 0.976 against 0.953 on breast_cancer with 30 % flips; see
        ``benchmarks/RESULTS.md``, section ``filter-k``). Pass 5 for the
        paper's setting.
    noise_filter : {'knn'}, KNNFilter or None, default='knn'
        The filter that builds L_red.

        - 'knn': a :class:`KNNFilter` with its defaults and this estimator's
          ``algorithm``, ``max_categories`` and ``n_jobs``.
        - a :class:`KNNFilter` instance: cloned and used with its parameters
          (its neighbour search is replaced by this estimator's, so one index
          serves both).
        - None: no filtering; L_red is the whole training set.
    algorithm : {'auto', 'exact', 'hnsw', 'approximate'}, default='auto'
        Neighbour search backend.

        - 'exact': exact search (faiss float32 screen, float64 ranking); best
          below about 6e4 rows (its time grows faster than the rows).
        - 'hnsw': every row walks an HNSW graph over every row (faiss, built
          on one thread, so results do not depend on the thread count), its
          candidates ranked in float64; recall about 0.98.
        - 'approximate': pynndescent's graph search; near-linear, for large
          data (pays about 25 s of compilation once per process).
        - 'auto': 'exact' below 75,000 rows, 'hnsw' below 350,000,
          'approximate' from then on.
    max_categories : int, default=32
        Most one-hot columns per categorical feature.
    feature_weights : {'uniform', 'auto'}, default='uniform'
        How the encoded columns weigh in the distance.

        - 'uniform': all alike, as in the paper.
        - 'auto': each input column weighted by its adjusted mutual
          information with the observed label, kept only where that makes
          the neighbours' leave-one-out vote agree with the labels more often
          by more than two standard errors (read on at most 5,000 rows;
          ``docs/confidence.md``, *Weighted distance*). The cleaning
          pipelines build this stage with 'auto'.
    feature_scaling : {'standard', 'auto'}, default='standard'
        How a number's distance is read.

        - 'standard': in standard deviations, as the paper's Euclidean
          distance on standardised features.
        - 'auto': by the value's rank among the training values, kept only
          where that makes the neighbours' leave-one-out vote agree with the
          labels more often by more than two standard errors (read on at
          most 5,000 rows; ``docs/confidence.md``, *Numbers read by their
          rank*): a column with a long tail otherwise puts most of its rows
          within a sliver of one standard deviation. Not the pipelines'
          default: on public tables it also sharpened the neighbours where
          classes overlap and flagged more right labels (the same section).
    random_state : int, RandomState instance or None, default=None
        Seed of the approximate search and of the rows 'auto' reads.
    n_jobs : int, default=None
        Parallel jobs of the neighbour search.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Distinct labels, sorted.
    confidence_ : ndarray of shape (n_samples,)
        γ per training row, in [0, 1]; higher means the label is more likely
        right.
    soft_labels_ : ndarray of shape (n_samples, n_classes)
        Share of each row's neighbours carrying each class.
    neighbor_counts_ : ndarray of shape (n_samples, n_classes)
        Number of each row's neighbours carrying each class (audit evidence).
        The rows tied at the k-th neighbour's distance share the places left
        by their labels, so a count may be a fraction; no order of the rows
        decides between tied labels.
    unfiltered_soft_labels_ : ndarray of shape (n_samples, n_classes)
        Share of each row's nearest other training rows carrying each class,
        the filter's removals included (from the candidates the search
        found). Unlike ``soft_labels_`` it is blind to the row's own label:
        the filter keeps a wrong label's neighbours of the same wrong label
        more often, and they then vote for it. The calibration reads its
        surest rows a second time by it (``docs/decisions.md``, *The surest
        rows are chosen blind to their own labels*).
    trusted_labels_ : ndarray of shape (n_samples,)
        Most common label among each row's neighbours; ties keep the observed
        label.
    in_reduced_set_ : ndarray of shape (n_samples,), dtype=bool
        True for rows of L_red.
    removal_round_ : ndarray of shape (n_samples,)
        Filter round in which each row left L_red; 0 for kept rows.
    n_neighbors_ : int
        Neighbourhood size actually used: capped by the rows available and
        by half of them less one (docs/confidence.md, *Tables smaller than
        the neighbourhood*).
    neighbor_algorithm_ : str
        The search backend used, 'exact', 'hnsw' or 'approximate'.
    feature_encoder_ : object
        Fitted encoder of the features into distance space.
    feature_weights_ : ndarray of shape (n_encoded,) or None
        Factors the encoded columns are multiplied by before every search
        (square roots of the column weights); None when the distance is
        unweighted.
    feature_weighting_ : dict or None
        With ``feature_weights='auto'``: each input column's ``information``,
        the check's ``difference`` and ``standard_error``, the ``rows`` read,
        and whether the weights were kept (``weighted``).
    feature_ranks_ : dict or None
        With ``feature_scaling='auto'``, where the ranks were kept: the
        encoded ``columns`` read by rank and, per column, the training
        ``values`` and the ``shares`` of training values below each (ties
        counting half) between which new values are placed.
    feature_ranking_ : dict or None
        With ``feature_scaling='auto'``: the check's ``difference`` and
        ``standard_error`` (ranked minus standardised share of right votes),
        the ``rows`` read, and whether the ranks were kept (``ranked``).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    KNNFilter : The noise filter building L_red.
    BayesConfidence : Confidence from class-conditional densities.

    Notes
    -----
    New rows are scored with :meth:`score_samples` against L_red; a training
    row passed again is its own nearest neighbour there, so use
    ``confidence_`` for training rows.

    References
    ----------
    .. [1] Z. Xiao, Z. Luo, B. Zhong and X. Dang, "Robust and Efficient
       Boosting Method using the Conditional Risk", IEEE Transactions on
       Neural Networks and Learning Systems, §III-E, eq. (III.14).

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from labelclean.confidence import KNNConfidence
    >>> from labelclean.noise import flip_labels
    >>> X, y = make_blobs(n_samples=300, centers=3, random_state=0)
    >>> y_noisy, flipped = flip_labels(y, 0.1, random_state=0)
    >>> est = KNNConfidence(random_state=0).fit(X, y_noisy)
    >>> bool(est.confidence_[flipped].mean() < est.confidence_[~flipped].mean())
    True
    """

    _parameter_constraints: dict = {
        **BaseConfidence._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "feature_weights": [StrOptions({"uniform", "auto"})],
        "feature_scaling": [StrOptions({"standard", "auto"})],
    }

    def __init__(
        self,
        n_neighbors: int = 10,
        *,
        noise_filter="knn",
        algorithm: str = "auto",
        max_categories: int = 32,
        feature_weights: str = "uniform",
        feature_scaling: str = "standard",
        random_state=None,
        n_jobs: int | None = None,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.noise_filter = noise_filter
        self.algorithm = algorithm
        self.max_categories = max_categories
        self.feature_weights = feature_weights
        self.feature_scaling = feature_scaling
        self.random_state = random_state
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: ArrayLike, y: ArrayLike) -> "KNNConfidence":
        """Filter the training rows and estimate every row's label confidence.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Features: numeric arrays, or DataFrames with numeric, categorical,
            boolean or datetime columns.
        y : array-like of shape (n_samples,)
            Observed labels of any type.

        Returns
        -------
        self : KNNConfidence
            Fitted estimator.
        """
        Z = self._encode_features(X, reset=True)
        self.classes_, codes = check_labels(y, n_samples=Z.shape[0])
        n_classes = self.classes_.shape[0]
        seed = draw_seed(self.random_state)
        Z = self._weigh_features(X, self._rank_features(Z, codes, seed), codes, seed)
        flt = self._make_filter()
        k_filter = 0 if flt is None else flt.n_neighbors
        index = NeighborIndex(
            Z,
            n_candidates=max(self.n_neighbors, k_filter) + CANDIDATE_MARGIN,
            algorithm=self.algorithm,
            random_state=seed,
            n_jobs=self.n_jobs,
        )
        if flt is None:
            keep = np.ones(Z.shape[0], dtype=bool)
            self.removal_round_ = np.zeros(Z.shape[0], dtype=np.int64)
        else:
            keep, self.removal_round_, _ = flt.rounds(index, codes, self.classes_)
        # Halved first: that cap is below the rows available, so a small
        # table gets one warning, naming the n_neighbors asked for.
        n_keep = int(keep.sum())
        self.n_neighbors_ = index.effective_k(
            _local(self.n_neighbors, n_keep, Z.shape[0]), n_keep, exclude_self=True
        )
        self.neighbor_counts_ = index.training_label_counts(
            keep, self.n_neighbors_, codes, n_classes
        )
        self.soft_labels_ = self.neighbor_counts_ / self.n_neighbors_
        self._index = index
        self._train_codes = codes
        self.in_reduced_set_ = keep
        self.unfiltered_soft_labels_ = (
            self.soft_labels_
            if flt is None
            else self._shares_among(np.ones_like(keep), np.arange(Z.shape[0]))
        )
        self.confidence_ = self.soft_labels_[np.arange(codes.shape[0]), codes]
        self.trusted_labels_ = self.classes_[self._trusted(self.soft_labels_, codes)]
        self.neighbor_algorithm_ = index.algorithm
        # New rows search L_red with a structure of their own; the training
        # rows' search structures are not needed any more.
        index.release()
        return self

    def _rank_features(self, Z: np.ndarray, codes: np.ndarray, seed: int):
        """Set ``feature_ranks_`` (and the record); ``Z`` read by ranks where
        they were kept."""
        self.feature_ranks_, self.feature_ranking_ = None, None
        if self.feature_scaling == "standard":
            return Z
        columns = value_outputs(self.feature_encoder_, self.n_features_in_)
        self.feature_ranks_, self.feature_ranking_ = choose_feature_ranks(
            Z, columns, codes, self.classes_.shape[0], seed=seed
        )
        return apply_ranks(Z, self.feature_ranks_)

    def _weigh_features(self, X, Z: np.ndarray, codes: np.ndarray, seed: int):
        """Set ``feature_weights_`` (and the record); ``Z`` in weighted space."""
        self.feature_weights_, self.feature_weighting_ = None, None
        if self.feature_weights == "uniform":
            return Z
        frame = coerce_object_columns(X) if is_dataframe(X) else X
        self.feature_weights_, self.feature_weighting_ = choose_feature_weights(
            frame, Z, self.feature_encoder_, codes, self.classes_.shape[0], seed=seed
        )
        return Z if self.feature_weights_ is None else Z * self.feature_weights_

    def _encode_features(self, X: ArrayLike, *, reset: bool) -> np.ndarray:
        """The encoded rows, in the fit's weighted space for new rows."""
        Z = super()._encode_features(X, reset=reset)
        if reset:
            return Z
        # Files saved before the ranks or weights existed have no attribute.
        Z = apply_ranks(Z, getattr(self, "feature_ranks_", None))
        weights = getattr(self, "feature_weights_", None)
        return Z if weights is None else Z * weights

    def soft_labels_without(self, excluded: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Soft labels of training ``rows`` from neighbours outside ``excluded``.

        What ``soft_labels_`` would hold for these rows had the rows in
        ``excluded`` carried no label: the label shares among each row's
        nearest rows of L_red that are not excluded, self excluded, at most
        ``n_neighbors_`` of them, taken from the candidates the fit's search
        found (no new search: a row whose candidates hold fewer keeps those;
        one with none keeps its soft label from the fit). A model fitted on
        the other rows' soft labels then never sees the excluded rows' labels,
        as cross-fitting needs: :class:`~labelclean.pipeline.LabelCleaner`
        compares its final-model candidates on them (``docs/decisions.md``,
        *Out-of-fold evidence sees its fold's labels*, says why its evidence
        does not use them yet).

        Parameters
        ----------
        excluded : ndarray of shape (n_samples,), dtype=bool
            Training rows whose labels may not be used.
        rows : ndarray of int
            Training rows to answer for.

        Returns
        -------
        soft : ndarray of shape (len(rows), n_classes)
        """
        check_is_fitted(self)
        allowed = self.in_reduced_set_ & ~np.asarray(excluded, dtype=bool)
        return self._shares_among(allowed, rows)

    def _shares_among(self, allowed: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Label shares among each of ``rows``' nearest ``allowed`` rows, self
        excluded, at most ``n_neighbors_``, from the fit's candidates."""
        n_classes = self.classes_.shape[0]
        counts, used = self._index.candidate_label_counts(
            allowed, rows, self.n_neighbors_, self._train_codes, n_classes
        )
        soft = counts / np.maximum(used, 1)[:, None]
        # No candidate left (all excluded or filtered out; at 20 % excluded
        # and a quarter filtered, one row in ten million): the fit's own soft
        # label, rather than a new search (after the fit, the approximate
        # index would have to be rebuilt).
        soft[used == 0] = self.soft_labels_[rows[used == 0]]
        return soft

    def neighbor_counts(self, X: ArrayLike) -> np.ndarray:
        """Label counts among the nearest L_red rows of new rows.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            New rows.

        Returns
        -------
        counts : ndarray of shape (n_samples, n_classes)
            Columns ordered as ``classes_``.
        """
        Z = self._encode_features(X, reset=False)
        return self._counts(Z)

    def _counts(self, Z: np.ndarray) -> np.ndarray:
        return self._index.query_label_counts(
            Z,
            self.in_reduced_set_,
            self.n_neighbors_,
            self._train_codes,
            self.classes_.shape[0],
        )

    def _training_proba(self) -> np.ndarray:
        return self.soft_labels_

    def _class_probabilities(self, Z: np.ndarray) -> np.ndarray:
        check_is_fitted(self)
        return self._counts(Z) / self.n_neighbors_
