"""scikit-learn's common estimator checks on every public labelclean estimator.

Estimators are found by :func:`labelclean.utils.all_estimators`. Fast
parameters go in ``FAST_PARAMS``; every expected failure is listed per class
in ``EXPECTED_FAILED_CHECKS`` with its reason.
"""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from labelclean.utils import all_estimators
from labelclean.utils.estimator_checks import (
    expected_failed_checks,
    instances,
)

ESTIMATORS = instances()


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("name, cls", all_estimators())
def test_every_estimator_is_checked(name, cls):
    # Non-regression: a new public estimator must get an entry in the common
    # checks, never be skipped silently.
    assert any(type(est) is cls for est in ESTIMATORS), name
