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

Two backends:

* ``'exact'``: :class:`sklearn.neighbors.NearestNeighbors`; no compilation,
  best for small and medium data.
* ``'approximate'``: :class:`pynndescent.NNDescent`; near-linear in the number
  of rows, but every new process pays about 25 s of numba compilation, so it
  is chosen automatically only from :data:`APPROXIMATE_MIN_SAMPLES` rows on.
"""

import hashlib
import logging
import warnings

import numpy as np
from sklearn.neighbors import NearestNeighbors

logger = logging.getLogger(__name__)

__all__ = ["APPROXIMATE_MIN_SAMPLES", "NeighborIndex", "resolve_algorithm"]

#: From this many rows on, ``algorithm='auto'`` uses the approximate backend.
#: Measured (benchmarks/RESULTS.md, section ``confidence-speed``): at 1e5 rows
#: x 20 features the exact search takes 13 s and the approximate one 29 s in a
#: fresh process (compilation included); the exact one grows faster than
#: linearly, so the crossover lies near 2e5 rows.
APPROXIMATE_MIN_SAMPLES = 200_000

#: Up to this many queries outside the candidate graph are searched exactly.
_BRUTE_FORCE_MAX_QUERIES = 2_000


def resolve_algorithm(algorithm: str, n_samples: int) -> str:
    """Turn ``'auto'`` into ``'exact'`` or ``'approximate'`` by data size."""
    if algorithm == "auto":
        return "approximate" if n_samples >= APPROXIMATE_MIN_SAMPLES else "exact"
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
    algorithm : {'auto', 'exact', 'approximate'}
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
        n_build = self.n_candidates + 1
        if self.algorithm == "approximate":
            self._X = np.ascontiguousarray(X, dtype=np.float32)
            cand, _ = self._approximate_index(n_build).neighbor_graph
        else:
            self._X = np.ascontiguousarray(X, dtype=np.float64)
            searcher = NearestNeighbors(
                n_neighbors=max(self.n_candidates, 1), n_jobs=n_jobs
            ).fit(self._X)
            cand = searcher.kneighbors(return_distance=False)
            # kneighbors() without X excludes each row itself; keep the layout
            # of the approximate backend (self possibly included) uniform.
            cand = np.hstack([np.arange(self.n_samples)[:, None], cand])
        # int32 halves the graph's memory (and the model file) below 2**31 rows.
        index_dtype = np.int32 if self.n_samples < 2**31 - 1 else np.intp
        self.candidates = np.asarray(cand, dtype=index_dtype)
        self._pool_cache: dict = {}

    def _approximate_index(self, n_build: int, init_graph: np.ndarray | None = None):
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
        state["_pool_cache"] = {}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def _query_index(self):
        """The approximate index, rebuilt from the stored graph after loading."""
        if getattr(self, "_index", None) is None:
            graph = self.candidates.astype(np.int32)
            self._approximate_index(graph.shape[1], init_graph=graph)
        return self._index

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

    def query(self, X: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
        """The ``k`` nearest rows in ``mask`` of each new row of ``X``."""
        return self._resolve(X, None, mask, k)

    def _resolve(
        self, Xq: np.ndarray, self_rows: np.ndarray | None, mask: np.ndarray, k: int
    ) -> np.ndarray:
        """Neighbours in ``mask`` of the rows ``Xq``, outside the candidate graph.

        The approximate backend first asks its index for a longer list and
        keeps the rows of the pool; whatever is still short is searched
        exactly among the pool.
        """
        if self.algorithm != "approximate" or Xq.shape[0] <= _BRUTE_FORCE_MAX_QUERIES:
            # A few queries are answered faster by an exact scan than by
            # preparing pynndescent's search graph (seconds at 1e6 rows).
            return self._search_pool(Xq, self_rows, mask, k)
        Xq = np.ascontiguousarray(Xq, dtype=np.float32)
        share = max(float(mask.mean()), 1e-3)
        n_query = min(self.n_samples, int(np.ceil((k + 1) / share)) + k + 10)
        cand, _ = self._query_index().query(Xq, k=n_query)
        cand = np.asarray(cand, dtype=np.intp)
        valid = (cand >= 0) & mask[np.maximum(cand, 0)]
        if self_rows is not None:
            valid &= cand != self_rows[:, None]
        out = _first_valid(cand, valid, k)
        short = np.flatnonzero(valid.sum(axis=1) < k)
        if short.size:
            rows = None if self_rows is None else self_rows[short]
            out[short] = self._search_pool(Xq[short], rows, mask, k)
        return out

    # ------------------------------------------------------------------
    def _search_pool(
        self, Xq: np.ndarray, self_rows: np.ndarray | None, mask: np.ndarray, k: int
    ) -> np.ndarray:
        """Exact search of ``Xq`` among the rows in ``mask``.

        ``self_rows`` gives, for queries that are training rows, their own index
        so it can be excluded.
        """
        pool, searcher = self._pool_searcher(mask, brute=Xq.shape[0] <= 5_000)
        extra = 0 if self_rows is None else 1
        n_query = min(pool.size, k + extra)
        Xq = np.asarray(Xq, dtype=self._X.dtype)
        found = pool[searcher.kneighbors(Xq, n_query, return_distance=False)]
        if self_rows is None:
            return found[:, :k]
        valid = found != self_rows[:, None]
        return _first_valid(found, valid, k)

    def _pool_searcher(self, mask: np.ndarray, *, brute: bool):
        """An exact searcher over the rows in ``mask``, cached per mask.

        Scoring new rows in batches asks again and again for the same pool
        (L_red), so its search structure is built once.
        """
        key = (hashlib.sha1(np.packbits(mask).tobytes()).hexdigest(), brute)
        cached = self._pool_cache.get(key)
        if cached is None:
            pool = np.flatnonzero(mask)
            searcher = NearestNeighbors(algorithm="brute" if brute else "auto")
            searcher.fit(self._X[pool])
            self._pool_cache = {key: (pool, searcher)}
            cached = self._pool_cache[key]
        return cached
