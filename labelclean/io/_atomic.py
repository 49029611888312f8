"""Atomic file writes and file hashing.

Every file labelclean writes goes through :func:`atomic_open`: the bytes go to
a hidden temporary file in the destination's own directory, are flushed and
``fsync``-ed, and only then renamed over the final name with :func:`os.replace`
(atomic on POSIX and on Windows for files on one volume). A reader therefore
sees either the previous complete file or the new complete file, never a
half-written one, and a failure at any point removes the temporary file and
leaves the previous file untouched. The directory is ``fsync``-ed after the
rename so that the new name itself survives a power cut.

:func:`atomic_write_bytes`, :func:`atomic_write_text` and
:func:`atomic_write_json` are thin wrappers; the parquet writers in
:mod:`labelclean.io._parquet` use :func:`atomic_open` directly. :func:`file_sha256`
hashes files for run manifests.
"""

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from labelclean.exceptions import OutputError

__all__ = [
    "atomic_open",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "current_umask",
    "default_mode",
    "dumps_json",
    "file_sha256",
]

_TMP_SUFFIX = ".tmp"


_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def default_mode(directory: bool = False) -> int:
    """The mode ``open``/``mkdir`` would give a new file or folder."""
    return (0o777 if directory else 0o666) & ~current_umask()


def _temp_prefix(path: Path) -> str:
    return f".{path.name}."


def _fsync_dir(directory: Path) -> None:
    # Durability of the rename itself; not supported everywhere (Windows), and
    # a failure here does not make the written file wrong, so it is best-effort.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """Open ``path`` for binary writing so that it appears atomically.

    Parameters
    ----------
    path : str or path-like
        Final name of the file. Its directory must exist.

    Yields
    ------
    file : binary file object
        A temporary file in the same directory. When the ``with`` block ends
        normally it is flushed, synced to disk and renamed to ``path``
        (replacing any previous file). When the block raises, the temporary
        file is removed, ``path`` is left as it was, and the exception
        propagates.

    Raises
    ------
    OutputError
        If the temporary file cannot be created (missing or unwritable
        directory, ``path`` is a directory, ...) or the rename fails.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputError(
            f"cannot write {str(path)!r}: it is a directory; choose a file name."
        )
    try:
        fd, tmp_name = tempfile.mkstemp(
            dir=directory, prefix=_temp_prefix(path), suffix=_TMP_SUFFIX
        )
    except OSError as exc:
        raise OutputError(
            f"cannot write {str(path)!r}: {exc.strerror or exc}; check that the "
            "folder exists and is writable, or choose another output location."
        ) from exc
    tmp = Path(tmp_name)
    try:
        # mkstemp makes the file private (0600); give it the mode a plain
        # open() would (the umask's), or that of the file it replaces.
        try:
            mode = path.stat().st_mode & 0o7777
        except OSError:
            mode = default_mode()
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            # A full disk, a quota, a vanished mount: an output problem
            # (exit 5), and the previous file is untouched.
            raise OutputError(
                f"cannot write {str(path)!r}: {exc.strerror or exc}; free space or "
                "choose another output location (the previous file, if any, is "
                "untouched)."
            ) from exc
        raise
    _fsync_dir(directory)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_open`).

    Parameters
    ----------
    path : str or path-like
        Destination file.
    data : bytes
        Content.

    Returns
    -------
    path : Path
        The written file.
    """
    with atomic_open(path) as handle:
        handle.write(data)
    return Path(path)


def atomic_write_text(
    path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8"
) -> Path:
    """Write ``text`` to ``path`` atomically, encoded with ``encoding``.

    Parameters
    ----------
    path : str or path-like
        Destination file.
    text : str
        Content. Line endings are written exactly as given.
    encoding : str, default='utf-8'
        Text encoding.

    Returns
    -------
    path : Path
        The written file.
    """
    return atomic_write_bytes(path, text.encode(encoding))


def dumps_json(obj: Any) -> str:
    """Serialise ``obj`` as labelclean writes JSON: stable and strict.

    Keys are sorted, the text is indented by two spaces and ends with a
    newline, non-ASCII characters are kept, and NaN or infinity are refused
    (they are not JSON), so that identical content always gives identical
    bytes.

    Parameters
    ----------
    obj : object
        JSON-serialisable value.

    Returns
    -------
    text : str
        The JSON document.

    Raises
    ------
    ValueError
        If ``obj`` holds NaN or infinite floats.
    TypeError
        If ``obj`` holds values JSON cannot represent.
    """
    return (
        json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
        + "\n"
    )


def atomic_write_json(path: str | os.PathLike[str], obj: Any) -> Path:
    """Write ``obj`` as JSON (see :func:`dumps_json`) to ``path`` atomically.

    The object is serialised before the file is opened, so an object that is
    not JSON-serialisable leaves no trace on disk.

    Parameters
    ----------
    path : str or path-like
        Destination file.
    obj : object
        JSON-serialisable value.

    Returns
    -------
    path : Path
        The written file.
    """
    return atomic_write_text(path, dumps_json(obj))


def file_sha256(path: str | os.PathLike[str], *, chunk_size: int = 1 << 20) -> str:
    """Hex SHA-256 digest of a file's bytes, read in chunks.

    Parameters
    ----------
    path : str or path-like
        File to hash.
    chunk_size : int, default=1 MiB
        Bytes read at a time; memory use does not grow with the file.

    Returns
    -------
    digest : str
        64 lowercase hex characters.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()
