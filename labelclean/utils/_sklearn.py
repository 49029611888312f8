"""The one place that imports private scikit-learn names.

scikit-learn keeps its parameter-validation machinery and a few helpers in
private modules. Importing them here, and only here, means a scikit-learn
upgrade that moves them breaks one file. :func:`fill_new_parameters` keeps
an estimator saved before one of its parameters existed usable (``get_params``
reads every parameter of ``__init__``).
"""

import inspect

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
    "OlderFilesMixin",
    "Options",
    "StrOptions",
    "check_sample_weight",
    "fill_new_parameters",
    "fit_context",
    "num_samples",
    "validate_parameter_constraints",
    "validate_params",
]


def fill_new_parameters(estimator) -> None:
    """Give ``estimator`` every ``__init__`` parameter it lacks, at its default.

    An estimator unpickled from a file written before a parameter was added
    has no attribute for it, and ``get_params`` (``repr``, ``clone``) then
    fails. A new parameter's default is always the behaviour from before it
    existed (``LabelCleaner(cv_repeats=1)``: one split), so the default is
    what the saved estimator was fitted with.
    """
    for name, param in inspect.signature(type(estimator).__init__).parameters.items():
        if param.default is not param.empty and name not in estimator.__dict__:
            setattr(estimator, name, param.default)


class OlderFilesMixin:
    """Estimators saved by an earlier version load with every parameter.

    ``__setstate__`` (pickle, joblib and skops all restore through it) gives
    the loaded estimator each ``__init__`` parameter its file lacks, at its
    default (:func:`fill_new_parameters`). Listed before ``BaseEstimator``
    among the bases, whose own ``__setstate__`` it extends.
    """

    def __setstate__(self, state):
        super().__setstate__(state)
        fill_new_parameters(self)
