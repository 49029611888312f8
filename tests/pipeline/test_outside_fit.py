"""``LabelCleaner.audit`` warns when new rows' features left the fit's range."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs

from labelclean.exceptions import GuardrailWarning
from labelclean.pipeline import LabelCleaner


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(600, centers=3, cluster_std=2.0, random_state=0)
    frame = pd.DataFrame(X, columns=["a", "b"])
    frame["shop"] = np.where(X[:, 0] > 0, "north", "south")
    fit, new = frame.iloc[:400], frame.iloc[400:].reset_index(drop=True)
    cleaner = LabelCleaner(cv=3, random_state=0).fit(fit, y[:400])
    return cleaner, new, y[400:]


def test_new_rows_like_the_fits_give_no_warning(blobs):
    cleaner, new, y = blobs
    with warnings.catch_warnings():
        warnings.simplefilter("error", GuardrailWarning)
        audit = cleaner.audit(new, y)
    assert len(audit) == len(new)
    assert "outside_fit" not in set(audit["reason"])


def test_a_column_in_another_unit_is_named_and_the_decisions_stand(blobs):
    cleaner, new, y = blobs
    shifted = new.assign(b=new["b"] * 1000.0)
    with pytest.warns(
        GuardrailWarning, match=r"features_within_fit: .*'b' \d+\.\d% of values outside"
    ) as said:
        audit = cleaner.audit(shifted, y)
    assert said[0].filename == __file__  # it points at the caller's line
    assert len(audit) == len(new)
    # rows beyond a range width from the fit's range are kept as they came
    low, high = (
        cleaner.feature_profile_["b"]["low"],
        cleaner.feature_profile_["b"]["high"],
    )
    far = (shifted["b"] < 2 * low - high) | (shifted["b"] > 2 * high - low)
    assert far.mean() > 0.9
    assert (audit["reason"] == "outside_fit").tolist() == far.tolist()
    kept = audit[far]
    assert (kept["decision"] == "kept").all() and kept["noise_probability"].isna().all()
    assert (kept["cleaned_label"] == kept["observed_label"]).all()
    with warnings.catch_warnings():  # asked not to check: the same rows, quietly
        warnings.simplefilter("error", GuardrailWarning)
        again = cleaner.audit(shifted, y, check_features=False)
    pd.testing.assert_frame_equal(audit, again)


def test_an_array_fit_is_checked_by_position():
    X, y = make_blobs(300, centers=2, random_state=1)
    cleaner = LabelCleaner(cv=3, random_state=0).fit(X[:200], y[:200])
    new = X[200:].copy()
    new[:, 1] = np.nan
    with pytest.warns(GuardrailWarning, match=r"'x1' 100\.0% of rows missing"):
        cleaner.audit(new, y[200:])


def test_a_far_row_without_a_label_is_still_discarded_as_missing_label(blobs):
    cleaner, new, y = blobs
    rows = new.iloc[:3].assign(a=1e9)
    labels = pd.Series([y[0], None, y[2]], dtype=object)
    audit = cleaner.audit(rows, labels, check_features=False)
    assert audit["reason"].tolist() == ["outside_fit", "missing_label", "outside_fit"]
    assert audit["decision"].tolist() == ["kept", "discarded", "kept"]
