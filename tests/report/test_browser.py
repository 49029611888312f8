"""report.html in a real browser: headless Chromium loads it without errors.

Skipped when no ``chromium`` is on PATH (``.ci/run`` installs it); see the
``headless_chromium`` fixture in ``tests/conftest.py``.
"""

import json

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
    assert dom.count('src="data:image/png;base64,') == 5
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
