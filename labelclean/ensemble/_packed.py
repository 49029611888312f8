"""A boosting ensemble's binned trees as a few arrays, for its saved state.

A fitted ensemble holds one :class:`BinnedTreeClassifier` per round, each
with seven small arrays. Saved as they are, a model file of a few hundred
rows held over 3,000 arrays, one archive entry and one schema node each,
whose own values were 5 % of its bytes (``docs/scale.md``, *The model
file*; sections ``model-file-level6`` and ``model-file`` of
``benchmarks/RESULTS.md``). In
the state an ensemble pickles or saves (``__getstate__``), its trees are
therefore packed into one array per attribute, the rounds' nodes one after
the other, and unpacked on load (``__setstate__``) into the same trees,
every array equal, so predictions are the same bytes. Ensembles whose
learners are of another kind, or whose trees differ in a way the packed
layout does not hold, are saved as before; states saved before this layout
load as they are.
"""

import numpy as np

from labelclean.ensemble._binned import BinnedTreeClassifier
from labelclean.utils._sklearn import fill_new_parameters

#: Marks the packed layout in a saved state.
LAYOUT = "binned-trees-1"

#: A tree's node arrays, packed one after the other.
_NODE_ARRAYS = ("tree_feature_", "tree_threshold_", "tree_missing_left_")
_NODE_ARRAYS += ("tree_value_", "_split_bin")
#: Parameters every tree of the ensemble shares (``random_state`` is per tree).
_SHARED = ("max_depth", "max_bins", "criterion")
_ATTRIBUTES = frozenset(
    _NODE_ARRAYS + _SHARED + ("random_state", "classes_", "_missing_bin", "_children")
)


def _packable(trees: list) -> bool:
    """Whether the packed layout holds ``trees`` exactly."""
    if not trees or any(type(t) is not BinnedTreeClassifier for t in trees):
        return False
    first = trees[0]
    for tree in trees:
        state = vars(tree)
        if set(state) != _ATTRIBUTES or type(state["random_state"]) is not int:
            return False
        if any(state[k] != vars(first)[k] for k in _SHARED):
            return False
        for name in ("classes_", "_missing_bin"):
            if not np.array_equal(state[name], vars(first)[name]):
                return False
            if state[name].dtype != vars(first)[name].dtype:
                return False
        arrays = [state[k] for k in _NODE_ARRAYS] + list(state["_children"])
        shapes = [a.shape[0] for a in arrays]
        if len(state["_children"]) != 2 or len(set(shapes)) != 1:
            return False
        kinds = [vars(first)[k] for k in _NODE_ARRAYS] + list(first._children)
        if any(a.dtype != b.dtype for a, b in zip(arrays, kinds, strict=True)):
            return False
    return True


def pack_trees(trees: list) -> dict | None:
    """``trees`` as one dict of arrays, or None where the layout cannot hold
    them."""
    if not _packable(trees):
        return None
    first = vars(trees[0])
    packed = {"layout": LAYOUT}
    packed.update({k: first[k] for k in _SHARED})
    packed["classes_"] = first["classes_"]
    packed["_missing_bin"] = first["_missing_bin"]
    packed["random_state"] = np.array([t.random_state for t in trees], np.int64)
    packed["n_nodes"] = np.array([t.tree_feature_.shape[0] for t in trees], np.int64)
    for name in _NODE_ARRAYS:
        packed[name] = np.concatenate([vars(t)[name] for t in trees])
    for side, name in enumerate(("left", "right")):
        packed[name] = np.concatenate([t._children[side] for t in trees])
    return packed


def is_packed(value) -> bool:
    """Whether ``value`` is a state's packed trees."""
    return isinstance(value, dict) and value.get("layout") == LAYOUT


def _check(packed: dict) -> None:
    """Raise ValueError unless the packed arrays fit together: the compiled
    predictions index them without bounds checks, so a damaged or crafted
    file must not reach them."""
    sizes = np.asarray(packed["n_nodes"])
    total = int(sizes.sum()) if sizes.size and (sizes > 0).all() else -1
    arrays = [packed[k] for k in (*_NODE_ARRAYS, "left", "right")]
    if total < 0 or any(a.shape[0] != total for a in arrays):
        raise ValueError("packed trees whose node arrays do not fit together")
    size = np.repeat(sizes, sizes)  # each node's tree size
    n_features = packed["_missing_bin"].shape[0]
    for child in (packed["left"], packed["right"]):
        if ((child < -1) | (child >= size)).any():
            raise ValueError("packed trees with a child outside its tree")
    feature = packed["tree_feature_"]
    if ((feature < -1) | (feature >= n_features)).any():
        raise ValueError("packed trees splitting on a feature they do not have")


def unpack_trees(packed: dict) -> list:
    """The trees :func:`pack_trees` packed, every array equal.

    Raises
    ------
    ValueError
        Where the arrays do not fit together (a damaged file).
    """
    _check(packed)
    ends = np.cumsum(packed["n_nodes"])
    trees = []
    for end, size, seed in zip(
        ends, packed["n_nodes"], packed["random_state"], strict=True
    ):
        part = slice(int(end - size), int(end))
        tree = BinnedTreeClassifier.__new__(BinnedTreeClassifier)
        nodes = {k: packed[k][part] for k in _NODE_ARRAYS}
        vars(tree).update(  # in the order a fit sets them
            {k: packed[k] for k in _SHARED},
            random_state=int(seed),
            classes_=packed["classes_"],
            tree_feature_=nodes["tree_feature_"],
            tree_threshold_=nodes["tree_threshold_"],
            tree_missing_left_=nodes["tree_missing_left_"],
            _missing_bin=packed["_missing_bin"],
            tree_value_=nodes["tree_value_"],
            _split_bin=nodes["_split_bin"],
            _children=(packed["left"][part], packed["right"][part]),
        )
        fill_new_parameters(tree)  # parameters newer than the file, at defaults
        trees.append(tree)
    return trees
