"""Thread limits of the native libraries (OpenMP), per calling thread."""

import functools
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

__all__ = ["one_openmp_thread"]


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
