"""Flags against the surest rows: when the caution speaks, and what it says."""

from labelclean.report._against import against_caution, against_text
from labelclean.report._cautions import cautions


def _calibration(flagged, pairs):
    return {
        "classes": ["no", "yes", "maybe"],
        "flags_against_surest_rows": {
            "flagged": flagged,
            "against": sum(p["flags"] for p in pairs),
            "pairs": pairs,
        },
    }


BACK = {"label": 1, "as": 0, "flags": 12, "share_as_label": 0.02,
        "share_label_as": 0.31}  # fmt: skip
SMALL = {"label": 2, "as": 0, "flags": 3, "share_as_label": 0.0,
         "share_label_as": 0.2}  # fmt: skip


def test_the_caution_waits_for_half_the_flags():
    assert against_caution(_calibration(31, [BACK, SMALL])) == []
    assert against_text(_calibration(31, [BACK, SMALL])) == ""
    (caution,) = against_caution(_calibration(30, [BACK, SMALL]))
    assert caution["code"] == "flags_against_surest_rows"
    # the pair with the most flags is named, the others counted
    assert caution["message"].startswith(
        "15 of the 30 rows flagged go against what each class's surest rows show: "
        "12 moved label 'yes' to 'no', yet 31.0% of the rows surely of 'yes' carry "
        "the label 'no' and only 2.0% of those surely of 'no' carry 'yes' "
        "(and 1 more such pair(s))"
    )
    assert "rows of 'yes' recorded as 'no'" in caution["message"]
    assert caution["message"].endswith(
        "before relying on the run's discards or corrections"
    )
    assert against_text(_calibration(30, [BACK, SMALL])).startswith(" 15 of the 30")


def test_a_first_reading_left_out_is_said_with_what_was_flagged_without_it():
    first = _calibration(30, [BACK, SMALL])["flags_against_surest_rows"]
    cal = _calibration(4, [])
    cal["flags_against_surest_rows"]["withheld"] = first
    (caution,) = against_caution(cal)
    assert caution["message"].startswith(
        "15 of the 30 rows a first reading flagged go against"
    )
    assert (
        "left out of the noise estimate and 4 row(s) flagged without them"
        in (caution["message"])
    )
    assert caution["message"].endswith(
        "review the rows labelled 'yes' and 'no' ('labelclean review export')"
    )
    first["flagged"] = 31  # under half: nothing was left out, nothing said
    assert against_caution(cal) == []


def test_no_caution_without_flags_against_or_without_the_reading():
    assert against_caution(_calibration(0, [])) == []
    assert against_caution({"classes": ["a", "b"]}) == []  # a report of an older run
    assert against_caution(None) == []


def test_the_report_lists_it_with_the_calibrated_rule_only():
    cal = {**_calibration(12, [BACK]), "noise_rate": 0.1, "flagged": 12,
           "flag_precision_interval": [0.6, 0.9]}  # fmt: skip
    codes = [c["code"] for c in cautions({"calibration": cal})]
    assert codes == ["flags_against_surest_rows"]
    fixed = {**cal, "decision_rule": "thresholds"}
    assert cautions({"calibration": fixed}) == []
