"""The one place that imports private scikit-learn names.

scikit-learn keeps its parameter-validation machinery and a few helpers in
private modules. Importing them here, and only here, means a scikit-learn
upgrade that moves them breaks one file.
"""

from sklearn.base import _fit_context as fit_context
from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    Options,
    StrOptions,
    validate_parameter_constraints,
    validate_params,
)
from sklearn.utils.validation import _check_sample_weight as check_sample_weight
from sklearn.utils.validation import _num_samples as num_samples

#: Most boosting rounds an estimator accepts: far beyond any useful value
#: (the papers use tens to hundreds), but finite, so a typo such as 2**63 - 1
#: is refused instead of running for ever.
MAX_ESTIMATORS = 10_000
#: Most iterations of an inner solver (same reasoning).
MAX_ITERATIONS = 100_000

__all__ = [
    "MAX_ESTIMATORS",
    "MAX_ITERATIONS",
    "HasMethods",
    "Hidden",
    "Interval",
    "Options",
    "StrOptions",
    "check_sample_weight",
    "fit_context",
    "num_samples",
    "validate_parameter_constraints",
    "validate_params",
]
