"""Nearest-neighbour search behind one interface, with restricted candidate pools.

:class:`NeighborIndex` is built once on the encoded training matrix. Rows with
identical features are one *point* (:func:`~labelclean.utils._ties.distinct_points`);
the index keeps every point's ``n_candidates`` nearest points (the *candidate
graph*) and answers, as label counts, the questions the KNN filter and the
KNN confidence keep asking:

* :meth:`NeighborIndex.training_label_counts`: for every training row, the
  labels of its ``k`` nearest rows among a subset (a boolean mask, e.g. the
  rows the filter has kept so far), the row itself excluded;
* :meth:`NeighborIndex.query_label_counts`: the same for new rows.

Rows at the k-th row's distance share the places left, by their labels
(:func:`~labelclean.utils._ties.tier_counts`), so no order of the rows
decides between tied labels (``docs/decisions.md``, *Rows with the same
features*).

Because neighbourhoods are read off the candidate graph, the filter's rounds do
not rebuild any index: a row's nearest survivors are read off its candidate
list. Only rows whose list ends before the k-th survivor's distance tier does
are searched again, against the surviving points, with longer lists. With the
exact backend this gives exactly the neighbourhoods a recomputation would.

Three backends build the candidate graph (utils/_pools.py):

* ``'exact'``: :class:`ExactPool` over every point (faiss's float32 screen,
  float64 ranking); no compilation, best for small data. Its time grows with
  the square of the points.
* ``'hnsw'``: :class:`GraphPool` over every point (an HNSW graph built on one
  thread, each walk ranked in float64); chosen automatically from
  :data:`HNSW_MIN_SAMPLES` points on, where it is faster than the exact
  search (1.4 times at 1e5 rows, 1.7 at 1.5e5) at a recall of about 0.98.
* ``'approximate'``: :class:`pynndescent.NNDescent`; near-linear in the number
  of points, but every new process pays 25-60 s of numba compilation, so it
  is chosen automatically only from :data:`APPROXIMATE_MIN_SAMPLES` points on,
  where building the HNSW graph on one thread takes longer.

Searches outside the graph among a pool of points (new rows against L_red,
training rows whose lists end too early) are exact, by :class:`ExactPool`;
with the ``'approximate'`` and ``'hnsw'`` backends, new rows are screened by
:class:`GraphPool` instead (an HNSW graph over the pool, built once per
process, ranked in float64 the same way). Every lazily built search structure
is built under a lock, and pynndescent's query (which shares buffers between
calls) runs under it, so batches can be decided on several threads.
"""

import hashlib
import threading
import warnings

import numpy as np

from labelclean.utils._compiled import import_with_cache
from labelclean.utils._pools import _SELF_GRAPH, ExactPool, GraphPool
from labelclean.utils._ties import distinct_points, ranked_candidates, tier_counts

__all__ = [
    "APPROXIMATE_MIN_SAMPLES",
    "HNSW_MIN_SAMPLES",
    "ExactPool",
    "GraphPool",
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


#: Rows whose candidate lists are ranked at once (each holds a float64
#: distance per candidate: 20 MB per chunk with 19 candidates).
_CHUNK_ROWS = 1 << 17

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


class NeighborIndex:
    """k-nearest-neighbour index over a fixed training matrix.

    Rows with identical features are one *point* (:func:`distinct_points`);
    the candidate graph and every search run over points, and a
    neighbourhood is read as label counts in which the rows at the k-th
    row's distance share the places left (:func:`tier_counts`), so that no
    order of the rows decides between tied labels.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Encoded training matrix (finite floats).
    n_candidates : int
        Neighbouring points kept per point, not counting the point itself.
    algorithm : {'auto', 'exact', 'hnsw', 'approximate'}
        Search backend; ``'auto'`` chooses by the number of points.
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
        self.point_of, self.first_rows = distinct_points(X)
        points = np.asarray(X, dtype=np.float64)[self.first_rows]
        self.n_points = points.shape[0]
        self.algorithm = resolve_algorithm(algorithm, self.n_points)
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.n_candidates = min(n_candidates, self.n_points - 1)
        self._index = None
        n_build = self.n_candidates + 1
        if self.algorithm == "approximate":
            self._X = np.ascontiguousarray(points, dtype=np.float32)
            cand, _ = self._approximate_index(n_build).neighbor_graph
        elif self.algorithm == "hnsw":
            self._X = np.ascontiguousarray(points)
            # Each point walks a graph over every point; the point itself is
            # normally its own first neighbour (at distance 0).
            cand = GraphPool(self._X, **_SELF_GRAPH).kneighbors(self._X, n_build)
        else:
            self._X = np.ascontiguousarray(points)
            # Every point against every point: faiss's float32 screen, then a
            # float64 ranking (ExactPool).
            cand = ExactPool(self._X).kneighbors(self._X, n_build)
        # int32 halves the graph's memory (and the model file) below 2**31 rows.
        index_dtype = np.int32 if self.n_points < 2**31 - 1 else np.intp
        self.candidates = np.asarray(cand, dtype=index_dtype)
        self._pool_cache: dict = {}
        self._lock = threading.Lock()

    def _approximate_index(self, n_build: int, init_graph: np.ndarray | None = None):
        # pynndescent compiles with numba on import: only for this search
        NNDescent = import_with_cache("pynndescent").NNDescent
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
        if "point_of" not in state:
            # A model file written before points: rebuilt from its rows.
            self.__init__(
                np.asarray(state["_X"], dtype=np.float64),
                n_candidates=state["n_candidates"],
                algorithm=state["algorithm"],
                random_state=state.get("random_state"),
                n_jobs=state.get("n_jobs"),
            )
            return
        self.__dict__.update(state)
        self._lock = threading.Lock()

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

    def point_counts(
        self, mask: np.ndarray, codes: np.ndarray, n_classes: int
    ) -> np.ndarray:
        """Rows in ``mask`` per point and class, as floats."""
        at = self.point_of[mask] * n_classes + codes[mask]
        counts = np.bincount(at, minlength=self.n_points * n_classes)
        return counts.reshape(self.n_points, n_classes).astype(np.float64)

    def training_label_counts(
        self,
        mask: np.ndarray,
        k: int,
        codes: np.ndarray,
        n_classes: int,
        rows: np.ndarray | None = None,
    ) -> np.ndarray:
        """Labels of the ``k`` nearest rows in ``mask`` of training rows.

        Each row itself is left out, and the rows at the k-th row's distance
        share the places left (:func:`tier_counts`).

        Parameters
        ----------
        mask : ndarray of shape (n_samples,), dtype=bool
            Rows that may serve as neighbours.
        k : int
            Neighbours per row (already capped by :meth:`effective_k`).
        codes : ndarray of int of shape (n_samples,)
            Label codes of the training rows.
        n_classes : int
        rows : ndarray of int, default=None
            Training rows to answer for; all rows when None.

        Returns
        -------
        counts : ndarray of shape (n_rows, n_classes), dtype=float64
            Adding up to ``k`` per row; whole numbers unless rows tie at the
            k-th distance.
        """
        rows = np.arange(self.n_samples) if rows is None else rows
        per_point = self.point_counts(mask, codes, n_classes)
        pool = np.flatnonzero(per_point.sum(axis=1) > 0)
        parts = []
        # In chunks: the ranked lists hold a float64 distance per candidate.
        for start in range(0, rows.size, _CHUNK_ROWS):
            chunk = rows[start : start + _CHUNK_ROWS]
            points = self.point_of[chunk]
            self_code = np.where(mask[chunk], codes[chunk], -1)
            parts.append(
                self._tiered(
                    self._X[points],
                    self.candidates[points],
                    per_point,
                    points,
                    self_code,
                    k,
                    pool=pool,
                )
            )
        return np.concatenate(parts) if parts else np.zeros((0, n_classes))

    def query_label_counts(
        self,
        X: np.ndarray,
        mask: np.ndarray,
        k: int,
        codes: np.ndarray,
        n_classes: int,
    ) -> np.ndarray:
        """As :meth:`training_label_counts`, for new rows ``X``."""
        per_point = self.point_counts(mask, codes, n_classes)
        pool = np.flatnonzero(per_point.sum(axis=1) > 0)
        n_list = min(pool.size, k + CANDIDATE_MARGIN)
        cand = self._resolve(X, pool, n_list, training=False)
        none = np.full(X.shape[0], -1, dtype=np.intp)
        return self._tiered(X, cand, per_point, none, none, k, pool=pool)

    def candidate_label_counts(
        self,
        allowed: np.ndarray,
        rows: np.ndarray,
        k: int,
        codes: np.ndarray,
        n_classes: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`training_label_counts`, read off the candidate graph alone.

        No new search: a row whose candidates hold fewer than ``k`` allowed
        rows takes those, and a tier that ends a list counts what it holds.

        Returns
        -------
        counts : ndarray of shape (n_rows, n_classes)
        taken : ndarray of shape (n_rows,)
            Places filled per row (at most ``k``).
        """
        per_point = self.point_counts(allowed, codes, n_classes)
        counts = np.zeros((rows.size, n_classes))
        taken = np.zeros(rows.size)
        for start in range(0, rows.size, _CHUNK_ROWS):
            part = slice(start, start + _CHUNK_ROWS)
            points = self.point_of[rows[part]]
            self_code = np.where(allowed[rows[part]], codes[rows[part]], -1)
            cand, dist, norm = ranked_candidates(
                self._X[points], self._X, self.candidates[points]
            )
            counts[part], taken[part], _ = tier_counts(
                cand, dist, norm, per_point, points, self_code, k, True
            )
        return counts, taken

    def _tiered(self, Xq, cand, per_point, self_points, self_code, k, pool=None):
        """Tiered counts of the rows ``Xq`` from their candidate lists.

        A row whose list ended inside its k-th row's tier is searched again
        with a list twice as long (exactly, after the first longer search),
        until the tier ends inside the list or the list holds the whole pool.
        """
        if pool is None:
            pool = np.flatnonzero(per_point.sum(axis=1) > 0)
        cand, dist, norm = ranked_candidates(Xq, self._X, cand)
        exhaustive = cand.shape[1] >= self.n_points
        counts, _, complete = tier_counts(
            cand, dist, norm, per_point, self_points, self_code, k, exhaustive
        )
        todo = np.flatnonzero(~complete)
        n_list, rounds = cand.shape[1], 0
        training = bool((self_points >= 0).any())
        while todo.size:
            n_list = min(pool.size, max(2 * n_list, k + CANDIDATE_MARGIN))
            found = self._resolve(Xq[todo], pool, n_list, training, exact=rounds > 0)
            cand, dist, norm = ranked_candidates(Xq[todo], self._X, found)
            counts[todo], _, complete = tier_counts(
                cand,
                dist,
                norm,
                per_point,
                self_points[todo],
                self_code[todo],
                k,
                n_list >= pool.size,
            )
            todo, rounds = todo[~complete], rounds + 1
        return counts

    def query(self, X: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
        """The ``k`` nearest points with rows in ``mask`` of each new row of
        ``X``, as the points' first rows (without repeated rows: the rows)."""
        pool = np.unique(self.point_of[mask])
        return self.first_rows[self._resolve(X, pool, min(k, pool.size), False)]

    def _resolve(
        self,
        Xq: np.ndarray,
        pool: np.ndarray,
        n: int,
        training: bool,
        exact: bool = False,
    ) -> np.ndarray:
        """The ``n`` nearest points of ``pool`` to the rows ``Xq``, outside the
        candidate graph (-1 where a search found fewer).

        Exact (:class:`ExactPool`) with the exact backend, for a few training
        rows, for training rows with the ``'hnsw'`` backend, and when
        ``exact``; new rows otherwise walk an HNSW graph over the pool
        (:class:`GraphPool`), and many training rows ask pynndescent's index
        for a longer list and keep the pool's points.
        """
        few_training_rows = training and Xq.shape[0] <= _BRUTE_FORCE_MAX_QUERIES
        if (
            exact
            or self.algorithm == "exact"
            or few_training_rows
            or (training and self.algorithm == "hnsw")
        ):
            return self._search_pool(Xq, pool, n)
        if not training:
            # New rows: a graph index over the pool itself (HNSW), built once
            # per process; pynndescent's query needed its search graph
            # prepared again in every process (half a minute at 2e5 rows).
            return self._search_pool(Xq, pool, n, approximate=True)
        Xq = np.ascontiguousarray(Xq, dtype=np.float32)
        share = max(pool.size / self.n_points, 1e-3)
        n_query = min(self.n_points, int(np.ceil((n + 1) / share)) + n + 10)
        in_pool = np.zeros(self.n_points, dtype=bool)
        in_pool[pool] = True
        out = np.full((Xq.shape[0], n), -1, dtype=np.intp)
        # One query per row: pynndescent's query draws its random starts from
        # one state shared by the rows of a call, so a row's neighbours would
        # depend on which other rows share the call; alone, they do not.
        # pynndescent's query also shares buffers between calls: one at a time.
        with self._lock:
            index = self._query_index()
            for i in range(Xq.shape[0]):
                found = index.query(Xq[i : i + 1], k=n_query)[0][0]
                found = found[(found >= 0) & in_pool[np.maximum(found, 0)]][:n]
                out[i, : found.size] = found
        return out

    # ------------------------------------------------------------------
    def _search_pool(
        self, Xq: np.ndarray, pool: np.ndarray, n: int, approximate: bool = False
    ) -> np.ndarray:
        """Search of ``Xq`` among the points ``pool``: exact, or by
        :class:`GraphPool` when ``approximate``."""
        searcher = self._pool_searcher(pool, approximate)
        return pool[searcher.kneighbors(Xq, min(n, pool.size))]

    def _pool_searcher(
        self, pool: np.ndarray, approximate: bool = False
    ) -> "ExactPool":
        """A searcher over the points ``pool``, cached per pool and kind.

        Scoring new rows in batches asks again and again for the same pool
        (L_red), so its search structure is built once.
        """
        digest = hashlib.sha1(np.ascontiguousarray(pool).tobytes()).hexdigest()
        key = (digest, approximate)
        with self._lock:
            cached = self._pool_cache.get(key)
            if cached is None:
                kind = GraphPool if approximate else ExactPool
                # the last pool of each kind: the filter's rounds ask for many
                self._pool_cache = {
                    k: v for k, v in self._pool_cache.items() if k[1] != approximate
                }
                cached = self._pool_cache[key] = kind(self._X[pool])
        return cached
