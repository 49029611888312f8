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


def test_a_column_in_another_unit_is_named_and_the_decisions_stand(blobs):
    cleaner, new, y = blobs
    shifted = new.assign(b=new["b"] * 1000.0)
    with pytest.warns(
        GuardrailWarning, match=r"features_within_fit: .*'b' \d+\.\d% of values outside"
    ):
        audit = cleaner.audit(shifted, y)
    assert len(audit) == len(new)
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
