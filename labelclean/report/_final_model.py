"""The report's sentence on the final model: which model, how it was
chosen (the candidates' comparison or their stack, RoSR-L's penalty, on
which rows), and what it was fitted on. Read from the run's ``final_model``
record of ``report.json``."""

from collections.abc import Mapping, Sequence
from typing import Any

from labelclean.report._calibration_story import count, pct

__all__ = ["final_model_text"]


#: Display names of labelclean's final models (others are shown as given).
_MODEL_NAMES = {
    "rosr": "RoSR-L",
    "adaboost_trees": "AdaBoost on the observed labels (depth-3 trees)",
    "cb_adaboost": "CB-AdaBoost",
    "cb_adaboost_trees": "CB-AdaBoost (depth-3 trees)",
    "cb_adaboost_deep": "CB-AdaBoost (deep trees)",
    "spbl": "SPBL",
}

#: How the final comparisons count each row (docs/decisions.md, *The final
#: comparisons scored without the evidence's weights*).
_COUNTED = (
    "each row counted once (or by its sample weight), not by the evidence's doubt"
)


def _model_name(name: str, on_cleaned: Mapping[str, Any] | None = None) -> str:
    """A final model's display name, the deep trees' depth as the fit grew
    them (and whether they stopped early) where the comparison on the
    cleaned rows recorded it."""
    record = ((on_cleaned or {}).get("candidates") or {}).get(name) or {}
    depth = record.get("depth")
    if name == "cb_adaboost_deep" and depth:
        early = ", stopped early" if record.get("early_stopping") else ""
        return f"CB-AdaBoost (depth-{depth} trees{early})"
    return _MODEL_NAMES.get(name, name)


def _in_order(
    records: Mapping[str, Any], order: Sequence[str] = ()
) -> list[tuple[str, Any]]:
    """``records``' items in the comparison's ``order`` (its first is the
    one kept unless another is clearly better), then labelclean's models in
    the order of ``_MODEL_NAMES`` (files written before the order was
    recorded), then others by name. Not the keys' order: ``report.json`` is
    written with sorted keys, and the page rendered again from it must say
    what the run's said."""
    known = {name: i for i, name in enumerate(dict.fromkeys([*order, *_MODEL_NAMES]))}
    return sorted(
        records.items(), key=lambda item: (known.get(item[0], len(known)), item[0])
    )


def _error_rates(selection: Mapping[str, Any]) -> list[str]:
    """'Name 12.3 %' per compared candidate of a model selection."""
    return [
        f"{_model_name(name, selection)} {pct(c['error_rate'])}"
        for name, c in _in_order(
            selection.get("candidates") or {}, selection.get("order") or ()
        )
        if isinstance(c, Mapping) and c.get("error_rate") is not None
    ]


#: The labels a candidate for the evidence was fitted to (``fitted_on``).
_FITTED_ON = {
    "soft": "the neighbours' soft labels",
    "observed": "the observed labels",
}


def _fitted_on_text(selection: Mapping[str, Any]) -> str:
    """'; each fitted to ...': the labels each compared candidate was fitted
    to, as it gives the evidence (nothing where the record does not say)."""
    groups: dict[str, list[str]] = {}
    candidates = selection.get("candidates") or {}
    for name, c in _in_order(candidates, selection.get("order") or ()):
        on = c.get("fitted_on") if isinstance(c, Mapping) else None
        if on in _FITTED_ON:
            groups.setdefault(on, []).append(_model_name(name, selection))
    if len(groups) == 1:
        return f"; each fitted to {_FITTED_ON[next(iter(groups))]}"
    parts = [
        f"{' and '.join(names)} to {_FITTED_ON[on]}" for on, names in groups.items()
    ]
    return (
        f"; each fitted to the labels it gives the evidence on, {' and '.join(parts)}"
        if parts
        else ""
    )


def _held_out(selection: Mapping[str, Any], rows: str) -> str:
    """``rows``, or the part of them a comparison held out of every fit (from
    10,000 compared rows: one fold of ``cv``)."""
    held = selection.get("held_out_rows")
    return f"{held:,} rows held out of {rows}" if held else rows


def _penalty_text(
    penalty: Mapping[str, Any], subject: str = "its", evidence_moved: bool = False
) -> str:
    """The clause saying how RoSR-L's final fit moved from the settings the
    rows were decided with (its penalty, its self-paced weights), if it did;
    ``evidence_moved``: the evidence's penalty was itself not the default
    (:func:`_evidence_penalty_text`), so the final fit started from it."""
    chosen, default = penalty.get("chosen"), penalty.get("default")
    own = penalty.get("default_weighting")  # older files: penalties alone
    plain = own is not None and penalty.get("weighting") != own
    if chosen is None or default is None or (chosen == default and not plain):
        return ""
    compared = penalty.get("compared", chosen)  # older files: chosen
    candidates = penalty.get("candidates") or {}
    at = {}  # (penalty, without self-paced weights): error rate
    for name, v in candidates.items():  # older files: named by the penalty alone
        mu = v["mu"] if "mu" in v else float(name)
        at[mu, v.get("weighting", own) != own] = v.get("error_rate")
    where = "the cleaned rows"
    if penalty.get("sampled_rows"):
        where = f"a sample of {penalty['sampled_rows']:,} cleaned rows"
    where = _held_out(penalty, where)
    without = " without self-paced weights" if plain else ""
    kinds = "settings, with and without self-paced weights" if own else "penalties"
    text = (
        f"; {subject} penalty \N{GREEK SMALL LETTER MU} = {chosen:.2g}{without} was "
        f"chosen out of fold on {where} among {len(at)} {kinds}"
    )
    scaled = f"scaled by the share of rows sampled, {penalty.get('scale', 1):.2g}"
    start = "the evidence's" if evidence_moved else "the default"
    if compared == default and not plain:  # kept on a sample, then scaled
        text += f" ({start} {default:g} was kept there, then {scaled})"
    elif at.get((compared, plain)) is not None and at.get((default, False)) is not None:
        text += f" (error {pct(at[(compared, plain)])} at {compared:g}{without} "
        text += f"against {pct(at[(default, False)])} at {start} {default:g}"
        text += f", {scaled})" if compared != chosen else ")"
    text += f"; the rows were decided with RoSR-L at {start} penalty"
    return text + (", with its self-paced weights" if plain else "")


def _stack_text(on_cleaned: Mapping[str, Any]) -> str:
    """'a weighted average of A (0.83) and B (0.17), ...' for a stacked model."""
    members = (on_cleaned.get("stack") or {}).get("members") or {}
    heaviest = sorted(_in_order(members), key=lambda item: -item[1]["weight"])
    parts = [f"{_model_name(n, on_cleaned)} ({m['weight']:.2f})" for n, m in heaviest]
    listed = ", ".join(parts[:-1]) + f" and {parts[-1]}" if len(parts) > 1 else ""
    rates = _error_rates(on_cleaned)
    return (
        f"a weighted average of {listed}, each calibrated by a temperature; "
        "the weights minimise the out-of-fold log-loss against the cleaned "
        f"labels of {_held_out(on_cleaned, 'the cleaned rows')}, {_COUNTED}"
        + (f" (error rates alone: {', '.join(rates)})" if rates else "")
    )


def final_model_text(final: Mapping[str, Any]) -> str:
    """One sentence: the final model, and the comparison that chose it."""
    name = str(final["name"])
    selection = final.get("selection") or {}
    on_cleaned = selection.get("final") or {}
    # RoSR-L's penalty is searched before the stack weighs it: said only
    # where RoSR-L is in the final model.
    penalty = selection.get("final_penalty") or {}
    evidence = selection.get("evidence_penalty") or {}
    moved = evidence.get("chosen", evidence.get("default")) != evidence.get("default")
    if name == "stacked":
        text = f"The final model was {_stack_text(on_cleaned)}"
        if "rosr" in ((on_cleaned.get("stack") or {}).get("members") or {}):
            text += _penalty_text(penalty, "RoSR-L's", moved)
        return text + _evidence_and_fit_text(final, name)
    text = f"The final model was {_model_name(name, on_cleaned)}"
    rates = _error_rates(on_cleaned) or _error_rates(selection)
    if on_cleaned.get("stack"):
        text += (
            ", the only candidate above 1 % of the weight in the average of the "
            "candidates fitted to the out-of-fold log-loss against the cleaned "
            f"labels ({', '.join(rates)})"
        )
    elif len(rates) > 1:
        if on_cleaned.get("candidates"):
            how = f"the cleaned labels of the cleaned rows, {_COUNTED}"
            labels = ""
        else:  # the evidence's comparison
            how, labels = "the observed labels", _fitted_on_text(selection)
        text += (
            f", chosen by out-of-fold error rate against {how} "
            f"({', '.join(rates)}{labels})"
        )
    if name == "rosr":
        text += _penalty_text(penalty, evidence_moved=moved)
    return text + _evidence_and_fit_text(final, name)


def _evidence_penalty_text(penalty: Mapping[str, Any]) -> str:
    """The clause saying that the evidence's RoSR-L was fitted at a weaker
    penalty than its default, and why (its error rates), if it was."""
    chosen, default = penalty.get("chosen"), penalty.get("default")
    if chosen is None or default is None or chosen == default:
        return ""
    candidates = penalty.get("candidates") or {}
    compared = penalty.get("compared", chosen)
    at = {float(name): v.get("error_rate") for name, v in candidates.items()}
    text = (
        f"; the evidence's RoSR-L was fitted at the penalty "
        f"\N{GREEK SMALL LETTER MU} = {chosen:.2g}, not its default {default:g}, "
        "which fits the labels clearly worse"
    )
    if at.get(compared) is not None and at.get(default) is not None:
        text += (
            f" (out-of-fold error against the observed labels {pct(at[compared])} "
            f"at {compared:g}, {pct(at[default])} at {default:g})"
        )
    return text


def _temperature_text(selection: Mapping[str, Any], lead: str) -> str:
    """``lead`` and the evidence's temperature (``adaboost_trees``), or
    nothing where the evidence had none."""
    temperature = selection.get("evidence_temperature")
    if temperature is None:
        return ""
    return (
        f"{lead} calibrated by a temperature of {temperature:.3g} fitted out "
        "of fold to the observed labels"
    )


def _evidence_and_fit_text(final: Mapping[str, Any], name: str) -> str:
    """The final model sentence's end: the evidence's model, and the fit."""
    selection = final.get("selection") or {}
    on_cleaned = selection.get("final") or {}
    text = ""
    evidence = selection.get("chosen")
    rates = _error_rates(selection)
    # the evidence's choice, where the final model was chosen apart from it
    # (said even when both came out the same kind)
    said = bool(on_cleaned.get("chosen") and evidence)
    if said and (evidence != name or len(rates) > 1):
        text += (
            f"; the out-of-fold evidence that decided the rows came from "
            f"{_MODEL_NAMES.get(evidence, evidence)}"
            + (" too" if evidence == name else "")
        )
        if len(rates) > 1:
            text += (
                " (chosen by out-of-fold error rate against the observed labels: "
                f"{', '.join(rates)}{_fitted_on_text(selection)}; the first kept "
                "unless another is lower by more than a standard error)"
            )
    if said and evidence != name:
        text += _temperature_text(selection, ", its probabilities")
        text += ", which also decides new rows"
    elif evidence == name:  # the evidence's own kind: its probabilities there
        text += _temperature_text(
            selection, "; as the evidence, its probabilities were"
        )
    text += _evidence_penalty_text(selection.get("evidence_penalty") or {})
    fit = final.get("fit") or {}
    if fit.get("weighted") and fit.get("mean_weight") is not None:
        subject = "Each of them was" if name == "stacked" else "It was"
        text += (
            f". {subject} fitted on the {count(fit['n_rows'])} cleaned row(s), each "
            "weighted by the estimated probability that its label is right "
            f"(mean {fit['mean_weight']:.2f}; {count(fit['rows_under_half'])} row(s) "
            "under one half)"
        )
    return text + "."
