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
from labelclean.pipeline._anchor import (
    anchor_disagreement,
    class_disagreement,
    flags_against_surest_rows,
)
from labelclean.report import render_html


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


# ---------------------------------------------------------------------------
# One-way noise read backwards: the caution ``flags_against_surest_rows``


@pytest.fixture(scope="module")
def read_backwards():
    """``LabelCleaner()`` on two unequal classes, 30 % of the smaller one
    labelled as the larger: the evidence learns the larger class over the
    smaller one's region and flags the smaller one's right labels."""
    from labelclean import LabelCleaner

    X, y = make_classification(800, 10, n_informative=5, n_redundant=0,
                               class_sep=1.2, weights=[0.75, 0.25],
                               random_state=1)  # fmt: skip
    rng = np.random.RandomState(2)
    ones = np.flatnonzero(y == 1)
    noisy = y.copy()
    noisy[rng.choice(ones, int(0.3 * ones.size), replace=False)] = 0
    cleaner = LabelCleaner(random_state=0).fit(X, noisy)
    return cleaner, X, noisy, noisy != y


def test_flags_read_backwards_are_left_out_and_said(read_backwards):
    cleaner, X, noisy, flipped = read_backwards
    reading = cleaner.calibration_["flags_against_surest_rows"]
    # the first reading: most flags were right labels of the class the flips
    # came from, moved towards the class they went to
    first = reading["withheld"]
    assert first["flagged"] >= 10
    assert 2 * first["against"] >= first["flagged"]
    (pair,) = first["pairs"]
    assert (pair["label"], pair["as"]) == (1, 0)
    assert not (flipped & (noisy == 1)).any()  # every label '1' is right
    # the smaller class's surest rows carry the larger's label, about as
    # often as it was flipped; the larger's carry the smaller's rarely
    assert pair["share_label_as"] > 2 * pair["share_as_label"]
    assert pair["share_label_as"] > 0.15
    # that direction is left out: no label '1' is taken for a hidden '0'
    flagged = cleaner.decisions_ != "kept"
    assert flagged.sum() == reading["flagged"] < first["flagged"]
    assert not (flagged & (noisy == 1)).any()
    assert cleaner.noise_joint_[1, 0] == 0.0
    assert cleaner.noise_rate_per_class_[1] == 0.0
    (caution,) = [c for c in cleaner.report()["cautions"]
                  if c["code"] == "flags_against_surest_rows"]  # fmt: skip
    assert caution["message"].startswith(
        f"{first['against']} of the {first['flagged']} rows a first reading "
        "flagged go against"
    )
    assert "moved label '1' to '0'" in caution["message"]
    assert f"and {reading['flagged']} row(s) flagged without them" in caution["message"]
    assert caution["message"].endswith(
        "review the rows labelled '1' and '0' ('labelclean review export')"
    )
    # rows judged after the fit (here the same ones) are judged without them
    applied = cleaner.audit(X, noisy)["decision"].to_numpy() != "kept"
    assert not (applied & (noisy == 1)).any()
    # the report's summary says it too, beside the caution
    html = unescape(render_html(cleaner.report()))
    assert html.count("Those moves were left out of the noise estimate") == 2


def test_flags_along_one_way_noise_carry_no_such_caution(missed_positives):
    _, report, _, _ = missed_positives
    reading = report["run"]["calibration"]["flags_against_surest_rows"]
    assert reading["flagged"] >= 20
    assert 2 * reading["against"] < reading["flagged"]
    assert reading["withheld"] is None
    codes = [c["code"] for c in report["cautions"]]
    assert "flags_against_surest_rows" not in codes


def test_a_direction_is_against_the_surest_rows_only_when_they_say_so():
    # 1,000 rows of class 0 and 500 of class 1, surest first; the surest
    # fifth of each (200 and 100 rows) reads the labels
    n0, n1 = 1000, 500
    sure0, sure1 = np.linspace(0.99, 0.6, n0), np.linspace(0.99, 0.6, n1)
    P = np.r_[np.c_[sure0, 1 - sure0], np.c_[1 - sure1, sure1]]
    codes = np.r_[np.zeros(n0, int), np.ones(n1, int)]
    codes[[0, 100]] = 1  # class 0's surest: 2 of 200 labelled 1
    codes[n0 + np.arange(0, 100, 10)] = 0  # class 1's surest: 10 of 100 ...
    codes[n0 + np.arange(1, 100, 5)] = 0  # ... and 20 more labelled 0
    alternative = 1 - codes
    flagged = np.zeros(n0 + n1, bool)
    flagged[n0 + 100 : n0 + 120] = True  # labelled 1, flagged towards 0
    back = flags_against_surest_rows(P, codes, flagged, alternative)
    assert back["flagged"] == back["against"] == 20
    (pair,) = back["pairs"]
    assert (pair["label"], pair["as"], pair["flags"]) == (1, 0, 20)
    assert pair["share_label_as"] == pytest.approx(0.3)
    assert pair["share_as_label"] == pytest.approx(0.01)
    # flags labelled 0 towards 1 go the way the surest rows show the labels
    along = np.zeros(n0 + n1, bool)
    along[300:320] = True
    assert flags_against_surest_rows(P, codes, along, alternative)["against"] == 0
    # the same share both ways (10 %): nothing is against the surest rows
    even = codes.copy()
    even[n0 + np.arange(1, 100, 5)] = 1  # class 1's surest: 10 of 100
    even[np.arange(0, 200, 10)] = 1  # class 0's surest: 20 of 200
    assert flags_against_surest_rows(P, even, flagged, 1 - even)["against"] == 0
