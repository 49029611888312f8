"""Finding and reading pipeline definition files (TOML) by name or path.

:func:`load_pipeline` looks a name up in the search path
(:func:`pipeline_search_path`: ``LABELCLEAN_PIPELINE_PATH``, then the shipped
``pipelines/``), reads the file with the standard library's :mod:`tomllib`
and validates it with :func:`~labelclean.pipeline.parse_pipeline`. Only
definition files are read here; data files are the runner's.
"""

import hashlib
import os
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path

from labelclean.exceptions import PipelineDefinitionError
from labelclean.pipeline._definition import PipelineDefinition, parse_pipeline
from labelclean.pipeline._registry import StageRegistry
from labelclean.utils._suggest import did_you_mean

__all__ = [
    "PATH_ENV",
    "available_pipelines",
    "load_pipeline",
    "pipeline_search_path",
    "shipped_pipeline_name",
]

#: Environment variable with extra folders of definitions (``os.pathsep``).
PATH_ENV = "LABELCLEAN_PIPELINE_PATH"
#: Largest definition file read.
_MAX_BYTES = 1 << 20
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


# --------------------------------------------------------------------------
# Finding and loading files
# --------------------------------------------------------------------------


def pipeline_search_path() -> list[Path]:
    """Folders searched for definitions by name, first match wins.

    1. the folders in the ``LABELCLEAN_PIPELINE_PATH`` environment variable
       (separated by ``os.pathsep``);
    2. ``./pipelines`` in the current directory;
    3. the ``pipelines/`` folder of the labelclean source tree, when
       labelclean runs from a checkout.

    Returns
    -------
    folders : list of Path
        Existing folders only.
    """
    folders = [Path(p) for p in os.environ.get(PATH_ENV, "").split(os.pathsep) if p]
    folders.append(Path.cwd() / "pipelines")
    folders.append(Path(__file__).resolve().parents[2] / "pipelines")
    seen, out = set(), []
    for folder in folders:
        key = folder.resolve()
        if key not in seen and folder.is_dir():
            seen.add(key)
            out.append(folder)
    return out


def available_pipelines(search_path: Sequence[Path] | None = None) -> dict[str, Path]:
    """Definitions found by name: file stem -> path (first match wins)."""
    found: dict[str, Path] = {}
    for folder in pipeline_search_path() if search_path is None else search_path:
        for file in sorted(Path(folder).glob("*.toml")):
            found.setdefault(file.stem, file)
    return found


def shipped_pipeline_name(n_classes: int) -> str:
    """The shipped pipeline for a label of ``n_classes`` classes:
    ``binary-cbadaboost`` for two (or fewer), ``multiclass-rosr`` for more
    (what ``labelclean run`` uses when no pipeline is named)."""
    return "binary-cbadaboost" if n_classes <= 2 else "multiclass-rosr"


def _looks_like_path(value: str) -> bool:
    return value.endswith(".toml") or "/" in value or os.sep in value


def load_pipeline(
    name_or_path: str | os.PathLike[str],
    *,
    registry: StageRegistry | None = None,
    search_path: Sequence[Path] | None = None,
) -> PipelineDefinition:
    """Find, read and validate a pipeline definition.

    Parameters
    ----------
    name_or_path : str or path-like
        A file path (anything ending in ``.toml`` or containing a path
        separator), or a name: the stem of a ``.toml`` file in the search
        path.
    registry : StageRegistry, default=None
        Stage kinds allowed; the library's :data:`STAGE_KINDS` by default.
    search_path : list of Path, default=None
        Folders searched by name; :func:`pipeline_search_path` by default.

    Returns
    -------
    definition : PipelineDefinition

    Raises
    ------
    PipelineDefinitionError
        For an unknown name (with suggestions), a missing, unreadable,
        oversized or non-UTF-8 file, invalid TOML (with its line and
        column), or an invalid definition (see :func:`parse_pipeline`).
    """
    text = os.fspath(name_or_path)
    if isinstance(name_or_path, os.PathLike) or _looks_like_path(text):
        path = Path(text)
        if not path.is_file():
            raise PipelineDefinitionError(
                f"pipeline definition file {text!r} does not exist; check the path, "
                "or give the name of a definition in pipelines/."
            )
    else:
        known = available_pipelines(search_path)
        if not _NAME.match(text) or text not in known:
            listing = ", ".join(sorted(known)) or "none found"
            raise PipelineDefinitionError(
                f"unknown pipeline {text!r}{did_you_mean(text, known)} (available: "
                f"{listing}); give a name from pipelines/ or a path to a .toml file."
            )
        path = known[text]
    try:
        size = path.stat().st_size
        if size > _MAX_BYTES:
            raise PipelineDefinitionError(
                f"pipeline definition {str(path)!r} is {size} bytes, more than the "
                f"{_MAX_BYTES} a definition may have; is it the right file?"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise PipelineDefinitionError(
            f"cannot read pipeline definition {str(path)!r}: {exc.strerror or exc}."
        ) from exc
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PipelineDefinitionError(
            f"pipeline definition {str(path)!r} is not UTF-8 text; save it as UTF-8."
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise PipelineDefinitionError(
            f"pipeline definition {str(path)!r} is not valid TOML: {exc}."
        ) from exc
    return parse_pipeline(
        document,
        name=path.stem,
        source=path,
        registry=registry,
        sha256=hashlib.sha256(raw).hexdigest(),
    )
