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

__all__ = [
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
