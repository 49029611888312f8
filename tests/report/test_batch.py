"""The cautions of a batch decided by a fitted pipeline: the model's
disagreement with the labels compared with the fit's own rows'."""

from labelclean.report._batch import batch_cautions, disagreement_rose


def _profile(*classes):
    return {
        "classes": [
            {"label": label, "rows_with_model_label": rows,
             "disagreement_share": share, "not_checked_share": unchecked}
            for label, rows, share, unchecked in classes
        ]
    }  # fmt: skip


FIT = [
    {"label": "rain", "rows_with_model_label": 191, "disagreement_share": 0.168},
    {"label": "sun", "rows_with_model_label": 118, "disagreement_share": 0.263},
]


def test_a_batch_whose_labels_the_model_contradicts_more_than_the_fits():
    batch = _profile(("rain", 60, 0.083, 0.0), ("sun", 205, 0.459, 0.0))
    (caution,) = batch_cautions({"fit_disagreement": FIT}, batch)
    assert caution["code"] == "disagreement_rose"
    assert caution["message"].startswith(
        "the model assigns more of this batch's rows to a class other than their "
        "label than it did of the fit's own rows: 'sun' 26.3% → 45.9% (z 3.7); "
    )
    assert "'rain'" not in caution["message"]  # it fell


def test_no_caution_within_the_limits_or_without_the_fits_rows():
    # +10.7 points on 211 rows: under three standard errors
    within = _profile(("sun", 211, 0.370, 0.0))
    assert batch_cautions({"fit_disagreement": FIT}, within) == []
    # +60 points on 2 rows: within chance too
    assert disagreement_rose(FIT, _profile(("sun", 2, 0.9, 0.0))) == []
    # No fit profile (a model file moved from its run), or one written before
    # the measure: nothing to compare.
    batch = _profile(("sun", 205, 0.459, 0.0))
    assert batch_cautions({}, batch) == []
    older = [{"label": "sun", "rows_with_model_label": None,
              "disagreement_share": None}]  # fmt: skip
    assert batch_cautions({"fit_disagreement": older}, batch) == []


def test_classes_kept_unchecked_are_named_after_it():
    batch = _profile(("fog", 151, 1.0, 1.0), ("sun", 205, 0.459, 0.0))
    fit = [
        *FIT,
        {"label": "fog", "rows_with_model_label": 5, "disagreement_share": 1.0},
    ]
    codes = [c["code"] for c in batch_cautions({"fit_disagreement": fit}, batch)]
    assert codes == ["disagreement_rose", "classes_not_checked"]


def test_every_class_unchecked_is_said_only_where_the_fit_shows_them_all():
    batch = _profile(("fog", 151, 0.0, 1.0), ("sun", 205, 0.0, 1.0))
    fit = [{"label": label, "rows_with_model_label": 100, "disagreement_share": 0.0}
           for label in ("fog", "sun")]  # fmt: skip
    (every,) = batch_cautions({"fit_disagreement": fit}, batch)
    assert every["message"] == (
        "the evidence tells none of the classes ('fog', 'sun') apart from the "
        "others: every label was kept unchecked"
    )
    # The fit had a third class this batch lacks, or its profile is unknown:
    # only the batch's classes are named.
    third = [*fit, {**fit[0], "label": "rain"}]
    for run in ({"fit_disagreement": third}, {}):
        (some,) = batch_cautions(run, batch)
        assert some["message"].startswith(
            "the evidence does not tell class(es) 'fog', 'sun' apart from the others"
        )


def test_shifted_features_come_first_and_name_each_column():
    batch = _profile(("fog", 151, 1.0, 1.0), ("sun", 205, 0.459, 0.0))
    shift = {"columns_compared": 5, "shifted": [
        {"column": "temp", "kind": "numeric", "measure": "outside", "fit": 0.002,
         "batch": 0.97, "z": 40.0, "rows": 356},
        {"column": "wind", "kind": "numeric", "measure": "missing", "fit": 0.0,
         "batch": 1.0, "z": 60.0, "rows": 356},
        {"column": "site", "kind": "categorical", "measure": "outside", "fit": 0.01,
         "batch": 0.5, "z": 18.0, "rows": 356},
    ]}  # fmt: skip
    run = {"fit_disagreement": FIT, "feature_shift": shift}
    cautions = batch_cautions(run, batch)
    assert [c["code"] for c in cautions] == [
        "features_shifted", "disagreement_rose", "classes_not_checked"]  # fmt: skip
    assert cautions[0]["message"].startswith(
        "this batch's features are not where the fit's were: 'temp' 97.0% of "
        "values outside the fit's range; 'wind' 100.0% of rows missing (fit: "
        "0.0%); 'site' 50.0% of values of a level the fit never saw; "
    )
    assert "outside_fit" not in cautions[0]["message"]  # no such row
    kept = [{"decision": "kept", "reason": "outside_fit", "count": 340},
            {"decision": "kept", "reason": "ok", "count": 16}]  # fmt: skip
    (told,) = [
        c for c in batch_cautions(run, batch, kept) if c["code"] == "features_shifted"
    ]
    assert told["message"].endswith(
        "; 340 row(s) with a number far outside the fit's range were kept as they "
        "came (reason outside_fit)"
    )
    quiet = {"fit_disagreement": FIT, "feature_shift": {**shift, "shifted": []}}
    assert "features_shifted" not in [c["code"] for c in batch_cautions(quiet, batch)]
