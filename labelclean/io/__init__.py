"""Reading and writing labelclean's files: parquet in, parquet/JSON/HTML out.

Inputs are only ever read. Every output file is written atomically (a
temporary file in the same folder, synced, then renamed over the final name),
and a run's output folder is replaced as one unit by :class:`OutputFolder`.
Bad input files raise :class:`~labelclean.exceptions.InputFileError`, output
problems :class:`~labelclean.exceptions.OutputError`, each with one message
that names the file and the fix.
"""

from labelclean.io._atomic import (
    atomic_open,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    dumps_json,
    file_sha256,
)
from labelclean.io._output import (
    MARKER_NAME,
    OutputFolder,
    check_output_location,
    check_relative_name,
    rewrite_owned_file,
)
from labelclean.io._parquet import (
    LABELCLEAN_METADATA_KEY,
    ParquetSource,
    inspect_parquet,
    iter_batches,
    list_parquet_files,
    read_labelclean_metadata,
    read_parquet,
)
from labelclean.io._parquet_write import (
    ParquetBatchWriter,
    schema_field_types,
    write_parquet,
)
from labelclean.io._report_file import read_report_json
from labelclean.io._schemas import arrow_to_pandas, cast_to_schema, read_as

__all__ = [
    "LABELCLEAN_METADATA_KEY",
    "MARKER_NAME",
    "OutputFolder",
    "ParquetBatchWriter",
    "ParquetSource",
    "arrow_to_pandas",
    "atomic_open",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "cast_to_schema",
    "check_output_location",
    "check_relative_name",
    "dumps_json",
    "file_sha256",
    "inspect_parquet",
    "iter_batches",
    "list_parquet_files",
    "read_as",
    "read_labelclean_metadata",
    "read_parquet",
    "read_report_json",
    "rewrite_owned_file",
    "schema_field_types",
    "write_parquet",
]
