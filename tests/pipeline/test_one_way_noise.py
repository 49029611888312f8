"""Wrong labels that flow one way, between two classes only.

A common kind of label noise is one-sided: positives missed and recorded as
negatives, one class read as another by one annotator. The surest rows that
cap the noise (docs/decisions.md, *Calibrated decisions*, step 2) are pooled
over the classes, ranked by the evidence's highest probability, so on such
data they are the clean class's: they show no noise and cap the estimate
below the flipped share (docs/decisions.md, *Wrong labels that flow one way:
each class's surest rows*). The rows the run does flag are mostly right.
"""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from typer.testing import CliRunner

from labelclean.cli.main import app


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
    return audit, report, noisy != y


def test_the_rows_flagged_under_one_way_noise_are_mostly_right(missed_positives):
    audit, _, flipped = missed_positives
    flagged = (audit["decision"] != "kept").to_numpy()
    assert flagged.sum() >= 20
    assert (flagged & flipped).sum() / flagged.sum() >= 0.8


@pytest.mark.xfail(
    strict=True,
    reason="known: the surest rows are pooled over the classes and, under "
    "one-way noise, are the clean class's; they cap the noise under the "
    "flipped share (docs/decisions.md, Wrong labels that flow one way: each "
    "class's surest rows; measured, not shipped)",
)
def test_one_way_noise_is_read_and_most_of_it_flagged(missed_positives):
    audit, report, flipped = missed_positives
    low, high = report["run"]["calibration"]["noise_rate_interval"]
    assert low <= flipped.mean() <= high
    flagged = (audit["decision"] != "kept").to_numpy()
    assert (flagged & flipped).sum() / flipped.sum() >= 0.5
