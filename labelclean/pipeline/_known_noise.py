"""A share of wrong labels the user knows from outside the data.

Where the features only partly predict the label, wrong labels and
overlapping classes leave the same trace in the labels and the features, so
the calibrated decisions assume overlap and may flag nothing, though the
evidence still ranks the wrong labels first (docs/decisions.md, *In one
page*). A user who knows the share of wrong labels from elsewhere (an audit
of a random sample of the labels, the labelling process) supplies what the
data lack: ``LabelCleaner(known_noise_rate=...)``. Where the calibrated
decisions flag fewer rows than that share, the kept rows whose labels the
evidence doubts most (1 − the evidence's probability of the row's label,
what :func:`labelclean.review.evidence_against` reads from the audit) are
discarded too, with reason ``known_noise``, until the share is reached. The
doubt of the last one is the cut: a new row (``audit``, ``labelclean
apply``) kept by the calibrated decisions is discarded where its doubt
reaches it. Reviewed rows are neither counted nor discarded.
"""

import numpy as np

from labelclean.pipeline._noise_estimate import combine_evidence

__all__ = ["KNOWN_NOISE_REASON", "add_known_noise", "evidence_doubt"]

#: The reason code of a row discarded to reach the known share.
KNOWN_NOISE_REASON = "known_noise"


def evidence_doubt(evidence) -> np.ndarray:
    """1 − the evidence's probability of each row's observed label."""
    P = combine_evidence(evidence.confidence_proba, evidence.model_proba)
    return 1.0 - P[np.arange(evidence.codes.shape[0]), evidence.codes]


def add_known_noise(evidence, decided: tuple, rate: float | None, cut=None):
    """The decisions with rows discarded for a known share of wrong labels.

    Parameters
    ----------
    evidence : Evidence
    decided : tuple
        Decisions, reasons, new codes and noise probabilities (copied where
        changed).
    rate : float or None
        The known share; None leaves ``decided`` as it is.
    cut : float or None
        New rows: discard those kept whose doubt reaches it. None (the fitted
        rows): discard the most doubted kept rows up to ``rate``, and return
        the doubt of the last as the cut.

    Returns
    -------
    decided : tuple
    cut : float or None
        None where nothing had to be added.
    info : dict
        ``rate``, ``added`` (rows discarded for it) and ``cut``.
    """
    decision, reason, new_codes, noise = decided
    if rate is None:
        return decided, cut, None
    doubt = evidence_doubt(evidence)
    open_rows = decision == "kept"
    if evidence.known is not None:
        open_rows &= ~evidence.known
    if cut is None:
        counted = np.ones(decision.shape[0], dtype=bool)
        if evidence.known is not None:
            counted &= ~evidence.known
        missing = round(rate * counted.sum()) - int(
            (counted & (decision != "kept")).sum()
        )
        candidates = np.flatnonzero(open_rows)
        order = candidates[np.argsort(-doubt[candidates], kind="stable")]
        added = order[: max(missing, 0)]
        cut = float(doubt[added[-1]]) if added.size else None
    else:
        added = np.flatnonzero(open_rows & (doubt >= cut))
    decision, reason = decision.copy(), reason.copy()
    decision[added], reason[added] = "discarded", KNOWN_NOISE_REASON
    info = {"rate": float(rate), "added": int(added.size), "cut": cut}
    return (decision, reason, new_codes, noise), cut, info
