"""The calibration's uncertainty: bootstrap spreads of its estimates.

:func:`bootstrap` redoes the noise estimate, the known-flip measurement and
the class-by-class reading of the surest rows on resamples of the fit's
rows; :func:`class_intervals` turns the spreads into each class's noise
interval (``docs/decisions.md``, *Honest intervals*).
"""

import numpy as np

from labelclean.pipeline._anchor import class_disagreement
from labelclean.pipeline._known_flips import estimates_at, tempered_posterior
from labelclean.pipeline._noise_estimate import (
    combine_evidence,
    estimate_interval,
    label_blind_evidence,
    reviewed_joint,
)

__all__ = ["bootstrap", "class_intervals", "class_noise"]

#: Rows used for each bootstrap resample (a seeded sample above this).
_BOOTSTRAP_ROWS = 20_000
_BOOTSTRAP_REPS = 30


def bootstrap(
    evidence,
    threshold,
    random_state,
    predictable,
    recognised=None,
    substantial=True,
    closed=None,
):
    """Point estimates ± 1.645 bootstrap standard deviations (about 5–95 %).

    The noise estimate, the known-flip measurement and the class-by-class
    reading of the surest rows (:func:`class_disagreement`, where there is
    label-blind evidence and the reading is the predictable one, the only
    one that reads it) are redone on each resample of the rows; the
    interval is centred on the full-data estimate (resamples repeat rows,
    which biases the bootstrap mean of the estimate). ``closed``: the
    directions the joint leaves out (:func:`reviewed_joint`).
    """
    P = combine_evidence(evidence.confidence_proba, evidence.model_proba)
    blind, codes = label_blind_evidence(evidence), evidence.codes
    rng = np.random.RandomState(random_state)
    n, n_classes = P.shape
    size = min(n, _BOOTSTRAP_ROWS)
    review = evidence.review
    values: dict[str, list[float]] = {
        "noise_rate": [], "precision": [], "recall": [], "blind_by_class": []
    }  # fmt: skip
    per_class = []
    for _ in range(_BOOTSTRAP_REPS):
        rows = rng.randint(n, size=size)
        Pb, cb = P[rows], codes[rows]
        if np.unique(cb).shape[0] < n_classes:
            continue
        review_b = tuple(None if a is None else a[rows] for a in review)
        Qb = reviewed_joint(
            Pb,
            cb,
            review_b,
            predictable=predictable,
            recognised=recognised,
            blind=None if blind is None else blind[rows],
            substantial=substantial,
            closed=closed,
        )
        Pt, rb, _ = tempered_posterior(Pb, cb, Qb)
        precision, recall, rate = estimates_at(threshold, Pt, cb, Qb, rb)
        values["noise_rate"].append(rate)
        values["precision"].append(precision)
        values["recall"].append(recall)
        per_class.append(class_noise(Qb))
        if blind is not None and predictable:  # read in the predictable reading only
            values["blind_by_class"].append(class_disagreement(blind[rows], cb))
    out = {}
    for key, vals in values.items():
        finite = np.asarray([v for v in vals if np.isfinite(v)])
        out[key] = float(finite.std(ddof=1)) if finite.size > 1 else None
    out["noise_rate_per_class"] = (
        [float(v) for v in np.std(per_class, axis=0, ddof=1)]
        if len(per_class) > 1
        else None
    )
    return out


def class_intervals(Q, boot, class_ends) -> list:
    """Each class's noise interval, built as the overall one: the class's
    rate ± 1.645 bootstrap standard deviations, widened to its rate at the
    other noise levels (``_calibration._other_noise_levels``)."""
    sds = boot["noise_rate_per_class"] or [None] * Q.shape[0]
    return [
        estimate_interval(rate, sd, [end[k] for end in class_ends])
        for k, (rate, sd) in enumerate(zip(class_noise(Q), sds, strict=True))
    ]


def class_noise(Q) -> np.ndarray:
    """Each observed class's share of wrong labels in the joint ``Q``."""
    return 1.0 - np.diag(Q) / np.maximum(Q.sum(axis=1), 1e-300)
