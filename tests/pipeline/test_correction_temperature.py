"""Corrections read on the evidence as sharp as the labels surely make it."""

import json
from html import unescape

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner

runner = CliRunner()


def _five_classes(n=1500):
    """Five separated classes, 20 % of the labels flipped uniformly: evidence
    learnt from them is smoother than the truth."""
    X, y = make_classification(
        n_samples=n, n_features=8, n_informative=6, n_redundant=0, n_classes=5,
        n_clusters_per_class=1, class_sep=2.0, random_state=0,
    )  # fmt: skip
    noisy, flipped = flip_labels(y, 0.2, random_state=0)
    return X, y, noisy, flipped


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    X, y, noisy, _ = _five_classes()
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    frame["label"] = np.array(list("abcde"))[noisy]
    tmp = tmp_path_factory.mktemp("sharp")
    data, out = tmp / "data.parquet", tmp / "out"
    frame.to_parquet(data, index=False)
    res = runner.invoke(app, ["run", str(data), "--label", "label", "--out", str(out)])
    assert res.exit_code == 0, res.output
    return y, out


def test_the_run_corrects_on_the_sharpened_evidence_and_says_so(run):
    # On the evidence as it is, 62 of the 294 flags were corrected (57
    # rightly) and 232 discarded; the labels support a temperature of at
    # least 1.65 (the likeliest is 1.97), and read there 145 are corrected,
    # 136 rightly: more than twice as many rows keep a label, at the same
    # precision.
    y, out = run
    calibration = json.loads((out / "report.json").read_text())["run"]["calibration"]
    tau = calibration["correction_temperature"]
    assert 1.0 < tau < calibration["temperature"]
    audit = pd.read_parquet(out / "audit.parquet")
    corrected = (audit["decision"] == "corrected").to_numpy()
    assert corrected.sum() == calibration["corrections"] > 120
    truth = np.array(list("abcde"))[y]
    right = (audit["cleaned_label"].to_numpy()[corrected] == truth[corrected]).mean()
    assert right >= 0.9
    low, high = calibration["correction_precision_interval"]
    assert low <= right <= high
    html = unescape((out / "report.html").read_text())
    assert f"the least temperature the labels support ({tau:.3g};" in html


def test_new_rows_are_corrected_at_the_fits_temperature():
    # `audit` (what `labelclean apply` runs) reads the fitted temperature; a
    # model file written before it existed has none, and decides on the
    # evidence as it is, as it did.
    X, y, noisy, _ = _five_classes()
    cleaner = LabelCleaner(random_state=0).fit(X[:1000], noisy[:1000])
    assert cleaner.calibration_["correction_temperature"] > 1.0
    new = cleaner.audit(X[1000:], noisy[1000:], user_columns=False)
    del cleaner.calibration_["correction_temperature"]
    before = cleaner.audit(X[1000:], noisy[1000:], user_columns=False)
    flagged = new["decision"] != "kept"
    np.testing.assert_array_equal(flagged, before["decision"] != "kept")
    now, then = (a["decision"] == "corrected" for a in (new, before))
    assert now.sum() > then.sum() and not (then & ~now).any()
    cleaned = new.loc[now, "cleaned_label"].to_numpy()
    assert np.mean(cleaned == y[1000:][now.to_numpy()]) >= 0.9
