"""CB-AdaBoost: Algorithm 2, AdaBoost at gamma = 1, Proposition 3, routing."""

from typing import ClassVar

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from labelclean.ensemble import (
    BinnedTreeClassifier,
    CBAdaBoostClassifier,
    SPLBoostClassifier,
)
from labelclean.noise import flip_labels


def algorithm_2(X, y, gamma, n_rounds, seed):
    """Algorithm 2 of cb-adaboost.md written out plainly, with weighted stumps."""
    rng = np.random.RandomState(seed)
    y_pm = np.where(y == 1, 1.0, -1.0)
    w1, w2 = gamma.astype(float), 1.0 - gamma
    stumps, betas = [], []
    for _ in range(n_rounds):
        relabel = np.sign((w1 - w2) * y_pm)
        distribution = np.abs(w1 - w2) / np.abs(w1 - w2).sum()
        keep = distribution > 0
        stump = DecisionTreeClassifier(
            max_depth=1, random_state=rng.randint(np.iinfo(np.int32).max)
        )
        stump.fit(X[keep], relabel[keep], sample_weight=distribution[keep])
        h = stump.predict(X)
        right, wrong = h == y_pm, h != y_pm
        beta = 0.5 * np.log(
            (w1[right].sum() + w2[wrong].sum()) / (w1[wrong].sum() + w2[right].sum())
        )
        if beta <= 0:
            break
        stumps.append(stump)
        betas.append(beta)
        w1, w2 = w1 * np.exp(-y_pm * beta * h), w2 * np.exp(y_pm * beta * h)
    return stumps, np.array(betas)


def noisy_data(seed, noise=0.2, n=300):
    X, y = make_classification(
        n_samples=n, n_features=6, n_informative=3, random_state=seed
    )
    y_noisy, flipped = flip_labels(y, noise, random_state=seed)
    return X, y, y_noisy, flipped


def test_matches_algorithm_2(global_random_seed):
    X, _, y, flipped = noisy_data(global_random_seed)
    rng = np.random.RandomState(global_random_seed)
    gamma = np.where(flipped, rng.uniform(0.0, 0.6, 300), rng.uniform(0.4, 1.0, 300))
    stumps, betas = algorithm_2(X, y, gamma, 40, global_random_seed)
    clf = CBAdaBoostClassifier(
        DecisionTreeClassifier(max_depth=1),
        n_estimators=40,
        random_state=global_random_seed,
    ).fit(X, y, gamma=gamma)
    np.testing.assert_allclose(clf.estimator_weights_ / 2, betas, rtol=1e-8)
    X_test = np.random.RandomState(0).normal(size=(400, 6))
    reference = np.sum(
        [b * s.predict(X_test) for b, s in zip(betas, stumps, strict=True)], axis=0
    )
    np.testing.assert_allclose(
        clf.decision_function(X_test), reference, rtol=1e-8, atol=1e-10
    )


@pytest.mark.parametrize("n_classes", [2, 3])
def test_full_confidence_is_adaboost(global_random_seed, n_classes):
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
    clf = CBAdaBoostClassifier(stump, n_estimators=25, random_state=global_random_seed)
    clf.fit(X, y, gamma=np.ones(300))
    np.testing.assert_allclose(
        clf.estimator_weights_, reference.estimator_weights_, rtol=1e-10
    )
    X_test = np.random.RandomState(0).normal(size=(500, X.shape[1]))
    np.testing.assert_array_equal(clf.predict(X_test), reference.predict(X_test))
    np.testing.assert_array_equal(clf.predict(X), reference.predict(X))


def test_proposition_3(global_random_seed):
    # beta_m < 1/2 ln((1 - eps'_m) / eps'_m) whenever some gamma is in (0, 1).
    X, _, y, _ = noisy_data(global_random_seed)
    gamma = np.random.RandomState(global_random_seed).uniform(0.05, 0.95, 300)
    clf = CBAdaBoostClassifier(n_estimators=100, random_state=global_random_seed)
    clf.fit(X, y, gamma=gamma)
    beta = clf.estimator_weights_ / 2
    eps = clf.estimator_errors_
    assert beta.shape[0] >= 3
    assert np.all(beta > 0)
    assert np.all(beta < 0.5 * np.log((1 - eps) / eps))


class _TurningStump(ClassifierMixin, BaseEstimator):
    """A stump whose predictions turn to the opposite class after 3 fits."""

    n_fits: ClassVar[int] = 0

    def fit(self, X, y, sample_weight=None):
        type(self).n_fits += 1
        self.inverted_ = type(self).n_fits > 3
        self.tree_ = DecisionTreeClassifier(max_depth=1).fit(X, y, sample_weight)
        self.classes_ = self.tree_.classes_
        return self

    def predict(self, X):
        predictions = self.tree_.predict(X)
        return 1 - predictions if self.inverted_ else predictions


def test_stops_when_beta_is_not_positive(global_random_seed):
    X, _, y, _ = noisy_data(global_random_seed)
    gamma = np.random.RandomState(global_random_seed).uniform(0.2, 1.0, 300)
    _TurningStump.n_fits = 0
    clf = CBAdaBoostClassifier(_TurningStump(), n_estimators=50, random_state=0)
    clf.fit(X, y, gamma=gamma)
    # The 4th learner is worse than chance: beta < 0, it is dropped, and the
    # boosting stops (Algorithm 2, step 4).
    assert _TurningStump.n_fits == 4
    assert len(clf.estimators_) == 3
    assert np.all(clf.estimator_weights_ > 0)


def test_a_round_without_error_takes_1_and_ends_the_boosting():
    # Six classes that are intervals of one column: depth-3 trees soon fit
    # every row. With gamma = 1 every other class has W = 0, so B is exactly
    # 0; read as the total less A it used to leave a residue (coefficients
    # near 37.7, the boosting going on) in 9 of these 40 fits.
    ended = 0
    for seed in range(40):
        rng = np.random.RandomState(seed)
        X = rng.uniform(size=(80, 3))
        y = np.digitize(X[:, 0], np.linspace(0, 1, 7)[1:-1])
        clf = CBAdaBoostClassifier(
            BinnedTreeClassifier(max_depth=3), n_estimators=20, random_state=0
        ).fit(X, y, gamma=np.ones(80))
        errors, weights = clf.estimator_errors_, clf.estimator_weights_
        assert np.all(errors[:-1] > 0) and np.all(weights[:-1] < 20)
        if errors[-1] == 0:
            assert weights[-1] == 1.0
            ended += 1
    assert ended >= 30


def test_two_class_gamma_matrix_equals_vector(global_random_seed):
    X, _, y, _ = noisy_data(global_random_seed)
    gamma = np.random.RandomState(global_random_seed).uniform(0, 1, 300)
    matrix = np.c_[1 - gamma, gamma]
    matrix[y == 0] = matrix[y == 0][:, ::-1]
    a = CBAdaBoostClassifier(n_estimators=30, random_state=0).fit(X, y, gamma=gamma)
    b = CBAdaBoostClassifier(n_estimators=30, random_state=0).fit(X, y, gamma=matrix)
    np.testing.assert_allclose(a.estimator_weights_, b.estimator_weights_)
    np.testing.assert_allclose(a.confidence_, gamma)


def test_gamma_is_routed_through_a_pipeline(global_random_seed):
    X, _, y, _ = noisy_data(global_random_seed)
    gamma = np.random.RandomState(global_random_seed).uniform(0.3, 1.0, 300)
    with sklearn.config_context(enable_metadata_routing=True):
        clf = CBAdaBoostClassifier(n_estimators=20, random_state=0)
        pipe = make_pipeline(StandardScaler(), clf.set_fit_request(gamma=True))
        pipe.fit(X, y, gamma=gamma)
    direct = CBAdaBoostClassifier(n_estimators=20, random_state=0)
    direct.fit(StandardScaler().fit_transform(X), y, gamma=gamma)
    np.testing.assert_allclose(pipe[-1].estimator_weights_, direct.estimator_weights_)
    np.testing.assert_allclose(pipe[-1].confidence_, gamma)


def test_confidence_stage_is_used_without_gamma(global_random_seed):
    from labelclean.confidence import KNNConfidence

    X, y_clean, y, flipped = noisy_data(global_random_seed, n=400)
    clf = CBAdaBoostClassifier(n_estimators=50, random_state=global_random_seed)
    clf.fit(X, y)
    assert clf.confidence_[flipped].mean() < clf.confidence_[~flipped].mean()
    given = KNNConfidence(n_neighbors=5).fit(X, y).confidence_
    explicit = CBAdaBoostClassifier(
        n_estimators=50, confidence=KNNConfidence(n_neighbors=5), random_state=0
    ).fit(X, y)
    np.testing.assert_allclose(explicit.confidence_, given)
    # On noisy labels, the soft labels beat plain AdaBoost on the clean truth.
    ada = AdaBoostClassifier(
        DecisionTreeClassifier(max_depth=1), n_estimators=50, random_state=0
    ).fit(X, y)
    assert clf.score(X, y_clean) >= ada.score(X, y_clean) - 0.02


def test_resampling_is_seeded_and_learns(global_random_seed):
    X, y_clean, y, flipped = noisy_data(global_random_seed)
    rng = np.random.RandomState(global_random_seed)
    gamma = np.where(flipped, rng.uniform(0.0, 0.5, 300), rng.uniform(0.5, 1.0, 300))
    for estimator in (None, DecisionTreeClassifier(max_depth=1)):
        a = CBAdaBoostClassifier(
            estimator, n_estimators=30, resample=True, random_state=3
        )
        b = CBAdaBoostClassifier(
            estimator, n_estimators=30, resample=True, random_state=3
        )
        a.fit(X, y, gamma=gamma)
        b.fit(X, y, gamma=gamma)
        np.testing.assert_array_equal(a.estimator_weights_, b.estimator_weights_)
        weighted = CBAdaBoostClassifier(estimator, n_estimators=30, random_state=3)
        weighted.fit(X, y, gamma=gamma)
        assert a.score(X, y_clean) > weighted.score(X, y_clean) - 0.1


def test_three_classes_with_soft_labels(global_random_seed):
    X, y = make_classification(
        n_samples=400, n_classes=3, n_informative=4, random_state=global_random_seed
    )
    y_noisy, flipped = flip_labels(y, 0.2, random_state=global_random_seed)
    posterior = np.full((400, 3), 0.05)
    posterior[np.arange(400), y] = 0.9  # confidences that know the truth
    clf = CBAdaBoostClassifier(
        BinnedTreeClassifier(max_depth=2), n_estimators=40, random_state=0
    ).fit(X, y_noisy, gamma=posterior)
    ada = CBAdaBoostClassifier(
        BinnedTreeClassifier(max_depth=2), n_estimators=40, random_state=0
    ).fit(X, y_noisy, gamma=np.ones(400))
    assert clf.score(X, y) > ada.score(X, y)
    np.testing.assert_allclose(clf.confidence_[flipped], 0.05)


def test_bad_gamma_is_rejected():
    X, y = make_classification(n_samples=50, random_state=0)
    clf = CBAdaBoostClassifier(n_estimators=5)
    with pytest.raises(ValueError, match="shape"):
        clf.fit(X, y, gamma=np.ones(10))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        clf.fit(X, y, gamma=np.full(50, 1.5))
    with pytest.raises(ValueError, match="summing to 1"):
        clf.fit(X, y, gamma=np.ones((50, 2)))


@pytest.mark.parametrize("n_classes", [2, 4])
def test_one_pass_scores_equal_the_staged_scores(n_classes, global_random_seed):
    X, y = make_classification(
        600,
        n_features=8,
        n_informative=5,
        n_classes=n_classes,
        random_state=global_random_seed,
    )
    for est in (
        CBAdaBoostClassifier(n_estimators=40, random_state=global_random_seed),
        SPLBoostClassifier(n_estimators=40, age=3.0, random_state=global_random_seed),
    ):
        est.fit(X, y)
        *_, staged = est.staged_predict_proba(X)
        # bit for bit: the compiled pass adds the trees in the same order
        np.testing.assert_array_equal(est.predict_proba(X), staged)
