"""Rendering ``report.html`` from the ``report.json`` dict, and nothing else.

:func:`render_html` fills the jinja2 template shipped as package data in
``labelclean/report/templates/`` (auto-escaped, so values from the data can
never inject markup). The page is self-contained: the stylesheet is inlined,
plots are drawn with matplotlib into inline SVG images whose text the
browser draws (``_figures.py``), and the one inline script
(``templates/suspects.js``: sorting, filtering and paging the suspects
table) reads its rows from a JSON data block. The
Content-Security-Policy allows that script by its SHA-256 digest only and
forbids loading anything from elsewhere, so the page opens identically with
no network and nothing from the data can run. Without JavaScript the first
page of suspects is still in the HTML. The same dict always renders to the
same bytes (SVG without dates, fixed ids, sorted keys).
"""

import base64
import hashlib
import itertools
import json
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from labelclean import __version__
from labelclean.report._calibration_story import calibration_story, count, pct
from labelclean.report._cautions import cautions
from labelclean.report._figures import drawing, svg_data_uri
from labelclean.report._final_model import final_model_text
from labelclean.report._json import to_jsonable
from labelclean.utils._audit import DECISIONS

__all__ = ["render_html"]

_COLORS = {"kept": "#4c78a8", "corrected": "#f58518", "discarded": "#e45756"}

#: One line per audit column, shown next to plots and in "About this report".
DESCRIPTIONS = {
    "decision": "kept, corrected or discarded.",
    "reason": "Short code saying why the row got its decision.",
    "observed_label": "The label as it came in.",
    "cleaned_label": "The label in the cleaned output (empty for discarded rows).",
    "confidence": (
        "γ: estimated probability that the observed label is the true one "
        "(label-confidence stage; higher = more likely right)."
    ),
    "trusted_label": "The label the confidence stage trusts (Bayes-rule label).",
    "trusted_probability": "Estimated probability of the trusted label.",
    "spl_weight": (
        "Self-paced weight v in [0, 1] from SPLBoost; 0 means the row was "
        "left out of training as a suspect."
    ),
    "spl_zero_round": "SPLBoost round at which the row's weight reached 0.",
    "model_probability": (
        "The final model's out-of-sample probability of the observed label."
    ),
    "neighbor_label_counts": (
        "Labels of the row's nearest neighbours, counted; rows tied at the "
        "last distance share the places left (fractions)."
    ),
    "suspicion": (
        "The calibrated probability that the observed label is wrong "
        "(noise_probability) where the run has it, else 1 - the mean of the "
        "available confidence, model_probability and spl_weight; higher = more "
        "suspicious."
    ),
    "noise_probability": (
        "Calibrated probability that the observed label is wrong, from both "
        "stages' evidence and the noise estimated on this data."
    ),
}


def _label_text(value: Any) -> str:
    return "(none)" if value is None else str(value)


def _plot_classes(report: Mapping[str, Any]) -> str | None:
    # lazy: matplotlib is needed only to draw a report
    from matplotlib.figure import Figure

    classes = report.get("classes") or []
    classes = [c for c in classes if c.get("n_observed", 0) > 0]
    if not classes:
        return None
    names = [_label_text(c["label"]) for c in classes]
    fig = Figure(figsize=(7, 0.9 + 0.35 * len(names)), layout="constrained")
    ax = fig.add_subplot()
    left = [0] * len(names)
    keys = {"kept": "kept", "corrected": "corrected_away", "discarded": "discarded"}
    for decision in DECISIONS:
        values = [c[keys[decision]] for c in classes]
        ax.barh(names, values, left=left, color=_COLORS[decision], label=decision)
        left = [a + b for a, b in zip(left, values, strict=True)]
    ax.invert_yaxis()
    ax.set_xlabel("rows (by observed label)")
    _legend_above(ax)
    ax.spines[["top", "right"]].set_visible(False)
    return svg_data_uri(fig)


def _legend_above(ax: Any) -> None:
    """The decisions' legend in one row above the plot, clear of the bars."""
    ax.legend(
        ncols=3,
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        fontsize="small",
        frameon=False,
    )


def _plot_histogram(dist: Mapping[str, Any]) -> str | None:
    # lazy: matplotlib is needed only to draw a report
    from matplotlib.figure import Figure

    edges = dist.get("bin_edges")
    counts = dist.get("counts") or {}
    if not edges or not any(sum(counts.get(d, [])) for d in DECISIONS):
        return None
    fig = Figure(figsize=(7, 2.6), layout="constrained")
    ax = fig.add_subplot()
    widths = [b - a for a, b in itertools.pairwise(edges)]
    bottom = [0] * len(widths)
    for decision in DECISIONS:
        values = counts.get(decision) or [0] * len(widths)
        ax.bar(
            edges[:-1],
            values,
            width=widths,
            bottom=bottom,
            align="edge",
            color=_COLORS[decision],
            label=decision,
            edgecolor="white",
            linewidth=0.5,
        )
        bottom = [a + b for a, b in zip(bottom, values, strict=True)]
    ax.set_xlim(edges[0], edges[-1])
    ax.set_xlabel(dist.get("column", ""))
    ax.set_ylabel("rows")
    _legend_above(ax)
    ax.spines[["top", "right"]].set_visible(False)
    return svg_data_uri(fig)


def _plots(report: Mapping[str, Any]) -> dict[str, str]:
    plots = {}
    with drawing():
        classes = _plot_classes(report)
        if classes:
            plots["classes"] = classes
        for name, dist in (report.get("distributions") or {}).items():
            if "bin_edges" in dist:
                uri = _plot_histogram(dist)
                if uri:
                    plots[name] = uri
    return plots


def _failed_checks(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The validation checks that failed with severity 'error'."""
    return [
        c
        for suite in report.get("validation") or []
        for c in suite.get("checks", [])
        if not c.get("success", True) and c.get("severity", "error") != "warning"
    ]


def _withheld_text(report: Mapping[str, Any]) -> list[str]:
    """The first sentence when a failed guardrail withheld the cleaned rows."""
    run = report.get("run") or {}
    held = run.get("withholding")
    if not isinstance(held, Mapping) or not held.get("withheld"):
        return []
    remedy = (  # apply checks new batches with the default limits
        "run apply again without --fail-on"
        if run.get("command") == "apply"
        else "raise the limits in the pipeline's [validation] table or run again "
        "with --fail-on never"
    )
    return [
        f"Stopped: the run failed its guardrail(s) "
        f"{', '.join(map(str, held.get('failed') or []))} with fail-on "
        f"'{held.get('fail_on')}', so the cleaned rows were withheld as "
        f"'{held['withheld']}', a name no parquet reader picks up. The audit and "
        "this report say why (Validation, below); to publish the cleaned rows, "
        f"check the classes named there, then {remedy}."
    ]


def _cautions(report: Mapping[str, Any]) -> list[Any]:
    """The report's cautions; read from its run where a ``report.json`` of an
    earlier version has none."""
    if isinstance(report.get("cautions"), list):
        return report["cautions"]
    return cautions(
        report.get("run") or {},
        report.get("classes") or (),
        report.get("noise_profile"),
        report.get("reasons") or (),
    )


def _story(report: Mapping[str, Any]) -> list[str]:
    """Plain sentences telling what happened in the run."""
    summary = report["summary"]
    inp = report.get("input", {})
    n = summary["n_rows"]
    counts, shares = summary["decisions"], summary["shares"]
    label = inp.get("label_column")
    classes = report.get("classes") or []
    n_classes = inp.get("n_classes_observed", len(classes))
    story = _withheld_text(report) + calibration_story(report.get("run") or {})
    story.append(
        f"{count(n)} row(s) came in with {n_classes} observed class(es)"
        + (f" in the label column '{label}'." if label else ".")
    )
    checks = [
        c for suite in report.get("validation") or [] for c in suite.get("checks", [])
    ]
    if checks:
        failed = [c for c in checks if not c.get("success", True)]
        errors = _failed_checks(report)
        text = (
            f"Validation ran {len(checks)} check(s): {len(checks) - len(failed)} passed"
        )
        if failed:
            text += f", {len(errors)} failed and {len(failed) - len(errors)} warned"
            names = ", ".join(sorted({str(c.get("name")) for c in errors})[:3])
            if names:
                text += f" (failed: {names})"
        story.append(text + ".")
    else:
        story.append("No validation results were recorded.")
    story.append(
        f"labelclean kept {count(counts['kept'])} row(s) ({pct(shares['kept'])}), "
        f"corrected {count(counts['corrected'])} ({pct(shares['corrected'])}) and "
        f"discarded {count(counts['discarded'])} ({pct(shares['discarded'])}); the "
        f"cleaned output holds {count(summary['n_cleaned_rows'])} row(s)."
    )
    if summary.get("n_missing_label"):
        story.append(
            f"{count(summary['n_missing_label'])} of the discarded rows had no label "
            "(reason 'missing_label'): nothing to check or to train on; their "
            "model_label in the audit says what the final model would label them."
        )
    final = (report.get("run") or {}).get("final_model")
    if isinstance(final, Mapping) and final.get("name"):
        story.append(final_model_text(final))
    corrections = report.get("corrections") or []
    if corrections:
        top = corrections[0]
        story.append(
            f"The most frequent correction was {_label_text(top['from'])} → "
            f"{_label_text(top['to'])} ({count(top['count'])} row(s))."
        )
    worst = max(
        (c for c in classes if c.get("n_observed")),
        key=lambda c: (c["share_discarded"], c["n_observed"]),
        default=None,
    )
    if worst is not None and worst["discarded"]:
        story.append(
            f"Class {_label_text(worst['label'])} lost the largest share to discards: "
            f"{count(worst['discarded'])} of {count(worst['n_observed'])} "
            f"({pct(worst['share_discarded'])})."
        )
    suspects = (report.get("suspects") or {}).get("rows") or []
    if suspects and suspects[0].get("decision") != "kept":
        first = suspects[0]
        story.append(
            f"The most suspicious row is {first['row_id']}: observed "
            f"{_label_text(first.get('observed_label'))}, {first['decision']}"
            + (
                f" to {_label_text(first.get('cleaned_label'))}"
                if first["decision"] == "corrected"
                else ""
            )
            + f" (reason '{first.get('reason')}')."
        )
    return story


def _subtitle(report: Mapping[str, Any]) -> str:
    run = report.get("run") or {}
    parts = []
    for key in ("pipeline", "started", "finished", "seed"):
        value = run.get(key)
        if isinstance(value, Mapping):
            value = value.get("name")
        if value is not None:
            parts.append(f"{key}: {value}")
    return " · ".join(parts) if parts else "Label cleaning run"


#: The suspects table's columns (the data block's order) and its numeric ones.
_SUSPECT_COLUMNS = (
    "rank",
    "row",
    "decision",
    "reason",
    "observed",
    "cleaned",
    "suspicion",
    "why",
    "features",
)
_NUMERIC_COLUMNS = ("rank", "suspicion")
#: Rows written into the page itself (the script pages through all of them).
FIRST_PAGE = 100


def _features_text(features: Mapping[str, Any], order: Sequence[str]) -> str:
    """The row's feature values in the input's column order: ``report.json``
    is written with sorted keys, so its order alone would differ between the
    run's page and one rendered again from the file."""
    keys = [k for k in order if k in features]
    listed = set(keys)
    keys += [k for k in features if k not in listed]
    values = ("–" if features[k] is None else features[k] for k in keys)
    return " · ".join(f"{k} = {v}" for k, v in zip(keys, values, strict=True))


def _suspect_table(report: Mapping[str, Any]) -> tuple[list[list[Any]], str]:
    """The suspects as table rows, and the same rows as a JSON data block."""
    rows = []
    suspects = report.get("suspects") or {}
    order = [str(c) for c in suspects.get("feature_columns") or []]
    for x in suspects.get("rows") or []:
        suspicion = x.get("suspicion")
        rows.append(
            [
                x.get("rank"),
                x.get("row_id"),
                x.get("decision"),
                x.get("reason"),
                x.get("observed_label"),
                x.get("cleaned_label"),
                None if suspicion is None else round(float(suspicion), 4),
                x.get("why") or "",
                _features_text(x.get("features") or {}, order),
            ]
        )
    data = json.dumps(
        {"columns": _SUSPECT_COLUMNS, "numeric": _NUMERIC_COLUMNS, "rows": rows},
        ensure_ascii=False,
        allow_nan=False,
        separators=(",", ":"),
    )
    # Inside <script> nothing may close the element or open a comment.
    for char in "<>&":
        data = data.replace(char, f"\\u{ord(char):04x}")
    return rows, data


def render_html(report: Mapping[str, Any], *, plots: bool = True) -> str:
    """Render the self-contained HTML page of a report.

    Parameters
    ----------
    report : dict
        The dict returned by :func:`build_report` (or read back from
        ``report.json``).
    plots : bool, default=True
        Draw the plots (needs matplotlib); ``False`` gives tables only.

    Returns
    -------
    html : str
        One HTML document with inline styles, images and one script (the
        suspects table's sorting and filtering), no external resources.
        Sections: Summary, Input, Validation, Decisions, Suspects, Evidence,
        Examples, Parameters, About.

    Examples
    --------
    >>> import pandas as pd
    >>> from labelclean.report import build_report, render_html
    >>> audit = pd.DataFrame({
    ...     "decision": ["kept", "discarded"], "reason": ["ok", "low_confidence"],
    ...     "observed_label": [0, 1], "cleaned_label": [0, None],
    ... })
    >>> html = render_html(build_report(audit), plots=False)
    >>> "<h2>Suspects</h2>" in html
    True
    """
    # lazy: only to render a report
    import jinja2

    # The dict as report.json holds it (JSON types, keys sorted): the page a
    # run writes and the page rendered again from its file are the same.
    report = json.loads(json.dumps(to_jsonable(report), sort_keys=True))

    templates = resources.files("labelclean.report") / "templates"
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(
            lambda name: (templates / name).read_text(encoding="utf-8")
        ),
        autoescape=True,
        undefined=jinja2.ChainableUndefined,
        keep_trailing_newline=True,
    )
    env.filters["thousands"] = count  # not "count": jinja2 has one (length)
    template = env.get_template("report.html.j2")
    css = (templates / "report.css").read_text(encoding="utf-8")
    script = (templates / "suspects.js").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    suspect_rows, suspect_data = _suspect_table(report)
    run = report.get("run") or {}
    pipeline = run.get("pipeline")
    pipeline_name = pipeline.get("name") if isinstance(pipeline, Mapping) else pipeline
    inputs = run.get("inputs") if isinstance(run.get("inputs"), list) else []
    suspect_evidence = list((report.get("evidence") or {}).get("present", []))
    return template.render(
        r=report,
        s=report["summary"],
        css=css,
        version=__version__,
        decisions=DECISIONS,
        story=_story(report),
        cautions=_cautions(report),
        distance=_neighbour_distance(run.get("neighbour_distance")),
        scale=_neighbour_scale(run.get("neighbour_scale")),
        neighbourhood=_neighbourhood(run.get("neighbourhood")),
        subtitle=_subtitle(report),
        pipeline_name=pipeline_name,
        inputs=inputs,
        plots=_plots(report) if plots else {},
        describe=DESCRIPTIONS,
        suspect_evidence=suspect_evidence,
        suspect_columns=_SUSPECT_COLUMNS,
        suspect_rows=suspect_rows[:FIRST_PAGE],
        suspect_data=suspect_data,
        script=script,
        script_hash=f"sha256-{digest}",
    )


def _neighbourhood(record: Any) -> str | None:
    """A sentence where the table was too small for the neighbourhood asked
    for, else None."""
    if not isinstance(record, Mapping) or record["used"] >= record["asked"]:
        return None
    return (
        f"Each row's confidence was read from {record['used']} neighbours, not "
        f"{record['asked']}: the {count(record['rows'])} rows they are taken "
        "from are too few, and a neighbourhood of more would hold most of the "
        "table (docs/confidence.md, Tables smaller than the neighbourhood)."
    )


def _neighbour_scale(record: Any) -> str | None:
    """How the neighbours' distance read the numbers, and why, or None."""
    if not isinstance(record, Mapping) or record.get("difference") is None:
        return None
    diff, se = 100 * record["difference"], 100 * record["standard_error"]
    vote = (
        "reading them by their rank changed how often the neighbours' vote "
        f"names the observed label by {diff:+.1f} ± {se:.1f} percentage points "
        f"on the {count(record['rows'])} rows read"
    )
    if record.get("ranked"):
        return (
            "The neighbours' distance read each number by its rank among the "
            "training values, not in standard deviations (the models read them "
            f"as the table says): {vote}, more than two standard errors."
        )
    return (
        "The neighbours' distance read the numbers in standard deviations: "
        f"{vote}, not more than two standard errors."
    )


def _neighbour_distance(record: Any) -> dict[str, Any] | None:
    """Each column's weight in the neighbours' distance, and why, or None."""
    if not isinstance(record, Mapping) or record.get("difference") is None:
        return None
    info = record.get("information") or {}
    mean = sum(info.values()) / len(info) if info else 0.0
    weighted = bool(record.get("weighted")) and mean > 0
    diff, se = 100 * record["difference"], 100 * record["standard_error"]
    vote = (
        "weighing the columns by what they tell of the label changed how often "
        "the neighbours' vote names the observed label by "
        f"{diff:+.1f} ± {se:.1f} percentage points on the "
        f"{count(record['rows'])} rows read"
    )
    sentence = (
        "The neighbours were found in a distance that weighs each column (its "
        f"weight above): {vote}, more than two standard errors."
        if weighted
        else "The neighbours were found in the plain distance, every column "
        f"alike: {vote}, not more than two standard errors."
    )
    weights = {k: (v / mean if weighted else 1.0) for k, v in info.items()}
    return {"sentence": sentence, "weights": weights}
