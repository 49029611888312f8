"""The cautions of a batch decided by a fitted pipeline (``labelclean apply``).

Such a report has no calibration of its own: it reads the batch's
label-noise profile (``noise_profile``), and, where the fit's own profile is
known (``run.fit_disagreement``, from the training run's ``report.json``
beside the model file), compares the share of each class's rows the model
assigns to another class with the fit's. The noise probabilities of a batch
are read through the fit's estimate of which labels hide which classes, so
a kind of wrong label the training rows did not have gets a probability of
0; that share does not depend on the estimate (``docs/drift.md``, the same
comparison as ``labelclean drift``'s second measure).
"""

from collections.abc import Mapping
from typing import Any

from labelclean.report._why import mostly_unchecked

__all__ = [
    "MAX_INCREASE",
    "MIN_Z",
    "batch_cautions",
    "describe_shift",
    "disagreement_rose",
    "fit_disagreement",
    "proportion_change",
    "quoted",
    "shift_caution",
    "unchecked_caution",
]

#: The limits a rise must pass (``labelclean drift``'s defaults): more than
#: 5 points, and more than 3 standard errors of the difference.
MAX_INCREASE = 0.05
MIN_Z = 3.0


def proportion_change(shares, rows) -> tuple[float | None, float | None]:
    """Increase of a proportion from ``shares[0]`` (of ``rows[0]``) to
    ``shares[1]`` (of ``rows[1]``) and its z score, each proportion shrunk by
    half a row towards one half in the standard error (so that a class with
    no disagreement on a few rows does not make every change significant);
    (None, None) where either is unknown."""
    if None in shares or not all(rows):
        return None, None
    increase = shares[1] - shares[0]
    var = 0.0
    for share, n in zip(shares, rows, strict=True):
        p = (share * n + 0.5) / (n + 1.0)
        var += p * (1.0 - p) / n
    return increase, increase / var**0.5


def fit_disagreement(profile: Any) -> list[dict[str, Any]] | None:
    """The part of a fit's ``noise_profile`` a batch is compared with: per
    class, its rows with a model label and the share assigned to another
    class (None without such a profile)."""
    if not isinstance(profile, Mapping) or not profile.get("classes"):
        return None
    keys = ("label", "rows_with_model_label", "disagreement_share")
    return [{k: c.get(k) for k in keys} for c in profile["classes"]]


def disagreement_rose(fit: Any, profile: Any) -> list[dict[str, Any]]:
    """The classes whose share of rows the model assigns to another class
    rose beyond :data:`MAX_INCREASE` and :data:`MIN_Z` from the fit's rows
    (``fit``: :func:`fit_disagreement`) to the batch's (``profile``)."""
    if not isinstance(fit, list) or not isinstance(profile, Mapping):
        return []
    before = {str(c.get("label")): c for c in fit if isinstance(c, Mapping)}
    rose = []
    for now in profile.get("classes") or ():
        then = before.get(str(now.get("label")))
        if then is None:
            continue
        increase, z = proportion_change(
            [then.get("disagreement_share"), now.get("disagreement_share")],
            [then.get("rows_with_model_label") or 0,
             now.get("rows_with_model_label") or 0],
        )  # fmt: skip
        if increase is not None and increase > MAX_INCREASE and z > MIN_Z:
            rose.append({"label": now["label"], "fit": then["disagreement_share"],
                         "batch": now["disagreement_share"], "z": z})  # fmt: skip
    return rose


def batch_cautions(
    run: Mapping[str, Any], profile: Any, reasons: Any = ()
) -> list[dict[str, str]]:
    """``disagreement_rose`` where the batch's labels disagree with the model
    beyond the fit's, and ``classes_not_checked`` from the profile (said of
    every class only where the fit's profile shows them all: a batch may
    lack some)."""
    out = []
    rose = disagreement_rose(run.get("fit_disagreement"), profile)
    if rose:
        told = "; ".join(
            f"{r['label']!r} {100 * r['fit']:.1f}% → {100 * r['batch']:.1f}% "
            f"(z {r['z']:.1f})"
            for r in rose
        )
        out.append({
            "code": "disagreement_rose",
            "message": (
                "the model assigns more of this batch's rows to a class other "
                f"than their label than it did of the fit's own rows: {told}; "
                "the batch's labels may follow another rule than the training "
                "rows', and its noise probabilities cannot show a kind of wrong "
                "label the fit never saw: check the rows ('labelclean review "
                "export'); 'labelclean drift' compares runs"
            ),
        })  # fmt: skip
    entries = (profile or {}).get("classes") or ()
    unseen = [str(c["label"]) for c in entries if mostly_unchecked(c)]
    far = sum(
        int(r.get("count") or 0)
        for r in reasons or ()
        if isinstance(r, Mapping) and r.get("reason") == "outside_fit"
    )
    shifted = shift_caution(run.get("feature_shift"), far)
    fit = run.get("fit_disagreement")  # the fit's classes, where known
    every = isinstance(fit, list) and len(unseen) >= len(fit)
    return shifted + out + unchecked_caution(unseen, every)


def shift_caution(shift: Any, far: int = 0) -> list[dict[str, str]]:
    """``features_shifted`` where feature columns left the fit's range
    (``run.feature_shift``, ``labelclean apply``), with the ``far`` rows kept
    as they came (reason ``outside_fit``)."""
    shifted = shift.get("shifted") if isinstance(shift, Mapping) else None
    if not shifted:
        return []
    told = "; ".join(describe_shift(item) for item in shifted[:8])
    return [{
        "code": "features_shifted",
        "message": (
            f"this batch's features are not where the fit's were: {told}; the "
            "model reads them as it learnt them, so its decisions on this batch "
            "(and any disagreement with the labels) may come from the columns, "
            "not the labels: check their units and sources"
            + (f"; {far:,} row(s) with a number far outside the fit's range were "
               "kept as they came (reason outside_fit)" if far else "")
        ),
    }]  # fmt: skip


def describe_shift(item: dict[str, Any]) -> str:
    """One shifted column and measure in words."""
    share = f"{100 * item['batch']:.1f}%"
    if item["measure"] == "missing":
        what = f"{share} of rows missing (fit: {100 * item['fit']:.1f}%)"
    elif item["kind"] == "categorical":
        what = f"{share} of values of a level the fit never saw"
    else:
        what = f"{share} of values outside the fit's range"
    return f"{item['column']!r} {what}"


def unchecked_caution(
    unseen: list[str], every: bool = False, ranked: str = ""
) -> list[dict[str, str]]:
    """``classes_not_checked`` for the classes named, if any; ``every``: they
    are all the classes the model knows, said as such (there are no others).
    ``ranked``: a clause on one of them that the evidence ranks well but
    seldom makes the most probable, appended (a run's
    :func:`~labelclean.report._calibration_story.ranked_unnamed_text`)."""
    if not unseen:
        return []
    if every:
        message = (
            f"the evidence tells none of the classes ({quoted(unseen)}) apart "
            "from the others: every label was kept unchecked"
        )
    else:
        message = (
            f"the evidence does not tell class(es) {quoted(unseen)} apart from "
            "the others: their labels were kept unchecked"
        )
    return [{"code": "classes_not_checked", "message": message + ranked}]


def quoted(names: list[str], shown: int = 8) -> str:
    """``"'a', 'b' and 3 more"``: class names for a sentence."""
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(f"'{c}'" for c in names[:shown]) + more
