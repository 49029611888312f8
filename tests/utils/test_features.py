"""The feature encoder's imputation of missing numbers."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from labelclean.utils._features import make_feature_encoder, restore_missing


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_rows", [7, 8, 2_001])
def test_missing_numbers_get_the_median_scikit_learn_computes(dtype, n_rows):
    rng = np.random.RandomState(n_rows)
    frame = pd.DataFrame(
        {
            "normal": rng.normal(size=n_rows),
            "ties": rng.randint(0, 3, size=n_rows).astype(float),  # even counts too
            "empty": np.nan,
        }
    ).astype(dtype)
    frame.loc[rng.rand(n_rows) < 0.3, ["normal", "ties"]] = np.nan
    frame.iloc[0, :2] = np.nan
    encoder = make_feature_encoder(frame)
    Z = encoder.fit_transform(frame)

    # the same encoder with scikit-learn's own median strategy
    reference = clone(encoder).set_params(numeric__simpleimputer__strategy="median")
    np.testing.assert_array_equal(Z, reference.fit_transform(frame))
    imputer = encoder.named_transformers_["numeric"][0]
    assert imputer.statistics_[2] == 0.0  # a column missing everywhere: 0
    _, fill = restore_missing(encoder, frame, np.array(Z, dtype=np.float64))
    np.testing.assert_allclose(fill[:3], Z[0, :3], rtol=1e-5)  # row 0 misses two
