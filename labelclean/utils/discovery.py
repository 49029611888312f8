"""Discovery of labelclean's public estimators, for the common tests."""

import importlib
import inspect

from sklearn.base import BaseEstimator

__all__ = ["all_estimators"]

_ESTIMATOR_PACKAGES = (
    "labelclean.confidence",
    "labelclean.filters",
    "labelclean.ensemble",
    "labelclean.linear_model",
    "labelclean.pipeline",
)


def all_estimators() -> list[tuple[str, type]]:
    """Return every public estimator class of labelclean.

    Returns
    -------
    estimators : list of (name, class) tuples
        Sorted by name. Only classes listed in a subpackage's ``__all__`` that
        derive from :class:`sklearn.base.BaseEstimator` are returned.
    """
    found: dict[str, type] = {}
    for package in _ESTIMATOR_PACKAGES:
        try:
            module = importlib.import_module(package)
        except ModuleNotFoundError:  # pragma: no cover - subpackage not built yet
            continue
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                found[name] = obj
    return sorted(found.items())
