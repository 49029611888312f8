"""Saving and loading fitted cleaners without executing code on load.

The fitted pipeline file is a skops archive (``.skops``): a zip of JSON
schemas and numpy arrays, loaded by reconstructing objects of known types
only. Loading refuses any type outside scikit-learn/numpy's defaults and
labelclean's own list (:func:`allowed_types`), so a crafted file cannot run
code. The training audit is not stored (it is in ``audit.parquet``).

Files from earlier versions of the same format still load: classes that
moved are renamed on the way in (:data:`MOVED_TYPES`), and a parameter added
since the file was written takes its default, which is the behaviour the
file's estimators were fitted with (their ``__setstate__``,
:class:`~labelclean.utils._sklearn.OlderFilesMixin`).
"""

import copy
import io
import json
import logging
import os
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pandas as pd
import skops.io as sio

from labelclean.ensemble._binned import _BinMapper as BinMapper
from labelclean.exceptions import InputFileError, PipelineDefinitionError
from labelclean.pipeline._cleaner import LabelCleaner
from labelclean.pipeline._decisions import Evidence
from labelclean.pipeline._stacking import StackedModel
from labelclean.utils import _features, _neighbors
from labelclean.utils.discovery import all_estimators

__all__ = ["allowed_types", "dumps_cleaner", "load_cleaner", "loads_cleaner"]

logger = logging.getLogger(__name__)

#: Format marker stored next to the model.
MODEL_FORMAT = "labelclean-model"
#: The version written. 2: the boosting ensembles' trees packed into a few
#: arrays (labelclean.ensemble._packed), which a reader of version 1 cannot
#: use; it says so instead of failing on the first prediction.
MODEL_VERSION = 2
#: The versions read: version 1 files load as they are.
READABLE_VERSIONS = (1, 2)


def allowed_types() -> list[str]:
    """Fully qualified names of the labelclean types a model file may hold."""
    names = {f"{cls.__module__}.{cls.__qualname__}" for _, cls in all_estimators()}
    names.add(f"{LabelCleaner.__module__}.{LabelCleaner.__qualname__}")
    # The fitted cleaner keeps its evidence (arrays) for re-deciding.
    names.add(f"{Evidence.__module__}.{Evidence.__qualname__}")
    names.add(f"{_neighbors.NeighborIndex.__module__}.NeighborIndex")
    names.add(f"{_features.__name__}._as_string")
    names.add(f"{_features.__name__}._to_seconds")
    names.add(f"{_features.__name__}._median")
    # SimpleImputer (missing values) keeps the dtype it was fitted on; a dtype
    # is data, it cannot run code.
    names.add("numpy.dtype")
    # Classes of a label column of dates, times or exact numbers (date32,
    # time64, decimal128 as databases write them): values, built from their
    # own bytes or text, that cannot run code.
    names.update(
        {"datetime.date", "datetime.datetime", "datetime.time", "decimal.Decimal"}
    )
    names.add(f"{BinMapper.__module__}.{BinMapper.__qualname__}")
    # model='auto''s final model: fitted candidates and their weights
    names.add(f"{StackedModel.__module__}.{StackedModel.__qualname__}")
    return sorted(names)


#: What a model file whose classes are timestamps with a time zone lacks.
_ZONED_CLASSES = (
    "the label's classes are timestamps with a time zone, which a model file "
    "cannot restore"
)
_ZONED_FIX = (
    "store the label as text, or as timestamps without a time zone, to apply a "
    "model to new rows"
)


def _zoned_classes(cleaner: Any) -> bool:
    classes = getattr(cleaner, "classes_", ())
    return any(isinstance(c, pd.Timestamp) and c.tz is not None for c in classes)


def dumps_cleaner(cleaner: Any, *, metadata: dict[str, Any] | None = None) -> bytes:
    """Serialise a fitted cleaner (and JSON metadata) to skops bytes.

    A cleaner whose classes are timestamps with a time zone is written with a
    warning: loading refuses it (pandas' ``Timestamp`` is no type a model
    file may hold)."""
    if _zoned_classes(cleaner):
        logger.warning(
            "%s: `labelclean apply` will refuse it; %s.", _ZONED_CLASSES, _ZONED_FIX
        )
    model = _without_thread_counts(cleaner)
    # Per-training-row results: not needed to decide new rows, and they grow
    # with the training set (Evidence is also not a type skops may load; an
    # object array such as decisions_ would be stored element by element in
    # the archive's JSON schema, minutes at a million rows).
    for name in (
        "audit_",
        "evidence_",
        "decisions_",
        "sample_indices_",
        "cleaned_labels_",
        "stage_times_",
    ):
        model.__dict__.pop(name, None)
    if vars(cleaner).get("decision_model_") is getattr(cleaner, "model_", None):
        # the same model: stored once (new rows fall back to model_)
        model.__dict__.pop("decision_model_", None)
    payload = {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "metadata": metadata or {},
        "cleaner": model,
    }
    return _canonical_archive(sio.dumps(payload))


def _without_thread_counts(obj: Any, depth: int = 3) -> Any:
    """A shallow copy of ``obj`` whose ``n_jobs`` (and its parts') is None.

    How many threads computed a model is not part of it: the same fit with
    ``--jobs 1`` and ``--jobs 2`` must give the same file. ``apply`` sets its
    own thread count.
    """
    model = copy.copy(obj)
    if "n_jobs" in vars(model):
        model.n_jobs = None
    if depth > 0:
        for name, value in vars(model).items():
            if (
                hasattr(value, "__dict__")
                and not isinstance(value, type)
                and "n_jobs" in _all_attributes(value, depth)
            ):
                setattr(model, name, _without_thread_counts(value, depth - 1))
    return model


def _all_attributes(obj: Any, depth: int) -> set[str]:
    """Attribute names of ``obj`` and of its parts, ``depth`` levels down."""
    names = set(vars(obj))
    if depth > 0:
        for value in vars(obj).values():
            if hasattr(value, "__dict__") and not isinstance(value, type):
                names |= _all_attributes(value, depth - 1)
    return names


#: zlib's compression level of the model file's entries (1 fastest, 9 smallest).
COMPRESS_LEVEL = 1


def _canonical_archive(data: bytes) -> bytes:
    """The same skops archive, byte-identical for the same content, compressed.

    skops names array files and object references by memory address and
    stamps zip entries with the current time; both are replaced (by order of
    first appearance, and by a fixed date) so that the same fit gives the same
    bytes in any process. Every entry is deflated at zlib's fastest level
    (:data:`COMPRESS_LEVEL`): the schema, an indented JSON, deflates to a few
    percent of itself; the arrays of a large fit (the neighbours' reference
    rows) to about half, where a higher level took three times as long for
    3 % less (``docs/scale.md``, *The model file*). Archives written stored,
    as before, load the same.
    """
    numbers: dict[str, str] = {}

    def renumber(match: re.Match[str]) -> str:
        new = numbers.setdefault(match.group(2), str(len(numbers) + 1))
        return match.group(1) + new + match.group(3)

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source:
        schema = source.read("schema.json").decode("utf-8")
        schema = re.sub(r'("__id__": )(\d+)()', renumber, schema)
        schema = re.sub(r'("file": ")(\d+)(\.npy")', renumber, schema)
        with zipfile.ZipFile(out, "w") as target:
            for item in source.infolist():
                content = source.read(item.filename)
                name = item.filename
                if name == "schema.json":
                    content = schema.encode("utf-8")
                elif match := re.fullmatch(r"(\d+)\.npy", name):
                    name = numbers.get(match.group(1), match.group(1)) + ".npy"
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = item.external_attr
                target.writestr(info, content, compresslevel=COMPRESS_LEVEL)
    return out.getvalue()


#: Classes that moved between modules since model files were first written:
#: (old module, class) -> new module. Files naming the old place are read as
#: if they named the new one (:func:`_migrate`), so older model files load.
MOVED_TYPES = {
    (
        "labelclean.confidence._neighbors",
        "NeighborIndex",
    ): "labelclean.utils._neighbors",
    ("labelclean.confidence._knn", "KNNFilter"): "labelclean.filters._knn",
}


def _renamed(node: Any) -> bool:
    """Point every moved class of a skops schema at its new module, in place."""
    changed = False
    if isinstance(node, dict):
        new = MOVED_TYPES.get((node.get("__module__"), node.get("__class__")))
        if new is not None:
            node["__module__"] = new
            changed = True
        for value in node.values():
            changed |= _renamed(value)
    elif isinstance(node, list):
        for value in node:
            changed |= _renamed(value)
    return changed


def _migrate(data: bytes) -> bytes:
    """``data`` with moved classes renamed (:data:`MOVED_TYPES`); else as is."""

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        schema = json.loads(archive.read("schema.json"))
        if not _renamed(schema):
            return data
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as target:
            for info in archive.infolist():
                content = archive.read(info.filename)
                if info.filename == "schema.json":
                    content = json.dumps(schema).encode("utf-8")
                target.writestr(info, content)
    return out.getvalue()


def _damage(data: bytes) -> str | None:
    """What fails in a zip archive whose directory reads but whose entries do
    not all (their compressed data or their CRC-32: a bad disk block, a
    partial copy); None for an intact archive or bytes that are no archive.
    Read only once loading has failed, so a sound file pays nothing."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            bad = archive.testzip()
    except zipfile.BadZipFile:
        return None
    except zlib.error as exc:  # compressed data that does not inflate
        return str(exc)
    return None if bad is None else f"entry {bad!r} fails its CRC-32 check"


def loads_cleaner(data: bytes, *, source: str = "<bytes>") -> tuple[Any, dict]:
    """Load a cleaner from skops bytes, refusing any unknown type.

    Returns
    -------
    cleaner : LabelCleaner
    metadata : dict
    """

    try:
        data = _migrate(data)
        untrusted = sio.get_untrusted_types(data=data)
    except (zipfile.BadZipFile, zlib.error, KeyError, ValueError, TypeError) as exc:
        damage = _damage(data)
        what = "is damaged" if damage else "is not a labelclean model file"
        raise PipelineDefinitionError(
            f"{source} {what} ({damage or exc}); pass the model file a "
            "`labelclean run` wrote."
        ) from exc
    except RecursionError as exc:
        raise PipelineDefinitionError(
            f"{source} is damaged: its content is nested too deeply to be a model "
            "labelclean wrote; pass the model file a `labelclean run` wrote."
        ) from exc
    allowed = set(allowed_types())
    refused = sorted(set(untrusted) - allowed)
    if refused == ["pandas.Timestamp"]:
        raise PipelineDefinitionError(
            f"cannot load {source}: {_ZONED_CLASSES}; {_ZONED_FIX}."
        )
    if refused:
        raise PipelineDefinitionError(
            f"refusing to load {source}: it holds types labelclean never writes "
            f"({', '.join(refused)}); the file may have been tampered with."
        )
    try:
        payload = sio.loads(data, trusted=list(untrusted))
    except Exception as exc:
        damage = _damage(data)
        if damage:
            raise PipelineDefinitionError(
                f"{source} is damaged ({damage}); pass the model file a "
                "`labelclean run` wrote."
            ) from exc
        raise PipelineDefinitionError(
            f"cannot load the model {source}: {exc}; it may be damaged or written by "
            "another labelclean version."
        ) from exc
    if not isinstance(payload, dict) or payload.get("format") != MODEL_FORMAT:
        raise PipelineDefinitionError(
            f"{source} is not a labelclean model file; pass the model file a "
            "`labelclean run` wrote."
        )
    if payload.get("version") not in READABLE_VERSIONS:
        raise PipelineDefinitionError(
            f"{source} has model format version {payload.get('version')!r}; this "
            f"labelclean reads versions {', '.join(map(str, READABLE_VERSIONS))}."
        )
    cleaner, metadata = payload.get("cleaner"), payload.get("metadata", {})
    if not isinstance(cleaner, LabelCleaner) or not hasattr(cleaner, "classes_"):
        raise PipelineDefinitionError(
            f"{source} is damaged: it holds a {type(cleaner).__name__} where the "
            "fitted pipeline belongs; use the model file a `labelclean run` wrote."
        )
    if not isinstance(metadata, dict):
        raise PipelineDefinitionError(
            f"{source} is damaged: its metadata is a {type(metadata).__name__}, "
            "not a mapping; use the model file a `labelclean run` wrote."
        )
    return cleaner, metadata


def load_cleaner(path: str | os.PathLike[str]) -> tuple[Any, dict]:
    """Load a model file written by ``labelclean run``."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputFileError(
            f"model file {str(path)!r} does not exist; pass the model file a "
            "`labelclean run` wrote (model.skops in its output folder)."
        ) from exc
    except IsADirectoryError:
        candidate = path / "model.skops"
        if candidate.is_file():
            return load_cleaner(candidate)
        raise InputFileError(
            f"{str(path)!r} is a folder without model.skops; pass the model file."
        ) from None
    return loads_cleaner(data, source=repr(str(path)))
