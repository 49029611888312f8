"""A Dask scheduler shared by the command-line runs on the Dask engine."""

import pytest


@pytest.fixture(scope="session")
def dask_scheduler():
    """Address of a local Dask cluster with one worker process.

    Each ``--engine dask`` run without ``--scheduler`` starts a cluster of
    its own, whose worker processes import pandas, scikit-learn and
    labelclean again (about 15 s a run on two cores). Runs given this
    address share one worker process, so their tasks still cross a process
    boundary (pickled, as on a real cluster). One test keeps the cluster a
    run starts itself: ``test_cli_with_dask_keeps_dask_logging_off_stderr``.
    The tests that use it are in the xdist group ``"dask"``, so that one
    worker of the suite starts it.
    """
    pytest.importorskip("distributed")
    # lazy: optional extra (labelclean[dask]); skipped above without it
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        yield cluster.scheduler_address
