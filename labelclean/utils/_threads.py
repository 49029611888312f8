"""Thread limits of the native libraries (BLAS for the solvers, OpenMP per
thread) and the threads a model borrows for one fit."""

import functools
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

__all__ = ["fit_on_threads", "one_blas_thread", "one_openmp_thread"]


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """The BLAS libraries loaded with numpy and scipy (found once)."""
    import scipy.linalg  # noqa: F401  (loads scipy's own OpenBLAS)

    return ThreadpoolController().select(user_api="blas")


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run BLAS calls on one thread inside the block (the whole process).

    scipy's L-BFGS-B takes many tiny BLAS/LAPACK steps, which multi-threaded
    OpenBLAS made an order of magnitude slower: RoSR's solves on a loaded
    machine (docs/rosr.md), SPBL's even on an idle one (docs/spbl.md). The
    solvers of RoSR and SPBL therefore run inside this block.
    """
    with _blas_controller().limit(limits=1):
        yield


@functools.cache
def _openmp_controller() -> ThreadpoolController:
    """The OpenMP runtimes labelclean's native code uses (found once)."""
    # faiss brings its own OpenMP runtime (and an OpenMP build of OpenBLAS);
    # load it before looking, so that the limit reaches it.
    import faiss  # noqa: F401

    return ThreadpoolController().select(user_api="openmp")


@contextmanager
def one_openmp_thread(enabled: bool = True) -> Iterator[None]:
    """Run OpenMP code started from this thread on one thread.

    OpenMP's thread count is a per-thread setting: inside the block, parallel
    regions started by the calling thread (faiss's neighbour search and the
    BLAS calls it makes, scikit-learn's) use one thread, while other threads
    keep theirs. Used when labelclean itself runs one task per processor.

    Parameters
    ----------
    enabled : bool, default=True
        When False, do nothing.
    """
    if not enabled:
        yield
        return
    with _openmp_controller().limit(limits=1):
        yield


def fit_on_threads(model, n_jobs, *args, **kwargs):
    """``model.fit(*args, **kwargs)`` on ``n_jobs`` threads where the model
    takes an ``n_jobs`` and sets none of its own (CB-AdaBoost's runs of its
    learning rates); its ``n_jobs`` is None again after, so the fitted model
    (and its file) does not record how many threads fitted it
    (docs/reliability.md, *Determinism*). Returns the model."""
    params = model.get_params(deep=False) if hasattr(model, "get_params") else {}
    borrow = n_jobs is not None and "n_jobs" in params and params["n_jobs"] is None
    if borrow:
        model.set_params(n_jobs=n_jobs)
    try:
        return model.fit(*args, **kwargs)
    finally:
        if borrow:
            model.set_params(n_jobs=None)
