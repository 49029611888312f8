"""Property tests: any small frame is either cleaned completely or refused clearly.

Random frames mix numeric, integer, boolean, string and categorical feature
columns, with 1 to 30 rows, a random index, and labels drawn from one to four
classes with skewed shares. Through :class:`KNNConfidence`,
:class:`BayesConfidence` and :class:`LabelCleaner` (with fast parameters)
they must:

* never raise anything but a labelclean error with a message: the confidence
  estimators refuse exactly the frames with fewer than two classes; the
  cleaner may also refuse a degenerate frame whose final model cannot beat
  chance (e.g. two rows with one constant feature), with a message saying
  what to do;
* account for every row: one score per row, an audit with the input's index
  and one of the three decisions per row;
* keep every score in its range ([0, 1], finite) and leave the input as given.

Missing and infinite values are the bad-input matrix's business
(``test_bad_input_matrix.py``); here every value is usable.
"""

import re
import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from labelclean.confidence import BayesConfidence, KNNConfidence
from labelclean.ensemble import CBAdaBoostClassifier, SPLBoostClassifier
from labelclean.exceptions import DataValidationError
from labelclean.pipeline import LabelCleaner
from labelclean.report import DECISIONS, PROBABILITY_COLUMNS

PROPERTY_SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_KINDS = ("float", "int", "bool", "string", "category")


@st.composite
def labelled_frames(draw, max_rows: int = 30):
    """(X, y) with mixed feature kinds, a shuffled index, skewed labels."""
    n = draw(st.integers(1, max_rows))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.RandomState(seed)
    kinds = draw(st.lists(st.sampled_from(_KINDS), min_size=1, max_size=4))
    columns = {}
    for i, kind in enumerate(kinds):
        if kind == "float":
            scale = draw(st.sampled_from([1e-6, 1.0, 1e6]))
            values = rng.normal(size=n) * scale
            if draw(st.booleans()):  # ties and repeated rows
                values = np.round(values / scale) * scale
            columns[f"x{i}"] = values
        elif kind == "int":
            columns[f"x{i}"] = rng.randint(-3, 4, size=n)
        elif kind == "bool":
            columns[f"x{i}"] = rng.rand(n) < 0.3
        elif kind == "string":
            columns[f"x{i}"] = np.array(["red", "green", "blue"])[rng.randint(0, 3, n)]
        else:
            columns[f"x{i}"] = pd.Categorical(
                np.array(["s", "m", "l"])[rng.randint(0, 3, n)],
                categories=["s", "m", "l"],
            )
    index_kind = draw(st.sampled_from(["range", "shuffled", "strings"]))
    if index_kind == "range":
        index = pd.RangeIndex(n)
    elif index_kind == "shuffled":
        index = pd.Index(rng.permutation(n) * 7 + 3)
    else:
        index = pd.Index([f"row-{i}" for i in rng.permutation(n)])
    X = pd.DataFrame(columns, index=index)
    n_classes = draw(st.integers(1, 4))
    shares = rng.dirichlet(np.full(n_classes, draw(st.sampled_from([0.3, 1.0, 5.0]))))
    labels = np.array(["a", "b", "c", "d"])[:n_classes]
    label_type = draw(st.sampled_from(["str", "int"]))
    y_values = rng.choice(labels, size=n, p=shares)
    if label_type == "int":
        y_values = np.searchsorted(labels, y_values) * 10
    y = pd.Series(y_values, index=index, name="label")
    return X, y


def _fit_or_refuse(estimator, X, y, *, other_refusals=False):
    """Fit; a frame with fewer than two classes must be refused clearly.

    With ``other_refusals``, a labelclean error on other degenerate frames
    (e.g. a final model that cannot beat chance on two rows) is allowed too,
    as long as its message says what to do.
    """
    X_before, y_before = X.copy(), y.copy()
    single = y.nunique() < 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            estimator.fit(X, y)
        except DataValidationError as exc:
            message = str(exc)
            if single:
                assert "class" in message
            else:
                assert other_refusals, f"unexpected refusal: {message}"
                fix = r"\b(use|check|give|pass|drop|rename|choose)\b"
                assert re.search(fix, message, re.IGNORECASE), message
                event(f"refused: {message.split(':')[0]}")
            fitted = False
        else:
            assert not single, "one class was accepted"
            fitted = True
    pd.testing.assert_frame_equal(X, X_before)
    pd.testing.assert_series_equal(y, y_before)
    return fitted


def _check_scores(values, n):
    values = np.asarray(values, dtype=float)
    assert values.shape == (n,)
    assert np.isfinite(values).all()
    assert ((values >= 0) & (values <= 1)).all()


@PROPERTY_SETTINGS
@given(data=labelled_frames(), n_neighbors=st.integers(1, 6))
def test_knn_confidence_any_frame(data, n_neighbors):
    X, y = data
    est = KNNConfidence(n_neighbors=n_neighbors, random_state=0)
    if _fit_or_refuse(est, X, y):
        _check_scores(est.confidence_, len(X))
        proba = est.predict_proba(X)
        assert proba.shape == (len(X), len(est.classes_))
        assert np.isfinite(proba).all() and (proba >= 0).all() and (proba <= 1).all()
        assert np.allclose(proba.sum(axis=1), 1.0)


@PROPERTY_SETTINGS
@given(
    data=labelled_frames(),
    noise_level=st.sampled_from([None, 0.0, 0.2]),
    density=st.sampled_from(["gaussian", "kde"]),
)
def test_bayes_confidence_any_frame(data, noise_level, density):
    X, y = data
    est = BayesConfidence(noise_level=noise_level, density=density, random_state=0)
    if _fit_or_refuse(est, X, y):
        _check_scores(est.confidence_, len(X))


@PROPERTY_SETTINGS
@given(
    data=labelled_frames(max_rows=25),
    confidence=st.sampled_from(["knn", "bayes"]),
    with_suspects=st.booleans(),
)
def test_label_cleaner_any_frame(data, confidence, with_suspects):
    X, y = data
    cleaner = LabelCleaner(
        confidence=(
            KNNConfidence(n_neighbors=3)
            if confidence == "knn"
            else BayesConfidence(noise_level=0.1)
        ),
        suspects=SPLBoostClassifier(n_estimators=3, age=2.0, cv=2)
        if with_suspects
        else None,
        model=CBAdaBoostClassifier(n_estimators=3),
        cv=2,
        random_state=0,
    )
    if not _fit_or_refuse(cleaner, X, y, other_refusals=True):
        return
    audit = cleaner.audit_
    assert len(audit) == len(X)
    assert audit.index.equals(X.index)
    assert set(audit["decision"]) <= set(DECISIONS)
    assert audit["observed_label"].tolist() == y.tolist()
    kept = audit["decision"] == "kept"
    assert (audit.loc[kept, "cleaned_label"] == audit.loc[kept, "observed_label"]).all()
    corrected = audit["decision"] == "corrected"
    assert (
        audit.loc[corrected, "cleaned_label"] != audit.loc[corrected, "observed_label"]
    ).all()
    assert set(audit.loc[corrected, "cleaned_label"]) <= set(y)
    for column in PROBABILITY_COLUMNS:
        if column in audit and audit[column].notna().any():
            values = audit[column].dropna().to_numpy(dtype=float)
            assert ((values >= 0) & (values <= 1)).all(), column
    assert audit["confidence"].notna().all()
    assert len(cleaner.decisions_) == len(X)
