"""A fit in Python says when its decisions fail the shipped guardrails."""

import warnings

import numpy as np
import pandas as pd
import pytest

from labelclean.exceptions import GuardrailWarning
from labelclean.pipeline import LabelCleaner
from labelclean.pipeline._fit_guardrails import class_change_counts
from labelclean.report import AuditSummary
from labelclean.validation import validate_output


def _class_inside_another():
    """30 rows of 'b' drawn where 'a' lies: no feature tells them apart."""
    rng = np.random.default_rng(0)
    X = np.vstack(
        [
            rng.normal(0, 1, (200, 3)),
            rng.normal(4, 1, (200, 3)),
            rng.normal(0, 1, (30, 3)),
        ]
    )
    y = np.array(["a"] * 200 + ["c"] * 200 + ["b"] * 30)
    return pd.DataFrame(X, columns=["f0", "f1", "f2"]), y


def _guardrail_warnings(cleaner, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cleaner.fit(X, y)
    return [w for w in caught if issubclass(w.category, GuardrailWarning)]


def test_a_fit_that_takes_most_of_a_class_warns_and_keeps_its_decisions():
    X, y = _class_inside_another()
    # the fixed rule at a loose suspect threshold discards or relabels 'b'
    cleaner = LabelCleaner(suspect_confidence=0.5, random_state=0)
    caught = _guardrail_warnings(cleaner, X, y)
    moved = int((cleaner.decisions_[y == "b"] != "kept").sum())
    assert moved > 15  # more than half of the class: the premise
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith("class_net_change: class(es) 'b' ")
    assert f"({moved} of 30, {moved / 30:.1%}" in message
    assert "exit 7" in message and "'a'" not in message and "'c'" not in message
    assert caught[0].filename == __file__  # points at the caller's fit
    # a warning, not a refusal: the same decisions with warnings silenced
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GuardrailWarning)
        again = LabelCleaner(suspect_confidence=0.5, random_state=0).fit(X, y)
    assert np.array_equal(again.decisions_, cleaner.decisions_)


def test_fit_resample_warns_as_fit_does():
    X, y = _class_inside_another()
    with pytest.warns(GuardrailWarning, match="class_net_change"):
        _, y_kept = LabelCleaner(suspect_confidence=0.5, random_state=0).fit_resample(
            X, y
        )
    assert (np.asarray(y_kept) == "b").sum() < 15


def test_a_fit_within_the_limits_does_not_warn():
    X, y = _class_inside_another()
    # the calibrated decisions cannot tell 'b' from 'a' and keep its labels
    cleaner = LabelCleaner(random_state=0)
    assert _guardrail_warnings(cleaner, X, y) == []
    assert (cleaner.decisions_[y == "b"] == "kept").mean() > 0.5


def test_flags_far_over_the_estimated_noise_warn():
    # two overlapping classes, no label wrong: the fit estimates about no
    # noise, and a strict fixed rule flags the overlap all the same
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (200, 3)), rng.normal(2, 1, (200, 3))])
    y = np.array(["a"] * 200 + ["c"] * 200)
    cleaner = LabelCleaner(suspect_confidence=0.95, model_threshold=0.95,
                           random_state=0)  # fmt: skip
    caught = _guardrail_warnings(cleaner, X, y)
    flagged = int((cleaner.decisions_ != "kept").sum())
    upper = cleaner.calibration_["noise_rate_interval"][1]
    assert flagged / len(y) > 1.5 * upper + 0.01  # the premise
    assert (cleaner.decisions_[y == "a"] != "kept").mean() < 0.5  # no class lost
    assert [str(w.message).split(":")[0] for w in caught] == ["flagged_vs_noise"]
    assert f"{flagged} of {len(y)} rows" in str(caught[0].message)


def test_class_change_counts_counts_discards_and_corrections_out():
    codes = np.array([0, 0, 0, 1, 1, 2])
    decision = np.array(
        ["discarded", "corrected", "kept", "corrected", "kept", "discarded"]
    )
    new_codes = np.array([0, 1, 0, 1, 1, 2])  # row 3 'corrected' to its own class
    counts = class_change_counts(["x", "y", "z"], codes, decision, new_codes)
    assert counts == {
        "x": {"n_observed": 3, "discarded": 1, "corrected_out": 1},
        "y": {"n_observed": 2, "discarded": 0, "corrected_out": 0},
        "z": {"n_observed": 1, "discarded": 1, "corrected_out": 0},
    }


def test_the_fits_counts_and_message_are_the_output_suites():
    X, y = _class_inside_another()
    cleaner = LabelCleaner(suspect_confidence=0.5, random_state=0)
    (caught,) = _guardrail_warnings(cleaner, X, y)
    summary = AuditSummary()
    summary.add(cleaner.audit_)
    codes = np.searchsorted(cleaner.classes_, y)
    cleaned = cleaner.audit_["cleaned_label"].to_numpy(dtype=object)
    new_codes = np.where(  # a discarded row has no cleaned label
        pd.isna(cleaned), codes, np.searchsorted(cleaner.classes_, cleaned.astype(str))
    )
    counts = class_change_counts(
        cleaner.classes_.tolist(), codes, cleaner.decisions_, new_codes
    )
    assert counts == summary.class_counts()
    assert counts["b"]["discarded"] + counts["b"]["corrected_out"] > 15  # premise
    suite = validate_output(
        cleaner.audit_, max_changed_share_per_class=0.5,
        calibration=cleaner.calibration_,
    )  # fmt: skip
    assert str(caught.message).startswith(
        "class_net_change: " + suite.check("class_net_change").message
    )
