"""The papers' algorithms as printed, one call away.

The estimators' defaults depart from the papers where a measurement showed
the paper's form to fail or to cost much for little (``docs/fidelity.md``
lists every departure with the number behind it). Each function here returns
an unfitted estimator configured as its paper prints it, so the two can be
compared on the same data::

    from labelclean import papers
    from labelclean.ensemble import CBAdaBoostClassifier

    paper = papers.cb_adaboost(random_state=0)     # resampling, K = 5
    default = CBAdaBoostClassifier(random_state=0)

Keyword arguments override single settings (``papers.splboost(n_estimators=50)``).
Where a paper leaves a detail open, the function's docstring says what is
used.
"""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from labelclean.confidence import KNNConfidence
from labelclean.ensemble import (
    BinnedTreeClassifier,
    CBAdaBoostClassifier,
    SPBLClassifier,
    SPLBoostClassifier,
)
from labelclean.linear_model import RoSRClassifier

__all__ = ["cb_adaboost", "rosr_l", "spbl", "splboost"]

#: SPLBoost's self-paced regularizers by the paper's names (splboost.md
#: §IV-B): hard and linear soft weighting, and polynomial soft weighting with
#: t = 1.3 ("lowerconvex") and t = 4.0 ("upperconvex").
SPLBOOST_REGULARIZERS = {
    "hard": ("hard", 4.0),
    "linear": ("linear", 4.0),
    "lowerconvex": ("polynomial", 1.3),
    "upperconvex": ("polynomial", 4.0),
}


def splboost(regularizer="hard", *, random_state=None, **params):
    """SPLBoost as in splboost.md §IV (Algorithm 1, UCI experiment).

    - weak learner: a classification tree grown with information gain
      (``BinnedTreeClassifier(max_depth=3, criterion='entropy')``). The
      paper names C4.5 and does not give its pruning; C4.5's gain ratio and
      pessimistic pruning have no scikit-learn counterpart, and a depth
      limit stands in for the pruning (an unpruned tree fits noisy labels
      exactly, and boosting then stops after one round);
    - 200 rounds at most, the first three with λ = 1e6 (Remark 3), one inner
      iteration (Remark 1);
    - λ ("age") chosen in [1.0, 6.0] with step 0.1 by five-fold
      cross-validation (51 values, 255 fits);
    - ``regularizer``: ``'hard'``, ``'linear'``, ``'lowerconvex'``
      (polynomial, t = 1.3) or ``'upperconvex'`` (polynomial, t = 4.0).

    The default ``SPLBoostClassifier()`` boosts binned stumps and searches 11
    ages with three folds.
    """
    if regularizer not in SPLBOOST_REGULARIZERS:
        raise ValueError(
            f"regularizer must be one of {sorted(SPLBOOST_REGULARIZERS)}, "
            f"got {regularizer!r}"
        )
    kind, t = SPLBOOST_REGULARIZERS[regularizer]
    settings = {
        "n_estimators": 200,
        "age": "auto",
        "age_grid": np.round(np.arange(1.0, 6.05, 0.1), 1),
        "cv": 5,
        "regularizer": kind,
        "t": t,
        "n_warmup_rounds": 3,
        "n_inner_iter": 1,
    }
    settings.update(params)
    estimator = settings.pop(
        "estimator", BinnedTreeClassifier(max_depth=3, criterion="entropy")
    )
    return SPLBoostClassifier(estimator, random_state=random_state, **settings)


def cb_adaboost(*, random_state=None, **params):
    """CB-AdaBoost as in cb-adaboost.md §V (Algorithm 2, experiments).

    - weak learner: a decision stump (``DecisionTreeClassifier(max_depth=1)``);
    - M = 200 rounds at most;
    - each round resamples n rows with replacement in proportion to
      ``|w1 - w2|`` and fits the stump unweighted; the boosting stops when
      β is not positive (the paper writes β < 0; β = 0 changes nothing);
    - label confidence from K = 5 nearest neighbours on the filtered set
      (``KNNConfidence(n_neighbors=5)``).

    The default ``CBAdaBoostClassifier()`` fits by weight (so never stops
    early) with K = 10 and a binned stump.
    """
    settings = {
        "n_estimators": 200,
        "resample": True,
        "confidence": KNNConfidence(n_neighbors=5),
    }
    settings.update(params)
    estimator = settings.pop("estimator", DecisionTreeClassifier(max_depth=1))
    return CBAdaBoostClassifier(estimator, random_state=random_state, **settings)


def spbl(*, random_state=None, **params):
    """SPBL as in spbl.md (Algorithm 1): one global self-paced threshold.

    Every row competes for selection against one threshold λ
    (``per_class=False``) and the selection grows until every row is
    selected (``final_share=1.0``). The paper anneals λ and ζ (multiplied by
    μ > 1 up to λ_max, Algorithm 1 line 14) without values for μ or λ_max;
    the share of selected rows is annealed instead, as by the default.

    The default ``SPBLClassifier()`` sets a threshold per class and stops
    growing the selection at 90 % of each class.
    """
    settings = {"per_class": False, "final_share": 1.0}
    settings.update(params)
    return SPBLClassifier(random_state=random_state, **settings)


def rosr_l(**params):
    """RoSR-L as in rosr.md (eq. 13-18): per-class thresholds, the
    self-paced weights used as they come (``class_mass='free'``).

    The default ``RoSRClassifier()`` rescales each class's weights to the
    class's share of the total before each weighted fit
    (``class_mass='keep'``).
    """
    settings = {"per_class": True, "class_mass": "free"}
    settings.update(params)
    return RoSRClassifier(**settings)
