"""Comparing the label-noise profiles of runs: the drift verdict.

Every ``labelclean run`` and ``apply`` records in ``report.json`` its
``noise_profile``: per observed class, the mean (and standard deviation) of
``noise_probability``, the calibrated probability that a row's label is
wrong, so the mean estimates the class's share of wrong labels on that
batch. :func:`compare` sets each run's profile against a baseline's. A class
*drifts* when its mean rose by more than ``max_increase`` (absolute, e.g.
0.05 = 5 points) **and** by more than ``min_z`` standard errors of the
difference (Welch's standard error from the two batches' standard deviations
and row counts), so that a small class's sampling noise alone does not
raise an alert. A class whose rows a run kept unchecked (reason
``not_checked``: the evidence does not tell it apart, and its noise
probability is 0 by assumption) cannot show drift there: it is reported as
not checked, never as drifted or as quiet.

The noise probability reads each row through the fit's estimate of which
labels hide which classes, so a kind of wrong label the training rows did
not have (rainy days recorded as ``sun`` after the labelling changed, where
the fit saw none) gets a probability of 0 however plainly the evidence
contradicts it. The profile's second measure does not depend on that
estimate: the share of a class's rows whose ``model_label`` (a model that
never saw the row's label) is another class. It drifts under the same two
limits, its standard error that of a difference of two proportions (each
shrunk by half a row towards one half, so that a small class with no
disagreement does not make every change significant), for every class,
checked or not.
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any

from labelclean.report._batch import describe_shift, proportion_change
from labelclean.report._why import mostly_unchecked

__all__ = [
    "DRIFT_FORMAT",
    "compare",
    "describe_alert",
    "describe_growth",
    "shifted_runs",
]

DRIFT_FORMAT = "labelclean-drift"


def _profile(report: Mapping[str, Any], name: str) -> dict[Any, dict[str, Any]]:
    profile = report.get("noise_profile")
    if not isinstance(profile, Mapping) or not isinstance(profile.get("classes"), list):
        raise ValueError(
            f"{name} has no label-noise profile (report.json 'noise_profile'); "
            "compare runs written by this labelclean version."
        )
    return {str(c["label"]): c for c in profile["classes"]}


def _change(base: Mapping[str, Any], now: Mapping[str, Any]) -> dict[str, Any]:
    """Increase of a class's mean noise probability, and its z score."""
    if (
        base.get("mean_noise_probability") is None
        or now.get("mean_noise_probability") is None
    ):
        return {"increase": None, "z": None}
    increase = now["mean_noise_probability"] - base["mean_noise_probability"]
    var = 0.0
    for side in (base, now):
        n = side.get("rows_with_noise_probability") or 0
        sd = side.get("sd_noise_probability") or 0.0
        var += (sd * sd / n) if n else math.inf
    se = math.sqrt(var)
    if se == 0.0:
        z = math.inf if increase > 0 else (-math.inf if increase < 0 else 0.0)
    else:
        z = increase / se
    return {"increase": increase, "z": z}


def _disagreement_change(base: Mapping[str, Any], now: Mapping[str, Any]) -> dict:
    """Increase of a class's share of rows the model assigns to another
    class, and its z score (None where either profile has no such share)."""
    increase, z = proportion_change(
        [side.get("disagreement_share") for side in (base, now)],
        [side.get("rows_with_model_label") or 0 for side in (base, now)],
    )
    return {"disagreement_increase": increase, "disagreement_z": z}


def _unchecked_growth(name, classes, profile, base, limits) -> list[dict[str, Any]]:
    """The classes kept unchecked whose share of the run's labelled rows rose
    beyond ``limits`` (max_increase, min_z) against the baseline's: more rows
    carry a label nothing checked. A warning, not drift (seasons and sampling
    move a class's share too)."""
    totals = [sum(c.get("rows") or 0 for c in p.values()) for p in (base, profile)]
    out = []
    for label, entry in classes.items():
        if not entry["not_checked"] or label not in base:
            continue
        shares = [
            (side[label].get("rows") or 0) / total if total else None
            for side, total in zip((base, profile), totals, strict=True)
        ]
        increase, z = proportion_change(shares, totals)
        if increase is not None and increase > limits[0] and z > limits[1]:
            out.append({"run": name, "label": label, "baseline": shares[0],
                        "value": shares[1], "increase": increase, "z": z})  # fmt: skip
    return out


def _shifted_features(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The shifted columns of an ``apply`` report (``run.feature_shift``;
    none for a run, or a report written before the comparison)."""
    shift = (report.get("run") or {}).get("feature_shift")
    if not isinstance(shift, Mapping):
        return []
    return [
        {k: _finite(v) for k, v in item.items()} for item in shift.get("shifted") or ()
    ]


def _runs_shifted(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``features_shifted``: every run's shifted columns, each with the run."""
    return [{"run": r["name"], **item} for r in runs for item in r["shifted_features"]]


def shifted_runs(drift: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(run, columns in words)`` for each run of :func:`compare`'s result
    whose features left the fit's range (``features_shifted``)."""
    told: dict[str, list[str]] = {}
    for item in drift.get("features_shifted") or ():
        told.setdefault(str(item["run"]), []).append(describe_shift(item))
    return [(run, "; ".join(items)) for run, items in told.items()]


def describe_growth(growth: Mapping[str, Any]) -> str:
    """One entry of :func:`compare`'s ``unchecked_growth`` in words."""
    return (
        f"class {growth['label']!r}, kept unchecked, went from "
        f"{100 * growth['baseline']:.1f}% of the rows to {100 * growth['value']:.1f}% "
        f"in {growth['run']}: more rows carry a label nothing checked"
    )


def compare(
    reports: Sequence[Mapping[str, Any]],
    *,
    names: Sequence[str] | None = None,
    baseline: int = 0,
    max_increase: float = 0.05,
    min_z: float = 3.0,
) -> dict[str, Any]:
    """Compare runs' label-noise profiles against a baseline.

    Parameters
    ----------
    reports : sequence of dict
        ``report.json`` dicts of ``run`` or ``apply``, in time order.
    names : sequence of str, default=None
        A name per report (e.g. its folder); default ``run 0, run 1, ...``.
    baseline : int, default=0
        Index of the report the others are compared with.
    max_increase : float, default=0.05
        Largest tolerated rise of a class's mean noise probability (absolute).
    min_z : float, default=3.0
        A rise counts only beyond this many standard errors.

    Returns
    -------
    drift : dict
        JSON-ready: ``baseline``, the limits, per run and class the mean,
        the increase over the baseline and its z score (``runs``), the
        ``alerts`` (class drifted), ``not_checked_classes`` (classes a run
        kept unchecked, whose noise probability cannot show drift),
        ``unchecked_growth`` (such classes whose share of the rows rose
        beyond the same limits: a warning), ``features_shifted`` (the
        feature columns ``apply`` found outside the fit's range in a run,
        ``run.feature_shift``: a warning, since an alert in that run may come
        from the columns) and ``success`` (no alert).

    Examples
    --------
    >>> base = {"noise_profile": {"classes": [{"label": "a", "rows": 400,
    ...     "rows_with_noise_probability": 400, "mean_noise_probability": 0.05,
    ...     "sd_noise_probability": 0.2}]}}
    >>> worse = {"noise_profile": {"classes": [{"label": "a", "rows": 400,
    ...     "rows_with_noise_probability": 400, "mean_noise_probability": 0.15,
    ...     "sd_noise_probability": 0.3}]}}
    >>> drift = compare([base, worse], names=["week 1", "week 2"])
    >>> drift["success"], drift["alerts"][0]["label"]
    (False, 'a')
    """
    if not reports:
        raise ValueError("give at least one report to compare.")
    names = (
        list(names) if names is not None else [f"run {i}" for i in range(len(reports))]
    )
    if len(names) != len(reports):
        raise ValueError(f"{len(names)} names for {len(reports)} reports.")
    if not 0 <= baseline < len(reports):
        raise ValueError(f"baseline {baseline} is not one of the {len(reports)} runs.")
    profiles = [_profile(r, n) for r, n in zip(reports, names, strict=True)]
    base = profiles[baseline]
    runs, alerts, growth = [], [], []
    for name, report, profile in zip(names, reports, profiles, strict=True):
        classes = {}
        for label, now in profile.items():
            entry = _entry(now, base.get(label), max_increase, min_z)
            for measure in entry["alert_measures"]:
                key = "" if measure == "noise_probability" else "disagreement_"
                column = key + "share" if key else "mean_noise_probability"
                alerts.append(
                    {
                        "run": name,
                        "label": label,
                        "measure": measure,
                        "baseline": base[label][column],
                        "value": now[column],
                        "increase": entry[key + "increase"],
                        "z": entry[key + "z"],
                    }
                )
            classes[label] = {k: _finite(v) for k, v in entry.items()}
        growth += _unchecked_growth(name, classes, profile, base, (max_increase, min_z))
        runs.append(
            {
                "name": name,
                "command": (report.get("run") or {}).get("command", "run"),
                "rows": (report.get("summary") or {}).get("n_rows"),
                "mean_noise_probability": report["noise_profile"].get(
                    "mean_noise_probability"
                ),
                "new_classes": sorted(set(profile) - set(base)),
                "not_checked_classes": sorted(
                    label for label, c in classes.items() if c["not_checked"]
                ),
                "missing_classes": sorted(set(base) - set(profile)),
                "shifted_features": _shifted_features(report),
                "classes": classes,
            }
        )
    return {
        "format": DRIFT_FORMAT,
        "version": 1,
        "baseline": names[baseline],
        "max_increase": max_increase,
        "min_z": min_z,
        "rule": (
            "A class drifts when its mean noise_probability (a class kept "
            "unchecked has none) or its share of rows the model assigns to "
            "another class rose by more than max_increase over the baseline "
            "and by more than min_z standard errors of the difference"
        ),
        "runs": runs,
        "alerts": [{k: _finite(v) for k, v in a.items()} for a in alerts],
        "not_checked_classes": sorted(
            {label for run in runs for label in run["not_checked_classes"]}
        ),
        "unchecked_growth": [{k: _finite(v) for k, v in g.items()} for g in growth],
        "features_shifted": _runs_shifted(runs),
        "success": not alerts,
    }


def _entry(now, base, max_increase: float, min_z: float) -> dict[str, Any]:
    """One class of one run against the baseline's (None: a new class)."""
    entry = {
        "rows": now.get("rows"),
        "mean_noise_probability": now.get("mean_noise_probability"),
        "disagreement_share": now.get("disagreement_share"),
        "flagged_share": now.get("flagged_share"),
        "not_checked": mostly_unchecked(now) or mostly_unchecked(base),
    }
    if base is None:
        unknown = ("increase", "z", "disagreement_increase", "disagreement_z")
        return {**entry, **dict.fromkeys(unknown), "alert": False, "alert_measures": []}
    entry.update(_change(base, now))
    entry.update(_disagreement_change(base, now))
    measures = []
    if not entry["not_checked"] and _beyond(entry, "", max_increase, min_z):
        measures.append("noise_probability")
    if _beyond(entry, "disagreement_", max_increase, min_z):
        measures.append("disagreement")
    return {**entry, "alert": bool(measures), "alert_measures": measures}


def _beyond(entry, key: str, max_increase: float, min_z: float) -> bool:
    """Whether the entry's increase (``key`` its measure's prefix) passes
    both limits."""
    increase, z = entry[key + "increase"], entry[key + "z"]
    return increase is not None and increase > max_increase and z > min_z


#: What each measure's share is of, in an alert's sentence.
_MEASURED = {
    "noise_probability": "estimated wrong labels",
    "disagreement": "of its rows assigned to another class by the model",
}


def describe_alert(alert: Mapping[str, Any]) -> str:
    """``"class 'a' rose from 10.0% to 18.0% estimated wrong labels in week3"``:
    one alert of :func:`compare` in words (``measure`` absent: the noise
    probability, as in results of earlier versions)."""
    measured = _MEASURED[alert.get("measure", "noise_probability")]
    return (
        f"class {alert['label']!r} rose from {100 * alert['baseline']:.1f}% to "
        f"{100 * alert['value']:.1f}% {measured} in {alert['run']}"
    )


def _finite(value: Any) -> Any:
    """JSON has no infinity: an infinite z (no spread at all) is a large number."""
    if isinstance(value, float) and math.isinf(value):
        return math.copysign(1e308, value)
    return value
