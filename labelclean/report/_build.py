"""The ``report.json`` dict from an :class:`~labelclean.report.AuditSummary`.

:func:`summary_report` reads the counts, distributions, suspects and examples
a summary gathered and gives each section of the report its shape
(:func:`~labelclean.report._json.assemble_report` puts them together).
"""

from collections import Counter
from typing import Any

from labelclean.report._json import (
    _records,
    _row_id,
    _sort_key,
    assemble_report,
    to_jsonable,
)
from labelclean.report._why import unchecked_labels, why
from labelclean.utils._audit import (
    AUDIT_COLUMNS,
    DECISION_REASONS,
    DECISIONS,
    EVIDENCE_COLUMNS,
    PROBABILITY_COLUMNS,
)

__all__ = ["summary_report"]

_CLASS_COUNTS = (
    "n_observed",
    "kept",
    "corrected_away",
    "corrected_into",
    "discarded",
    "n_cleaned",
)
_DECISION_COLUMNS = ["decision", "reason", "observed_label", "cleaned_label"]


def summary_report(
    summary: Any,
    *,
    label: str | None = None,
    run: Any = None,
    validation: Any = None,
    reason_descriptions: Any = None,
) -> dict[str, Any]:
    """The ``report.json`` dict of ``summary`` (see ``AuditSummary.report``)."""
    columns = summary.columns or list(AUDIT_COLUMNS[:4])
    counts = summary.decisions
    n_rows = summary.n_rows
    evidence_present = [c for c in EVIDENCE_COLUMNS if c in columns]
    user_columns = [c for c in columns if c not in AUDIT_COLUMNS]
    classes, corrections, n_observed = _classes_and_corrections(summary)
    _add_class_health(classes, run)
    example_columns, examples = _examples(summary, user_columns)
    features = [
        c
        for c in _suspect_feature_columns(summary, user_columns)
        if c != label  # the label is shown as observed_label
    ]
    return assemble_report(
        run=run,
        validation=validation,
        n_rows=n_rows,
        label=label,
        id_column=summary.id_column,
        user_columns=user_columns,
        n_classes_observed=n_observed,
        counts=counts,
        shares={d: (counts[d] / n_rows if n_rows else 0.0) for d in DECISIONS},
        classes=classes,
        corrections=corrections,
        reasons=_reasons(summary, reason_descriptions),
        distributions=_distributions(summary, columns),
        suspects=_suspects(summary, evidence_present, features),
        suspect_features=features,
        label_matrix=_label_matrix(summary, classes),
        noise_profile=noise_profile(summary, classes),
        example_columns=example_columns,
        examples=examples,
        evidence_present=evidence_present,
        evidence_missing=[c for c in EVIDENCE_COLUMNS if c not in columns],
    )


def _classes_and_corrections(summary: Any) -> tuple[list, list, int]:
    """Per-class counts, the corrections between classes, and the number of
    observed classes."""
    labels = list(summary._labels)
    order = sorted(range(len(labels)), key=lambda j: _class_key(summary, labels[j]))
    rank_of = {labels[j]: r for r, j in enumerate(order)}
    stats = {v: dict.fromkeys(_CLASS_COUNTS, 0) for v in labels}
    pairs: Counter = Counter()
    for (o, c, d), n in summary._triples.items():
        if o is not None:
            stats[o]["n_observed"] += n
            key = {"kept": "kept", "corrected": "corrected_away"}.get(d, "discarded")
            stats[o][key] += n
        if d == "corrected":
            if c is not None:
                stats[c]["corrected_into"] += n
            pairs[(o, c)] += n
        if d != "discarded" and c is not None:
            stats[c]["n_cleaned"] += n
    classes = []
    for j in order:
        s = stats[labels[j]]
        n_obs = s["n_observed"]
        classes.append(
            {
                "label": to_jsonable(summary._labels[labels[j]]),
                **s,
                "share_discarded": float(s["discarded"] / n_obs) if n_obs else 0.0,
                "share_corrected": float(s["corrected_away"] / n_obs) if n_obs else 0.0,
            }
        )
    corrections = [
        {
            "from": None if a is None else to_jsonable(summary._labels[a]),
            "to": None if b is None else to_jsonable(summary._labels[b]),
            "count": int(n),
        }
        for (a, b), n in sorted(
            pairs.items(),
            key=lambda item: (
                -item[1],
                rank_of.get(item[0][0], -1),
                rank_of.get(item[0][1], -1),
            ),
        )
    ]
    n_observed = sum(1 for v in labels if stats[v]["n_observed"] > 0)
    return classes, corrections, n_observed


def _class_key(summary: Any, label: Any) -> tuple:
    """Classes in a categorical label's own order, then the others sorted."""
    if summary.class_order:
        try:
            return (0, summary.class_order.index(label))
        except ValueError:
            pass
    return (1, _sort_key(label))


def _add_class_health(classes: list[dict[str, Any]], run: Any) -> None:
    """Per class: flagged share, net change, and the estimated noise if known."""
    cal = (run or {}).get("calibration") if isinstance(run, dict) else None
    noise: dict[Any, Any] = {}
    intervals: dict[Any, Any] = {}
    if isinstance(cal, dict) and cal.get("noise_rate_per_class") is not None:
        names = [to_jsonable(c) for c in cal.get("classes") or []]
        noise = dict(zip(names, cal["noise_rate_per_class"], strict=False))
        # Runs written before the per-class intervals have none.
        per_class = cal.get("noise_rate_per_class_interval") or []
        intervals = dict(zip(names, per_class, strict=False))
    unchecked = [to_jsonable(c) for c in unchecked_labels(cal)]
    for c in classes:
        n = c["n_observed"]
        flagged = c["corrected_away"] + c["discarded"]
        c["flagged"] = flagged
        c["share_flagged"] = float(flagged / n) if n else 0.0
        # Rows the class ends with, against the rows it came in with.
        c["net_change"] = float((c["n_cleaned"] - n) / n) if n else None
        c["estimated_noise"] = to_jsonable(noise.get(c["label"]))
        c["estimated_noise_interval"] = to_jsonable(intervals.get(c["label"]))
        # An estimate of 0 on a class taken as right is an assumption.
        c["noise_checked"] = None if not noise else c["label"] not in unchecked


def _label_matrix(summary: Any, classes: list[dict[str, Any]]) -> dict[str, Any]:
    """Observed × cleaned label counts, with a column for discarded rows."""
    labels = [c["label"] for c in classes]
    index = {lab: k for k, lab in enumerate(labels)}
    counts = [[0] * len(labels) for _ in labels]
    discarded = [0] * len(labels)
    for (o, c, d), n in summary._triples.items():
        if o is None:
            continue
        row = index[to_jsonable(summary._labels[o])]
        if d == "discarded" or c is None:
            discarded[row] += n
        else:
            counts[row][index[to_jsonable(summary._labels[c])]] += n
    return {"labels": labels, "counts": counts, "discarded": discarded}


def noise_profile(summary: Any, classes: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's label-noise profile, what ``labelclean drift`` compares.

    Per observed class: rows, the mean and standard deviation of
    ``noise_probability`` (the calibrated probability that a row's label is
    wrong, so the mean estimates the class's share of wrong labels, on any
    batch, training or new), the shares flagged and corrected away, and the
    share kept unchecked (reason ``not_checked``, whose probability is 0 by
    assumption), and the share of its rows whose ``model_label`` is another
    class (``disagreement_share``: read without the fit's estimate of the
    noise, so a kind of wrong label the fit never saw shows there too).
    Means are rounded to 12 decimals so that batches summed in another order
    give the same report.
    """
    by_label = {to_jsonable(summary._labels[k]): v for k, v in summary._noise.items()}
    disagree = {
        to_jsonable(summary._labels[k]): v for k, v in summary._disagree.items()
    }
    rows = []
    for c in classes:
        if not c["n_observed"]:
            continue
        n, total, squares, unchecked = by_label.get(c["label"], (0.0,) * 4)
        mean = total / n if n else None
        var = max(squares / n - mean * mean, 0.0) if n else None
        read, other = disagree.get(c["label"], (0, 0))
        rows.append(
            {
                "label": c["label"],
                "rows": c["n_observed"],
                "rows_with_noise_probability": int(n),
                "mean_noise_probability": None if mean is None else round(mean, 12),
                "sd_noise_probability": None if var is None else round(var**0.5, 12),
                "flagged_share": c["share_flagged"],
                "corrected_share": c["share_corrected"],
                # rows whose noise probability is 0 by assumption: no drift shows
                "not_checked_share": unchecked / n if n else None,
                "rows_with_model_label": int(read),
                "disagreement_share": round(other / read, 12) if read else None,
            }
        )
    n_all = sum(r["rows_with_noise_probability"] for r in rows)
    overall = (
        round(sum(v[1] for v in summary._noise.values()) / n_all, 12) if n_all else None
    )
    return {
        "measure": (
            "mean noise_probability and the share assigned to another class by "
            "the model, per observed class"
        ),
        "mean_noise_probability": overall,
        "classes": rows,
    }


def _reasons(summary: Any, reason_descriptions: Any) -> list[dict[str, Any]]:
    explain = dict(
        DECISION_REASONS if reason_descriptions is None else reason_descriptions
    )
    return [
        {
            "decision": d,
            "reason": r,
            "count": -negative,
            "description": str(explain[r]) if r in explain else None,
        }
        for _, negative, r, d in sorted(
            (DECISIONS.index(d), -n, r, d) for (d, r), n in summary._reasons.items()
        )
    ]


def _distributions(summary: Any, columns: list[str]) -> dict[str, Any]:
    distributions: dict[str, Any] = {
        column: summary._dists[column].to_dict(column)
        for column in PROBABILITY_COLUMNS
        if column in summary._dists
    }
    if "spl_zero_round" in columns:
        values = sorted(summary._rounds)
        distributions["spl_zero_round"] = {
            "column": "spl_zero_round",
            "values": [int(v) for v in values],
            "counts": [int(summary._rounds[v]) for v in values],
            "n_missing": summary._rounds_missing,
        }
    return distributions


def _suspect_feature_columns(summary: Any, user_columns: list[str]) -> list[str]:
    top = summary._suspects
    if top is None:
        return []
    return [c for c in user_columns if c in top.columns and c != summary.id_column]


def _spelled(summary: Any, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` with their labels written as the observed labels are: an
    integer label's cleaned value comes from a float column (it holds the
    discarded rows' missing labels), and ``0.0`` is shown as the ``0`` it
    corrects to."""
    for record in records:
        for key in ("observed_label", "cleaned_label"):
            value = record.get(key)
            if value is not None and value in summary._labels:
                record[key] = to_jsonable(summary._labels[value])
    return records


def _suspects(
    summary: Any, evidence_present: list[str], features: list[str]
) -> list[dict[str, Any]]:
    top = summary._suspects
    if top is None:
        return []
    columns = [*_DECISION_COLUMNS, *evidence_present]
    suspects = []
    records = _spelled(summary, _records(top, columns))
    feature_values = _records(top, features)
    for position in range(len(top)):
        record = {
            "rank": position + 1,
            "row_id": _row_id(top, summary.id_column, position),
            "suspicion": to_jsonable(top["__suspicion"].iat[position]),
        }
        record.update(records[position])
        record["why"] = why(record)
        record["features"] = feature_values[position]
        suspects.append(record)
    return suspects


def _examples(summary: Any, user_columns: list[str]) -> tuple[list, dict]:
    shown = [
        c for c in user_columns if summary.id_column is None or c != summary.id_column
    ]
    columns = [*_DECISION_COLUMNS, *shown[: summary.max_example_columns]]
    examples: dict[str, list] = {d: [] for d in DECISIONS}
    ex = summary._examples
    if ex is not None:
        records = _spelled(summary, _records(ex, columns))
        for position in range(len(ex)):
            examples[ex["decision"].iat[position]].append(
                {
                    "row_id": _row_id(ex, summary.id_column, position),
                    **records[position],
                }
            )
    return columns, examples
