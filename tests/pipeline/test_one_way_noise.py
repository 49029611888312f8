"""Wrong labels that flow one way, between two classes only.

A common kind of label noise is one-sided: positives missed and recorded as
negatives, one class read as another by one annotator. The surest rows that
cap the noise (docs/decisions.md, *Calibrated decisions*, step 2) are
pooled over the classes and ranked by the evidence's highest probability,
so on such data they are the clean class's: they showed almost no noise and capped
the estimate far below the flipped share (here 0.055 where 0.151 was
flipped, 47 of 151 flips flagged). Each class's surest rows, read alone,
show it (docs/decisions.md, *Wrong labels that flow one way: each class's
surest rows*).
"""

import json
from html import unescape

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.pipeline._anchor import anchor_disagreement, class_disagreement


@pytest.fixture(scope="module")
def missed_positives(tmp_path_factory):
    """``labelclean run`` on two classes, 30 % of one labelled as the other."""
    X, y = make_classification(1000, 10, n_informative=5, n_redundant=0,
                               class_sep=1.5, random_state=0)  # fmt: skip
    rng = np.random.RandomState(1)
    ones = np.flatnonzero(y == 1)
    noisy = y.copy()
    noisy[rng.choice(ones, int(0.3 * ones.size), replace=False)] = 0
    folder = tmp_path_factory.mktemp("one_way")
    frame = {f"x{j}": X[:, j] for j in range(X.shape[1])}
    pd.DataFrame({**frame, "label": noisy}).to_parquet(folder / "in.parquet")
    result = CliRunner().invoke(
        app, ["run", str(folder / "in.parquet"), "--label", "label",
              "--out", str(folder / "out")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    audit = pd.read_parquet(folder / "out" / "audit.parquet")
    report = json.loads((folder / "out" / "report.json").read_text())
    return audit, report, noisy != y, folder / "out"


def test_the_rows_flagged_under_one_way_noise_are_mostly_right(missed_positives):
    audit, _, flipped, _ = missed_positives
    flagged = (audit["decision"] != "kept").to_numpy()
    assert flagged.sum() >= 20
    assert (flagged & flipped).sum() / flagged.sum() >= 0.8


def test_one_way_noise_is_read_from_each_class_surest_rows(missed_positives):
    audit, report, flipped, out = missed_positives
    reading = report["run"]["calibration"]["anchor_disagreement"]
    # pooled, the surest rows are the clean class's and show few wrong
    # labels; read class by class, they show about the share flipped
    assert reading["share"] < 0.05 < flipped.mean() - 0.05
    assert abs(reading["blind_by_class"] - flipped.mean()) < 0.03
    assert reading["upper_limit"] == reading["blind_by_class"]
    flagged = (audit["decision"] != "kept").to_numpy()
    assert (flagged & flipped).sum() / flipped.sum() >= 0.5
    # the report's summary gives both readings
    html = unescape((out / "report.html").read_text())
    by_class = f"{100 * reading['blind_by_class']:.1f}%"
    assert f", and {by_class} among each class's own surest rows" in html


def test_the_noise_interval_holds_one_way_noise(missed_positives):
    # confident learning counts fewer wrong labels than the classes' surest
    # rows show (0.113 against 0.154, 0.151 flipped); the interval reaches
    # past their reading, by its bootstrap spread
    _, report, flipped, _ = missed_positives
    calibration = report["run"]["calibration"]
    low, high = calibration["noise_rate_interval"]
    assert calibration["noise_rate"] < flipped.mean() - 0.02
    assert low <= flipped.mean() <= high
    assert high > calibration["anchor_disagreement"]["blind_by_class"]
    # and so does the interval of the class the wrong labels flowed into
    into = flipped.sum() / calibration["rows_per_class"][0]  # every flip says 0
    low, high = calibration["noise_rate_per_class_interval"][0]
    assert calibration["noise_rate_per_class"][0] < into - 0.05
    assert low <= into <= high


def test_each_class_surest_rows_are_read_alone():
    # 300 rows the evidence reads as class 0, all labelled 0 and surer than
    # any other row; 200 read as class 1, 30 % of them labelled 0.
    codes = np.r_[np.zeros(300, int), np.zeros(60, int), np.ones(140, int)]
    P = np.r_[np.tile([0.99, 0.01], (300, 1)), np.tile([0.2, 0.8], (200, 1))]
    assert anchor_disagreement(P, codes)["share"] == 0.0
    assert class_disagreement(P, codes) == pytest.approx(200 / 500 * 0.3)
    both = anchor_disagreement(P, codes, P)
    assert both["upper_limit"] == both["blind_by_class"] == pytest.approx(0.12)
    # a class with fewer rows than the smallest group is not read
    assert class_disagreement(P[:315], codes[:315]) == 0.0
