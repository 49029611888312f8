"""Instances and expected failures for the common estimator checks.

Each estimator gets parameters that keep the checks fast. Each expected failure
names the check and says why the behaviour is intended.
"""

from typing import Any

from sklearn.base import BaseEstimator

from labelclean.utils.discovery import all_estimators

__all__ = [
    "EXPECTED_FAILED_CHECKS",
    "FAST_PARAMS",
    "expected_failed_checks",
    "instances",
]

# Per-class keyword arguments that keep the checks quick.
FAST_PARAMS: dict[str, dict[str, Any]] = {
    "BinnedTreeClassifier": {},
    # A fixed age keeps the checks from cross-validating the age on every fit;
    # the age search is tested in tests/ensemble/test_splboost.py.
    "SPLBoostClassifier": {"n_estimators": 10, "age": 3.0},
    "CBAdaBoostClassifier": {"n_estimators": 10},
    "SAMMEClassifier": {"n_estimators": 10},
    "SPBLClassifier": {"n_estimators": 5, "weak_max_iter": 20},
    # The whole pipeline with its fastest final model and without SPLBoost;
    # every stage is checked on its own above, and the default pipeline in
    # tests/pipeline/test_cleaner.py.
    "LabelCleaner": {"suspects": None, "model": "rosr", "cv": 3},
}

# Per-class {check name: reason}.
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "CBAdaBoostClassifier": {
        "check_sample_weight_equivalence_on_dense_data": (
            "without gamma, the label confidences come from the k nearest "
            "neighbours of each row, and a repeated row counts among its own "
            "neighbours, so repeating rows is not the same as weighting them; "
            "with gamma given, weights and repetitions agree."
        ),
    },
    "SAMMEClassifier": {
        "check_sample_weight_equivalence_on_dense_data": (
            "on the check's 15 rows of 30 random columns many stumps split the "
            "weighted rows equally well after a few rounds; which of them wins "
            "turns on the last bits of the weight sums, whose order follows the "
            "rows', so the same weights in another row order already give "
            "another ensemble (repeating rows reorders them)."
        ),
    },
    "SPBLClassifier": {
        "check_sample_weight_equivalence_on_dense_data": (
            "early stopping holds out a random share of the rows, not of the "
            "weight: a repeated row can land on both sides of the split, so "
            "integer weights and repeated rows give different splits (with "
            "early_stopping=False the check passes)."
        ),
    },
    "LabelCleaner": {
        "check_sample_weight_equivalence_on_dense_data": (
            "row weights reach SPLBoost and the final model only; the label "
            "confidence counts a repeated row among its own neighbours and the "
            "folds split rows, not weight, so repeating a row is not the same "
            "as weighting it (documented in LabelCleaner.fit)."
        ),
    },
}


def instances() -> list[BaseEstimator]:
    """One fast instance of every public estimator."""
    return [cls(**FAST_PARAMS.get(name, {})) for name, cls in all_estimators()]


def expected_failed_checks(estimator: BaseEstimator) -> dict[str, str]:
    """The checks expected to fail for ``estimator``, each with its reason."""
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})
