"""One vocabulary, one seeding policy: a definition builds what Python builds."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

from labelclean.confidence import BayesConfidence
from labelclean.noise import flip_labels
from labelclean.pipeline import (
    LabelCleaner,
    build_cleaner,
    dumps_cleaner,
    load_pipeline,
    parse_pipeline,
)


def _definition(*stages, decisions=None):
    document = {
        "stages": [
            {"name": f"s{i}", "kind": kind, **({"params": params} if params else {})}
            for i, (kind, params) in enumerate(stages)
        ]
    }
    if decisions:
        document["decisions"] = decisions
    return parse_pipeline(document, name="equivalent")


def _data(loader, rate=0.15):
    X, y = loader(return_X_y=True, as_frame=True)
    y_noisy, _ = flip_labels(y.to_numpy(), rate, random_state=0)
    return X, pd.Series(y_noisy, name="label")


def _same_bytes(a, b, X, y):
    a.fit(X, y)
    b.fit(X, y)
    assert a.audit_.to_parquet() == b.audit_.to_parquet()
    assert dumps_cleaner(a) == dumps_cleaner(b)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize(
    ("stages", "python"),
    [
        (
            [("knn", None), ("splboost", None), ("cb_adaboost", None)],
            {"confidence": "knn", "suspects": "splboost", "model": "cb_adaboost"},
        ),
        (
            [("knn_confidence", None), ("splboost", None)],
            {"confidence": "knn", "suspects": "splboost", "model": "auto"},
        ),
        (
            [("knn", None), (["cb_adaboost", "cb_adaboost_trees"], None)],
            {
                "confidence": "knn",
                "suspects": None,
                "model": ("cb_adaboost", "cb_adaboost_trees"),
            },
        ),
    ],
)
def test_definition_and_label_cleaner_give_the_same_bytes(stages, python):
    X, y = _data(load_breast_cancer)
    from_file = build_cleaner(_definition(*stages), random_state=3)
    in_python = LabelCleaner(**python, random_state=3)
    assert from_file.get_params() == in_python.get_params()
    _same_bytes(from_file, in_python, X, y)


def test_stage_parameters_and_decisions_carry_over():
    X, y = _data(load_wine)
    definition = _definition(
        ("bayes", {"density": "gaussian"}),
        ("rosr", None),
        decisions={"target_precision": 0.8},
    )
    from_file = build_cleaner(definition, random_state=5)
    in_python = LabelCleaner(
        confidence=BayesConfidence(density="gaussian"),
        suspects=None,
        model="rosr",
        target_precision=0.8,
        random_state=5,
    )
    _same_bytes(from_file, in_python, X, y)
    # The cleaner seeds the stages; the definition does not.
    assert from_file.confidence.random_state is None


def test_decisions_default_to_the_cleaner_defaults():
    cleaner = build_cleaner(_definition(("knn", None)), random_state=0)
    defaults = LabelCleaner().get_params()
    for name in ("target_precision", "correct_threshold", "require_agreement"):
        assert cleaner.get_params()[name] == defaults[name]


@pytest.mark.parametrize(
    "name", ["binary-cbadaboost", "multiclass-rosr", "bayes-cbadaboost"]
)
def test_shipped_pipelines_keep_their_evidence_and_stack_the_final_model(name):
    cleaner = build_cleaner(load_pipeline(name), random_state=0)
    # the two-class pipeline keeps CB-AdaBoost with stumps unless its trees
    # or RoSR-L are clearly better out of fold
    evidence = {
        "binary-cbadaboost": ("cb_adaboost", "cb_adaboost_trees", "rosr"),
        "multiclass-rosr": "rosr",
        "bayes-cbadaboost": "cb_adaboost",
    }
    assert cleaner.model == evidence[name]
    assert cleaner.final_model == "auto"
