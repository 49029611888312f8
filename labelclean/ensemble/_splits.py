"""The split search of the binned trees: impurity, gain, best split per node.

Compiled with numba. For every node of a level and every feature,
:func:`best_splits` scans the weighted class histograms over the bins
(:mod:`labelclean.ensemble._binned`) and returns the split of highest
impurity decrease (Gini or entropy), with the side the missing values go to.
:func:`_histograms` builds those histograms for a level in one pass over the
rows. :func:`level_splits` finds the same splits, to the bit, from the rows:
on a deep level of many small nodes it builds one node's histogram at a time
in a buffer that stays in cache and scans only the bins the node's rows
occupy, so the level costs in proportion to its rows, not to nodes × bins.
:func:`grow_nodes` grows a whole tree from them, level by level, sending each
row to its child (:func:`_route`) between levels.
"""

import numpy as np

from labelclean.utils._compiled import compiled

__all__ = ["best_splits", "grow_nodes", "histogram_bins", "level_splits"]


@compiled(nogil=True, inline="always")
def _weighted_impurity(counts, total, criterion):
    """``total * impurity`` of a node with class weights ``counts`` summing to
    ``total``."""
    if total <= 0.0:
        return 0.0
    if criterion == 0:  # gini
        sq = 0.0
        for c in counts:
            sq += c * c
        return total - sq / total
    ent = 0.0  # entropy, in nats
    for c in counts:
        if c > 0.0:
            ent -= c * np.log(c / total)
    return ent


@compiled(nogil=True, inline="always")
def _split_gain(parent, left, w_left, total, right, criterion):
    """Impurity decrease of a split whose left child holds ``left``.

    For Gini the right child's weights and both children's sums of squares
    are read in one loop: three chains of additions, each in the order of
    :func:`_weighted_impurity`'s (so the same gain to the bit), that the
    processor runs side by side instead of one after another."""
    w_right = 0.0
    if criterion == 0:
        sq_left = 0.0
        sq_right = 0.0
        for k in range(total.shape[0]):
            r = total[k] - left[k]
            r = r if r > 0.0 else 0.0
            right[k] = r
            w_right += r
            sq_left += left[k] * left[k]
            sq_right += r * r
        if w_left <= 0.0 or w_right <= 0.0:
            return -1.0
        g = parent - (w_left - sq_left / w_left)
        return g - (w_right - sq_right / w_right)
    for k in range(total.shape[0]):
        r = total[k] - left[k]
        right[k] = r if r > 0.0 else 0.0
        w_right += right[k]
    if w_left <= 0.0 or w_right <= 0.0:
        return -1.0
    g = parent - _weighted_impurity(left, w_left, criterion)
    return g - _weighted_impurity(right, w_right, criterion)


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
    missing values at the node they follow the child with more weight. Two
    classes with Gini (every weak learner on a two-class label) take a scan on
    scalars that gives the same result to the bit (:func:`_scan_node_gini2`).
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
    t0 = t1 = weight_node = parent = best = 0.0
    for j0 in range(0, n_features, block):
        j1 = min(j0 + block, n_features)
        for i in rows:
            c, w = y[i], weight[i]
            for j in range(j0, j1):
                b = X_binned[i, j]
                hist[j - j0, b, c] += w
                if b < n_bins_per_feature[j] and not seen[j - j0, b]:
                    seen[j - j0, b] = True
                    occ[j - j0, n_occ[j - j0]] = b
                    n_occ[j - j0] += 1
        for j in range(j0, j1):
            _in_order(occ[j - j0], n_occ[j - j0], seen[j - j0], n_bins_per_feature[j])
        if j0 == 0:  # the node's class weights, from feature 0
            if two:
                t0, t1, weight_node = _node_total_gini2(
                    hist[0], occ[0], n_occ[0], n_bins_per_feature[0]
                )
                parent = _gini2(t0, t1, weight_node)
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
    are many, sort them when they are few."""
    if n_occ < 2:
        return
    if 16 * n_occ >= n_value_bins:
        t = 0
        for b in range(n_value_bins):
            if seen[b]:
                occ[t] = b
                t += 1
    else:  # fewer than 16 bins: insertion (np.sort compiles for seconds)
        for t in range(1, n_occ):
            b = occ[t]
            u = t
            while u > 0 and occ[u - 1] > b:
                occ[u] = occ[u - 1]
                u -= 1
            occ[u] = b


@compiled(nogil=True, inline="always")
def _copy_row(dest, row, values):
    """``dest[row] = values``, element by element: an array assigned to a
    slice compiles numba's shape-mismatch message, seconds of a cold start
    (docs/boosting.md, *Compiled once*)."""
    for k in range(values.shape[0]):
        dest[row, k] = values[k]


@compiled(nogil=True)
def _splits_out(n_nodes, n_classes):
    """feature, bin, missing-left, gain, left and right class weights per node."""
    return (
        np.full(n_nodes, -1, dtype=np.intp),
        np.zeros(n_nodes, dtype=np.intp),
        np.zeros(n_nodes, dtype=np.bool_),
        np.zeros(n_nodes),
        np.zeros((n_nodes, n_classes)),
        np.zeros((n_nodes, n_classes)),
    )


@compiled(nogil=True)
def _scan_node(h, occ, n_occ, n_bins_per_feature, criterion, node, out, scratch):
    """Write the best split of ``node``, histogram ``h[feature, bin, class]``
    with its value bins ``occ[j, :n_occ[j]]`` in order, into ``out``."""
    if h.shape[2] == 2 and criterion == 0:
        _scan_node_gini2(h, occ, n_occ, n_bins_per_feature, node, out)
    else:
        _scan_node_any(h, occ, n_occ, n_bins_per_feature, criterion, node, out, scratch)


@compiled(nogil=True)
def _scan_node_any(h, occ, n_occ, n_bins_per_feature, criterion, node, out, scratch):
    """:func:`_scan_node` for any number of classes and either criterion."""
    weight = _node_total_any(h[0], occ[0], n_occ[0], n_bins_per_feature[0], scratch)
    if weight <= 0.0:
        return
    parent = _weighted_impurity(scratch[0], weight, criterion)
    best = 1e-12 * weight  # a split must beat the parent by more than rounding
    for j in range(h.shape[0]):
        best = _scan_feature_any(
            h[j], occ[j], n_occ[j], n_bins_per_feature[j], j, criterion, node, out,
            scratch, parent, weight, best,
        )  # fmt: skip


@compiled(nogil=True)
def _node_total_any(h0, occ0, n_occ0, n_value_bins0, scratch):
    """The node's weight per class into ``scratch[0]``, read off feature 0's
    histogram ``h0[bin, class]`` (its value bins in order, then its missing
    bin); returns their sum."""
    total = scratch[0]
    n_classes = total.shape[0]
    total[:] = 0.0
    for t in range(n_occ0):
        for k in range(n_classes):
            total[k] += h0[occ0[t], k]
    for k in range(n_classes):
        total[k] += h0[n_value_bins0, k]
    weight = 0.0
    for k in range(n_classes):
        weight += total[k]
    return weight


@compiled(nogil=True)
def _scan_feature_any(
    hj, occj, n_occj, n_value_bins, j, criterion, node, out, scratch, parent, weight,
    best,
):  # fmt: skip
    """Scan feature ``j``'s histogram ``hj[bin, class]`` (value bins
    ``occj[:n_occj]`` in order) for a split of ``node`` beating ``best``,
    the node's class weights in ``scratch[0]``; write it into ``out`` and
    return the best gain so far."""
    feature, split_bin, missing_left, gain, left_value, right_value = out
    n_classes = hj.shape[1]
    total, left, with_missing, right, missing = (
        scratch[0], scratch[1], scratch[2], scratch[3], scratch[4],
    )  # fmt: skip
    w_missing = 0.0
    for k in range(n_classes):
        missing[k] = hj[n_value_bins, k]
        w_missing += missing[k]
    left[:] = 0.0
    w_left = 0.0
    last = n_value_bins if w_missing > 0.0 else n_value_bins - 1
    for t in range(n_occj):
        b = occj[t]
        if b >= last:
            break
        added = 0.0
        for k in range(n_classes):
            v = hj[b, k]
            left[k] += v
            added += v
        if added == 0.0:
            continue  # same partition as the previous bin
        w_left += added
        # Missing rows right (side 0) and, when there are any and
        # some value goes right, left (side 1).
        sides = 2 if w_missing > 0.0 and b < n_value_bins - 1 else 1
        for side in range(sides):
            child = left
            w_child = w_left
            if side == 1:
                for k in range(n_classes):
                    with_missing[k] = left[k] + missing[k]
                child = with_missing
                w_child = w_left + w_missing
            g = _split_gain(parent, child, w_child, total, right, criterion)
            if g > best:
                best = g
                feature[node] = j
                split_bin[node] = b
                gain[node] = g
                _copy_row(left_value, node, child)
                _copy_row(right_value, node, right)
                missing_left[node] = side == 1 or (
                    w_missing == 0.0 and w_left >= weight - w_left
                )
    return best


@compiled(nogil=True)
def _gini2(c0, c1, w):
    """``_weighted_impurity`` for two classes and Gini, on scalars (the same
    operations in the same order)."""
    if w <= 0.0:
        return 0.0
    sq = 0.0
    sq += c0 * c0
    sq += c1 * c1
    return w - sq / w


@compiled(nogil=True)
def _scan_node_gini2(h, occ, n_occ, n_bins_per_feature, node, out):
    """:func:`_scan_node_any` for two classes and Gini: the same candidates
    in the same order and the same operations, on scalars instead of small
    arrays (benchmarks/RESULTS.md, ``fit-cost-wide-gini2``), so the same
    splits to the last bit
    (``test_two_class_gini_scan_is_the_general_one_to_the_bit``)."""
    t0, t1, weight = _node_total_gini2(h[0], occ[0], n_occ[0], n_bins_per_feature[0])
    if weight <= 0.0:
        return
    parent = _gini2(t0, t1, weight)
    best = 1e-12 * weight
    for j in range(h.shape[0]):
        best = _scan_feature_gini2(
            h[j], occ[j], n_occ[j], n_bins_per_feature[j], j, node, out, t0, t1,
            weight, parent, best,
        )  # fmt: skip


@compiled(nogil=True)
def _node_total_gini2(h0, occ0, n_occ0, n_value_bins0):
    """:func:`_node_total_any` for two classes, on scalars: both classes'
    weights and their sum."""
    t0 = 0.0
    t1 = 0.0
    for t in range(n_occ0):
        t0 += h0[occ0[t], 0]
        t1 += h0[occ0[t], 1]
    t0 += h0[n_value_bins0, 0]
    t1 += h0[n_value_bins0, 1]
    weight = 0.0
    weight += t0
    weight += t1
    return t0, t1, weight


@compiled(nogil=True)
def _scan_feature_gini2(
    hj, occj, n_occj, n_value_bins, j, node, out, t0, t1, weight, parent, best
):
    """:func:`_scan_feature_any` for two classes and Gini, on scalars."""
    feature, split_bin, missing_left, gain, left_value, right_value = out
    m0 = hj[n_value_bins, 0]
    m1 = hj[n_value_bins, 1]
    w_missing = 0.0
    w_missing += m0
    w_missing += m1
    l0 = 0.0
    l1 = 0.0
    w_left = 0.0
    last = n_value_bins if w_missing > 0.0 else n_value_bins - 1
    for t in range(n_occj):
        b = occj[t]
        if b >= last:
            break
        h0 = hj[b, 0]
        h1 = hj[b, 1]
        l0 += h0
        l1 += h1
        added = 0.0
        added += h0
        added += h1
        if added == 0.0:
            continue
        w_left += added
        sides = 2 if w_missing > 0.0 and b < n_value_bins - 1 else 1
        for side in range(sides):
            c0 = l0
            c1 = l1
            w_child = w_left
            if side == 1:
                c0 = l0 + m0
                c1 = l1 + m1
                w_child = w_left + w_missing
            r0 = t0 - c0
            r0 = r0 if r0 > 0.0 else 0.0
            r1 = t1 - c1
            r1 = r1 if r1 > 0.0 else 0.0
            w_right = 0.0
            w_right += r0
            w_right += r1
            if w_child <= 0.0 or w_right <= 0.0:
                g = -1.0
            else:
                g = parent - _gini2(c0, c1, w_child)
                g = g - _gini2(r0, r1, w_right)
            if g > best:
                best = g
                feature[node] = j
                split_bin[node] = b
                gain[node] = g
                left_value[node, 0] = c0
                left_value[node, 1] = c1
                right_value[node, 0] = r0
                right_value[node, 1] = r1
                missing_left[node] = side == 1 or (
                    w_missing == 0.0 and w_left >= weight - w_left
                )
    return best


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
