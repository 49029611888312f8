"""Tests of LabelCleaner, the cleaning pipeline as a Python object."""

import copy
import warnings
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_wine,
    make_blobs,
    make_circles,
    make_classification,
)
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from labelclean.confidence import KNNConfidence
from labelclean.ensemble import (
    BinnedTreeClassifier,
    CBAdaBoostClassifier,
    SPLBoostClassifier,
)
from labelclean.exceptions import DataValidationError
from labelclean.linear_model import RoSRClassifier
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner, dumps_cleaner
from labelclean.pipeline import _decisions as decisions_module
from labelclean.pipeline._comparison import choose_model
from labelclean.pipeline._decisions import Evidence, decide
from labelclean.pipeline._noise_estimate import (
    combine_evidence,
    new_row_joint,
    right_label_probability,
)
from labelclean.report import AUDIT_COLUMNS, render_html

#: Fits of the decisions alone, without the default stack (test_calibration.py).
DECIDE = {"final_model": "cb_adaboost"}

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
    assert list(audit.columns) == ["u", "v", "label", *AUDIT_COLUMNS]
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
    # (At 30 % flips of two classes the features agree with the labels too
    # little for the calibrated rule to flag: see docs/decisions.md.)
    y_noisy, _ = flip_labels(y, 0.2, random_state=0)
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


def test_a_model_fitted_on_threads_gives_the_same_cleaner_and_file():
    # CB-AdaBoost runs its learning rates on the cleaner's threads while
    # it is fitted (evidence folds and final model alike); the model keeps
    # no thread count, so the saved cleaner is the same bytes too.
    X, y = make_classification(1200, n_features=8, n_informative=5, random_state=3)
    y_noisy, _ = flip_labels(y, 0.2, random_state=3)
    model = CBAdaBoostClassifier(
        BinnedTreeClassifier(max_depth=4), early_stopping=True,
        learning_rate=(1.0, 0.3), n_iter_no_change=10,
    )  # fmt: skip
    params = {"suspects": FAST["suspects"], "model": model, "random_state": 2}
    one = LabelCleaner(**params, n_jobs=1).fit(X, y_noisy)
    two = LabelCleaner(**params, n_jobs=2).fit(X, y_noisy)
    assert two.model_.n_jobs is None and model.n_jobs is None
    assert {one.model_.learning_rate_, two.model_.learning_rate_} == {0.3}
    pd.testing.assert_frame_equal(one.audit_, two.audit_)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    assert dumps_cleaner(one) == dumps_cleaner(two)


def test_threads_do_not_change_the_result_on_wide_data():
    # Wide enough for OpenBLAS to split its products over threads: each fold
    # must run its BLAS on one thread whatever n_jobs, or the folds' last bits
    # (and, through the solver, their probabilities) depend on it.
    X, y = make_classification(
        1500, n_features=100, n_informative=50, n_classes=10, random_state=0
    )
    y_noisy, _ = flip_labels(y, 0.2, random_state=0)
    params = {"suspects": FAST["suspects"], "model": "rosr", "random_state": 1}
    # The suite runs with one BLAS thread (conftest); a user's run does not.
    with threadpool_limits(limits=2, user_api="blas"):
        one = LabelCleaner(**params, n_jobs=1).fit(X, y_noisy)
        two = LabelCleaner(**params, n_jobs=2).fit(X, y_noisy)
    np.testing.assert_array_equal(one.evidence_.model_proba, two.evidence_.model_proba)
    pd.testing.assert_frame_equal(one.audit_, two.audit_)


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


# --- the final model of model='auto' --------------------------------------
FAST_SUSPECTS = {"suspects": SPLBoostClassifier(n_estimators=30, age=2.0)}
# The circles' two noise columns weigh nothing in the weighted distance, and
# CB-AdaBoost with trees is then the whole stack; these tests of the final
# model's choice keep the plain distance they were written on.
PLAIN_DISTANCE = {"confidence": KNNConfidence()}


def _linear_data(seed):
    """Two classes split by a hyperplane, 10 % of the labels flipped."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(300, 6))
    y = (X @ np.array([1.0, 1.0, 1.0, 0.5, 0.0, 0.0]) > 0).astype(int)
    return X, flip_labels(y, 0.1, random_state=seed)[0]


def _circles_data(seed, *, with_flips=False):
    """Two concentric circles (no linear boundary) plus two noise features."""
    X, y = make_circles(300, noise=0.08, factor=0.5, random_state=seed)
    X = np.c_[X, np.random.RandomState(seed).normal(size=(300, 2))]
    y_noisy, flipped = flip_labels(y, 0.1, random_state=seed)
    return (X, y_noisy, flipped) if with_flips else (X, y_noisy)


def test_auto_picks_rosr_on_a_linear_boundary(global_random_seed):
    X, y = _linear_data(global_random_seed)
    cleaner = LabelCleaner(**FAST_SUSPECTS, random_state=global_random_seed)
    cleaner.fit(X, y)
    sel = cleaner.model_selection_
    assert sel["chosen"] == "rosr"
    # The final stack is RoSR-L alone, or nearly: on seed 42 the trees take
    # 8 % of it (the rows corrected there, all rightly, move its weights).
    members = sel["final"]["stack"]["members"]
    assert members["rosr"]["weight"] > 0.9
    if cleaner.model_name_ != "stacked":
        assert cleaner.model_name_ == "rosr"
        assert isinstance(cleaner.model_, RoSRClassifier)
    assert list(sel["candidates"]) == ["rosr", "cb_adaboost", "cb_adaboost_trees"]
    rosr = sel["candidates"]["rosr"]
    for name in ("cb_adaboost", "cb_adaboost_trees"):
        other = sel["candidates"][name]
        assert rosr["rows"] == other["rows"] == 300
        assert other["difference"] == pytest.approx(
            rosr["error_rate"] - other["error_rate"]
        )
        assert other["difference"] <= other["standard_error"]


def test_auto_picks_cb_adaboost_on_circles(global_random_seed):
    X, y, flipped = _circles_data(global_random_seed, with_flips=True)
    cleaner = LabelCleaner(
        **FAST_SUSPECTS, **PLAIN_DISTANCE, random_state=global_random_seed
    )
    cleaner.fit(X, y)
    sel = cleaner.model_selection_
    assert sel["chosen"] in ("cb_adaboost", "cb_adaboost_trees")
    assert sel["difference"] > sel["standard_error"] > 0
    # the linear model cannot separate circles: near chance out of fold
    assert sel["candidates"]["rosr"]["error_rate"] > 0.3
    assert sel["candidates"][sel["chosen"]]["error_rate"] < 0.25
    # the final model stacks the boosted models only: RoSR-L weighs under 1 %
    assert cleaner.model_name_ == "stacked"
    assert all(isinstance(m, CBAdaBoostClassifier) for m in cleaner.model_.members)
    # the chosen one has the lowest error of the candidates that beat RoSR-L
    assert sel["candidates"][sel["chosen"]]["error_rate"] == min(
        c["error_rate"] for c in sel["candidates"].values()
    )
    # the decisions rest on the chosen model's evidence, which finds the flips
    # far better than the linear model's would
    linear = LabelCleaner(
        **FAST_SUSPECTS, **PLAIN_DISTANCE, model="rosr", random_state=global_random_seed
    )
    linear.fit(X, y)
    f1_auto = f1_score(flipped, cleaner.decisions_ != "kept")
    assert f1_auto > 0.5
    assert f1_auto > f1_score(flipped, linear.decisions_ != "kept") + 0.1


def test_auto_choice_is_deterministic():
    X, y = _circles_data(1)
    a = LabelCleaner(**FAST_SUSPECTS, random_state=3).fit(X, y)
    b = LabelCleaner(**FAST_SUSPECTS, random_state=3).fit(X, y)
    assert a.model_selection_ == b.model_selection_
    pd.testing.assert_frame_equal(a.audit_, b.audit_)


def test_explicit_models_are_not_compared_and_more_classes_compare_trees():
    X, y = _circles_data(0)
    for model in ("rosr", "cb_adaboost"):
        cleaner = LabelCleaner(**FAST_SUSPECTS, model=model, random_state=0)
        cleaner.fit(X, y)
        assert cleaner.model_name_ == model
        assert list(cleaner.model_selection_["candidates"]) == [model]
        assert "difference" not in cleaner.model_selection_
    given = LabelCleaner(
        **FAST_SUSPECTS, model=LogisticRegression(), random_state=0
    ).fit(X, y)
    assert given.model_name_ == "LogisticRegression"
    X3, y3 = make_blobs(240, centers=3, random_state=0)
    three = LabelCleaner(**FAST_SUSPECTS, random_state=0).fit(X3, y3)
    assert three.model_name_ == "rosr"
    assert list(three.model_selection_["candidates"]) == ["rosr", "cb_adaboost_trees"]


def _xor_data(seed):
    """Two classes by the sign of x0·x1 (no additive boundary), two noise
    columns, 10 % of the labels flipped."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, size=(400, 4))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    return X, flip_labels(y, 0.1, random_state=seed)[0]


@pytest.mark.parametrize(
    "data, kept", [(_xor_data, "cb_adaboost_trees"), (_linear_data, "cb_adaboost")]
)
def test_a_list_of_models_gives_the_evidence_of_the_one_it_keeps(data, kept):
    X, y = data(0)
    pair = ["cb_adaboost", "cb_adaboost_trees"]
    compared = LabelCleaner(**FAST_SUSPECTS, model=pair, random_state=0).fit(X, y)
    sel = compared.model_selection_
    assert list(sel["candidates"]) == pair
    assert sel["chosen"] == kept
    stumps, trees = (sel["candidates"][n]["error_rate"] for n in pair)
    if kept == "cb_adaboost_trees":  # stumps cannot draw x0·x1's sign
        assert stumps > 0.35 > trees
        assert sel["difference"] > sel["standard_error"]
    else:  # on a hyperplane the trees are not clearly better: the first stays
        assert sel["difference"] <= sel["standard_error"]
    # the rows are decided exactly as by the kept kind alone
    alone = LabelCleaner(**FAST_SUSPECTS, model=kept, random_state=0).fit(X, y)
    pd.testing.assert_frame_equal(compared.audit_, alone.audit_)
    assert repr(compared.decision_model_) == repr(alone.decision_model_)


@pytest.mark.parametrize(
    "model", [[], ["cb_adaboost", "cb_adaboost"], ["cb_adaboost", "knn"], ("rosr", 3)]
)
def test_a_list_of_models_names_distinct_model_kinds(model):
    X, y = _linear_data(0)
    with pytest.raises(ValueError, match="distinct names among adaboost_trees, cb_"):
        LabelCleaner(**FAST_SUSPECTS, model=model, random_state=0).fit(X, y)


def test_choose_model_exact_small_case():
    codes = np.array([0, 1, 1, 0, 1])
    # rosr errs on rows 1 and 3, cb_adaboost on row 3 only; row 4 undecided
    rosr = np.array([[0.9, 0.1], [0.6, 0.4], [0.2, 0.8], [0.3, 0.7], [np.nan] * 2])
    cb = np.array([[0.8, 0.2], [0.1, 0.9], [0.4, 0.6], [0.4, 0.6], [0.5, 0.5]])
    name, sel = choose_model({"rosr": rosr, "cb_adaboost": cb}, codes)
    # d = (0, 1, 0, 0): mean 0.25, sd 0.5, se 0.25 -> not more than one se
    assert sel["difference"] == pytest.approx(0.25)
    assert sel["standard_error"] == pytest.approx(0.25)
    assert name == "rosr"
    assert sel["candidates"]["rosr"] == {"error_rate": 0.5, "rows": 4}
    assert sel["candidates"]["cb_adaboost"] == {"error_rate": 0.25, "rows": 4}
    # one more row that only rosr gets wrong tips it over one standard error
    codes = np.append(codes, 0)
    rosr = np.vstack([rosr, [0.2, 0.8]])
    cb = np.vstack([cb, [0.7, 0.3]])
    name, sel = choose_model({"rosr": rosr, "cb_adaboost": cb}, codes)
    assert sel["difference"] == pytest.approx(0.4)
    assert sel["standard_error"] == pytest.approx(np.sqrt(0.3 / 5))
    assert name == "cb_adaboost"
    # a tie with the observed label counts as right; equal errors keep rosr
    tie = np.array([[0.5, 0.5], [0.5, 0.5]])
    name, sel = choose_model({"rosr": tie, "cb_adaboost": tie}, np.array([0, 1]))
    assert name == "rosr" and sel["difference"] == 0.0
    assert sel["candidates"]["rosr"]["error_rate"] == 0.0
    # the order compared is recorded as a list (report.json sorts its keys),
    # its first the candidate kept on a tie
    assert sel["order"] == ["rosr", "cb_adaboost"]
    name, sel = choose_model({"cb_adaboost": tie, "rosr": tie}, np.array([0, 1]))
    assert name == "cb_adaboost" and sel["order"] == ["cb_adaboost", "rosr"]


def test_choose_model_weighs_each_row_error():
    codes = np.array([0, 1, 1, 0, 1, 0])
    rosr = np.eye(2)[[1, 0, 1, 0, 1, 1]]  # wrong on rows 0, 1, 5
    cb = np.eye(2)[[0, 1, 1, 0, 1, 0]]  # right everywhere
    # equal weights give the unweighted comparison exactly
    plain = choose_model({"rosr": rosr, "cb_adaboost": cb}, codes)
    same = choose_model({"rosr": rosr, "cb_adaboost": cb}, codes, np.full(6, 0.3))
    assert same[0] == plain[0] == "cb_adaboost"
    for key in ("difference", "standard_error"):
        assert same[1][key] == pytest.approx(plain[1][key])
    # rosr errs on two rows that weigh 1, cb_adaboost on three that weigh
    # 0.05: unweighted rosr is better, weighted cb_adaboost by far
    codes = np.zeros(6, dtype=int)
    rosr = np.eye(2)[[1, 1, 0, 0, 0, 0]]
    cb = np.eye(2)[[0, 0, 1, 1, 1, 0]]
    w = np.array([1.0, 1.0, 0.05, 0.05, 0.05, 1.0])
    assert choose_model({"rosr": rosr, "cb_adaboost": cb}, codes)[0] == "rosr"
    name, sel = choose_model({"rosr": rosr, "cb_adaboost": cb}, codes, w)
    d = np.array([1.0, 1, -1, -1, -1, 0])
    mean = 1.85 / 3.15
    se = np.sqrt(6 / 5 * np.sum(w**2 * (d - mean) ** 2)) / 3.15  # about 0.29
    assert sel["candidates"]["rosr"]["error_rate"] == pytest.approx(2 / 3.15)
    assert sel["candidates"]["cb_adaboost"]["error_rate"] == pytest.approx(0.15 / 3.15)
    assert sel["difference"] == pytest.approx(mean)
    assert sel["standard_error"] == pytest.approx(se)
    assert name == "cb_adaboost"


def test_final_model_is_chosen_again_on_the_cleaned_rows(partly_linear):
    cleaner, _, _, X_new, y_new = partly_linear
    selection = cleaner.model_selection_
    # the evidence's comparison (soft labels, observed labels) kept RoSR-L;
    # fitted as the final model is, on the cleaned rows, trees are better
    assert selection["chosen"] == "rosr"
    final = selection["final"]
    assert final["one_se_choice"] == "cb_adaboost_trees"
    assert final["difference"] > final["standard_error"] > 0
    # and the stack leans on them: the final model is mostly trees
    assert final["chosen"] == cleaner.model_name_ == "stacked"
    members = final["stack"]["members"]
    assert members["cb_adaboost_trees"]["weight"] > members["rosr"]["weight"]
    assert cleaner.model_.names == list(members)
    n_cleaned = cleaner.sample_indices_.shape[0]
    assert all(c["rows"] == n_cleaned for c in final["candidates"].values())
    # new rows are decided by the evidence's kind, fitted on the same rows
    assert isinstance(cleaner.decision_model_, RoSRClassifier)
    before = copy.copy(cleaner)
    before.model_ = cleaner.decision_model_
    gain = np.mean(cleaner.predict(X_new) == y_new) - np.mean(
        before.predict(X_new) == y_new
    )
    assert gain > 0.02


def test_the_second_choice_changes_no_decision(monkeypatch, partly_linear):
    chosen, X, y, X_new, y_new = partly_linear
    monkeypatch.setattr(
        LabelCleaner,
        "_choose_final",
        lambda self, *a: (self.model_selection_["chosen"], None),
    )
    kept = LabelCleaner(random_state=2).fit(X, y)
    assert chosen.model_name_ != kept.model_name_
    pd.testing.assert_frame_equal(chosen.audit_, kept.audit_)
    pd.testing.assert_frame_equal(
        chosen.audit(X_new[:300], y_new[:300]), kept.audit(X_new[:300], y_new[:300])
    )
    assert kept.decision_model_ is kept.model_


def test_a_class_of_one_cleaned_row_is_left_out_of_the_final_comparison():
    X, y = make_blobs(200, centers=2, random_state=0)
    X, y = np.vstack([X, [[10.0, 10.0]]]), np.append(y, 2)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        cleaner = LabelCleaner(random_state=0).fit(X, y)
    # the other rows are scored out of fold; only the class's own row is not
    assert not [w for w in said if "in-sample" in str(w.message)]
    assert cleaner.decisions_[-1] == "kept"
    # the final comparison is made on the other 200 cleaned rows (once it
    # was not made at all: the folds were capped by the class's one row)
    final = cleaner.model_selection_["final"]
    assert final["chosen"] is not None
    assert {c["rows"] for c in final["candidates"].values()} == {200}


def test_a_class_splboost_empties_is_named_and_its_rows_learned_from():
    X, y = make_classification(
        n_samples=150, n_features=4, n_informative=3, n_redundant=0, n_classes=3,
        n_clusters_per_class=1, random_state=0,
    )  # fmt: skip
    y = np.array(["a", "b", "c"], dtype=object)[y]
    y[0] = "odd"  # one row, inside another class
    with pytest.warns(UserWarning, match="SPLBoost gave zero weight") as said:
        cleaner = LabelCleaner(random_state=0).fit(X, y)
    (text,) = [str(w.message) for w in said if "SPLBoost" in str(w.message)]
    assert "every row of class(es) 'odd' (1 row);" in text
    assert cleaner.audit_["spl_weight"].iloc[0] == 0
    # the models learned from every row: the row no fold holds out is scored
    # by a model that saw its class (one that had not gives it 0)
    assert cleaner.audit_["model_probability"].iloc[0] > 0


def test_report_names_the_final_model():
    X, y = _circles_data(0)
    cleaner = LabelCleaner(**FAST_SUSPECTS, **PLAIN_DISTANCE, random_state=0)
    final = cleaner.fit(X, y).report()["run"]["final_model"]
    # no linear boundary: CB-AdaBoost (stumps and trees, 0.056 and 0.053 out
    # of fold on the cleaned rows) replace RoSR-L (0.50); the report names
    # the stack that was fitted, and its members. Whether the deepest trees
    # join them differs between machines (on one fresh install they did,
    # weight 0.25, where they had not before), so the test leaves it open.
    assert final["name"] == final["selection"]["final"]["chosen"] == "stacked"
    members = final["selection"]["final"]["stack"]["members"]
    assert {"cb_adaboost", "cb_adaboost_trees"} <= set(members)
    assert set(members) <= {"cb_adaboost", "cb_adaboost_trees", "cb_adaboost_deep"}
    assert final["estimator"] == type(cleaner.model_).__name__ == "StackedModel"
    assert final["selection"]["chosen"] == "cb_adaboost"
    html = render_html(cleaner.report())
    weights = [f"({members[k]['weight']:.2f})" for k in members]
    assert "The final model was a weighted average of CB-AdaBoost " in html
    assert all(w in html for w in weights)
    assert cleaner.report(run={"final_model": "mine"})["run"]["final_model"] == "mine"


def test_the_python_report_opens_with_how_sure_the_run_is():
    # cleaner.report() once left out the calibration the CLI's report opens
    # with (the noise estimate, how sure the flags are): its story began
    # with the row counts.
    X, y = _circles_data(0)
    cleaner = LabelCleaner(**FAST_SUSPECTS, random_state=0).fit(X, y)
    report = cleaner.report()
    assert report["run"]["calibration"] == cleaner.calibration_
    html = render_html(report)
    assert "Estimated share of wrong labels" in html
    mine = cleaner.report(run={"calibration": None})
    assert "Estimated share of wrong labels" not in render_html(mine)


# --- SPLBoost evidence for new rows ----------------------------------------
def test_audit_weighs_new_rows_with_the_fitted_splboost(global_random_seed):
    X, y = load_breast_cancer(return_X_y=True)
    y_noisy, flipped = flip_labels(y, 0.2, random_state=global_random_seed)
    train, new_rows = slice(0, 350), slice(350, None)
    # the fixed rule, whose reasons name SPLBoost's zero weights
    cleaner = LabelCleaner(**FAST, suspect_confidence=0.3, random_state=0).fit(
        X[train], y_noisy[train]
    )
    # on the training rows, the weights are those SPLBoost ended with
    again = cleaner.audit(X[train], y_noisy[train])
    np.testing.assert_array_equal(
        again["spl_weight"], cleaner.suspect_estimator_.spl_weights_
    )
    assert again["spl_zero_round"].isna().all()
    new = cleaner.audit(X[new_rows], y_noisy[new_rows])
    assert new["spl_weight"].between(0, 1).all()
    zero = new["spl_weight"].to_numpy() == 0
    # zero weight marks flipped rows about as often, and as well, as in training
    share_train = cleaner.suspect_estimator_.suspects_.mean()
    assert 0.5 * share_train < zero.mean() < 2 * share_train
    assert flipped[new_rows][zero].mean() > 0.6
    assert new["reason"].isin(["spl_zero_weight", "low_confidence_and_spl_zero"]).any()


def test_audit_without_suspect_stage_has_no_weights():
    X, y = make_blobs(200, centers=2, random_state=0)
    cleaner = LabelCleaner(
        suspects=None, model=LogisticRegression(), random_state=0
    ).fit(X, y)
    assert cleaner.audit(X[:20], y[:20])["spl_weight"].isna().all()


def test_model_choice_on_a_sample_of_a_large_input(monkeypatch):
    import labelclean.pipeline._evidence_choice as evidence_module
    import labelclean.pipeline._model_selection as cleaner_module

    monkeypatch.setattr(evidence_module, "MODEL_SELECTION_MAX_SAMPLES", 120)
    monkeypatch.setattr(cleaner_module, "MODEL_SELECTION_MAX_SAMPLES", 120)
    X, y = make_blobs(400, centers=2, cluster_std=2.0, random_state=3)
    y_noisy, _ = flip_labels(y, 0.2, random_state=3)
    params = {"suspects": FAST["suspects"], "random_state": 0}
    fitted = LabelCleaner(**params).fit(X, y_noisy)
    selection = fitted.model_selection_
    assert 118 <= selection["sampled_rows"] <= 122
    assert selection["chosen"] in ("rosr", "cb_adaboost")
    for candidate in selection["candidates"].values():
        assert candidate["rows"] == selection["sampled_rows"]
    # the final model's comparison, on a sample of the cleaned rows
    final = selection["final"]
    assert final["chosen"] == fitted.model_name_
    assert 118 <= final["sampled_rows"] <= 122
    assert final["sampled_rows"] < fitted.sample_indices_.shape[0]
    for candidate in final["candidates"].values():
        assert candidate["rows"] == final["sampled_rows"]
    # the chosen model's evidence is still out of fold for every row
    assert not np.isnan(fitted.evidence_.model_proba).any()
    threaded = LabelCleaner(**params, n_jobs=2).fit(X, y_noisy)
    pd.testing.assert_frame_equal(fitted.audit_, threaded.audit_)
    assert fitted.model_selection_ == threaded.model_selection_
    np.testing.assert_array_equal(fitted.predict_proba(X), threaded.predict_proba(X))


_SOFT_LABEL_LEAK = pytest.mark.xfail(
    strict=True,
    reason="known: CB-AdaBoost's out-of-fold models are fitted on the soft "
    "labels of the whole fit (its label confidences), which carry the "
    "held-out rows' labels through their neighbours (docs/decisions.md, "
    "Out-of-fold evidence sees its fold's labels); fitting them on "
    "KNNConfidence.soft_labels_without passed this test but moved the "
    "decisions on public tables the wrong way, so it is not shipped",
)


@pytest.mark.parametrize(
    ("model", "bound"),
    [
        # Fitted on the other folds' observed labels: 0.496 over the four
        # seeds; on the neighbours' soft labels of the whole fit, 0.531.
        ("rosr", 0.52),
        # Soft labels hold their neighbours' labels: 0.62 (four seeds);
        # without the fold's labels, 0.525.
        pytest.param("cb_adaboost_trees", 0.56, marks=_SOFT_LABEL_LEAK),
    ],
)
def test_out_of_fold_evidence_does_not_see_the_fold_labels(model, bound):
    # Labels independent of the features: evidence that never saw a row's
    # label predicts it at chance.
    hits = []
    for seed in range(4):
        rng = np.random.default_rng(seed)
        X, y = rng.normal(size=(600, 3)), rng.integers(0, 2, 600)
        cleaner = LabelCleaner(
            confidence=KNNConfidence(noise_filter=None),
            suspects=None,
            model=model,
            random_state=seed,
        ).fit(X, y)
        evidence = cleaner.evidence_
        hits.append(evidence.model_proba.argmax(axis=1) == evidence.codes)
    assert np.mean(hits) < bound


def test_model_choice_compares_candidates_that_never_saw_the_fold_labels():
    # Labels independent of the features: no candidate can beat chance out
    # of fold. Fitted on the neighbours' soft labels of the whole fit, which
    # hold the held-out rows' labels, depth-3 trees scored an error of 0.36
    # to 0.41 and were chosen on all four seeds; compared on soft labels
    # without the fold's labels, every candidate is near 0.5.
    errors = defaultdict(list)
    for seed in range(4):
        rng = np.random.default_rng(seed)
        X, y = rng.normal(size=(600, 3)), rng.integers(0, 2, 600)
        cleaner = LabelCleaner(
            confidence=KNNConfidence(noise_filter=None), suspects=None,
            random_state=seed, **DECIDE,
        ).fit(X, y)  # fmt: skip
        for name, candidate in cleaner.model_selection_["candidates"].items():
            errors[name].append(candidate["error_rate"])
        # the evidence is the chosen model's, evaluated out of fold again
        assert not np.isnan(cleaner.evidence_.model_proba).any()
    assert set(errors) == {"rosr", "cb_adaboost", "cb_adaboost_trees"}
    for name, rates in errors.items():
        assert np.mean(rates) >= 0.45, name


# --- the final model's row weights ------------------------------------------
class _WeightRecorder(LogisticRegression):
    """A final model that keeps the row weights it was fitted with."""

    def fit(self, X, y, sample_weight=None):
        self.seen_weight_ = None if sample_weight is None else np.array(sample_weight)
        return super().fit(X, y, sample_weight=sample_weight)


def _right_label_weights(cleaner):
    """Each cleaned row's probability that its label is right, from the fit."""
    ev = cleaner.evidence_
    codes = ev.codes.copy()
    kept = cleaner.sample_indices_
    codes[kept] = np.searchsorted(cleaner.classes_, cleaner.cleaned_labels_)
    P = combine_evidence(ev.confidence_proba, ev.model_proba)
    share = cleaner.calibration_["anchor_disagreement"]["share"]
    return right_label_probability(P, ev.codes, codes, share)[kept]


@pytest.fixture(scope="module")
def overlapping_flips():
    # Classes that overlap: the flags, held to what the evidence can tell
    # apart, leave many of the flipped labels in the cleaned rows.
    X, y = make_classification(
        600, n_features=5, n_informative=3, n_redundant=0, class_sep=0.7,
        random_state=0,
    )  # fmt: skip
    y_noisy, flipped = flip_labels(y, 0.2, random_state=0)
    return X, y_noisy, flipped


def test_the_final_model_weighs_each_cleaned_row_by_how_sure_its_label_is(
    overlapping_flips,
):
    X, y_noisy, flipped = overlapping_flips
    fits = {
        fit: LabelCleaner(
            **FAST_SUSPECTS, model=_WeightRecorder(), final_fit=fit, random_state=0
        ).fit(X, y_noisy)
        for fit in ("weighted", "cleaned", "soft")
    }
    weighted, plain, soft = fits["weighted"], fits["cleaned"], fits["soft"]
    spl_kept = int((soft.evidence_.spl_weight > 0).sum())
    assert soft.final_fit_ == {"rows": "soft", "n_rows": spl_kept, "weighted": False}
    assert soft.model_.seen_weight_ is None
    # one given model: it decides new rows too, whatever it was fitted on
    for fitted in fits.values():
        assert fitted.decision_model_ is fitted.model_
        assert "final" not in fitted.model_selection_
    # The same decisions: only the final model's row weights differ.
    pd.testing.assert_frame_equal(weighted.audit_, plain.audit_)
    assert plain.model_.seen_weight_ is None
    assert plain.final_fit_ == {"rows": "cleaned", "n_rows": 600 - int(
        (plain.decisions_ == "discarded").sum()), "weighted": False}  # fmt: skip
    seen = weighted.model_.seen_weight_
    kept = weighted.sample_indices_
    assert seen.shape == kept.shape
    np.testing.assert_allclose(seen, np.maximum(_right_label_weights(weighted), 1e-3))
    # The weights point at the wrong labels the flags left in the cleaned rows.
    left = flipped[kept]
    assert left.sum() >= 40
    gap = seen[~left].mean() - seen[left].mean()
    se = np.sqrt(seen[left].var() / left.sum() + seen[~left].var() / (~left).sum())
    assert gap > 3 * se  # uninformative weights: a gap within the noise
    info = weighted.final_fit_
    assert info["weighted"] and info["n_rows"] == kept.shape[0]
    assert info["mean_weight"] == pytest.approx(seen.mean())
    assert info["rows_under_half"] == int((seen < 0.5).sum()) > 0
    assert not np.allclose(weighted.predict_proba(X), plain.predict_proba(X))


def test_reviewed_rows_and_the_callers_weights_in_the_final_model(overlapping_flips):
    X, y_noisy, _ = overlapping_flips
    reviewed = np.zeros(y_noisy.shape[0], dtype=bool)
    reviewed[::10] = True
    heavy = np.where(np.arange(y_noisy.shape[0]) % 3 == 0, 4.0, 1.0)
    cleaner = LabelCleaner(
        **FAST_SUSPECTS, model=_WeightRecorder(), random_state=0
    ).fit(X, y_noisy, sample_weight=heavy, reviewed=reviewed)
    kept = cleaner.sample_indices_
    right = np.maximum(_right_label_weights(cleaner), 1e-3)
    right[reviewed[kept]] = 1.0  # a person confirmed those labels
    np.testing.assert_allclose(cleaner.model_.seen_weight_, right * heavy[kept])
    assert (
        cleaner.model_.seen_weight_[reviewed[kept]] == heavy[kept][reviewed[kept]]
    ).all()


# --- new rows: the joint's empty cells ---------------------------------------
def test_new_row_joint_spreads_one_pseudo_flip_per_open_cell():
    # Q[observed, true] of 100 rows: true class 0 has 4 counted flips, all
    # into class 1; class 2 has none; the pair (0, 2) is not told apart.
    Q = np.array([[30.0, 1.0, 0.0], [4.0, 29.0, 0.0], [0.0, 0.0, 36.0]]) / 100
    gate = np.array([[True, True, False], [True, True, True], [False, True, True]])
    out = new_row_joint(Q, 100, gate)
    np.testing.assert_allclose(out.sum(axis=0), Q.sum(axis=0))  # noise rates kept
    np.testing.assert_allclose(np.diag(out), np.diag(Q))
    # class 0: one open cell (observed 1), so its 4 flips stay there
    assert out[1, 0] == pytest.approx(0.04) and out[2, 0] == 0.0
    # class 1: 1 flip over two open cells -> 2 / (1 + 2) of it spread evenly
    assert out[0, 1] == pytest.approx(0.01 * (1 / 3) + 0.01 * (2 / 3) / 2)
    assert out[2, 1] == pytest.approx(0.01 * (2 / 3) / 2)
    np.testing.assert_allclose(out[:, 2], Q[:, 2])  # no flips: unchanged
    # without a gate every off-diagonal cell is open
    assert new_row_joint(Q, 100)[2, 0] > 0
    # a cell the fit left out (flags against the surest rows) stays empty:
    # class 1's flip then stays in its one open cell
    closed = np.zeros((3, 3), dtype=bool)
    closed[2, 1] = True
    out = new_row_joint(Q, 100, gate, closed)
    assert out[2, 1] == 0.0 and out[0, 1] == pytest.approx(0.01)
    np.testing.assert_allclose(out.sum(axis=0), Q.sum(axis=0))


def test_new_rows_are_judged_like_the_training_rows(monkeypatch):
    # Ten classes, 10 % flips: the joint's cells are the training rows' own
    # flips, and many of its 90 cells are empty. A new batch flipped the
    # same way must have its flips found about as well as the training rows.
    X, y = load_digits(return_X_y=True)
    X_tr, X_new, y_tr, y_new = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=0
    )
    y_tr, flip_tr = flip_labels(y_tr, 0.1, random_state=0)
    y_new, flip_new = flip_labels(y_new, 0.1, random_state=1)
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X_tr, y_tr)
    counts = cleaner.noise_joint_ * y_tr.shape[0]
    assert (counts[~np.eye(10, dtype=bool)] < 0.5).sum() >= 20
    run = f1_score(flip_tr, cleaner.decisions_ != "kept")
    applied = f1_score(flip_new, cleaner.audit(X_new, y_new)["decision"] != "kept")
    assert applied >= run - 0.03
    # The fit's own decisions are untouched; judged on the fit's joint as it
    # is, the new batch's flips in the empty cells are missed.
    monkeypatch.setattr(
        decisions_module, "new_row_joint", lambda Q, n, gate, closed=None: Q
    )
    missed = f1_score(flip_new, cleaner.audit(X_new, y_new)["decision"] != "kept")
    assert missed < run - 0.05


def test_the_audits_neighbour_evidence_does_not_depend_on_row_order():
    # Whole blocks of identical rows with both labels (coded answers): the
    # neighbour evidence a user reads in the audit must be the same for every
    # row in any order of the rows (it followed the order before).
    rng = np.random.RandomState(0)
    points = rng.randint(0, 4, size=(40, 3)).astype(float)
    X = pd.DataFrame(np.repeat(points, 6, axis=0), columns=["q1", "q2", "q3"])
    y = np.where(rng.rand(X.shape[0]) < 0.3 + 0.1 * X["q1"], "yes", "no")
    perm = rng.permutation(X.shape[0])
    first = LabelCleaner(**DECIDE, random_state=0).fit(X, y).audit_
    again = LabelCleaner(**DECIDE, random_state=0).fit(X.iloc[perm], y[perm]).audit_
    again = again.set_axis(perm).sort_index()
    np.testing.assert_allclose(first["confidence"], again["confidence"], atol=1e-12)
    assert first["neighbor_label_counts"].tolist() == (
        again["neighbor_label_counts"].tolist()
    )
    assert any("." in s for s in first["neighbor_label_counts"])  # shares


class _RecordingConfidence(KNNConfidence):
    fitted = 0

    def fit(self, X, y):
        type(self).fitted += 1
        return super().fit(X, y)


@pytest.mark.parametrize("bad", [{"cv": 1}, {"cv_repeats": 0}, {"final_fit": "x"}])
def test_bad_parameters_are_refused_before_any_stage_runs(bad):
    X, y = make_blobs(80, centers=2, random_state=0)
    _RecordingConfidence.fitted = 0
    cleaner = LabelCleaner(confidence=_RecordingConfidence(), **bad)
    with pytest.raises(ValueError, match=next(iter(bad))):
        cleaner.fit(X, y)
    assert _RecordingConfidence.fitted == 0


def test_a_fold_the_model_cannot_learn_leaves_its_rows_undecided():
    # Nine rows of wine, three a class: the training part of a fold (six or
    # seven rows) gave CB-AdaBoost no split better than chance, and that one
    # fold's error stopped the whole fit.
    X, y = load_wine(return_X_y=True, as_frame=True)
    rows = [25, 30, 31, 84, 85, 105, 138, 159, 150]
    cleaner = LabelCleaner(random_state=0).fit(X.iloc[rows], y.iloc[rows])
    assert len(cleaner.audit_) == 9
    assert (cleaner.decisions_ == "kept").all()
    assert np.mean(cleaner.predict(X) == y) > 0.8


def test_an_array_after_a_frame_fit_is_refused_with_the_fitted_columns():
    X, y = make_blobs(120, centers=2, random_state=0)
    frame = pd.DataFrame(X, columns=["width", "height"])
    cleaner = LabelCleaner(cv=3, random_state=0).fit(frame, y)
    message = r"fitted on a DataFrame with columns 'width', 'height'; pass a DataFrame"
    with pytest.raises(DataValidationError, match=message):
        cleaner.audit(X[:10], y[:10])
    with pytest.raises(DataValidationError, match=message):
        cleaner.predict(X[:10])
    # a fit on an array takes arrays, as before
    assert LabelCleaner(cv=3, random_state=0).fit(X, y).predict(X[:3]).shape == (3,)
