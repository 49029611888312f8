"""The Dask engine: decide every partition of a parquet dataset on a cluster.

The fitted pipeline is the same :class:`~labelclean.pipeline.LabelCleaner`,
and every partition goes through the same function as every batch of the
single-machine stream (:func:`~labelclean.runner._stream.decide_rows`), so
the two engines give the same rows and decisions, and the same outcome
(:class:`~labelclean.runner._stream.StreamOutcome`).

* :func:`dask_client`: a client of the scheduler at ``scheduler``, else at
  ``DASK_SCHEDULER_ADDRESS``, else of a new local cluster.
* :func:`read_partitions`: the input as a :class:`dask.dataframe.DataFrame`
  with one partition per row group, each row indexed by its position in the
  whole input (its identity in every output).
* :func:`audit_partition`: ``map_partitions``-ready: one partition in, its
  audit rows out. For users who embed the stages in their own Dask jobs.
* :func:`decide_dask`: what ``--engine dask`` runs. The fitted cleaner is
  scattered once to every worker (``client.scatter(..., broadcast=True)``,
  so the neighbour index travels once per worker, not once per task); each
  task reads one partition, decides it, writes ``audit/part.NNNNN.parquet``
  and ``cleaned/part.NNNNN.parquet`` into the output folder and returns a
  small :class:`~labelclean.report.AuditSummary`, merged on the driver into
  one report.

The output folder must be on storage the workers can write to (a shared
file system when they run on other machines), as for ``DataFrame.to_parquet``.
Dask is an optional extra (``pip install labelclean[dask]``); nothing here
imports it before it is needed.
"""

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from labelclean.io import (
    ParquetSource,
    arrow_to_pandas,
    cast_to_schema,
    inspect_parquet,
    write_parquet,
)
from labelclean.report import AuditSummary
from labelclean.runner._stream import (
    StreamOutcome,
    decide_frame,
    decide_rows,
    input_field_types,
)
from labelclean.validation import InputChecks

__all__ = [
    "audit_partition",
    "dask_client",
    "decide_dask",
    "read_partitions",
]


def _require_dask() -> None:
    try:
        # lazy: optional extra (labelclean[dask])
        import dask
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "the Dask engine needs dask[dataframe] and distributed; install them "
            "with `pip install labelclean[dask]`."
        ) from exc


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, **cluster_kwargs: Any) -> Iterator[Any]:
    """A Dask client for the duration of a ``with`` block.

    Parameters
    ----------
    scheduler : str, default=None
        Scheduler address (``tcp://host:8786``). ``None`` uses the
        ``DASK_SCHEDULER_ADDRESS`` environment variable, and without it a
        :class:`distributed.LocalCluster` started for the block.
    **cluster_kwargs
        Passed to :class:`distributed.LocalCluster` when one is started.

    Yields
    ------
    client : distributed.Client
    """
    _require_dask()
    # lazy: optional extra (labelclean[dask])
    from distributed import Client, LocalCluster

    address = scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if address:
        with Client(address) as client:
            yield client
        return
    # ":0": any free port, so a second cluster never warns that 8787 is taken.
    kwargs = {"dashboard_address": ":0", **cluster_kwargs}
    with LocalCluster(**kwargs) as cluster, Client(cluster) as client:
        yield client


@dataclass(frozen=True)
class _Part:
    """One partition: a row group of a file and its first row's position."""

    number: int
    path: str
    row_group: int
    offset: int
    n_rows: int


def _parts(source: Any) -> list[_Part]:

    parts = []
    offset = 0
    for path in source.files:
        meta = pq.ParquetFile(path).metadata
        for group in range(meta.num_row_groups):
            n = meta.row_group(group).num_rows
            parts.append(_Part(len(parts), str(path), group, offset, n))
            offset += n
    return parts


def _read_part(part: _Part, schema: Any = None) -> pd.DataFrame:
    """A partition's rows, indexed by their positions in the whole input, in
    ``schema``'s types (the folder's unified schema, see
    :func:`~labelclean.io.inspect_parquet`)."""

    pf = pq.ParquetFile(part.path, pre_buffer=False, page_checksum_verification=True)
    table = pf.read_row_group(part.row_group, use_pandas_metadata=True)
    frame = arrow_to_pandas(table if schema is None else cast_to_schema(table, schema))
    frame.index = pd.RangeIndex(part.offset, part.offset + len(frame))
    return frame


def read_partitions(source: Any) -> Any:
    """The parquet input as a Dask DataFrame, one partition per row group.

    Parameters
    ----------
    source : str, path-like or ParquetSource
        A parquet file or folder (:func:`~labelclean.io.inspect_parquet`).

    Returns
    -------
    ddf : dask.dataframe.DataFrame
        Rows indexed by their position in the whole input (files in the
        order of :func:`~labelclean.io.list_parquet_files`). Columns have the
        dtypes pandas gives the file (labelclean reads each row group with
        pyarrow, not with ``dd.read_parquet``, whose string dtype differs on
        pandas 3).
    """
    _require_dask()
    # lazy: optional extra (labelclean[dask])
    import dask.dataframe as dd

    src = source if isinstance(source, ParquetSource) else inspect_parquet(source)
    parts = _parts(src)
    meta = _read_part(parts[0], src.schema).iloc[:0] if parts else None
    return dd.from_map(
        _read_part, parts, args=[src.schema], meta=meta, enforce_metadata=False
    )


def audit_partition(
    frame: pd.DataFrame, cleaner: Any, *, label: str, features: list[str]
) -> pd.DataFrame:
    """Decide one partition: ``ddf.map_partitions(audit_partition, cleaner, ...)``.

    Parameters
    ----------
    frame : pandas.DataFrame
        A partition with the training feature columns and the label column.
    cleaner : LabelCleaner
        Fitted pipeline (pass a future from ``client.scatter(cleaner,
        broadcast=True)`` to ship it once per worker).
    label : str
        Label column.
    features : list of str
        Feature columns of the fit.

    Returns
    -------
    audit : pandas.DataFrame
        The partition's columns plus the audit columns, as
        :meth:`LabelCleaner.audit` gives them.
    """
    if not len(frame):
        return frame.iloc[:0]
    audit, _ = decide_frame(cleaner, frame, label=label, features=features)
    return audit


def _process(
    part: _Part,
    cleaner: Any,
    label: str,
    features: list[str],
    id_column: str | None,
    checks: InputChecks | None,
    paths: tuple[str, str],
    metadata: dict[str, Any] | None,
    fit_positions: Any,
    fit_audit: Any,
    field_types: tuple[dict[str, Any], dict[str, Any]] = ({}, {}),
    schema: Any = None,
) -> tuple[AuditSummary, InputChecks | None]:
    """One task: read (in the folder's ``schema``), check and decide a
    partition, write its two parts."""
    frame = _read_part(part, schema)
    if checks is not None:
        checks = checks.fresh()  # this partition's own totals
        checks.add(frame)
    fitted = {}
    if fit_positions is not None:
        lo, hi = np.searchsorted(
            fit_positions, [part.offset, part.offset + part.n_rows]
        )
        fitted = {
            "fit_positions": fit_positions[lo:hi],
            "fit_audit": fit_audit.iloc[lo:hi],
        }
    audit, cleaned = decide_rows(
        cleaner, frame, label=label, features=features, offset=part.offset, **fitted
    )
    # A materialised index (never a RangeIndex, which parquet stores as
    # metadata only) gives every part the same schema.
    for frame_out, path, types in zip(
        (audit, cleaned), paths, field_types, strict=True
    ):
        frame_out.index = pd.Index(np.asarray(frame_out.index, dtype=np.int64))
        write_parquet(frame_out, path, metadata=metadata, field_types=types)
    summary = AuditSummary(id_column=id_column)
    summary.add(audit, positions=np.asarray(audit.index, dtype=np.int64))
    return summary, checks


def decide_dask(
    cleaner: Any,
    source: Any,
    folder: Any,
    *,
    label: str,
    features: list[str],
    id_column: str | None,
    names: dict[str, str],
    metadata: dict[str, Any] | None = None,
    checks: InputChecks | None = None,
    client: Any = None,
    scheduler: str | None = None,
    fit_positions: Any = None,
    fit_audit: Any = None,
) -> StreamOutcome:
    """Decide every partition of ``source`` on Dask into ``folder``.

    Writes ``<names['audit']>/part.NNNNN.parquet`` and
    ``<names['cleaned']>/part.NNNNN.parquet`` (folders named as
    ``output_names('dask')`` names them; one part per row group of the
    input, numbered in input order) and returns the merged summary. Arguments as for
    :func:`~labelclean.runner._stream.stream_decide`; ``client`` is used
    as given, else one is made by :func:`dask_client` from ``scheduler``.

    Returns
    -------
    outcome : StreamOutcome
    """
    _require_dask()
    # lazy: optional extra (labelclean[dask])
    import dask

    parts = _parts(source)
    paths = [
        tuple(
            str(folder.file_path(f"{names[k]}/part.{p.number:05d}.parquet"))
            for k in ("audit", "cleaned")
        )
        for p in parts
    ]

    field_types = input_field_types(source.schema)

    def run(cl: Any) -> list[Any]:
        shipped = cl.scatter(cleaner, broadcast=True)
        fitted = positions = None
        if fit_audit is not None:
            fitted = cl.scatter(fit_audit, broadcast=True)
            positions = cl.scatter(fit_positions, broadcast=True)
        tasks = [
            dask.delayed(_process, pure=False)(
                part,
                shipped,
                label,
                list(features),
                id_column,
                checks,
                path,
                metadata,
                positions,
                fitted,
                field_types,
                source.schema,
            )
            for part, path in zip(parts, paths, strict=True)
        ]
        return list(cl.compute(tasks, sync=True))

    if client is not None:
        results = run(client)
    else:
        with dask_client(scheduler) as cl:
            results = run(cl)
    summary = AuditSummary(id_column=id_column)
    for part_summary, part_checks in results:
        summary.merge(part_summary)
        if checks is not None:
            checks.merge(part_checks)
    return StreamOutcome(summary=summary, input_checks=checks, n_batches=len(parts))
