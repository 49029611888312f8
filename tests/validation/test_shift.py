"""``features_within_fit``: a batch's shares against what the fit's rows give."""

from labelclean.validation import feature_shift_check
from labelclean.validation._shift import feature_shift

NUMBER = {"kind": "numeric", "rows": 1000, "missing": 0, "low": 0.0, "high": 1.0}
LEVELS = {"kind": "categorical", "rows": 1000, "missing": 0,
          "levels": ["a", "b"], "singletons": 0}  # fmt: skip
DAY = {"kind": "temporal", "rows": 1000, "missing": 100, "low": 0.0, "high": 9.0}


def _shifted(profile, counts):
    shifted = feature_shift(profile, counts)["shifted"]
    return [(s["column"], s["measure"]) for s in shifted]


def test_values_outside_the_range_beyond_chance_shift_a_column():
    # 2 / 1001 of values drawn like the fit's fall outside its range
    assert _shifted({"x": NUMBER}, {"x": [500, 0, 3]}) == []
    assert _shifted({"x": NUMBER}, {"x": [500, 0, 60]}) == [("x", "outside")]


def test_a_rise_under_five_points_or_three_standard_errors_is_not_a_shift():
    # 4 % outside is many standard errors above chance, but under 5 points
    assert _shifted({"x": NUMBER}, {"x": [5000, 0, 200]}) == []
    # 2 of 10 values outside: 20 points, but few rows to read it on
    assert _shifted({"x": NUMBER}, {"x": [10, 0, 2]}) == []
    # every value of 10 outside: beyond both
    assert _shifted({"x": NUMBER}, {"x": [10, 0, 10]}) == [("x", "outside")]


def test_missing_values_are_compared_with_the_fit_share():
    day = {"d": DAY}  # 10 % missing at fit
    assert _shifted(day, {"d": [400, 48, 0]}) == []
    assert _shifted(day, {"d": [400, 400, 0]}) == [("d", "missing")]


def test_dates_past_the_fit_are_not_a_shift():
    assert _shifted({"d": DAY}, {"d": [400, 40, 360]}) == []


def test_new_levels_are_read_against_the_levels_seen_once():
    """The Good-Turing chance of a new level is the share of the fit's values
    whose level was seen once: a column of many rare levels meets new ones."""
    assert _shifted({"c": LEVELS}, {"c": [300, 0, 40]}) == [("c", "outside")]
    rare = {**LEVELS, "singletons": 300}  # 30 % of the fit's values
    assert _shifted({"c": rare}, {"c": [300, 0, 100]}) == []


def test_the_check_names_each_column_and_measure():
    profile = {"x": NUMBER, "c": LEVELS, "d": DAY}
    shift = feature_shift(profile, {"x": [50, 0, 50], "c": [50, 0, 0],
                                    "d": [50, 50, 0]})  # fmt: skip
    assert shift["columns_compared"] == 3
    check = feature_shift_check(shift)
    assert not check.success and check.severity == "error"
    assert check.examples == ["x", "d"] and check.unexpected_count == 2
    assert "'x' 100.0% of values outside the fit's range" in check.message
    assert "'d' 100.0% of rows missing (fit: 10.0%)" in check.message
    quiet = feature_shift_check(feature_shift(profile, {"x": [50, 0, 0]}))
    assert quiet.success and quiet.message.startswith("all 1 feature columns")


def test_one_row_never_shifts_a_column_three_that_all_break_do():
    profile = {"x": NUMBER, "c": LEVELS}
    assert _shifted(profile, {"x": [1, 1, 0], "c": [1, 0, 1]}) == []
    assert _shifted(profile, {"x": [3, 3, 0], "c": [3, 0, 3]}) == [
        ("x", "missing"),
        ("c", "outside"),
    ]
