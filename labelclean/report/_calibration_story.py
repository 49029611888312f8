"""The report's first sentences: how sure the run is, from its own rows.

The calibration's estimates (noise, flags, corrections, predictability),
the classes the evidence cannot see, reviewed rows and missing values, in
plain words (``docs/decisions.md`` says where each number comes from).
"""

from collections.abc import Mapping
from typing import Any

from labelclean.report._against import against_text
from labelclean.report._batch import quoted
from labelclean.report._unflagged import target_unused_text
from labelclean.report._why import unchecked_labels

__all__ = [
    "admits_no_noise",
    "agreement_numbers",
    "calibration_story",
    "count",
    "every_class_unchecked",
    "flags_doubtful",
    "pct",
    "ranked_unnamed_text",
    "unseen_classes",
]


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def count(value: Any) -> str:
    """A count of rows with thousands separators (``12,345``); anything
    else as it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def _interval_text(interval: Any) -> str:
    if not interval or interval[0] is None or interval[1] is None:
        return ""
    return f" (about {pct(interval[0])}–{pct(interval[1])})"


def _correction_evidence_text(cal: Mapping[str, Any]) -> str:
    """How the corrections read the evidence: sharpened as far as the labels
    surely show it too smooth, and shrunk where they show it too sure."""
    if not cal.get("flagged") or not cal.get("corrections_allowed", True):
        return ""
    if cal.get("decision_rule") != "calibrated":
        return ""
    text, tau = "", cal.get("correction_temperature") or 1.0
    if tau > 1.0:
        text += (
            " The observed labels show the evidence smoother than the truth (it "
            "was learnt with their noise), so corrections were judged on it "
            f"sharpened to the least temperature the labels support ({tau:.3g}; "
            f"the flags read it at the likeliest, {cal.get('temperature', tau):.3g})."
        )
    shrinkage = cal.get("evidence_shrinkage")
    if isinstance(shrinkage, Mapping) and shrinkage.get("alpha"):
        text += (
            " The evidence claimed more certainty than the observed labels bear "
            "out (likelihood-ratio test), so corrections were judged on it mixed "
            f"{pct(shrinkage['alpha'])} with the class shares; flagged rows it "
            "could then not settle were discarded rather than relabelled."
        )
    return text


#: Pairs of classes named one by one in the story; more are counted.
_PAIRS_NAMED = 3


def _pair_names(pairs, detail=None) -> str:
    """The first :data:`_PAIRS_NAMED` pairs by name (with ``detail``), the
    rest counted; every pair is in ``report.json``."""
    names = [f"{p['from']} → {p['to']}" + (detail(p) if detail else "")
             for p in pairs[:_PAIRS_NAMED]]  # fmt: skip
    rest = len(pairs) - len(names)
    more = f" and {rest} more pair{'s' if rest > 1 else ''}" if rest > 0 else ""
    return ", ".join(names) + more


def _cells_text(held) -> str:
    """What the withheld pairs' noise rests on: rows of the joint's cells."""
    cells = [p for p in held if p.get("noise_cell_rows") is not None]
    if not cells:
        return ""
    if len(cells) == 1:
        (p,) = cells
        return (
            f"about {p['noise_cell_rows']:.1f} rows labelled {p['from']} are of "
            f"class {p['to']}, perhaps as few as {p['noise_cell_lower_limit']:.1f}; "
        )
    rows = [p["noise_cell_rows"] for p in cells]
    lows = [p["noise_cell_lower_limit"] for p in cells]
    return (
        f"each rests on {min(rows):.1f}–{max(rows):.1f} rows of the one label "
        f"that are of the other class, perhaps as few as "
        f"{min(lows):.1f}–{max(lows):.1f}; "
    )


def _least_noise_text(cal: Mapping[str, Any]) -> str:
    """Pairs withheld: their corrections fail at the least noise admitted."""
    target = cal.get("correction_target", 0.0)
    held = [p for p in cal.get("correction_pairs") or ()
            if p.get("estimated_precision_at_least_noise", 1.0) < target]  # fmt: skip
    if not held:
        return ""
    lower = (cal.get("anchor_disagreement") or {}).get("lower_limit", 0.0)
    least = "almost no" if lower < 0.001 else f"as little as {pct(lower)}"
    return (
        f" Corrections {_pair_names(held)} were withheld: at the least noise the "
        f"data admit they would not reach {pct(target)} ({_cells_text(held)}the "
        f"rows the evidence is surest of admit {least} noise); their flagged rows "
        "were discarded, not relabelled."
    )  # fmt: skip


def _pairs_not_corrected_text(cal: Mapping[str, Any]) -> str:
    """The pairs of classes no label was corrected between, where others
    were (docs/decisions.md, *Corrections need almost perfect agreement*)."""
    pred = cal.get("predictability") or {}
    if not cal.get("flagged") or not cal.get("corrections_allowed", True):
        return ""
    held = [p for p in pred.get("pairs") or [] if not p.get("corrected_between", True)]
    if not held:
        return ""
    names = [" and ".join(str(c) for c in p["classes"]) for p in held]
    line = pred.get("correction_kappa", 0.8)  # older files: the line then
    more = f" and {len(names) - _PAIRS_NAMED} more" if len(names) > _PAIRS_NAMED else ""
    return (
        " No label was corrected between "
        + "; ".join(names[:_PAIRS_NAMED])
        + more
        + ": the evidence tells those classes apart less than almost perfectly "
        f"with the noise taken out (Cohen's κ of the pair under {line:.2f}), so their "
        "flagged rows were discarded rather than relabelled."
    )


def _limited_text(cal: Mapping[str, Any]) -> str:
    """Pairs that corrected only their surest rows: the rest would not hold."""
    target = cal.get("correction_target", 0.0)
    cut = [p for p in cal.get("correction_pairs") or ()
           if 0 < p.get("corrected", 0) < p.get("reached_target", 0)]  # fmt: skip
    if not cut:
        return ""
    names = _pair_names(cut, lambda p: f" ({p['corrected']} of {p['reached_target']})")
    return (
        f" Corrections {names} were limited to the rows the evidence is surest "
        f"of: the next would not reach {pct(target)} at the least noise the data "
        "admit; the rest were discarded, not relabelled."
    )


def _corrections_made_text(cal: Mapping[str, Any]) -> str:
    """How many labels were corrected, and how sure the run is of them."""
    if not cal.get("corrections") or cal.get("correction_precision") is None:
        return "."
    text = (
        f"; {cal['corrections']} were corrected, at an estimated precision of "
        f"{pct(cal['correction_precision'])}"
        f"{_interval_text(cal.get('correction_precision_interval'))}"
    )
    if cal.get("correction_recall") is not None:
        text += (
            f", restoring an estimated {pct(cal['correction_recall'])}"
            f"{_interval_text(cal.get('correction_recall_interval'))} of the wrong "
            "labels"
        )
    return text + "."


def _share_reading_text(cal: Mapping[str, Any], pred: Mapping[str, Any]) -> str:
    """Why the noise was read at the surest rows' share though the features
    predict the label (docs/decisions.md, *Below substantial agreement the
    noise is read at the surest rows' share*)."""
    if cal.get("noise_cap_reading") != "share" or pred.get("low", True):
        return ""
    return (
        "; with that noise taken out the evidence agrees with the labels only "
        f"moderately (Cohen's κ {pred['kappa_noise_corrected']:.2f}, under "
        "substantial), where confident learning counts rows the features cannot "
        "place as wrong labels, so the estimate was capped at that share, not at "
        "its upper limit"
    )


def _wrong_where_surest_text(anchor: Mapping[str, Any]) -> str:
    """Why the noise interval reaches 0 where most of the surest rows surely
    disagree (docs/decisions.md, *Most of the surest rows disagreeing*)."""
    return (
        f" (at least {pct(anchor.get('lower_limit', 0.5))}), which wrong labels "
        "cannot do while most of each class's labels are right: the evidence "
        "is wrong where it is surest (as it is out of fold for identical rows "
        "of different labels, each seeing the other), so its count of wrong "
        "labels may be its own errors, and the data admit that no label is wrong"
    )


def admits_no_noise(cal: Mapping[str, Any]) -> bool:
    """Whether the noise rate's interval reaches 0 (as printed, 0.0 %)."""
    return ((cal.get("noise_rate_interval") or [None])[0] or 0.0) < 5e-4


def _no_corrections_text(cal: Mapping[str, Any], pred: Mapping[str, Any]) -> str:
    """Why a calibrated run corrected no label."""
    doubt = cal.get("doubtful_correction_precision_interval")
    if doubt:
        noise = (cal.get("noise_rate_interval") or [None])[0] or 0.0
        least = (
            "no wrong label at all"
            if admits_no_noise(cal)
            else f"as little noise as {pct(noise)}"
        )
        return (
            f"; no label was corrected: the data admit {least}, and the "
            f"corrections' estimated precision reaches down to {pct(doubt[0])}, "
            "where they would be more likely wrong than right, so their rows "
            "were discarded rather than relabelled."
        )
    if pred.get("low") or pred.get("kappa") is None:
        return (
            "; no label was corrected, as the features predict the label too "
            "poorly to tell which other label is right."
        )
    if pred.get("moderate") and pred.get("substantial"):
        line = pred.get("correction_kappa", 0.8)  # older files: the line then
        return (
            "; no label was corrected: "
            + (
                "no pair of classes is told apart almost perfectly with the noise "
                f"taken out (Cohen's κ of each pair under {line:.2f})"
                if pred.get("almost_perfect")
                else "with the noise the surest rows suggest taken out, the evidence "
                "agrees with the observed labels substantially but not almost "
                f"perfectly (Cohen's κ {pred['kappa_noise_corrected']:.2f}, under "
                f"{line:.2f})"
            )
            + (
                ", where rows of one class that the features place in another are "
                "right labels about as often as wrong ones, so their rows were "
                "discarded rather than relabelled."
            )
        )
    if pred.get("substantial", True) or not pred.get("moderate", False):
        return (
            "; no label was corrected: the evidence agrees with the observed labels "
            f"less than moderately (Cohen's κ {pred['kappa']:.2f}); it reads as "
            "predictive only once the noise the surest rows suggest is taken out, "
            "and that noise may be overlap, so which other label is right is not "
            "settled."
        )
    return (
        "; no label was corrected: even with the noise the surest rows suggest "
        "taken out, the evidence agrees with the observed labels only moderately "
        f"(Cohen's κ {pred['kappa_noise_corrected']:.2f}, under substantial): "
        "rows the features cannot place look like wrong labels, so which other "
        "label is right is not settled."
    )


def flags_doubtful(cal: Mapping[str, Any]) -> bool:
    """Whether the flags' precision interval reaches under one half: the data
    cannot rule out that most flagged rows carry right labels; typically the
    noise interval reaches 0 (docs/decisions.md, *Clean labels of
    overlapping classes*). The point estimate alone would read as sure."""
    interval = cal.get("flag_precision_interval")
    # One half: the flags would be more likely wrong than right, the line
    # the corrections' doubt and the flag threshold's floor use too.
    return bool(
        cal.get("flagged") and interval and interval[0] is not None
        and interval[0] < 0.5
    )  # fmt: skip


def _doubtful_flags_text(cal: Mapping[str, Any]) -> str:
    """The report's sentence where :func:`flags_doubtful`."""
    if not flags_doubtful(cal):
        return ""
    interval = cal["flag_precision_interval"]
    admit = " (the data admit that no label is wrong)" if admits_no_noise(cal) else ""
    return (
        f" The flags' precision reaches down to {pct(interval[0])}: the data "
        f"cannot rule out that most flagged rows carry right labels{admit}, "
        "so a person should check them ('labelclean review export') before "
        "their discards or corrections are relied on."
    )


def _weak_agreement_warning(cal: Mapping[str, Any]) -> str:
    """The first line where the evidence agrees with the labels less than
    moderately even with the noise taken out (``slight`` or ``fair``), or
    not demonstrably beyond chance (κ's lower limit not above 0), and
    nothing was flagged."""
    pred = cal["predictability"]
    low = pred.get("kappa_lower_limit")
    chance = low is not None and low <= 0
    how = (
        "the evidence agrees with the labels hardly better than chance"
        if pred.get("slight")
        else "the features predict the label poorly: even with the noise the "
        "surest rows suggest taken out, the evidence agrees with the labels "
        "only fairly"
    )
    shown = f", its 95 % lower limit {low:.2f}" if chance else ""
    return (
        f"Warning: {how} (Cohen's κ {pred['kappa']:.2f}{shown}, "
        f"{pred['kappa_noise_corrected']:.2f} corrected for the noise; out-of-fold "
        f"accuracy {pct(pred['out_of_fold_accuracy'])} against "
        f"{pct(pred['majority_share'])} for the largest class)"
        f"{ranked_unnamed_text(cal)}, so it cannot tell "
        "a wrong label from a hard case: labelclean flagged no row. The estimates "
        "below are rough."
    )


def calibration_story(run: Mapping[str, Any]) -> list[str]:
    """The first sentences: how sure the run is, from its own rows."""
    story = []
    cal = run.get("calibration")
    if isinstance(cal, Mapping) and cal.get("noise_rate") is not None:
        pred = cal.get("predictability") or {}
        if pred.get("slight") or pred.get("fair"):
            unused = target_unused_text(cal)  # the target went unused: say so
            unused = f" {unused[0].upper()}{unused[1:]}." if unused else ""
            story.append(_weak_agreement_warning(cal) + unused)
        elif pred.get("low"):
            story.append(
                "Warning: the features predict the label poorly"
                f"{agreement_numbers(pred)}{ranked_unnamed_text(cal)}, so wrong "
                "labels cannot be told from hard cases well: labelclean read the "
                "noise cautiously and corrected no label; the estimates below are "
                "rough."
            )
        unseen = unseen_classes(cal)
        text = (
            f"Estimated share of wrong labels: {pct(cal['noise_rate'])}"
            f"{_interval_text(cal.get('noise_rate_interval'))}"
            + (", counting none in the classes not checked" if unseen else "")
        )
        anchor = cal.get("anchor_disagreement")
        if isinstance(anchor, Mapping) and anchor.get("share") is not None:
            text += (
                f"; among the rows the evidence is surest of, {pct(anchor['share'])}"
                " of the labels disagree with it"
            )
            by_class = anchor.get("blind_by_class")
            if by_class is not None and pct(by_class) != pct(anchor["share"]):
                text += (  # docs/decisions.md, Wrong labels that flow one way
                    f", and {pct(by_class)} among each class's own surest rows "
                    "(read class by class, blind to each row's own label)"
                )
            if anchor.get("evidence_wrong_where_surest"):
                text += _wrong_where_surest_text(anchor)
        text += _share_reading_text(cal, pred) + "."
        if cal.get("decision_rule") == "thresholds":
            text += " The decisions used the fixed thresholds given."
        elif cal.get("flagged"):
            text += (
                f" {count(cal['flagged'])} row(s) were flagged with an estimated "
                f"precision of {pct(cal['flag_precision'] or 0.0)}"
                f"{_interval_text(cal.get('flag_precision_interval'))}"
                + (
                    f" and an estimated recall of {pct(cal['flag_recall'])}"
                    f"{_interval_text(cal.get('flag_recall_interval'))}"
                    if cal.get("flag_recall") is not None
                    else ""
                )
                + (
                    "; corrections need an estimated precision of "
                    f"{pct(cal['correction_target'])} for their pair of classes"
                    + _corrections_made_text(cal)
                    if cal.get("corrections_allowed", True)
                    else _no_corrections_text(cal, pred)
                )
            )
            text += _doubtful_flags_text(cal)
        else:
            text += _nothing_flagged_text(cal, pred, anchor)
        if cal.get("decision_rule") != "thresholds":
            text += against_text(cal)
        story.append(
            text
            + _correction_evidence_text(cal)
            + _least_noise_text(cal)
            + _pairs_not_corrected_text(cal)
            + _limited_text(cal)
        )
        story += _unseen_story(cal, pred)
    return story + _review_and_missing_story(run)


def _nothing_flagged_text(
    cal: Mapping[str, Any], pred: Mapping[str, Any], anchor: Any
) -> str:
    """Why a calibrated run flagged no row: "" where another sentence says
    it (the first warning, on agreement only slight or fair; the classes not
    checked, where none could be: :func:`_unseen_story`)."""
    if every_class_unchecked(cal):
        return ""
    if isinstance(anchor, Mapping) and anchor.get("no_wrong_label_seen"):
        return (
            " No row was flagged: no label of the rows the evidence is surest "
            "of disagrees with it, pooled or class by class, so the share "
            "estimated above may be the classes' overlap alone, and the data "
            "give no sign of wrong labels to act on."
        )
    if not (pred.get("slight") or pred.get("fair")):
        return " No row was flagged: no operating point was precise enough."
    return ""


def unseen_classes(cal: Mapping[str, Any]) -> list[str]:
    """The classes whose labels the run kept unchecked (:func:`unchecked_labels`)."""
    return [str(name) for name in unchecked_labels(cal)]


def every_class_unchecked(cal: Mapping[str, Any]) -> bool:
    """Whether the run kept every class's labels unchecked: nothing could
    be flagged, whatever the operating point."""
    classes = cal.get("classes") or ()
    return bool(classes) and len(unseen_classes(cal)) >= len(classes)


def agreement_numbers(pred: Mapping[str, Any]) -> str:
    """`` (Cohen's κ 0.35, out-of-fold accuracy 61.0% against 40.0% for the
    largest class)``, with what the reading holds (a NaN reads as null in
    ``report.json``)."""
    parts = []
    if isinstance(pred.get("kappa"), (int, float)):
        parts.append(f"Cohen's κ {pred['kappa']:.2f}")
    accuracy, majority = pred.get("out_of_fold_accuracy"), pred.get("majority_share")
    if isinstance(accuracy, (int, float)) and isinstance(majority, (int, float)):
        parts.append(
            f"out-of-fold accuracy {pct(accuracy)} against {pct(majority)} for "
            "the largest class"
        )
    return f" ({', '.join(parts)})" if parts else ""


def ranked_unnamed_text(cal: Mapping[str, Any], among: Any = None) -> str:
    """``; the evidence ranks the rows of class 'rare' well against the
    others (AUROC 0.95) but makes it the most probable class for only 11 of
    its 120 rows, and κ reads only the most probable class``: the smallest
    class whose rows the evidence ranks well (AUROC at least
    ``predictability['ranking_auroc']``) and names for under half of them.
    Said where the reading is cautious, since there the agreement alone
    would read as features that say nothing of the label; no decision reads
    it (docs/decisions.md, *Imbalanced tables, a corpus no decision was read
    on*). ``among``: only these classes (as ``report.json`` holds them),
    such as the ones kept unchecked. Empty where there is none, and in
    reports written before the ranking was kept."""
    pred = cal.get("predictability") or {}
    cut, rows = pred.get("ranking_auroc"), cal.get("rows_per_class") or []
    labels, found = cal.get("classes") or [], []
    for k, entry in enumerate(pred.get("per_class") or []):
        auroc = entry.get("auroc") if isinstance(entry, Mapping) else None
        named = entry.get("named_rows") if isinstance(entry, Mapping) else None
        if None in (auroc, named, cut) or k >= len(rows):
            continue
        if among is not None and (k >= len(labels) or labels[k] not in among):
            continue
        if auroc >= cut and 2 * named < rows[k]:
            found.append((rows[k], k, auroc, named))
    if not found:
        return ""
    n, k, auroc, named = min(found)
    name = f"class '{labels[k]}'" if k < len(labels) else f"class {k}"
    return (
        f"; the evidence ranks the rows of {name} well against the others "
        f"(AUROC {auroc:.2f}) but makes it the most probable class for only "
        f"{count(named)} of its {count(n)} rows, and κ reads only the most "
        "probable class"
    )


def _unseen_story(cal: Mapping[str, Any], pred: Mapping[str, Any]) -> list[str]:
    """Sentences on the classes, and pairs of classes, the evidence cannot tell
    apart (their labels were not checked against each other)."""
    if cal.get("decision_rule") == "thresholds":
        return []
    story = []
    unseen = unseen_classes(cal)
    if unseen and every_class_unchecked(cal):
        story.append(
            "No row was flagged: the evidence tells none of the classes apart "
            "from the others, so no label can be checked, and every row was kept "
            "as labelled."
        )
    elif unseen:
        ranked = ranked_unnamed_text(cal, unchecked_labels(cal))
        cautious = pred.get("slight") or pred.get("fair") or pred.get("low")
        if cautious and ranked == ranked_unnamed_text(cal):
            ranked = ""  # the first line said it
        story.append(
            f"The evidence does not tell class(es) {quoted(unseen)} apart from the "
            "others, so their labels cannot be checked: their rows were kept "
            f"as labelled, and no row was relabelled into them{ranked}."
        )
    together = [  # pairs of classes each told from the rest
        " and ".join(f"'{c}'" for c in pair.get("classes", ()))
        for pair in pred.get("pairs") or []
        if isinstance(pair, Mapping)
        and not pair.get("told_apart", True)
        and not set(map(str, pair.get("classes", ()))) & set(unseen)
    ]
    if together:
        more = f" and {len(together) - 8} more pairs" if len(together) > 8 else ""
        story.append(
            f"The evidence does not tell {'; '.join(together[:8])}{more} apart "
            "from each other: no label of one was taken for a wrong label of "
            "the other."
        )
    return story


def _review_and_missing_story(run: Mapping[str, Any]) -> list[str]:
    """Sentences on reviewed rows (a later run's, or this one's) and missing values."""
    story = []
    reviewed = run.get("reviewed")
    if isinstance(reviewed, Mapping) and reviewed.get("rows"):
        story.append(
            f"{count(reviewed['rows'])} row(s) had been reviewed by a person "
            f"({reviewed.get('file')}), {reviewed.get('labels_changed', 0)} of them "
            "with a new label: the fit learnt their verdicts as known truth, and "
            "they were not flagged (reason 'reviewed')."
        )
    review = run.get("review")
    if isinstance(review, Mapping) and review.get("reviewed"):
        story.append(
            f"A person then reviewed {count(review['reviewed'])} row(s) and changed "
            f"{review.get('labels_changed_by_reviewers', 0)} label(s); the decisions "
            "counted in this report include their verdicts (reason 'reviewed', "
            "section Review)."
        )
    missing = run.get("missing_values")
    if isinstance(missing, Mapping) and missing.get("columns"):
        counts = missing["columns"]
        order = [str(c) for c in run.get("features") or [] if str(c) in counts]
        order += sorted(set(counts) - set(order))  # in the input's column order
        cols = ", ".join(f"'{k}' ({counts[k]})" for k in order[:8])
        story.append(
            f"Missing feature values in {cols}: {missing.get('handling', '')}."
        )
    return story
