"""Shared fixtures: seeds and small noisy datasets."""

import os

import numpy as np
import pytest

os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")

# One seed by default keeps CI fast; LABELCLEAN_TESTS_GLOBAL_RANDOM_SEED="all"
# (or "0-5") runs the seeded tests over several seeds, like scikit-learn's.
_SEED_SPEC = os.environ.get("LABELCLEAN_TESTS_GLOBAL_RANDOM_SEED", "42")


def _seeds(spec: str) -> list[int]:
    if spec == "all":
        return list(range(10))
    if "-" in spec:
        lo, hi = (int(part) for part in spec.split("-"))
        return list(range(lo, hi + 1))
    return [int(spec)]


@pytest.fixture(autouse=True, scope="session")
def _one_blas_thread():
    """Run the suite with single-threaded BLAS/OpenMP.

    On a small shared machine, threaded BLAS made tiny matrix products up to
    100 times slower; results do not depend on the thread count.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        yield


@pytest.fixture(params=_seeds(_SEED_SPEC))
def global_random_seed(request: pytest.FixtureRequest) -> int:
    """A seed for tests whose assertions must hold for any seed."""
    return request.param


@pytest.fixture
def rng(global_random_seed: int) -> np.random.RandomState:
    return np.random.RandomState(global_random_seed)


@pytest.fixture
def headless_chromium(tmp_path_factory: pytest.TempPathFactory):
    """Load a local HTML file in headless Chromium; skip when it is absent.

    Returns a function ``load(path, fragment="", screenshot=None,
    width=1300) -> (dom, console)``: the DOM after the page's scripts ran
    (``--dump-dom``) and the browser console lines (CSP violations, script
    errors). ``fragment`` is appended to the address (``#suspects?...``);
    ``screenshot`` is a PNG path to also capture the page ``width`` pixels
    wide. ``.ci/run`` installs the ``chromium`` system package.
    """
    import shutil
    import subprocess

    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.skip("chromium is not installed")

    def run(args):
        profile = tmp_path_factory.mktemp("chromium-profile")
        result = subprocess.run(
            [
                binary, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
                "--enable-logging=stderr", "--v=0", *args,
            ],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-2000:]
        return result

    def load(path, fragment="", screenshot=None, width=1300):
        address = path.as_uri() + fragment
        result = run(["--dump-dom", address])
        console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
        if screenshot is not None:
            shot = run(
                [f"--screenshot={screenshot}", f"--window-size={width},2400", address]
            )
            console += [line for line in shot.stderr.splitlines() if ":CONSOLE" in line]
        return result.stdout, console

    return load


def pytest_ignore_collect(collection_path, config):
    """Leave the folders' ``conftest.py`` files out of ``--doctest-modules``.

    They hold no doctests, and the folders are not packages: collected as
    modules, two of them share the name ``conftest``, and naming two such
    folders in one command (``pytest tests/report tests/pipeline``) stopped
    with "import file mismatch". pytest still loads them as conftest files.
    """
    if collection_path.name == "conftest.py":
        return True
    return None
