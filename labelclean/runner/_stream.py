"""Deciding rows batch by batch with a fitted pipeline, in bounded memory.

The pieces every engine shares (the single-machine stream here, the Dask
engine of :mod:`labelclean.runner._dask`):

* :func:`decide_frame` and :func:`decide_rows`: one batch (or partition) in,
  its audit rows and cleaned rows out, by :meth:`LabelCleaner.audit` (rows
  the pipeline was fitted on keep their fit-time audit) -- the same code
  whatever the engine, so every engine decides every row identically;
* :func:`stream_decide`: read a parquet source with
  :func:`~labelclean.io.iter_batches`, decide each batch, append it to the
  audit and cleaned files with :class:`~labelclean.io.ParquetBatchWriter`,
  and fold it into the summary, reading the next batch and writing the
  previous one while it decides. Memory holds a few batches, the fitted
  pipeline and the summary, whatever the number of rows.
"""

from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from joblib import effective_n_jobs

from labelclean.io import iter_batches, schema_field_types
from labelclean.report import AuditSummary
from labelclean.utils._audit import label_dtype_with_missing, renamed_user_columns
from labelclean.utils._threads import one_openmp_thread
from labelclean.validation import InputChecks

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "StreamOutcome",
    "cleaned_frame",
    "decide_frame",
    "decide_rows",
    "read_rows",
    "stream_decide",
]

#: Rows per batch of the streaming engine.
DEFAULT_BATCH_SIZE = 65_536


def cleaned_frame(frame: pd.DataFrame, audit: pd.DataFrame, label: str) -> pd.DataFrame:
    """``frame``'s kept and corrected rows, with the audit's cleaned labels."""
    keep = (audit["decision"] != "discarded").to_numpy()
    cleaned = frame.loc[keep].copy()
    new = audit["cleaned_label"].array[keep]  # to_numpy makes Int64 floats
    cleaned[label] = pd.Series(new, index=cleaned.index).astype(frame[label].dtype)
    return cleaned


def _with_audit_columns(frame: pd.DataFrame, audit_cols: pd.DataFrame) -> pd.DataFrame:
    """``frame``'s columns, renamed where they clash with the audit's, then
    the audit columns."""
    user = frame.rename(columns=renamed_user_columns(list(frame.columns)))
    return pd.concat([user, audit_cols], axis=1)


def input_field_types(schema: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Types the audit and the cleaned data keep from the input's schema.

    The outputs hold the input's columns in the input's Arrow types, not in
    the types pyarrow would infer again from pandas' dtypes, which differ for
    the same values (:func:`~labelclean.io.schema_field_types`): ``string``
    comes back ``large_string``, ``time32`` as ``time64``, and a
    ``decimal128``'s precision is inferred from the first batch's values (so
    the outputs would narrow it, and a later batch with a larger value could
    not be written). A user's schema downstream (an append to a table, a
    join) then holds. The types are given under the names each output gives
    the columns (:func:`~labelclean.utils._audit.renamed_user_columns` in the
    audit).

    Returns
    -------
    audit, cleaned : dict of str to pyarrow.DataType
    """
    given = schema_field_types(schema)
    renamed = renamed_user_columns(list(schema.names))
    return {renamed.get(k, k): t for k, t in given.items()}, given


def decide_frame(
    cleaner: Any, frame: pd.DataFrame, *, label: str, features: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Decide the rows of one batch with a fitted :class:`LabelCleaner`.

    Parameters
    ----------
    cleaner : LabelCleaner
        Fitted pipeline; not refitted.
    frame : pandas.DataFrame
        Rows with the training feature columns and a label column.
    label : str
        The label column.
    features : list of str
        The feature columns the cleaner was fitted with.

    Returns
    -------
    audit : pandas.DataFrame
        ``frame``'s columns followed by the audit columns, one row per row of
        ``frame``, same index (a column of ``frame`` named like an audit
        column is renamed ``<name>_input``). ``cleaned_label`` always has the
        dtype the label takes with missing values, so every batch has the
        same schema.
    cleaned : pandas.DataFrame
        ``frame``'s kept and corrected rows, with the cleaned labels.
    """
    audit_cols = cleaner.audit(
        frame[features], frame[label], user_columns=False, check_features=False
    )
    audit_cols["cleaned_label"] = audit_cols["cleaned_label"].astype(
        label_dtype_with_missing(audit_cols["observed_label"].dtype)
    )
    audit = _with_audit_columns(frame, audit_cols)
    return audit, cleaned_frame(frame, audit_cols, label)


def decide_rows(
    cleaner: Any,
    frame: pd.DataFrame,
    *,
    label: str,
    features: list[str],
    offset: int = 0,
    fit_positions: np.ndarray | None = None,
    fit_audit: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`decide_frame`, except for the rows the cleaner was fitted on.

    Parameters
    ----------
    cleaner, frame, label, features
        As for :func:`decide_frame`.
    offset : int, default=0
        Position of ``frame``'s first row in the whole input.
    fit_positions : ndarray of int, default=None
        Sorted positions (in the whole input) of the rows the cleaner was
        fitted on; those rows are not asked again (a training row would be
        its own nearest neighbour) and keep their fit-time decision and
        evidence. None: no row of ``frame`` was a training row.
    fit_audit : DataFrame, default=None
        ``cleaner.audit_``, row ``i`` for position ``fit_positions[i]``.

    Returns
    -------
    audit, cleaned : pandas.DataFrame
        As for :func:`decide_frame`.
    """
    if fit_positions is None:
        return decide_frame(cleaner, frame, label=label, features=features)
    n = len(frame)
    lo, hi = np.searchsorted(fit_positions, [offset, offset + n])
    inside = np.zeros(n, dtype=bool)
    inside[fit_positions[lo:hi] - offset] = True
    if not inside.any():
        return decide_frame(cleaner, frame, label=label, features=features)
    parts = []
    if (~inside).any():
        rest = frame.loc[~inside]
        cols = cleaner.audit(
            rest[features], rest[label], user_columns=False, check_features=False
        )
        parts.append(cols)
    fitted = fit_audit.iloc[lo:hi].set_axis(frame.index[inside])
    parts.append(fitted)
    audit_cols = pd.concat(parts) if len(parts) > 1 else parts[0]
    audit_cols = audit_cols.reindex(frame.index)
    audit_cols["cleaned_label"] = audit_cols["cleaned_label"].astype(
        label_dtype_with_missing(frame[label].dtype)
    )
    if "spl_zero_round" in audit_cols.columns:
        audit_cols["spl_zero_round"] = audit_cols["spl_zero_round"].astype("Int64")
    audit = _with_audit_columns(frame, audit_cols)
    return audit, cleaned_frame(frame, audit_cols, label)


@dataclass
class StreamOutcome:
    """What an engine did: the report's summary, the input checks, the batches."""

    summary: AuditSummary
    input_checks: InputChecks | None
    n_batches: int


def stream_decide(
    cleaner: Any,
    source: Any,
    folder: Any,
    *,
    label: str,
    features: list[str],
    id_column: str | None,
    names: dict[str, str],
    metadata: dict[str, Any] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    checks: InputChecks | None = None,
    progress: Callable[[int], Any] | None = None,
    fit_positions: np.ndarray | None = None,
    fit_audit: pd.DataFrame | None = None,
    n_jobs: int | None = None,
) -> StreamOutcome:
    """Decide every row of ``source`` batch by batch into ``folder``.

    Parameters
    ----------
    cleaner : LabelCleaner
        Fitted pipeline.
    source : ParquetSource
        The input (:func:`~labelclean.io.inspect_parquet`).
    folder : OutputFolder
        Open output folder; ``names['audit']`` and ``names['cleaned']`` are
        written into it, one batch at a time. Both files keep the input's
        index as a stored index column, so every output row names its input
        row.
    label, features, id_column : str, list of str, str or None
        Columns, as at fit time.
    names : dict
        Output file names (keys ``'audit'`` and ``'cleaned'``).
    metadata : dict, default=None
        labelclean metadata stored in both files.
    batch_size : int, default=DEFAULT_BATCH_SIZE
        Most rows per batch.
    checks : InputChecks, default=None
        Input checks run on every batch before it is decided; None checks
        nothing (the caller validated every row already).
    progress : callable, default=None
        Called with the number of rows of each finished batch.
    fit_positions, fit_audit : ndarray of int and DataFrame, default=None
        The rows the cleaner was fitted on and their audit
        (:func:`decide_rows`).
    n_jobs : int, default=None
        Batches decided at once, each on one thread (joblib's convention:
        None is 1, -1 every processor). Memory holds ``n_jobs + 2`` batches.
        The outputs do not depend on it.

    Returns
    -------
    outcome : StreamOutcome
    """
    summary = AuditSummary(id_column=id_column)
    n_workers = effective_n_jobs(n_jobs)

    def decide(frame: pd.DataFrame, offset: int) -> tuple[Any, Any]:
        with one_openmp_thread(n_workers > 1):
            return decide_rows(
                cleaner,
                frame,
                label=label,
                features=features,
                offset=offset,
                fit_positions=fit_positions,
                fit_audit=fit_audit,
            )

    audit_types, cleaned_types = input_field_types(source.schema)
    with (
        folder.parquet_writer(
            names["audit"],
            metadata=metadata,
            preserve_index=True,
            field_types=audit_types,
        ) as audit_writer,
        folder.parquet_writer(
            names["cleaned"],
            metadata=metadata,
            preserve_index=True,
            field_types=cleaned_types,
        ) as cleaned_writer,
    ):

        def write(audit: pd.DataFrame, cleaned: pd.DataFrame) -> None:
            audit_writer.write(audit)
            cleaned_writer.write(cleaned)
            summary.add(audit)
            if progress is not None:
                progress(len(audit))

        n_batches = _overlapped(
            iter_batches(source, batch_size=batch_size, row_id=None),
            check=None if checks is None else checks.add,
            decide=decide,
            write=write,
            n_workers=n_workers,
        )
    return StreamOutcome(summary=summary, input_checks=checks, n_batches=n_batches)


def _overlapped(
    batches: Iterator[pd.DataFrame],
    *,
    check: Callable[[pd.DataFrame], None] | None,
    decide: Callable[[pd.DataFrame, int], tuple[Any, Any]],
    write: Callable[[Any, Any], None],
    n_workers: int,
) -> int:
    """Read, decide and write batches at once; returns the number of batches.

    Batches in flight: the next one is read, up to ``n_workers`` are decided
    (each on one thread; the neighbour search and the boosting kernels run
    without the GIL), and the previous one is written and folded into the
    summary, all at once. Each batch is decided on its own, so the threads
    change no output; batches are checked, decided and written in input order.
    """
    decided: deque = deque()
    written = None
    n_batches = 0

    def write_done(limit: int) -> None:
        nonlocal written
        while len(decided) > limit:
            audit, cleaned = decided.popleft().result()
            if written is not None:
                written.result()
            written = writer.submit(write, audit, cleaned)

    with (
        ThreadPoolExecutor(1, thread_name_prefix="labelclean-read") as reader,
        ThreadPoolExecutor(n_workers, thread_name_prefix="labelclean") as deciders,
        ThreadPoolExecutor(1, thread_name_prefix="labelclean-write") as writer,
    ):
        next_frame = reader.submit(next, batches, None)
        offset = 0
        while (frame := next_frame.result()) is not None:
            next_frame = reader.submit(next, batches, None)
            if check is not None:
                check(frame)
            decided.append(deciders.submit(decide, frame, offset))
            offset += len(frame)
            n_batches += 1
            write_done(n_workers - 1)
        write_done(0)
        if written is not None:
            written.result()
    return n_batches


def read_rows(source: Any, positions: np.ndarray, batch_size: int) -> pd.DataFrame:
    """The rows at sorted ``positions`` of ``source``, read batch by batch."""
    parts = []
    offset = 0
    for frame in iter_batches(source, batch_size=batch_size, row_id=None):
        n = len(frame)
        lo, hi = np.searchsorted(positions, [offset, offset + n])
        if hi > lo:
            parts.append(frame.iloc[positions[lo:hi] - offset])
        offset += n
    return pd.concat(parts) if len(parts) > 1 else parts[0]
