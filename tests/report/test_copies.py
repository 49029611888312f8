"""Label copies: which columns count, and when the caution speaks."""

import numpy as np
import pandas as pd
import pytest

from labelclean.report._copies import copy_caution, label_copies


def _audit(label, decision, **columns):
    n = len(label)
    return pd.DataFrame({
        **columns,
        "observed_label": label,
        "cleaned_label": [None if d == "discarded" else v
                          for v, d in zip(label, decision, strict=True)],
        "decision": decision,
        "reason": ["ok"] * n,
    })  # fmt: skip


LABEL = ["a"] * 6 + ["b"] * 6
FLAGS = ["kept"] * 5 + ["discarded"] + ["kept"] * 6


def test_a_copy_counts_the_flags_where_it_differs_and_not_its_missing_values():
    copy = ["a"] * 5 + ["b"] + ["b"] * 5 + [None]
    audit = _audit(LABEL, FLAGS, before=pd.Series(copy, dtype="category"))
    (found,) = label_copies(audit, ["before"])
    # 6 'a' and 5 'b' labels, 5 'a' and 6 'b' values: chance agreement 60/121
    chance = 60 / 121
    assert found == {
        "column": "before", "rows": 11, "equal": 10 / 11,
        "kappa": pytest.approx((10 / 11 - chance) / (1 - chance)), "flagged": 1,
        "flagged_where_different": 1, "corrected_to_column": 0,
    }  # fmt: skip
    # the one flag is explained: the caution names the column
    (caution,) = copy_caution([found])
    assert caution["code"] == "label_copy"
    assert "1 of the 1 flagged" in caution["message"]


@pytest.mark.parametrize(
    "column",
    [
        ["a"] * 5 + ["b"] + ["b"] * 4 + ["x", "y"],  # 2 of 12 values not classes
        ["b"] * 6 + ["a"] * 6,  # the classes' values, never equal to the label
        ["a"] * 4 + ["b"] * 2 + ["a"] * 2 + ["b"] * 4,  # equal in 8 of 12: κ 1/3
        list(range(12)),  # numbers
    ],
)
def test_columns_that_are_no_copy_are_not_named(column):
    assert label_copies(_audit(LABEL, FLAGS, other=column), ["other"]) == []


@pytest.mark.parametrize("classes", [(0, 1), ("0", "1"), (True, False)])
def test_labels_that_are_numbers_or_truth_values_have_no_copies(classes):
    label = [classes[0]] * 6 + [classes[1]] * 6
    copy = np.array([str(v) for v in label], dtype=object)
    assert label_copies(_audit(label, FLAGS, copy=copy), ["copy"]) == []


def test_a_yes_no_column_agreeing_by_chance_is_no_copy():
    rng = np.random.default_rng(0)
    label = np.where(rng.random(1000) < 0.1, "yes", "no")
    other = np.where(rng.random(1000) < 0.1, "yes", "no")  # independent
    audit = _audit(list(label), ["kept"] * 1000, other=other)
    assert (label == other).mean() > 0.8  # the rows agree, the columns do not
    assert label_copies(audit, ["other"]) == []


def test_the_caution_waits_for_half_the_flags():
    found = {"column": "before", "rows": 100, "equal": 0.9, "kappa": 0.8, "flagged": 9,
             "flagged_where_different": 4, "corrected_to_column": 0}  # fmt: skip
    assert copy_caution([found]) == []
    assert copy_caution([{**found, "flagged_where_different": 5}])
    assert copy_caution([{**found, "flagged": 0, "flagged_where_different": 0}]) == []
    assert copy_caution(None) == []
