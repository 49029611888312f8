"""The scan of one node's histograms for its best split: impurity, gain,
and the split of highest impurity decrease over the features' bins.

Compiled with numba, used by the split search of the binned trees
(:mod:`labelclean.ensemble._splits`): :func:`_scan_node` scans a node's
histograms ``h[feature, bin, class]``; :func:`_node_total_any` and
:func:`_scan_feature_any` (and their Gini forms for two, and for three or
four classes, on scalars) do
the same one feature at a time, so that a node's histograms can be filled
and scanned a block of features at a time, the best split carried from
block to block.
"""

import numpy as np

from labelclean.utils._compiled import compiled


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
    elif 3 <= h.shape[2] <= 4 and criterion == 0:
        _scan_node_gini4(h, occ, n_occ, n_bins_per_feature, node, out)
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


@compiled(nogil=True, inline="always")
def _gini4(c0, c1, c2, c3, w):
    """``_weighted_impurity`` for Gini and up to four classes, on scalars: the
    same operations in the same order (a class past the label's, weight
    exactly 0, adds 0 to the sum of squares, which leaves it as it was)."""
    if w <= 0.0:
        return 0.0
    sq = 0.0
    sq += c0 * c0
    sq += c1 * c1
    sq += c2 * c2
    sq += c3 * c3
    return w - sq / w


@compiled(nogil=True, inline="always")
def _above_zero(r):
    """``r``, or 0 where it is not above 0: :func:`_split_gain`'s clip of a
    right child's weight, in its form (a ``max`` may keep the sign of a
    negative zero)."""
    return r if r > 0.0 else 0.0


@compiled(nogil=True, inline="always")
def _bin4(hj, b, n_classes):
    """Bin ``b``'s class weights in ``hj[bin, class]``, 0 past ``n_classes``."""
    w1 = hj[b, 1] if n_classes > 1 else 0.0
    w2 = hj[b, 2] if n_classes > 2 else 0.0
    w3 = hj[b, 3] if n_classes > 3 else 0.0
    return hj[b, 0], w1, w2, w3


@compiled(nogil=True)
def _scan_node_gini4(h, occ, n_occ, n_bins_per_feature, node, out):
    """:func:`_scan_node_any` for Gini and up to four classes (used for three
    or four): the same candidates in the same order and the same
    operations, on scalars instead of small arrays, so the same splits to
    the last bit (``test_small_gini_scan_is_the_general_one_to_the_bit``).
    The arrays' loops took about 2.5 times as long a candidate with four
    classes; two classes keep :func:`_scan_node_gini2`, as this one took a
    third longer for them (ad hoc; docs/boosting.md, *Three and four classes
    on scalars, and a node's bins without a branch*)."""
    t, weight = _node_total_gini4(h[0], occ[0], n_occ[0], n_bins_per_feature[0])
    if weight <= 0.0:
        return
    parent = _gini4(t[0], t[1], t[2], t[3], weight)
    best = 1e-12 * weight
    for j in range(h.shape[0]):
        best = _scan_feature_gini4(
            h[j], occ[j], n_occ[j], n_bins_per_feature[j], j, node, out, t, weight,
            parent, best,
        )  # fmt: skip


@compiled(nogil=True)
def _node_total_gini4(h0, occ0, n_occ0, n_value_bins0):
    """:func:`_node_total_any` for up to four classes, on scalars: the
    classes' weights (0 past the label's) and their sum."""
    n_classes = h0.shape[1]
    t0 = t1 = t2 = t3 = 0.0
    for t in range(n_occ0 + 1):  # the value bins in order, then the missing bin
        b = occ0[t] if t < n_occ0 else n_value_bins0
        w0, w1, w2, w3 = _bin4(h0, b, n_classes)
        t0 += w0
        t1 += w1
        t2 += w2
        t3 += w3
    weight = 0.0
    weight += t0
    weight += t1
    weight += t2
    weight += t3
    return (t0, t1, t2, t3), weight


@compiled(nogil=True)
def _scan_feature_gini4(
    hj, occj, n_occj, n_value_bins, j, node, out, t, weight, parent, best
):
    """:func:`_scan_feature_any` for Gini and up to four classes, on
    scalars; ``t`` the node's class weights (:func:`_node_total_gini4`)."""
    feature, split_bin, missing_left, gain, left_value, right_value = out
    n_classes = hj.shape[1]
    m0, m1, m2, m3 = _bin4(hj, n_value_bins, n_classes)
    w_missing = 0.0
    w_missing += m0
    w_missing += m1
    w_missing += m2
    w_missing += m3
    l0 = l1 = l2 = l3 = 0.0
    w_left = 0.0
    last = n_value_bins if w_missing > 0.0 else n_value_bins - 1
    for i in range(n_occj):
        b = occj[i]
        if b >= last:
            break
        w0, w1, w2, w3 = _bin4(hj, b, n_classes)
        l0 += w0
        l1 += w1
        l2 += w2
        l3 += w3
        added = 0.0
        added += w0
        added += w1
        added += w2
        added += w3
        if added == 0.0:
            continue
        w_left += added
        sides = 2 if w_missing > 0.0 and b < n_value_bins - 1 else 1
        for side in range(sides):
            c0, c1, c2, c3, w_child = l0, l1, l2, l3, w_left
            if side == 1:
                c0, c1, c2, c3 = l0 + m0, l1 + m1, l2 + m2, l3 + m3
                w_child = w_left + w_missing
            r0 = _above_zero(t[0] - c0)
            r1 = _above_zero(t[1] - c1)
            r2 = _above_zero(t[2] - c2)
            r3 = _above_zero(t[3] - c3)
            w_right = 0.0
            w_right += r0
            w_right += r1
            w_right += r2
            w_right += r3
            if w_child <= 0.0 or w_right <= 0.0:
                g = -1.0
            else:
                g = parent - _gini4(c0, c1, c2, c3, w_child)
                g = g - _gini4(r0, r1, r2, r3, w_right)
            if g > best:
                best = g
                feature[node] = j
                split_bin[node] = b
                gain[node] = g
                children = ((c0, r0), (c1, r1), (c2, r2), (c3, r3))
                for k in range(n_classes):
                    left_value[node, k], right_value[node, k] = children[k]
                missing_left[node] = side == 1 or (
                    w_missing == 0.0 and w_left >= weight - w_left
                )
    return best
