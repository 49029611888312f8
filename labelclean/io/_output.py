"""The output folder of a run: checked before the run, replaced as one unit.

:func:`check_output_location` is the cheap check a command runs *before* any
work: the output must not be an input (or inside an input folder, or hold an
input), must not already hold results unless ``overwrite=True``, and even
then must hold nothing that labelclean did not write.

:class:`OutputFolder` is a small transaction. Files are written (each one
atomically) into a hidden staging folder next to the destination; on
:meth:`OutputFolder.commit` a marker listing every file and its SHA-256 is
added, the previous output folder (if any) is moved aside, the staging folder
is renamed into place, and the old one is deleted. Readers of the output path
therefore see the previous complete results or the new complete results; a
run that fails or is killed before the commit leaves the previous results
untouched (and at most a hidden ``.<name>.labelclean-*`` staging folder, which
is never mistaken for results). A kill between the two renames of the commit
leaves no folder under the final name and the previous results in a hidden
``.<name>.labelclean-old-*`` folder.

:func:`check_relative_name` validates file names given by users or pipeline
definitions so that they cannot escape the output folder.
"""

import contextlib
import json
import logging
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from labelclean.exceptions import OutputError
from labelclean.io._atomic import (
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_text,
    default_mode,
    file_sha256,
)
from labelclean.io._parquet_write import ParquetBatchWriter, write_parquet

__all__ = [
    "MARKER_NAME",
    "OutputFolder",
    "check_output_location",
    "check_relative_name",
    "rewrite_owned_file",
]

logger = logging.getLogger(__name__)

#: Name of the file that marks a folder as labelclean's output.
MARKER_NAME = ".labelclean-output.json"
_MARKER_FORMAT = "labelclean-output"
_MARKER_VERSION = 1


def check_relative_name(name: str) -> str:
    """Validate a file name that must stay inside an output folder.

    Parameters
    ----------
    name : str
        A relative path with ``/`` separators, e.g. ``'audit.parquet'`` or
        ``'parts/audit-0.parquet'``.

    Returns
    -------
    name : str
        The normalised name (``./`` and repeated separators removed).

    Raises
    ------
    OutputError
        If the name is empty, absolute (``/x``, ``C:\\x``, ``\\\\server``),
        contains ``..``, a backslash, or a NUL character.
    """
    if not isinstance(name, str) or not name.strip():
        raise OutputError(f"output file name {name!r} must be a non-empty string.")
    if "\x00" in name or "\\" in name:
        raise OutputError(
            f"output file name {name!r} contains a backslash or NUL character; use "
            "'/' to separate folders."
        )
    posix, windows = PurePosixPath(name), PureWindowsPath(name)
    if posix.is_absolute() or windows.is_absolute() or windows.drive or windows.root:
        raise OutputError(
            f"output file name {name!r} is absolute; give a name relative to the "
            "output folder."
        )
    if ".." in posix.parts:
        raise OutputError(
            f"output file name {name!r} contains '..', which would leave the output "
            "folder; give a name inside it."
        )
    normalised = posix.as_posix()
    if normalised in ("", ".") or normalised == MARKER_NAME:
        raise OutputError(f"output file name {name!r} is not allowed.")
    return normalised


def _give_mode(staging: Path, *, like: Path) -> None:
    """Give the staging folder the mode of the folder it will replace, or the
    one ``mkdir`` would give (``mkdtemp`` makes it private, 0700)."""
    try:
        info = like.stat()
    except OSError:
        os.chmod(staging, default_mode(directory=True))
        return
    os.chmod(staging, info.st_mode & 0o7777)
    with contextlib.suppress(OSError):  # keep the folder's group where allowed
        os.chown(staging, -1, info.st_gid)


def _resolved(path: str | os.PathLike[str]) -> Path:
    return Path(path).expanduser().resolve(strict=False)


def _is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _read_marker(folder: Path) -> dict[str, Any] | None:

    marker = folder / MARKER_NAME
    try:
        value = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict) or value.get("format") != _MARKER_FORMAT:
        return None
    return value


def _foreign_entries(folder: Path) -> list[str]:
    """Entries of ``folder`` that its labelclean marker does not list."""
    marker = _read_marker(folder)
    listed = set((marker or {}).get("files", {}))
    tops = {PurePosixPath(name).parts[0] for name in listed}
    foreign = []
    for entry in sorted(folder.iterdir()):
        if entry.name == MARKER_NAME and marker is not None:
            continue
        if entry.name in listed and entry.is_file():
            continue
        if entry.is_dir() and entry.name in tops:
            inside = {
                p.relative_to(folder).as_posix()
                for p in entry.rglob("*")
                if p.is_file()
            }
            if inside <= listed:
                continue
        foreign.append(entry.name)
    return foreign


def _changed_files(folder: Path) -> list[str]:
    """Files the marker lists whose content changed since labelclean wrote them."""
    marker = _read_marker(folder) or {}
    changed = []
    for name, entry in sorted((marker.get("files") or {}).items()):
        path = folder / name
        if not isinstance(entry, dict) or not path.is_file():
            continue
        if path.stat().st_size != entry.get("bytes") or file_sha256(path) != entry.get(
            "sha256"
        ):
            changed.append(name)
    return changed


def check_output_location(
    out: str | os.PathLike[str],
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
    overwrite: bool | str = False,
) -> Path:
    """Check, before a run, that ``out`` can safely receive its results.

    Parameters
    ----------
    out : str or path-like
        The output folder; it need not exist yet.
    inputs : iterable of path-like, default=()
        The run's input files or folders (and any other file the run reads,
        such as a pipeline definition).
    overwrite : bool or 'force', default=False
        Allow replacing a folder that holds a previous labelclean run's
        results, as long as none of its files changed since labelclean wrote
        them (the marker's digests); ``'force'`` replaces changed files too.

    Returns
    -------
    out : Path
        The resolved output folder.

    Raises
    ------
    OutputError
        If ``out`` is an existing file or a mount point (a mount point cannot
        be replaced as one unit); equals an input, lies inside an input
        folder, or contains an input; already holds files and ``overwrite`` is
        false; holds files labelclean did not write (even with
        ``overwrite``, labelclean never deletes files it did not write), or
        files changed since labelclean wrote them (unless ``'force'``); or if
        its nearest existing parent is not a writable folder.
    """
    target = _resolved(out)
    for item in inputs:
        source = _resolved(item)
        if target == source:
            raise OutputError(
                f"the output location {str(out)!r} is the input {str(item)!r}; "
                "choose a separate output folder so the input is never modified."
            )
        if source.is_dir() and _is_within(target, source):
            raise OutputError(
                f"the output folder {str(out)!r} lies inside the input folder "
                f"{str(item)!r}; its files would be read as input by the next run. "
                "Choose a folder outside the input."
            )
        if _is_within(source, target):
            raise OutputError(
                f"the input {str(item)!r} lies inside the output folder "
                f"{str(out)!r}, which a run replaces; choose another output folder."
            )
    if target.exists():
        if not target.is_dir():
            raise OutputError(
                f"the output location {str(out)!r} is an existing file, not a "
                "folder; choose a folder path."
            )
        entries = sorted(p.name for p in target.iterdir())
        if entries:
            foreign = _foreign_entries(target)
            # Foreign files first: suggesting --overwrite for them would be
            # advice that cannot work.
            if foreign:
                shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
                raise OutputError(
                    f"the output folder {str(out)!r} holds files labelclean did not "
                    f"write ({shown}); labelclean replaces only its own results, so "
                    "choose a new or empty folder."
                )
            if not overwrite:
                shown = ", ".join(entries[:5]) + (", ..." if len(entries) > 5 else "")
                raise OutputError(
                    f"the output folder {str(out)!r} already holds results ({shown}); "
                    "pass overwrite=True (--overwrite) to replace them, or choose a "
                    "new folder."
                )
            changed = [] if overwrite == "force" else _changed_files(target)
            if changed:
                shown = ", ".join(changed[:5]) + (", ..." if len(changed) > 5 else "")
                raise OutputError(
                    f"the output folder {str(out)!r} holds file(s) changed since "
                    f"labelclean wrote them ({shown}); move them away to keep your "
                    "edits, or pass overwrite='force' (--force) to replace them."
                )
        if os.path.ismount(target):
            raise OutputError(
                f"the output folder {str(out)!r} is a mount point, which cannot be "
                "replaced as one unit; choose a folder inside it, e.g. "
                f"{str(Path(out) / 'run')!r}."
            )
    parent = target.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(
            f"cannot create the output folder {str(out)!r}: {str(parent)!r} is not "
            "a writable folder; choose another output location."
        )
    return target


def rewrite_owned_file(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``path`` atomically, only where labelclean owns the file.

    labelclean owns a file it would create (``path`` does not exist yet) and a
    file its output marker lists with an unchanged digest. The marker of
    ``path``'s folder, if there is one, then records the new digest, so that
    a later ``--overwrite`` does not take the file for a user's edit.

    Raises
    ------
    OutputError
        If ``path`` exists and labelclean did not write it, or it changed since
        labelclean wrote it (a user's edit is never replaced).
    """
    path = Path(path)
    folder, name = path.parent, path.name
    marker = _read_marker(folder)
    listed = (marker or {}).get("files") or {}
    if path.exists():
        if name not in listed:
            raise OutputError(
                f"{str(path)!r} was not written by labelclean, which replaces only "
                "its own files; move it away or render into a run's folder."
            )
        if name in _changed_files(folder):
            raise OutputError(
                f"{str(path)!r} changed since labelclean wrote it; move it away to "
                "keep your edits, then render again."
            )
    atomic_write_bytes(path, data)
    if marker is not None:
        listed[name] = {"sha256": file_sha256(path), "bytes": path.stat().st_size}
        marker["files"] = dict(sorted(listed.items()))
        atomic_write_json(folder / MARKER_NAME, marker)
    return path


class OutputFolder:
    """Write a run's files into ``path`` as one unit (see the module docs).

    Parameters
    ----------
    path : str or path-like
        The output folder.
    inputs : iterable of path-like, default=()
        The run's inputs, for :func:`check_output_location`.
    overwrite : bool or 'force', default=False
        Replace a previous labelclean result in ``path`` (``'force'``: even
        files changed since labelclean wrote them).

    Attributes
    ----------
    path : Path
        The resolved output folder.
    files : dict of str to Path
        Files written so far, by name, at their staging location (at their
        final location after :meth:`commit`).
    sha256 : dict of str to str
        Digest of each file, filled by :meth:`commit`.

    Examples
    --------
    >>> import tempfile, os
    >>> from labelclean.io import OutputFolder
    >>> out = os.path.join(tempfile.mkdtemp(), "run")
    >>> with OutputFolder(out) as folder:
    ...     _ = folder.write_text("notes.txt", "hello\\n")
    >>> sorted(os.listdir(out))
    ['.labelclean-output.json', 'notes.txt']
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        inputs: Iterable[str | os.PathLike[str]] = (),
        overwrite: bool | str = False,
    ) -> None:
        self._inputs = [Path(p) for p in inputs]
        self._overwrite = overwrite
        self.path = check_output_location(
            path, inputs=self._inputs, overwrite=overwrite
        )
        self.files: dict[str, Path] = {}
        self.sha256: dict[str, str] = {}
        self._staging: Path | None = None
        self._committed = False

    # -- lifecycle -----------------------------------------------------------

    def open(self) -> "OutputFolder":
        """Create the hidden staging folder next to the destination."""
        if self._staging is not None:
            return self
        parent = self.path.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self._staging = Path(
                tempfile.mkdtemp(dir=parent, prefix=f".{self.path.name}.labelclean-")
            )
            _give_mode(self._staging, like=self.path)
        except OSError as exc:
            raise OutputError(
                f"cannot create the output folder {str(self.path)!r}: "
                f"{exc.strerror or exc}; choose another output location."
            ) from exc
        return self

    def __enter__(self) -> "OutputFolder":
        return self.open()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()

    def abort(self) -> None:
        """Drop everything written so far; previous results stay as they were."""
        if self._staging is not None and not self._committed:
            shutil.rmtree(self._staging, ignore_errors=True)
        self._staging = None

    def commit(self) -> Path:
        """Put the written files in place of the previous output folder.

        Returns
        -------
        path : Path
            The output folder.

        Raises
        ------
        OutputError
            If the folder cannot be moved into place; the previous results
            are restored when possible.
        """

        if self._committed:
            return self.path
        try:
            return self._commit()
        except BaseException:
            # Nothing half-done stays behind: the staging copy goes too.
            self.abort()
            raise

    def _commit(self) -> Path:
        staging = self._require_open()
        # A name whose write failed (and was caught by the caller) has no file.
        self.files = {n: f for n, f in self.files.items() if f.is_file()}
        for name, file in sorted(self.files.items()):
            self.sha256[name] = file_sha256(file)
        marker = {
            "format": _MARKER_FORMAT,
            "version": _MARKER_VERSION,
            "files": {
                name: {"sha256": digest, "bytes": self.files[name].stat().st_size}
                for name, digest in sorted(self.sha256.items())
            },
        }
        atomic_write_json(staging / MARKER_NAME, marker)
        # Re-check: another process may have written into the destination
        # while this run was working.
        check_output_location(self.path, inputs=self._inputs, overwrite=self._overwrite)
        backup = None
        try:
            if self.path.exists():
                backup = self.path.parent / (
                    f".{self.path.name}.labelclean-old-{uuid.uuid4().hex[:12]}"
                )
                os.rename(self.path, backup)
            os.rename(staging, self.path)
        except OSError as exc:
            if backup is not None and not self.path.exists():
                with contextlib.suppress(OSError):
                    os.rename(backup, self.path)
            raise OutputError(
                f"cannot move the results into {str(self.path)!r}: "
                f"{exc.strerror or exc}; the previous results were left in place."
            ) from exc
        self._committed = True
        self._staging = None
        with contextlib.suppress(OSError):
            fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        if backup is not None:
            shutil.rmtree(backup, ignore_errors=True)
        self.files = {name: self.path / name for name in self.files}
        logger.info("wrote %d file(s) to %s", len(self.files), self.path)
        return self.path

    # -- writing ---------------------------------------------------------------

    def withhold(self, name: str, suffix: str = ".rejected") -> str | None:
        """Rename a written file or folder so that it is not published as is.

        Used when a guardrail fails: the cleaned output then lands as
        ``cleaned.parquet.rejected`` (a name no ``*.parquet`` reader picks up)
        beside the audit and report that say why.

        Returns
        -------
        new_name : str or None
            The new name, or None when nothing called ``name`` was written.
        """
        staging = self._require_open()
        name = check_relative_name(name)
        source = staging / name
        if not source.exists():
            return None
        new_name = name.rstrip("/") + suffix
        os.replace(source, staging / new_name)
        for key in [k for k in self.files if k == name or k.startswith(name + "/")]:
            self.files[new_name + key[len(name) :]] = staging / (
                new_name + key[len(name) :]
            )
            del self.files[key]
        return new_name

    def _require_open(self) -> Path:
        if self._committed:
            raise OutputError(
                f"the output folder {str(self.path)!r} is already committed."
            )
        if self._staging is None:
            self.open()
        assert self._staging is not None
        return self._staging

    def file_path(self, name: str) -> Path:
        """Staging location for ``name`` (validated, parent folders created).

        Parameters
        ----------
        name : str
            Relative file name (see :func:`check_relative_name`).

        Returns
        -------
        path : Path
        """
        name = check_relative_name(name)
        staging = self._require_open()
        target = staging / name
        # Check before creating folders, so a symlink inside the staging
        # folder cannot make us create anything outside it.
        if not _is_within(target.resolve(strict=False), staging.resolve()):
            raise OutputError(f"output file name {name!r} leaves the output folder.")
        target.parent.mkdir(parents=True, exist_ok=True)
        self.files[name] = target
        return target

    def write_bytes(self, name: str, data: bytes) -> Path:
        """Write ``data`` as file ``name``."""
        return atomic_write_bytes(self.file_path(name), data)

    def write_text(self, name: str, text: str) -> Path:
        """Write UTF-8 ``text`` as file ``name``."""
        return atomic_write_text(self.file_path(name), text)

    def write_json(self, name: str, obj: Any) -> Path:
        """Write ``obj`` as stable JSON (see :func:`labelclean.io.dumps_json`)."""
        return atomic_write_json(self.file_path(name), obj)

    def write_parquet(
        self,
        name: str,
        data: Any,
        *,
        metadata: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> Path:
        """Write a table as parquet file ``name`` (see :func:`write_parquet`)."""
        return write_parquet(data, self.file_path(name), metadata=metadata, **kwargs)

    def parquet_writer(
        self, name: str, schema: Any = None, **kwargs: Any
    ) -> ParquetBatchWriter:
        """A :class:`ParquetBatchWriter` for file ``name`` in this folder."""
        return ParquetBatchWriter(self.file_path(name), schema, **kwargs)
