"""A library whose numba functions ask for the disk cache, imported where
numba can cache nothing (:func:`labelclean.utils._compiled.import_with_cache`):
pynndescent's way, on a module small enough to compile in a second."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from labelclean.utils._compiled import compiled

MODULE = """
from numba import njit


@njit(cache=True)
def twice(x):
    return 2 * x
"""

CHECK = """
import glob, json, os, tempfile, warnings
from labelclean.utils._compiled import import_with_cache
try:
    import cached_twice
except RuntimeError as error:
    refused = "no locator available" in str(error)
else:
    refused = False
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    module = import_with_cache("cached_twice")
value = module.twice(21)
folders = glob.glob(os.path.join(tempfile.gettempdir(), "labelclean-numba-*"))
files = [f for d in folders for f in os.listdir(d)]
print(json.dumps({
    "refused": refused, "value": value, "folders": folders, "files": len(files),
    "warnings": [w.category.__name__ for w in seen],
}))
"""


def test_a_library_that_asks_for_the_cache_imports_where_none_is_writable(tmp_path):
    # pynndescent's functions are defined with cache=True: where numba finds
    # no folder to write, importing it raises. import_with_cache gives its
    # cache a private folder for the process, removed at exit.
    library = tmp_path / "site"
    library.mkdir()
    (library / "cached_twice.py").write_text(textwrap.dedent(MODULE))
    (library / "__pycache__").touch()  # no __pycache__ folder can be made
    home = tmp_path / "home"
    home.touch()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
    env.update(
        HOME=str(home),
        NUMBA_CACHE_DIR=str(home / "numba"),
        TMPDIR=str(scratch),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONPATH=os.pathsep.join([str(library), env.get("PYTHONPATH", "")]),
    )
    done = subprocess.run(
        [sys.executable, "-c", CHECK],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["refused"]  # a plain import fails there
    assert result["value"] == 42
    assert len(result["folders"]) == 1 and result["files"] > 0  # cached there
    assert result["warnings"] == ["CompilationCacheWarning"]
    assert not list(scratch.iterdir())  # and removed at exit


def test_compiled_functions_keep_the_cache_where_numba_has_one():
    @compiled(nogil=True)
    def add(a, b):
        return a + b

    assert add(np.float64(1.5), np.float64(2.0)) == 3.5
    assert add._cache.__class__.__name__ != "NullCache"


def test_only_the_missing_cache_falls_back(monkeypatch):
    # Another error of numba's while setting up the cache is not hidden.
    import labelclean.utils._compiled as module

    def broken(**options):
        def decorate(func):
            raise RuntimeError("something else went wrong")

        return decorate

    monkeypatch.setattr(module, "njit", broken)
    with pytest.raises(RuntimeError, match="something else"):

        @compiled()
        def f(x):
            return x
