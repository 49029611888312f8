"""Utilities shared by every labelclean subpackage.

- :func:`all_estimators`: every public labelclean estimator;
- :class:`NeighborIndex` and :class:`ExactPool`: the neighbour search the
  noise filter and the confidence stages share (exact or approximate, seeded);
- :mod:`labelclean.utils.estimator_checks`: instances and expected failures
  for scikit-learn's common checks.
"""

from labelclean.utils._neighbors import ExactPool, NeighborIndex
from labelclean.utils.discovery import all_estimators

__all__ = ["ExactPool", "NeighborIndex", "all_estimators"]
