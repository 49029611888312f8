"""Boosting classifiers for noisy labels.

- :class:`SPLBoostClassifier`: AdaBoost with self-paced weights; rows with
  zero weight at the end are the suspects.
- :class:`CBAdaBoostClassifier`: AdaBoost on the conditional risk of soft labels
  given by label confidences.
- :class:`SAMMEClassifier`: the same boosting on the observed labels (every
  confidence 1), which is AdaBoost's SAMME.
- :class:`SPBLClassifier`: self-paced, fully corrective multi-class boosting
  with logistic units.
- :class:`BinnedTreeClassifier`: stumps and shallow trees on quantised
  features, the fast default weak learner of the first two.
"""

from labelclean.ensemble._binned import BinnedTreeClassifier
from labelclean.ensemble._cb_adaboost import CBAdaBoostClassifier
from labelclean.ensemble._samme import SAMMEClassifier
from labelclean.ensemble._spbl import SPBLClassifier
from labelclean.ensemble._splboost import SPLBoostClassifier

__all__ = [
    "BinnedTreeClassifier",
    "CBAdaBoostClassifier",
    "SAMMEClassifier",
    "SPBLClassifier",
    "SPLBoostClassifier",
]
