"""The Python API a user touches: sample weights, the audit's columns (the
same as the CLI's), index-preserving noise."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.ensemble import SPLBoostClassifier
from labelclean.exceptions import LabelWritingWarning
from labelclean.linear_model import RoSRClassifier
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.report import AUDIT_COLUMNS

FAST = {
    "suspects": SPLBoostClassifier(n_estimators=20, age=2.0),
    "model": RoSRClassifier(),
    "random_state": 0,
}


@pytest.fixture(scope="module")
def data():
    X, y = make_blobs(
        240, centers=[[0, 0], [1.2, 1.2]], cluster_std=1.0, random_state=0
    )
    frame = pd.DataFrame(X, columns=["f1", "f2"], index=pd.RangeIndex(500, 740))
    labels = pd.Series(np.array(["a", "b"])[y], index=frame.index, name="label")
    noisy, _ = flip_labels(labels, 0.1, random_state=0)
    return frame, noisy


def test_sample_weight_reaches_the_models(data):
    X, y = data
    plain = LabelCleaner(**FAST).fit(X, y)
    ones = LabelCleaner(**FAST).fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_allclose(ones.predict_proba(X), plain.predict_proba(X))
    # Rows of class 'b' weighing five times as much pull the model towards 'b'.
    heavy = np.where(y == "b", 5.0, 1.0)
    weighted = LabelCleaner(**FAST).fit(X, y, sample_weight=heavy)
    b = list(weighted.classes_).index("b")
    assert (
        weighted.predict_proba(X)[:, b].mean()
        > plain.predict_proba(X)[:, b].mean() + 0.05
    )
    with pytest.raises(ValueError, match=r"[Nn]egative"):
        LabelCleaner(**FAST).fit(X, y, sample_weight=-np.ones(len(y)))


def test_audit_has_the_users_columns_like_the_cli(data, tmp_path):
    X, y = data
    cleaner = LabelCleaner(**FAST).fit(X, y)
    expected = ["f1", "f2", "label", *AUDIT_COLUMNS]
    assert list(cleaner.audit_.columns) == expected
    assert cleaner.audit_.index.equals(X.index)
    pd.testing.assert_frame_equal(cleaner.audit_[["f1", "f2"]], X)
    new = cleaner.audit(X.iloc[:10], y.iloc[:10])
    assert list(new.columns) == expected
    assert list(
        cleaner.audit(X.iloc[:10], y.iloc[:10], user_columns=False).columns
    ) == list(AUDIT_COLUMNS)
    # The CLI's audit of the same table has the same columns, in order.
    path = tmp_path / "in.parquet"
    X.assign(label=y).to_parquet(path, index=False)
    result = CliRunner().invoke(
        app,
        ["run", str(path), "-p", "multiclass-rosr", "--label", "label", "-o",
         str(tmp_path / "out")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    cli = pd.read_parquet(tmp_path / "out" / "audit.parquet")
    assert [c for c in cli.columns if not c.startswith("__")] == expected
    # An array X gives x0, x1, ... as the CLI would name nothing.
    arr = LabelCleaner(**FAST).fit(X.to_numpy(), y.to_numpy())
    assert list(arr.audit_.columns[:2]) == ["x0", "x1"]


def test_user_columns_named_like_audit_columns_are_renamed_not_lost(data):
    # A table with its own 'decision' and 'confidence' columns: the audit keeps
    # their values under '<name>_input', and labelclean's own columns keep
    # their names.
    X, y = data
    own = X.assign(decision=np.arange(len(X)) % 3, confidence="high")
    cleaner = LabelCleaner(**FAST).fit(own, y)
    audit = cleaner.audit_
    assert list(audit.columns) == [
        "f1", "f2", "decision_input", "confidence_input", "label", *AUDIT_COLUMNS
    ]  # fmt: skip
    np.testing.assert_array_equal(audit["decision_input"], own["decision"])
    assert set(audit["decision"]) <= {"kept", "corrected", "discarded"}
    assert (audit["confidence_input"] == "high").all()
    assert audit["confidence"].between(0, 1).all()
    new = cleaner.audit(own.iloc[:5], y.iloc[:5])
    assert list(new.columns) == list(audit.columns)


def test_flip_labels_keeps_a_series_index_and_name():
    y = pd.Series(["a", "b"] * 10, index=pd.RangeIndex(100, 120), name="target")
    noisy, flipped = flip_labels(y, 0.3, random_state=0)
    assert isinstance(noisy, pd.Series) and noisy.index.equals(y.index)
    assert noisy.name == "target" and flipped.index.equals(y.index)
    assert int(flipped.sum()) == 6
    assert ((noisy != y) == flipped).all()
    categorical = y.astype(pd.CategoricalDtype(["b", "a"], ordered=True))
    noisy_cat, _ = flip_labels(categorical, 0.3, random_state=0)
    assert noisy_cat.dtype == categorical.dtype
    # Arrays stay arrays.
    noisy_arr, flipped_arr = flip_labels(y.to_numpy(), 0.3, random_state=0)
    assert isinstance(noisy_arr, np.ndarray) and isinstance(flipped_arr, np.ndarray)
    np.testing.assert_array_equal(noisy_arr, noisy.to_numpy())


@pytest.mark.parametrize("name", ["KNNConfidence", "BayesConfidence"])
def test_confidence_stages_are_transformers_with_set_output(data, name):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    import labelclean.confidence as confidence

    X, y = data
    est = getattr(confidence, name)(random_state=0).set_output(transform="pandas")
    out = est.fit_transform(X, y)
    assert isinstance(out, pd.DataFrame) and out.index.equals(X.index)
    assert list(out.columns) == ["confidence_a", "confidence_b"]
    # The training rows get the confidence fit computed (leave-one-out
    # neighbours for KNN), not a second look at themselves.
    training = est.soft_labels_ if name == "KNNConfidence" else est.posterior_
    np.testing.assert_allclose(out.to_numpy(), training)
    new = est.transform(X.iloc[:5])
    assert isinstance(new, pd.DataFrame) and new.index.equals(X.index[:5])
    np.testing.assert_allclose(new.to_numpy(), est.predict_proba(X.iloc[:5]))
    default = getattr(confidence, name)(random_state=0).fit_transform(X, y)
    assert isinstance(default, np.ndarray)
    # In a scikit-learn pipeline, as a feature step.
    pipe = make_pipeline(
        getattr(confidence, name)(random_state=0), LogisticRegression()
    )
    assert pipe.fit(X, y).score(X, y) > 0.6


def test_the_confidence_stages_max_categories_sets_the_cleaners_encoding(data):
    # Every stage reads a categorical column's levels alike: the cleaner's
    # own encoding (the models' features, feature_handling_) keeps as many
    # levels as the confidence stage it is given.
    from labelclean.confidence import KNNConfidence

    X, y = data
    towns = X.assign(town=[f"town{i % 45}" for i in range(len(X))])
    widths = {}
    for kept in (32, 64):
        cleaner = LabelCleaner(
            confidence=KNNConfidence(max_categories=kept), **FAST
        ).fit(towns, y)
        town = next(f for f in cleaner.feature_handling_ if f["name"] == "town")
        assert town["levels"] == 45
        assert town["pooled_levels"] == (45 - 31 if kept == 32 else 0)
        widths[kept] = cleaner.feature_encoder_.transform(towns).shape[1]
    assert widths == {32: 2 + 32, 64: 2 + 45}
    # a value the stage refuses is named by the stage's own check
    wrong = LabelCleaner(confidence=KNNConfidence(max_categories="many"), **FAST)
    with pytest.raises(ValueError, match="'max_categories' parameter of KNNConf"):
        wrong.fit(towns, y)


def test_decimal_and_date_columns_are_numbers_and_dates(data):
    # What pandas makes of parquet's decimal128, date32 and time64: objects of
    # Decimal, datetime.date and datetime.time. They are used as the floats,
    # dates and durations since midnight they hold: the
    # same decisions as with those columns typed, and the audit keeps them as
    # they came.
    import datetime
    import decimal

    from labelclean.confidence import KNNConfidence

    X, y = data
    days = pd.date_range("2024-01-01", periods=len(X), freq="D")
    clock = pd.to_timedelta(np.arange(len(X)) * 997 % 86_400, unit="s")
    typed = X.assign(f1=X["f1"].round(3), day=days, at=clock)
    raw = typed.assign(
        f1=[decimal.Decimal(f"{v:.3f}") for v in typed["f1"]],
        day=[d.date() for d in days],
        at=[(datetime.datetime.min + t).time() for t in clock],
    )
    raw.loc[raw.index[3], ["f1", "at"]] = None
    typed.loc[typed.index[3], "f1"] = np.nan
    typed.loc[typed.index[3], "at"] = pd.NaT
    a = LabelCleaner(**FAST).fit(raw, y)
    assert raw["f1"].dtype == object  # the caller's frame is untouched
    kinds = {f["name"]: f["kind"] for f in a.feature_handling_}
    assert kinds["f1"] == "numeric" and kinds["day"] != "categorical"
    assert kinds["at"] == "temporal"
    b = LabelCleaner(**FAST).fit(typed, y)
    np.testing.assert_array_equal(a.decisions_, b.decisions_)
    assert isinstance(a.audit_["f1"].iloc[0], decimal.Decimal)
    assert isinstance(a.audit_["day"].iloc[0], datetime.date)
    assert isinstance(a.audit_["at"].iloc[0], datetime.time)
    np.testing.assert_allclose(
        KNNConfidence(random_state=0).fit(raw, y).confidence_,
        KNNConfidence(random_state=0).fit(typed, y).confidence_,
    )
    # a column mixing decimals with text is not a number column: refused
    mixed = raw.assign(f1=["x", *raw["f1"].iloc[1:]])
    with pytest.raises(ValueError, match="cannot compare"):
        LabelCleaner(**FAST).fit(mixed, y)


def test_fit_warns_of_labels_written_two_ways_or_as_a_missing_value(data):
    X, y = data
    y = y.copy()
    y.iloc[:6] = ["B ", "B ", "b", "N/A", "N/A", "N/A"]
    with pytest.warns(LabelWritingWarning) as caught:
        cleaner = LabelCleaner(**FAST).fit(X, y)
    (message,) = [str(w.message) for w in caught if w.category is LabelWritingWarning]
    assert message.startswith(
        "labels that read as a missing value are read as classes: 'N/A' (3 rows)"
    )
    assert "(if those rows have no label, write it as missing (null))" in message
    assert "separate classes: 'b' (" in message
    assert message.endswith(
        "and 'B ' (2 rows) (if they name one class, write it one way)."
    )
    # nothing is merged: each spelling stays a class of its own
    assert {"B ", "N/A"} <= set(cleaner.classes_)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LabelWritingWarning)
        LabelCleaner(**FAST).fit(*data)  # labels written one way: no warning
