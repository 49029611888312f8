"""The per-row decisions of a cleaning run: kept, corrected or discarded.

:func:`decide` turns the evidence of the stages into one decision and one
reason code per row. The rule (``docs/decisions.md``):

* **corrected** (``trusted_alternative``): the confidence stage's trusted label
  differs from the observed one, and both the confidence stage and the final
  model's out-of-sample prediction give that same label a probability of at
  least ``correct_threshold`` (with ``require_agreement=False`` the confidence
  stage alone decides);
* **discarded**: the row is a suspect and no alternative is trusted enough.
  A row is a suspect when the final model's out-of-sample probability of its
  observed label is below ``model_threshold`` and either its confidence γ is
  below ``suspect_confidence`` (reason ``low_confidence``) or SPLBoost gave it
  zero weight (reason ``spl_zero_weight``; ``low_confidence_and_spl_zero`` when
  both hold);
* **kept** (``ok``): everything else.
"""

import json

import numpy as np
import pandas as pd

__all__ = [
    "Evidence",
    "argmax_keep_observed",
    "decide",
    "neighbor_counts_json",
]


class Evidence:
    """Per-row evidence, as integer class codes and probabilities.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Observed label codes.
    confidence_proba : ndarray of shape (n_samples, n_classes)
        The confidence stage's probability of each class (soft labels).
    model_proba : ndarray of shape (n_samples, n_classes)
        The final model's out-of-sample probability of each class.
    spl_weight : ndarray of shape (n_samples,) or None
        SPLBoost's self-paced weights, when that stage ran.
    """

    def __init__(self, codes, confidence_proba, model_proba, spl_weight=None):
        self.codes = codes
        self.confidence_proba = confidence_proba
        self.model_proba = model_proba
        self.spl_weight = spl_weight
        rows = np.arange(codes.shape[0])
        self.confidence = confidence_proba[rows, codes]
        self.model_probability = model_proba[rows, codes]
        self.trusted = argmax_keep_observed(confidence_proba, codes)
        self.trusted_probability = confidence_proba[rows, self.trusted]
        self.model_label = argmax_keep_observed(model_proba, codes)
        self.model_label_probability = model_proba[rows, self.model_label]


def argmax_keep_observed(proba: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Most probable class per row; a tie with the observed class keeps it."""
    rows = np.arange(codes.shape[0])
    best = proba.max(axis=1)
    out = np.argmax(proba, axis=1)
    tie = np.isclose(proba[rows, codes], best, rtol=0, atol=1e-12)
    out[tie] = codes[tie]
    return out


def decide(
    evidence: Evidence,
    *,
    correct_threshold: float,
    suspect_confidence: float,
    model_threshold: float,
    suspect_zero_weight: bool = True,
    require_agreement: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One decision and reason per row.

    Returns
    -------
    decision : ndarray of str
        ``kept``, ``corrected`` or ``discarded``.
    reason : ndarray of str
        A code of :data:`DECISION_REASONS`.
    new_codes : ndarray of int
        The cleaned label code; -1 for discarded rows.
    """
    ev = evidence
    alternative = (ev.trusted != ev.codes) & (
        ev.trusted_probability >= correct_threshold
    )
    if require_agreement:
        alternative &= (ev.model_label == ev.trusted) & (
            ev.model_label_probability >= correct_threshold
        )
    doubtful = ev.model_probability < model_threshold
    low = (ev.confidence < suspect_confidence) & doubtful
    zero = np.zeros_like(low)
    if suspect_zero_weight and ev.spl_weight is not None:
        zero = (ev.spl_weight <= 0) & doubtful
    suspect = low | zero
    n = ev.codes.shape[0]
    decision = np.full(n, "kept", dtype=object)
    reason = np.full(n, "ok", dtype=object)
    reason[low] = "low_confidence"
    reason[zero] = "spl_zero_weight"
    reason[low & zero] = "low_confidence_and_spl_zero"
    decision[suspect] = "discarded"
    decision[alternative] = "corrected"
    reason[alternative] = "trusted_alternative"
    reason[~suspect & ~alternative] = "ok"
    new_codes = ev.codes.copy()
    new_codes[alternative] = ev.trusted[alternative]
    new_codes[(decision == "discarded")] = -1
    return decision, reason, new_codes


def neighbor_counts_json(counts: np.ndarray, classes: np.ndarray) -> pd.Series:
    """Neighbours' label counts per row as JSON strings (zero counts omitted).

    Rows with the same counts get the same string, and a neighbourhood of k
    rows over K classes has few distinct count vectors, so each distinct
    vector is formatted once and the strings are gathered by index.
    """
    names = [json.dumps(c) if not isinstance(c, str) else c for c in classes.tolist()]
    counts = np.asarray(counts, dtype=np.int64)
    n_rows = counts.shape[0]
    if n_rows == 0:
        return pd.Series([], dtype=object)
    base = int(counts.max()) + 1
    if counts.min() >= 0 and base ** counts.shape[1] < np.iinfo(np.int64).max:
        keys = counts @ (base ** np.arange(counts.shape[1], dtype=np.int64))
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(
            counts, axis=0, return_index=True, return_inverse=True
        )
    formatted = np.empty(first.shape[0], dtype=object)
    for u, row in enumerate(counts[first]):
        nz = np.flatnonzero(row)
        formatted[u] = json.dumps({names[j]: int(row[j]) for j in nz}, sort_keys=True)
    return pd.Series(formatted[inverse.ravel()], dtype=object)
