"""Label confidence: how likely each row's observed label is to be right.

Estimators here give every training row a score γ in [0, 1] (``confidence_``)
and score new rows with ``score_samples(X, y)``:

- :class:`KNNConfidence` scores rows by their neighbours' labels in the
  reduced set L_red that :class:`~labelclean.filters.KNNFilter` keeps;
- :class:`BayesConfidence` scores rows by Bayes' rule with class-conditional
  densities fitted on L_red and priors corrected for the noise level.
"""

from labelclean.confidence._bayes import BayesConfidence
from labelclean.confidence._knn import KNNConfidence

__all__ = ["BayesConfidence", "KNNConfidence"]
