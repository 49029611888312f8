"""Schemas of the files of one folder: where they differ, and one they share.

Files written apart may type the same values differently (``int64`` and
``double``, timestamp units, ``large_string``, a dictionary, ``null`` where a
file has no value). :func:`unified_schema` finds one schema every file's rows
can be cast to without changing what a column holds; :func:`cast_to_schema`
casts a record batch or table to it; :func:`schema_mismatch` words the
differences that cannot be unified. :func:`folder_schema` settles a folder's
schema: the unified one, with integer columns that some files wrote as
floating point read as integers where those files hold whole numbers only.
:func:`arrow_to_pandas` turns what is read into the DataFrame every reader
gives.
"""

import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from labelclean.exceptions import InputFileError
from labelclean.utils._column_kinds import EXACT_IN_DOUBLE, ZERO_PADDED

__all__ = [
    "arrow_to_pandas",
    "cast_to_schema",
    "empty_columns",
    "folder_schema",
    "read_as",
    "say_partitions",
    "say_unified",
    "schema_mismatch",
    "unified_schema",
]

logger = logging.getLogger(__name__)


def _schema_signature(schema: Any) -> dict[str, Any]:
    return {f.name: f.type for f in schema}


def schema_mismatch(first: Path, first_schema: Any, other: Path, schema: Any) -> str:
    a, b = _schema_signature(first_schema), _schema_signature(schema)
    parts = []
    missing = [n for n in a if n not in b]
    extra = [n for n in b if n not in a]
    if missing:
        parts.append(f"missing column(s) {missing}")
    if extra:
        parts.append(f"extra column(s) {extra}")
    for name in a:
        if name in b and not a[name].equals(b[name]):
            parts.append(f"column {name!r} is {b[name]} instead of {a[name]}")
    return (
        f"{str(other)!r} differs from {str(first)!r}: " + "; ".join(parts)
        if parts
        else ""
    )


def _arrow_kind(arrow_type: Any) -> str:
    """What a column of ``arrow_type`` holds, as far as a file's writer may
    choose the type: a number, text, a timestamp (of one time zone), ...;
    ``'null'`` for a column with no value in that file."""
    types = pa.types
    if types.is_dictionary(arrow_type):
        return _arrow_kind(arrow_type.value_type)
    for kind, test in (
        ("null", types.is_null),
        ("number", lambda t: types.is_integer(t) or types.is_floating(t)),
        ("exact number", types.is_decimal),
        ("text", lambda t: types.is_string(t) or types.is_large_string(t)),
        ("duration", types.is_duration),
        ("date", types.is_date),
    ):
        if test(arrow_type):
            return kind
    if types.is_timestamp(arrow_type):
        return f"timestamp in {arrow_type.tz}"
    return str(arrow_type)


def _decoded(schema: Any, names: set[str]) -> Any:
    """``schema`` with its dictionary (categorical) columns among ``names``
    as their values."""
    fields = [
        f.with_type(f.type.value_type)
        if f.name in names and pa.types.is_dictionary(f.type)
        else f
        for f in schema
    ]
    return pa.schema(fields, metadata=schema.metadata)


def empty_columns(metadata: Any) -> set[str]:
    """The columns of a parquet file with no value in any row, read from its
    footer's statistics (a column without them counts as holding values)."""
    full: dict[str, bool] = {}
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for j in range(row_group.num_columns):
            column = row_group.column(j)
            stats = column.statistics
            empty = (
                stats is not None
                and stats.has_null_count
                and stats.null_count == row_group.num_rows
            )
            name = column.path_in_schema
            full[name] = full.get(name, True) and empty
    return {name for name, empty in full.items() if empty}


def _nulled(schema: Any, empty: frozenset[str]) -> Any:
    """``schema`` with the ``empty`` columns typed ``null``."""
    fields = [f.with_type(pa.null()) if f.name in empty else f for f in schema]
    return pa.schema(fields, metadata=schema.metadata)


def unified_schema(
    schemas: list[Any], empty: list[frozenset[str]] | None = None
) -> Any:
    """One schema every file's rows can be cast to without changing what a
    column holds, or None.

    Files written apart disagree on types where the values agree: an integer
    column is ``double`` in a file where a value was missing, a column with no
    value is ``null`` (or, read from a CSV file, ``double``: ``empty`` lists
    per file the columns with no value, :func:`empty_columns`, which count
    as ``null``), writers choose other timestamp units, ``large_string`` or a
    dictionary for strings. Such columns are read as the common type
    (``double``, the finest unit, strings; pyarrow's permissive promotion).
    The column names must agree, and a column's values must be of one kind
    (:func:`_arrow_kind`) in every file that has any.
    """
    names = set(schemas[0].names)
    if any(len(set(s.names)) != len(s.names) or set(s.names) != names for s in schemas):
        return None  # other columns, or a name given twice
    given = schemas
    if empty is not None:
        schemas = [_nulled(s, e) for s, e in zip(schemas, empty, strict=True)]
    for name in schemas[0].names:
        kinds = {_arrow_kind(s.field(name).type) for s in schemas} - {"null"}
        if len(kinds) > 1:
            return None
    mixed = {
        name
        for name in schemas[0].names
        if len({pa.types.is_dictionary(s.field(name).type) for s in schemas}) > 1
    }
    if mixed:  # pyarrow does not promote a dictionary to its values
        schemas = [_decoded(s, mixed) for s in schemas]
    try:
        unified = pa.unify_schemas(schemas, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError, NotImplementedError):
        return None
    fields = []
    for name in given[0].names:
        field = unified.field(name)
        if pa.types.is_null(field.type):  # no value in any file: a type given
            typed = [s.field(name).type for s in given]
            typed = [t for t in typed if not pa.types.is_null(t)] or [field.type]
            field = field.with_type(typed[0])
        fields.append(field)
    return pa.schema(fields, metadata=given[0].metadata)


def folder_schema(
    path: Path,
    files: list[Path],
    schemas: list[Any],
    empty: list[frozenset[str]],
    open_file: Callable[[Path], Any],
) -> Any:
    """The schema a folder's files are read in, its differences said, or None
    (:func:`unified_schema`).

    Where some files type a column as integers and others as floating point,
    as a CSV export does for a day whose slice had a gap, the column is read
    as ``int64`` when the floating-point files hold whole numbers only (a
    ``double`` would lose the digits of an id above 2**53, and the input's
    integers would come back as floats). Their values are read to tell
    (``open_file``: a file's ``pyarrow.parquet.ParquetFile``). Where they
    hold fractions too, the column stays ``double``, unless an integer file
    holds a value ``double`` cannot keep: no type then holds every file's
    values, and :class:`~labelclean.exceptions.InputFileError` says so.

    Where some files hold a column as text and others as numbers, as a CSV
    export does for a day whose codes or ids were all digits, the column is
    read as text when the number files hold whole numbers a ``double`` keeps
    exactly (integers, or floating point under 2**53 in magnitude): their
    digits are the text the export held (:func:`_numbers_as_text`).
    """
    text = _numbers_as_text(files, schemas, empty, open_file)
    schema = unified_schema([_as_text(s, text) for s in schemas], empty)
    if schema is None:
        return None
    for i, field in enumerate(schema):
        if pa.types.is_floating(field.type):
            typed = [s.field(field.name).type for s in schemas]
            if any(pa.types.is_integer(t) for t in typed):
                exact = _whole_numbers(files, typed, field.name, open_file)
                schema = schema.set(i, field.with_type(pa.int64())) if exact else schema
    say_unified(path, schemas, schema)
    return schema


def _numbers_as_text(files, schemas, empty, open_file) -> set[str]:
    """Columns that are text in some files and numbers in others, whose
    numbers are whole and written exactly in digits: integers of any size,
    floating point under 2**53 in magnitude (their shortest form is the
    integer's digits), beside text that can stand with them
    (:func:`_text_beside_numbers`). Fractions, NaN or larger floats leave
    the column out, as their text is not known (``100.50`` and ``100.5``
    read alike). Zero-padded codes beside whole numbers are refused with
    :class:`~labelclean.exceptions.InputFileError`, which names a padded
    code and the files."""
    if any(len(set(s.names)) != len(s.names) for s in schemas):
        return set()  # a name given twice: refused (unified_schema)
    nulled = [_nulled(s, e) for s, e in zip(schemas, empty, strict=True)]
    found = set()
    for name in sorted(set.intersection(*(set(s.names) for s in nulled))):
        by_kind: dict[str, list] = {}
        for file, schema in zip(files, nulled, strict=True):
            arrow_type = schema.field(name).type
            by_kind.setdefault(_arrow_kind(arrow_type), []).append((file, arrow_type))
        if set(by_kind) - {"null"} != {"number", "text"}:
            continue
        exact = all(
            pa.types.is_integer(t)
            or _whole(_column(f, name, open_file), EXACT_IN_DOUBLE)
            for f, t in by_kind["number"]
        )
        if not exact:
            continue
        texts = [(f, _as_plain_text(_column(f, name, open_file)))
                 for f, _ in by_kind["text"]]  # fmt: skip
        _refuse_padded(name, texts, by_kind["number"][0][0])
        if _text_beside_numbers([text for _, text in texts]):
            found.add(name)
    return found


def _refuse_padded(name: str, texts: list, numbers: Path) -> None:
    """Refuse a column whose text files (``(file, plain text)`` pairs,
    :func:`_as_plain_text`) hold zero-padded numbers (``"001"``) where the
    file ``numbers`` reads the column as numbers: that file's codes have
    lost their zeros (``1``), and one code would read as two."""
    for file, values in texts:
        padded = values.filter(pc.match_substring_regex(values, ZERO_PADDED))
        if len(padded):
            raise InputFileError(
                f"column {name!r} holds codes with leading zeros such as "
                f"{padded[0].as_py()!r} in {str(file)!r} and numbers in "
                f"{str(numbers)!r}, where a CSV reader read a day of digits "
                "as numbers and dropped their zeros: the same code would read "
                "as two; export the column as text in every file."
            )


def _as_plain_text(column: Any) -> Any:
    """A text column's values (nulls dropped) as plain strings."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    return column.drop_null().cast(pa.string())


def _text_beside_numbers(columns: list[Any]) -> bool:
    """Whether text columns (plain strings, :func:`_as_plain_text`) can
    stand beside files that read the same column as numbers: some value is
    no number (the column is text, and a file whose values were all digits
    was read as numbers). Where every value is a number (``"1"``), the file
    that wrote numbers as text is the odd one."""
    for column in columns:
        try:
            column.cast(pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return True
    return False


def _as_text(schema: Any, names: set[str]) -> Any:
    """``schema`` with the columns ``names`` typed as strings."""
    for name in names:
        i = schema.get_field_index(name)
        if not pa.types.is_null(schema.field(i).type):
            schema = schema.set(i, schema.field(i).with_type(pa.string()))
    return schema


def _whole_numbers(files, typed, name: str, open_file) -> bool:
    """Whether column ``name`` holds whole numbers in ``int64``'s range in the
    files that type it as floating point (no NaN); where not, that no file
    typing it as integers holds a value a ``double`` cannot keep."""
    floating = [f for f, t in zip(files, typed, strict=True) if pa.types.is_floating(t)]
    if any(pa.types.is_uint64(t) for t in typed):  # beyond int64: floats, as before
        other = floating[0]
    else:
        wrong = (f for f in floating if not _whole(_column(f, name, open_file)))
        other = next(wrong, None)
    if other is None:
        return True
    for file, t in zip(files, typed, strict=True):
        if pa.types.is_integer(t):
            values = _column(file, name, open_file).cast(pa.float64(), safe=False)
            limit = pc.max(pc.abs(values))
            if limit.is_valid and limit.as_py() > EXACT_IN_DOUBLE:
                raise InputFileError(
                    f"column {name!r} holds integers beyond 2**53 in {str(file)!r} "
                    f"and numbers no integer type holds in {str(other)!r}: no one "
                    "type holds both exactly (a double would change the "
                    "integers); make the files agree or pass them separately."
                )
    return False


def _whole(values: Any, bound: int = 2**63) -> bool:
    """Whether floating-point ``values`` (nulls aside) are whole numbers in
    [-``bound``, ``bound``) (``int64``'s range by default), none NaN."""
    values = values.drop_null()
    lowest, highest = pc.min_max(values).values()
    return not (
        pc.any(pc.is_nan(values)).as_py()
        or pc.any(pc.not_equal(pc.floor(values), values)).as_py()
        or (lowest.is_valid and (lowest.as_py() < -bound or highest.as_py() >= bound))
    )


def _column(file: Path, name: str, open_file) -> Any:
    """Column ``name`` of ``file``, read whole."""
    try:
        return open_file(file).read(columns=[name]).column(0)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputFileError(
            f"input file {str(file)!r} is corrupt: column {name!r} cannot be read "
            f"({exc}); re-export the file."
        ) from exc


def say_unified(path: Path, schemas: list[Any], unified: Any) -> None:
    """One warning naming the columns read in a type common to the files."""
    parts = []
    for field in unified:
        types = sorted({str(s.field(field.name).type) for s in schemas})
        if len(types) > 1:
            parts.append(f"{field.name!r} ({', '.join(types)}) as {field.type}")
    logger.warning(
        "the parquet files in %r differ in column types that hold the same "
        "values; read %s.",
        str(path),
        "; ".join(parts),
    )


_PARTITION = re.compile(r"([^=]+)=.*")


def say_partitions(path: Path, files: Sequence[Path], columns: Sequence[str]) -> None:
    """One warning when sub-folders of ``path`` are named like partitions
    (``key=value``, as Spark, Hive and pyarrow's datasets write them) whose
    keys no file holds as a column: those values are not read."""
    keys = {
        match.group(1)
        for file in files
        for part in file.relative_to(path).parts[:-1]
        if (match := _PARTITION.fullmatch(part))
    }
    lost = sorted(keys - set(columns))
    if lost:
        one = len(lost) == 1
        logger.warning(
            "the sub-folders of %r are named like partitions (%s); labelclean "
            "reads only the columns the files hold, so %s %s neither %s nor in "
            "the outputs; write %s into the files to keep %s.",
            str(path),
            ", ".join(f"'{k}=...'" for k in lost),
            ", ".join(repr(k) for k in lost),
            "is" if one else "are",
            "a feature" if one else "features",
            "it" if one else "them",
            "it" if one else "them",
        )


def cast_to_schema(batch: Any, schema: Any) -> Any:
    """``batch`` (a record batch or table) in ``schema``'s types, when the
    folder's files were unified (:func:`unified_schema`); a column that
    ``schema`` does not name once keeps its type."""
    fields = []
    for field in batch.schema:
        i = schema.get_field_index(field.name)  # -1: absent or named twice
        fields.append(field if i < 0 else schema.field(i))
    target = pa.schema(fields, metadata=batch.schema.metadata)
    return batch if batch.schema.equals(target) else batch.cast(target)


def read_as(file_schema: Any, schema: Any) -> dict[str, str]:
    """Column -> ``'<its type in the file> as <the common type>'`` for the
    columns of one file that are read in another type (the report and the
    manifest list them with the file)."""
    out = {}
    for field in file_schema:
        i = schema.get_field_index(field.name)
        if i >= 0 and not field.type.equals(schema.field(i).type):
            out[field.name] = f"{field.type} as {schema.field(i).type}"
    return out


#: pandas' nullable dtype for each Arrow integer type.
_NULLABLE_INTEGERS = {
    pa.int8(): pd.Int8Dtype(),
    pa.int16(): pd.Int16Dtype(),
    pa.int32(): pd.Int32Dtype(),
    pa.int64(): pd.Int64Dtype(),
    pa.uint8(): pd.UInt8Dtype(),
    pa.uint16(): pd.UInt16Dtype(),
    pa.uint32(): pd.UInt32Dtype(),
    pa.uint64(): pd.UInt64Dtype(),
}


def arrow_to_pandas(data: Any) -> pd.DataFrame:
    """``data`` (a record batch or table) as the DataFrame pandas gives,
    except that an integer column holding a missing value keeps its integers.

    pandas turns such a column into ``float64`` unless the file's pandas
    metadata says otherwise, and files written by other tools (Spark, DuckDB,
    Polars, pyarrow) carry none: an id above 2**53 then loses its last digits
    and every output would hold it as a float. Such a column becomes pandas'
    nullable integer of the same width (``Int64`` for ``int64``), exact and
    written back as the input's type. A batch whose column has no missing
    value keeps NumPy's integer, as pandas reads it.
    """
    frame = data.to_pandas()
    names = data.schema.names
    for i, field in enumerate(data.schema):
        if (
            field.type in _NULLABLE_INTEGERS
            and data.column(i).null_count
            and names.count(field.name) == 1
            and field.name in frame.columns  # not a stored index
            and frame[field.name].dtype.kind == "f"
        ):
            values = data.column(i).to_pandas(types_mapper=_NULLABLE_INTEGERS.get)
            frame[field.name] = values.array  # positional: the index is the frame's
    return frame
