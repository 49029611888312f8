"""The split search of the binned trees: histograms, best split per node.

Compiled with numba. For every node of a level and every feature,
:func:`best_splits` scans the weighted class histograms over the bins
(:mod:`labelclean.ensemble._binned`) and returns the split of highest
impurity decrease (Gini or entropy), with the side the missing values go to
(the scan itself, impurity and gain: :mod:`labelclean.ensemble._scan`).
:func:`_histograms` builds those histograms for a level in one pass over the
rows. :func:`level_splits` finds the same splits, to the bit, from the rows:
on a deep level of many small nodes (and on a wide table's root) it builds
one node's histogram at a time, a block of features at a time, in a buffer
that stays in cache and scans only the bins the node's rows occupy, so the
level costs in proportion to its rows, not to nodes × bins.
:func:`grow_nodes` grows a whole tree from them, level by level, sending each
row to its child (:func:`_route`) between levels.
"""

import numpy as np

from labelclean.ensemble._scan import (
    _copy_row,
    _gini2,
    _gini4,
    _node_total_any,
    _node_total_gini2,
    _node_total_gini4,
    _scan_feature_any,
    _scan_feature_gini2,
    _scan_feature_gini4,
    _scan_node,
    _splits_out,
    _weighted_impurity,
)
from labelclean.utils._compiled import compiled

__all__ = ["best_splits", "grow_nodes", "histogram_bins", "level_splits"]


@compiled(nogil=True)
def histogram_bins(n_bins_per_feature):
    """Bins per feature of the histogram arrays: the widest feature's value
    bins and its missing bin, plus one that stays empty where that count is
    even.

    An odd count keeps a feature's histogram (bins × classes × 8 bytes) off
    the multiples of large powers of two. At 256 bins and two classes it is
    4 KiB exactly, and then bin b of every feature falls in the same set of
    the L1 cache: a row of one-hot columns (bin 0 or 1 in nearly every
    feature) writes that one set for every feature, each write evicting an
    earlier one. With an odd count the same bin of successive features steps
    through the sets (docs/boosting.md, *One empty bin*). No split reads the
    empty bin, so every split is the same to the bit."""
    widest = 0
    for b in n_bins_per_feature:  # a loop: np.max compiles for a second
        widest = max(widest, b)
    n_bins = widest + 1
    return n_bins + 1 - n_bins % 2


@compiled(nogil=True)
def _histograms(X_binned, y, weight, node_of_row, n_nodes, n_bins, n_classes):
    """Weighted class histograms ``hist[node, feature, bin, class]``.

    Rows with zero weight or ``node_of_row < 0`` (already in a leaf) are
    skipped, so they cost nothing and contribute nothing.
    """
    n_samples, n_features = X_binned.shape
    hist = np.zeros((n_nodes, n_features, n_bins, n_classes))
    for i in range(n_samples):
        w = weight[i]
        node = node_of_row[i]
        if w == 0.0 or node < 0:
            continue
        c = y[i]
        for j in range(n_features):
            hist[node, j, X_binned[i, j], c] += w
    return hist


@compiled(nogil=True)
def best_splits(hist, n_bins_per_feature, criterion):
    """Best split of every node: feature, bin, gain, the child class weights,
    and the side missing values go to.

    ``hist[node, feature, bin, class]`` holds the weighted class histograms;
    bin ``n_bins_per_feature[j]`` of feature j holds its missing values. Each
    threshold is tried with them on the right and, when the node has any, on
    the left; "every value left, missing right" is a candidate too. Without
    missing values at the node they follow the child with more weight. Gini
    with two classes (every weak learner on a two-class label), and with
    three or four, takes a scan on scalars that gives the same result to the
    bit (:func:`_scan_node_gini2`, :func:`_scan_node_gini4`).
    """
    n_nodes, n_features, n_bins, n_classes = hist.shape
    out = _splits_out(n_nodes, n_classes)
    occ = np.empty((n_features, n_bins), dtype=np.intp)
    n_occ = np.empty(n_features, dtype=np.intp)
    for j in range(n_features):  # every value bin, in order
        n_occ[j] = n_bins_per_feature[j]
        for b in range(n_bins_per_feature[j]):
            occ[j, b] = b
    scratch = np.zeros((5, n_classes))
    for node in range(n_nodes):
        _scan_node(
            hist[node], occ, n_occ, n_bins_per_feature, criterion, node, out, scratch
        )
    return out


@compiled(nogil=True)
def level_splits(
    X_binned, y, weight, node_of_row, n_nodes, n_bins_per_feature, n_classes, criterion
):
    """``best_splits(_histograms(...))`` to the bit, one node at a time when
    the level's histograms would hold more than twice as many cells per
    feature (nodes × bins × classes) as it has rows with weight: a deep
    level of many small nodes. The factor 2 only moves the speed (either
    path gives the same splits); it is where the two paths took about as
    long on 90,000 rows of two and five classes.

    Each node's rows (those with weight, in row order, so every histogram
    cell adds the same weights in the same order) fill a histogram buffer of
    one node, a block of features at a time (:data:`_BLOCK_CELLS`); the scan
    visits only the value bins they occupy, in order (an empty bin changes
    no sum and is skipped by the full scan too), carries the best split from
    block to block in feature order, and clears the bins after.
    """
    n_samples, n_features = X_binned.shape
    n_bins = histogram_bins(n_bins_per_feature)
    start = np.zeros(n_nodes + 1, dtype=np.intp)  # a stable counting sort
    for i in range(n_samples):
        if weight[i] != 0.0 and node_of_row[i] >= 0:
            start[node_of_row[i] + 1] += 1
    for node in range(n_nodes):
        start[node + 1] += start[node]
    if n_nodes * n_bins * n_classes <= 2 * start[n_nodes]:  # few cells: all at once
        hist = _histograms(X_binned, y, weight, node_of_row, n_nodes, n_bins, n_classes)
        return best_splits(hist, n_bins_per_feature, criterion)
    order = np.empty(start[n_nodes], dtype=np.intp)
    fill = start[:n_nodes].copy()
    for i in range(n_samples):
        node = node_of_row[i]
        if weight[i] != 0.0 and node >= 0:
            order[fill[node]] = i
            fill[node] += 1
    # A block of features at a time: its histograms stay in the L2 cache.
    block = max(1, min(n_features, _BLOCK_CELLS // (n_bins * n_classes)))
    hist = np.zeros((block, n_bins, n_classes))
    seen = np.zeros((block, n_bins), dtype=np.bool_)
    occ = np.empty((block, n_bins), dtype=np.intp)
    n_occ = np.zeros(block, dtype=np.intp)
    out = _splits_out(n_nodes, n_classes)
    scratch = np.zeros((5, n_classes))
    for node in range(n_nodes):
        rows = order[start[node] : start[node + 1]]
        if rows.shape[0] > 0:  # no rows, no weight: no split (_scan_node)
            _node_split(
                X_binned, y, weight, rows, n_bins_per_feature, criterion, node,
                out, hist, seen, occ, n_occ, scratch,
            )  # fmt: skip
    return out


@compiled(nogil=True)
def _node_split(
    X_binned, y, weight, rows, n_bins_per_feature, criterion, node, out, hist,
    seen, occ, n_occ, scratch,
):  # fmt: skip
    """:func:`level_splits`' best split of one node from its ``rows``, a
    block of features (``hist.shape[0]``) at a time, into ``out``."""
    n_features = X_binned.shape[1]
    block = hist.shape[0]
    two = hist.shape[2] == 2 and criterion == 0
    small = 3 <= hist.shape[2] <= 4 and criterion == 0
    t0 = t1 = t2 = t3 = weight_node = parent = best = 0.0
    for j0 in range(0, n_features, block):
        j1 = min(j0 + block, n_features)
        for i in rows:
            c, w = y[i], weight[i]
            for j in range(j0, j1):
                k = j - j0
                b = X_binned[i, j]
                hist[k, b, c] += w
                # A value bin's first row lists it, without a branch: on a
                # node of a hundred rows a first visit is a coin toss, which
                # a branch mispredicts (the missing bin, marked too, is
                # written at the list's end without moving it).
                occ[k, n_occ[k]] = b
                n_occ[k] += (b < n_bins_per_feature[j]) & (not seen[k, b])
                seen[k, b] = True
        for j in range(j0, j1):
            _in_order(occ[j - j0], n_occ[j - j0], seen[j - j0], n_bins_per_feature[j])
        if j0 == 0:  # the node's class weights, from feature 0
            if two:
                t0, t1, weight_node = _node_total_gini2(
                    hist[0], occ[0], n_occ[0], n_bins_per_feature[0]
                )
                parent = _gini2(t0, t1, weight_node)
            elif small:
                (t0, t1, t2, t3), weight_node = _node_total_gini4(
                    hist[0], occ[0], n_occ[0], n_bins_per_feature[0]
                )
                parent = _gini4(t0, t1, t2, t3, weight_node)
            else:
                weight_node = _node_total_any(
                    hist[0], occ[0], n_occ[0], n_bins_per_feature[0], scratch
                )
                parent = _weighted_impurity(scratch[0], weight_node, criterion)
            best = 1e-12 * weight_node  # as _scan_node's
        for j in range(j0, j1):
            if weight_node <= 0.0:
                break
            k = j - j0
            if two:
                best = _scan_feature_gini2(
                    hist[k], occ[k], n_occ[k], n_bins_per_feature[j], j, node, out,
                    t0, t1, weight_node, parent, best,
                )  # fmt: skip
            elif small:
                best = _scan_feature_gini4(
                    hist[k], occ[k], n_occ[k], n_bins_per_feature[j], j, node, out,
                    (t0, t1, t2, t3), weight_node, parent, best,
                )  # fmt: skip
            else:
                best = _scan_feature_any(
                    hist[k], occ[k], n_occ[k], n_bins_per_feature[j], j, criterion,
                    node, out, scratch, parent, weight_node, best,
                )  # fmt: skip
        for j in range(j0, j1):  # clear what the rows wrote
            for t in range(n_occ[j - j0]):
                hist[j - j0, occ[j - j0, t], :] = 0.0
                seen[j - j0, occ[j - j0, t]] = False
            hist[j - j0, n_bins_per_feature[j], :] = 0.0
            seen[j - j0, n_bins_per_feature[j]] = False
            n_occ[j - j0] = 0


#: Histogram cells (bins × classes, 8 bytes each) of the features that
#: :func:`level_splits` fills at once from a node's rows: 256 KiB, within
#: the L2 cache. All features at once (a row's codes read together) is as
#: fast where they fit; a wide table's (1,460 features of 200 bins and ten
#: classes: 24 MB) missed the cache at every row's write.
_BLOCK_CELLS = 32_768


@compiled(nogil=True)
def _in_order(occ, n_occ, seen, n_value_bins):
    """Sort the first ``n_occ`` occupied bins: read off the marks when they
    are many, sort them when they are few.

    The marks are read without a branch (every bin written at the list's
    end, which moves on only past a marked one): on a node of a hundred
    rows half the bins are marked at random, and a branch on each
    mispredicted often enough to take a third of the node's time (ad hoc;
    docs/boosting.md, *Three and four classes on scalars, and a node's bins
    without a branch*)."""
    if n_occ < 2:
        return
    if 16 * n_occ >= n_value_bins:
        t = 0
        for b in range(n_value_bins):
            occ[t] = b  # t <= n_occ < occ.shape[0]
            t += seen[b]
    else:  # fewer than 16 bins: insertion (np.sort compiles for seconds)
        for t in range(1, n_occ):
            b = occ[t]
            u = t
            while u > 0 and occ[u - 1] > b:
                occ[u] = occ[u - 1]
                u -= 1
            occ[u] = b


@compiled(nogil=True)
def _goes_left(code, f, node, split_bin, missing_left, missing_bin):
    """Whether a row with bin ``code`` of feature ``f`` goes left at ``node``."""
    if code == missing_bin[f]:
        return missing_left[node]
    return code <= split_bin[node]


@compiled(nogil=True)
def _route(
    X_binned, node_of_row, feature, split_bin, missing_left, missing_bin, child_of
):
    """Send each row of a split node to its child's index on the next level."""
    for i in range(X_binned.shape[0]):
        node = node_of_row[i]
        if node < 0:
            continue
        f = feature[node]
        if f < 0:
            node_of_row[i] = -1
        elif _goes_left(X_binned[i, f], f, node, split_bin, missing_left, missing_bin):
            node_of_row[i] = child_of[node, 0]
        else:
            node_of_row[i] = child_of[node, 1]


@compiled(nogil=True)
def _root_value(X_binned, y, weight, n_bins, value):
    """The root's class weights into ``value``: feature 0's histogram, its
    bins summed in order (rows with weight 0 left out), as the splits'
    histograms hold them."""
    hist = np.zeros((n_bins, value.shape[0]))
    for i in range(X_binned.shape[0]):
        if weight[i] != 0.0:
            hist[X_binned[i, 0], y[i]] += weight[i]
    for b in range(n_bins):
        for k in range(value.shape[0]):
            value[k] += hist[b, k]


@compiled(nogil=True)
def grow_nodes(X_binned, y, weight, n_classes, n_bins, max_depth, criterion):
    """Grow a tree level by level: its node arrays, node values unnormalised.

    Nodes are numbered as they are made: the root 0, then each split node's
    left and right child in the order of the level's nodes. A split leaves
    weight on both sides, so a tree has at most one leaf per row: the node
    arrays hold the fewer of a full tree's nodes and twice the rows'.
    """
    most = min(2 ** (max_depth + 1) - 1, 2 * X_binned.shape[0] + 1)
    feature = np.full(most, -1, dtype=np.intp)
    split_bin = np.zeros(most, dtype=np.intp)
    to_left = np.zeros(most, dtype=np.bool_)
    left = np.full(most, -1, dtype=np.intp)
    right = np.full(most, -1, dtype=np.intp)
    value = np.zeros((most, n_classes))
    n_nodes = 1
    node_of_row = np.zeros(X_binned.shape[0], dtype=np.intp)
    level = np.zeros(1, dtype=np.intp)  # this level's node ids, in local order
    n_bins_max = histogram_bins(n_bins)  # value bins, missing bin, (empty)
    _root_value(X_binned, y, weight, n_bins_max, value[0])
    for depth in range(max_depth):
        splits = level_splits(
            X_binned, y, weight, node_of_row, level.shape[0], n_bins, n_classes,
            criterion,
        )  # fmt: skip
        feat, bins, miss_left, _, left_value, right_value = splits
        child_of = np.full((level.shape[0], 2), -1, dtype=np.intp)
        next_level = np.empty(2 * level.shape[0], dtype=np.intp)
        n_next = 0
        for local in range(level.shape[0]):
            if feat[local] < 0:
                continue
            node = level[local]
            feature[node] = feat[local]
            split_bin[node] = bins[local]
            to_left[node] = miss_left[local]
            left[node], right[node] = n_nodes, n_nodes + 1
            _copy_row(value, n_nodes, left_value[local])
            _copy_row(value, n_nodes + 1, right_value[local])
            child_of[local, 0], child_of[local, 1] = n_next, n_next + 1
            next_level[n_next], next_level[n_next + 1] = n_nodes, n_nodes + 1
            n_next += 2
            n_nodes += 2
        if n_next == 0:
            break
        if depth + 1 < max_depth:
            _route(X_binned, node_of_row, feat, bins, miss_left, n_bins, child_of)
        level = next_level[:n_next]
    return (
        feature[:n_nodes].copy(),
        split_bin[:n_nodes].copy(),
        to_left[:n_nodes].copy(),
        left[:n_nodes].copy(),
        right[:n_nodes].copy(),
        value[:n_nodes].copy(),
    )
