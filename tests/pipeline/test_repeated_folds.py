"""Out-of-fold evidence averaged over repeated splits (``cv_repeats``)."""

import numpy as np
import pytest
from sklearn.datasets import load_wine, make_blobs
from sklearn.model_selection import StratifiedKFold

from labelclean.exceptions import DataValidationError
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.pipeline._folds import average_over_folds, repeated_folds


def test_each_split_holds_every_row_out_once():
    codes = np.repeat([0, 1, 2], [30, 12, 7])
    folds = repeated_folds(codes, cv=5, repeats=3, seed=11)
    assert len(folds) == 15
    held_out = np.zeros(codes.shape[0], dtype=int)
    for train, test in folds:
        assert np.intersect1d(train, test).size == 0
        assert np.union1d(train, test).size == codes.shape[0]
        held_out[test] += 1
    assert np.all(held_out == 3)
    # one repeat is the single split LabelCleaner always made
    single = StratifiedKFold(5, shuffle=True, random_state=11).split(codes, codes)
    for (train, test), (train1, test1) in zip(folds[:5], single, strict=True):
        np.testing.assert_array_equal(train, train1)
        np.testing.assert_array_equal(test, test1)
    # the repeats are other splits
    assert not all(
        np.array_equal(a[1], b[1]) for a, b in zip(folds[:5], folds[5:10], strict=True)
    )


def test_a_class_of_one_row_is_trained_on_and_never_held_out():
    codes = np.array([0] * 20 + [1] * 12 + [2])
    folds = repeated_folds(codes, cv=5, repeats=2, seed=0)
    assert len(folds) == 10
    held_out = np.zeros(codes.shape[0], dtype=int)
    for train, test in folds:
        assert 32 in train and 32 not in test
        assert np.intersect1d(train, test).size == 0
        assert np.union1d(train, test).size == codes.shape[0]
        held_out[test] += 1
    assert held_out[32] == 0 and np.all(held_out[:32] == 2)
    # the other rows are split as they are without that row
    alone = repeated_folds(codes[:32], cv=5, repeats=2, seed=0)
    for (train, test), (train0, test0) in zip(folds, alone, strict=True):
        np.testing.assert_array_equal(test, test0)
        np.testing.assert_array_equal(train, np.append(train0, 32))


def test_too_few_rows_of_classes_of_two_rows_leave_no_folds():
    assert repeated_folds(np.array([0, 1, 2, 3]), cv=5, repeats=3, seed=0) is None
    # two rows of one class: two folds, each holding one of them out
    folds = repeated_folds(np.array([0, 1, 2, 2]), cv=5, repeats=1, seed=0)
    assert sorted(test.tolist() for _, test in folds) == [[2], [3]]
    for train, test in folds:
        assert sorted(train.tolist()) == sorted({0, 1, 2, 3} - set(test.tolist()))


def test_the_row_of_a_class_of_one_row_is_scored_by_the_fitted_stage():
    # BayesConfidence is cross-fitted over the folds; the row no fold holds
    # out is scored by the stage fitted on every row, the others out of fold.
    X, y = make_blobs(200, centers=3, cluster_std=2.5, random_state=0)
    X, y = np.vstack([X, [[20.0, 20.0]]]), np.append(y, 3)
    cleaner = LabelCleaner(confidence="bayes", random_state=0).fit(X, y)
    proba = cleaner.evidence_.confidence_proba
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    own = cleaner.confidence_estimator_.predict_proba(X[-1:])
    np.testing.assert_allclose(proba[-1], own[0])
    assert not np.allclose(
        proba[:-1], cleaner.confidence_estimator_.predict_proba(X[:-1])
    )


@pytest.mark.parametrize("small", [2, 3, 4])
def test_a_class_too_small_for_the_folds_is_trained_on_and_never_held_out(small):
    # Two classes fill five folds; a class of two to four rows no longer cuts
    # them to its rows: it is in every training part, and the other rows are
    # split as they are without it.
    codes = np.repeat([0, 1, 2], [30, 12, small])
    folds = repeated_folds(codes, cv=5, repeats=2, seed=3)
    assert len(folds) == 2 * 5
    rows = np.arange(42, 42 + small)
    alone = repeated_folds(codes[:42], cv=5, repeats=2, seed=3)
    for (train, test), (train0, test0) in zip(folds, alone, strict=True):
        assert np.isin(rows, train).all() and not np.isin(rows, test).any()
        np.testing.assert_array_equal(test, test0)
        np.testing.assert_array_equal(train, np.append(train0, rows))


def test_folds_are_capped_by_the_smallest_class_where_one_class_fills_them():
    folds = repeated_folds(np.repeat([0, 1], [40, 3]), cv=5, repeats=2, seed=0)
    assert len(folds) == 2 * 3
    # every row is held out once a split: none is left to the fitted stage
    held_out = np.concatenate([test for _, test in folds[:3]])
    assert np.array_equal(np.sort(held_out), np.arange(43))


def test_the_comparisons_on_a_sample_split_it_by_the_same_rule(monkeypatch):
    # Above their caps (10,000 rows) RoSR-L's penalty, the evidence's model
    # and the final model are compared on a stratified sample with folds of
    # its own; a class too small for the folds is trained on in every one of
    # them too, not held out nor cutting them to its rows.
    import labelclean.pipeline._evidence_choice as evidence_module
    import labelclean.pipeline._model_selection as selection_module

    splits = []
    split = evidence_module.stratified_folds

    def recorded(codes, n_folds, seed):
        folds = split(codes, n_folds, seed)
        splits.append((codes, folds))
        return folds

    for module in (evidence_module, selection_module):
        monkeypatch.setattr(module, "MODEL_SELECTION_MAX_SAMPLES", 150)
        monkeypatch.setattr(module, "stratified_folds", recorded)
    monkeypatch.setattr(evidence_module, "PENALTY_MAX_SAMPLES", 150)
    X, y = make_blobs(400, centers=3, cluster_std=2.0, random_state=3)
    y, _ = flip_labels(y, 0.2, random_state=3)
    X = np.vstack([X, [[9.0, 9.0], [9.5, 9.0], [9.0, 9.5]]])
    y = np.append(y, [3, 3, 3])
    fitted = LabelCleaner(random_state=0).fit(X, y)
    selection = fitted.model_selection_
    assert 148 <= selection["sampled_rows"] <= 155
    assert 148 <= selection["final"]["sampled_rows"] <= 155
    assert len(splits) >= 3  # the penalty, the evidence's model, the final model
    for codes, folds in splits:
        assert len(folds) == 5
        small = np.flatnonzero(codes == 3)
        assert small.size == 3  # a sample keeps every row of a small class
        for train, test in folds:
            assert np.isin(small, train).all() and not np.isin(small, test).any()


def test_rows_are_averaged_over_the_folds_that_scored_them():
    tests = [np.array([0, 1]), np.array([2]), np.array([0, 2]), np.array([1])]
    parts = [
        np.array([[1.0, 0.0], [0.2, 0.8]]),
        np.array([[0.5, 0.5]]),
        np.array([[0.0, 1.0], [0.7, 0.3]]),
        None,  # a fold that could not score its rows
    ]
    out = average_over_folds(tests, parts, (4, 2))
    np.testing.assert_allclose(out[0], [0.5, 0.5])
    np.testing.assert_allclose(out[1], [0.2, 0.8])
    np.testing.assert_allclose(out[2], [0.6, 0.4])
    assert np.isnan(out[3]).all()  # no fold scored it


def _wine_with_flips(seed=0):
    X, y = load_wine(return_X_y=True, as_frame=True)
    y_noisy, _ = flip_labels(y.to_numpy(), 0.2, random_state=seed)
    return X, y_noisy


def test_repeated_splits_steady_the_evidence_across_seeds():
    # The final model's out-of-fold probability of each row's label, as the
    # audit shows it, moves with random_state through the folds (without
    # SPLBoost and with RoSR-L, the folds are all the seed moves); averaged
    # over three splits it moves less (about 1/sqrt(3) as much: 0.055 and
    # 0.032 mean standard deviations over three seeds).
    X, y = _wine_with_flips()

    def spread(repeats):
        runs = [
            LabelCleaner(
                cv_repeats=repeats, suspects=None, model="rosr", random_state=seed
            )
            .fit(X, y)
            .audit_["model_probability"]
            .to_numpy(dtype=float)
            for seed in range(3)
        ]
        return float(np.mean(np.std(runs, axis=0)))

    one, three = spread(1), spread(3)
    assert three < 0.8 * one, (one, three)


def test_one_repeat_is_the_default_and_repeats_change_the_evidence():
    X, y = make_blobs(150, centers=2, cluster_std=3.0, random_state=0)
    default = LabelCleaner(model="rosr", random_state=0).fit(X, y)
    once = LabelCleaner(cv_repeats=1, model="rosr", random_state=0).fit(X, y)
    twice = LabelCleaner(cv_repeats=2, model="rosr", random_state=0).fit(X, y)
    np.testing.assert_array_equal(
        default.evidence_.model_proba, once.evidence_.model_proba
    )
    assert not np.array_equal(once.evidence_.model_proba, twice.evidence_.model_proba)
    assert np.isfinite(twice.evidence_.model_proba).all()


@pytest.mark.parametrize("bad", [0, -1, 1.5, "auto"])
def test_bad_cv_repeats_is_refused_with_its_name(bad):
    X, y = make_blobs(60, centers=2, random_state=0)
    with pytest.raises((ValueError, DataValidationError), match="cv_repeats"):
        LabelCleaner(cv_repeats=bad).fit(X, y)


def test_cross_fitted_confidence_is_averaged_over_the_splits_too():
    # BayesConfidence is cross-fitted over the same folds: with two splits
    # every row's confidence is the mean of two held-out scores, still a
    # distribution over the classes.
    X, y = make_blobs(200, centers=3, cluster_std=2.5, random_state=0)
    once = LabelCleaner(confidence="bayes", random_state=0).fit(X, y)
    twice = LabelCleaner(confidence="bayes", cv_repeats=2, random_state=0).fit(X, y)
    proba = twice.evidence_.confidence_proba
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert not np.allclose(proba, once.evidence_.confidence_proba)


def test_the_rows_of_a_class_too_small_for_the_folds_are_scored_by_the_fitted_stage():
    X, y = make_blobs(200, centers=3, cluster_std=2.5, random_state=0)
    X = np.vstack([X, [[20.0, 20.0], [20.5, 19.5], [19.5, 20.5]]])
    y = np.append(y, [3, 3, 3])
    cleaner = LabelCleaner(confidence="bayes", random_state=0).fit(X, y)
    proba = cleaner.evidence_.confidence_proba
    own = cleaner.confidence_estimator_.predict_proba(X[-3:])
    np.testing.assert_allclose(proba[-3:], own)
    assert not np.allclose(
        proba[:-3], cleaner.confidence_estimator_.predict_proba(X[:-3])
    )
