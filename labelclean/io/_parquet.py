"""Reading parquet: whole tables, streams of batches, clear errors.

:func:`inspect_parquet` opens a parquet file or a folder of parquet files by
their footers only (cheap, no data read) and returns a :class:`ParquetSource`:
the files, their common schema and row counts. It is where bad input is
turned into one clear :class:`~labelclean.exceptions.InputFileError`
(missing path, empty folder, zero-byte file, a file that is not parquet, a
truncated or corrupt file, a folder whose files disagree on their columns or
on what a column holds; files that differ only in how their writer typed the
same values, such as ``int64`` and ``double``, are read in one common type).
:func:`read_parquet` reads a whole source into one DataFrame;
:func:`iter_batches` streams it as DataFrames of at most ``batch_size`` rows
with bounded memory (``pre_buffer=False``, one row group at a time) and keeps
each row's identity across batches and files. Both give the same rows, index
and dtypes.

Files are read with page-checksum verification, so corruption inside a data
page of a file written with checksums (as labelclean writes them, see
:mod:`labelclean.io._parquet_write`) is reported instead of being read back
as wrong values. Input files are opened read-only and never modified.
"""

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from pandas.api.types import union_categoricals

from labelclean.exceptions import DataValidationError, InputFileError
from labelclean.io._schemas import (
    arrow_to_pandas,
    cast_to_schema,
    empty_columns,
    folder_schema,
    say_partitions,
    schema_mismatch,
)
from labelclean.utils._suggest import close_match

__all__ = [
    "LABELCLEAN_METADATA_KEY",
    "ParquetSource",
    "inspect_parquet",
    "iter_batches",
    "list_parquet_files",
    "read_labelclean_metadata",
    "read_parquet",
]

LABELCLEAN_METADATA_KEY = b"labelclean"
_MAGIC = b"PAR1"
_ENCRYPTED_MAGIC = b"PARE"
_PARQUET_SUFFIXES = (".parquet", ".parq", ".pq")
_DEFAULT_COMPRESSION = "zstd"


# --------------------------------------------------------------------------
# Finding and opening files
# --------------------------------------------------------------------------


def _is_hidden(relative: Path) -> bool:
    # Dask/Spark/Hadoop side files (_SUCCESS, _metadata, _common_metadata) and
    # hidden files (.part.tmp, labelclean's own temporary files) are not data.
    return any(part.startswith((".", "_")) for part in relative.parts)


def list_parquet_files(path: str | os.PathLike[str]) -> list[Path]:
    """The parquet files of a source: the file itself, or a folder's files.

    A folder is searched recursively for files ending in ``.parquet``,
    ``.parq`` or ``.pq``; names starting with ``.`` or ``_`` (temporary files,
    ``_SUCCESS``, ``_metadata``) are skipped. Files are returned sorted by
    their path relative to the folder, so the row order of a folder is
    reproducible.

    Parameters
    ----------
    path : str or path-like
        A parquet file or a folder holding parquet files.

    Returns
    -------
    files : list of Path

    Raises
    ------
    InputFileError
        If ``path`` does not exist, or is a folder without parquet files.
    """
    path = Path(path)
    if not path.exists():
        raise InputFileError(
            f"input {str(path)!r} does not exist; check the path and the current "
            "directory."
        )
    if not path.is_dir():
        return [path]
    files = sorted(
        (
            p
            for p in path.rglob("*")
            if p.suffix.lower() in _PARQUET_SUFFIXES
            and p.is_file()
            and not _is_hidden(p.relative_to(path))
        ),
        key=lambda p: p.relative_to(path).as_posix(),
    )
    if not files:
        raise InputFileError(
            f"input folder {str(path)!r} holds no parquet files (looked for "
            f"{', '.join('*' + s for s in _PARQUET_SUFFIXES)}, recursively); point "
            "to a parquet file or a folder of them."
        )
    return files


def _describe_non_parquet(head: bytes) -> str:
    if head.startswith(b"\x1f\x8b"):
        return "it looks like a gzip archive"
    if head.startswith(b"PK"):
        return "it looks like a zip archive (an Excel file?)"
    if head.startswith(b"ARROW1"):
        return "it looks like an Arrow IPC/Feather file"
    if head.startswith((b"{", b"[")):
        return "it looks like JSON text"
    for cut in range(4):  # the sample may end inside a multi-byte character
        try:
            text = head[: len(head) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if text and all(ch.isprintable() or ch in "\t\r\n" for ch in text):
            return "it looks like text (CSV?)"
        break
    return "its content is not recognised"


def _check_magic(path: Path) -> int:
    """Classify a file by its first and last bytes; return its size."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(64)
            if size >= 4:
                handle.seek(size - 4)
                tail = handle.read(4)
            else:
                tail = b""
    except OSError as exc:
        raise InputFileError(
            f"cannot read input file {str(path)!r}: {exc.strerror or exc}; check "
            "its permissions."
        ) from exc
    if size == 0:
        raise InputFileError(
            f"input file {str(path)!r} is empty (0 bytes), not parquet; was it "
            "written completely? Re-export it or remove it from the input."
        )
    if head.startswith(_ENCRYPTED_MAGIC):
        raise InputFileError(
            f"input file {str(path)!r} is an encrypted parquet file, which "
            "labelclean cannot read; decrypt it first."
        )
    if not head.startswith(_MAGIC):
        raise InputFileError(
            f"input file {str(path)!r} is not a parquet file: "
            f"{_describe_non_parquet(head[:64])}; convert it to parquet first "
            "(e.g. pandas.read_csv(...).to_parquet(...))."
        )
    if size < 12 or tail != _MAGIC:
        raise InputFileError(
            f"input file {str(path)!r} is truncated or corrupt: it starts like a "
            f"parquet file but its footer is missing ({size} bytes); it was "
            "probably cut short while being written or copied. Re-export it."
        )
    return size


def _open_parquet_file(path: Path) -> Any:

    _check_magic(path)
    try:
        return pq.ParquetFile(path, pre_buffer=False, page_checksum_verification=True)
    except pa.ArrowInvalid as exc:
        raise InputFileError(
            f"input file {str(path)!r} is corrupt: its parquet footer cannot be "
            f"read ({exc}); re-export the file."
        ) from exc
    except OSError as exc:
        raise InputFileError(
            f"input file {str(path)!r} is corrupt: its parquet metadata cannot be "
            f"decoded ({exc}); re-export the file."
        ) from exc


@dataclass(frozen=True)
class ParquetSource:
    """A parquet file or folder, checked and described by its footers.

    Attributes
    ----------
    path : Path
        The file or folder as given.
    files : tuple of Path
        The parquet files, in reading order.
    schema : pyarrow.Schema
        The common Arrow schema (the first file's, with its metadata).
    file_rows : tuple of int
        Number of rows of each file.
    file_schemas : tuple of pyarrow.Schema
        Each file's own Arrow schema (``schema`` where they differ only in
        how they type the same values).
    empty_columns : tuple of frozenset of str
        Per file, the columns with no value in any row (by its footer's
        statistics; :func:`~labelclean.io._schemas.empty_columns`).
    """

    path: Path
    files: tuple[Path, ...]
    schema: Any
    file_rows: tuple[int, ...]
    file_schemas: tuple[Any, ...] = ()
    empty_columns: tuple[frozenset[str], ...] = ()

    @property
    def valueless_columns(self) -> frozenset[str]:
        """The columns with no value in any file."""
        return frozenset.intersection(*self.empty_columns or [frozenset()])

    @property
    def num_rows(self) -> int:
        """Total number of rows over all files."""
        return sum(self.file_rows)

    @property
    def columns(self) -> list[str]:
        """Column names, excluding stored pandas index columns."""
        index_cols = set(_materialised_index_columns(self.schema))
        return [name for name in self.schema.names if name not in index_cols]

    @property
    def labelclean_metadata(self) -> dict[str, Any] | None:
        """The first file's labelclean metadata (see :func:`write_parquet`)."""
        return _decode_labelclean_metadata(self.schema.metadata)


def _pandas_metadata(schema: Any) -> dict[str, Any] | None:
    meta = schema.metadata or {}
    raw = meta.get(b"pandas")
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _materialised_index_columns(schema: Any) -> list[str]:
    meta = _pandas_metadata(schema)
    if not meta:
        return []
    return [c for c in meta.get("index_columns", []) if isinstance(c, str)]


def _range_index_spec(schema: Any) -> dict[str, Any] | None:
    meta = _pandas_metadata(schema)
    if not meta:
        return None
    index_columns = meta.get("index_columns", [])
    if len(index_columns) == 1 and isinstance(index_columns[0], dict):
        spec = index_columns[0]
        if spec.get("kind") == "range":
            return spec
    return None


def inspect_parquet(path: str | os.PathLike[str]) -> ParquetSource:
    """Check a parquet file or folder by its footers and describe it.

    No data pages are read, so this is cheap even for large inputs and is the
    right first step before a long run.

    Parameters
    ----------
    path : str or path-like
        A parquet file, or a folder of parquet files (see
        :func:`list_parquet_files`).

    Returns
    -------
    source : ParquetSource

    Raises
    ------
    InputFileError
        For a missing path, a folder without parquet files, a zero-byte file,
        a file that is not parquet, a truncated or corrupt file, or files of
        one folder that disagree on their column names or on what a column
        holds (the message names the files and columns; files whose types
        differ but hold the same values are read in a common type, see
        :func:`~labelclean.io._schemas.folder_schema`).
    """
    path = Path(path)
    files = list_parquet_files(path)
    schemas, rows, empty = [], [], []
    for file in files:
        pf = _open_parquet_file(file)
        schemas.append(pf.schema_arrow)
        rows.append(pf.metadata.num_rows)
        empty.append(frozenset(empty_columns(pf.metadata)))
    problems = [
        msg
        for file, schema in zip(files[1:], schemas[1:], strict=True)
        if (msg := schema_mismatch(files[0], schemas[0], file, schema))
    ]
    schema = (
        folder_schema(path, files, schemas, empty, _open_parquet_file)
        if problems
        else schemas[0]
    )
    if schema is None:
        more = f" (and {len(problems) - 5} more file(s))" if len(problems) > 5 else ""
        raise InputFileError(
            f"the parquet files in {str(path)!r} do not share one schema: "
            f"{' | '.join(problems[:5])}{more}; make the files agree or pass them "
            "separately."
        )
    say_partitions(path, files, schema.names)
    return ParquetSource(
        path=path,
        files=tuple(files),
        schema=schema,
        file_rows=tuple(rows),
        file_schemas=tuple(schemas),
        empty_columns=tuple(empty),
    )


def _as_source(source: "str | os.PathLike[str] | ParquetSource") -> ParquetSource:
    if isinstance(source, ParquetSource):
        return source
    return inspect_parquet(source)


def _check_columns(source: ParquetSource, columns: Sequence[str] | None) -> None:
    if columns is None:
        return
    available = source.columns
    missing = [c for c in columns if c not in available]
    if missing:
        hints = []
        for name in missing:
            close = close_match(name, available)
            if close:
                hints.append(f"{name!r} (did you mean {close!r}?)")
            else:
                hints.append(repr(name))
        raise DataValidationError(
            f"column(s) {', '.join(hints)} not found in {str(source.path)!r}; "
            f"available columns: {available}."
        )


def _check_row_id(source: ParquetSource, row_id: str | None) -> None:
    if row_id is not None and row_id in source.schema.names:
        raise DataValidationError(
            f"the input already has a column named {row_id!r}, which the row id "
            "would overwrite; pass another row_id name."
        )


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------


def _batch_frame(
    record_batch: Any,
    *,
    file_schema: Any,
    single_file: bool,
    position: int,
    file_offset: int,
    file_rows: int,
    row_id: str | None,
) -> Any:
    """Turn one record batch into a DataFrame with its global identity."""

    frame = arrow_to_pandas(record_batch)
    n = len(frame)
    spec = _range_index_spec(file_schema)
    if spec is not None:
        start, step = spec.get("start", 0), spec.get("step", 1)
        stop = spec.get("stop", 0)
        if single_file and len(range(start, stop, step)) == file_rows:
            # The stored RangeIndex, continued across batches, exactly as
            # pandas restores it for the whole file.
            first = start + step * position
            frame.index = pd.RangeIndex(
                first, first + step * n, step, name=spec.get("name")
            )
        else:
            first = file_offset + position
            frame.index = pd.RangeIndex(first, first + n, name=spec.get("name"))
    elif not _materialised_index_columns(file_schema):
        frame.index = pd.RangeIndex(file_offset + position, file_offset + position + n)
    if row_id is not None:
        frame[row_id] = np.arange(
            file_offset + position, file_offset + position + n, dtype=np.int64
        )
    return frame


def iter_batches(
    source: "str | os.PathLike[str] | ParquetSource",
    *,
    batch_size: int = 65_536,
    columns: Sequence[str] | None = None,
    row_id: str | None = "row_id",
) -> Iterator[Any]:
    """Stream a parquet file or folder as DataFrames with bounded memory.

    Files are read one row group at a time with pre-buffering off, so memory
    holds about one batch plus one row group's pages, whatever the file size.

    Parameters
    ----------
    source : str, path-like or ParquetSource
        A parquet file or folder, or the result of :func:`inspect_parquet`.
    batch_size : int, default=65536
        Most rows per batch. A batch never spans two row groups, so batches
        can be smaller.
    columns : list of str, default=None
        Columns to read (stored index columns come along); ``None`` reads all.
    row_id : str or None, default='row_id'
        Name of an added ``int64`` column holding each row's position in the
        whole source (0 to ``num_rows - 1``, files in the order of
        :func:`list_parquet_files`): the explicit row identity that survives
        batching, filtering and concatenation. ``None`` adds no column.

    Yields
    ------
    frame : pandas.DataFrame
        The batch's rows. A stored pandas index (e.g. a named string index)
        is restored; an index stored only as a ``RangeIndex`` description is
        continued across batches, as :func:`read_parquet` gives it for the
        whole source, instead of restarting at 0 in every batch.

    Raises
    ------
    InputFileError
        See :func:`inspect_parquet`; also when a data page turns out to be
        corrupt while reading (the message names the file and row group).
    DataValidationError
        If a requested column does not exist, or ``row_id`` names an existing
        column.
    """

    if batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")
    src = _as_source(source)
    _check_columns(src, columns)
    _check_row_id(src, row_id)
    single_file = len(src.files) == 1
    file_offset = 0
    for file, n_rows in zip(src.files, src.file_rows, strict=True):
        pf = _open_parquet_file(file)
        file_schema = pf.schema_arrow
        position = 0
        for group in range(pf.num_row_groups):
            try:
                batches = pf.iter_batches(
                    batch_size=batch_size,
                    row_groups=[group],
                    columns=list(columns) if columns is not None else None,
                    use_pandas_metadata=True,
                )
                for record_batch in batches:
                    frame = _batch_frame(
                        cast_to_schema(record_batch, src.schema),
                        file_schema=file_schema,
                        single_file=single_file,
                        position=position,
                        file_offset=file_offset,
                        file_rows=n_rows,
                        row_id=row_id,
                    )
                    position += record_batch.num_rows
                    yield frame
            except (pa.ArrowInvalid, OSError) as exc:
                raise InputFileError(
                    f"input file {str(file)!r} is corrupt: row group {group} cannot "
                    f"be read ({exc}); re-export the file."
                ) from exc
        file_offset += n_rows


def read_parquet(
    source: "str | os.PathLike[str] | ParquetSource",
    *,
    columns: Sequence[str] | None = None,
    row_id: str | None = None,
) -> Any:
    """Read a whole parquet file or folder into one DataFrame.

    Parameters
    ----------
    source : str, path-like or ParquetSource
        A parquet file or folder, or the result of :func:`inspect_parquet`.
    columns : list of str, default=None
        Columns to read; ``None`` reads all.
    row_id : str or None, default=None
        Name of an added ``int64`` column holding each row's position in the
        source (see :func:`iter_batches`); ``None`` adds none.

    Returns
    -------
    frame : pandas.DataFrame
        For a single file, what :func:`pandas.read_parquet` returns (same
        columns, dtypes and index), except that an integer column holding a
        missing value stays an integer (pandas' nullable one; see
        :func:`~labelclean.io.arrow_to_pandas`). For a folder, the files' rows in order;
        an index stored as a ``RangeIndex`` becomes the rows' positions in
        the whole folder. Identical to concatenating :func:`iter_batches`.

    Raises
    ------
    InputFileError
        See :func:`inspect_parquet` and :func:`iter_batches`.
    DataValidationError
        See :func:`iter_batches`.
    """

    src = _as_source(source)
    frames = list(iter_batches(src, batch_size=1 << 30, columns=columns, row_id=row_id))
    if not frames:
        # No row groups at all: build the empty frame from the schema.
        table = pa.Table.from_batches([], schema=src.schema)
        if columns is not None:
            table = table.select([*_materialised_index_columns(src.schema), *columns])
        frame = arrow_to_pandas(table)
        if row_id is not None:
            frame[row_id] = pd.Series([], dtype="int64", index=frame.index)
        return frame
    if len(frames) == 1:
        return frames[0]
    # pandas.concat makes objects of categoricals of other categories: union
    # them first (a name given twice is left to validation, which refuses it)
    once = ~frames[0].columns.duplicated(keep=False)
    dtypes = zip(frames[0].dtypes.items(), once, strict=True)
    categorical = [
        n for (n, d), one in dtypes if one and isinstance(d, pd.CategoricalDtype)
    ]
    if categorical:
        for name in categorical:
            cats = union_categoricals(
                [f[name] for f in frames], ignore_order=True
            ).categories
            ordered = frames[0][name].dtype.ordered
            dtype = pd.CategoricalDtype(cats, ordered=ordered)
            frames = [f.assign(**{name: f[name].astype(dtype)}) for f in frames]
    return pd.concat(frames, axis=0)


def _decode_labelclean_metadata(
    meta: Mapping[bytes, bytes] | None,
) -> dict[str, Any] | None:
    if not meta or LABELCLEAN_METADATA_KEY not in meta:
        return None
    try:
        value = json.loads(meta[LABELCLEAN_METADATA_KEY])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_labelclean_metadata(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The labelclean metadata stored in a parquet file's schema, if any.

    Parameters
    ----------
    path : str or path-like
        A parquet file.

    Returns
    -------
    metadata : dict or None
        The JSON object given to :func:`write_parquet` as ``metadata``, or
        ``None`` when the file holds none.
    """
    pf = _open_parquet_file(Path(path))
    return _decode_labelclean_metadata(pf.schema_arrow.metadata)
