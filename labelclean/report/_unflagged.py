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

Where the agreement is only slight or fair even with the noise taken out, no
row is flagged at any precision target (``flags_nothing``). A user who asked
for one (``--target-precision``) would otherwise see it ignored in silence:
:func:`target_unused_text` says so, and names what does move the decisions
there, a share of wrong labels known from outside the data
(``known_noise_rate``).
"""

from collections.abc import Mapping
from typing import Any

from labelclean.report._why import flags_nothing

__all__ = ["known_noise_caution", "target_unused_text", "unflagged_disagreement_text"]

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


def target_unused_text(cal: Mapping[str, Any]) -> str:
    """``'no row is flagged at any precision target ...'`` where a
    calibrated run with a ``target_precision`` flagged no row because its
    agreement is only slight or fair (:func:`flags_nothing`); ``''``
    otherwise (no target, rows flagged, fixed thresholds, rows added for a
    known share of wrong labels)."""
    target = cal.get("target_precision")
    known = cal.get("known_noise")
    told = isinstance(known, Mapping) and known.get("added")
    if not isinstance(target, (int, float)) or told or cal.get("flagged"):
        return ""
    if not flags_nothing(cal):
        return ""
    return (
        "no row is flagged at any precision target where the features agree "
        f"with the labels this weakly, so the target asked for ({target:.1%}) "
        "went unused: where the share of wrong labels is known from outside the "
        "data, known_noise_rate ('--known-noise-rate') discards that share of "
        "the rows the evidence doubts most"
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
