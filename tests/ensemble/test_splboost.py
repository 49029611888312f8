"""SPLBoost: AdaBoost in the limit, Theorem 1, regularizers, suspects."""

import re
from typing import ClassVar

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from labelclean.ensemble import BinnedTreeClassifier, SPLBoostClassifier
from labelclean.noise import flip_labels

REGULARIZERS = ("hard", "linear", "polynomial", "mixture", "mixture_log")


def gaussian_data(n_per_class, seed):
    """The 2-D Gaussian data of splboost.md §IV-A."""
    rng = np.random.RandomState(seed)
    a = rng.multivariate_normal([2, -2], [[2.5, 1.5], [1.5, 5]], n_per_class)
    b = rng.multivariate_normal([-2, 2], [[2.3, -0.7], [-0.7, 2.3]], n_per_class)
    return np.r_[a, b], np.repeat([0, 1], n_per_class)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("n_warmup_rounds", [0, 3])
def test_infinite_age_is_adaboost(global_random_seed, n_classes, n_warmup_rounds):
    X, y = make_classification(
        n_samples=300,
        n_classes=n_classes,
        n_informative=4,
        flip_y=0.1,
        random_state=global_random_seed,
    )
    stump = DecisionTreeClassifier(max_depth=1)
    reference = AdaBoostClassifier(
        stump, n_estimators=25, random_state=global_random_seed
    )
    reference.fit(X, y)
    for age in (np.inf, 1e300):
        spl = SPLBoostClassifier(
            stump,
            n_estimators=25,
            age=age,
            n_warmup_rounds=n_warmup_rounds,
            random_state=global_random_seed,
        ).fit(X, y)
        np.testing.assert_allclose(
            spl.estimator_weights_, reference.estimator_weights_, rtol=1e-10
        )
        X_test = np.random.RandomState(0).normal(size=(500, X.shape[1]))
        np.testing.assert_array_equal(spl.predict(X_test), reference.predict(X_test))
        assert not spl.suspects_.any()


@pytest.mark.parametrize("regularizer", REGULARIZERS)
@pytest.mark.parametrize("n_inner_iter", [1, 3])
def test_latent_objective_does_not_increase(
    global_random_seed, regularizer, n_inner_iter
):
    X, y = gaussian_data(100, global_random_seed)
    y, _ = flip_labels(y, 0.2, random_state=global_random_seed)
    clf = SPLBoostClassifier(
        n_estimators=60,
        age=4.0,
        regularizer=regularizer,
        n_inner_iter=n_inner_iter,
        random_state=global_random_seed,
    ).fit(X, y)
    steps = np.diff(clf.objective_[clf.n_warmup_rounds - 1 :])
    assert steps.shape[0] > 10
    assert steps.max() <= 1e-12 * clf.objective_.max()


class _RecordingStump(ClassifierMixin, BaseEstimator):
    """A stump that records the rows and weights it was fit on."""

    log: ClassVar[list] = []

    def fit(self, X, y, sample_weight=None):
        self.log.append((X.shape[0], sample_weight.copy()))
        self.tree_ = DecisionTreeClassifier(max_depth=1).fit(
            X, y, sample_weight=sample_weight
        )
        self.classes_ = self.tree_.classes_
        return self

    def predict(self, X):
        return self.tree_.predict(X)


def test_zero_weight_rows_take_no_part_in_fitting(global_random_seed):
    X, y = gaussian_data(80, global_random_seed)
    y, _ = flip_labels(y, 0.2, random_state=global_random_seed)
    _RecordingStump.log = []
    clf = SPLBoostClassifier(
        _RecordingStump(), n_estimators=30, age=1.5, random_state=global_random_seed
    ).fit(X, y)
    assert clf.suspects_.any()
    sizes = [size for size, _ in _RecordingStump.log]
    assert min(sizes) < X.shape[0]  # zero-weight rows were left out
    for _, weight in _RecordingStump.log:
        assert weight.min() > 0
        assert weight.sum() == pytest.approx(1.0)
    # The last round was fit on exactly the rows whose v was positive then.
    clf_short = SPLBoostClassifier(
        DecisionTreeClassifier(max_depth=1),
        n_estimators=29,
        age=1.5,
        random_state=global_random_seed,
    ).fit(X, y)
    assert sizes[-1] == int((clf_short.spl_weights_ > 0).sum())


def test_suspects_find_flipped_labels(global_random_seed):
    X, y = gaussian_data(100, global_random_seed)
    y_noisy, flipped = flip_labels(y, 0.15, random_state=global_random_seed)
    clf = SPLBoostClassifier(n_estimators=100, age=2.0, random_state=global_random_seed)
    clf.fit(X, y_noisy)
    suspects = clf.suspects_
    precision = (suspects & flipped).sum() / suspects.sum()
    recall = (suspects & flipped).sum() / flipped.sum()
    assert precision >= 0.6  # 4x the base rate of 0.15
    assert recall >= 0.5
    np.testing.assert_array_equal(suspects, clf.spl_weights_ == 0)
    rounds = clf.zero_weight_round_
    assert (rounds[~suspects] == -1).all()
    assert (rounds[suspects] >= clf.n_warmup_rounds - 1).all()
    assert (rounds[suspects] < len(clf.estimators_)).all()


def test_age_is_chosen_on_the_grid(global_random_seed):
    X, y = gaussian_data(60, global_random_seed)
    y, _ = flip_labels(y, 0.2, random_state=global_random_seed)
    clf = SPLBoostClassifier(
        n_estimators=30, age_grid=[1.5, 3.0, 1e6], cv=3, random_state=global_random_seed
    ).fit(X, y)
    assert clf.age_ in (1.5, 3.0, 1e6)
    results = clf.cv_results_
    assert results["mean_error"].shape == (3,)
    assert (
        results["mean_error"][list(results["age"]).index(clf.age_)]
        == results["mean_error"].min()
    )
    again = SPLBoostClassifier(
        n_estimators=30, age_grid=[1.5, 3.0, 1e6], cv=3, random_state=global_random_seed
    ).fit(X, y)
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))


@pytest.mark.parametrize("n_small", [1, 3])
def test_a_class_too_small_for_the_folds_leaves_the_age_search_its_folds(
    global_random_seed, n_small
):
    # A stray class of one row once left no search (the middle age), one of
    # three rows cut the folds to three. Now its rows are trained on in every
    # fold and held out by none, and the other rows get the folds asked for.
    X, y = make_classification(
        300, n_features=8, n_informative=4, random_state=global_random_seed
    )
    y, _ = flip_labels(y, 0.2, random_state=global_random_seed)
    y[:n_small] = 2
    clf = SPLBoostClassifier(
        n_estimators=20, age_grid=[1.5, 3.0, 1e6], cv=5,
        random_state=global_random_seed,
    ).fit(X, y)  # fmt: skip
    results = clf.cv_results_
    assert results is not None
    assert results["n_splits"] == 5
    assert results["n_samples"] == 300
    chosen = list(results["age"]).index(clf.age_)
    assert results["mean_error"][chosen] == results["mean_error"].min()


def test_age_search_on_threads_gives_the_same_fit(global_random_seed):
    # Every (age, fold) fit of the search is independent and seeded by its
    # fold, so threads change only the time: the same errors per age and
    # fold, the same age, the same weights.
    X, y = make_classification(
        600, n_features=8, n_informative=4, n_classes=3, random_state=global_random_seed
    )
    y, _ = flip_labels(y, 0.2, random_state=global_random_seed)
    fits = [
        SPLBoostClassifier(
            n_estimators=25, age_grid=[1.0, 2.0, 4.0, 1e6], cv=3, n_jobs=n_jobs,
            random_state=global_random_seed,
        ).fit(X, y)
        for n_jobs in (None, 2, -1)
    ]  # fmt: skip
    first = fits[0]
    for other in fits[1:]:
        np.testing.assert_array_equal(
            other.cv_results_["mean_error"], first.cv_results_["mean_error"]
        )
        np.testing.assert_array_equal(
            other.cv_results_["std_error"], first.cv_results_["std_error"]
        )
        assert other.age_ == first.age_
        np.testing.assert_array_equal(other.spl_weights_, first.spl_weights_)
    # the errors differ between ages: the grid is not a constant
    assert np.ptp(first.cv_results_["mean_error"]) > 0


def test_three_classes_and_staged_outputs(global_random_seed):
    X, y = make_classification(
        n_samples=400, n_classes=3, n_informative=4, random_state=global_random_seed
    )
    y_noisy, flipped = flip_labels(y, 0.2, random_state=global_random_seed)
    clf = SPLBoostClassifier(
        BinnedTreeClassifier(max_depth=2),
        n_estimators=40,
        age=2.0,
        random_state=global_random_seed,
    ).fit(X, y_noisy)
    # Precision at least twice the base rate of 0.2.
    assert (clf.suspects_ & flipped).sum() >= 0.4 * clf.suspects_.sum()
    staged = list(clf.staged_predict(X))
    assert len(staged) == len(clf.estimators_)
    np.testing.assert_array_equal(staged[-1], clf.predict(X))
    decision = list(clf.staged_decision_function(X))[-1]
    np.testing.assert_allclose(decision, clf.decision_function(X))
    np.testing.assert_allclose(decision.sum(axis=1), 0, atol=1e-9)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))


def test_binary_probability_is_the_exponential_loss_minimiser(global_random_seed):
    X, y = make_classification(n_samples=200, random_state=global_random_seed)
    clf = SPLBoostClassifier(n_estimators=20, age=3.0, random_state=0).fit(X, y)
    decision = clf.decision_function(X)
    np.testing.assert_allclose(
        clf.predict_proba(X)[:, 1], 1 / (1 + np.exp(-2 * decision))
    )
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X)), clf.predict_proba(X))


def test_clear_errors():
    X, y = make_classification(n_samples=60, random_state=0)
    with pytest.raises(ValueError, match="positive ages"):
        SPLBoostClassifier(age_grid=[0.0, 1.0], n_estimators=5).fit(X, y)
    # Every loss starts at 1: an age of 1 without warm-up leaves no row.
    with pytest.raises(ValueError, match="could not fit a single weak learner"):
        SPLBoostClassifier(age=1.0, n_warmup_rounds=0, n_estimators=5).fit(X, y)


def test_age_search_on_a_stratified_sample(global_random_seed):
    X, y = make_classification(
        n_samples=300,
        n_classes=3,
        n_informative=4,
        weights=[0.6, 0.39, 0.01],
        flip_y=0,
        random_state=global_random_seed,
    )
    assert 2 <= np.bincount(y).min() < 10
    params = {"n_estimators": 20, "age_grid": [2.0, 4.0], "cv": 2}
    clf = SPLBoostClassifier(
        age_cv_max_samples=60, random_state=global_random_seed, **params
    ).fit(X, y)
    # 60 rows in the classes' proportions, the rare class with >= 2 (the folds).
    n_rare = np.bincount(y).min()
    assert 60 - 2 <= clf.cv_results_["n_samples"] <= 60 + max(2, n_rare)
    assert clf.spl_weights_.shape == (300,)  # the final fit uses every row
    again = SPLBoostClassifier(
        age_cv_max_samples=60, random_state=global_random_seed, **params
    ).fit(X, y)
    np.testing.assert_array_equal(again.spl_weights_, clf.spl_weights_)
    full = SPLBoostClassifier(
        age_cv_max_samples=None, random_state=global_random_seed, **params
    ).fit(X, y)
    assert full.cv_results_["n_samples"] == 300


@pytest.mark.parametrize(
    "n_classes, regularizer, n_warmup_rounds",
    [(2, "hard", 3), (2, "mixture", 0), (3, "linear", 3), (3, "mixture_log", 2)],
)
def test_self_paced_weights_reproduce_the_training_weights(
    global_random_seed, n_classes, regularizer, n_warmup_rounds
):
    X, y = make_classification(
        n_samples=300,
        n_classes=n_classes,
        n_informative=4,
        random_state=global_random_seed,
    )
    labels = np.array(["a", "b", "c"])[y]
    y_noisy, _ = flip_labels(labels, 0.2, random_state=global_random_seed)
    clf = SPLBoostClassifier(
        n_estimators=25,
        age=2.5,
        regularizer=regularizer,
        n_warmup_rounds=n_warmup_rounds,
        random_state=global_random_seed,
    ).fit(X, y_noisy)
    np.testing.assert_allclose(
        clf.self_paced_weights(X, y_noisy), clf.spl_weights_, atol=1e-12
    )
    # a row's weight depends on its own label only
    v = clf.self_paced_weights(X[:5], y_noisy[:5])
    np.testing.assert_allclose(v, clf.spl_weights_[:5], atol=1e-12)


def test_self_paced_weights_of_new_rows_flag_flipped_labels(global_random_seed):
    X, y = gaussian_data(300, global_random_seed)
    y_noisy, flipped = flip_labels(y, 0.2, random_state=global_random_seed)
    clf = SPLBoostClassifier(n_estimators=40, age=2.0, random_state=0)
    clf.fit(X[::2], y_noisy[::2])
    v = clf.self_paced_weights(X[1::2], y_noisy[1::2])
    zero = v == 0
    assert zero.any()
    # Precision at least three times the base rate of 0.2.
    assert flipped[1::2][zero].mean() > 0.6


def test_self_paced_weights_errors():
    X, y = make_classification(n_samples=60, random_state=0)
    clf = SPLBoostClassifier(n_estimators=5, age=2.0).fit(X, y)
    with pytest.raises(ValueError, match=re.escape("label(s) [7] not seen in fit")):
        clf.self_paced_weights(X[:3], [0, 7, 1])
    with pytest.raises(ValueError, match="X has 3 rows but y has 2"):
        clf.self_paced_weights(X[:3], [0, 1])
