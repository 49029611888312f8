"""Filters: estimators that keep the rows whose labels look right.

- :class:`KNNFilter` removes, over several rounds, rows whose label agrees
  with too few of their nearest neighbours (the reduced set L_red the
  confidence estimators learn from).

Every filter has ``fit_resample(X, y)``, returning the kept rows in the
caller's containers, and ``sample_indices_``.
"""

from labelclean.filters._knn import KNNFilter

__all__ = ["KNNFilter"]
