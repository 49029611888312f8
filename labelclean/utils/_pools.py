"""Exact and graph-based nearest-neighbour search among a fixed pool of points.

:class:`ExactPool` compares every pool point (faiss's float32 screen, then a
float64 ranking); :class:`GraphPool` walks an HNSW graph over the pool and
ranks what it finds the same way. :class:`~labelclean.utils._neighbors.NeighborIndex`
builds its candidate graph with them and searches pools of points with them.
"""

import numpy as np
from sklearn.neighbors import NearestNeighbors

from labelclean.utils._compiled import compiled
from labelclean.utils._threads import one_openmp_thread

__all__ = ["ExactPool", "GraphPool"]


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


@compiled(nogil=True)
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
