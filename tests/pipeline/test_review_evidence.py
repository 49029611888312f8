"""Reviewers' verdicts as evidence of how to read the data (noise or overlap)."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_blobs

from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.pipeline._noise_estimate import (
    VERDICT_LIKELIHOOD_RATIO,
    reading_from_verdicts,
)
from labelclean.report import render_html


def _least_settled(cleaner, budget):
    """The rows ``review export`` puts first: noise probability nearest 1/2."""
    p = cleaner.audit_["noise_probability"].to_numpy()
    n = p.shape[0]
    return np.lexsort((np.arange(n), -p, -(1.0 - np.abs(2.0 * p - 1.0))))[:budget]


def _reviewed(y_before, y_true, rows):
    labels = y_before.copy()
    labels[rows] = y_true[rows]
    known = np.zeros(y_before.shape[0], dtype=bool)
    known[rows] = True
    return labels, known


@pytest.fixture(scope="module")
def heavy_noise():
    """Two classes the features separate, 30 % of the labels flipped: the
    predictability tests take the disagreement for overlap and flag nothing."""
    X, y = load_breast_cancer(return_X_y=True)
    y_noisy, flipped = flip_labels(y, 0.3, random_state=0)
    first = LabelCleaner(random_state=0).fit(X, y_noisy)
    return X, y, y_noisy, flipped, first


def test_verdicts_that_find_wrong_labels_read_the_data_as_noisy(heavy_noise):
    X, y, y_noisy, flipped, first = heavy_noise
    assert first.calibration_["predictability"]["low"]
    assert first.calibration_["flagged"] == 0
    assert first.calibration_["review_evidence"] is None
    rows = _least_settled(first, 5)
    labels, known = _reviewed(y_noisy, y, rows)
    assert (labels[rows] != y_noisy[rows]).all()  # all five were wrong
    cleaner = LabelCleaner(random_state=0).fit(
        X, labels, reviewed=known, labels_before_review=y_noisy
    )
    cal = cleaner.calibration_
    review = cal["review_evidence"]
    assert review["rows"] == 5 and review["labels_changed"] == 5
    assert review["reading"] == "noise"
    ll = review["log_likelihood"]
    assert ll["noise"] - ll["measured"] >= np.log(VERDICT_LIKELIHOOD_RATIO)
    # the tests' own reading is still reported, and the decisions follow the
    # verdicts: the other rows' wrong labels are found
    assert cal["predictability"]["low"]
    assert cal["corrections_allowed"]
    flagged = (cleaner.decisions_ != "kept") & ~known
    tp = (flagged & flipped).sum()
    assert tp / flagged.sum() >= 0.85
    assert 2 * tp / (flagged.sum() + (flipped & ~known).sum()) >= 0.85
    assert (cleaner.audit_["reason"].to_numpy()[known] == "reviewed").all()

    # the report's first lines say why the run read the data as noisy
    def html(c):
        return render_html(c.report(run={"calibration": c.calibration_}), plots=False)

    assert "predict the label poorly" in html(first)
    page = html(cleaner)
    assert "predict the label poorly" not in page
    assert "is wrong labels than under the cautious reading" in page
    # without the earlier labels the verdicts are only confirmed labels
    plain = LabelCleaner(random_state=0).fit(X, labels, reviewed=known)
    assert plain.calibration_["review_evidence"] is None
    assert plain.calibration_["flagged"] == 0


def test_verdicts_that_confirm_the_labels_keep_the_cautious_reading(ordinal_labels):
    X, y = ordinal_labels
    first = LabelCleaner(random_state=0).fit(X, y)
    assert first.calibration_["predictability"]["low"]
    rows = _least_settled(first, 20)
    labels, known = _reviewed(y, y, rows)  # a person confirms every label
    cleaner = LabelCleaner(random_state=0).fit(
        X, labels, reviewed=known, labels_before_review=y
    )
    review = cleaner.calibration_["review_evidence"]
    assert review["rows"] == 20 and review["labels_changed"] == 0
    assert review["reading"] == "measured"
    assert review["log_likelihood"]["noise"] < review["log_likelihood"]["measured"]
    assert cleaner.calibration_["flagged"] <= first.calibration_["flagged"]


def test_reading_from_verdicts_without_usable_earlier_labels(heavy_noise):
    X, y, y_noisy, _, first = heavy_noise
    P = np.full((4, 2), 0.5)
    codes = np.array([0, 1, 0, 1])
    recognised = np.ones(2, dtype=bool)
    assert reading_from_verdicts(P, codes, np.full(4, -1), True, recognised)[2] is None
    assert reading_from_verdicts(P, codes, None, False, recognised)[2] is None
    # an earlier label that is no class of the fit is left out of the evidence
    rows = _least_settled(first, 5)
    labels, known = _reviewed(y_noisy, y, rows)
    before = y_noisy.astype(object)
    before[rows[0]] = "retired class"
    cleaner = LabelCleaner(random_state=0).fit(
        X, labels, reviewed=known, labels_before_review=before
    )
    assert cleaner.calibration_["review_evidence"]["rows"] == 4
    with pytest.raises(ValueError, match="one entry per row"):
        LabelCleaner(random_state=0).fit(
            X, labels, reviewed=known, labels_before_review=y_noisy[:10]
        )


def test_verdicts_never_turn_a_noisy_reading_cautious():
    """Two overlapping blobs with 10 % of each class flipped: reviewers find
    most suspects wrong and confirm a few that sit deep in the other class.
    A reading with less noise explains those confirmations better, and the
    flips (whose evidence is certain) no worse; the run must still flag."""
    X, y = make_blobs(800, centers=[[0, 0], [3, 3]], random_state=0)
    y_noisy, flipped = flip_labels(
        y, {0: 0.1, 1: 0.1}, kind="class_conditional", random_state=0
    )
    # (with these verdicts the cautious reading is e^5.5 times as likely)
    first = LabelCleaner(model="cb_adaboost", random_state=0).fit(X, y_noisy)
    assert not first.calibration_["predictability"]["low"]
    rows = _least_settled(first, 30)
    labels, known = _reviewed(y_noisy, y, rows)
    assert (labels[rows] != y_noisy[rows]).sum() >= 20
    cleaner = LabelCleaner(model="cb_adaboost", random_state=0).fit(
        X, labels, reviewed=known, labels_before_review=y_noisy
    )
    review = cleaner.calibration_["review_evidence"]
    assert review["reading"] == "measured"
    assert not cleaner.calibration_["predictability"]["low"]
    flagged = (cleaner.decisions_ != "kept") & ~known
    assert flagged.sum() >= 0.5 * (flipped & ~known).sum()
    assert (flagged & flipped).sum() >= 0.8 * flagged.sum()
