"""The final model's row weights (``final_fit='weighted'``).

Each cleaned row weighs the probability that its cleaned label is right
(docs/decisions.md, *The final model's row weights*).
"""

import numpy as np

from labelclean.pipeline._noise_estimate import (
    combine_evidence,
    right_label_probability,
)

__all__ = ["final_row_weights"]

#: The least row weight of ``final_fit='weighted'``: a row the evidence holds
#: surely mislabelled still keeps its class in the fit.
LEAST_WEIGHT = 1e-3


def final_row_weights(evidence, calibration, new_codes, kept, weight):
    """Each row's probability that its cleaned label is right
    (:func:`right_label_probability`, at no noise where the evidence is
    wrong where it is surest; a reviewed row's is 1), at least
    :data:`LEAST_WEIGHT`, times the caller's ``weight`` when given; and the
    record of ``final_fit_`` (the kept rows' mean weight, how many under
    one half)."""
    P = combine_evidence(evidence.confidence_proba, evidence.model_proba)
    anchor = calibration["anchor_disagreement"]
    share = 0.0 if anchor.get("evidence_wrong_where_surest") else anchor["share"]
    right = right_label_probability(P, evidence.codes, new_codes, share)
    if evidence.known is not None:
        right[evidence.known] = 1.0
    # A floor keeps every class in the fit: a weight only lowers a say.
    right = np.maximum(right, LEAST_WEIGHT)
    record = {
        "mean_weight": float(right[kept].mean()),
        "rows_under_half": int(np.count_nonzero(right[kept] < 0.5)),
    }
    return (right if weight is None else right * weight), record
