"""Binned weak learners: histograms, quantisation, and equivalence to exact trees."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from labelclean.ensemble import BinnedTreeClassifier
from labelclean.ensemble._binned import (
    _BinMapper,
    histograms_numpy,
    midpoint_percentiles,
)
from labelclean.ensemble._scan import (
    _scan_node_any,
    _scan_node_gini2,
    _scan_node_gini4,
    _split_gain,
    _splits_out,
    _weighted_impurity,
)
from labelclean.ensemble._splits import (
    _BLOCK_CELLS,
    _histograms,
    best_splits,
    grow_nodes,
    histogram_bins,
    level_splits,
)


def scan_every_node(hist, n_bins, scan="any"):
    """``best_splits`` with the general scan (``"any"``) or one of Gini's on
    scalars (``"gini2"``, ``"gini4"``)."""
    n_nodes, n_features, width, n_classes = hist.shape
    out = _splits_out(n_nodes, n_classes)
    every_bin = np.tile(np.arange(width, dtype=np.intp), (n_features, 1))
    n_bins = np.asarray(n_bins, dtype=np.intp)
    for node in range(n_nodes):
        if scan == "any":
            scratch = np.zeros((5, n_classes))
            _scan_node_any(hist[node], every_bin, n_bins, n_bins, 0, node, out, scratch)
        else:
            scalar = _scan_node_gini2 if scan == "gini2" else _scan_node_gini4
            scalar(hist[node], every_bin, n_bins, n_bins, node, out)
    return out


def random_level(rng, n, d, n_classes, n_nodes, missing):
    """Binned rows of one tree level: codes (missing in each feature's last
    bin), labels, few distinct weights with zeros (equal gains, so the order
    of the scan counts), and each row's node (or -1)."""
    n_bins = rng.randint(1, 255, size=d).astype(np.intp)
    X = (rng.rand(n, d) * n_bins).astype(np.uint8)
    X = np.where(rng.rand(n, d) < missing, n_bins[None, :], X).astype(np.uint8)
    y = rng.randint(0, n_classes, size=n).astype(np.intp)
    w = rng.choice([0.0, 0.5, 1.0, 2.0, rng.exponential()], size=n)
    node = rng.randint(-1, n_nodes, size=n).astype(np.intp)
    return X, y, w, node, n_bins


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 60),
    d=st.integers(1, 4),
    n_classes=st.integers(1, 4),
    n_nodes=st.integers(1, 3),
    seed=st.integers(0, 2**31 - 1),
)
def test_histograms_match_numpy_reference(n, d, n_classes, n_nodes, seed):
    rng = np.random.RandomState(seed)
    n_bins = 7
    X = rng.randint(0, n_bins, size=(n, d)).astype(np.uint8)
    y = rng.randint(0, n_classes, size=n).astype(np.intp)
    w = rng.exponential(size=n) * (rng.rand(n) > 0.3)
    node = rng.randint(-1, n_nodes, size=n).astype(np.intp)
    fast = _histograms(X, y, w, node, n_nodes, n_bins, n_classes)
    ref = histograms_numpy(X, y, w, node, n_nodes, n_bins, n_classes)
    np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-12)
    # Skipped rows (zero weight or no node) contribute nothing.
    np.testing.assert_allclose(fast.sum(), w[node >= 0].sum() * d)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 400),
    max_bins=st.sampled_from([2, 3, 16, 254, 255]),
    distinct=st.integers(1, 600),
    seed=st.integers(0, 2**31 - 1),
)
def test_bin_codes_are_the_number_of_edges_below(n, max_bins, distinct, seed):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, distinct, size=(n, 3)) / 7.0
    X[:, 1] = rng.normal(size=n)
    X[rng.rand(n, 3) < 0.1] = np.nan
    mapper = _BinMapper(max_bins, seed).fit(X)
    queries = np.vstack([X, rng.normal(scale=50, size=(50, 3))])
    for j, edges in enumerate(mapper.edges_):  # values on the edges themselves too
        queries[: min(edges.size, queries.shape[0]), j] = edges[: queries.shape[0]]
    codes = mapper.transform(queries)
    for j, edges in enumerate(mapper.edges_):
        expected = np.searchsorted(edges, queries[:, j], side="left")
        expected[np.isnan(queries[:, j])] = mapper.n_bins_[j]
        np.testing.assert_array_equal(codes[:, j], expected)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 2000),
    distinct=st.integers(1, 5000),
    n_bins=st.sampled_from([2, 3, 16, 200, 255]),
    signed_zeros=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
)
def test_midpoint_percentiles_are_numpys(n, distinct, n_bins, signed_zeros, seed):
    """The quantile edges read off the sorted column are numpy's, to the bit
    (but for the sign of a zero where the column holds both zeros: numpy's
    partition and the sort may order them differently; both bin alike)."""
    rng = np.random.RandomState(seed)
    column = (rng.randint(0, distinct, size=n) - distinct // 2) / 7.0
    if signed_zeros:
        column[rng.rand(n) < 0.2] = -0.0
    qs = np.linspace(0.0, 100.0, n_bins + 1)[1:-1]
    expected = np.percentile(column, qs, method="midpoint")
    got = midpoint_percentiles(np.sort(column), qs)
    np.testing.assert_array_equal(got, expected)
    if not signed_zeros:
        assert got.tobytes() == expected.tobytes()


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 800),
    distinct=st.integers(1, 2000),
    max_bins=st.sampled_from([2, 16, 255]),
    seed=st.integers(0, 2**31 - 1),
)
def test_bin_edges_are_numpys_unique_and_percentiles(n, distinct, max_bins, seed):
    """The mapper sorts each column once; its edges are those of
    ``np.unique`` and ``np.percentile(..., method="midpoint")``, to the bit."""
    rng = np.random.RandomState(seed)
    X = (rng.randint(0, distinct, size=(n, 3)) - distinct // 2) / 7.0
    X[:, 1] = rng.normal(size=n)
    X[rng.rand(n, 3) < 0.1] = np.nan
    mapper = _BinMapper(max_bins, seed).fit(X)
    for j, edges in enumerate(mapper.edges_):
        column = X[~np.isnan(X[:, j]), j]
        values = np.unique(column)
        if values.shape[0] <= max_bins:
            expected = (values[:-1] + values[1:]) / 2.0
        else:
            qs = np.linspace(0.0, 100.0, max_bins + 1)[1:-1]
            expected = np.unique(np.percentile(column, qs, method="midpoint"))
        assert edges.tobytes() == expected.tobytes()


def test_bin_mapper_thresholds_agree_with_bins(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = np.c_[rng.normal(size=1000), rng.randint(0, 5, size=1000)]
    mapper = _BinMapper(max_bins=32, random_state=0).fit(X)
    binned = mapper.transform(X)
    assert mapper.n_bins_.tolist()[1] == 5  # one bin per distinct value
    assert mapper.n_bins_[0] <= 32
    for j, edges in enumerate(mapper.edges_):
        for b, edge in enumerate(edges):
            # bin <= b exactly when x <= edge[b]
            np.testing.assert_array_equal(binned[:, j] <= b, X[:, j] <= edge)


def test_stump_matches_exact_stump(global_random_seed):
    X, y = make_classification(
        n_samples=200, n_features=5, n_informative=3, random_state=global_random_seed
    )
    w = np.random.RandomState(global_random_seed).exponential(size=200)
    exact = DecisionTreeClassifier(max_depth=1, random_state=0)
    exact.fit(X, y, sample_weight=w)
    binned = BinnedTreeClassifier(max_depth=1).fit(X, y, sample_weight=w)
    X_test = np.random.RandomState(1).normal(size=(500, 5)) * 2
    assert binned.tree_feature_[0] == exact.tree_.feature[0]
    assert binned.tree_threshold_[0] == pytest.approx(exact.tree_.threshold[0])
    np.testing.assert_array_equal(binned.predict(X_test), exact.predict(X_test))
    np.testing.assert_allclose(binned.predict_proba(X), exact.predict_proba(X))


def _gini_gain(y, w, left):
    def impurity(mask):
        counts = np.bincount(y[mask], weights=w[mask], minlength=3)
        total = counts.sum()
        return total - (counts**2).sum() / total if total > 0 else 0.0

    return impurity(np.ones_like(left)) - impurity(left) - impurity(~left)


def test_every_split_is_the_best_split_of_its_node(global_random_seed):
    # Greedy optimality checked by brute force at each internal node (exact
    # trees break ties between equally good splits differently).
    X, y = make_classification(
        n_samples=150,
        n_features=4,
        n_informative=3,
        n_redundant=0,
        n_classes=3,
        random_state=global_random_seed,
    )
    w = np.random.RandomState(global_random_seed).exponential(size=150)
    clf = BinnedTreeClassifier(max_depth=3).fit(X, y, sample_weight=w)
    left, right = clf._children
    reach = {0: np.ones(150, dtype=bool)}
    n_checked = 0
    for node in range(clf.tree_feature_.shape[0]):
        feature = clf.tree_feature_[node]
        if feature < 0:
            continue
        rows = reach[node]
        goes_left = X[:, feature] <= clf.tree_threshold_[node]
        reach[left[node]], reach[right[node]] = rows & goes_left, rows & ~goes_left
        chosen = _gini_gain(y[rows], w[rows], goes_left[rows])
        best = max(
            _gini_gain(y[rows], w[rows], X[rows, j] <= value)
            for j in range(4)
            for value in np.unique(X[rows, j])[:-1]
        )
        assert chosen == pytest.approx(best, rel=1e-9)
        n_checked += 1
    assert n_checked >= 3


def test_zero_weight_rows_take_no_part(global_random_seed):
    X, y = make_classification(
        n_samples=300, n_classes=3, n_informative=4, random_state=global_random_seed
    )
    w = np.ones(300)
    w[::3] = 0.0
    with_zeros = BinnedTreeClassifier(max_depth=3, max_bins=16).fit(
        X, y, sample_weight=w
    )
    without = BinnedTreeClassifier(max_depth=3, max_bins=16).fit(X[w > 0], y[w > 0])
    np.testing.assert_array_equal(with_zeros.tree_feature_, without.tree_feature_)
    np.testing.assert_array_equal(with_zeros.tree_threshold_, without.tree_threshold_)
    np.testing.assert_array_equal(with_zeros.predict(X), without.predict(X))


def test_binned_and_raw_predictions_agree(global_random_seed):
    X, y = make_classification(n_samples=3000, random_state=global_random_seed)
    mapper = _BinMapper(max_bins=20, random_state=0).fit(X)
    clf = BinnedTreeClassifier(max_depth=4)
    clf.fit(X, y)
    codes = np.searchsorted(clf.classes_, y)
    clf._fit_binned(mapper.transform(X), codes, np.ones(3000), 2, mapper)
    np.testing.assert_array_equal(
        clf._predict_binned(mapper.transform(X)),
        np.searchsorted(clf.classes_, clf.predict(X)),
    )


def test_entropy_criterion_and_pure_node():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    clf = BinnedTreeClassifier(max_depth=3, criterion="entropy").fit(X, y)
    # One split at 1.5 separates the classes; pure children are not split again.
    assert clf.tree_feature_.tolist() == [0, -1, -1]
    assert clf.tree_threshold_[0] == 1.5
    np.testing.assert_array_equal(clf.predict(X), y)


def _with_missing(X, rate, seed):
    X = X.copy()
    X[np.random.RandomState(seed).rand(*X.shape) < rate] = np.nan
    return X


def test_missing_values_get_their_own_bin(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    X = _with_missing(rng.normal(size=(500, 2)), 0.2, global_random_seed)
    mapper = _BinMapper(max_bins=16, random_state=0).fit(X)
    binned = mapper.transform(X)
    for j in range(2):
        missing = np.isnan(X[:, j])
        assert (binned[missing, j] == mapper.n_bins_[j]).all()
        assert (binned[~missing, j] < mapper.n_bins_[j]).all()
        # Edges sit on the observed values only.
        assert np.isfinite(mapper.edges_[j]).all()


def test_a_split_can_send_missing_values_either_way():
    # Class 1 is exactly the rows whose feature 0 is missing: a stump finds it.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 2))
    y = (rng.rand(400) < 0.3).astype(int)
    X[y == 1, 0] = np.nan
    stump = BinnedTreeClassifier(max_depth=1).fit(X, y)
    assert stump.tree_feature_[0] == 0 and stump.tree_threshold_[0] == np.inf
    assert not stump.tree_missing_left_[0]
    np.testing.assert_array_equal(stump.predict(X), y)
    # The same with the classes swapped inside the observed range: missing
    # values join the low values on the left.
    X2 = np.c_[np.where(y == 1, np.nan, rng.normal(size=400)), rng.normal(size=400)]
    low = rng.rand(400) < 0.5
    X2[(y == 0) & low, 0] = -5.0
    y2 = np.where(np.isnan(X2[:, 0]) | (X2[:, 0] == -5.0), 1, 0)
    tree = BinnedTreeClassifier(max_depth=1).fit(X2, y2)
    assert tree.tree_missing_left_[0] and tree.tree_threshold_[0] < 0
    np.testing.assert_array_equal(tree.predict(X2), y2)


def test_missing_values_unseen_in_fit_follow_the_heavier_child():
    X = np.r_[np.zeros((30, 1)), np.ones((10, 1))]
    y = np.r_[np.zeros(30, int), np.ones(10, int)]
    stump = BinnedTreeClassifier(max_depth=1).fit(X, y)
    assert stump.tree_missing_left_[0]  # 30 rows went left
    assert stump.predict([[np.nan]])[0] == 0


def test_binned_and_raw_routes_agree_with_missing_values(global_random_seed):
    X, y = make_classification(
        n_samples=2000, n_classes=3, n_informative=4, random_state=global_random_seed
    )
    X = _with_missing(X, 0.15, global_random_seed)
    clf = BinnedTreeClassifier(max_depth=4, max_bins=32).fit(X, y)
    mapper = _BinMapper(max_bins=32, random_state=None).fit(X)
    X_new = _with_missing(
        np.random.RandomState(1).normal(size=(1000, X.shape[1])) * 2, 0.3, 1
    )
    np.testing.assert_array_equal(
        clf._predict_binned(mapper.transform(X_new)),
        np.searchsorted(clf.classes_, clf.predict(X_new)),
    )


def test_infinite_values_are_rejected():
    X = np.array([[0.0], [np.inf], [1.0]])
    with pytest.raises(ValueError, match="inf"):
        BinnedTreeClassifier().fit(X, [0, 1, 0])


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 300),
    d=st.integers(1, 6),
    n_classes=st.integers(1, 4),
    n_nodes=st.integers(1, 4),
    missing=st.sampled_from([0.0, 0.1, 0.6]),
    seed=st.integers(0, 2**31 - 1),
)
def test_small_gini_scan_is_the_general_one_to_the_bit(
    n, d, n_classes, n_nodes, missing, seed
):
    rng = np.random.RandomState(seed)
    X, y, w, node, n_bins = random_level(rng, n, d, n_classes, n_nodes, missing)
    hist = _histograms(X, y, w, node, n_nodes, int(n_bins.max()) + 1, n_classes)
    general = scan_every_node(hist, n_bins)
    # Three or four classes take the four-class scan (fewer: zeros beyond the
    # label's classes, which must change nothing), two the two-class one.
    for scan in ("gini4", "gini2") if n_classes == 2 else ("gini4",):
        fast = scan_every_node(hist, n_bins, scan)
        for a, b in zip(fast, general, strict=True):
            np.testing.assert_array_equal(a, b)  # bit for bit, not within a tolerance


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_small_gini_scan_finds_the_splits_of_the_general_one(n_classes):
    X, y = make_classification(
        400, 6, n_informative=4, n_classes=n_classes, random_state=0
    )
    mapper = _BinMapper(255, 0).fit(X)
    codes = mapper.transform(X)
    codes[::7, 2] = mapper.n_bins_[2]  # missing values in one column
    w = np.random.RandomState(0).exponential(size=400)
    node = np.arange(400) % 3
    hist = _histograms(codes, y.astype(np.intp), w, node, 3, 256, n_classes)
    fast = best_splits(hist, mapper.n_bins_, 0)
    assert (fast[0] >= 0).all()  # every node splits: the comparison is not vacuous
    general = scan_every_node(hist, mapper.n_bins_)
    for a, b in zip(fast, general, strict=True):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 400),
    d=st.integers(1, 5),
    n_classes=st.integers(1, 4),
    n_nodes=st.integers(1, 40),
    criterion=st.sampled_from([0, 1]),
    missing=st.sampled_from([0.0, 0.1, 0.6]),
    seed=st.integers(0, 2**31 - 1),
)
def test_level_splits_are_the_splits_of_the_level_histograms_to_the_bit(
    n, d, n_classes, n_nodes, criterion, missing, seed
):
    rng = np.random.RandomState(seed)
    X, y, w, node, n_bins = random_level(rng, n, d, n_classes, n_nodes, missing)
    hist = _histograms(X, y, w, node, n_nodes, int(n_bins.max()) + 1, n_classes)
    whole = best_splits(hist, n_bins, criterion)
    by_node = level_splits(X, y, w, node, n_nodes, n_bins, n_classes, criterion)
    for a, b in zip(whole, by_node, strict=True):
        np.testing.assert_array_equal(a, b)  # bit for bit, not within a tolerance


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 300),
    d=st.integers(1, 5),
    n_classes=st.integers(1, 4),
    n_nodes=st.integers(1, 4),
    criterion=st.sampled_from([0, 1]),
    missing=st.sampled_from([0.0, 0.1, 0.6]),
    seed=st.integers(0, 2**31 - 1),
)
def test_the_histograms_empty_bin_changes_no_split_and_no_root_value(
    n, d, n_classes, n_nodes, criterion, missing, seed
):
    # The trees' histograms carry an odd number of bins, one past the missing
    # bin where theirs is even (cache sets, histogram_bins): nothing lands
    # there, and nothing that reads them moves.
    rng = np.random.RandomState(seed)
    X, y, w, node, n_bins = random_level(rng, n, d, n_classes, n_nodes, missing)
    tight = _histograms(X, y, w, node, n_nodes, int(n_bins.max()) + 1, n_classes)
    padded = _histograms(X, y, w, node, n_nodes, histogram_bins(n_bins), n_classes)
    assert padded.shape[2] % 2 == 1
    assert padded.shape[2] - tight.shape[2] in (0, 1)
    assert not padded[:, :, tight.shape[2] :].any()
    for a, b in zip(
        best_splits(tight, n_bins, criterion),
        best_splits(padded, n_bins, criterion),
        strict=True,
    ):
        np.testing.assert_array_equal(a, b)  # bit for bit
    # The root's class weights (_grow_tree: feature 0's bins summed).
    np.testing.assert_array_equal(tight[0, 0].sum(axis=0), padded[0, 0].sum(axis=0))


@pytest.mark.parametrize("n_classes", [2, 5])
@pytest.mark.parametrize("n_nodes", [1, 300])
def test_level_splits_node_by_node_and_all_at_once_agree(n_classes, n_nodes):
    # 4,000 rows: one node takes the level's histograms at once, 300 nodes
    # (300 * 256 * K cells, more than twice the rows) one node at a time.
    rng = np.random.RandomState(n_classes + n_nodes)
    X = rng.randint(0, 256, size=(4000, 6)).astype(np.uint8)  # bin 255: missing
    n_bins = np.full(6, 255, dtype=np.intp)
    y = rng.randint(0, n_classes, size=4000).astype(np.intp)
    w = rng.exponential(size=4000) * (rng.rand(4000) > 0.1)
    node = rng.randint(0, n_nodes, size=4000).astype(np.intp)
    hist = _histograms(X, y, w, node, n_nodes, 256, n_classes)
    whole = best_splits(hist, n_bins, 0)
    by_node = level_splits(X, y, w, node, n_nodes, n_bins, n_classes, 0)
    assert (whole[0] >= 0).sum() >= min(n_nodes, 200)  # not vacuous
    for a, b in zip(whole, by_node, strict=True):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=200, deadline=None)
@given(
    n_classes=st.integers(1, 12),
    seed=st.integers(0, 2**31 - 1),
    zeros=st.sampled_from([0.0, 0.3, 0.8]),
)
def test_ginis_gain_in_one_loop_is_the_impurities_difference_to_the_bit(
    n_classes, seed, zeros
):
    # _split_gain reads Gini's three sums in one loop; each must add in the
    # order of _weighted_impurity's, so the gain is the same to the bit.
    rng = np.random.RandomState(seed)
    total = rng.exponential(size=n_classes) * (rng.rand(n_classes) > zeros)
    left = total * rng.choice([0.0, rng.rand(), 1.0], size=n_classes)
    w_left, w_total = 0.0, 0.0
    for k in range(n_classes):
        w_left += left[k]
        w_total += total[k]
    parent = _weighted_impurity(total, w_total, 0)
    right = np.empty(n_classes)
    gain = _split_gain(parent, left, w_left, total, right, 0)
    expected_right = np.maximum(total - left, 0.0)
    w_right = 0.0
    for k in range(n_classes):
        w_right += expected_right[k]
    if w_left <= 0.0 or w_right <= 0.0:
        assert gain == -1.0
        return
    expected = parent - _weighted_impurity(left, w_left, 0)
    expected -= _weighted_impurity(expected_right, w_right, 0)
    assert gain == expected  # bit for bit, not within a tolerance
    np.testing.assert_array_equal(right, expected_right)


@pytest.mark.parametrize("n_classes", [2, 5])
@pytest.mark.parametrize("n_nodes", [1, 7])
def test_a_wide_levels_splits_found_a_block_of_features_at_a_time_are_the_same(
    n_classes, n_nodes
):
    # 300 features of 255 value bins: a node's histograms are filled a block
    # of features at a time (_BLOCK_CELLS), the best split carried from
    # block to block; the label follows late features, so the best splits
    # lie past the first block.
    rng = np.random.RandomState(n_classes * 100 + n_nodes)
    n, d = 150, 300
    X = rng.randint(0, 255, size=(n, d)).astype(np.uint8)
    X[rng.rand(n, d) < 0.1] = 255  # each feature's missing bin
    n_bins = np.full(d, 255, dtype=np.intp)
    y = ((X[:, 250] // 64 + X[:, 290] // 128) % n_classes).astype(np.intp)
    w = rng.exponential(size=n) * (rng.rand(n) > 0.1)
    node = rng.randint(0, n_nodes, size=n).astype(np.intp)
    cells = histogram_bins(n_bins) * n_classes
    assert n_nodes * cells > 2 * n  # the node-by-node path
    assert _BLOCK_CELLS // cells < d  # more than one block
    hist = _histograms(X, y, w, node, n_nodes, histogram_bins(n_bins), n_classes)
    for criterion in (0, 1):
        whole = best_splits(hist, n_bins, criterion)
        blocked = level_splits(X, y, w, node, n_nodes, n_bins, n_classes, criterion)
        assert (whole[0] >= _BLOCK_CELLS // cells).any()  # not vacuous
        for a, b in zip(whole, blocked, strict=True):
            np.testing.assert_array_equal(a, b)  # bit for bit


@pytest.mark.parametrize("n_classes", [2, 3, 5])  # each scan: gini2, gini4, any
def test_a_wide_levels_splits_are_the_same_where_features_differ_in_their_bins(
    n_classes,
):
    # Features of 3 to 255 value bins, each with missing values: a block's
    # slot holds features of other bin counts from block to block, so the
    # bin one feature's missing values fill is a value bin of the next
    # feature in that slot (the marks of the bins a node's rows occupy must
    # not carry over from one to the other).
    rng = np.random.RandomState(n_classes)
    n, d = 400, 300
    n_bins = 3 + (np.arange(d) * 37) % 253
    X = (rng.rand(n, d) * n_bins).astype(np.uint8)
    X = np.where(rng.rand(n, d) < 0.2, n_bins, X).astype(np.uint8)  # missing
    y = rng.randint(0, n_classes, size=n).astype(np.intp)
    w = rng.exponential(size=n)
    node = rng.randint(0, 9, size=n).astype(np.intp)
    n_bins = n_bins.astype(np.intp)
    cells = histogram_bins(n_bins) * n_classes
    assert 9 * cells > 2 * n  # the node-by-node path
    assert _BLOCK_CELLS // cells < d  # more than one block
    hist = _histograms(X, y, w, node, 9, histogram_bins(n_bins), n_classes)
    for criterion in (0, 1):
        whole = best_splits(hist, n_bins, criterion)
        blocked = level_splits(X, y, w, node, 9, n_bins, n_classes, criterion)
        for a, b in zip(whole, blocked, strict=True):
            np.testing.assert_array_equal(a, b)  # bit for bit


def grown_in_python(X, y, w, n_classes, n_bins, max_depth, criterion):
    """A tree grown level by level in plain Python from the same split search:
    the reference of the compiled level loop (``grow_nodes``)."""
    hist = _histograms(X, y, w, np.zeros(len(y), np.intp), 1, 256, n_classes)
    root = np.zeros(n_classes)
    for b in range(hist.shape[2]):  # feature 0's bins, in order
        root += hist[0, 0, b]
    nodes = [[-1, 0, False, -1, -1, root]]  # feature, bin, to_left, left, right
    node_of_row, level = np.zeros(len(y), np.intp), [0]
    for _ in range(max_depth):
        feat, bins, to_left, _, lval, rval = level_splits(
            X, y, w, node_of_row, len(level), n_bins, n_classes, criterion
        )
        next_level, child_of = [], {}
        for local, node in enumerate(level):
            if feat[local] >= 0:
                children = [len(nodes), len(nodes) + 1]
                nodes[node][:5] = [feat[local], bins[local], to_left[local], *children]
                for side, value in enumerate((lval[local], rval[local])):
                    child_of[local, side] = len(next_level)
                    next_level.append(len(nodes))
                    nodes.append([-1, 0, False, -1, -1, value.copy()])
        for i in range(len(y)):
            local = node_of_row[i]
            if local < 0:
                continue
            if feat[local] < 0:
                node_of_row[i] = -1
                continue
            j = feat[local]
            left = to_left[local] if X[i, j] == n_bins[j] else X[i, j] <= bins[local]
            node_of_row[i] = child_of[local, 0 if left else 1]
        if not next_level:
            break
        level = next_level
    columns = list(zip(*nodes, strict=True))
    return [np.array(c) for c in columns[:5]] + [np.array(columns[5])]


@pytest.mark.parametrize("n_classes", [2, 3, 7])
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("max_depth", [1, 3, 6, 32])
def test_the_compiled_level_loop_grows_the_python_reference_tree(
    n_classes, missing, max_depth
):
    rng = np.random.RandomState(n_classes * 10 + max_depth + missing)
    n = 400
    X = rng.randint(0, 21, size=(n, 5)).astype(np.uint8)  # 20 value bins
    if missing:
        X[rng.rand(n, 5) < 0.15] = 20  # each feature's missing bin
    else:
        X[X == 20] = 19
    n_bins = np.full(5, 20, dtype=np.intp)
    y = ((X[:, 0] + X[:, 1] // 4 + rng.randint(0, 3, n)) % n_classes).astype(np.intp)
    w = rng.exponential(size=n) * (rng.rand(n) > 0.2)
    w /= w.sum()
    criterion = max_depth % 2  # gini and entropy
    grown = grow_nodes(X, y, w, n_classes, n_bins, max_depth, criterion)
    reference = grown_in_python(X, y, w, n_classes, n_bins, max_depth, criterion)
    assert (grown[0] >= 0).sum() >= min(3, 2**max_depth - 1)  # not vacuous
    assert grown[0].shape[0] <= 2 * n - 1  # a leaf per row at most
    for a, b in zip(grown, reference, strict=True):
        np.testing.assert_array_equal(a, b.astype(a.dtype))  # bit for bit
