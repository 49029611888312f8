"""No reading of the surest rows shows a wrong label: nothing is flagged.

Two normal classes two deviations apart and one feature of noise, no label
wrong: confident learning counts the classes' edge as noise, and before
this rule a tenth of such fits discarded 3-4 % of their right labels at an
estimated precision just over one half (docs/decisions.md, *No reading of
the surest rows shows a wrong label*).
"""

import numpy as np
import pandas as pd
import pytest

from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.report import render_html

#: The decisions do not depend on the final model (test_calibration.py).
DECIDE = {"final_model": "cb_adaboost"}


def _overlapping(seed, n_rows=1000, separation=2.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n_rows)
    X = pd.DataFrame(
        {"signal": rng.normal(size=n_rows) + separation * y,
         "noise": rng.normal(size=n_rows)}
    )  # fmt: skip
    return X, np.array(["a", "b"])[y]


def test_clean_overlapping_classes_are_not_flagged():
    # Seed 0 of benchmarks/clean_overlap.py's cell: 2.5 % of the rows were
    # discarded, every one a right label, at an estimated precision of 0.51.
    X, y = _overlapping(0)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y)
    cal = cleaner.calibration_
    anchor = cal["anchor_disagreement"]
    assert not cal["predictability"]["low"]  # the predictable reading
    assert anchor["share"] == 0 and anchor["blind_by_class"] == 0
    assert anchor["no_wrong_label_seen"]
    assert cal["noise_rate"] > 0  # confident learning still counts the edge
    assert (cleaner.decisions_ == "kept").all()
    assert cal["flagged"] == 0 and cal["flag_threshold"] is None  # infinite
    # new rows are decided the same way
    assert (cleaner.audit(X.iloc[:200], y[:200])["decision"] == "kept").all()
    html = render_html(cleaner.report())
    assert "no sign of wrong labels to act on" in html


@pytest.mark.parametrize("rate", [0.05, 0.1])
def test_flips_show_in_the_classes_surest_rows_and_are_flagged(rate):
    # The same table with a few labels flipped: each class's surest rows
    # show them, the rule does not apply, and the flags find the flips
    # (with rows of the classes' edge: at 5 % about as many).
    X, y = _overlapping(0)
    noisy, flipped = flip_labels(y, rate, random_state=0)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, noisy)
    anchor = cleaner.calibration_["anchor_disagreement"]
    assert anchor["blind_by_class"] > 0
    assert not anchor["no_wrong_label_seen"]
    flagged = cleaner.decisions_ != "kept"
    assert (flagged & flipped).sum() > 0.5 * flipped.sum()
    assert (flagged & flipped).sum() > 0.4 * flagged.sum()
