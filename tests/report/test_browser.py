"""report.html in a real browser: headless Chromium loads it without errors.

Skipped when no ``chromium`` is on PATH (``.ci/run`` installs it).
"""

import json
import shutil
import subprocess

import pytest

from labelclean.report import build_report, render_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

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


def load_in_chromium(path, profile):
    """Load ``path`` headless; return (DOM after load, browser console lines)."""
    result = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    return result.stdout, console


def _write_report(audit, path):
    report = json.loads(json.dumps(build_report(audit, label="label", run={"seed": 0})))
    path.write_text(render_html(report), encoding="utf-8")
    return path


def test_report_loads_without_console_errors(audit, tmp_path):
    page = _write_report(audit, tmp_path / "report.html")
    dom, console = load_in_chromium(page, tmp_path / "profile")
    assert console == []
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in dom
    assert dom.count('src="data:image/png;base64,') == 5


def test_console_errors_are_detected(audit, tmp_path):
    # Guards the test above: a page that breaks the rules must be caught.
    page = _write_report(audit, tmp_path / "report.html")
    html = page.read_text(encoding="utf-8").replace(
        "</body>", '<img src="https://example.invalid/x.png"></body>'
    )
    page.write_text(html, encoding="utf-8")
    _, console = load_in_chromium(page, tmp_path / "profile")
    assert any("Content Security Policy" in line for line in console)
