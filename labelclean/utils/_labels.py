"""Text labels that differ only in how they are written.

``"Yes"``, ``"yes "`` and ``"ｙｅｓ"`` are three classes to a classifier, and
one to the person who typed them. Spelling variants of one class are among
the commonest wrong labels in exported tables, and no evidence from the
features is needed to see them: the labels themselves say so. labelclean
does not merge them (a label that reads like another may still name another
class); the input suite warns (``label_variants``) and the report cautions,
so that the user can write each class one way before the run.

Two labels are variants when they are equal after Unicode compatibility
normalisation (NFKC: full-width letters, ligatures), case folding, and with
runs of white space collapsed to one space and stripped at both ends.
"""

import unicodedata
from collections.abc import Hashable, Mapping

__all__ = ["label_variants", "variants_text"]


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


def variants_text(groups: list[list[tuple[str, int]]], limit: int = 3) -> str:
    """``"'yes' (40 rows) and 'Yes ' (3 rows); 'no' (…) and …"``: the first
    ``limit`` groups, and how many more there are."""
    parts = []
    for group in groups[:limit]:
        named = [f"{label!r} ({n} row{'s' if n != 1 else ''})" for label, n in group]
        parts.append(", ".join(named[:-1]) + " and " + named[-1])
    more = len(groups) - limit
    tail = f"; and {more} more group{'s' if more != 1 else ''}" if more > 0 else ""
    return "; ".join(parts) + tail
