"""Tests of model files: saving, loading, and files from earlier layouts."""

import copy
import io
import json
import pickle
import zipfile

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.datasets import make_classification

from labelclean.confidence import KNNConfidence
from labelclean.ensemble import CBAdaBoostClassifier, SPLBoostClassifier
from labelclean.filters import KNNFilter
from labelclean.linear_model import RoSRClassifier
from labelclean.pipeline import LabelCleaner, dumps_cleaner, loads_cleaner
from labelclean.pipeline import _persist as persist
from labelclean.pipeline._persist import MOVED_TYPES


def _with_old_module_names(data: bytes) -> bytes:
    """The same model file as an earlier labelclean wrote it (classes at their
    old modules)."""
    old = {(new, cls): module for (module, cls), new in MOVED_TYPES.items()}

    def rename(node):
        if isinstance(node, dict):
            key = (node.get("__module__"), node.get("__class__"))
            if key in old:
                node["__module__"] = old[key]
            for value in node.values():
                rename(value)
        elif isinstance(node, list):
            for value in node:
                rename(value)

    source = zipfile.ZipFile(io.BytesIO(data))
    schema = json.loads(source.read("schema.json"))
    rename(schema)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            content = source.read(info.filename)
            if info.filename == "schema.json":
                content = json.dumps(schema).encode()
            target.writestr(info, content)
    return out.getvalue()


@pytest.fixture(scope="module")
def fitted():
    X, y = make_classification(n_samples=150, n_features=5, random_state=0)
    # An explicit KNNFilter instance, so the file holds one.
    confidence = KNNConfidence(noise_filter=KNNFilter(n_neighbors=5))
    cleaner = LabelCleaner(confidence=confidence, random_state=0).fit(X, y)
    return cleaner, X, y


def test_model_files_of_the_earlier_layout_still_load(fitted):
    cleaner, X, y = fitted
    data = dumps_cleaner(cleaner, metadata={"label": "y"})
    old = _with_old_module_names(data)
    assert old != data
    assert b"labelclean.confidence._neighbors" in zipfile.ZipFile(io.BytesIO(old)).read(
        "schema.json"
    )
    loaded, meta = loads_cleaner(old)
    assert meta == {"label": "y"}
    np.testing.assert_array_equal(loaded.predict_proba(X), cleaner.predict_proba(X))
    assert loaded.audit(X, y).equals(cleaner.audit(X, y))


def test_model_files_are_compressed_and_stored_ones_still_load(fitted):
    cleaner, X, y = fitted
    data = dumps_cleaner(cleaner)
    source = zipfile.ZipFile(io.BytesIO(data))
    assert {info.compress_type for info in source.infolist()} == {zipfile.ZIP_DEFLATED}
    assert dumps_cleaner(copy.copy(cleaner)) == data  # still the same bytes
    stored = io.BytesIO()  # the same entries uncompressed, as files were written
    with zipfile.ZipFile(stored, "w") as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info.filename))
    assert len(data) < len(stored.getvalue()) / 3
    loaded, _ = loads_cleaner(stored.getvalue())
    np.testing.assert_array_equal(loaded.predict_proba(X), cleaner.predict_proba(X))
    assert loaded.audit(X, y).equals(cleaner.audit(X, y))


def test_model_files_of_version_1_still_load_and_later_ones_are_refused(
    fitted, monkeypatch
):
    cleaner, X, y = fitted
    new = dumps_cleaner(cleaner)
    with monkeypatch.context() as patch:  # written as version 1: trees one by one
        for kind in (CBAdaBoostClassifier, SPLBoostClassifier):
            patch.setattr(kind, "__getstate__", BaseEstimator.__getstate__)
        patch.setattr(persist, "MODEL_VERSION", 1)
        old = dumps_cleaner(cleaner)
    trees = [  # a tree object per round, or only the ensembles' templates
        zipfile.ZipFile(io.BytesIO(data)).read("schema.json").count(b'"BinnedTree')
        for data in (old, new)
    ]
    assert trees[0] > 10 * trees[1]
    assert len(new) < len(old) / 2
    loaded, _ = loads_cleaner(old)
    np.testing.assert_array_equal(loaded.predict_proba(X), cleaner.predict_proba(X))
    assert loaded.audit(X, y).equals(cleaner.audit(X, y))
    with monkeypatch.context() as patch:
        patch.setattr(persist, "MODEL_VERSION", 3)
        later = dumps_cleaner(cleaner)
    with pytest.raises(ValueError, match="model format version 3; this labelclean"):
        loads_cleaner(later)


def _central_entry(data: bytes, name: str) -> int:
    """Offset of ``name``'s record in the archive's central directory."""
    start = 0
    while (start := data.find(b"PK\x01\x02", start + 1)) >= 0:
        length = int.from_bytes(data[start + 28 : start + 30], "little")
        if data[start + 46 : start + 46 + length] == name.encode():
            return start
    raise AssertionError(name)


def _wrong_checksum(data: bytes, name: str) -> bytes:
    """The archive with ``name``'s recorded CRC-32 changed: its data inflate,
    but not to what was written (the archive's directory intact)."""
    at = _central_entry(data, name) + 16
    damaged = bytearray(data)
    damaged[at : at + 4] = bytes(b ^ 0xFF for b in damaged[at : at + 4])
    return bytes(damaged)


def _broken_data(data: bytes, name: str) -> bytes:
    """The archive with bytes flipped inside ``name``'s compressed data."""
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(name)
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    damaged = bytearray(data)
    for k in range(start + info.compress_size // 3, start + info.compress_size // 2):
        damaged[k] ^= 0x5A
    return bytes(damaged)


def _largest_array(data: bytes) -> str:
    entries = zipfile.ZipFile(io.BytesIO(data)).infolist()
    return max((e for e in entries if e.filename != "schema.json"),
               key=lambda e: e.compress_size).filename  # fmt: skip


@pytest.mark.parametrize(
    ("damage", "entry"),
    [
        (_wrong_checksum, "schema.json"),  # read while the types are checked
        (_wrong_checksum, None),  # an array, read while the model is built
        (_broken_data, None),
    ],
)
def test_a_damaged_entry_is_called_damaged_not_a_foreign_file(fitted, damage, entry):
    cleaner, _, _ = fitted
    data = dumps_cleaner(cleaner)
    damaged = damage(data, entry or _largest_array(data))
    with pytest.raises(ValueError) as error:
        loads_cleaner(damaged, source="'model.skops'")
    message = str(error.value)
    assert message.startswith("'model.skops' is damaged (")
    assert "not a labelclean model file" not in message
    if damage is _wrong_checksum:
        assert "fails its CRC-32 check" in message
    # Bytes that are no archive at all are still not a model file.
    with pytest.raises(ValueError, match="is not a labelclean model file"):
        loads_cleaner(data[: len(data) // 2], source="'model.skops'")


def test_unknown_modules_are_still_refused(fitted):
    cleaner, _, _ = fitted
    data = dumps_cleaner(cleaner)
    source = zipfile.ZipFile(io.BytesIO(data))
    schema = source.read("schema.json").replace(
        b"labelclean.utils._neighbors", b"labelclean.elsewhere._neighbors"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            content = schema if info.filename == "schema.json" else source.read(info)
            target.writestr(info, content)
    with pytest.raises(ValueError, match="labelclean never writes"):
        loads_cleaner(out.getvalue())


def test_models_whose_stages_learnt_labels_still_decide_the_same(monkeypatch):
    # Model files written before the stages learnt class codes hold stages
    # fitted on the labels themselves; they must decide new rows as before.
    from labelclean.pipeline._model_selection import ModelSelectionMixin

    X, y = make_classification(n_samples=150, n_features=5, random_state=1)
    y = np.where(y == 1, "yes", "no")
    new = LabelCleaner(random_state=0).fit(X, y)
    with monkeypatch.context() as patched:
        patched.setattr(
            ModelSelectionMixin,
            "_stage_labels",
            lambda self, codes: self.classes_[codes],
        )
        patched.setattr(
            ModelSelectionMixin,
            "_stage_columns",
            lambda self, model: np.searchsorted(self.classes_, model.classes_),
        )
        old = LabelCleaner(random_state=0).fit(X, y)
    del old.stages_learn_codes_  # as a file of the earlier release has it
    assert list(old.model_.classes_) == ["no", "yes"]
    loaded, _ = loads_cleaner(dumps_cleaner(old))
    np.testing.assert_array_equal(loaded.predict_proba(X), new.predict_proba(X))
    assert loaded.audit(X, y).equals(new.audit(X, y))


def test_a_final_model_apart_from_the_deciding_one_round_trips(partly_linear):
    apart, X, y, X_new, y_new = partly_linear
    assert apart.decision_model_ is not apart.model_  # trees for predict
    # a configured RoSR-L keeps its penalty: one model decides and predicts
    same = LabelCleaner(model=RoSRClassifier(), random_state=0).fit(X, y)
    assert same.decision_model_ is same.model_
    new = X_new[:300], y_new[:300]
    for cleaner in (apart, same):
        loaded, _ = loads_cleaner(dumps_cleaner(cleaner))
        np.testing.assert_array_equal(loaded.predict(new[0]), cleaner.predict(new[0]))
        loaded_audit, audit = loaded.audit(*new), cleaner.audit(*new)
        assert loaded_audit.equals(audit)
        # one model stored once: new rows are decided by model_ itself
        assert ("decision_model_" in vars(loaded)) == (cleaner is apart)
    # the two models decide new rows differently, so the file kept the right one
    assert not np.array_equal(
        apart.model_.predict_proba(apart._check_X(new[0], reset=False)[1]),
        apart.decision_model_.predict_proba(apart._check_X(new[0], reset=False)[1]),
    )


def test_model_files_from_before_a_parameter_existed_print_clone_and_refit(fitted):
    # A file written before ``cv_repeats`` existed holds no such attribute;
    # get_params (repr, clone) read every __init__ parameter and failed.
    cleaner, X, y = fitted
    old = copy.deepcopy(cleaner)
    del old.cv_repeats
    for loaded in (
        loads_cleaner(dumps_cleaner(old))[0],  # a model.skops of `labelclean run`
        pickle.loads(pickle.dumps(old)),  # a pickle of the user's own
    ):
        assert loaded.get_params()["cv_repeats"] == 1
        assert "LabelCleaner(" in repr(loaded)
        np.testing.assert_array_equal(loaded.predict_proba(X), cleaner.predict_proba(X))
        refit = clone(loaded).fit(X, y)
        np.testing.assert_array_equal(refit.decisions_, cleaner.decisions_)
