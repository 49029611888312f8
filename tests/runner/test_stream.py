"""Streaming apply: same rows and decisions as the whole-input audit, bounded state."""

import filecmp
import json

import numpy as np
import pandas as pd
import pytest

from labelclean.exceptions import DataValidationError
from labelclean.io import read_parquet
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner, dumps_cleaner
from labelclean.report import AuditSummary, build_report
from labelclean.runner import apply_model
from labelclean.runner._run import feature_schema as _feature_schema

FEATURES = [f"f{i}" for i in range(4)]


def _frame(n, seed, labels=("a", "b", "c")):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, len(FEATURES)))
    codes = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5).astype(int)
    codes, _ = flip_labels(codes, 0.2, random_state=seed)
    frame = pd.DataFrame(X, columns=FEATURES)
    frame["label"] = np.asarray(labels)[codes]
    return frame


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    train = _frame(300, 0)
    cleaner = LabelCleaner(cv=3, random_state=0).fit(train[FEATURES], train["label"])
    folder = tmp_path_factory.mktemp("model")
    meta = {
        "label": "label",
        "id_column": None,
        "features": FEATURES,
        "schema": _feature_schema(train, FEATURES),
        "label_dtype": str(train["label"].dtype),
        "pipeline": "test",
        "seed": 0,
    }
    path = folder / "model.skops"
    path.write_bytes(dumps_cleaner(cleaner, metadata=meta))
    new = _frame(700, 1)
    new_path = folder / "new.parquet"
    new.to_parquet(new_path, row_group_size=250)
    return cleaner, path, new, new_path


def test_audit_shares_one_query_and_matches_predict_proba(fitted):
    cleaner, _, new, _ = fitted
    audit = cleaner.audit(new[FEATURES], new["label"])
    proba = cleaner.confidence_estimator_.predict_proba(new[FEATURES])
    codes = np.searchsorted(cleaner.classes_, new["label"].to_numpy())
    np.testing.assert_array_equal(
        audit["confidence"].to_numpy(), proba[np.arange(len(new)), codes]
    )


def test_streaming_apply_equals_whole_audit(fitted, tmp_path):
    cleaner, model, new, new_path = fitted
    whole = cleaner.audit(new[FEATURES], new["label"])
    result = apply_model(model, new_path, tmp_path / "a", batch_size=64)
    audit = read_parquet(tmp_path / "a" / "audit.parquet")
    assert audit.index.tolist() == list(range(len(new)))
    assert result.n_rows == len(new)
    for column in whole.columns:
        left, right = audit[column].astype(object), whole[column].astype(object)
        assert left.isna().tolist() == right.isna().tolist(), column
        mask = right.notna().to_numpy()
        assert left[mask].tolist() == right[mask].tolist(), column
    cleaned = read_parquet(tmp_path / "a" / "cleaned.parquet")
    kept = whole["decision"] != "discarded"
    assert cleaned.index.tolist() == np.flatnonzero(kept).tolist()
    assert cleaned["label"].tolist() == whole.loc[kept, "cleaned_label"].tolist()
    report = json.loads((tmp_path / "a" / "report.json").read_text())
    assert report["summary"]["n_rows"] == len(new)
    assert report["run"]["engine"]["n_batches"] >= len(new) // 64


def test_a_batch_whose_features_are_all_constant_is_decided(fitted, tmp_path):
    # One row repeated (a day of one sensor setting): the fitted model decides
    # it as any row; only a fit needs rows that vary.
    cleaner, model, new, _ = fitted
    same = pd.concat([new.iloc[[3]]] * 40, ignore_index=True)
    same.to_parquet(tmp_path / "same.parquet")

    result = apply_model(model, tmp_path / "same.parquet", tmp_path / "a")

    audit = read_parquet(tmp_path / "a" / "audit.parquet")
    assert result.n_rows == len(same) == len(audit)
    whole = cleaner.audit(same[FEATURES], same["label"])
    assert audit["decision"].tolist() == whole["decision"].tolist()


def test_streaming_apply_is_byte_deterministic_and_batch_size_free(fitted, tmp_path):
    _, model, _, new_path = fitted
    for name, size in [("a", 100), ("b", 100), ("c", 333)]:
        apply_model(model, new_path, tmp_path / name, batch_size=size)
    for name in ("audit.parquet", "cleaned.parquet", "report.json"):
        assert filecmp.cmp(tmp_path / "a" / name, tmp_path / "b" / name, shallow=False)
    a = read_parquet(tmp_path / "a" / "audit.parquet")
    c = read_parquet(tmp_path / "c" / "audit.parquet")
    pd.testing.assert_frame_equal(a, c)


def test_streaming_apply_threads_change_no_byte(fitted, tmp_path):
    _, model, _, new_path = fitted
    for name, jobs in [("one", None), ("two", 2), ("three", 3)]:
        apply_model(model, new_path, tmp_path / name, batch_size=64, n_jobs=jobs)
    for name in ("audit.parquet", "cleaned.parquet", "report.json"):
        for other in ("two", "three"):
            assert filecmp.cmp(
                tmp_path / "one" / name, tmp_path / other / name, shallow=False
            ), (name, other)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_streaming_apply_stops_at_a_bad_later_batch(fitted, tmp_path, n_jobs):
    _, model, new, _ = fitted
    bad = new.copy()
    bad.loc[650, "label"] = "z"  # in the last of 11 batches of 64 rows
    path = tmp_path / "bad.parquet"
    bad.to_parquet(path)
    with pytest.raises(DataValidationError, match="outside the fitted classes"):
        apply_model(model, path, tmp_path / "out", batch_size=64, n_jobs=n_jobs)
    assert not (tmp_path / "out").exists()
    assert list(tmp_path.iterdir()) == [path]


def _comparable(report):
    out = json.loads(json.dumps(report))
    for dist in out["distributions"].values():
        if dist.get("summary"):
            dist["summary"]["mean"] = round(dist["summary"]["mean"], 12)
    return out


def test_audit_summary_equals_build_report(fitted, global_random_seed):
    cleaner, _, new, _ = fitted
    audit = cleaner.audit(new[FEATURES], new["label"])  # with the user columns
    expected = build_report(audit, label="label", n_suspects=20)
    rng = np.random.RandomState(global_random_seed)
    cuts = np.sort(rng.choice(np.arange(1, len(audit)), 6, replace=False))
    parts = np.split(np.arange(len(audit)), cuts)
    # in order, one summary
    one = AuditSummary(n_suspects=20)
    for rows in parts:
        one.add(audit.iloc[rows])
    assert _comparable(one.report(label="label")) == _comparable(expected)
    # partitions summarised apart and merged in another order
    summaries = []
    for rows in parts:
        s = AuditSummary(n_suspects=20)
        s.add(audit.iloc[rows], positions=rows)
        summaries.append(s)
    merged = AuditSummary(n_suspects=20)
    for i in rng.permutation(len(summaries)):
        merged.merge(summaries[i])
    assert _comparable(merged.report(label="label")) == _comparable(expected)


def test_audit_summary_binned_quantiles_are_close(global_random_seed):
    rng = np.random.RandomState(global_random_seed)
    n = 20_000
    audit = pd.DataFrame(
        {
            "decision": rng.choice(["kept", "corrected", "discarded"], n),
            "reason": "ok",
            "observed_label": rng.randint(0, 2, n),
            "cleaned_label": rng.randint(0, 2, n).astype(float),
            "model_probability": rng.beta(2, 5, n),
        }
    )
    expected = build_report(audit)["distributions"]["model_probability"]
    summary = AuditSummary()
    for rows in np.array_split(np.arange(n), 7):
        summary.add(audit.iloc[rows])
    got = summary.report()["distributions"]["model_probability"]
    assert got["counts"] == expected["counts"]
    for key in ("q25", "median", "q75"):
        assert abs(got["summary"][key] - expected["summary"][key]) < 1e-4
    for key in ("min", "max"):
        assert got["summary"][key] == expected["summary"][key]


def test_model_file_holds_no_per_training_row_results(fitted):
    import io
    import zipfile

    from labelclean.pipeline import loads_cleaner

    cleaner, path, new, _ = fitted
    loaded, _ = loads_cleaner(path.read_bytes())
    for name in ("audit_", "evidence_", "decisions_", "sample_indices_"):
        assert hasattr(cleaner, name) and not hasattr(loaded, name), name
    # no element-by-element object arrays in the archive's schema
    with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as archive:
        schema = archive.read("schema.json").decode()
    assert '"kept"' not in schema and '"discarded"' not in schema
    # the loaded pipeline still decides new rows as the fitted one does
    pd.testing.assert_frame_equal(
        loaded.audit(new[FEATURES], new["label"]),
        cleaner.audit(new[FEATURES], new["label"]),
    )
