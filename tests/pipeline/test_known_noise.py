"""A share of wrong labels known from outside the data (known_noise_rate)."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner, build_cleaner, parse_pipeline
from labelclean.review import evidence_against


@pytest.fixture(scope="module")
def overlapping():
    """Three classes the features only partly tell apart, 20 % flipped."""
    X, y = make_classification(
        600, n_features=6, n_informative=3, n_redundant=0, n_classes=3,
        n_clusters_per_class=1, class_sep=0.3, random_state=0,
    )  # fmt: skip
    noisy, flipped = flip_labels(y, 0.2, random_state=0)
    default = LabelCleaner(random_state=0).fit(X, noisy)
    told = LabelCleaner(random_state=0, known_noise_rate=0.2).fit(X, noisy)
    return X, noisy, flipped, default, told


def test_the_most_doubted_kept_rows_are_discarded_up_to_the_share(overlapping):
    _, noisy, flipped, default, told = overlapping
    before = default.decisions_ != "kept"
    after = told.decisions_ != "kept"
    assert after.sum() == round(0.2 * len(noisy)) > before.sum()  # the premise
    added = told.audit_["reason"].to_numpy() == "known_noise"
    assert told.calibration_["known_noise"]["added"] == added.sum() > 0
    assert (told.decisions_[added] == "discarded").all()
    # the evidence's own decisions stand; the added rows are the kept rows
    # the evidence doubts most (the order review export falls back on)
    assert np.array_equal(told.decisions_[~added], default.decisions_[~added])
    doubt = evidence_against(told.audit_)
    assert doubt[added].min() >= doubt[~after].max()
    assert told.calibration_["known_noise"]["cut"] == pytest.approx(doubt[added].min())
    # more of them are wrong labels than the table's share
    assert flipped[added].mean() > 2 * flipped.mean()
    assert "known_noise" not in default.calibration_


def test_a_share_the_decisions_already_reach_adds_nothing(overlapping):
    X, noisy, _, default, _ = overlapping
    share = (default.decisions_ != "kept").mean() / 2
    cleaner = LabelCleaner(random_state=0, known_noise_rate=share).fit(X, noisy)
    assert cleaner.calibration_["known_noise"] == {
        "rate": share,
        "added": 0,
        "cut": None,
    }
    assert np.array_equal(cleaner.decisions_, default.decisions_)


def test_new_rows_are_discarded_at_the_fits_cut(overlapping):
    X, noisy, _, _, told = overlapping
    cut = told.calibration_["known_noise"]["cut"]
    new = told.audit(X[:200], noisy[:200])
    doubt = evidence_against(new)
    added = new["reason"].to_numpy() == "known_noise"
    assert added.any()
    assert (doubt[added] >= cut).all()
    assert (new.loc[added, "decision"] == "discarded").all()
    # every row the evidence doubts as much is discarded, one way or the other
    assert (new["decision"].to_numpy()[doubt >= cut] != "kept").all()
    assert (doubt[new["decision"].to_numpy() == "kept"] < cut).all()


def test_reviewed_rows_are_neither_counted_nor_discarded(overlapping):
    X, noisy, _, _, told = overlapping
    added = told.audit_["reason"].to_numpy() == "known_noise"
    reviewed = np.zeros(len(noisy), dtype=bool)
    reviewed[np.flatnonzero(added)[:10]] = True  # ten of the most doubted rows
    again = LabelCleaner(random_state=0, known_noise_rate=0.2).fit(
        X, noisy, reviewed=reviewed
    )
    assert (again.decisions_[reviewed] == "kept").all()
    flagged = (again.decisions_ != "kept") & ~reviewed
    assert flagged.sum() == round(0.2 * (~reviewed).sum())


def test_a_definition_takes_the_share_and_refuses_one_out_of_range():
    def definition(rate):
        return parse_pipeline(
            {"stages": [{"name": "c", "kind": "knn_confidence"}],
             "decisions": {"known_noise_rate": rate}},
            name="told",
        )  # fmt: skip

    assert build_cleaner(definition(0.1)).known_noise_rate == 0.1
    with pytest.raises(ValueError, match=r"\[decisions\].*known_noise_rate"):
        build_cleaner(definition(0.0))
