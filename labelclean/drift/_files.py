"""``labelclean drift``: read runs' reports, compare, write drift.json/html.

The run folders are only read. The output folder is written as one unit
(:class:`~labelclean.io.OutputFolder`): ``drift.json`` (the verdict of
:func:`~labelclean.drift.compare`) and ``drift.html``, a small self-contained
page with the trend of each class's estimated share of wrong labels.
"""

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from labelclean.drift._compare import (
    compare,
    describe_alert,
    describe_growth,
    shifted_runs,
)
from labelclean.exceptions import InputFileError
from labelclean.io import OutputFolder, read_report_json
from labelclean.report._figures import drawing, svg_data_uri

__all__ = ["drift_report", "load_report"]


def load_report(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``report.json`` of a run or apply folder, with its noise profile."""
    return read_report_json(path, required=("noise_profile",))


def drift_report(
    runs: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    baseline: str | os.PathLike[str] | None = None,
    max_increase: float = 0.05,
    min_z: float = 3.0,
    overwrite: bool | str = False,
) -> dict[str, Any]:
    """Compare run folders and write ``drift.json`` and ``drift.html``.

    Parameters
    ----------
    runs : sequence of path-like
        Folders written by ``labelclean run`` or ``apply``, in time order.
    out : path-like
        Output folder (replaced as one unit).
    baseline : path-like, default=None
        The folder the others are compared with (added first when it is not
        among ``runs``); default the first of ``runs``.
    max_increase, min_z : float
        The drift limits of :func:`~labelclean.drift.compare`.
    overwrite : bool or 'force', default=False
        Replace a previous result in ``out``.

    Returns
    -------
    drift : dict
        What ``drift.json`` holds; ``drift["success"]`` is False when a class
        drifted.
    """
    paths = [Path(r) for r in runs]
    if baseline is not None:
        base = Path(baseline)
        if base.resolve() not in [p.resolve() for p in paths]:
            paths.insert(0, base)
        index = [p.resolve() for p in paths].index(base.resolve())
    else:
        index = 0
    if not paths:
        raise InputFileError("give at least one run folder to compare.")
    reports = [load_report(p) for p in paths]
    names = [str(p) for p in paths]
    try:
        drift = compare(
            reports,
            names=names,
            baseline=index,
            max_increase=max_increase,
            min_z=min_z,
        )
    except ValueError as exc:
        raise InputFileError(str(exc)) from exc
    with OutputFolder(out, inputs=paths, overwrite=overwrite) as folder:
        folder.write_json("drift.json", drift)
        folder.write_text("drift.html", render_drift(drift))
    return drift


#: Nothing may be loaded from elsewhere; the page has no script.
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


_ALT = (
    "Per class and run: the estimated share of wrong labels, and the share of "
    "rows the model assigns to another class."
)


def _pct(value: Any) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _plot(drift: dict[str, Any]) -> str:
    # lazy: matplotlib is needed only to draw the page
    from matplotlib.figure import Figure

    labels = sorted({c for r in drift["runs"] for c in r["classes"]})
    fig = Figure(figsize=(9, 3), layout="constrained")
    noise_ax, model_ax = fig.subplots(1, 2, sharex=True)
    x = list(range(len(drift["runs"])))
    with drawing():
        for label in labels:
            entries = [r["classes"].get(label) or {} for r in drift["runs"]]
            noise = [  # a class kept unchecked has no estimate to draw
                None if c.get("not_checked") else c.get("mean_noise_probability")
                for c in entries
            ]
            model = [c.get("disagreement_share") for c in entries]
            for ax, y in ((noise_ax, noise), (model_ax, model)):
                ax.plot(x, [float("nan") if v is None else 100 * v for v in y],
                        marker="o", label=label)  # fmt: skip
        for ax, what in ((noise_ax, "estimated wrong labels (%)"),
                         (model_ax, "model assigns another class (%)")):  # fmt: skip
            ax.set_xticks(x, [str(i + 1) for i in x])
            ax.set_xlabel("run (in the order given)")
            ax.set_ylabel(what)
            ax.set_ylim(bottom=0)  # a share; no negative axis where nothing is drawn
        noise_ax.legend(fontsize="small", frameon=False, ncols=min(len(labels), 4))
        return svg_data_uri(fig)


def _change(increase: Any, baseline: bool) -> str:
    """`` (+8.2)``: a change against the baseline, in points."""
    return "" if increase is None or baseline else f" ({100 * increase:+.1f})"


def render_drift(drift: dict[str, Any]) -> str:
    """The self-contained ``drift.html`` page of a :func:`compare` result."""
    labels = sorted({c for r in drift["runs"] for c in r["classes"]})
    esc = html.escape
    head = "".join(f"<th>{esc(label)}</th>" for label in labels)
    rows = []
    for i, run in enumerate(drift["runs"]):
        cells = []
        for label in labels:
            c = run["classes"].get(label)
            if c is None:
                cells.append("<td class='muted'>–</td>")
                continue
            baseline = run["name"] == drift["baseline"]
            noise = (
                "<span class='muted'>not checked</span>"
                if c.get("not_checked")
                else _pct(c["mean_noise_probability"])
                + _change(c.get("increase"), baseline)
            )
            model = _pct(c.get("disagreement_share")) + _change(
                c.get("disagreement_increase"), baseline
            )
            cls = " class='alert'" if c.get("alert") else ""
            model += "" if c.get("rows") is None else f" of {c['rows']}"
            cells.append(
                f"<td{cls}>{noise}<br><span class='small'>model: {model}</span></td>"
            )
        mark = " (baseline)" if run["name"] == drift["baseline"] else ""
        rows.append(
            f"<tr><td>{i + 1}</td><td>{esc(run['name'])}{mark}</td>"
            f"<td>{esc(str(run['command']))}</td><td>{run['rows']}</td>"
            + "".join(cells)
            + "</tr>"
        )
    unchecked = drift.get("not_checked_classes") or []
    verdict = (
        ("No checked class drifted." if unchecked else "No class drifted.")
        if drift["success"]
        else "Drift: " + "; ".join(map(esc, map(describe_alert, drift["alerts"]))) + "."
    )
    if unchecked:
        verdict += (
            f" Not checked, so their drift cannot be seen in the estimated wrong "
            f"labels: class(es) {esc(', '.join(map(str, unchecked)))} (the evidence "
            "does not tell them apart; their rows were kept as labelled); their "
            "rows the model assigns to another class are compared."
        )
    for growth in drift.get("unchecked_growth") or []:
        verdict += f" Warning: {esc(describe_growth(growth))}."
    for run, told in shifted_runs(drift):
        verdict += (
            f" Warning: the features of {esc(run)} left the fit's range: "
            f"{esc(told)}; its changes may come from the columns, not the labels."
        )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<title>labelclean drift</title>
<style>body{{font:15px/1.5 system-ui,sans-serif;margin:1.5rem;color:#1d2430}}
table{{border-collapse:collapse;font-size:.9rem;display:block;overflow-x:auto}}
th,td{{border:1px solid #d8dde5;padding:.25rem .55rem;text-align:left}}
th{{background:#f5f7fa}}td.alert{{background:#fdecea;font-weight:600;color:#c62828}}
.muted{{color:#5b6472}}.small{{font-size:.8rem;color:#5b6472}}
img{{max-width:100%}}</style></head><body>
<h1>Label-noise drift</h1>
<p class="{"ok" if drift["success"] else "alert"}">{verdict}</p>
<p class="muted">Per observed class: the estimated share of wrong labels (the mean
calibrated probability that a row's label is wrong) and, under it ("model"), the
share of the class's rows that a model which never saw their labels assigns to
another class, read without the fit's estimate of the noise, of the class's rows
in the run; each with its change in points against the baseline.
{esc(drift["rule"])} (max_increase {drift["max_increase"]:g},
min_z {drift["min_z"]:g}).</p>
<img src="{_plot(drift)}" alt="{_ALT}">
<table><thead><tr><th>#</th><th>run</th><th>command</th><th>rows</th>{head}</tr></thead>
<tbody>{"".join(rows)}</tbody></table>
</body></html>
"""
