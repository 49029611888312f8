"""Thread limits: the solvers' BLAS, OpenMP per calling thread, and the
threads a model borrows for one fit."""

import threading

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController, threadpool_limits

from labelclean.ensemble import SPBLClassifier
from labelclean.linear_model import RoSRClassifier
from labelclean.utils._threads import fit_on_threads, one_openmp_thread


def _blas_threads() -> int:
    # numpy's and scipy's BLAS, which the solvers use (other libraries, such
    # as faiss, bring their own copies)
    info = ThreadpoolController().select(user_api="blas").info()
    ours = [
        lib for lib in info if "numpy" in lib["filepath"] or "scipy" in lib["filepath"]
    ]
    return max(lib["num_threads"] for lib in ours or info)


@pytest.mark.parametrize(
    "make",
    [
        lambda: SPBLClassifier(n_estimators=3, random_state=0),
        lambda: RoSRClassifier(),
    ],
    ids=["SPBL", "RoSR"],
)
def test_solvers_run_on_one_blas_thread(make, monkeypatch):
    # Multi-threaded OpenBLAS made L-BFGS-B's tiny steps 10x+ slower; every
    # solve must run on one BLAS thread whatever the caller's setting.
    from scipy import optimize

    seen = []
    original = optimize.minimize

    def recording(*args, **kwargs):
        seen.append(_blas_threads())
        return original(*args, **kwargs)

    monkeypatch.setattr(optimize, "minimize", recording)
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.3 * rng.normal(size=120) > 0).astype(int)
    with threadpool_limits(limits=2, user_api="blas"):
        assert _blas_threads() == 2
        make().fit(X, y)
        assert _blas_threads() == 2  # restored after each solve
    assert seen, "the estimator never called scipy.optimize.minimize"
    assert set(seen) == {1}


def test_one_openmp_thread_limits_only_the_calling_thread():
    import faiss

    seen = {}

    def limited():
        seen["before"] = faiss.omp_get_max_threads()
        with one_openmp_thread():
            seen["inside"] = faiss.omp_get_max_threads()
            seen["other"] = _in_new_thread(faiss.omp_get_max_threads)
        seen["after"] = faiss.omp_get_max_threads()
        with one_openmp_thread(enabled=False):
            seen["disabled"] = faiss.omp_get_max_threads()

    main_before = faiss.omp_get_max_threads()
    worker = threading.Thread(target=limited)
    worker.start()
    worker.join()
    assert seen["inside"] == 1
    assert seen["after"] == seen["disabled"] == seen["before"]
    # other threads keep their own setting
    assert seen["other"] == seen["before"]
    assert faiss.omp_get_max_threads() == main_before


def _in_new_thread(func):
    box = []
    thread = threading.Thread(target=lambda: box.append(func()))
    thread.start()
    thread.join()
    return box[0]


class _Recorder:
    """Records the ``n_jobs`` its fit saw."""

    def __init__(self, n_jobs=None, fail=False):
        self.n_jobs, self.fail, self.seen = n_jobs, fail, []

    def get_params(self, deep=True):
        return {"n_jobs": self.n_jobs, "fail": self.fail}

    def set_params(self, **params):
        vars(self).update(params)
        return self

    def fit(self, X, y):
        self.seen.append(self.n_jobs)
        if self.fail:
            raise ValueError("no fit")
        return self


def test_a_model_borrows_the_threads_for_its_fit_only():
    free, own = _Recorder(), _Recorder(n_jobs=3)
    assert fit_on_threads(free, 2, [[0]], [0]) is free
    assert fit_on_threads(own, 2, [[0]], [0]) is own
    assert (free.seen, free.n_jobs) == ([2], None)  # the file records no count
    assert (own.seen, own.n_jobs) == ([3], 3)  # its own setting wins
    fit_on_threads(free, None, [[0]], [0])
    assert free.seen == [2, None]
    unlisted = _Recorder()
    unlisted.get_params = dict  # an n_jobs attribute, but no such parameter
    fit_on_threads(unlisted, 2, [[0]], [0])
    assert unlisted.seen == [None]
    failing = _Recorder(fail=True)
    with pytest.raises(ValueError, match="no fit"):
        fit_on_threads(failing, -1, [[0]], [0])
    assert (failing.seen, failing.n_jobs) == ([-1], None)
