"""The report's cautions: what a reader must not miss, one line each.

``report.json``'s ``cautions`` (:func:`cautions`), which ``labelclean run``
and ``apply`` print as ``WARNING: [code] ...`` lines; the report's first
paragraph (:func:`~labelclean.report._calibration_story.calibration_story`)
says the same at length.
"""

from collections.abc import Mapping
from typing import Any

from labelclean.report._against import against_caution
from labelclean.report._batch import batch_cautions, unchecked_caution
from labelclean.report._calibration_story import (
    admits_no_noise,
    agreement_numbers,
    count,
    every_class_unchecked,
    flags_doubtful,
    pct,
    ranked_unnamed_text,
    unseen_classes,
)
from labelclean.report._copies import copy_caution
from labelclean.report._row_order import row_order_caution
from labelclean.report._unflagged import (
    known_noise_caution,
    target_unused_text,
    unflagged_disagreement_text,
)
from labelclean.report._why import unchecked_labels
from labelclean.utils._labels import LABEL_WRITING_FIXES, label_writing

__all__ = ["cautions"]


def cautions(
    run: Mapping[str, Any], classes: Any = (), profile: Any = None, reasons: Any = ()
) -> list[dict[str, str]]:
    """What a reader must not miss, one line each (``report.json``'s
    ``cautions``; ``labelclean run`` prints them under its summary line).

    Each is ``{"code", "message"}``; the codes are stable, for a scheduler
    to alert on:

    - ``guardrails_failed``: output guardrails failed (``run.withholding``),
      and whether the cleaned rows were withheld or published all the same;
    - ``label_placeholders``: labels of the report's ``classes`` that read
      as a missing value (``''``, ``'N/A'``, ``'?'``), read as classes;
    - ``label_variants``: labels of the report's ``classes`` that differ
      only in case, spacing or Unicode form, read as separate classes;
    - ``poor_predictability``: the features predict the label poorly, so
      wrong labels cannot be told from hard cases and the estimates are rough;
      where the evidence ranks a class's rows well but seldom makes it the
      most probable class, it names that class (κ reads only the most
      probable class: :func:`ranked_unnamed_text`);
      where nothing was flagged though the surest rows disagree with their
      labels beyond chance, it says so and points to ``review export``;
      where a precision target went unused (no row is flagged at any target
      where the agreement is slight or fair), it says so and names
      ``known_noise_rate``;
    - ``doubtful_flags``: the flags' precision interval reaches under one
      half, so most flagged rows may carry right labels; with the report's
      ``classes``, it names the class that loses the largest share of its
      rows;
    - ``classes_not_checked``: classes the evidence does not tell apart from
      the others, whose labels were kept unchecked;
    - ``label_copy``: a feature column holds the label's classes, and at
      least half of the flags are rows where it differs from the label
      (``run.label_copies``, :mod:`labelclean.report._copies`).
    - ``label_in_row_order``: a feature column numbers the rows in an order
      that groups the label, so the evidence may read the label from the
      order (``run.row_orders``, :mod:`labelclean.report._row_order`).
    - ``known_noise``: rows discarded to reach a share of wrong labels the
      run was told (``known_noise_rate``), which its estimates do not cover;
    - ``flags_against_surest_rows``: at least half of the flags of a first
      reading moved labels the way each class's surest rows contradict, and
      the run left those moves out (:mod:`labelclean.report._against`).

    The report's first paragraph says the same at length
    (:func:`~labelclean.report._calibration_story.calibration_story`). With
    fixed thresholds only the first four are read; without a calibration
    (``apply``'s report) the first three, ``features_shifted`` (feature
    columns that left the fit's range),
    ``disagreement_rose`` (the model assigns more of the batch's rows to
    another class than of the fit's own) and ``classes_not_checked`` from
    the ``profile`` (``noise_profile``), and ``features_shifted`` with the
    rows the report's ``reasons`` keep as ``outside_fit``:
    :func:`~labelclean.report._batch.batch_cautions`.
    """
    out = _guardrail_cautions(run.get("withholding")) + _label_cautions(classes)
    out += copy_caution(run.get("label_copies"))
    out += row_order_caution(run.get("row_orders"))
    cal = run.get("calibration")
    if not isinstance(cal, Mapping) or cal.get("noise_rate") is None:
        return out + batch_cautions(run, profile, reasons)
    pred = cal.get("predictability") or {}
    if pred.get("slight") or pred.get("fair") or pred.get("low"):
        unused = target_unused_text(cal)
        out.append({
            "code": "poor_predictability",
            "message": (
                f"the features predict the label poorly{agreement_numbers(pred)}"
                f"{ranked_unnamed_text(cal)}: "
                "wrong labels cannot be told from hard cases, and the estimates "
                f"are rough{unflagged_disagreement_text(cal)}"
                f"{'; ' + unused if unused else ''}"
            ),
        })  # fmt: skip
    calibrated = cal.get("decision_rule") != "thresholds"
    if calibrated and flags_doubtful(cal):
        admit = (
            "; the data admit that no label is wrong" if admits_no_noise(cal) else ""
        )
        out.append({
            "code": "doubtful_flags",
            "message": (
                "the flags' precision reaches down to "
                f"{pct(cal['flag_precision_interval'][0])}: most of "
                f"the {count(cal['flagged'])} flagged rows may carry right labels"
                f"{_stake_text(classes)}{admit}; check them ('labelclean review "
                "export') before relying on their discards or corrections"
            ),
        })  # fmt: skip
    out += against_caution(cal) if calibrated else []
    out += known_noise_caution(cal)
    unseen = unseen_classes(cal) if calibrated else []
    ranked = ranked_unnamed_text(cal, unchecked_labels(cal)) if unseen else ""
    said = ranked and any(ranked in c["message"] for c in out)  # said above
    return out + unchecked_caution(
        unseen, every_class_unchecked(cal), "" if said else ranked
    )


def _label_cautions(classes: Any) -> list[dict[str, str]]:
    """``label_placeholders`` and ``label_variants`` when observed labels read
    as a missing value or differ only in how they are written
    (:func:`~labelclean.utils._labels.label_writing`)."""
    counts = {
        c["label"]: c.get("n_observed") or 0
        for c in classes or ()
        if isinstance(c, Mapping) and "label" in c
    }
    return [
        {
            "code": code,
            "message": f"{sentence}; {LABEL_WRITING_FIXES[code]} and run again",
        }
        for code, sentence in label_writing(counts, "were")
    ]


def _guardrail_cautions(held: Any) -> list[dict[str, str]]:
    """``guardrails_failed`` when the run's withholding names failed guardrails."""
    if not isinstance(held, Mapping) or not held.get("failed"):
        return []
    names = ", ".join(map(str, held["failed"]))
    fate = (
        f"the cleaned rows were withheld as '{held['withheld']}'"
        if held.get("withheld")
        else f"the cleaned rows were published all the same (fail-on "
        f"'{held.get('fail_on', 'never')}'): check what the report's "
        "Validation names before using them"
    )
    message = f"guardrail(s) {names} failed; {fate}"
    return [{"code": "guardrails_failed", "message": message}]


def _stake_text(classes: Any) -> str:
    """``; class 'blood' loses 26.6% of its rows (25 of 94)``: the class that
    loses the largest share of its rows to discards and corrections away
    (``share_flagged`` of the report's ``classes``, every row of the run);
    empty where none loses any."""
    lost = [c for c in classes or () if isinstance(c, Mapping) and c.get("flagged")]
    if not lost:
        return ""
    worst = max(lost, key=lambda c: (c["share_flagged"], c["n_observed"]))
    return (
        f"; class '{worst['label']}' loses {pct(worst['share_flagged'])} of its "
        f"rows ({count(worst['flagged'])} of {count(worst['n_observed'])})"
    )
