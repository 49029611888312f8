"""KNN noise filter (cb-adaboost.md §III-E).

:class:`KNNFilter` removes, over several rounds, the rows whose label agrees
with too few of their nearest neighbours; the rows that survive are the
reduced set L_red that the confidence estimators of
:mod:`labelclean.confidence` learn from.
"""

import warnings
from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike

from labelclean.filters._base import BaseFilter
from labelclean.utils._features import FeatureSpaceMixin
from labelclean.utils._labels import labels_text
from labelclean.utils._neighbors import CANDIDATE_MARGIN, NeighborIndex
from labelclean.utils._sampling import draw_seed
from labelclean.utils._sklearn import Interval, StrOptions, fit_context
from labelclean.utils._validation import check_labels

__all__ = ["KNNFilter"]


class KNNFilter(FeatureSpaceMixin, BaseFilter):
    """Iterative k-nearest-neighbour label-agreement noise filter.

    In each round, every remaining row's agreement rate (the share of its
    ``n_neighbors`` nearest remaining rows that carry its label) is computed,
    and rows whose rate is below that round's threshold are removed. Rows
    tied at the distance of the k-th neighbour share the places left by
    their labels, so the order of the rows never decides between tied labels
    (the rate may then fall between the steps of 1/K). Neighbourhoods are
    recomputed on the rows that remain, so suspects hidden
    by other suspects are exposed in later rounds. The survivors form the
    reduced set L_red of cb-adaboost.md §III-E.

    The filter changes the number of rows, so it is a sampler, not a
    transformer: :meth:`fit_resample` returns the kept rows.

    Parameters
    ----------
    n_neighbors : int, default=5
        Neighbourhood size K of the agreement rate. With K = 5 the rate moves
        in steps of 0.2, so the paper's thresholds 0.07, 0.14, 0.21 remove
        rows with no agreeing neighbour in rounds 1 and 2 (on recomputed
        neighbourhoods) and at most one in round 3. Chosen by measurement over
        K in {5, 7, 9, 10, 15, 20} (see Notes).
    thresholds : array-like of float, default=(0.07, 0.14, 0.21)
        One threshold per round; rows with an agreement rate strictly below
        the round's threshold are removed.
    algorithm : {'auto', 'exact', 'hnsw', 'approximate'}, default='auto'
        Neighbour search backend.

        - 'exact': exact search (faiss float32 screen, float64 ranking); best
          below about 6e4 rows (its time grows faster than the rows).
        - 'hnsw': every row walks an HNSW graph over every row (faiss, built
          on one thread, so results do not depend on the thread count), its
          candidates ranked in float64; recall about 0.98.
        - 'approximate': pynndescent's graph search; near-linear, for large
          data (pays about 25 s of compilation once per process).
        - 'auto': 'exact' below 75,000 rows, 'hnsw' below 200,000,
          'approximate' from then on.
    max_categories : int, default=32
        Most one-hot columns per categorical feature.
    random_state : int, RandomState instance or None, default=None
        Seed of the approximate search.
    n_jobs : int, default=None
        Parallel jobs of the neighbour search.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Distinct labels.
    sample_indices_ : ndarray of shape (n_kept,)
        Positions of the kept rows (L_red) in the training data.
    removal_round_ : ndarray of shape (n_samples,)
        Round (1-based) in which each row was removed; 0 for kept rows.
    agreement_ : ndarray of shape (n_samples,)
        Each row's last computed agreement rate (at removal for removed rows).
    feature_encoder_ : object
        Fitted encoder of the features into distance space.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    KNNConfidence : Label confidence on the filtered set.

    Notes
    -----
    The paper uses K = 5 for the confidence and does not say which K the
    filter uses. With K = 5 the agreement rate moves in steps of 0.2, so the
    thresholds 0.07 and 0.14 both remove rows with rate 0 (round 2 still
    matters: it acts on neighbourhoods recomputed after round 1), and 0.21
    removes rates 0 and 0.2. A larger K (15) would make each threshold bite
    one step further, as the thresholds suggest, but measured on
    breast_cancer, wine and digits with 10-30 % flips it removes far fewer
    flipped rows on two-class data at high noise (filter F1 0.46 against 0.66
    at 30 % on breast_cancer) and gains at most a few points on multi-class
    data; K = 5 is the default. See ``benchmarks/RESULTS.md`` (section
    ``filter-k``) and ``docs/confidence.md``.

    A round never removes every remaining row of a class; if it would, that
    class's rows are kept in that round, and one warning after the rounds
    names such classes with their rows: apart, those too small for any row
    to have enough neighbours of its own class.

    References
    ----------
    .. [1] Z. Xiao, Z. Luo, B. Zhong and X. Dang, "Robust and Efficient
       Boosting Method using the Conditional Risk", IEEE Transactions on
       Neural Networks and Learning Systems, §III-E.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from labelclean.filters import KNNFilter
    >>> from labelclean.noise import flip_labels
    >>> X, y = make_blobs(n_samples=300, centers=2, random_state=0)
    >>> y_noisy, flipped = flip_labels(y, 0.1, random_state=0)
    >>> X_red, y_red = KNNFilter().fit_resample(X, y_noisy)
    >>> X_red.shape[0] < X.shape[0]
    True
    """

    _parameter_constraints: dict = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "thresholds": ["array-like"],
        "algorithm": [StrOptions({"auto", "exact", "hnsw", "approximate"})],
        "max_categories": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        n_neighbors: int = 5,
        thresholds: ArrayLike = (0.07, 0.14, 0.21),
        *,
        algorithm: str = "auto",
        max_categories: int = 32,
        random_state=None,
        n_jobs: int | None = None,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.thresholds = thresholds
        self.algorithm = algorithm
        self.max_categories = max_categories
        self.random_state = random_state
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike) -> "KNNFilter":
        """Run the filter on ``(X, y)``.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Features: numeric arrays, or DataFrames with numeric, categorical,
            boolean or datetime columns.
        y : array-like of shape (n_samples,)
            Observed labels of any type.

        Returns
        -------
        self : KNNFilter
            Fitted filter.
        """
        Z = self._encode_features(X, reset=True)
        self.classes_, codes = check_labels(y, n_samples=Z.shape[0])
        index = NeighborIndex(
            Z,
            n_candidates=self.n_neighbors + CANDIDATE_MARGIN,
            algorithm=self.algorithm,
            random_state=draw_seed(self.random_state),
            n_jobs=self.n_jobs,
        )
        keep, self.removal_round_, self.agreement_ = self._rounds(
            index, codes, self.classes_
        )
        self.sample_indices_ = np.flatnonzero(keep)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # imputed by the feature encoder
        return tags

    def _validated_thresholds(self) -> np.ndarray:
        thresholds = np.asarray(self.thresholds, dtype=float).ravel()
        if thresholds.size == 0 or np.any((thresholds < 0) | (thresholds > 1)):
            raise ValueError(
                "The 'thresholds' parameter of KNNFilter must be a non-empty "
                f"sequence of rates in [0, 1]. Got {self.thresholds!r} instead."
            )
        return thresholds

    def rounds(self, index: NeighborIndex, codes: np.ndarray, classes=None):
        """Run the filter's rounds on a neighbour index another estimator built.

        :class:`~labelclean.confidence.KNNConfidence` and
        :class:`~labelclean.confidence.BayesConfidence` call this with the
        index they search for their own neighbourhoods, so the filter and the
        confidence share one search. Validates the parameters first.

        Parameters
        ----------
        index : NeighborIndex
            Built on the encoded training rows with at least
            ``n_neighbors + CANDIDATE_MARGIN`` candidates.
        codes : ndarray of int of shape (n_samples,)
            Label codes of the training rows.
        classes : array-like of shape (n_classes,), default=None
            The labels the codes stand for, named in warnings (else the codes).

        Returns
        -------
        keep : ndarray of bool
            Rows kept (L_red).
        removal_round : ndarray of int
            Round in which each row was removed; 0 for kept rows.
        agreement : ndarray of float
            Each row's last computed agreement rate.
        """
        self._validate_params()
        return self._rounds(index, codes, classes)

    def _rounds(self, index: NeighborIndex, codes: np.ndarray, classes=None):
        """The filter rounds on a ready index; returns (keep, rounds, agreement)."""
        thresholds = self._validated_thresholds()
        n_samples = codes.shape[0]
        n_classes = int(codes.max()) + 1
        keep = np.ones(n_samples, dtype=bool)
        removal_round = np.zeros(n_samples, dtype=np.int64)
        agreement = np.full(n_samples, np.nan)
        spared = {}  # class code -> (k, neighbours needed) of its first spare
        for round_, threshold in enumerate(thresholds, start=1):
            rows = np.flatnonzero(keep)
            if rows.size < 2:
                break
            k = index.effective_k(self.n_neighbors, rows.size, exclude_self=True)
            counts = index.training_label_counts(keep, k, codes, n_classes, rows=rows)
            rate = counts[np.arange(rows.size), codes[rows]] / k
            agreement[rows] = rate
            drop = rows[rate < threshold]
            drop, emptied = _spare_last_of_class(drop, keep, codes)
            need = int(np.ceil(threshold * k - 1e-9))
            for code in emptied.tolist():
                spared.setdefault(code, (k, need))
            removal_round[drop] = round_
            keep[drop] = False
        _warn_spared(spared, np.bincount(codes, minlength=n_classes), classes)
        return keep, removal_round, agreement


#: Classes a warning names; more are counted (a label of ids makes every
#: class a single row, and the warning one line per class otherwise).
_NAMED_CLASSES = 8


def _spare_last_of_class(drop, keep, codes):
    """``drop`` without the rows of any class it would empty of its remaining
    rows, and the codes of those classes."""
    n_classes = int(codes.max()) + 1
    left = np.bincount(codes[keep], minlength=n_classes)
    dropped = np.bincount(codes[drop], minlength=n_classes)
    emptied = np.flatnonzero((left > 0) & (dropped >= left))
    if emptied.size:
        drop = drop[~np.isin(codes[drop], emptied)]
    return drop, emptied


def _warn_spared(spared, rows, classes=None):
    """One warning per fit for the classes the rounds kept whole, at most
    two: classes too small for any of their rows to agree with enough
    neighbours (at most ``n - 1`` of a row's neighbours can share its label,
    so no evidence is needed to see they would go), and classes whose every
    row agreed with too few, which may be rare among others, overlap them, or
    carry mostly wrong labels. ``spared``: class code -> (k, neighbours
    needed) of the first round that would have emptied it; ``rows``: each
    class's rows in the input, by which a class is too small (a class the
    rounds thinned is not) and is named."""
    small = {c: v for c, v in spared.items() if rows[c] - 1 < v[1]}
    other = {c: v for c, v in spared.items() if c not in small}
    if small:
        warnings.warn(
            f"class(es) {_named(small, rows, classes)} have too few rows for any "
            "of them to have enough neighbours of their own class (the noise "
            f"filter asks for {_asked(small)}); their rows are kept unfiltered, "
            "and their labels cannot be checked against neighbours.",
            UserWarning,
            stacklevel=4,
        )
    if other:
        warnings.warn(
            f"the noise filter would remove every remaining row of class(es) "
            f"{_named(other, rows, classes)}: each of their rows has "
            f"{_asked(other, short=True)} neighbours in its own class. Those "
            "rows are kept. The class may be rare among others that surround "
            "it or overlap them, or its labels may be mostly wrong; inspect them.",
            UserWarning,
            stacklevel=4,
        )


def _named(spared, rows, classes):
    """The classes of ``spared`` by label (else code) with their rows, the
    first :data:`_NAMED_CLASSES` named and the rest counted."""
    codes = sorted(spared)
    labels = codes if classes is None else np.asarray(classes, dtype=object)[codes]
    counts = [int(rows[c]) for c in codes]
    return labels_text(list(zip(list(labels), counts, strict=True)), _NAMED_CLASSES)


def _asked(spared, short=False):
    """The rounds' demand on a row: 'at least 2 of a row's 5 nearest', or
    where it falls short, 'fewer than 2 of its 5 nearest' ('none of its 5
    nearest' for one)."""
    asks = sorted({(need, k) for k, need in spared.values()})
    if not short:
        return " or ".join(
            f"at least {need} of a row's {k} nearest" for need, k in asks
        )
    return " or ".join(
        f"none of its {k} nearest"
        if need == 1
        else f"fewer than {need} of its {k} nearest"
        for need, k in asks
    )
