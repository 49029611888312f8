"""report.html in a real browser: headless Chromium loads it without errors.

Skipped when no ``chromium`` is on PATH (``.ci/run`` installs it); see the
``headless_chromium`` fixture in ``tests/conftest.py``.
"""

import json
import re

import numpy as np
import pandas as pd
import pytest

from labelclean.report import build_report, render_html

SECTIONS = [
    "Summary",
    "Input",
    "Validation",
    "Decisions",
    "Evidence",
    "Suspects",
    "Examples",
    "Parameters",
    "About this report",
]


def _write_report(audit, path):
    report = json.loads(json.dumps(build_report(audit, label="label", run={"seed": 0})))
    path.write_text(render_html(report), encoding="utf-8")
    return path


def test_report_loads_without_console_errors(audit, tmp_path, headless_chromium):
    dom, console = headless_chromium(_write_report(audit, tmp_path / "report.html"))
    assert console == []
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in dom
    assert dom.count('src="data:image/svg+xml;base64,') == 5
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom  # escaped, not run


def test_console_errors_are_detected(audit, tmp_path, headless_chromium):
    # Guards the test above: a page that breaks the rules must be caught.
    page = _write_report(audit, tmp_path / "report.html")
    html = page.read_text(encoding="utf-8").replace(
        "</body>", '<img src="https://example.invalid/x.png"></body>'
    )
    page.write_text(html, encoding="utf-8")
    _, console = headless_chromium(page)
    assert any("Content Security Policy" in line for line in console)


def test_report_of_a_real_run(tmp_path, headless_chromium):
    # The report a `labelclean demo` run writes, not a synthetic audit.
    from typer.testing import CliRunner

    from labelclean.cli.main import app

    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    dom, console = headless_chromium(out / "report.html")
    assert console == []
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in dom
    assert "multiclass-rosr" in dom
    assert "trusted_alternative" in dom  # the reasons of the corrections are shown


# -- the suspects table: every flagged row, sortable, filterable, paged -----


def _review_audit(n=400, seed=0):
    """An audit with 250 flagged rows (150 discarded) and known values."""
    rng = np.random.default_rng(seed)
    decision = np.array(["kept"] * 150 + ["corrected"] * 100 + ["discarded"] * 150)
    observed = rng.choice(["low", "mid", "high"], size=n)
    cleaned = np.where(decision == "corrected", "mid", observed).astype(object)
    cleaned[decision == "discarded"] = None
    noise = np.where(decision == "kept", 0.01, rng.uniform(0.5, 1.0, size=n))
    return pd.DataFrame(
        {
            "row_key": [f"id{i:03d}" for i in range(n)],
            "height": np.round(rng.normal(170, 10, size=n), 1),
            "city": rng.choice(["Lyon", "Oslo"], size=n),
            "decision": decision,
            "reason": np.where(decision == "kept", "ok", "likely_mislabeled"),
            "observed_label": observed,
            "cleaned_label": cleaned,
            "confidence": rng.uniform(size=n),
            "model_probability": rng.uniform(size=n),
            "noise_probability": noise,
        }
    ).assign(city=lambda f: f["city"].where(f.index != 321, "Quito"))


def _table_rows(dom):
    body = re.search(r'<table id="suspect-table".*?<tbody>(.*?)</tbody>', dom, re.S)
    rows = re.findall(r"<tr>(.*?)</tr>", body.group(1), re.S)
    return [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in rows]


@pytest.fixture
def review_page(tmp_path):
    audit = _review_audit()
    report = json.loads(json.dumps(build_report(audit, id_column="row_key")))
    page = tmp_path / "report.html"
    page.write_text(render_html(report, plots=False), encoding="utf-8")
    return page, audit


def test_suspects_table_pages_through_every_flagged_row(review_page, headless_chromium):
    page, audit = review_page
    dom, console = headless_chromium(page)
    assert console == []
    assert "250 of 250 row(s), page 1 of 3" in dom
    rows = _table_rows(dom)
    assert len(rows) == 100
    ranked = audit[audit["decision"] != "kept"].sort_values(
        "noise_probability", ascending=False, kind="stable"
    )
    assert [r[1] for r in rows] == ranked["row_key"].head(100).tolist()
    dom, _ = headless_chromium(page, "#suspects?page=2")
    shown = _table_rows(dom)
    assert [r[1] for r in shown] == ranked["row_key"].iloc[200:].tolist()
    # A wide table's feature values scroll inside a few lines of their cell,
    # on the page as written and as the script draws it.
    for row in (*rows, *shown):
        assert row[8].startswith('<div class="clip">height = ')
    assert re.search(r"td \.clip \{ max-height: [\d.]+em; overflow-y: auto; \}", dom)
    # Every flagged row, with its features and its reason, is in the page.
    data = json.loads(
        re.search(r'id="suspect-data">(.*?)</script>', dom, re.S).group(1)
    )
    assert sorted(r[1] for r in data["rows"]) == sorted(ranked["row_key"])
    first = ranked.iloc[0]
    listed = next(r for r in data["rows"] if r[1] == first["row_key"])
    assert f"height = {first['height']}" in listed[-1]
    assert "likely_mislabeled" in listed


def test_suspects_table_filters_and_sorts(review_page, headless_chromium):
    page, audit = review_page
    dom, console = headless_chromium(page, "#suspects?decision=discarded")
    assert console == []
    rows = _table_rows(dom)
    assert "150 of 250 row(s)" in dom
    assert {r[2] for r in rows} == {"discarded"}
    # Free text matches any column, feature values included.
    dom, _ = headless_chromium(page, "#suspects?q=quito")
    assert [r[1] for r in _table_rows(dom)] == ["id321"]
    # Observed class and decision together.
    flagged = audit[audit["decision"] != "kept"]
    expected = int(
        (
            (flagged["observed_label"] == "high") & (flagged["decision"] == "corrected")
        ).sum()
    )
    dom, _ = headless_chromium(page, "#suspects?class=high&decision=corrected")
    assert f"{expected} of 250 row(s)" in dom
    # Sorted by suspicion, lowest first: the reverse of the ranking.
    dom, _ = headless_chromium(page, "#suspects?sort=suspicion&desc=0")
    shown = [float(r[6]) for r in _table_rows(dom)]
    assert shown == sorted(shown)
    assert shown[0] == pytest.approx(flagged["noise_probability"].min(), abs=1e-4)
    assert (
        'data-key="suspicion" class="col-suspicion" title="sort by suspicion" '
        'aria-sort="ascending"' in dom
    )
    dom, _ = headless_chromium(page, "#suspects?sort=row&desc=1")
    ids = [r[1] for r in _table_rows(dom)]
    assert ids == sorted(flagged["row_key"], reverse=True)[:100]


@pytest.mark.parametrize("width", [1300, 390])
def test_screenshots_at_desktop_and_narrow_widths(
    review_page, headless_chromium, tmp_path, width
):
    page, _ = review_page
    shot = tmp_path / f"report-{width}.png"
    dom, console = headless_chromium(page, screenshot=shot, width=width)
    assert console == []
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in dom
    image = plt_image(shot)
    assert image.shape[1] == width
    # Not a blank page: many distinct colours and text-dark pixels.
    assert len(np.unique(image.reshape(-1, image.shape[-1]), axis=0)) > 50
    assert (image[..., :3].mean(axis=-1) < 100).mean() > 0.005


def plt_image(path):
    # lazy: matplotlib reads the PNG (a dependency of the report)
    from matplotlib.image import imread

    return (imread(path) * 255).astype(np.uint8)


def test_a_reviewer_finds_every_discarded_row_of_a_cli_run(tmp_path, headless_chromium):
    from typer.testing import CliRunner

    from labelclean.cli.main import app

    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--out", str(out)])
    assert result.exit_code == 0, result.output
    audit = pd.read_parquet(out / "audit.parquet")
    dom, console = headless_chromium(
        out / "report.html", "#suspects?decision=discarded"
    )
    assert console == []
    discarded = audit[audit["decision"] == "discarded"]
    rows = _table_rows(dom)
    assert sorted(int(r[1]) for r in rows) == sorted(discarded["sample_id"])
    for row in rows:
        source = discarded[discarded["sample_id"] == int(row[1])].iloc[0]
        assert row[3] == source["reason"]  # its reason ...
        assert f"alcohol = {source['alcohol']}" in row[8]  # ... its features ...
        assert row[7].startswith(f"{100 * source['noise_probability']:.0f}% likely")
    # ... and the features used, the label matrix and the class health.
    for table in ('id="features"', 'id="label-matrix"', 'id="class-health"'):
        assert table in dom
