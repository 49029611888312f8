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
    missing values at the node they follow the child with more weight.
    """
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
