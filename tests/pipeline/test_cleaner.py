"""Tests of LabelCleaner, the cleaning pipeline as a Python object."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, make_blobs
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from labelclean.confidence import KNNConfidence
from labelclean.ensemble import CBAdaBoostClassifier, SPLBoostClassifier
from labelclean.noise import flip_labels
from labelclean.pipeline import AUDIT_EVIDENCE_COLUMNS, LabelCleaner
from labelclean.pipeline._decisions import Evidence, decide

FAST = {
    "suspects": SPLBoostClassifier(n_estimators=30, age=2.0),
    "model": CBAdaBoostClassifier(n_estimators=30),
}


def test_decision_rule_exact_small_case():
    # rows: 0 confident & right; 1 both stages trust class 1 strongly;
    # 2 low confidence, model doubtful, no alternative strong enough;
    # 3 low confidence but the model trusts the observed label.
    codes = np.array([0, 0, 0, 0])
    conf = np.array([[0.9, 0.1], [0.1, 0.9], [0.4, 0.6], [0.3, 0.7]])
    model = np.array([[0.8, 0.2], [0.05, 0.95], [0.45, 0.55], [0.9, 0.1]])
    ev = Evidence(codes, conf, model, spl_weight=np.array([1.0, 0.0, 1.0, 0.0]))
    decision, reason, new = decide(
        ev, correct_threshold=0.7, suspect_confidence=0.5, model_threshold=0.5
    )
    assert decision.tolist() == ["kept", "corrected", "discarded", "kept"]
    assert reason.tolist() == ["ok", "trusted_alternative", "low_confidence", "ok"]
    assert new.tolist() == [0, 1, -1, 0]


def test_noise_injection_flags_flipped_rows(global_random_seed):
    X, y = load_breast_cancer(return_X_y=True)
    y_noisy, flipped = flip_labels(y, 0.2, random_state=global_random_seed)
    cleaner = LabelCleaner(**FAST, random_state=global_random_seed).fit(X, y_noisy)
    flagged = cleaner.decisions_ != "kept"
    assert f1_score(flipped, flagged) > 0.8
    corrected = cleaner.decisions_ == "corrected"
    fixed = cleaner.audit_["cleaned_label"].to_numpy()[corrected]
    assert (fixed == y[corrected]).mean() > 0.85


def test_audit_accounts_for_every_row_and_keeps_index():
    X, y = make_blobs(300, centers=3, random_state=0)
    y_noisy, _ = flip_labels(np.array(["a", "b", "c"])[y], 0.15, random_state=0)
    frame = pd.DataFrame(X, columns=["u", "v"], index=np.arange(300) * 7 + 3)
    labels = pd.Series(y_noisy, index=frame.index, name="label", dtype="category")
    cleaner = LabelCleaner(
        suspects=None, model=LogisticRegression(max_iter=500), random_state=0
    ).fit(frame, labels)
    audit = cleaner.audit_
    assert list(audit.columns) == list(AUDIT_EVIDENCE_COLUMNS)
    assert audit.index.equals(frame.index)
    assert set(audit["decision"]) <= {"kept", "corrected", "discarded"}
    assert (
        audit["cleaned_label"].isna().sum() == (audit["decision"] == "discarded").sum()
    )
    moved = audit["decision"] == "corrected"
    assert (
        audit.loc[moved, "cleaned_label"] != audit.loc[moved, "observed_label"]
    ).all()
    for col in ("confidence", "trusted_probability", "model_probability"):
        assert audit[col].between(0, 1).all()


def test_fit_resample_is_a_sampler():
    X, y = make_blobs(200, centers=2, random_state=1)
    y_noisy, _ = flip_labels(y, 0.2, random_state=1)
    frame = pd.DataFrame(X, columns=["a", "b"], index=np.arange(1000, 1200))
    labels = pd.Series(y_noisy, index=frame.index, name="y")
    cleaner = LabelCleaner(**FAST, random_state=0)
    X_c, y_c = cleaner.fit_resample(frame, labels)
    assert X_c.index.equals(frame.index[cleaner.sample_indices_])
    assert y_c.index.equals(X_c.index) and y_c.name == "y"
    assert len(X_c) == (cleaner.decisions_ != "discarded").sum()
    # the cleaned labels are closer to the truth than the noisy ones
    truth = pd.Series(y, index=frame.index).loc[X_c.index]
    assert (y_c == truth).mean() > (labels == pd.Series(y, index=frame.index)).mean()


def test_imblearn_style_pipeline_fit_then_model():
    # The sampler output feeds any classifier.
    X, y = load_breast_cancer(return_X_y=True)
    y_noisy, _ = flip_labels(y, 0.3, random_state=0)
    X_c, y_c = LabelCleaner(**FAST, random_state=0).fit_resample(X, y_noisy)
    model = make_pipeline(StandardScaler(), LogisticRegression())
    clean_acc = model.fit(X_c, y_c).score(X, y)
    noisy_acc = model.fit(X, y_noisy).score(X, y)
    assert clean_acc > noisy_acc


def test_audit_new_rows_is_deterministic_and_flags_flips():
    X, y = make_blobs(1200, centers=2, cluster_std=2.0, random_state=3)
    y_noisy, flipped = flip_labels(y, 0.2, random_state=3)
    cleaner = LabelCleaner(**FAST, random_state=0).fit(X[:800], y_noisy[:800])
    a = cleaner.audit(X[800:], y_noisy[800:])
    b = cleaner.audit(X[800:], y_noisy[800:])
    pd.testing.assert_frame_equal(a, b)
    train_f1 = f1_score(flipped[:800], cleaner.decisions_ != "kept")
    new_f1 = f1_score(flipped[800:], a["decision"] != "kept")
    assert abs(train_f1 - new_f1) < 0.1, (train_f1, new_f1)


def test_bayes_confidence_is_cross_fitted():
    X, y = make_blobs(300, centers=2, random_state=0)
    y_noisy, _ = flip_labels(y, 0.1, random_state=0)
    cleaner = LabelCleaner(
        confidence="bayes", suspects=None, model=LogisticRegression(), random_state=0
    ).fit(X, y_noisy)
    full = cleaner.confidence_estimator_.confidence_
    # cross-fitted scores differ from the in-sample posterior but agree overall
    assert not np.allclose(cleaner.audit_["confidence"], full)
    assert np.corrcoef(cleaner.audit_["confidence"], full)[0, 1] > 0.9


def test_same_seed_same_audit():
    X, y = make_blobs(250, centers=3, random_state=2)
    y_noisy, _ = flip_labels(y, 0.2, random_state=2)
    a = LabelCleaner(**FAST, random_state=5).fit(X, y_noisy).audit_
    b = LabelCleaner(**FAST, random_state=5).fit(X, y_noisy).audit_
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("model", ["cb_adaboost", "rosr"])
def test_threads_do_not_change_the_result(model):
    X, y = make_blobs(300, centers=3, random_state=4)
    y_noisy, _ = flip_labels(y, 0.2, random_state=4)
    params = {"suspects": FAST["suspects"], "model": model, "random_state": 1}
    one = LabelCleaner(**params, n_jobs=1).fit(X, y_noisy)
    two = LabelCleaner(**params, n_jobs=2).fit(X, y_noisy)
    pd.testing.assert_frame_equal(one.audit_, two.audit_)
    np.testing.assert_array_equal(one.evidence_.model_proba, two.evidence_.model_proba)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))


def test_confidence_estimator_instance_is_cloned():
    conf = KNNConfidence(n_neighbors=7)
    X, y = make_blobs(120, centers=2, random_state=0)
    LabelCleaner(confidence=conf, suspects=None, model=LogisticRegression()).fit(X, y)
    assert not hasattr(conf, "confidence_")


@pytest.mark.parametrize("noise", [0.0])
def test_clean_data_is_mostly_kept(noise):
    X, y = load_breast_cancer(return_X_y=True)
    cleaner = LabelCleaner(**FAST, random_state=0).fit(X, y)
    assert (cleaner.decisions_ != "kept").mean() <= 0.03
