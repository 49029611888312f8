"""Feature columns that number the rows in an order that groups the label
(``run.row_orders`` and the caution ``label_in_row_order``)."""

import numpy as np
import pandas as pd
import pytest

from labelclean import LabelCleaner
from labelclean.report._row_order import row_order_caution, row_orders

N = 60


def _audit(**columns):
    label = np.repeat(["a", "b", "c"], N // 3)
    return pd.DataFrame({**columns, "observed_label": label})


def test_a_numbering_in_the_labels_order_is_found_and_a_shuffled_one_is_not():
    shuffled = np.random.default_rng(0).permutation(N)
    audit = _audit(row=np.arange(N) * 7 + 3, mixed=shuffled)
    (found,) = row_orders(audit, ["row", "mixed"])
    # 57 of 59 consecutive pairs agree; chance 1/3
    assert found == {"column": "row", "rows": N,
                     "kappa": pytest.approx((57 / 59 - 1 / 3) / (2 / 3))}  # fmt: skip
    # descending is an order too
    assert row_orders(_audit(row=-np.arange(N)), ["row"])[0]["kappa"] > 0.9


@pytest.mark.parametrize(
    "column",
    [
        np.arange(N, dtype=np.float64),  # a measurement, not a numbering
        np.arange(N) // 2,  # two rows share a value
        pd.array([*range(N - 1), None], dtype="Int64"),  # a gap
        np.arange(N) % 2 == 0,  # truth values
    ],
)
def test_columns_that_are_no_numbering_are_not_read(column):
    assert row_orders(_audit(row=column), ["row"]) == []


def test_rows_without_a_label_are_left_out_and_too_few_rows_read_nothing():
    audit = _audit(row=np.r_[np.arange(N - 1), 0])  # the last id repeats
    audit.loc[N - 1, "observed_label"] = None
    audit["reason"] = ["kept"] * (N - 1) + ["missing_label"]
    assert row_orders(audit, ["row"])[0]["rows"] == N - 1
    assert row_orders(audit.iloc[:19], ["row"]) == []


def test_the_caution_names_the_most_telling_column_and_the_others():
    orders = [{"column": "id", "rows": 90, "kappa": 0.7},
              {"column": "row no", "rows": 90, "kappa": 0.95}]  # fmt: skip
    (caution,) = row_order_caution(orders)
    assert caution["code"] == "label_in_row_order"
    assert caution["message"].startswith(
        "column 'row no' (also 'id') numbers the rows (a different whole number in "
        "each), and in its order consecutive rows share their label far beyond "
        "chance (Cohen's κ 0.95 over 90 rows)"
    )
    assert caution["message"].endswith("run again with --exclude 'row no'")
    assert row_order_caution([]) == [] and row_order_caution(None) == []


def test_the_python_report_reads_the_numbering_as_the_command_line_does():
    rng = np.random.default_rng(1)
    y = np.repeat(["x", "y"], 100)
    X = pd.DataFrame({"row": np.arange(200), "f": rng.normal(size=200) + (y == "y")})
    report = LabelCleaner(random_state=0).fit(X, y).report()
    assert [o["column"] for o in report["run"]["row_orders"]] == ["row"]
    assert "label_in_row_order" in {c["code"] for c in report["cautions"]}


def test_ids_above_two_to_the_53_are_ordered_as_integers():
    # As floats these ids would all be equal, and the rows' own order (the
    # labels') would be read as the ids'.
    shuffled = np.random.default_rng(2).permutation(N)
    big = pd.array(2**60 + shuffled, dtype="Int64")
    assert row_orders(_audit(row=big), ["row"]) == []
    in_order = pd.array(2**60 + np.arange(N), dtype="Int64")
    assert [o["column"] for o in row_orders(_audit(row=in_order), ["row"])] == ["row"]
