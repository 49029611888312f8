"""labelclean: find, correct and discard wrong labels in tabular data.

The whole pipeline is one estimator, :class:`LabelCleaner`; its stages are
estimators of their own (:class:`KNNFilter`, :class:`KNNConfidence`,
:class:`BayesConfidence`, :class:`SPLBoostClassifier`,
:class:`CBAdaBoostClassifier`, :class:`SPBLClassifier`,
:class:`RoSRClassifier`, :class:`BinnedTreeClassifier`). They are imported on
first use, so ``import labelclean`` (and ``labelclean --help``) stays cheap;
their homes are the subpackages named in ``docs/architecture.md``.
"""

import importlib
from typing import Any

__version__ = "0.1.0"

#: Public name -> the subpackage that defines it.
_LAZY = {
    "LabelCleaner": "labelclean.pipeline",
    "KNNFilter": "labelclean.filters",
    "KNNConfidence": "labelclean.confidence",
    "BayesConfidence": "labelclean.confidence",
    "SPLBoostClassifier": "labelclean.ensemble",
    "CBAdaBoostClassifier": "labelclean.ensemble",
    "SPBLClassifier": "labelclean.ensemble",
    "BinnedTreeClassifier": "labelclean.ensemble",
    "RoSRClassifier": "labelclean.linear_model",
}

__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'labelclean' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
