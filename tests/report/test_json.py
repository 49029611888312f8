"""report.json: exact counts, ranking, tolerance of missing evidence, JSON types."""

import datetime as dt
import json
import re

import numpy as np
import pandas as pd
import pytest

from labelclean.exceptions import DataValidationError
from labelclean.report import EVIDENCE_COLUMNS, build_report, to_jsonable


def _strict_json(report):
    return json.loads(json.dumps(report, allow_nan=False))


def test_counts_per_decision_and_class(audit):
    report = build_report(audit, label="label", reason_descriptions={})
    assert _strict_json(report) == report
    summary = report["summary"]
    assert summary["decisions"] == {"kept": 6, "corrected": 2, "discarded": 2}
    assert summary["n_flagged"] == 4
    assert summary["n_cleaned_rows"] == 8
    assert summary["shares"]["kept"] == pytest.approx(0.6)
    classes = {c["label"]: c for c in report["classes"]}
    assert [c["label"] for c in report["classes"]] == ["a", "b", "c"]
    assert classes["a"] == {
        "label": "a",
        "n_observed": 3,
        "kept": 2,
        "corrected_away": 0,
        "corrected_into": 2,
        "discarded": 1,
        "n_cleaned": 4,
        "share_discarded": pytest.approx(1 / 3),
        "share_corrected": 0.0,
        "flagged": 1,
        "share_flagged": pytest.approx(1 / 3),
        "net_change": pytest.approx(1 / 3),  # 3 rows in, 4 in the cleaned output
        "estimated_noise": None,  # no calibration in this run
        "estimated_noise_interval": None,
        "noise_checked": None,
    }
    assert classes["b"]["corrected_away"] == 1 and classes["b"]["discarded"] == 1
    assert classes["c"]["n_cleaned"] == 2
    assert report["corrections"] == [
        {"from": "b", "to": "a", "count": 1},
        {"from": "c", "to": "a", "count": 1},
    ]
    assert report["reasons"] == [
        {"decision": "kept", "reason": "ok", "count": 6, "description": None},
        {
            "decision": "corrected",
            "reason": "trusted_alternative",
            "count": 2,
            "description": None,
        },
        {
            "decision": "discarded",
            "reason": "low_confidence",
            "count": 1,
            "description": None,
        },
        {
            "decision": "discarded",
            "reason": "spl_zero",
            "count": 1,
            "description": None,
        },
    ]
    described = build_report(audit, reason_descriptions={"spl_zero": "SPL weight 0"})
    assert described["reasons"][-1]["description"] == "SPL weight 0"
    assert report["input"]["user_columns"] == ["x", "color"]
    assert report["input"]["n_classes_observed"] == 3


def test_histograms(audit):
    report = build_report(audit, n_bins=10)
    conf = report["distributions"]["confidence"]
    assert conf["bin_edges"][0] == 0.0 and conf["bin_edges"][-1] == 1.0
    assert len(conf["bin_edges"]) == 11
    assert sum(conf["counts"]["kept"]) == 6
    assert conf["counts"]["corrected"][0] == 1  # 0.05
    assert conf["counts"]["corrected"][1] == 1  # 0.1 falls in [0.1, 0.2)
    assert conf["summary"]["max"] == 0.95
    rounds = report["distributions"]["spl_zero_round"]
    assert rounds == {
        "column": "spl_zero_round",
        "values": [2, 3, 5],
        "counts": [1, 2, 1],
        "n_missing": 6,
    }


def test_suspects_ranked_with_evidence(audit):
    report = build_report(audit, n_suspects=3)
    rows = report["suspects"]["rows"]
    assert [r["rank"] for r in rows] == [1, 2, 3]
    # suspicion = 1 - mean(confidence, model_probability, spl_weight)
    # r6: 1 - (0.05+0.1+0)/3 = .95 ; r7: .9333 ; r8: .7667 ; r9: .7333
    assert [r["row_id"] for r in rows] == ["r6", "r7", "r8"]
    assert report["suspects"]["n_listed"] == 3
    assert report["suspects"]["n_flagged"] == 4
    assert rows[0]["suspicion"] == pytest.approx(0.95)
    assert rows[0]["neighbor_label_counts"] == {"a": 4, "b": 1}
    assert rows[0]["spl_zero_round"] == 2
    assert rows[0]["observed_label"] == "b" and rows[0]["cleaned_label"] == "a"
    # The row's feature values and a sentence on its evidence.
    assert rows[0]["features"] == {"x": 6.0, "color": "blue"}
    assert report["suspects"]["feature_columns"] == ["x", "color"]
    assert rows[0]["why"] == (
        "neighbours give 'b' 0.05 and favour 'a' (0.95); the model gives 'b' 0.10 "
        "and predicts 'a'; SPLBoost left it out in round 2; relabelled to 'a': "
        "both stages trust it."
    )


def test_every_flagged_row_is_listed_and_no_kept_row(audit):
    report = build_report(audit)
    ids = [r["row_id"] for r in report["suspects"]["rows"]]
    assert ids == ["r6", "r7", "r8", "r9"]
    assert report["suspects"]["n_listed"] == report["suspects"]["n_flagged"] == 4


def test_suspicion_is_the_calibrated_noise_probability(audit):
    # With noise_probability in the audit, the rows are ranked by it.
    frame = audit.assign(noise_probability=[0.0] * 6 + [0.6, 0.7, 0.99, 0.8])
    report = build_report(frame)
    assert [r["row_id"] for r in report["suspects"]["rows"]] == ["r8", "r9", "r7", "r6"]
    assert report["suspects"]["rows"][0]["suspicion"] == pytest.approx(0.99)
    assert report["suspects"]["rows"][0]["why"].startswith("99% likely mislabelled")


def test_label_matrix(audit):
    matrix = build_report(audit)["label_matrix"]
    assert matrix == {
        "labels": ["a", "b", "c"],
        "counts": [[2, 0, 0], [1, 2, 0], [1, 0, 2]],
        "discarded": [1, 1, 0],
    }


def test_class_order_follows_a_categorical_label(audit):
    order = ["c", "a", "b"]
    frame = audit.assign(
        observed_label=pd.Categorical(audit["observed_label"], categories=order),
        cleaned_label=pd.Categorical(audit["cleaned_label"], categories=order),
    )
    report = build_report(frame)
    assert [c["label"] for c in report["classes"]] == order
    assert report["label_matrix"]["labels"] == order
    # Without the categorical order, labels are sorted.
    assert [c["label"] for c in build_report(audit)["classes"]] == ["a", "b", "c"]


def test_class_health_takes_the_estimated_noise_from_the_run(audit):
    run = {
        "calibration": {
            "classes": ["a", "b", "c"],
            "noise_rate_per_class": [0.1, 0.2, 0.3],
            "noise_rate_per_class_interval": [[0.0, 0.2], [0.1, 0.4], [0.2, 0.5]],
        }
    }
    classes = build_report(audit, run=run)["classes"]
    assert [c["estimated_noise"] for c in classes] == [0.1, 0.2, 0.3]
    assert classes[1]["estimated_noise_interval"] == [0.1, 0.4]
    assert [c["noise_checked"] for c in classes] == [True] * 3
    # A class the evidence does not tell apart: its estimate is an assumption.
    seen = [{"recognised": True}, {"recognised": False}, {"recognised": True}]
    run["calibration"]["predictability"] = {"per_class": seen}
    classes = build_report(audit, run=run)["classes"]
    assert [c["noise_checked"] for c in classes] == [True, False, True]
    # A run written before the per-class intervals: the estimate alone.
    del run["calibration"]["noise_rate_per_class_interval"]
    classes = build_report(audit, run=run)["classes"]
    assert [c["estimated_noise_interval"] for c in classes] == [None] * 3
    assert [c["net_change"] for c in classes] == pytest.approx([1 / 3, -0.5, -1 / 3])


def test_examples_and_id_column(audit):
    frame = audit.reset_index()
    report = build_report(frame, id_column="id", n_examples=2)
    # The most suspicious rows of each decision: for kept rows the closest calls
    # (r5: 1 - (0.6 + 0.7 + 0.5) / 3 = 0.4, r3: 0.1667).
    assert [e["row_id"] for e in report["examples"]["kept"]] == ["r5", "r3"]
    assert [e["row_id"] for e in report["examples"]["discarded"]] == ["r8", "r9"]
    assert "id" not in report["examples"]["columns"]
    assert report["examples"]["discarded"][0]["cleaned_label"] is None


@pytest.mark.parametrize("drop", [list(EVIDENCE_COLUMNS), ["confidence", "spl_weight"]])
def test_missing_evidence_is_tolerated(audit, drop):
    report = build_report(audit.drop(columns=[c for c in drop if c in audit]))
    _strict_json(report)
    absent = set(drop) | (set(EVIDENCE_COLUMNS) - set(audit.columns))
    assert report["evidence"]["missing"] == [c for c in EVIDENCE_COLUMNS if c in absent]
    assert not set(drop) & set(report["distributions"])
    # Every flagged row is listed, and only those.
    assert len(report["suspects"]["rows"]) == 4
    assert {r["decision"] for r in report["suspects"]["rows"]} == {
        "corrected",
        "discarded",
    }


def test_empty_audit(audit):
    report = build_report(audit.iloc[:0])
    _strict_json(report)
    assert report["summary"]["decisions"] == {"kept": 0, "corrected": 0, "discarded": 0}
    assert report["classes"] == [] and report["suspects"]["rows"] == []


def test_non_string_labels_and_nan_evidence(audit):
    frame = audit.assign(
        observed_label=[1, 1, 2, 2, 3, 3, 2, 3, 1, 2],
        cleaned_label=pd.array([1, 1, 2, 2, 3, 3, 1, 1, None, None], dtype="Int64"),
        confidence=[np.nan, np.inf] + [0.5] * 8,
    )
    report = build_report(frame)
    _strict_json(report)
    assert [c["label"] for c in report["classes"]] == [1, 2, 3]
    assert report["distributions"]["confidence"]["n_missing"] == 2


def test_run_and_validation_are_copied(audit):
    run = {
        "seed": np.int64(3),
        "started": dt.datetime(2024, 1, 2, 3, 4, 5),
        "p": (1.5,),
    }
    validation = [
        {"suite": "input", "success": True, "checks": []},
        {"suite": "output", "success": False, "checks": []},
    ]
    report = build_report(audit, run=run, validation=validation)
    assert report["run"] == {"seed": 3, "started": "2024-01-02T03:04:05", "p": [1.5]}
    assert report["summary"]["validation_success"] is False
    assert report["validation"][0]["suite"] == "input"
    assert build_report(audit)["summary"]["validation_success"] is None


def test_report_is_deterministic(audit):
    a = json.dumps(build_report(audit), sort_keys=True)
    b = json.dumps(build_report(audit.copy()), sort_keys=True)
    assert a == b


def test_bad_audit():
    with pytest.raises(
        DataValidationError, match=re.escape("lacks the column(s) ['reason'")
    ):
        build_report(
            pd.DataFrame(
                {"decision": ["kept"], "observed_label": [1], "cleaned_label": [1]}
            )
        )
    bad = pd.DataFrame(
        {
            "decision": ["maybe"],
            "reason": ["?"],
            "observed_label": [1],
            "cleaned_label": [1],
        }
    )
    with pytest.raises(DataValidationError, match="outside \\['kept', 'corrected'"):
        build_report(bad)
    with pytest.raises(DataValidationError, match="must be a pandas DataFrame"):
        build_report({"decision": []})


def test_to_jsonable():
    assert to_jsonable(
        {
            1: np.float32(0.5),
            "t": pd.Timestamp("2024-01-01"),
            "n": pd.NA,
            "x": np.nan,
            "a": np.array([1, 2]),
            "b": b"\xff",
            "s": {3, 1},
            "nat": pd.NaT,
            "d": np.datetime64("NaT"),
            "td": pd.Timedelta("1s"),
            "o": object,
        }
    ) == {
        "1": 0.5,
        "t": "2024-01-01T00:00:00",
        "n": None,
        "x": None,
        "a": [1, 2],
        "b": "ff",
        "s": [1, 3],
        "nat": None,
        "d": None,
        "td": "0 days 00:00:01",
        "o": "<class 'object'>",
    }


def test_reasons_are_described_by_default(audit):
    from labelclean.report import DECISION_REASONS

    reasons = {r["reason"]: r["description"] for r in build_report(audit)["reasons"]}
    assert reasons["ok"] == DECISION_REASONS["ok"]
    assert reasons["spl_zero"] is None  # not one of labelclean's reasons
