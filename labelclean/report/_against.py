"""Flags that move labels against the way the surest rows show them flowing.

Each class's surest rows (the evidence blind to each row's own label) show
how the labels of a pair of classes are exchanged: the labels of *j* among
the rows surely of *l*, and the labels of *l* among the rows surely of *j*.
A flag on a row labelled *l* whose most probable other class is *j* says that
a row of *j* carries the label *l*. When most flags go a way the surest rows
contradict (the calibration's ``flags_against_surest_rows``,
:func:`~labelclean.pipeline._anchor.flags_against_surest_rows`), the run has
probably read the noise backwards: wrong labels that flow one way (rows of
*l* recorded as *j*) teach the evidence that *j* covers *l*'s region, so
*l*'s right labels look wrong; or the class *l* lies inside *j*'s region,
which no label-noise reading can tell from wrong labels. The calibration
then leaves those directions out of its noise estimate
(:func:`most_flags_against`), and the report says so (caution
``flags_against_surest_rows``; docs/decisions.md, *Flags against the
surest rows*).
"""

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["against_caution", "against_text", "most_flags_against"]


def most_flags_against(reading: Any) -> bool:
    """Whether at least half of a reading's flags (one at least) go against
    the surest rows: the calibration then leaves those directions out, and
    the report says so."""
    if not isinstance(reading, Mapping):
        return False
    against = reading.get("against") or 0
    return bool(against) and 2 * against >= (reading.get("flagged") or 0)


def _against(cal: Mapping[str, Any]):
    """``(reading, classes, flagged after)``: the reading most of whose flags
    went against the surest rows, the class names, and the rows flagged
    once those directions were left out (None where they were not); None
    where no reading of the run did."""
    reading = cal.get("flags_against_surest_rows")
    classes = cal.get("classes")
    if not isinstance(reading, Mapping) or not isinstance(classes, Sequence):
        return None
    if most_flags_against(reading.get("withheld")):
        return reading["withheld"], list(classes), reading.get("flagged", 0)
    if most_flags_against(reading):
        return reading, list(classes), None
    return None


def _pair_text(pair: Mapping[str, Any], classes: list) -> str:
    label, other = classes[pair["label"]], classes[pair["as"]]
    return (
        f"{pair['flags']:,} moved label '{label}' to '{other}', yet "
        f"{100 * pair['share_label_as']:.1f}% of the rows surely of '{label}' "
        f"carry the label '{other}' and only {100 * pair['share_as_label']:.1f}% "
        f"of those surely of '{other}' carry '{label}'"
    )


def _top(reading: Mapping[str, Any], classes: list):
    """The pair holding the most flags against the surest rows, and its
    class names (label, the class the flags moved it to)."""
    top = max(reading["pairs"], key=lambda p: p["flags"])
    return top, classes[top["label"]], classes[top["as"]]


def _message(reading: Mapping[str, Any], classes: list, after) -> str:
    top, label, other = _top(reading, classes)
    more = len(reading["pairs"]) - 1
    first = "a first reading flagged" if after is not None else "flagged"
    text = (
        f"{reading['against']:,} of the {reading['flagged']:,} rows {first} go "
        "against what each class's surest rows show: "
        + _pair_text(top, classes)
        + (f" (and {more} more such pair(s))" if more else "")
        + f": the surest rows see labels flowing from '{label}' to '{other}', "
        "not back. "
    )
    if after is not None:
        text += (
            f"Those moves were left out of the noise estimate and {after:,} "
            "row(s) flagged without them; "
        )
    return text + (
        "the evidence may read one-way noise backwards (rows of "
        f"'{label}' recorded as '{other}'), or '{label}' may lie inside the "
        f"region of '{other}'"
    )


def against_text(cal: Mapping[str, Any]) -> str:
    """The report's sentence (leading space) where most flags of a reading
    went against the surest rows; empty otherwise."""
    found = _against(cal)
    return "" if found is None else f" {_message(*found)}."


def against_caution(cal: Any) -> list[dict[str, str]]:
    """Caution ``flags_against_surest_rows`` where most flags of a reading
    went against the surest rows (:func:`_against`)."""
    found = _against(cal) if isinstance(cal, Mapping) else None
    if found is None:
        return []
    reading, classes, after = found
    _, label, other = _top(reading, classes)
    check = (
        f"the run cannot tell which: review the rows labelled '{label}' and "
        f"'{other}' ('labelclean review export')"
        if after is not None
        else "check the rows ('labelclean review export') before relying on "
        "the run's discards or corrections"
    )
    return [{
        "code": "flags_against_surest_rows",
        "message": f"{_message(*found)}; {check}",
    }]  # fmt: skip
