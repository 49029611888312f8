"""Text labels whose writing, not the features, says something is wrong.

* **Variants.** ``"Yes"``, ``"yes "`` and ``"ｙｅｓ"`` are three classes to a
  classifier, and one to the person who typed them. Two labels are variants
  when they are equal after Unicode compatibility normalisation (NFKC:
  full-width letters, ligatures), case folding, and with runs of white
  space collapsed to one space and stripped at both ends.
* **Placeholders.** ``""``, ``"   "``, ``"N/A"`` or ``"?"`` is how many
  exports write a missing value; as a label it is read as a class of its
  own, where a missing label would be discarded (``missing_label``) and not
  fitted on. The words are :data:`PLACEHOLDERS`, compared as variants are;
  ``"none"`` and ``"unknown"`` are left out, as tables use them for real
  classes (no medication, an unknown cause).

Both are common in exported tables, and no evidence from the features is
needed to see them: the labels themselves say so. labelclean changes
neither (a label that reads like another may still name another class); the
input suite warns (``label_variants``, ``label_placeholders``) and the
report cautions, so that the user can fix the labels before the run.
"""

import unicodedata
import warnings
from collections.abc import Hashable, Iterable, Mapping

import numpy as np

from labelclean.exceptions import LabelWritingWarning

__all__ = [
    "LABEL_WRITING_FIXES",
    "PLACEHOLDERS",
    "label_placeholders",
    "label_variants",
    "label_writing",
    "labels_text",
    "spelling_hint",
    "variants_text",
    "warn_label_writing",
]

#: Labels, once normalised as variants are, that read as a missing value.
PLACEHOLDERS = frozenset(
    {"", "na", "n/a", "#n/a", "nan", "null", "nil", "?", "-", "--", "missing"}
)


def _key(label: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", label).casefold().split())


def label_variants(
    counts: Mapping[Hashable, int],
) -> list[list[tuple[str, int]]]:
    """Groups of text labels that differ only in case, spacing or Unicode form.

    ``counts`` maps each label to its number of rows; labels that are not
    strings (numbers, booleans) or have no rows (a categorical label's unused
    categories) are left out. Each group holds at least two
    labels as ``(label, rows)``, the most frequent first (ties by the label);
    the groups are ordered by their rows, most first, then by their first
    label.
    """
    groups: dict[str, list[tuple[str, int]]] = {}
    for label, n in counts.items():
        if isinstance(label, str) and n > 0:
            groups.setdefault(_key(label), []).append((label, int(n)))
    found = [
        sorted(group, key=lambda item: (-item[1], item[0]))
        for group in groups.values()
        if len(group) > 1
    ]
    return sorted(found, key=lambda g: (-sum(n for _, n in g), g[0][0]))


def label_placeholders(counts: Mapping[Hashable, int]) -> list[tuple[str, int]]:
    """The text labels of ``counts`` (label → rows) that read as a missing
    value (:data:`PLACEHOLDERS`), as ``(label, rows)``, most rows first."""
    found = [
        (label, int(n))
        for label, n in counts.items()
        if isinstance(label, str) and n > 0 and _key(label) in PLACEHOLDERS
    ]
    return sorted(found, key=lambda item: (-item[1], item[0]))


def labels_text(labels: list[tuple[str, int]], limit: int | None = None) -> str:
    """``"'yes' (40 rows), 'Yes' (2 rows) and 'Yes ' (1 row)"``; with
    ``limit``, the first ``limit`` and how many more: ``"'a' (1 row), 'b'
    (2 rows) and 3 more"``."""
    shown = labels if limit is None else labels[:limit]
    named = [f"{label!r} ({n} row{'s' if n != 1 else ''})" for label, n in shown]
    if len(labels) > len(shown):
        return ", ".join(named) + f" and {len(labels) - len(shown)} more"
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def variants_text(groups: list[list[tuple[str, int]]], limit: int = 3) -> str:
    """``"'yes' (40 rows) and 'Yes ' (3 rows); 'no' (…) and …"``: the first
    ``limit`` groups, and how many more there are."""
    parts = [labels_text(group) for group in groups[:limit]]
    more = len(groups) - limit
    tail = f"; and {more} more group{'s' if more != 1 else ''}" if more > 0 else ""
    return "; ".join(parts) + tail


def spelling_hint(
    labels: Iterable[Hashable], classes: Iterable[Hashable], name: str = "fitted class"
) -> str:
    """Why ``labels``, outside ``classes`` (the ``name``: fitted classes, a
    label domain), may not be new classes: ``" ('Yes ' is written like the
    fitted class 'yes'; 'N/A' reads as a missing value)"``, or ``""`` where
    none is a variant or a placeholder."""
    known: dict[str, str] = {}
    for known_class in classes:
        if isinstance(known_class, str):
            known.setdefault(_key(known_class), known_class)
    parts = []
    for label in labels:
        if not isinstance(label, str):
            continue
        if _key(label) in known:
            parts.append(f"{label!r} is written like the {name} {known[_key(label)]!r}")
        elif _key(label) in PLACEHOLDERS:
            parts.append(f"{label!r} reads as a missing value")
    return f" ({'; '.join(parts)})" if parts else ""


#: What to do about each finding of :func:`label_writing`, by its code.
LABEL_WRITING_FIXES = {
    "label_placeholders": "if those rows have no label, write it as missing (null)",
    "label_variants": "if they name one class, write it one way",
}


def label_writing(counts: Mapping[Hashable, int], verb: str = "are") -> list:
    """``(code, sentence)`` per finding on the labels of ``counts`` (label →
    rows): ``label_placeholders`` (labels that read as a missing value) and
    ``label_variants`` (labels written several ways), each saying how the
    labels ``verb`` (``'are'``, ``'were'``) read; :data:`LABEL_WRITING_FIXES`
    says what to do. Shared by the report's cautions and the fit's warning."""
    out = []
    placeholders = label_placeholders(counts)
    if placeholders:
        out.append((
            "label_placeholders",
            f"labels that read as a missing value {verb} read as classes: "
            f"{labels_text(placeholders)}",
        ))  # fmt: skip
    groups = label_variants(counts)
    if groups:
        out.append((
            "label_variants",
            "labels that differ only in case, spacing or Unicode form "
            f"{verb} read as separate classes: {variants_text(groups)}",
        ))  # fmt: skip
    return out


def warn_label_writing(classes: np.ndarray, codes: np.ndarray) -> None:
    """Warn (:class:`~labelclean.exceptions.LabelWritingWarning`) where the
    fitted ``classes`` (``codes``: each row's) hold labels written several
    ways or missing values written as labels (:func:`label_writing`): the
    Python API's counterpart of the input suite's ``label_variants`` and
    ``label_placeholders``."""
    rows = np.bincount(codes, minlength=len(classes)).tolist()
    findings = label_writing(dict(zip(classes.tolist(), rows, strict=True)))
    if findings:
        text = "; ".join(
            f"{sentence} ({LABEL_WRITING_FIXES[code]})" for code, sentence in findings
        )
        warnings.warn(text + ".", LabelWritingWarning, stacklevel=4)
