"""The evidence's RoSR-L penalty: its default unless a weaker one of the
paper's grid fits the observed labels clearly better out of fold.

At the default μ = 1e-3 RoSR-L cannot reach the coefficients that many
classes along one column need; the evidence then fits the labels badly, the
candidates' comparison hands it to CB-AdaBoost's trees, whose probabilities
saturate, and right labels where neighbouring classes meet are "corrected".
"""

from html import unescape

import numpy as np
import pandas as pd
import pytest

import labelclean.pipeline._evidence_choice as choice_module
from labelclean.linear_model import RoSRClassifier
from labelclean.pipeline import LabelCleaner, dumps_cleaner, loads_cleaner
from labelclean.report import render_html

DEFAULT_MU = RoSRClassifier().mu


def _classes_on_a_line(n_rows=800, n_classes=8, separation=3.0, seed=0):
    """Classes whose means lie ``separation`` standard deviations apart on one
    column, and a column of noise; no label is wrong, but 6.7 % of a class
    lies past each midpoint to a neighbour's mean (three deviations), rightly."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_classes, n_rows)
    columns = rng.normal(size=(2, n_rows)) + np.outer([separation, 0.0], codes)
    labels = np.char.add("c", codes.astype(str))
    return pd.DataFrame({"signal": columns[0], "noise": columns[1]}), labels


@pytest.fixture(scope="module")
def line_fits():
    X, y = _classes_on_a_line()
    chosen = LabelCleaner(random_state=0).fit(X, y)
    with pytest.MonkeyPatch.context() as patch:  # the evidence at its default
        patch.setattr(choice_module, "FINAL_PENALTIES", ())
        pinned = LabelCleaner(random_state=0).fit(X, y)
    return X, y, chosen, pinned


def test_a_weaker_penalty_is_chosen_where_the_default_underfits(line_fits):
    _, _, chosen, _ = line_fits
    record = chosen.model_selection_["evidence_penalty"]
    errors = {float(k): c["error_rate"] for k, c in record["candidates"].items()}
    assert record["default"] == DEFAULT_MU
    assert next(iter(errors)) == DEFAULT_MU  # compared first: kept unless beaten
    # the weaker side of the paper's grid (rosr.md §5.1) only
    assert set(errors) == {1e-3, 3e-4, 1e-4, 3e-5, 1e-5}
    assert record["chosen"] < DEFAULT_MU and record["scale"] == 1.0
    assert errors[record["chosen"]] < errors[DEFAULT_MU] - 0.05
    # the evidence, and the model that decides new rows, at that penalty
    assert chosen.model_selection_["chosen"] == "rosr"
    assert chosen.decision_model_.mu == record["chosen"]


def test_right_labels_where_classes_meet_are_not_corrected(line_fits):
    _, y, chosen, pinned = line_fits
    # at the default the trees gave the evidence and relabelled right labels
    assert pinned.model_selection_["chosen"] == "cb_adaboost_trees"
    assert (pinned.decisions_ == "corrected").sum() >= 20
    assert (chosen.decisions_ == "corrected").sum() == 0
    assert (chosen.decisions_ != "kept").mean() <= 0.03
    flagged = pd.Series(chosen.decisions_ != "kept").groupby(y).mean()
    assert flagged.max() <= 0.05


def test_the_report_says_the_evidence_penalty_moved(line_fits):
    _, _, chosen, pinned = line_fits
    record = chosen.model_selection_["evidence_penalty"]
    html = unescape(render_html(chosen.report()))
    mu = f"\N{GREEK SMALL LETTER MU} = {record['chosen']:.2g}"
    assert f"the evidence's RoSR-L was fitted at the penalty {mu}, not its" in html
    # the final fit's penalty search starts from the evidence's, and says so
    assert chosen.model_selection_["final_penalty"]["default"] == record["chosen"]
    assert "decided with RoSR-L at the evidence's penalty" in html
    assert "at the default penalty" not in html
    assert "evidence_penalty" not in pinned.model_selection_ or (
        pinned.model_selection_["evidence_penalty"]["chosen"] == DEFAULT_MU
    )
    pinned_html = unescape(render_html(pinned.report()))
    assert "the evidence's RoSR-L was fitted at" not in pinned_html


def test_the_evidence_penalty_survives_the_model_file(line_fits):
    chosen = line_fits[2]
    # the comparison's out-of-fold probabilities served the evidence and are
    # not carried into the model file
    assert getattr(chosen, "_penalty_oof", None) is None
    loaded, _ = loads_cleaner(dumps_cleaner(chosen))
    assert loaded.decision_model_.mu == chosen.decision_model_.mu < DEFAULT_MU
    X_new, y_new = _classes_on_a_line(200, seed=1)
    expected = chosen.audit(X_new, y_new)
    pd.testing.assert_frame_equal(loaded.audit(X_new, y_new), expected)


def test_a_gain_of_a_few_rows_keeps_the_default():
    # two classes two deviations apart: every penalty draws the same line,
    # and a weaker one errs on a row or two fewer, within one paired standard
    # error of none but far within the error rate's own uncertainty
    X, y = _classes_on_a_line(2000, n_classes=2, separation=2.0)
    cleaner = LabelCleaner(random_state=0).fit(X, y)
    record = cleaner.model_selection_["evidence_penalty"]
    assert record["chosen"] == DEFAULT_MU
    base = record["candidates"][repr(DEFAULT_MU)]["error_rate"]
    weaker = [c for k, c in record["candidates"].items() if k != repr(DEFAULT_MU)]
    gains = [c["difference"] for c in weaker]
    assert 0 < max(gains) < np.sqrt(base * (1 - base) / len(y))
    assert cleaner.decision_model_.mu == DEFAULT_MU


def test_a_configured_rosr_keeps_its_penalty(line_fits):
    X, y, _, _ = line_fits
    fixed = LabelCleaner(model=RoSRClassifier(), random_state=0).fit(X, y)
    assert "evidence_penalty" not in fixed.model_selection_
    assert fixed.decision_model_.mu == DEFAULT_MU


def test_the_same_penalty_and_decisions_on_two_threads(line_fits):
    X, y, chosen, _ = line_fits
    threaded = LabelCleaner(random_state=0, n_jobs=2).fit(X, y)
    assert (
        threaded.model_selection_["evidence_penalty"]
        == (chosen.model_selection_["evidence_penalty"])
    )
    pd.testing.assert_frame_equal(threaded.audit_, chosen.audit_)


def test_above_the_cap_the_penalty_is_compared_on_a_sample_and_scaled(monkeypatch):
    monkeypatch.setattr(choice_module, "PENALTY_MAX_SAMPLES", 400)  # of 800
    X, y = _classes_on_a_line()
    cleaner = LabelCleaner(model="rosr", random_state=0).fit(X, y)
    record = cleaner.model_selection_["evidence_penalty"]
    rows = {c["rows"] for c in record["candidates"].values()}
    assert len(rows) == 1 and 395 <= rows.pop() <= 405
    # the same prior on the coefficients: mu times the sample's share
    assert record["compared"] < DEFAULT_MU
    assert record["scale"] == pytest.approx(400 / 800, abs=0.01)
    assert record["chosen"] == pytest.approx(record["compared"] * record["scale"])
    assert cleaner.decision_model_.mu == record["chosen"]
