"""Feature columns that hold the label's own classes: a label copy.

A table often carries the label twice: last year's value beside this
year's, a second source's, a model's stored prediction. The evidence then
learns that the two agree, and every row where they rightly differ (a player
who changed teams, a status that changed) looks exactly like a wrong label:
nothing in the data tells a change from a mistake. The run cannot settle it;
the person who knows the columns can, so the report names the column and how
many flags are rows where it differs (caution ``label_copy``).

A *label copy* is a text or categorical feature column

* whose non-missing values are at least :data:`MIN_IN_CLASSES` label classes
  (compared as text), and
* that agrees with the observed label, on the rows where both are present,
  at least substantially: Cohen's κ ≥ :data:`MIN_KAPPA` (Landis and Koch's
  line, the one the decisions use). Sharing the classes is not enough: a
  yes/no label and any yes/no column share them, and they agree by chance
  as often as their shares make them (κ near 0 on public tables where the
  rows agree 83 %).

The label's classes must be text: a label of numbers or truth values has
no copies (its copies would be numeric columns, which are never compared).
"""

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from labelclean.utils._validation import non_numeric_columns

__all__ = ["MIN_IN_CLASSES", "MIN_KAPPA", "copy_caution", "label_copies"]

#: Share of a column's non-missing values that must be label classes.
MIN_IN_CLASSES = 0.9

#: Cohen's κ between the column and the label (rows where both are present).
MIN_KAPPA = 0.6


def _numeric_text(values: Sequence[str]) -> bool:
    """Every value reads as a number or a truth value."""
    as_numbers = pd.to_numeric(pd.Series(list(values), dtype=object), errors="coerce")
    truth = {"true", "false"}
    return all(
        pd.notna(n) or str(v).strip().lower() in truth
        for v, n in zip(values, as_numbers, strict=True)
    )


def _codes_as(column: pd.Series, lookup: Mapping[str, int]) -> np.ndarray:
    """Each row's value as the code of the class written alike (``lookup``:
    text to code), -1 where missing, -2 where not a class; one ``str`` per
    distinct value, not per row."""
    codes, uniques = pd.factorize(column)
    text = np.array([lookup.get(str(u), -2) for u in uniques] + [-1], dtype=np.int64)
    return text[codes]  # code -1 (missing) picks the appended -1


def _kappa(values: np.ndarray, observed: np.ndarray, n_classes: int) -> float:
    """Cohen's κ of two code arrays (``values`` may hold -2, no class)."""
    agree = float(np.mean(values == observed))
    label = np.bincount(observed, minlength=n_classes) / observed.shape[0]
    column = np.bincount(values[values >= 0], minlength=n_classes)
    chance = float(label @ column) / observed.shape[0]
    return 0.0 if chance >= 1.0 else (agree - chance) / (1.0 - chance)


def label_copies(audit: pd.DataFrame, features: Sequence[Any]) -> list[dict[str, Any]]:
    """The label copies among ``features``, with what they say of the flags.

    Parameters
    ----------
    audit : DataFrame
        An audit with the user's columns (``observed_label``, ``decision``,
        ``cleaned_label`` and the ``features``).
    features : sequence
        The columns the evidence was computed from.

    Returns
    -------
    copies : list of dict
        Per copy, in ``features``' order: ``column``; ``rows`` compared (both
        present); ``equal``, the share of them where the column equals the
        label, and ``kappa``, their agreement beyond chance; ``flagged``,
        the rows discarded or corrected (every flag of a labelled row);
        ``flagged_where_different``, those where the column
        holds another value; ``corrected_to_column``, the corrections to
        the column's value.

    Examples
    --------
    >>> import pandas as pd
    >>> audit = pd.DataFrame({
    ...     "last_year": ["a", "a", "a", "b", "b", "b", "b", "a"],
    ...     "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
    ...     "observed_label": ["a", "a", "a", "b", "b", "b", "b", "b"],
    ...     "cleaned_label": ["a", "a", "a", "b", "b", "b", "b", "a"],
    ...     "decision": ["kept"] * 7 + ["corrected"],
    ... })
    >>> [c["column"] for c in label_copies(audit, ["last_year", "size"])]
    ['last_year']
    >>> label_copies(audit, ["last_year"])[0]["flagged_where_different"]
    1
    """
    _, classes = pd.factorize(audit["observed_label"])
    lookup = {str(c): k for k, c in enumerate(classes)}
    if len(lookup) < 2 or _numeric_text(sorted(lookup)):
        return []
    observed = _codes_as(audit["observed_label"], lookup)
    labelled = observed >= 0
    if "reason" in audit.columns:  # rows without a label are no judgement of one
        labelled &= audit["reason"].to_numpy(dtype=object) != "missing_label"
    decision = audit["decision"].to_numpy(dtype=object)
    flagged = labelled & (decision != "kept")
    cleaned = _codes_as(audit["cleaned_label"], lookup)
    present_columns = [c for c in features if c in audit.columns]
    text = set(non_numeric_columns(audit[present_columns]))
    out = []
    for column in present_columns:
        if column not in text:
            continue
        values = _codes_as(audit[column], lookup)
        present = values != -1
        if not present.any() or (values[present] >= 0).mean() < MIN_IN_CLASSES:
            continue
        both = present & labelled
        if not both.any():
            continue
        kappa = _kappa(values[both], observed[both], len(lookup))
        if kappa < MIN_KAPPA:
            continue
        same = both & (values == observed)
        differs = flagged & present & ~same
        to_column = differs & (decision == "corrected") & (values == cleaned)
        out.append({
            "column": str(column),
            "rows": int(both.sum()),
            "equal": float(same.sum() / both.sum()),
            "kappa": kappa,
            "flagged": int(flagged.sum()),
            "flagged_where_different": int(differs.sum()),
            "corrected_to_column": int(to_column.sum()),
        })  # fmt: skip
    return out


def named_first(found: Sequence[Mapping[str, Any]], key: str) -> tuple[Any, str]:
    """The entry of ``found`` with the largest ``key``, and the words that
    name the other entries' columns (`` (also 'a', 'b')``, or nothing)."""
    top = max(found, key=lambda c: c.get(key, 0))
    more = [c["column"] for c in found if c is not top]
    return top, f" (also {', '.join(repr(m) for m in more)})" if more else ""


def copy_caution(copies: Any) -> list[dict[str, str]]:
    """Caution ``label_copy``: a label copy that explains at least half of
    the run's flags (and one at least), the first such column by the flags it
    explains."""
    if not isinstance(copies, Sequence):
        return []
    telling = [
        c for c in copies
        if isinstance(c, Mapping) and c.get("flagged_where_different", 0) > 0
        and 2 * c["flagged_where_different"] >= c.get("flagged", 0)
    ]  # fmt: skip
    if not telling:
        return []
    top, also = named_first(telling, "flagged_where_different")
    name = top["column"]
    return [{
        "code": "label_copy",
        "message": (
            f"column {name!r}{also} holds the label's classes and equals the "
            f"label in {100 * top['equal']:.1f}% of the {top['rows']:,} rows "
            f"compared (Cohen's κ {top['kappa']:.2f}); "
            f"{top['flagged_where_different']:,} of the {top['flagged']:,} "
            "flagged among them are rows where it differs: if the two can "
            "rightly differ (an earlier or later record, another source, a "
            "stored prediction), those flags are not wrong labels; run again "
            f"with --exclude {shlex.quote(name)} to judge the labels by the "
            "other columns"
        ),
    }]  # fmt: skip
