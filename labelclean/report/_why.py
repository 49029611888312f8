"""One line in words saying why a flagged row got its decision.

:func:`why` reads a suspect's record of ``report.json`` (its decision, labels
and evidence) and says what the evidence showed, in the order a reviewer
checks it: how likely the label is wrong, what the row's neighbours (or the
density stage) and the final model said, and what labelclean did.
"""

from collections.abc import Mapping
from typing import Any

__all__ = ["why"]

#: What the decision was, per reason code.
_OUTCOME = {
    "ok": "kept: the evidence does not justify a change",
    "trusted_alternative": "relabelled to {cleaned}: both stages trust it",
    "correction_not_precise": (
        "discarded: the other label is not probable enough to relabel it"
    ),
    "likely_mislabeled": "discarded: no other label is trusted by both stages",
    "low_confidence": "discarded: no other label is trusted enough",
    "spl_zero_weight": "discarded: no other label is trusted enough",
    "low_confidence_and_spl_zero": "discarded: no other label is trusted enough",
}


def _label(value: Any) -> str:
    return (
        "(none)"
        if value is None
        else repr(value)
        if isinstance(value, str)
        else str(value)
    )


def _number(record: Mapping[str, Any], key: str) -> float | None:
    value = record.get(key)
    return (
        float(value)
        if isinstance(value, int | float) and not isinstance(value, bool)
        else None
    )


def why(record: Mapping[str, Any]) -> str:
    """One sentence on the evidence behind a suspect's decision.

    Parameters
    ----------
    record : dict
        A row of ``report.json``'s ``suspects.rows`` (JSON values).

    Returns
    -------
    sentence : str

    Examples
    --------
    >>> why({"decision": "discarded", "reason": "likely_mislabeled",
    ...      "observed_label": "a", "cleaned_label": None,
    ...      "noise_probability": 0.8, "confidence": 0.1,
    ...      "trusted_label": "b", "trusted_probability": 0.7,
    ...      "model_probability": 0.2, "model_label": "a",
    ...      "neighbor_label_counts": {"a": 1, "b": 9}})
    "80% likely mislabelled; neighbours give 'a' 0.10 and favour 'b' (0.70); \
the model gives 'a' 0.20; discarded: no other label is trusted by both stages."
    """
    observed = _label(record.get("observed_label"))
    parts = []
    noise = _number(record, "noise_probability")
    if noise is not None:
        parts.append(f"{100 * noise:.0f}% likely mislabelled")
    confidence = _number(record, "confidence")
    if confidence is not None:
        source = (
            "neighbours give"
            if record.get("neighbor_label_counts") is not None
            else "the confidence stage gives"
        )
        text = f"{source} {observed} {confidence:.2f}"
        trusted = record.get("trusted_label")
        probability = _number(record, "trusted_probability")
        if trusted is not None and trusted != record.get("observed_label"):
            text += f" and favour {_label(trusted)}"
            if probability is not None:
                text += f" ({probability:.2f})"
        parts.append(text)
    model = _number(record, "model_probability")
    if model is not None:
        text = f"the model gives {observed} {model:.2f}"
        predicted = record.get("model_label")
        if predicted is not None and predicted != record.get("observed_label"):
            text += f" and predicts {_label(predicted)}"
        parts.append(text)
    if _number(record, "spl_weight") == 0.0:
        round_ = record.get("spl_zero_round")
        parts.append(
            "SPLBoost left it out"
            + (f" in round {round_}" if round_ is not None else "")
        )
    reason = str(record.get("reason") or "")
    outcome = _OUTCOME.get(reason, f"{record.get('decision')} ({reason})")
    parts.append(outcome.format(cleaned=_label(record.get("cleaned_label"))))
    return "; ".join(parts) + "."
