"""Each class's share of wrong labels comes with an interval.

The overall share of wrong labels had an interval from the start; each
class's share (the report's class table, the guardrails' messages) had
none. It is now read like the overall one: the bootstrap's spread of the
class's rate, widened to the class's rate at the other readings of the
noise (docs/decisions.md, *The reported share of wrong labels*).
"""

import json
from html import unescape

import numpy as np
import pytest
from sklearn.datasets import load_wine
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.noise import flip_labels


@pytest.fixture(scope="module")
def wine_run(tmp_path_factory):
    """``labelclean run`` on wine with a fifth of its labels flipped."""
    X, y = load_wine(return_X_y=True, as_frame=True)
    noisy, flipped = flip_labels(y.to_numpy(), 0.2, random_state=0)
    folder = tmp_path_factory.mktemp("wine")
    X.assign(label=noisy).to_parquet(folder / "wine.parquet")
    result = CliRunner().invoke(
        app, ["run", str(folder / "wine.parquet"), "--label", "label",
              "--out", str(folder / "out")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return folder / "out", noisy, flipped


def test_each_class_interval_holds_the_share_of_its_labels_flipped(wine_run):
    out, noisy, flipped = wine_run
    cal = json.loads((out / "report.json").read_text())["run"]["calibration"]
    intervals = cal["noise_rate_per_class_interval"]
    assert len(intervals) == len(cal["classes"]) == 3
    for label, estimate, (low, high) in zip(
        cal["classes"], cal["noise_rate_per_class"], intervals, strict=True
    ):
        truth = float(np.mean(flipped[noisy == label]))
        assert low <= estimate <= high
        assert low <= truth <= high, (label, truth, low, high)
        # informative: the features predict wine's classes, so each interval
        # excludes a clean class and is narrower than a third
        assert low > 0.0 and high - low < 0.35


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def test_the_class_table_shows_each_class_interval(wine_run):
    out, _, _ = wine_run
    report = json.loads((out / "report.json").read_text())
    html = unescape((out / "report.html").read_text())
    start = html.index('id="class-health"')
    table = html[start : html.index("</table>", start)]
    for c in report["classes"]:
        low, high = c["estimated_noise_interval"]
        shown = f'{_pct(c["estimated_noise"])} <span class="muted">({_pct(low)}–'
        assert f"{shown}{_pct(high)})</span>" in table
    assert "without an interval" not in html
