"""The columns behind the encoder's outputs, and the codes the information reads."""

import numpy as np
import pandas as pd

from labelclean.utils._feature_weights import column_codes, output_columns
from labelclean.utils._features import make_feature_encoder


def test_every_output_maps_to_the_column_it_encodes():
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame(
        {
            "num": rng.normal(size=n),
            "gappy": np.where(rng.random(n) < 0.2, np.nan, rng.normal(size=n)),
            # 40 levels, more than max_categories: the rare ones are pooled
            "city": rng.choice([f"c{i}" for i in range(40)], size=n),
            "when": pd.Timestamp("2024-01-01")
            + pd.to_timedelta(rng.integers(0, 900, n), "D"),
            "flag": rng.random(n) < 0.5,
            "num_2": rng.normal(size=n),  # a name that starts like another's
        }
    )
    frame.loc[::9, "when"] = pd.NaT
    encoder = make_feature_encoder(frame, max_categories=8)
    names = list(encoder.fit(frame).get_feature_names_out())
    outputs = output_columns(encoder, frame.shape[1])
    assert outputs.shape == (len(names),)
    columns = list(frame.columns)
    for name, j in zip(names, outputs, strict=True):
        column = columns[j]
        assert (
            name == column
            or name.startswith(column + "_")
            or name == f"missingindicator_{column}"
        )
    counts = np.bincount(outputs, minlength=len(columns))
    # city: 7 kept levels and one pool; two indicators for the gaps
    assert counts[columns.index("city")] == 8
    assert counts[columns.index("gappy")] == counts[columns.index("when")] == 2
    assert counts[columns.index("num")] == counts[columns.index("num_2")] == 1


def test_numeric_array_outputs_and_their_indicators():
    X = np.array([[1.0, np.nan], [2.0, 3.0], [3.0, 4.0]])
    encoder = make_feature_encoder(None).fit(X)
    np.testing.assert_array_equal(output_columns(encoder, 2), [0, 1, 1])


def test_codes_share_a_bin_for_equal_values_and_keep_missing_apart():
    values = pd.Series([0.0] * 50 + list(np.arange(1.0, 51.0)) + [np.nan] * 3)
    codes = column_codes(values)
    assert len(set(codes[:50])) == 1  # 50 equal values, one bin
    assert (codes[-3:] == -1).all() and (codes[:-3] >= 0).all()
    assert len(set(codes[:-3])) <= 10
    few = column_codes(pd.Series([2, 7, 7, 2, None], dtype="Int64"))
    np.testing.assert_array_equal(few, [0, 1, 1, 0, -1])
    dates = pd.Series(pd.date_range("2024-01-01", periods=40, tz="Europe/Paris"))
    dates[3] = pd.NaT
    coded = column_codes(dates)
    assert coded[3] == -1 and len(set(coded)) == 11
    words = column_codes(pd.Series(["a", None, "b", "a"]))
    assert words[0] == words[3] != words[2] and words[1] == -1
