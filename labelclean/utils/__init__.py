"""Utilities shared by every labelclean subpackage.

- :func:`all_estimators`: every public labelclean estimator;
- :class:`NeighborIndex` and :class:`ExactPool`: the neighbour search the
  noise filter and the confidence stages share (exact or approximate, seeded);
  imported on first use (numba compiles them), so the rooms that only need
  the audit contract or the feature helpers stay cheap to import;
- :mod:`labelclean.utils.estimator_checks`: instances and expected failures
  for scikit-learn's common checks.
"""

import importlib
from typing import Any

from labelclean.utils.discovery import all_estimators

__all__ = ["ExactPool", "NeighborIndex", "all_estimators"]


def __getattr__(name: str) -> Any:
    if name in ("ExactPool", "NeighborIndex"):
        return getattr(importlib.import_module("labelclean.utils._neighbors"), name)
    raise AttributeError(f"module 'labelclean.utils' has no attribute {name!r}")
