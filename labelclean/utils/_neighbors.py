"""Nearest-neighbour search behind one interface, with restricted candidate pools.

:class:`NeighborIndex` is built once on the encoded training matrix. It keeps
every row's ``n_candidates`` nearest training rows (the *candidate graph*) and
answers two questions the KNN filter and the KNN confidence keep asking:

* :meth:`NeighborIndex.training_neighbors`: for every training row, its ``k``
  nearest rows among a subset (a boolean mask, e.g. the rows the filter has
  kept so far), the row itself excluded;
* :meth:`NeighborIndex.query`: the same for new rows.

Because neighbourhoods are read off the candidate graph, the filter's rounds do
not rebuild any index: a row's ``k`` nearest survivors are the first ``k``
survivors in its candidate list. Only rows with too few surviving candidates
are searched again, against the surviving rows. With the exact backend this
gives exactly the neighbourhoods a recomputation would.

Three backends build the candidate graph:

* ``'exact'``: :class:`ExactPool` over every row (faiss's float32 screen,
  float64 ranking); no compilation, best for small data. Its time grows with
  the square of the rows.
* ``'hnsw'``: :class:`GraphPool` over every row (an HNSW graph built on one
  thread, each row's walk ranked in float64); chosen automatically from
  :data:`HNSW_MIN_SAMPLES` rows on, where it is faster than the exact
  search (1.4 times at 1e5 rows, 1.7 at 1.5e5) at a recall of about 0.98.
* ``'approximate'``: :class:`pynndescent.NNDescent`; near-linear in the number
  of rows, but every new process pays about 25 s of numba compilation, so it
  is chosen automatically only from :data:`APPROXIMATE_MIN_SAMPLES` rows on,
  where building the HNSW graph on one thread takes longer.

Searches outside the graph among a pool of rows (new rows against L_red,
training rows short of candidates) are exact, by :class:`ExactPool`: a faiss
float32 screen, then a float64 ranking; with the ``'approximate'``
and ``'hnsw'`` backends, new rows are screened by :class:`GraphPool`
instead (an HNSW graph over the pool, built once per process, ranked in
float64 the same way). Every lazily
built search structure is built under a lock, and pynndescent's query (which
shares buffers between calls) runs under it, so batches can be decided on
several threads.
"""

import hashlib
import logging
import threading
import warnings

import numpy as np
from numba import njit
from sklearn.neighbors import NearestNeighbors

from labelclean.utils._duplicates import duplicate_blocks, label_counts
from labelclean.utils._threads import one_openmp_thread

logger = logging.getLogger(__name__)

__all__ = [
    "APPROXIMATE_MIN_SAMPLES",
    "HNSW_MIN_SAMPLES",
    "NeighborIndex",
    "resolve_algorithm",
]

#: From this many rows on, ``algorithm='auto'`` uses the HNSW backend.
#: Measured (benchmarks/RESULTS.md, section ``confidence-speed-hnsw``; the
#: whole confidence stage, 20 features, fresh processes): exact 1.9 s and
#: HNSW 2.2 s at 5e4 rows, 6.2 s and 4.5 s at 1e5, 13.2 s and 7.6 s at
#: 1.5e5; the exact search grows faster than linearly, so the crossover lies
#: near 6e4 rows.
HNSW_MIN_SAMPLES = 75_000

#: From this many rows on, ``algorithm='auto'`` uses the approximate backend.
#: Measured (benchmarks/RESULTS.md, section ``confidence-speed-crossover``;
#: the whole confidence stage, 20 features, fresh processes, pynndescent's
#: compilation included): HNSW 14.6 s and approximate 25.6 s at 2e5 rows,
#: 22.4 s and 28.7 s at 3e5, 37.3 s and 34.5 s at 4e5; the crossover lies near
#: 3.7e5 rows. Below it the HNSW backend also uses less memory, and its
#: outputs do not depend on the number of threads (pynndescent's do).
#: Measured on 20 encoded columns only: with many more the crossover moves.
APPROXIMATE_MIN_SAMPLES = 350_000

#: Up to this many training rows short of candidates are searched exactly
#: (new rows always take the backend's path, whatever their number).
_BRUTE_FORCE_MAX_QUERIES = 2_000


#: Extra candidates kept per row beyond the largest neighbourhood, so that
#: the noise filter's later rounds rarely need a new search.
CANDIDATE_MARGIN = 8


def resolve_algorithm(algorithm: str, n_samples: int) -> str:
    """Turn ``'auto'`` into ``'exact'``, ``'hnsw'`` or ``'approximate'`` by
    data size."""
    if algorithm == "auto":
        if n_samples >= APPROXIMATE_MIN_SAMPLES:
            return "approximate"
        return "hnsw" if n_samples >= HNSW_MIN_SAMPLES else "exact"
    return algorithm


def _first_valid(cand: np.ndarray, valid: np.ndarray, k: int) -> np.ndarray:
    """Per row, the first ``k`` entries of ``cand`` where ``valid`` holds."""
    order = np.argsort(~valid, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(cand, order, axis=1)


class NeighborIndex:
    """k-nearest-neighbour index over a fixed training matrix.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Encoded training matrix (finite floats).
    n_candidates : int
        Neighbours kept per training row, not counting the row itself.
    algorithm : {'auto', 'exact', 'hnsw', 'approximate'}
        Search backend; ``'auto'`` chooses by ``n_samples``.
    random_state : int or None
        Seed of the approximate backend.
    n_jobs : int or None
        Parallelism of the backend.
    """

    def __init__(
        self,
        X: np.ndarray,
        *,
        n_candidates: int,
        algorithm: str = "auto",
        random_state: int | None = None,
        n_jobs: int | None = None,
    ) -> None:
        self.n_samples = X.shape[0]
        self.algorithm = resolve_algorithm(algorithm, self.n_samples)
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.n_candidates = min(n_candidates, self.n_samples - 1)
        self._index = None
        #: Blocks of identical rows, whose places in a neighbourhood
        #: :meth:`label_counts` shares out (utils/_duplicates.py).
        self.duplicate_block = duplicate_blocks(X)
        n_build = self.n_candidates + 1
        if self.algorithm == "approximate":
            self._X = np.ascontiguousarray(X, dtype=np.float32)
            cand, _ = self._approximate_index(n_build).neighbor_graph
        elif self.algorithm == "hnsw":
            self._X = np.ascontiguousarray(X, dtype=np.float64)
            # Each row walks a graph over every row; the row itself is
            # normally its own first neighbour, and every reader skips it.
            graph = GraphPool(self._X, **_SELF_GRAPH)
            cand = graph.kneighbors(self._X, min(n_build, self.n_samples))
        else:
            self._X = np.ascontiguousarray(X, dtype=np.float64)
            # Every row against every row: faiss's float32 screen, then a
            # float64 ranking (ExactPool). Each row is normally its own first
            # neighbour; like the approximate graph, the candidate lists may
            # hold the row itself, which every reader skips.
            cand = ExactPool(self._X).kneighbors(self._X, min(n_build, self.n_samples))
        # int32 halves the graph's memory (and the model file) below 2**31 rows.
        index_dtype = np.int32 if self.n_samples < 2**31 - 1 else np.intp
        self.candidates = np.asarray(cand, dtype=index_dtype)
        self._pool_cache: dict = {}
        self._lock = threading.Lock()

    def _approximate_index(self, n_build: int, init_graph: np.ndarray | None = None):
        # lazy: compiles with numba; only for the approximate search
        from pynndescent import NNDescent

        self._index = NNDescent(
            self._X,
            n_neighbors=n_build,
            init_graph=init_graph,
            random_state=self.random_state,
            n_jobs=1 if self.n_jobs is None else self.n_jobs,
            low_memory=True,
            compressed=False,
        )
        return self._index

    # -- persistence: only arrays are stored; search structures are rebuilt --
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_index", None)
        state.pop("_lock", None)
        state["_pool_cache"] = {}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        if "duplicate_block" not in state:  # model files written before blocks
            self.duplicate_block = duplicate_blocks(self._X)

    def _query_index(self):
        """The approximate index, rebuilt from the stored graph after loading."""
        if getattr(self, "_index", None) is None:
            graph = self.candidates.astype(np.int32)
            self._approximate_index(graph.shape[1], init_graph=graph)
        return self._index

    def release(self) -> None:
        """Free the search structures built for the training rows.

        pynndescent's index and the cached pools of the filter's rounds hold
        copies of the rows (about 450 MB at 1e6 rows of 20 features); a fitted
        estimator needs none of them until a search asks again, which
        rebuilds what it needs (as after loading a model file).
        """
        with self._lock:
            self._index = None
            self._pool_cache = {}

    # ------------------------------------------------------------------
    def effective_k(self, k: int, n_pool: int, *, exclude_self: bool) -> int:
        """``k`` capped by the number of rows available in the pool."""
        available = n_pool - (1 if exclude_self else 0)
        if available < 1:
            raise ValueError(
                f"no rows left to take neighbours from (pool of {n_pool} row(s)); "
                "use more data or a gentler filter."
            )
        if available < k:
            warnings.warn(
                f"only {available} row(s) are available as neighbours, fewer than "
                f"n_neighbors={k}; using {available}.",
                UserWarning,
                stacklevel=3,
            )
        return min(k, available)

    def training_neighbors(
        self, mask: np.ndarray, k: int, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """The ``k`` nearest rows in ``mask`` of training rows, self excluded.

        Parameters
        ----------
        mask : ndarray of shape (n_samples,), dtype=bool
            Rows that may serve as neighbours.
        k : int
            Neighbours per row (already capped by :meth:`effective_k`).
        rows : ndarray of int, default=None
            Training rows to answer for; all rows when None.

        Returns
        -------
        indices : ndarray of shape (n_rows, k)
            Training-row indices, nearest first.
        """
        rows = np.arange(self.n_samples) if rows is None else rows
        cand = self.candidates[rows]
        valid = mask[cand] & (cand != rows[:, None]) & (cand >= 0)
        out = _first_valid(cand, valid, k)
        short = np.flatnonzero(valid.sum(axis=1) < k)
        if short.size:
            out[short] = self._resolve(self._X[rows[short]], rows[short], mask, k)
        return out

    def label_counts(
        self,
        neighbors: np.ndarray,
        codes: np.ndarray,
        n_classes: int,
        mask: np.ndarray,
        *,
        self_rows: np.ndarray | None = None,
        take: np.ndarray | None = None,
    ) -> np.ndarray:
        """The labels of ``neighbors`` (rows in ``mask``) counted per row, each
        block of identical training rows shared out, so that the order of the
        rows does not decide between their labels (see
        :func:`labelclean.utils._duplicates.label_counts`)."""
        return label_counts(
            self.duplicate_block,
            neighbors,
            codes,
            n_classes,
            mask,
            self_rows=self_rows,
            take=take,
        )

    def query(self, X: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
        """The ``k`` nearest rows in ``mask`` of each new row of ``X``."""
        return self._resolve(X, None, mask, k)

    def _resolve(
        self, Xq: np.ndarray, self_rows: np.ndarray | None, mask: np.ndarray, k: int
    ) -> np.ndarray:
        """Neighbours in ``mask`` of the rows ``Xq``, outside the candidate graph.

        With the approximate backend, new rows walk the pool's HNSW graph
        (:class:`GraphPool`); training rows (more than a few) first ask
        pynndescent's index for a longer list and keep the rows of the pool,
        and whatever is still short is searched exactly among the pool.
        """
        few_training_rows = (
            self_rows is not None and Xq.shape[0] <= _BRUTE_FORCE_MAX_QUERIES
        )
        if self.algorithm == "exact" or few_training_rows:
            # A few training rows are answered faster by an exact scan than by
            # preparing pynndescent's search graph (seconds at 1e6 rows). New
            # rows always take the same path, whatever the size of the batch.
            return self._search_pool(Xq, self_rows, mask, k)
        if self.algorithm == "hnsw" and self_rows is not None:
            # Training rows short of candidates are few with this backend
            # (the graph holds every row); an exact scan answers them.
            return self._search_pool(Xq, self_rows, mask, k)
        if self_rows is None:
            # New rows: a graph index over the pool itself (HNSW), built once
            # per process; pynndescent's query needed its search graph
            # prepared again in every process (half a minute at 2e5 rows).
            return self._search_pool(Xq, None, mask, k, approximate=True)
        Xq = np.ascontiguousarray(Xq, dtype=np.float32)
        share = max(float(mask.mean()), 1e-3)
        n_query = min(self.n_samples, int(np.ceil((k + 1) / share)) + k + 10)
        cand = np.empty((Xq.shape[0], n_query), dtype=np.intp)
        # One query per row: pynndescent's query draws its random starts from
        # one state shared by the rows of a call, so a row's neighbours would
        # depend on which other rows share the call; alone, they do not.
        # pynndescent's query also shares buffers between calls: one at a time.
        with self._lock:
            index = self._query_index()
            for i in range(Xq.shape[0]):
                cand[i] = index.query(Xq[i : i + 1], k=n_query)[0][0]
        # Only training rows reach here (new rows returned above).
        valid = (cand >= 0) & mask[np.maximum(cand, 0)] & (cand != self_rows[:, None])
        out = _first_valid(cand, valid, k)
        short = np.flatnonzero(valid.sum(axis=1) < k)
        if short.size:
            out[short] = self._search_pool(Xq[short], self_rows[short], mask, k)
        return out

    # ------------------------------------------------------------------
    def _search_pool(
        self,
        Xq: np.ndarray,
        self_rows: np.ndarray | None,
        mask: np.ndarray,
        k: int,
        approximate: bool = False,
    ) -> np.ndarray:
        """Search of ``Xq`` among the rows in ``mask``: exact, or by
        :class:`GraphPool` when ``approximate``.

        ``self_rows`` gives, for queries that are training rows, their own index
        so it can be excluded.
        """
        pool, searcher = self._pool_searcher(mask, approximate)
        extra = 0 if self_rows is None else 1
        n_query = min(pool.size, k + extra)
        found = pool[searcher.kneighbors(Xq, n_query)]
        if self_rows is None:
            return found[:, :k]
        valid = found != self_rows[:, None]
        return _first_valid(found, valid, k)

    def _pool_searcher(
        self, mask: np.ndarray, approximate: bool = False
    ) -> tuple[np.ndarray, "ExactPool"]:
        """A searcher over the rows in ``mask``, cached per mask and kind.

        Scoring new rows in batches asks again and again for the same pool
        (L_red), so its search structure is built once.
        """
        key = (hashlib.sha1(np.packbits(mask).tobytes()).hexdigest(), approximate)
        with self._lock:
            cached = self._pool_cache.get(key)
            if cached is None:
                pool = np.flatnonzero(mask)
                kind = GraphPool if approximate else ExactPool
                # the last pool of each kind: the filter's rounds ask for many
                self._pool_cache = {
                    k: v for k, v in self._pool_cache.items() if k[1] != approximate
                }
                self._pool_cache[key] = (pool, kind(self._X[pool]))
                cached = self._pool_cache[key]
        return cached


#: Extra candidates the float32 screen of :class:`ExactPool` passes on to the
#: float64 ranking, so near-ties at the k-th place are ranked in float64.
_SCREEN_MARGIN = 8


class ExactPool:
    """Exact k-nearest-neighbour search among a fixed pool of rows.

    Two steps per query row:

    1. **Screen** (faiss ``IndexFlatL2``): the ``k + 8`` nearest pool rows by
       float32 squared distances, computed with BLAS on all cores. This is
       where the time goes; faiss does it faster than scikit-learn's float64
       search (``benchmarks/neighbor_query.py``).
    2. **Rank** (float64): those candidates' distances are computed again as
       sums of squared differences in float64, and the ``k`` smallest are
       kept, ties broken by pool position. A row's neighbours therefore do not
       depend on the other rows of its batch, nor on the number of threads.

    Rows beyond float32's range (after standardising) are searched by
    scikit-learn in float64 instead: a query row whose float32 distances
    overflow, or every query when a pool row does.

    Parameters
    ----------
    X : ndarray of shape (n_pool, n_features)
        The pool's encoded rows.
    """

    def __init__(self, X: np.ndarray) -> None:
        self._X = np.ascontiguousarray(X, dtype=np.float64)
        with np.errstate(over="ignore"):
            X32 = self._X.astype(np.float32)
        self._index = None
        if np.isfinite(X32).all():
            self._index = self._build(X32)

    @staticmethod
    def _build(X32: np.ndarray):
        """The float32 screen over the pool: every row compared (flat)."""
        # lazy: only for the exact search on large data
        import faiss

        index = faiss.IndexFlatL2(X32.shape[1])
        index.add(X32)
        return index

    def _screen(self, Xq32: np.ndarray, n_screen: int) -> np.ndarray:
        return self._index.search(Xq32, n_screen)[1]

    def __getstate__(self) -> dict:
        # The faiss index is rebuilt from the rows (cheap) after unpickling.
        return {"_X": self._X}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["_X"])

    def kneighbors(self, Xq: np.ndarray, k: int) -> np.ndarray:
        """Pool positions of the ``k`` nearest rows of each row of ``Xq``.

        Parameters
        ----------
        Xq : ndarray of shape (n_queries, n_features)
        k : int
            At most the pool's size.

        Returns
        -------
        indices : ndarray of shape (n_queries, k), dtype=intp
            Nearest first.
        """
        Xq = np.ascontiguousarray(Xq, dtype=np.float64)
        out = np.empty((Xq.shape[0], k), dtype=np.intp)
        if Xq.shape[0] == 0:
            return out
        if self._index is None:
            overflow = np.ones(Xq.shape[0], dtype=bool)
        else:
            n_screen = min(self._X.shape[0], k + _SCREEN_MARGIN)
            with np.errstate(over="ignore"):
                Xq32 = Xq.astype(np.float32)
            cand = self._screen(Xq32, n_screen)
            overflow = (cand < 0).any(axis=1) | ~np.isfinite(Xq32).all(axis=1)
        ok = ~overflow
        if ok.all():
            out[:] = _rank_candidates(Xq, self._X, cand, k)
        elif ok.any():
            out[ok] = _rank_candidates(Xq[ok], self._X, cand[ok], k)
        if overflow.any():
            searcher = NearestNeighbors(algorithm="brute").fit(self._X)
            out[overflow] = searcher.kneighbors(Xq[overflow], k, return_distance=False)
        return out


#: HNSW graph of :class:`GraphPool`: links per row, and the candidate lists
#: kept while building and searching (faiss's defaults are 32, 40 and 16).
_HNSW_LINKS = 12
_HNSW_BUILD_CANDIDATES = 24
_HNSW_SEARCH_CANDIDATES = 128

#: The same for the ``'hnsw'`` backend's graph over every training row, which
#: every row walks once: a denser graph (built once, on one thread) lets a
#: shorter walk reach the same recall (benchmarks/RESULTS.md, section
#: ``confidence-speed-hnsw``).
_SELF_GRAPH = {"links": 16, "build_candidates": 40, "search_candidates": 48}


class GraphPool(ExactPool):
    """Approximate k-nearest-neighbour search among a fixed pool of rows.

    As :class:`ExactPool`, but the float32 screen walks a hierarchical
    navigable small-world graph (faiss's ``IndexHNSWFlat``) instead of
    comparing every pool row, and the ``k + 8`` rows it returns are ranked in
    float64 the same way. The graph is built on one thread, rows in pool
    order, so the same pool gives the same graph; each query's walk depends
    only on the graph and the query row, not on the other rows of its batch
    nor on the number of threads. Used for new rows when the index is
    approximate (large data); its speed and its recall against the exact
    search are measured in ``benchmarks/apply_neighbors.py`` (0.96 at 1e6
    rows of 20 features: docs/confidence.md). The ``'hnsw'`` backend also
    builds its candidate graph with it.

    Parameters
    ----------
    X : ndarray of shape (n_pool, n_features)
        The pool's encoded rows.
    links, build_candidates, search_candidates : int
        faiss's ``M``, ``efConstruction`` and ``efSearch`` (at least the
        number of rows screened).
    """

    def __init__(
        self,
        X: np.ndarray,
        *,
        links: int = _HNSW_LINKS,
        build_candidates: int = _HNSW_BUILD_CANDIDATES,
        search_candidates: int = _HNSW_SEARCH_CANDIDATES,
    ) -> None:
        self._links = links
        self._build_candidates = build_candidates
        self._search_candidates = search_candidates
        super().__init__(X)

    def __getstate__(self) -> dict:
        return {
            "_X": self._X,
            "_links": self._links,
            "_build_candidates": self._build_candidates,
            "_search_candidates": self._search_candidates,
        }

    def __setstate__(self, state: dict) -> None:
        self.__init__(
            state["_X"],
            links=state.get("_links", _HNSW_LINKS),
            build_candidates=state.get("_build_candidates", _HNSW_BUILD_CANDIDATES),
            search_candidates=state.get("_search_candidates", _HNSW_SEARCH_CANDIDATES),
        )

    def _build(self, X32: np.ndarray):
        # lazy: only for the approximate search on large data
        import faiss

        index = faiss.IndexHNSWFlat(X32.shape[1], self._links)
        index.hnsw.efConstruction = self._build_candidates
        # faiss inserts rows on several threads in an order that varies from
        # run to run; on one, the graph is the same every time.
        with one_openmp_thread():
            index.add(X32)
        return index

    def _screen(self, Xq32: np.ndarray, n_screen: int) -> np.ndarray:
        # lazy: faiss is slow to import; only for the approximate search
        import faiss

        params = faiss.SearchParametersHNSW()
        params.efSearch = max(self._search_candidates, n_screen)
        return self._index.search(Xq32, n_screen, params=params)[1]


@njit(cache=True, nogil=True)
def _rank_candidates(Xq, Xp, cand, k):  # pragma: no cover - compiled
    """Per row, the ``k`` candidates nearest in float64, ties by position."""
    n, m = cand.shape
    d = Xq.shape[1]
    out = np.empty((n, k), dtype=np.intp)
    dist = np.empty(m)
    idx = np.empty(m, dtype=np.intp)
    for i in range(n):
        for j in range(m):
            c = cand[i, j]
            s = 0.0
            for f in range(d):
                t = Xq[i, f] - Xp[c, f]
                s += t * t
            # insertion into (dist, idx), ordered by distance then position
            p = j
            while p > 0 and (dist[p - 1] > s or (dist[p - 1] == s and idx[p - 1] > c)):
                dist[p] = dist[p - 1]
                idx[p] = idx[p - 1]
                p -= 1
            dist[p] = s
            idx[p] = c
        for j in range(k):
            out[i, j] = idx[j]
    return out
