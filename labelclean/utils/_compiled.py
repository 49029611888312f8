"""numba's ``njit``, cached on disk wherever numba can keep a cache.

Every compiled function of labelclean is cached (``cache=True``): the first
process compiles it and later ones load it (docs/scale.md, *A first run on a
fresh machine*). numba looks for a folder it can write to:
``NUMBA_CACHE_DIR``, then the ``__pycache__`` folder beside the source, then
the user's cache folder. Where none is writable (a read-only image run by a
user without a writable home, a serverless function) numba raises at the
function's definition, so importing labelclean would fail. There
:func:`compiled` compiles without the cache, in every process, and warns
once (:class:`~labelclean.exceptions.CompilationCacheWarning`) how to keep
the compiled code. :func:`import_with_cache` imports a library whose own
functions are cached the same way (pynndescent).
"""

import atexit
import importlib
import shutil
import tempfile
import warnings

import numba
from numba import njit

from labelclean.exceptions import CompilationCacheWarning

__all__ = ["compiled", "import_with_cache"]

_NO_CACHE = "no locator available"
_warned = False


def _warn_once() -> None:
    global _warned
    if _warned:
        return
    _warned = True
    warnings.warn(
        "numba finds no writable folder for its compiled code (NUMBA_CACHE_DIR, "
        "the package's __pycache__ folders or the user's cache folder), so "
        "labelclean compiles it in every process, seconds each time; set "
        "NUMBA_CACHE_DIR to a writable folder to keep it.",
        CompilationCacheWarning,
        stacklevel=3,
    )


def compiled(**options):
    """``numba.njit(cache=True, **options)``, or ``cache=False`` where numba
    has no folder to cache in (the same machine code, compiled in every
    process)."""

    def decorate(func):
        try:
            return njit(cache=True, **options)(func)
        except RuntimeError as error:
            if _NO_CACHE not in str(error):
                raise
            _warn_once()
            return njit(cache=False, **options)(func)

    return decorate


def import_with_cache(name: str):
    """Import module ``name``, whose numba functions are defined with
    ``cache=True``, where numba may have no folder to cache them in: then
    their cache goes to a private temporary folder for this process, removed
    at exit (``numba.config.CACHE_DIR`` is set during the import only)."""
    try:
        return importlib.import_module(name)
    except RuntimeError as error:
        if _NO_CACHE not in str(error):
            raise
    _warn_once()
    folder = tempfile.mkdtemp(prefix="labelclean-numba-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = folder
    try:
        return importlib.import_module(name)
    finally:
        numba.config.CACHE_DIR = saved
