"""report.html: rendered from the JSON alone, self-contained, escaped, stable."""

import base64
import hashlib
import json
import re
from html import unescape

import pandas as pd
import pytest
from sklearn.datasets import make_classification
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.report import build_report, render_html
from labelclean.report._cautions import cautions
from labelclean.report._why import why

SECTIONS = [
    "Summary",
    "Input",
    "Validation",
    "Decisions",
    "Evidence",
    "Suspects",
    "Examples",
    "Parameters",
    "About this report",
]


def _report(audit, **kwargs):
    report = build_report(
        audit,
        label="label",
        run={
            "pipeline": {
                "name": "binary-cbadaboost",
                "stages": [
                    {
                        "name": "confidence",
                        "kind": "knn_confidence",
                        "params": {"n_neighbors": 5},
                    }
                ],
            },
            "seed": 7,
            "inputs": [{"path": "in.parquet", "rows": 10, "sha256": "0" * 64}],
        },
        validation=[
            {
                "suite": "labelclean_input",
                "success": False,
                "checks": [
                    {
                        "name": "label_not_null",
                        "column": "label",
                        "success": False,
                        "severity": "error",
                        "unexpected_count": 2,
                        "unexpected_percent": 20.0,
                        "examples": ["r1", "r4"],
                        "message": "2 row(s) have no label",
                    }
                ],
            }
        ],
        **kwargs,
    )
    # Round trip: the page is rendered from what report.json holds.
    return json.loads(json.dumps(report, allow_nan=False))


def test_sections_and_story(audit):
    html = render_html(_report(audit))
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in html
    assert "10 row(s) came in with 3 observed class(es) in the label column" in html
    assert "Validation ran 1 check(s): 0 passed, 1 failed and 0 warned" in html
    assert "corrected 2 (20.0%) and discarded 2 (20.0%)" in html
    assert "The most frequent correction was b → a (1 row(s))." in html
    assert "The most suspicious row is r6: observed b, corrected to a" in html
    assert "binary-cbadaboost" in html and "n_neighbors" in html
    assert "2 row(s) have no label" in html


def test_self_contained(audit):
    html = render_html(_report(audit))
    # One script, allowed by its digest; the rows travel as a JSON data block.
    scripts = re.findall(r"<script>(.*?)</script>", html, flags=re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in html
    assert "script-src 'unsafe-inline'" not in html and "'unsafe-eval'" not in html
    assert html.count('<script type="application/json" id="suspect-data">') == 1
    assert not re.search(r"""(src|href)=["'](?!data:|#)""", html)
    assert "http://" not in html and "https://" not in html
    assert "<link" not in html
    assert "default-src 'none'" in html  # CSP: nothing may be loaded
    images = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)
    # classes + confidence, trusted_probability, spl_weight, model_probability
    assert len(images) == 5
    assert b"<svg" in base64.b64decode(images[0])


def test_user_values_are_escaped(audit):
    # The row with the script as a value is flagged, so it is in the table, in
    # the data block and in the examples.
    frame = audit.assign(decision=["kept"] + ["discarded"] * 9)
    html = render_html(_report(frame, n_examples=10))
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # HTML-escaped
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in html  # JSON


def test_deterministic_bytes(audit):
    report = _report(audit)
    assert render_html(report) == render_html(json.loads(json.dumps(report)))


def test_without_plots_and_without_evidence(audit):
    minimal = audit[["x", "decision", "reason", "observed_label", "cleaned_label"]]
    html = render_html(json.loads(json.dumps(build_report(minimal))), plots=False)
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in html
    assert "data:image/" not in html
    assert "The audit holds no evidence columns to plot." in html
    assert "No validation results were recorded" in html
    assert "No run information was recorded." in html


def test_all_null_round_column_renders():
    # Non-regression: an audit whose spl_zero_round is null everywhere (as at
    # `apply`, where SPLBoost weights do not exist) made the template iterate
    # the dict's .values method.
    import pandas as pd

    from labelclean.report import build_report, render_html

    audit = pd.DataFrame(
        {
            "x": [1.0, 2.0, 3.0],
            "decision": ["kept", "kept", "discarded"],
            "reason": ["ok", "ok", "low_confidence"],
            "observed_label": ["a", "b", "a"],
            "cleaned_label": ["a", "b", None],
            "confidence": [0.9, 0.8, 0.1],
            "spl_weight": [float("nan")] * 3,
            "spl_zero_round": pd.array([None, None, None], dtype="Int64"),
        }
    )
    html = render_html(build_report(audit, label="observed_label"))
    assert "spl_zero_round" in html


def test_story_names_the_final_model_and_its_choice(audit):
    chosen = {
        "name": "cb_adaboost",
        "estimator": "CBAdaBoostClassifier",
        "selection": {
            "chosen": "cb_adaboost",
            "candidates": {
                "rosr": {"error_rate": 0.25, "rows": 10},
                "cb_adaboost": {"error_rate": 0.125, "rows": 10},
            },
        },
    }
    html = render_html(build_report(audit, run={"final_model": chosen}))
    assert (
        "The final model was CB-AdaBoost, chosen by out-of-fold error rate against "
        "the observed labels (RoSR-L 25.0%, CB-AdaBoost 12.5%)." in html
    )
    # chosen again on the cleaned rows, apart from the evidence's model
    rechosen = {
        "name": "cb_adaboost_trees",
        "selection": {
            "candidates": {"rosr": {"error_rate": 0.25, "rows": 10}},
            "chosen": "rosr",
            "final": {
                "chosen": "cb_adaboost_trees",
                "candidates": {
                    "rosr": {"error_rate": 0.2, "rows": 8},
                    "cb_adaboost_trees": {"error_rate": 0.05, "rows": 8},
                },
            },
        },
    }
    html = unescape(render_html(build_report(audit, run={"final_model": rechosen})))
    assert (
        "The final model was CB-AdaBoost (depth-3 trees), chosen by out-of-fold "
        "error rate against the cleaned labels of the cleaned rows, each row "
        "counted once (or by its sample weight), not by the evidence's doubt "
        "(RoSR-L 20.0%, CB-AdaBoost (depth-3 trees) 5.0%); the "
        "out-of-fold evidence that decided the rows came from RoSR-L, which "
        "also decides new rows." in html
    )
    given = {"name": "LogisticRegression", "selection": {"candidates": {}}}
    html = render_html(build_report(audit, run={"final_model": given}))
    assert "The final model was LogisticRegression." in html
    assert "The final model was" not in render_html(build_report(audit))


def test_story_says_how_the_evidence_was_chosen_apart_from_the_final_model(audit):
    # the shipped two-class pipeline: CB-AdaBoost's depth chosen for the
    # evidence, the final model stacked on the cleaned rows
    final = {
        "name": "stacked",
        "selection": {
            "chosen": "cb_adaboost_trees",
            "order": ["cb_adaboost", "cb_adaboost_trees"],
            "candidates": {
                "cb_adaboost": {"error_rate": 0.3, "rows": 10},
                "cb_adaboost_trees": {"error_rate": 0.2, "rows": 10},
            },
            "final": {
                "chosen": "stacked",
                "stack": {"members": {"rosr": {"weight": 1.0}}},
                "candidates": {},
            },
        },
    }
    html = render_html(build_report(audit, run={"final_model": final}))
    assert (
        "the out-of-fold evidence that decided the rows came from CB-AdaBoost "
        "(depth-3 trees) (chosen by out-of-fold error rate against the observed "
        "labels: CB-AdaBoost 30.0%, CB-AdaBoost (depth-3 trees) 20.0%; the first "
        "kept unless another is lower by more than a standard error), which also "
        "decides new rows." in html
    )
    # where the run recorded it, the labels each candidate was fitted to
    fitted_on = {"cb_adaboost": "soft", "cb_adaboost_trees": "soft", "rosr": "observed"}
    candidates = final["selection"]["candidates"]
    candidates["rosr"] = {"error_rate": 0.25, "rows": 10}
    final["selection"]["order"].append("rosr")  # listed in the order compared
    for name, labels in fitted_on.items():
        candidates[name]["fitted_on"] = labels
    html = render_html(build_report(audit, run={"final_model": final}))
    assert (
        "labels: CB-AdaBoost 30.0%, CB-AdaBoost (depth-3 trees) 20.0%, RoSR-L "
        "25.0%; each fitted to the labels it gives the evidence on, CB-AdaBoost "
        "and CB-AdaBoost (depth-3 trees) to the neighbours' soft labels and "
        "RoSR-L to the observed labels; the first kept unless" in unescape(html)
    )
    # said too where the evidence and the final model came out the same kind
    final["name"] = final["selection"]["chosen"] = "rosr"
    html = unescape(render_html(build_report(audit, run={"final_model": final})))
    assert (
        "the out-of-fold evidence that decided the rows came from RoSR-L too "
        "(chosen by out-of-fold error rate against the observed labels: "
        "CB-AdaBoost 30.0%" in html
    )


def test_the_deep_trees_are_named_with_the_depth_the_fit_grew(audit):
    deep = {"error_rate": 0.1, "rows": 8, "depth": 9}
    final = {
        "name": "cb_adaboost_deep",
        "selection": {
            "chosen": "rosr",
            "candidates": {"rosr": {"error_rate": 0.3, "rows": 8}},
            "final": {
                "chosen": "cb_adaboost_deep",
                "candidates": {
                    "rosr": {"error_rate": 0.3, "rows": 8},
                    "cb_adaboost_deep": deep,
                },
            },
        },
    }
    html = render_html(build_report(audit, run={"final_model": final}))
    assert "The final model was CB-AdaBoost (depth-9 trees), chosen" in html
    assert "CB-AdaBoost (depth-9 trees) 10.0%" in html
    assert "stopped early" not in html
    deep["early_stopping"] = True  # above 10,000 rows
    html = render_html(build_report(audit, run={"final_model": final}))
    assert "The final model was CB-AdaBoost (depth-9 trees, stopped early)" in html
    del deep["early_stopping"]
    # a report written before the depth was recorded does not guess it
    del deep["depth"]
    html = render_html(build_report(audit, run={"final_model": final}))
    assert "The final model was CB-AdaBoost (deep trees), chosen" in html
    assert "depth-5" not in html and "depth-9" not in html


def test_the_penalty_is_said_only_where_rosr_is_in_the_final_model(audit):
    # RoSR-L's penalty is searched before the stack's weights leave it out:
    # the clause must not follow a final model RoSR-L is no part of.
    penalty = {"chosen": 0.01, "default": 0.001, "compared": 0.01,
               "candidates": {"0.001": {"error_rate": 0.2},
                              "0.01": {"error_rate": 0.1}}}  # fmt: skip

    def story(name, members):
        stack = {"members": {m: {"weight": w, "temperature": 1.0}
                             for m, w in members.items()}}  # fmt: skip
        final = {"name": name, "selection": {
            "chosen": "rosr", "final_penalty": penalty,
            "final": {"chosen": name, "stack": stack, "candidates": {}}}}  # fmt: skip
        html = render_html(build_report(audit, run={"final_model": final}))
        return next(s for s in re.findall(r"<p>([^<]*)</p>", html)
                    if s.startswith("The final model"))  # fmt: skip

    with_rosr = story("stacked", {"rosr": 0.6, "cb_adaboost_trees": 0.4})
    assert "RoSR-L&#39;s penalty μ = 0.01 was chosen out of fold" in with_rosr
    assert "penalty" in story("rosr", {"rosr": 1.0})
    trees_alone = story("cb_adaboost_trees", {"cb_adaboost_trees": 1.0})
    assert trees_alone.startswith("The final model was CB-AdaBoost (depth-3 trees)")
    assert "penalty" not in trees_alone
    without = story("stacked", {"cb_adaboost": 0.5, "cb_adaboost_trees": 0.5})
    assert "weighted average of CB-AdaBoost (0.50)" in without
    assert "penalty" not in without


@pytest.mark.parametrize("label", ["$}$", "$x^2$", "a$b", r"\frac{1}{2}"])
def test_labels_are_drawn_as_written_not_as_mathtext(label):
    import pandas as pd

    from labelclean.report import build_report, render_html

    audit = pd.DataFrame(
        {
            "decision": ["kept", "corrected", "discarded", "kept"],
            "reason": ["ok", "trusted_alternative", "low_confidence", "ok"],
            "observed_label": [label, "b", label, "b"],
            "cleaned_label": [label, label, None, "b"],
            "confidence": [0.9, 0.1, 0.2, 0.8],
        }
    )
    html = render_html(build_report(audit))
    assert "data:image/svg+xml;base64," in html  # the class plot was drawn


def test_class_names_in_any_script_stay_text_the_browser_draws():
    # The plotting font has no CJK ideographs or Devanagari: drawn into
    # pixels they were empty boxes, with a warning per character on stderr.
    import warnings

    import pandas as pd

    from labelclean.report import build_report, render_html

    names = ["日本", "हिन्दी", "a<b&c"]
    audit = pd.DataFrame(
        {
            "decision": ["kept", "discarded", "kept", "corrected", "kept", "kept"],
            "reason": ["ok", "low_confidence", "ok", "trusted_alternative", "ok", "ok"],
            "observed_label": names * 2,
            "cleaned_label": [names[0], None, names[2], names[2], names[1], names[2]],
            "confidence": [0.9, 0.2, 0.8, 0.1, 0.7, 0.6],
        }
    )
    report = json.loads(json.dumps(build_report(audit)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        html = render_html(report)
    assert [str(w.message) for w in caught] == []
    assert html == render_html(report)  # the same bytes again
    images = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)
    svg = base64.b64decode(images[0]).decode("utf-8")  # the classes' plot
    for name in ("日本", "हिन्दी", "a&lt;b&amp;c"):  # XML-escaped, as text
        assert f">{name}</text>" in svg
    assert "<script" not in svg


def test_story_counts_withheld_and_limited_pairs_beyond_the_first_three(audit):
    # With ten classes a run can withhold eighteen pairs; the story named
    # each with its rows and became a wall of text. It names three and
    # counts the rest (report.json keeps every pair).
    def pair(source, dest, rows, **extra):
        return {"from": source, "to": dest, "noise_cell_rows": rows,
                "noise_cell_lower_limit": rows / 4, **extra}  # fmt: skip

    withheld = [pair(f"w{k}", "z", 1.0 + k, estimated_precision_at_least_noise=0.5,
                     corrected=0, reached_target=1) for k in range(5)]  # fmt: skip
    limited = [pair(f"l{k}", "z", 30.0, estimated_precision_at_least_noise=0.95,
                    corrected=2, reached_target=3) for k in range(4)]  # fmt: skip
    calibration = {"noise_rate": 0.2, "correction_target": 0.9, "flagged": 0,
                   "correction_pairs": withheld + limited,
                   "anchor_disagreement": {"lower_limit": 0.025}}  # fmt: skip
    html = unescape(render_html(build_report(audit, run={"calibration": calibration})))
    assert "Corrections w0 → z, w1 → z, w2 → z and 2 more pairs were withheld" in html
    assert "each rests on 1.0–5.0 rows of the one label that are of the other " in html
    assert "perhaps as few as 0.2–1.2" in html
    assert "as little as 2.5% noise" in html
    assert (
        "Corrections l0 → z (2 of 3), l1 → z (2 of 3), l2 → z (2 of 3) and 1 more "
        "pair were limited to the rows the evidence is surest of" in html
    )
    assert "w3 → z" not in html and "l3 → z" not in html


def test_counts_of_rows_read_with_thousands_separators(audit):
    # The audit repeated 1,235 times: 12,350 rows, 7,410 kept.
    big = pd.concat([audit] * 1235, ignore_index=True)
    big.index = pd.Index([f"r{i}" for i in range(len(big))], name="id")
    text = unescape(re.sub(r"<[^>]+>", " ", render_html(build_report(big))))
    text = " ".join(text.split())
    assert "12,350 row(s) came in with 3 observed class(es)" in text
    assert "labelclean kept 7,410 row(s) (60.0%), corrected 2,470 (20.0%)" in text
    assert "the cleaned output holds 9,880 row(s)." in text
    assert "12,350 rows in" in text  # the first tile
    assert "12350" not in text


def test_a_final_fit_without_self_paced_weights_is_said(audit):
    # The default penalty kept, the self-paced weights left out: the final
    # model is not the one the rows were decided with, and the report says so.
    candidates = {
        "0.001": {"error_rate": 0.2, "mu": 0.001, "weighting": "mixture"},
        "0.01": {"error_rate": 0.19, "mu": 0.01, "weighting": "mixture"},
        "0.001 plain": {"error_rate": 0.1, "mu": 0.001, "weighting": "none"},
    }
    penalty = {"chosen": 0.001, "default": 0.001, "compared": 0.001,
               "weighting": "none", "default_weighting": "mixture",
               "candidates": candidates}  # fmt: skip

    def sentence(record):
        final = {"name": "rosr", "selection": {"final_penalty": record}}
        html = render_html(build_report(audit, run={"final_model": final}))
        return next(s for s in re.findall(r"<p>([^<]*)</p>", html)
                    if s.startswith("The final model"))  # fmt: skip

    said = sentence(penalty)
    assert "penalty μ = 0.001 without self-paced weights was chosen" in said
    assert "among 3 settings, with and without self-paced weights" in said
    assert "(error 10.0% at 0.001 without self-paced weights against 20.0% at" in said
    assert said.endswith("at the default penalty, with its self-paced weights.")
    kept = sentence({**penalty, "weighting": "mixture"})
    assert "penalty" not in kept and "self-paced" not in kept


def test_flags_the_data_cannot_tell_from_right_labels_are_said_to_be_doubtful(
    tmp_path,
):
    # Three overlapping classes, every label right: confident learning counts
    # the classes' edges as noise, a few rows are flagged at a point estimate
    # that reads as sure, and the flags' interval reaches 0 (docs/decisions.md,
    # *Clean labels of overlapping classes*). The summary says so in words.
    X, y = make_classification(
        400, n_features=5, n_informative=3, n_classes=3, n_clusters_per_class=1,
        flip_y=0, random_state=0,
    )  # fmt: skip
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(5)]).assign(label=y)
    frame.to_parquet(data := tmp_path / "overlap.parquet")
    res = CliRunner().invoke(app, ["run", str(data), "--label", "label",
                                   "--out", str(out := tmp_path / "out")])  # fmt: skip
    assert res.exit_code == 0, res.output
    report = json.loads((out / "report.json").read_text())
    cal = report["run"]["calibration"]
    assert cal["flagged"] > 0 and cal["flag_precision"] >= 0.5
    assert cal["flag_precision_interval"][0] < 0.5
    html = unescape((out / "report.html").read_text())
    assert "the data cannot rule out that most flagged rows carry right labels" in html
    assert "'labelclean review export'" in html
    # The run's log says it too, and report.json holds it under a stable code.
    said = [c for c in report["cautions"] if c["code"] == "doubtful_flags"]
    assert len(said) == 1
    assert f"most of the {cal['flagged']} flagged rows may carry right" in said[0][
        "message"]  # fmt: skip
    assert f"WARNING: [doubtful_flags] {said[0]['message']}" in res.stderr
    assert "doubtful_flags" not in res.stdout
    # It names what is at stake: the class that loses the largest share.
    worst = max(report["classes"], key=lambda c: c["share_flagged"])
    n = worst["discarded"] + worst["corrected_away"]
    assert n > 0
    assert (
        f"; class '{worst['label']}' loses {n / worst['n_observed']:.1%} of its "
        f"rows ({n} of {worst['n_observed']})" in said[0]["message"]
    )
    box = html[html.index('<div class="cautions"') :]
    box = box[: box.index("</div>")]
    assert "Read before relying on this run" in box
    low = cal["flag_precision_interval"][0]
    assert f"<li>The flags' precision reaches down to {low:.1%}" in box
    # Flags whose interval stays above one half are not called doubtful.
    # (A report.json without cautions, as an earlier version wrote it: the
    # page reads them from its run.)
    sure = {**report, "run": {**report["run"], "calibration": {
        **cal, "flag_precision_interval": [0.6, 1.0]}}}  # fmt: skip
    del sure["cautions"]
    assert not [c for c in cautions(sure["run"]) if c["code"] == "doubtful_flags"]
    page = unescape(render_html(sure))
    assert "cannot rule out that most flagged rows" not in page
    assert "flagged rows may carry right labels" not in page
    older = {k: v for k, v in report.items() if k != "cautions"}
    assert "flagged rows may carry right labels" in unescape(render_html(older))


def test_a_cautious_run_that_flagged_nothing_points_to_the_review(audit):
    # the surest rows disagree beyond chance, yet no row was flagged: the
    # caution gives the share and its lower limit and names review export
    reading = {"low": True, "kappa": 0.38, "out_of_fold_accuracy": 0.63,
               "majority_share": 0.52}  # fmt: skip
    anchor = {"share": 0.19, "lower_limit": 0.044, "upper_limit": 0.37}
    cal = {"noise_rate": 0.0, "predictability": reading, "flagged": 0,
           "anchor_disagreement": anchor}  # fmt: skip
    (said,) = build_report(audit, run={"calibration": cal})["cautions"]
    assert said["code"] == "poor_predictability"
    assert said["message"].endswith(
        "are rough; no row was flagged, yet 19.0% of the labels of the rows the "
        "evidence is surest of disagree with it (at least 4.4%), as wrong labels "
        "would and overlapping classes can: a person can check the rows whose "
        "labels the evidence doubts most ('labelclean review export')"
    )
    # not where the disagreement may be chance, where rows were flagged, or
    # where fixed thresholds made the decisions
    for change in ({"anchor_disagreement": {**anchor, "lower_limit": 0.004}},
                   {"flagged": 3}, {"decision_rule": "thresholds"}):  # fmt: skip
        run = {"calibration": {**cal, **change}}
        said = build_report(audit, run=run)["cautions"][0]
        assert said["code"] == "poor_predictability"
        assert "review export" not in said["message"], change


def test_a_precision_target_is_said_unused_only_where_no_target_could_flag(audit):
    # fair agreement with the noise taken out: no row is flagged at any
    # target, so a target the user asked for went unused, and the caution
    # and the report's first paragraph say so
    reading = {"low": True, "fair": True, "kappa": 0.18, "kappa_noise_corrected":
               0.34, "out_of_fold_accuracy": 0.74, "majority_share": 0.72}  # fmt: skip
    cal = {"noise_rate": 0.17, "predictability": reading, "flagged": 0,
           "target_precision": 0.5}  # fmt: skip
    said = "so the target asked for (50.0%) went unused"
    report = build_report(audit, run={"calibration": cal})
    (poor,) = report["cautions"]
    assert poor["code"] == "poor_predictability" and said in poor["message"]
    assert "known_noise_rate ('--known-noise-rate')" in poor["message"]
    assert said in unescape(render_html(report))
    # not without a target, where the reading is only low (κ* of 0.4 or more
    # with the noise taken out: a target acts there), where rows were flagged,
    # where fixed thresholds decided, or where rows were added for a known share
    told = {"rate": 0.2, "added": 41, "cut": 0.8}
    for change in ({"target_precision": None},
                   {"predictability": {**reading, "fair": False}},
                   {"flagged": 4, "flag_precision": 0.6, "correction_target": 0.9},
                   {"decision_rule": "thresholds"},
                   {"known_noise": told}):  # fmt: skip
        run = {"calibration": {**cal, **change}}
        report = build_report(audit, run=run)
        assert "went unused" not in json.dumps(report["cautions"]), change
        assert "went unused" not in unescape(render_html(report)), change
    # 'slight' is as weak: no target can flag there either
    slight = {**reading, "fair": False, "slight": True}
    run = {"calibration": {**cal, "predictability": slight}}
    assert said in build_report(audit, run=run)["cautions"][0]["message"]


def test_rows_discarded_for_a_known_share_are_said(audit):
    reading = {"low": True, "kappa": 0.38, "out_of_fold_accuracy": 0.63,
               "majority_share": 0.52}  # fmt: skip
    anchor = {"share": 0.19, "lower_limit": 0.044, "upper_limit": 0.37}
    cal = {"noise_rate": 0.0, "predictability": reading, "flagged": 0,
           "anchor_disagreement": anchor,
           "known_noise": {"rate": 0.2, "added": 41, "cut": 0.83}}  # fmt: skip
    said = build_report(audit, run={"calibration": cal})["cautions"]
    assert [c["code"] for c in said] == ["poor_predictability", "known_noise"]
    assert said[1]["message"].startswith(
        "41 row(s) were discarded because the run was told that 20.0% of the "
        "labels are wrong (known_noise_rate), beyond the 0 the evidence flagged "
        "on its own"
    )
    # rows were discarded, so the caution does not say that none was flagged
    assert "no row was flagged" not in said[0]["message"]
    # a row's why says what was done, not "unchecked", in a class not checked
    row = {"decision": "discarded", "reason": "known_noise", "observed_label": "a",
           "noise_probability": 0.0, "cleaned_label": None}  # fmt: skip
    assert why(row, unchecked=["a"]).endswith(
        "discarded: among the labels the evidence doubts most, up to the share "
        "of wrong labels the run was told."
    )
    assert "not checked" not in why(row, unchecked=["a"])
    # under fixed thresholds the calibrated count is not the rule's flags
    fixed = {**cal, "decision_rule": "thresholds"}
    (told,) = [c for c in build_report(audit, run={"calibration": fixed})[
        "cautions"] if c["code"] == "known_noise"]  # fmt: skip
    assert "beyond the rows the fixed thresholds flagged:" in told["message"]
    assert "beyond the 0" not in told["message"]
    cal["known_noise"]["added"] = 0  # the share was reached without them
    codes = [c["code"] for c in build_report(audit, run={"calibration": cal})[
        "cautions"]]  # fmt: skip
    assert codes == ["poor_predictability"]


def test_a_caution_is_written_whatever_the_reading_holds(audit):
    # κ read as NaN is null in report.json: the caution still says what it
    # can, and the report is still written and rendered.
    reading = {"low": True, "kappa": None, "out_of_fold_accuracy": None,
               "majority_share": 0.5}  # fmt: skip
    run = {"calibration": {"noise_rate": 0.1, "predictability": reading}}
    report = build_report(audit, run=run)
    (said,) = report["cautions"]
    assert said["code"] == "poor_predictability"
    assert said["message"].startswith("the features predict the label poorly:")
    page = unescape(render_html(report, plots=False))
    assert "<li>The features predict the label poorly:" in page
    assert "<p>Warning: the features predict the label poorly, so wrong" in page
    reading.update(kappa=0.31, out_of_fold_accuracy=0.6)
    (said,) = build_report(audit, run=run)["cautions"]
    assert "(Cohen's κ 0.31, out-of-fold accuracy 60.0% against 50.0%" in said[
        "message"]  # fmt: skip
    # A flag-precision interval with a null end is not read as doubtful.
    run["calibration"].update(flagged=3, flag_precision_interval=[None, 0.9])
    codes = [c["code"] for c in build_report(audit, run=run)["cautions"]]
    assert codes == ["poor_predictability"]


def test_an_integer_label_is_written_as_one_where_it_was_corrected(audit):
    # The audit's cleaned_label of an integer label is float (the discarded
    # rows' labels are missing); the report writes 0, not 0.0, as observed.
    codes = {"a": 0, "b": 1, "c": 2}
    audit["observed_label"] = audit["observed_label"].map(codes).astype("int64")
    audit["cleaned_label"] = audit["cleaned_label"].map(codes).astype("float64")
    report = build_report(audit)
    corrected = [r for r in report["suspects"]["rows"] if r["decision"] == "corrected"]
    assert corrected and all(type(r["cleaned_label"]) is int for r in corrected)
    assert {r["cleaned_label"] for r in corrected} == {0}
    examples = report["examples"]["corrected"]
    assert [type(r["cleaned_label"]) for r in examples] == [int] * len(examples)
    html = render_html(report)
    assert "corrected to 0 " in html and "corrected to 0.0" not in html


def test_the_page_rendered_again_from_report_json_is_the_runs_page(audit):
    # report.json is written with sorted keys. The page `labelclean report`
    # renders from it must be the one the run wrote, in the natural orders:
    # the features as the input has them, the stack's members by weight, the
    # candidates in one order, the columns with missing values as the input.
    frame = audit.assign(zeta=range(10), alpha=range(10))
    stack = {
        "members": {
            "rosr": {"weight": 0.3, "temperature": 1.0},
            "cb_adaboost_trees": {"weight": 0.7, "temperature": 1.0},
        }
    }
    candidates = {"cb_adaboost_deep": {"error_rate": 0.3},
                  "rosr": {"error_rate": 0.1},
                  "cb_adaboost_trees": {"error_rate": 0.2}}  # fmt: skip
    final = {"name": "stacked", "selection": {"chosen": "rosr", "final": {
        "chosen": "rosr", "stack": stack, "candidates": candidates}}}  # fmt: skip
    run = {
        "final_model": final,
        "features": ["x", "color", "zeta", "alpha"],
        "missing_values": {"columns": {"alpha": 1, "zeta": 3}, "handling": "imputed"},
    }
    report = build_report(frame, run=run)
    page = render_html(report)
    assert render_html(json.loads(json.dumps(report, sort_keys=True))) == page
    text = unescape(page)
    assert (
        "weighted average of CB-AdaBoost (depth-3 trees) (0.70) and RoSR-L (0.30)"
        in text
    )
    assert (
        "(error rates alone: RoSR-L 10.0%, CB-AdaBoost (depth-3 trees) 20.0%, "
        "CB-AdaBoost (deep trees) 30.0%)" in text
    )
    assert "Missing feature values in 'zeta' (3), 'alpha' (1): imputed." in text
    data = json.loads(re.search(r'id="suspect-data">(.*?)</script>', page).group(1))
    listed = data["rows"][0][-1]
    assert [part.split(" = ")[0] for part in listed.split(" · ")] == [
        "x", "color", "zeta", "alpha"]  # fmt: skip
    # the page as written (before its script runs) in the same order, the
    # values in a cell that scrolls when a table is wide
    assert '<td data-label="features" class="long"><div class="clip">x = ' in page


def test_a_class_ranked_well_but_seldom_most_probable_is_said_where_read_low(audit):
    # κ reads only the most probable class: where the reading is cautious and
    # a class's rows are ranked well (AUROC at least ranking_auroc) but the
    # evidence names it for under half of them, the caution and the first
    # paragraph say so, naming the smallest such class
    def entry(auroc, named):
        return {"kappa": 0.2, "kappa_noise_corrected": 0.2, "recognised": True,
                "auroc": auroc, "named_rows": named}  # fmt: skip

    per_class = [entry(0.7, 500), entry(0.93, 9), entry(0.85, 20)]
    reading = {"low": True, "kappa": 0.21, "out_of_fold_accuracy": 0.9,
               "majority_share": 0.88, "ranking_auroc": 0.8,
               "per_class": per_class}  # fmt: skip
    cal = {"noise_rate": 0.01, "predictability": reading, "flagged": 0,
           "classes": ["a", "b", "c"], "rows_per_class": [520, 60, 45]}  # fmt: skip
    said = (
        "; the evidence ranks the rows of class 'c' well against the others "
        "(AUROC 0.85) but makes it the most probable class for only 20 of its 45 "
        "rows, and κ reads only the most probable class: wrong labels"
    )
    report = build_report(audit, run={"calibration": cal})
    (poor,) = report["cautions"]
    assert poor["code"] == "poor_predictability" and said in poor["message"]
    assert said.removesuffix(": wrong labels") + ", so wrong labels" in unescape(
        render_html(report)
    )
    # 'b' alone where 'c' is named for half its rows or is ranked under the cut
    for change in ({2: entry(0.85, 23)}, {2: entry(0.79, 20)}):
        classes = [change.get(k, e) for k, e in enumerate(per_class)]
        changed = {**reading, "per_class": classes}
        run = {"calibration": {**cal, "predictability": changed}}
        (poor,) = build_report(audit, run=run)["cautions"]
        assert "rows of class 'b' well against the others (AUROC 0.93)" in poor[
            "message"]  # fmt: skip
        assert "for only 9 of its 60 rows" in poor["message"]
    # nothing where no class is ranked well and seldom named, and in a
    # report written before the ranking was kept
    older = [{k: v for k, v in e.items() if k not in ("auroc", "named_rows")}
             for e in per_class]  # fmt: skip
    for classes, cut in ((per_class, 0.95), (older, 0.8), (per_class, None)):
        run = {"calibration": {**cal, "predictability": {
            **reading, "per_class": classes, "ranking_auroc": cut}}}  # fmt: skip
        report = build_report(audit, run=run)
        assert "AUROC" not in json.dumps(report["cautions"], ensure_ascii=False)
        assert "AUROC" not in render_html(report)


def test_a_class_ranked_well_is_named_once_among_the_cautions(audit):
    # the class kept unchecked and ranked well: named by classes_not_checked,
    # unless poor_predictability (the cautious reading) named it already;
    # and only among the unchecked classes there
    per_class = [{"recognised": True, "auroc": 0.7, "named_rows": 500},
                 {"recognised": True, "auroc": 0.93, "named_rows": 9},
                 {"recognised": False, "auroc": 0.85, "named_rows": 20}]  # fmt: skip
    reading = {"low": False, "kappa": 0.61, "out_of_fold_accuracy": 0.9,
               "majority_share": 0.83, "ranking_auroc": 0.8,
               "per_class": per_class}  # fmt: skip
    cal = {"noise_rate": 0.01, "predictability": reading, "flagged": 0,
           "classes": ["a", "b", "c"], "rows_per_class": [520, 30, 45],
           "not_checked": [False, False, True]}  # fmt: skip
    report = build_report(audit, run={"calibration": cal})
    (said,) = report["cautions"]
    assert said["code"] == "classes_not_checked"
    assert said["message"].endswith(
        "kept unchecked; the evidence ranks the rows of class 'c' well against the "
        "others (AUROC 0.85) but makes it the most probable class for only 20 of "
        "its 45 rows, and κ reads only the most probable class"
    )  # 'c', not the smaller 'b': 'b' was checked
    assert "relabelled into them; the evidence ranks the rows of class 'c'" in (
        unescape(render_html(report))
    )
    cal["rows_per_class"] = [520, 60, 41]  # now the smallest of both readings
    run = {"calibration": {**cal, "predictability": {**reading, "low": True}}}
    report = build_report(audit, run=run)
    codes = [c["code"] for c in report["cautions"] if "AUROC" in c["message"]]
    assert codes == ["poor_predictability"]
    page = unescape(render_html(report))
    assert page.count("the evidence ranks the rows of class 'c'") == 2  # box, line
