"""Writing parquet atomically, whole or batch by batch, with labelclean metadata.

:func:`write_parquet` writes a DataFrame or Arrow table atomically (see
:mod:`labelclean.io._atomic`), keeps the user's schema, dtypes and index, and
stores labelclean's own information as JSON under the ``labelclean`` key of
the schema metadata (read back with
:func:`~labelclean.io.read_labelclean_metadata`).
:class:`ParquetBatchWriter` does the same for a stream of batches: the file
appears under its final name only when the stream is complete. Files are
written with page checksums.
"""

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from labelclean.exceptions import DataValidationError, OutputError
from labelclean.io._atomic import atomic_open
from labelclean.io._parquet import _DEFAULT_COMPRESSION, LABELCLEAN_METADATA_KEY

__all__ = [
    "ParquetBatchWriter",
    "schema_field_types",
    "write_parquet",
]


def schema_field_types(schema: Any) -> dict[str, Any]:
    """The types of an Arrow schema's columns, by name, to pass as
    ``field_types`` when the same values are written back from pandas.

    pyarrow would infer other types from pandas' dtypes for the same values:
    ``string`` and ``string_view`` come back ``large_string``, ``time32`` as
    ``time64``, ``large_binary`` as ``binary``, a decimal with the precision
    of the values it sees first. Dictionary columns are left to pyarrow: the
    categories of a table may outgrow the index width of one file's.
    """
    return {f.name: f.type for f in schema if not pa.types.is_dictionary(f.type)}


def _pandas_schema(
    data: pd.DataFrame, preserve_index: bool | None, field_types: Mapping[str, Any]
) -> Any:
    """The schema pyarrow infers for ``data``, with ``field_types`` for the
    columns named there.

    pyarrow infers a ``decimal128`` column's precision from the values it
    sees (the first one, on a large column), so a batch of small amounts gets
    a narrower type than the input had, and a later, larger value cannot be
    written. Those columns take the input's type instead.
    """
    given = {c: t for c, t in field_types.items() if c in data.columns}
    inferred = pa.Schema.from_pandas(
        data.drop(columns=list(given)), preserve_index=preserve_index
    )
    fields = [
        pa.field(c, given[c]) if c in given else inferred.field(c)
        for c in map(str, data.columns)
    ]
    fields += [f for f in inferred if f.name not in set(map(str, data.columns))]
    return pa.schema(fields, metadata=inferred.metadata)


def _with_range_index(table: Any, data: pd.DataFrame) -> Any:
    """``table`` with the description of ``data``'s ``RangeIndex`` in its
    pandas metadata: given a schema, pyarrow leaves such an index out, and a
    range that does not start at 0 would be lost."""
    if not isinstance(data.index, pd.RangeIndex) or b"pandas" not in (
        table.schema.metadata or {}
    ):
        return table
    alone = pa.Schema.from_pandas(data[[]], preserve_index=None).metadata[b"pandas"]
    meta = json.loads(table.schema.metadata[b"pandas"])
    meta["index_columns"] = json.loads(alone)["index_columns"]
    return table.replace_schema_metadata(
        {**table.schema.metadata, b"pandas": json.dumps(meta).encode()}
    )


def _to_table(
    data: Any,
    preserve_index: bool | None,
    schema: Any = None,
    field_types: Mapping[str, Any] | None = None,
) -> Any:

    if isinstance(data, pa.Table):
        return data if schema is None else data.cast(schema)
    if isinstance(data, pa.RecordBatch):
        table = pa.Table.from_batches([data])
        return table if schema is None else table.cast(schema)
    if isinstance(data, pd.DataFrame):
        if data.columns.has_duplicates:
            dupes = sorted({str(c) for c in data.columns[data.columns.duplicated()]})
            raise DataValidationError(
                f"cannot write a table with duplicate column names {dupes}; rename "
                "them first."
            )
        try:
            derived = schema is None and bool(field_types)
            if derived:
                schema = _pandas_schema(data, preserve_index, field_types)
            table = pa.Table.from_pandas(
                data, schema=schema, preserve_index=preserve_index
            )
            if derived and preserve_index is None:
                table = _with_range_index(table, data)
            return table
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
            raise DataValidationError(
                f"cannot write the table as parquet: {exc}; convert the offending "
                "column to a supported type."
            ) from exc
    raise TypeError(
        "data must be a pandas DataFrame or a pyarrow Table/RecordBatch, got "
        f"{type(data).__name__}."
    )


def _with_metadata(schema: Any, metadata: Mapping[str, Any] | None) -> Any:
    if metadata is None:
        return schema
    encoded = json.dumps(dict(metadata), sort_keys=True, allow_nan=False).encode()
    return schema.with_metadata(
        {**(schema.metadata or {}), LABELCLEAN_METADATA_KEY: encoded}
    )


def _writer_options(compression: str | None) -> dict[str, Any]:
    return {"compression": compression or "none", "write_page_checksum": True}


def write_parquet(
    data: Any,
    path: str | os.PathLike[str],
    *,
    metadata: Mapping[str, Any] | None = None,
    preserve_index: bool | None = None,
    compression: str | None = _DEFAULT_COMPRESSION,
    row_group_size: int | None = None,
    field_types: Mapping[str, Any] | None = None,
) -> Path:
    """Write a table to a parquet file atomically.

    Parameters
    ----------
    data : pandas.DataFrame or pyarrow.Table
        The table. Column names, order, dtypes (categoricals, nullable
        integers, pandas strings, timezones) and the index come back
        unchanged from :func:`read_parquet` or :func:`pandas.read_parquet`.
    path : str or path-like
        Destination; its folder must exist. A previous file there is replaced
        only once the new one is complete.
    metadata : dict, default=None
        JSON-serialisable information stored under the ``labelclean`` key of
        the schema metadata (read back with :func:`read_labelclean_metadata`).
        Other schema metadata (pandas' own) is kept.
    preserve_index : bool or None, default=None
        As in :meth:`pyarrow.Table.from_pandas`: ``None`` stores a
        ``RangeIndex`` as metadata only and other indexes as columns.
    compression : str or None, default='zstd'
        Parquet compression codec; ``None`` for none.
    row_group_size : int, default=None
        Most rows per row group (pyarrow's default when ``None``); smaller
        groups let streaming readers use less memory.
    field_types : dict of str to pyarrow.DataType, default=None
        Types of the named columns of a DataFrame (as in
        :class:`ParquetBatchWriter`); the others are inferred.

    Returns
    -------
    path : Path
        The written file.

    Raises
    ------
    OutputError
        If the destination cannot be written (see
        :func:`labelclean.io.atomic_open`).
    DataValidationError
        If the table cannot be represented in parquet.
    """

    table = _to_table(data, preserve_index, field_types=field_types)
    table = table.replace_schema_metadata(
        _with_metadata(table.schema, metadata).metadata
    )
    with atomic_open(path) as handle:
        pq.write_table(
            table, handle, row_group_size=row_group_size, **_writer_options(compression)
        )
    return Path(path)


class ParquetBatchWriter:
    """Write a parquet file batch by batch, atomically.

    The file appears under its final name only when :meth:`close` succeeds
    (or the ``with`` block ends without an error); an error or :meth:`abort`
    removes the partial temporary file and leaves any previous file intact.

    Parameters
    ----------
    path : str or path-like
        Destination file; its folder must exist.
    schema : pyarrow.Schema, default=None
        Schema of every batch. ``None`` takes it from the first batch; later
        batches are converted (cast) to it.
    metadata : dict, default=None
        JSON-serialisable labelclean metadata, as in :func:`write_parquet`.
    preserve_index : bool or None, default=False
        Index handling for DataFrame batches. The default drops the index:
        in a stream, carry row identity in a column (see
        :func:`iter_batches`). ``True`` stores it as a column.
    compression : str or None, default='zstd'
        Parquet compression codec.
    field_types : dict of str to pyarrow.DataType, default=None
        Types of the named columns when the schema is taken from the first
        batch (the input's types for columns copied from it, e.g. the
        precision of its ``decimal128`` columns, which pyarrow would infer
        from the first batch's values).

    Attributes
    ----------
    num_rows : int
        Rows written so far.

    Examples
    --------
    >>> import pandas as pd, tempfile, os
    >>> from labelclean.io import ParquetBatchWriter, read_parquet
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "out.parquet")
    >>> with ParquetBatchWriter(path) as writer:
    ...     writer.write(pd.DataFrame({"a": [1, 2]}))
    ...     writer.write(pd.DataFrame({"a": [3]}))
    >>> read_parquet(path)["a"].tolist()
    [1, 2, 3]
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        schema: Any = None,
        *,
        metadata: Mapping[str, Any] | None = None,
        preserve_index: bool | None = False,
        compression: str | None = _DEFAULT_COMPRESSION,
        field_types: Mapping[str, Any] | None = None,
    ) -> None:
        self.path = Path(path)
        self.schema = schema
        self.field_types = dict(field_types or {})
        self.metadata = metadata
        self.preserve_index = preserve_index
        self.compression = compression
        self.num_rows = 0
        self._stack: contextlib.ExitStack | None = None
        self._handle: IO[bytes] | None = None
        self._writer: Any = None
        self._closed = False

    def _open(self, schema: Any) -> None:

        self.schema = _with_metadata(schema, self.metadata)
        stack = contextlib.ExitStack()
        self._handle = stack.enter_context(atomic_open(self.path))
        self._stack = stack
        try:
            self._writer = pq.ParquetWriter(
                self._handle, self.schema, **_writer_options(self.compression)
            )
        except BaseException:
            self.abort()
            raise

    def write(self, data: Any) -> None:
        """Append a batch (DataFrame, Arrow table or record batch)."""
        if self._closed:
            raise OutputError(f"the writer of {str(self.path)!r} is already closed.")
        try:
            if self.schema is not None:
                self._check_names(data)
            table = _to_table(data, self.preserve_index, self.schema, self.field_types)
            if self._writer is None:
                self._open(table.schema)
            self._writer.write_table(
                table.replace_schema_metadata(self.schema.metadata)
            )
        except BaseException:
            # A stream with a failed batch is incomplete: never let it reach
            # the final name.
            self.abort()
            raise
        self.num_rows += table.num_rows

    def _check_names(self, data: Any) -> None:

        if isinstance(data, pd.DataFrame):
            names = [str(c) for c in data.columns]
            if self.preserve_index:
                # pyarrow names unnamed index levels __index_level_<i>__.
                names += [
                    f"__index_level_{i}__" if n is None else str(n)
                    for i, n in enumerate(data.index.names)
                ]
        else:
            names = list(data.schema.names)
        expected = list(self.schema.names)
        if sorted(names) != sorted(expected):
            raise DataValidationError(
                f"a batch written to {str(self.path)!r} has columns {names} but the "
                f"file's schema has {expected}; every batch needs the same columns."
            )

    def close(self) -> Path:
        """Finish the file and move it to its final name.

        Returns
        -------
        path : Path
            The written file.
        """
        if self._closed:
            return self.path
        if self._writer is None:
            if self.schema is None:
                self.abort()
                raise OutputError(
                    f"nothing was written to {str(self.path)!r} and no schema was "
                    "given, so the file cannot be created."
                )
            self._open(self.schema)
        assert self._stack is not None  # set by _open
        try:
            self._writer.close()
        except BaseException:
            self.abort()
            raise
        self._closed = True
        self._stack.close()  # fsync + rename
        return self.path

    def abort(self) -> None:
        """Drop everything written so far; the final name is left untouched."""
        self._closed = True
        if self._stack is None:
            return
        stack, self._stack = self._stack, None
        with contextlib.suppress(Exception):
            if self._writer is not None:
                self._writer.close()
        # Exiting the atomic context with an exception removes the temp file.
        with contextlib.suppress(_Abort):
            stack.__exit__(_Abort, _Abort(), None)

    def __enter__(self) -> "ParquetBatchWriter":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


class _Abort(Exception):
    """Internal signal used to unwind an atomic write without committing it."""
