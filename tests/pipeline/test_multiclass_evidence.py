"""AdaBoost's trees on the observed labels beside RoSR-L for the evidence
(``model=['rosr', 'adaboost_trees']``): kept where they are clearly better out
of fold, their probabilities at a temperature fitted to those labels."""

import numpy as np
import pytest
from scipy.special import softmax

from labelclean.pipeline import build_cleaner, load_pipeline


def _checkerboard(n, seed, noise=0.15, extra=4):
    """Three classes on a 4 x 4 board of two columns, beside ``extra``
    columns of noise: a label trees read and no line draws."""
    rng = np.random.RandomState(seed)
    X = rng.uniform(0, 2, size=(n, 2 + extra))
    y = (np.floor(2 * X[:, 0]) + np.floor(2 * X[:, 1])).astype(int) % 3
    flipped = rng.rand(n) < noise
    noisy = y.copy()
    noisy[flipped] = (y[flipped] + rng.randint(1, 3, flipped.sum())) % 3
    return X, noisy, flipped


def _flag_f1(cleaner, flipped):
    flagged = cleaner.decisions_ != "kept"
    hits = np.count_nonzero(flagged & flipped)
    return 2 * hits / (np.count_nonzero(flagged) + np.count_nonzero(flipped))


def _shipped(**params):
    """The shipped multi-class pipeline with the trees listed for its evidence."""
    params = {"model": ["rosr", "adaboost_trees"], **params}
    cleaner = build_cleaner(load_pipeline("multiclass-rosr"), random_state=0)
    return cleaner.set_params(**params)


@pytest.mark.parametrize("seed", [0, 1])
def test_trees_on_the_observed_labels_find_flips_a_line_cannot(seed):
    X, noisy, flipped = _checkerboard(1000, seed)
    cleaner = _shipped().fit(X, noisy)
    selection = cleaner.model_selection_
    assert selection["chosen"] == "adaboost_trees"
    rates = selection["candidates"]
    assert rates["adaboost_trees"]["error_rate"] < rates["rosr"]["error_rate"]
    linear = _shipped(model="rosr").fit(X, noisy)
    assert _flag_f1(cleaner, flipped) > _flag_f1(linear, flipped) + 0.1


def test_the_trees_probabilities_are_calibrated_before_they_decide():
    X, noisy, _ = _checkerboard(1000, 0)
    cleaner = _shipped().fit(X, noisy)
    t = cleaner.model_selection_["evidence_temperature"]
    assert t > 1.0
    # AdaBoost's own probabilities are nearly one-hot; the evidence's are not
    _, Z = cleaner._check_X(X, reset=False)  # the features the models see
    raw = cleaner.decision_model_.predict_proba(Z)
    assert np.median(raw.max(axis=1)) > 0.999
    assert np.median(cleaner.evidence_.model_proba.max(axis=1)) < 0.99
    # new rows are read at the same temperature as the fitted rows were
    audit = cleaner.audit(X[:50], noisy[:50])
    tempered = softmax(np.log(np.clip(raw[:50], 1e-12, 1)) / t, axis=1)
    expected = tempered[np.arange(50), noisy[:50]]
    np.testing.assert_allclose(audit["model_probability"], expected, rtol=1e-12)


def test_a_line_keeps_rosr_and_its_probabilities_as_they_are():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(600, 4))
    y = np.digitize(X[:, 0] + X[:, 1], [-0.7, 0.7])  # three bands of a line
    cleaner = _shipped().fit(X, y)
    assert cleaner.model_selection_["chosen"] == "rosr"
    assert "evidence_temperature" not in cleaner.model_selection_


def test_the_candidates_are_compared_on_the_labels_they_give_evidence_on():
    # RoSR-L is the evidence on the observed labels, so it is compared on
    # them: its error in the list is its error alone (compared on the
    # neighbours' soft labels it was another model), and where it is kept its
    # out-of-fold evidence is the comparison's, unchanged.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(600, 4))
    y = np.digitize(X[:, 0] + X[:, 1], [-0.7, 0.7])
    noisy, flipped = y.copy(), rng.rand(600) < 0.2
    noisy[flipped] = (y[flipped] + rng.randint(1, 3, flipped.sum())) % 3
    listed = _shipped().fit(X, noisy)
    alone = _shipped(model="rosr").fit(X, noisy)
    assert listed.model_selection_["chosen"] == "rosr"
    assert (listed.model_selection_["candidates"]["rosr"]
            == alone.model_selection_["candidates"]["rosr"])  # fmt: skip
    # beside CB-AdaBoost, compared on the soft labels, too; the record says
    # on which labels each candidate was compared
    with_cb = _shipped(model=["rosr", "cb_adaboost"]).fit(X, noisy)
    candidates = with_cb.model_selection_["candidates"]
    assert candidates["rosr"] == alone.model_selection_["candidates"]["rosr"]
    assert {name: c["fitted_on"] for name, c in candidates.items()} == {
        "rosr": "observed",
        "cb_adaboost": "soft",
    }
    np.testing.assert_array_equal(
        listed.evidence_.model_proba, alone.evidence_.model_proba
    )
    np.testing.assert_array_equal(listed.decisions_, alone.decisions_)
    # on the checkerboard too, where the trees are kept
    X, noisy, _ = _checkerboard(1000, 0)
    listed = _shipped().fit(X, noisy)
    alone = _shipped(model="rosr").fit(X, noisy)
    assert (listed.model_selection_["candidates"]["rosr"]
            == alone.model_selection_["candidates"]["rosr"])  # fmt: skip
