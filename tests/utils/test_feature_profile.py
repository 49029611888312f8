"""The fit's feature profile and a batch's counts against it."""

import numpy as np
import pandas as pd
import pytest

from labelclean.utils._feature_profile import (
    count_outside,
    feature_profile,
    rows_far_outside,
)
from labelclean.utils._features import make_feature_encoder


def _profile(frame):
    encoder = make_feature_encoder(frame).fit(frame)
    return feature_profile(frame, encoder)


@pytest.fixture
def fit_frame():
    return pd.DataFrame({
        "size": [1.0, 2.0, np.nan, 4.0, 3.0],
        "site": ["a", "b", "a", None, "c"],
        "day": pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03",
                               "2020-01-04", None]),
    })  # fmt: skip


def test_profile_holds_range_levels_and_missing(fit_frame):
    profile = _profile(fit_frame)
    assert profile["size"] == {"kind": "numeric", "rows": 5, "missing": 1,
                               "low": 1.0, "high": 4.0}  # fmt: skip
    site = {**profile["site"], "levels": profile["site"]["levels"].tolist()}
    assert site == {"kind": "categorical", "rows": 5, "missing": 1,
                    "levels": ["a", "b", "c"], "singletons": 2}  # fmt: skip
    day = profile["day"]
    assert day["kind"] == "temporal" and day["missing"] == 1
    assert day["high"] - day["low"] == 3 * 86400.0


def test_batch_counts_values_outside_and_unseen_levels(fit_frame):
    profile = _profile(fit_frame)
    batch = pd.DataFrame({
        "size": [0.5, 1.0, 4.0, 4.5, np.nan],  # two outside, one missing
        "site": ["a", "d", None, "d", "b"],  # two of an unseen level
        "day": pd.to_datetime(["2019-12-31", "2020-01-02", None, None, None]),
    })  # fmt: skip
    assert count_outside(profile, batch) == {
        "size": [5, 1, 2],
        "site": [5, 1, 2],
        "day": [5, 3, 1],
    }


def test_counts_of_parts_add_up_to_the_whole(fit_frame):
    profile = _profile(fit_frame)
    rng = np.random.default_rng(0)
    batch = pd.DataFrame({
        "size": rng.normal(2.5, 2.0, 40),
        "site": rng.choice(["a", "b", "c", "z"], 40),
        "day": pd.Timestamp("2020-01-01")
        + pd.to_timedelta(rng.integers(-3, 6, 40), "D"),
    })  # fmt: skip
    whole = count_outside(profile, batch)
    parts = [count_outside(profile, batch.iloc[i : i + 7]) for i in range(0, 40, 7)]
    summed = {c: np.sum([p[c] for p in parts], axis=0).tolist() for c in whole}
    assert summed == whole
    assert 0 < whole["size"][2] < 40 and 0 < whole["site"][2] < 40


def test_numbers_written_as_text_or_decimals_are_read_as_numbers(fit_frame):
    """An ``object`` column (decimals from a database, numbers as text) is
    compared by value, not counted as missing or outside."""
    from decimal import Decimal  # only this test builds decimals

    profile = _profile(fit_frame[["size"]])
    batch = pd.DataFrame({"size": [Decimal("1.5"), Decimal("9"), None]})
    assert count_outside(profile, batch) == {"size": [3, 1, 1]}


def test_an_array_fit_names_columns_and_a_column_never_seen_is_not_counted():
    X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 3.0]])
    profile = feature_profile(X, make_feature_encoder(None).fit(X))
    assert list(profile) == ["x0", "x1"]
    assert profile["x1"]["missing"] == 1 and profile["x1"]["high"] == 3.0
    batch = pd.DataFrame({"x0": [5.0], "other": [1.0]})
    assert count_outside(profile, batch) == {"x0": [1, 0, 1]}


def test_a_column_without_a_value_at_fit_has_nothing_outside():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [np.nan] * 3})
    profile = _profile(frame)
    assert profile["b"]["low"] is None
    batch = pd.DataFrame({"b": [7.0, np.nan]})
    assert count_outside(profile, batch) == {"b": [2, 1, 0]}


def test_rows_far_outside_lie_beyond_a_range_width_from_either_end(fit_frame):
    frame = fit_frame.assign(flat=5.0)  # size: 1 to 4, a width of 3
    profile = _profile(frame)
    batch = frame.iloc[[0, 0, 0, 0, 0, 0]].copy()
    batch["size"] = [-2.0, -2.01, 7.0, 7.01, np.nan, 4.5]
    batch["flat"] = [5.0, 5.0, 5.0, 5.0, 900.0, 5.0]  # held constant: not read
    batch["day"] = pd.Timestamp("2031-01-01")  # dates: not read
    assert rows_far_outside(profile, batch).tolist() == [
        False, True, False, True, False, False]  # fmt: skip
    assert not rows_far_outside(None, batch).any()
