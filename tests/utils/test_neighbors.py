"""Tests of the neighbour-search backends."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from labelclean.confidence import KNNConfidence
from labelclean.noise import flip_labels
from labelclean.utils._neighbors import (
    APPROXIMATE_MIN_SAMPLES,
    HNSW_MIN_SAMPLES,
    ExactPool,
    GraphPool,
    NeighborIndex,
    resolve_algorithm,
)
from labelclean.utils._threads import one_openmp_thread


def test_auto_chooses_by_size():
    assert resolve_algorithm("auto", HNSW_MIN_SAMPLES - 1) == "exact"
    assert resolve_algorithm("auto", HNSW_MIN_SAMPLES) == "hnsw"
    assert resolve_algorithm("auto", APPROXIMATE_MIN_SAMPLES - 1) == "hnsw"
    assert resolve_algorithm("auto", APPROXIMATE_MIN_SAMPLES) == "approximate"
    assert resolve_algorithm("exact", 10**7) == "exact"
    assert resolve_algorithm("hnsw", 10) == "hnsw"


def test_small_data_never_imports_pynndescent():
    # pynndescent costs 25-60 s of compilation per process: small data must not
    # pay it. Run in a subprocess so other tests' imports do not interfere.
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from labelclean.confidence import KNNConfidence\n"
        "X = np.random.RandomState(0).normal(size=(500, 4))\n"
        "KNNConfidence(random_state=0).fit(X, X[:, 0] > 0)\n"
        "print('pynndescent' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def _which_rows(counts: np.ndarray) -> list[list[int]]:
    """Rows counted per answer, when every row is its own class."""
    return [np.flatnonzero(row).tolist() for row in counts]


def test_training_label_counts_exclude_self_and_respect_mask():
    # Every row its own class, so the counts say which rows were taken.
    X = np.arange(20, dtype=float)[:, None]
    index = NeighborIndex(X, n_candidates=3, algorithm="exact")
    mask = np.ones(20, bool)
    mask[::2] = False  # only odd rows may be neighbours
    codes = np.arange(20)
    counts = index.training_label_counts(mask, 2, codes, 20)
    rows = _which_rows(counts)
    assert all(mask[r].all() and i not in r for i, r in enumerate(rows))
    assert rows[5] == [3, 7] and rows[4] == [3, 5]
    np.testing.assert_allclose(counts.sum(axis=1), 2.0)
    # k = 1: row 4 is as near to 3 as to 5, and they share the place; row 19,
    # at the end, has 17 alone at its nearest distance
    one = index.training_label_counts(mask, 1, codes, 20)
    np.testing.assert_allclose(one[4, [3, 5]], [0.5, 0.5])
    np.testing.assert_allclose(one[19, 17], 1.0)


def test_a_tie_beyond_the_candidate_lists_is_searched_in_full():
    # Row 0 at the centre of a ring of 30 rows at one distance (10 of one
    # label, 20 of the other), with three candidates per point: the ring is
    # counted whole, by a longer search, and its labels share the places.
    angles = np.linspace(0, 2 * np.pi, 30, endpoint=False)
    ring = np.c_[np.cos(angles), np.sin(angles)]
    X = np.r_[[[0.0, 0.0]], ring]
    codes = np.r_[0, np.tile([0, 1, 1], 10)]
    index = NeighborIndex(X, n_candidates=3, algorithm="exact")
    counts = index.training_label_counts(np.ones(31, bool), 5, codes, 2)
    np.testing.assert_allclose(counts[0], [5 / 3, 10 / 3], rtol=1e-9)
    # the same for a new row at the centre, and for the centre again
    new = index.query_label_counts(np.zeros((1, 2)), np.ones(31, bool), 5, codes, 2)
    np.testing.assert_allclose(new[0], [1 + 4 / 3, 8 / 3], rtol=1e-9)


def test_repeated_rows_are_one_point():
    X = np.array([[0.0], [1.0], [0.0], [-0.0], [2.0], [1.0]])
    index = NeighborIndex(X, n_candidates=5, algorithm="exact")
    np.testing.assert_array_equal(index.point_of, [0, 1, 0, 0, 2, 1])
    np.testing.assert_array_equal(index.first_rows, [0, 1, 4])
    assert index.n_points == 3 and index.candidates.shape == (3, 3)


@pytest.mark.slow
@pytest.mark.xdist_group("pynndescent")
def test_approximate_backend_agrees_with_exact_and_is_deterministic():
    # Compiles pynndescent (tens of seconds, once per process).
    X, y = make_blobs(6000, centers=5, n_features=8, cluster_std=2.0, random_state=0)
    y_noisy, _ = flip_labels(y, 0.2, random_state=0)
    exact = KNNConfidence(algorithm="exact").fit(X, y_noisy)
    approx = KNNConfidence(algorithm="approximate", random_state=7).fit(X, y_noisy)
    again = KNNConfidence(algorithm="approximate", random_state=7).fit(X, y_noisy)
    assert approx.neighbor_algorithm_ == "approximate"
    assert np.mean(np.abs(exact.confidence_ - approx.confidence_)) < 0.02
    np.testing.assert_array_equal(approx.confidence_, again.confidence_)
    # new rows are scored against L_red by the approximate index as well
    gamma_a = approx.score_samples(X[:200] + 0.01, y_noisy[:200])
    gamma_e = exact.score_samples(X[:200] + 0.01, y_noisy[:200])
    assert np.mean(np.abs(gamma_a - gamma_e)) < 0.03


def _reference_neighbors(P, Q, k):
    # float64 sums of squared differences, ties broken by pool position
    d = ((Q[:, None, :] - P[None, :, :]) ** 2).sum(axis=2)
    return np.argsort(d, axis=1, kind="stable")[:, :k]


def test_exact_pool_matches_float64_reference_with_ties(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    # integer-valued rows: many exact ties and duplicates in the pool
    P = rng.randint(0, 3, size=(400, 5)).astype(float)
    Q = np.vstack([rng.randint(0, 3, size=(150, 5)), rng.normal(size=(150, 5))])
    pool = ExactPool(P)
    got = pool.kneighbors(Q, 7)
    np.testing.assert_array_equal(got, _reference_neighbors(P, Q, 7))
    # a row's neighbours do not depend on the other rows of its batch
    for part in (slice(0, 1), slice(3, 40), slice(100, 300)):
        np.testing.assert_array_equal(pool.kneighbors(Q[part], 7), got[part])
    assert pool.kneighbors(Q[:0], 7).shape == (0, 7)


@pytest.mark.parametrize("pool_extreme", [3e38, 1e39])
def test_exact_pool_rows_beyond_float32_fall_back_to_float64(pool_extreme):
    # 3e38 fits float32 but its square does not; 1e39 does not fit at all
    rng = np.random.RandomState(0)
    P = rng.normal(size=(50, 3))
    P[0] = [pool_extreme, 0.0, 0.0]
    Q = np.array([[2e39, 0.0, 0.0], [0.1, 0.2, 0.3]])
    got = ExactPool(P).kneighbors(Q, 3)
    assert got[0, 0] == 0
    np.testing.assert_array_equal(got[1], _reference_neighbors(P, Q[1:], 3)[0])


def test_exact_pool_survives_pickling():
    import pickle

    rng = np.random.RandomState(0)
    P, Q = rng.normal(size=(60, 4)), rng.normal(size=(10, 4))
    pool = ExactPool(P)
    clone = pickle.loads(pickle.dumps(pool))
    np.testing.assert_array_equal(clone.kneighbors(Q, 5), pool.kneighbors(Q, 5))


@pytest.mark.slow
@pytest.mark.xdist_group("pynndescent")
def test_approximate_backend_new_rows_do_not_depend_on_their_batch():
    # New rows walk the pool's HNSW graph, one walk per row from the same
    # entry point: a row's neighbours depend on the row alone (and on no size
    # threshold). pynndescent's query, used before, shared one random state
    # across the rows of a call. Compiles pynndescent for the fit.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20_000, 20)).astype(np.float32)
    y = (X[:, 0] + 0.5 * rng.normal(size=20_000) > 0).astype(int)
    conf = KNNConfidence(algorithm="approximate", random_state=0).fit(X, y)
    Q = rng.normal(size=(6_000, 20)).astype(np.float32)
    index, pool, k = conf._index, conf.in_reduced_set_, conf.n_neighbors_
    whole = index.query(Q, pool, k)
    for splits in (((0, 3000), (3000, 6000)), ((0, 1), (1, 2500), (2500, 6000))):
        parts = np.vstack([index.query(Q[a:b], pool, k) for a, b in splits])
        np.testing.assert_array_equal(parts, whole)
    np.testing.assert_array_equal(
        np.vstack([conf.neighbor_counts(Q[:1]), conf.neighbor_counts(Q[1:])]),
        conf.neighbor_counts(Q),
    )


def _recall(found, exact):
    """Share of the exact neighbours found, over all rows."""
    return (
        np.mean([len(set(a) & set(b)) for a, b in zip(found, exact, strict=True)])
        / (exact.shape[1])
    )


def test_graph_pool_is_reproducible_and_close_to_exact():
    rng = np.random.default_rng(3)
    pool = rng.normal(size=(4000, 8))
    queries = rng.normal(size=(500, 8))
    first = GraphPool(pool).kneighbors(queries, 10)
    # Built again (one thread, rows in order): the same graph and answers,
    # whatever the number of threads that search it and however the rows
    # are batched.
    again = GraphPool(pool)
    with one_openmp_thread():
        np.testing.assert_array_equal(again.kneighbors(queries, 10), first)
    halves = np.vstack([again.kneighbors(queries[:1], 10),
                        again.kneighbors(queries[1:], 10)])  # fmt: skip
    np.testing.assert_array_equal(halves, first)
    exact = ExactPool(pool).kneighbors(queries, 10)
    assert _recall(first, exact) > 0.95
    # each list is ordered by float64 distance, as the exact one is
    d = ((queries[:, None, :] - pool[first]) ** 2).sum(axis=2)
    assert (np.diff(d, axis=1) >= 0).all()


@pytest.mark.slow
@pytest.mark.xdist_group("pynndescent")
def test_a_loaded_approximate_index_scores_new_rows_without_pynndescent():
    # pynndescent prepared its search graph again in every process that
    # loaded a model (half a minute at 2e5 rows); new rows now walk a graph
    # built over L_red alone, and the pynndescent index is never rebuilt.
    import pickle

    X, _ = make_blobs(3000, centers=4, n_features=6, random_state=1)
    index = NeighborIndex(X, n_candidates=12, algorithm="approximate", random_state=0)
    loaded = pickle.loads(pickle.dumps(index))
    mask = np.arange(3000) % 5 != 0
    new = np.random.default_rng(0).normal(size=(300, 6)) * 3
    found = loaded.query(new, mask, 5)
    assert getattr(loaded, "_index", None) is None
    assert mask[found].all()
    exact = np.flatnonzero(mask)[ExactPool(X[mask]).kneighbors(new, 5)]
    assert _recall(found, exact) > 0.95


def test_hnsw_backend_is_reproducible_and_its_confidence_close_to_exact():
    # The graph over every training row is built on one thread: the same rows
    # give the same candidate graph, whatever the number of threads, and γ
    # stays close to the exact backend's (benchmarks/confidence_speed.py
    # measures it at 1e5 rows: section confidence-speed-hnsw).
    X, y = make_blobs(5000, centers=4, n_features=10, cluster_std=3.0, random_state=2)
    y_noisy, _ = flip_labels(y, 0.2, random_state=0)
    first = NeighborIndex(X, n_candidates=18, algorithm="hnsw")
    with one_openmp_thread():
        again = NeighborIndex(X, n_candidates=18, algorithm="hnsw")
    np.testing.assert_array_equal(first.candidates, again.candidates)
    exact = NeighborIndex(X, n_candidates=18, algorithm="exact")
    own = np.arange(5000)[:, None]

    def without_self(cand):
        return [set(row[row != i]) for i, row in zip(own[:, 0], cand, strict=True)]

    overlap = np.mean(
        [len(a & b) / len(b) for a, b in zip(without_self(first.candidates),
                                            without_self(exact.candidates),
                                            strict=True)]
    )  # fmt: skip
    assert overlap > 0.95
    hnsw = KNNConfidence(algorithm="hnsw", random_state=0).fit(X, y_noisy)
    ref = KNNConfidence(algorithm="exact", random_state=0).fit(X, y_noisy)
    assert hnsw.neighbor_algorithm_ == "hnsw"
    assert np.abs(hnsw.confidence_ - ref.confidence_).mean() < 0.02


def test_hnsw_backend_answers_new_rows_from_l_red_after_pickling():
    import pickle

    X, _ = make_blobs(3000, centers=4, n_features=6, random_state=1)
    index = pickle.loads(
        pickle.dumps(NeighborIndex(X, n_candidates=12, algorithm="hnsw"))
    )
    mask = np.arange(3000) % 5 != 0
    new = np.random.default_rng(0).normal(size=(300, 6)) * 3
    found = index.query(new, mask, 5)
    assert mask[found].all()
    exact = np.flatnonzero(mask)[ExactPool(X[mask]).kneighbors(new, 5)]
    assert _recall(found, exact) > 0.95
    # training rows short of surviving candidates are searched exactly
    few = np.zeros(3000, bool)
    few[::50] = True
    rows, codes = np.arange(0, 3000, 7), np.arange(3000)
    counts = index.training_label_counts(few, 3, codes, 3000, rows=rows)
    taken = _which_rows(counts)
    assert all(few[r].all() and i not in r for i, r in zip(rows, taken, strict=True))
    reference = NeighborIndex(X, n_candidates=12, algorithm="exact")
    np.testing.assert_array_equal(
        counts, reference.training_label_counts(few, 3, codes, 3000, rows=rows)
    )


@pytest.mark.parametrize("algorithm", ["exact", "hnsw"])
def test_a_fitted_confidence_keeps_no_search_structure_of_its_training_rows(
    algorithm,
):
    # The filter's rounds cache a search pool (a float64 copy of the rows and
    # a faiss index), and the approximate backend keeps pynndescent's index:
    # 460 MB at 1e6 rows that nothing uses once the fit is done. They are
    # freed; new rows are answered as before (rebuilt on demand).
    X, y = make_blobs(1500, centers=3, n_features=5, cluster_std=3.0, random_state=0)
    y_noisy, _ = flip_labels(y, 0.2, random_state=0)
    conf = KNNConfidence(algorithm=algorithm, random_state=0).fit(X, y_noisy)
    index = conf._index
    assert index._pool_cache == {} and index._index is None
    new = np.random.default_rng(1).normal(size=(200, 5)) * 4
    new = conf._encode_features(new, reset=False)
    kept, k = conf.in_reduced_set_, conf.n_neighbors_
    exact = np.flatnonzero(kept)[ExactPool(index._X[kept]).kneighbors(new, k)]
    found = index.query(new, kept, k)
    assert _recall(found, exact) > (0.999 if algorithm == "exact" else 0.95)


def test_an_index_stored_before_points_is_rebuilt_on_loading():
    # Model files written before the search ran over distinct points hold
    # the rows and a graph over rows; loading rebuilds the index from them.
    X = np.repeat(np.arange(12, dtype=float)[:, None], 2, axis=0)
    fresh = NeighborIndex(X, n_candidates=4, algorithm="exact")
    old = {
        "n_samples": 24,
        "algorithm": "exact",
        "random_state": None,
        "n_jobs": None,
        "n_candidates": 4,
        "_X": X,
        "candidates": np.zeros((24, 5), dtype=np.int32),
        "_pool_cache": {},
    }
    loaded = NeighborIndex.__new__(NeighborIndex)
    loaded.__setstate__(old)
    np.testing.assert_array_equal(loaded.point_of, fresh.point_of)
    np.testing.assert_array_equal(loaded.candidates, fresh.candidates)
    codes = np.arange(24) % 3
    mask = np.ones(24, bool)
    np.testing.assert_array_equal(
        loaded.training_label_counts(mask, 3, codes, 3),
        fresh.training_label_counts(mask, 3, codes, 3),
    )


def test_counts_in_chunks_are_the_counts_at_once(monkeypatch):
    # Large fits rank their candidate lists in chunks of rows: the same counts.
    from labelclean.utils import _neighbors

    rng = np.random.RandomState(0)
    X = rng.randint(0, 3, size=(300, 3)).astype(float)
    codes = rng.randint(0, 3, size=300)
    mask = rng.rand(300) < 0.8
    index = NeighborIndex(X, n_candidates=8, algorithm="exact")
    whole = index.training_label_counts(mask, 5, codes, 3)
    blind = index.candidate_label_counts(mask, np.arange(300), 5, codes, 3)
    monkeypatch.setattr(_neighbors, "_CHUNK_ROWS", 7)
    np.testing.assert_array_equal(index.training_label_counts(mask, 5, codes, 3), whole)
    for got, expected in zip(
        index.candidate_label_counts(mask, np.arange(300), 5, codes, 3),
        blind,
        strict=True,
    ):
        np.testing.assert_array_equal(got, expected)
