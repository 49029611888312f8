"""What a cautious run that flagged nothing can still tell its reader.

Where the features predict the label poorly, labelclean assumes overlap
wherever the data cannot tell it from wrong labels, and may flag no row at
all, even where the rows the evidence is surest of disagree with their
labels beyond chance (the anchor reading's one-sided lower limit above 0).
Wrong labels would explain that disagreement as well as overlapping classes
do, and only a person can tell which (docs/decisions.md, *In one page*).
The evidence still ranks the rows: in three such runs with 20 % of the
labels flipped (cars, seattle_weather and diamonds in ``benchmarks/review.py``,
section ``review-unchecked``), 86–100 % of the rows ``labelclean review
export`` ranked first were wrong labels. :func:`unflagged_disagreement_text`
says so in the ``poor_predictability`` caution.
"""

from collections.abc import Mapping
from typing import Any

__all__ = ["known_noise_caution", "unflagged_disagreement_text"]

#: The lower limit under which the disagreement is not worth a sentence
#: (printed, it would read "at least 0.0 %").
_SHOWN = 0.005


def unflagged_disagreement_text(cal: Mapping[str, Any]) -> str:
    """``'; yet 19.0% of the labels ...'`` where a calibrated run flagged no
    row and its surest rows disagree with their labels beyond chance; ``''``
    otherwise."""
    anchor = cal.get("anchor_disagreement")
    fixed = cal.get("decision_rule") == "thresholds"  # its flags are not these
    known = cal.get("known_noise")
    told = isinstance(known, Mapping) and known.get("added")  # rows added for it
    if fixed or told or cal.get("flagged") or not isinstance(anchor, Mapping):
        return ""
    share, low = anchor.get("share"), anchor.get("lower_limit")
    if not isinstance(low, (int, float)) or not isinstance(share, (int, float)):
        return ""
    if low < _SHOWN:
        return ""
    return (
        f"; no row was flagged, yet {share:.1%} of the labels of the rows the "
        f"evidence is surest of disagree with it (at least {low:.1%}), as wrong "
        "labels would and overlapping classes can: a person can check the rows "
        "whose labels the evidence doubts most ('labelclean review export')"
    )


def known_noise_caution(cal: Mapping[str, Any]) -> list[dict[str, str]]:
    """``known_noise`` where rows were discarded to reach a share of wrong
    labels the run was told (``LabelCleaner(known_noise_rate=...)``,
    :mod:`labelclean.pipeline._known_noise`): the evidence alone did not flag
    them, and the calibration's estimates do not cover them."""
    known = cal.get("known_noise")
    if not isinstance(known, Mapping) or not known.get("added"):
        return []
    # the calibrated flags' count; under fixed thresholds the rule's flags
    # are not these, so the count is left out
    fixed = cal.get("decision_rule") == "thresholds"
    beyond = (
        ", beyond the rows the fixed thresholds flagged"
        if fixed
        else f", beyond the {int(cal.get('flagged') or 0)} the evidence flagged on "
        "its own"
    )
    return [{
        "code": "known_noise",
        "message": (
            f"{known['added']} row(s) were discarded because the run was told "
            f"that {known['rate']:.1%} of the labels are wrong (known_noise_rate)"
            f"{beyond}: they are the "
            "rows whose labels the evidence doubts most, and the estimated "
            "precision and recall of the flags do not cover them"
        ),
    }]  # fmt: skip
