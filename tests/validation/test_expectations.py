"""Input expectations and output guardrails: exact counts, examples, JSON."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from labelclean.exceptions import DataValidationError
from labelclean.validation import validate_input, validate_output


@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "id": [f"r{i}" for i in range(8)],
            "x": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
            "color": pd.Categorical(["red", "blue"] * 4),
            "label": ["cat", "dog"] * 4,
        }
    )


def _json(result):
    as_dict = result.to_dict()
    assert json.loads(json.dumps(as_dict, allow_nan=False)) == as_dict
    return as_dict


def test_clean_input_passes(frame):
    result = validate_input(
        frame, label="label", id_column="id", label_domain=["cat", "dog"]
    )
    assert result.success, [c.message for c in result.failures]
    assert result.suite == "labelclean_input"
    names = [c.name for c in result.checks]
    assert names == [
        "has_rows",
        "unique_column_names",
        "label_column_present",
        "no_reserved_column_names",
        "id_column_present",
        "id_unique",
        "excluded_columns_present",
        "label_and_id_not_features",
        "has_features",
        "label_not_null",
        "label_in_domain",
        "at_least_two_classes",
        "no_single_row_class",
    ]
    assert result.check("label_not_null").engine == "great_expectations"
    assert result.check("label_not_null").unexpected_count == 0
    as_dict = _json(result)
    assert as_dict["success"] is True and as_dict["n_failed"] == 0


def test_null_and_out_of_domain_labels_with_row_ids(frame):
    frame.loc[[1, 5], "label"] = None
    frame.loc[2, "label"] = "cow"
    result = validate_input(
        frame, label="label", id_column="id", label_domain=["cat", "dog"]
    )
    assert not result.success
    nulls = result.check("label_not_null")
    assert not nulls.success and nulls.unexpected_count == 2
    assert nulls.severity == "warning"  # such rows are discarded, not refused
    assert nulls.examples == ["r1", "r5"]
    assert nulls.unexpected_percent == pytest.approx(25.0)
    domain = result.check("label_in_domain")
    assert domain.unexpected_count == 1 and domain.examples == ["r2"]
    assert "1 row(s) have a label outside the expected domain" in domain.message
    with pytest.raises(DataValidationError, match="outside the expected domain"):
        result.raise_for_errors()
    _json(result)


def test_examples_use_the_index_without_id(frame):
    frame.index = [10 * i for i in range(8)]
    frame.loc[30, "label"] = None
    result = validate_input(frame, label="label", max_examples=1)
    assert result.check("label_not_null").examples == [30]


def test_missing_label_column_suggests(frame):
    result = validate_input(frame, label="lable")
    check = result.check("label_column_present")
    assert not check.success
    assert "(did you mean 'label'?)" in check.message
    assert "label_not_null" not in [c.name for c in result.checks]


def test_features_unusable_and_constant(frame):
    frame["bad"] = [1.0, np.inf, np.nan, 4, 5, 6, 7, 8]
    frame["nested"] = [[1]] * 8
    frame["const"] = 1.0
    result = validate_input(frame, label="label", id_column="id")
    bad = result.check("feature_usable", column="bad")
    # the infinite value is unusable; the missing one is imputed
    assert bad.unexpected_count == 1 and bad.examples == ["r1"]
    assert "infinite" in bad.message
    nested = result.check("feature_usable", column="nested")
    assert "holds nested values like lists" in nested.message
    const = result.check("feature_not_constant", column="const")
    assert const.severity == "warning" and not const.success
    assert {c.column for c in result.failures} == {"bad", "nested"}
    assert result.warnings == [const]
    _json(result)


def test_feature_list_and_exclusion(frame):
    result = validate_input(frame, label="label", features=["x", "colour"])
    check = result.check("feature_columns_present")
    assert not check.success and check.examples == ["colour"]
    assert "did you mean 'color'" in check.message
    result = validate_input(frame, label="label", exclude=["x", "color", "id"])
    assert not result.check("has_features").success


def test_structural_problems(frame):
    dup = pd.concat([frame, frame[["x"]]], axis=1)
    result = validate_input(dup, label="label")
    assert result.check("unique_column_names").examples == ["x"]
    assert not result.success
    empty = validate_input(frame.iloc[:0], label="label")
    assert not empty.check("has_rows").success
    one = validate_input(frame.assign(label="cat"), label="label")
    assert not one.check("at_least_two_classes").success
    single = validate_input(frame.assign(label=["a"] * 7 + ["b"]), label="label")
    assert single.check("no_single_row_class").examples == ["b"]
    assert single.success  # a warning only
    # a label of row ids: every class a single row, nothing to check
    ids = validate_input(
        pd.DataFrame({"x": range(20), "label": range(20)}), label="label"
    )
    assert ids.check("no_single_row_class").severity == "error" and not ids.success
    few = validate_input(
        pd.DataFrame({"x": range(19), "label": range(19)}), label="label"
    )
    assert few.success
    reserved = validate_input(
        frame.assign(decision=1), label="label", reserved_columns=["decision", "reason"]
    )
    assert reserved.check("no_reserved_column_names").examples == ["decision"]
    dup_ids = validate_input(frame.assign(id=["a"] * 8), label="label", id_column="id")
    assert dup_ids.check("id_unique").unexpected_count == 8
    with pytest.raises(TypeError, match="DataFrame"):
        validate_input({"label": [1]}, label="label")


def test_input_is_not_modified(frame):
    before = frame.copy()
    validate_input(frame, label="label", id_column="id", label_domain=["cat"])
    pd.testing.assert_frame_equal(frame, before)


# -- output guardrails -----------------------------------------------------------


@pytest.fixture
def audit():
    return pd.DataFrame(
        {
            "decision": ["kept"] * 5 + ["corrected", "discarded", "discarded"],
            "observed_label": ["a", "a", "a", "b", "b", "b", "b", "a"],
            "cleaned_label": ["a", "a", "a", "b", "b", "a", None, None],
            "confidence": [0.9, 0.8, 0.7, 0.9, 0.6, 0.1, 0.2, 0.3],
            "model_probability": [0.9] * 8,
        },
        index=pd.Index([f"r{i}" for i in range(8)]),
    )


def test_output_guardrails_pass(audit):
    result = validate_output(
        audit, max_discarded_share=0.25, max_changed_share_per_class=0.5
    )
    assert result.success, [c.message for c in result.failures]
    assert [c.name for c in result.checks] == [
        "audit_columns_present",
        "decision_known",
        "probability_in_unit_interval",
        "probability_in_unit_interval",
        "discarded_share",
        "discarded_share_per_class",
        "class_net_change",
        "all_classes_present",
    ]
    share = result.check("discarded_share")
    assert share.unexpected_count == 2 and share.examples == ["r6", "r7"]
    assert share.unexpected_percent == pytest.approx(25.0)  # exactly at the limit
    _json(result)


def test_output_discarded_share_limits(audit):
    result = validate_output(
        audit, max_discarded_share=0.2, max_discarded_share_per_class=0.3
    )
    share = result.check("discarded_share")
    assert not share.success
    assert "2 of 8 rows (25.0%) were discarded, more than the 20.0% allowed" in (
        share.message
    )
    per_class = result.check("discarded_share_per_class")
    # a: 1 of 4 = 25% (ok), b: 1 of 4 = 25% (ok) at 0.3
    assert per_class.success
    result = validate_output(
        audit, max_discarded_share=1.0, max_discarded_share_per_class=0.2
    )
    per_class = result.check("discarded_share_per_class")
    assert not per_class.success and per_class.examples == ["a", "b"]
    assert per_class.details["shares"] == {"a": 0.25, "b": 0.25}
    # with a fit's calibration, each class is named with its estimated noise
    calibration = {
        "classes": ["a", "b"],
        "noise_rate_per_class": [0.3, 0.05],
        "noise_rate": 0.175,
        "noise_rate_interval": [0.1, 0.3],
    }
    result = validate_output(
        audit,
        max_discarded_share=1.0,
        max_discarded_share_per_class=0.2,
        calibration=calibration,
    )
    named = {
        "discarded_share_per_class": "'a' (25.0% of 4; estimated 30.0% of its",
        "class_net_change": "'a' (1 of 4, 25.0%; estimated 30.0% of its",
    }
    for name, text in named.items():
        message = result.check(name).message
        assert text in message and "estimated 5.0% of its labels" in message


def test_output_bad_values(audit):
    audit.loc["r1", "confidence"] = 1.5
    audit.loc["r2", "confidence"] = -np.inf
    audit.loc["r3", "decision"] = "maybe"
    result = validate_output(audit)
    conf = result.check("probability_in_unit_interval", column="confidence")
    assert conf.unexpected_count == 2 and conf.examples == ["r1", "r2"]
    assert result.check(
        "probability_in_unit_interval", column="model_probability"
    ).success
    decision = result.check("decision_known")
    assert decision.unexpected_count == 1 and decision.examples == ["r3"]
    _json(result)


def test_output_lost_class(audit):
    audit["decision"] = ["discarded"] * 3 + ["kept"] * 5
    audit["cleaned_label"] = [None] * 3 + ["b"] * 5
    result = validate_output(audit, max_discarded_share=1.0)
    lost = result.check("all_classes_present")
    assert not lost.success and lost.examples == ["a"]
    assert re.search(r"class\(es\) \['a'\] have no row left", lost.message)
    soft = validate_output(audit, max_discarded_share=1.0, require_all_classes=False)
    assert soft.check("all_classes_present").severity == "warning"
    assert soft.success
    # Classes given explicitly must survive even when never observed.
    given = validate_output(audit, max_discarded_share=1.0, classes=["a", "b", "c"])
    assert given.check("all_classes_present").examples == ["a", "c"]


def test_output_missing_columns_and_evidence():
    result = validate_output(pd.DataFrame({"decision": ["kept"]}))
    assert not result.success
    assert result.check("audit_columns_present").examples == [
        "observed_label",
        "cleaned_label",
    ]
    minimal = pd.DataFrame(
        {"decision": ["kept"], "observed_label": [1], "cleaned_label": [1]}
    )
    result = validate_output(minimal)
    assert result.success
    assert "probability_in_unit_interval" not in [c.name for c in result.checks]
    with pytest.raises(ValueError, match="max_discarded_share must be in"):
        validate_output(minimal, max_discarded_share=2)


def test_id_column_for_output_examples(audit):
    audit = audit.reset_index(names="row")
    result = validate_output(audit, id_column="row")
    assert result.check("discarded_share").examples == ["r6", "r7"]


def test_a_constant_feature_counts_missing_as_a_value(frame):
    frame["gaps"] = [np.nan] * 8  # one value everywhere: missing
    frame["part"] = [2.0] * 7 + [np.nan]  # two values: 2.0 and missing
    frame["word"] = pd.Series(["a"] * 8, dtype="category")
    result = validate_input(frame, label="label", id_column="id")
    warned = {c.column: c.message for c in result.warnings
              if c.name == "feature_not_constant"}  # fmt: skip
    assert set(warned) == {"gaps", "word"}
    assert "'gaps' has no values (every one is missing)" in warned["gaps"]
    assert "'word' is constant" in warned["word"]


def test_labels_written_several_ways_warn_with_their_counts(frame):
    labels = ["cat", "Cat ", "dog", "ｄｏｇ", "cat", "dog", "cat  fish", "Cat Fish"]
    result = validate_input(frame.assign(label=labels), label="label")
    check = result.check("label_variants")
    assert check.severity == "warning" and not check.success
    assert result.success  # a warning only: nothing is merged
    # case, spaces and full-width letters; most rows first, then by label
    assert check.details["groups"] == [
        [["cat", 2], ["Cat ", 1]],
        [["dog", 2], ["ｄｏｇ", 1]],
        [["Cat Fish", 1], ["cat  fish", 1]],
    ]
    assert check.examples == ["Cat ", "ｄｏｇ", "cat  fish"]
    assert check.unexpected_count == 3
    assert "'cat' (2 rows) and 'Cat ' (1 row); 'dog' (2 rows) and" in check.message
    _json(result)


@pytest.mark.parametrize(
    "labels",
    [
        ["cat", "dog"] * 4,  # different words
        ["cat", "cats"] * 4,  # one letter is a different label, not a spelling
        [1, 2] * 4,  # numbers are not text
    ],
)
def test_labels_written_one_way_do_not_warn(frame, labels):
    result = validate_input(frame.assign(label=labels), label="label")
    assert "label_variants" not in [c.name for c in result.checks]


def test_an_unused_category_is_no_spelling_of_a_label(frame):
    label = pd.Categorical(["cat", "dog"] * 4, categories=["cat", "dog", "Dog "])
    result = validate_input(frame.assign(label=label), label="label")
    assert "label_variants" not in [c.name for c in result.checks]


def test_labels_that_read_as_missing_values_warn(frame):
    labels = ["cat", "N/A", "dog", "", "  ", "?", "none", "unknown"]
    result = validate_input(frame.assign(label=labels), label="label")
    check = result.check("label_placeholders")
    assert check.severity == "warning" and result.success
    # 'none' and 'unknown' name real classes in many tables: not placeholders
    assert check.examples == ["", "  ", "?", "N/A"]
    assert check.unexpected_count == 4
    assert "'' (1 row), '  ' (1 row), '?' (1 row) and 'N/A' (1 row)" in check.message
    assert "write it as missing (null)" in check.message
    # '' and '  ' are also one label written two ways
    assert result.check("label_variants").details["groups"] == [[["", 1], ["  ", 1]]]


def test_a_label_outside_the_domain_written_like_one_inside_is_named(frame):
    frame.loc[2, "label"] = "Cat "
    frame.loc[3, "label"] = "n/a"
    result = validate_input(frame, label="label", label_domain=["cat", "dog"])
    domain = result.check("label_in_domain")
    assert not domain.success and domain.unexpected_count == 2
    assert (
        "(['Cat ', 'n/a']; expected one of ['cat', 'dog']) ('Cat ' is written "
        "like the expected label 'cat'; 'n/a' reads as a missing value)"
    ) in domain.message


def test_feature_levels_written_several_ways_warn(frame):
    frame["shade"] = ["red", "Red ", "blue", "red", "RED", "blue", "blue", "red"]
    result = validate_input(frame, label="label")
    check = result.check("feature_level_variants", column="shade")
    assert check.severity == "warning" and result.success
    assert check.details["groups"] == [[["red", 3], ["RED", 1], ["Red ", 1]]]
    assert "'red' (3 rows), 'RED' (1 row) and 'Red ' (1 row)" in check.message
    assert "--exclude shade" in check.message
    # 'color' (a categorical written one way) does not warn, nor free text
    frame["note"] = [
        f"Long comment number {i}, long enough to be text" for i in range(8)
    ]
    frame.loc[1, "note"] = "long comment number 0, long enough to be text"
    result = validate_input(frame, label="label")
    warned = [c.column for c in result.checks if c.name == "feature_level_variants"]
    assert warned == ["shade"]


def test_numbers_stored_as_text_because_of_a_gap_warn(frame):
    frame["dose"] = ["1.5", "2", "?", "3.25", "2", "4", "1.5", "?"]
    frame["code"] = ["1", "2"] * 4  # numbers as text, no gap: categories
    frame["word"] = ["low", "?", "high", "low", "high", "low", "?", "high"]
    result = validate_input(frame, label="label")
    (check,) = [c for c in result.checks if c.name == "feature_numbers_as_text"]
    assert check.column == "dose" and check.severity == "warning"
    assert check.details == {"placeholders": ["?"], "numbers": 4}
    assert "holds numbers and '?' (2 rows), so it is read as text" in check.message


def test_dates_written_as_text_warn(frame):
    # Dates stored as text are read as categories, one per day, compared
    # only for equality: the run says so and how to use them as dates.
    frame["day"] = [f"2024-03-{d:02d}" for d in range(1, 9)]
    frame["seen"] = [f"{m}/1{m}/1990 0:00:00" for m in range(1, 9)]
    frame["year"] = [str(2000 + i) for i in range(8)]  # numbers as text
    frame["shade"] = ["red", "2024-03-01"] * 4  # some values only
    result = validate_input(frame, label="label")
    assert result.success
    warned = {c.column: c for c in result.checks if c.name == "feature_dates_as_text"}
    assert sorted(warned) == ["day", "seen"]
    day = warned["day"]
    assert day.severity == "warning" and day.details["distinct"] == 8
    assert "holds dates written as text (e.g. '2024-03-01')" in day.message
    assert "--exclude day" in day.message
    assert warned["seen"].details["example"] == "1/11/1990 0:00:00"
