"""One line in words saying why a row got its decision.

:func:`why` reads a row's record (a suspect of ``report.json``, or an audit
row that ``labelclean review export`` writes) and says what the evidence
showed, in the order a reviewer checks it: how likely the label is wrong,
what the row's neighbours (or the density stage) and the final model said,
and what labelclean did. :func:`unchecked_labels` and :func:`flags_nothing`
read, from a run's calibration, where that likelihood is an assumption of
the run rather than an estimate.
"""

from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["flags_nothing", "mostly_unchecked", "unchecked_labels", "why"]

#: A kept row's outcome where the run flags no row (reason ``weak_evidence``;
#: :func:`why`'s ``silent`` for runs written before it).
_SILENT = "kept: the features predict the label too poorly for the run to flag any row"

#: What the decision was, per reason code.
_OUTCOME = {
    "ok": "kept: the evidence does not justify a change",
    "not_checked": "kept as labelled, unchecked",
    "weak_evidence": _SILENT,
    "trusted_alternative": "relabelled to {cleaned}: both stages trust it",
    "correction_not_precise": (
        "discarded: the other label is not probable enough to relabel it"
    ),
    "likely_mislabeled": "discarded: no other label is trusted by both stages",
    "low_confidence": "discarded: no other label is trusted enough",
    "spl_zero_weight": "discarded: no other label is trusted enough",
    "low_confidence_and_spl_zero": "discarded: no other label is trusted enough",
    "known_noise": (
        "discarded: among the labels the evidence doubts most, up to the share "
        "of wrong labels the run was told"
    ),
}


def unchecked_labels(calibration: Any) -> list[Any]:
    """The classes (as ``report.json`` holds them) whose labels a calibrated
    run kept unchecked: the evidence does not tell them apart from any class
    they could be confused with, so the run took their labels as right and
    gave their rows a noise probability of 0 by assumption, not by estimate
    (``not_checked``; runs written before it: the classes not
    ``recognised``)."""
    if not isinstance(calibration, Mapping):
        return []
    if calibration.get("decision_rule") == "thresholds":
        return []
    names = calibration.get("classes") or []
    if calibration.get("not_checked") is not None:
        flags = calibration["not_checked"]
    else:
        per_class = (calibration.get("predictability") or {}).get("per_class") or []
        flags = [isinstance(c, Mapping) and not c.get("recognised", True)
                 for c in per_class]  # fmt: skip
    return [name for name, flag in zip(names, flags, strict=False) if flag]


def mostly_unchecked(entry: Any) -> bool:
    """Whether most of a class's rows in a batch were kept unchecked: an
    entry of ``noise_profile['classes']`` with ``not_checked_share`` above
    one half (a class is checked or not by the fitted model, so the share is
    0 or 1 but for reviewed rows; profiles written before it have none)."""
    share = entry.get("not_checked_share") if isinstance(entry, Mapping) else None
    return share is not None and share > 0.5


def flags_nothing(calibration: Any) -> bool:
    """Whether a calibrated run flags no row whatever the evidence: its
    features predict the label hardly better than chance, or only fairly
    (``predictability['slight']`` or ``['fair']``)."""
    if not isinstance(calibration, Mapping):
        return False
    if calibration.get("decision_rule") == "thresholds":
        return False
    predictability = calibration.get("predictability") or {}
    return bool(predictability.get("slight") or predictability.get("fair"))


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


def why(
    record: Mapping[str, Any],
    *,
    unchecked: Collection[Any] = (),
    silent: bool = False,
    copies: Collection[str] = (),
) -> str:
    """One sentence on the evidence behind a row's decision.

    Parameters
    ----------
    record : dict
        A row of ``report.json``'s ``suspects.rows``, or of the audit (JSON
        values).
    unchecked : collection, default=()
        Observed labels whose class the run kept unchecked
        (:func:`unchecked_labels`), for audits written before such rows got
        reason ``not_checked``: a row of theirs, or one with that reason, has
        a noise probability of 0 by the run's assumption, and the sentence
        says so instead of "0% likely mislabelled".
    silent : bool, default=False
        The run flags no row whatever the evidence (:func:`flags_nothing`),
        for audits written before such rows got reason ``weak_evidence``: a
        kept row's sentence says that, not that the evidence does not
        justify a change.
    copies : collection of str, default=()
        The run's label copies (``run.label_copies``,
        :func:`~labelclean.report._copies.label_copies`): where the row's
        value of one differs from its label, the sentence names it, as the
        flag may be a change the copy did not follow rather than a wrong
        label.

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

    A kept row of a run that flags nothing, and of a class it did not check:

    >>> kept = {"decision": "kept", "reason": "weak_evidence",
    ...         "observed_label": "a", "noise_probability": 0.6,
    ...         "model_probability": 0.3, "model_label": "b"}
    >>> why(kept)
    "60% likely mislabelled; the model gives 'a' 0.30 and predicts 'b'; kept: \
the features predict the label too poorly for the run to flag any row."
    >>> why({**kept, "reason": "not_checked", "noise_probability": 0.0})
    "not checked: the evidence does not tell 'a' apart from the other classes, \
so the run took this label as right; the model gives 'a' 0.30 and predicts \
'b'; kept as labelled, unchecked."
    """
    observed = _label(record.get("observed_label"))
    parts = []
    noise = _number(record, "noise_probability")
    assumed = record.get("reason") == "not_checked" or (
        record.get("observed_label") in list(unchecked)
        and record.get("reason") != "known_noise"  # the run was told otherwise
    )
    if assumed:
        parts.append(
            f"not checked: the evidence does not tell {observed} apart from the "
            "other classes, so the run took this label as right"
        )
    elif noise is not None:
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
    for column in copies:
        value = record.get(column)
        if value is not None and str(value) != str(record.get("observed_label")):
            parts.append(f"column {column!r} holds {_label(value)}")
    reason = str(record.get("reason") or "")
    outcome = _OUTCOME.get(reason, f"{record.get('decision')} ({reason})")
    if reason == "ok" and (assumed or silent):  # runs before `not_checked`
        outcome = _OUTCOME["not_checked"] if assumed else _SILENT
    parts.append(outcome.format(cleaned=_label(record.get("cleaned_label"))))
    return "; ".join(parts) + "."
