"""The split search of the binned trees: impurity, gain, best split per node.

Compiled with numba. For every node of a level and every feature,
:func:`best_splits` scans the weighted class histograms over the bins
(:mod:`labelclean.ensemble._binned`) and returns the split of highest
impurity decrease (Gini or entropy), with the side the missing values go to.
"""

import numpy as np
from numba import njit

__all__ = ["best_splits"]


@njit(cache=True, nogil=True, inline="always")
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


@njit(cache=True, nogil=True, inline="always")
def _split_gain(parent, left, w_left, total, right, criterion):
    """Impurity decrease of a split whose left child holds ``left``."""
    w_right = 0.0
    for k in range(total.shape[0]):
        r = total[k] - left[k]
        right[k] = r if r > 0.0 else 0.0
        w_right += right[k]
    if w_left <= 0.0 or w_right <= 0.0:
        return -1.0
    g = parent - _weighted_impurity(left, w_left, criterion)
    return g - _weighted_impurity(right, w_right, criterion)


@njit(cache=True, nogil=True)
def best_splits(hist, n_bins_per_feature, criterion):
    """Best split of every node: feature, bin, gain, the child class weights,
    and the side missing values go to.

    Bin ``n_bins_per_feature[j]`` of feature j holds its missing values. Each
    threshold is tried with them on the right and, when the node has any, on
    the left; "every value left, missing right" is a candidate too. Without
    missing values at the node they follow the child with more weight. Two
    classes with Gini (every weak learner on a two-class label) take a scan on
    scalars that gives the same result to the bit (:func:`_best_splits_gini2`).
    """
    if hist.shape[3] == 2 and criterion == 0:
        return _best_splits_gini2(hist, n_bins_per_feature)
    return _best_splits_any(hist, n_bins_per_feature, criterion)


@njit(cache=True, nogil=True)
def _best_splits_any(hist, n_bins_per_feature, criterion):
    """:func:`best_splits` for any number of classes and either criterion."""
    n_nodes, n_features, _, n_classes = hist.shape
    feature = np.full(n_nodes, -1, dtype=np.intp)
    split_bin = np.zeros(n_nodes, dtype=np.intp)
    missing_left = np.zeros(n_nodes, dtype=np.bool_)
    gain = np.zeros(n_nodes)
    left_value = np.zeros((n_nodes, n_classes))
    right_value = np.zeros((n_nodes, n_classes))
    total = np.zeros(n_classes)
    left = np.zeros(n_classes)
    with_missing = np.zeros(n_classes)
    right = np.zeros(n_classes)
    missing = np.zeros(n_classes)
    for node in range(n_nodes):
        total[:] = 0.0
        for b in range(n_bins_per_feature[0] + 1):
            for k in range(n_classes):
                total[k] += hist[node, 0, b, k]
        weight = 0.0
        for k in range(n_classes):
            weight += total[k]
        if weight <= 0.0:
            continue
        parent = _weighted_impurity(total, weight, criterion)
        best = 1e-12 * weight  # a split must beat the parent by more than rounding
        for j in range(n_features):
            n_value_bins = n_bins_per_feature[j]
            w_missing = 0.0
            for k in range(n_classes):
                missing[k] = hist[node, j, n_value_bins, k]
                w_missing += missing[k]
            left[:] = 0.0
            w_left = 0.0
            last = n_value_bins if w_missing > 0.0 else n_value_bins - 1
            for b in range(last):
                added = 0.0
                for k in range(n_classes):
                    h = hist[node, j, b, k]
                    left[k] += h
                    added += h
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
                        left_value[node] = child
                        right_value[node] = right
                        missing_left[node] = side == 1 or (
                            w_missing == 0.0 and w_left >= weight - w_left
                        )
    return feature, split_bin, missing_left, gain, left_value, right_value


@njit(cache=True, nogil=True)
def _gini2(c0, c1, w):
    """``_weighted_impurity`` for two classes and Gini, on scalars (the same
    operations in the same order)."""
    if w <= 0.0:
        return 0.0
    sq = 0.0
    sq += c0 * c0
    sq += c1 * c1
    return w - sq / w


@njit(cache=True, nogil=True)
def _best_splits_gini2(hist, n_bins_per_feature):
    """:func:`_best_splits_any` for two classes and Gini: the same candidates
    in the same order and the same operations, on scalars instead of small
    arrays (benchmarks/RESULTS.md, ``fit-cost-wide-gini2``), so the same
    splits to the last bit
    (``test_two_class_gini_scan_is_the_general_one_to_the_bit``)."""
    n_nodes, n_features, _, _ = hist.shape
    feature = np.full(n_nodes, -1, dtype=np.intp)
    split_bin = np.zeros(n_nodes, dtype=np.intp)
    missing_left = np.zeros(n_nodes, dtype=np.bool_)
    gain = np.zeros(n_nodes)
    left_value = np.zeros((n_nodes, 2))
    right_value = np.zeros((n_nodes, 2))
    for node in range(n_nodes):
        t0 = 0.0
        t1 = 0.0
        for b in range(n_bins_per_feature[0] + 1):
            t0 += hist[node, 0, b, 0]
            t1 += hist[node, 0, b, 1]
        weight = 0.0
        weight += t0
        weight += t1
        if weight <= 0.0:
            continue
        parent = _gini2(t0, t1, weight)
        best = 1e-12 * weight
        for j in range(n_features):
            n_value_bins = n_bins_per_feature[j]
            m0 = hist[node, j, n_value_bins, 0]
            m1 = hist[node, j, n_value_bins, 1]
            w_missing = 0.0
            w_missing += m0
            w_missing += m1
            l0 = 0.0
            l1 = 0.0
            w_left = 0.0
            last = n_value_bins if w_missing > 0.0 else n_value_bins - 1
            for b in range(last):
                h0 = hist[node, j, b, 0]
                h1 = hist[node, j, b, 1]
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
    return feature, split_bin, missing_left, gain, left_value, right_value
