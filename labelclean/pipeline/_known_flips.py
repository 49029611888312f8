"""Known flips: the rows' own labels flipped on paper, to measure a threshold.

Step 4 of :mod:`labelclean.pipeline._calibration`: the evidence ``P[i]``
is meant not to depend on row *i*'s label, so the score the row would get
were its label another class is taken as known without refitting, and flips
drawn from the estimated joint measure the precision and recall of any
threshold on the fit's own rows. The premise holds only nearly: the noise
filter and the out-of-fold models let a row's label lean its evidence toward
it a little (docs/decisions.md, *Out-of-fold evidence sees its fold's
labels*).
"""

import numpy as np

from labelclean.pipeline._noise_estimate import (
    noise_posterior,
    scale_noise,
    transition_matrix,
)
from labelclean.pipeline._temperature import fitted_temperature, temper

__all__ = [
    "estimates_at",
    "estimates_at_noise_ends",
    "flip_scores",
    "flip_weights",
    "known_flip_curve",
    "tempered_posterior",
]


def tempered_posterior(P, codes, Q):
    """The evidence tempered to the observed labels under the joint ``Q``
    (:func:`~labelclean.pipeline._temperature.fitted_temperature`),
    each row's probability ``r`` that its label is wrong under it, and the
    temperature. Every reading of the noise measures its flags on evidence
    tempered under that reading's own joint."""
    temperature = fitted_temperature(P, codes, Q)
    tempered = temper(P, temperature)
    W = noise_posterior(tempered, codes, Q)
    return tempered, 1.0 - W[np.arange(codes.shape[0]), codes], temperature


def flip_scores(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """R[i, l]: the probability that row i's label is wrong, were it l."""
    T = transition_matrix(Q)
    own = P * np.diag(T)[None, :]
    total = P @ T
    with np.errstate(invalid="ignore", divide="ignore"):
        right = np.where(total > 0, own / total, 1.0)
    return np.clip(1.0 - right, 0.0, 1.0)


def flip_weights(codes, Q, r, weighted=True):
    """W[i, l]: how many wrong labels the cell "row i, were its label l"
    stands for (0 at the row's own label).

    Weighted by the chance that the row's own label is right, so that a
    wrong label flipped "back" does not count as a missed flip; unweighted
    (``weighted=False``), every row stands for the flips equally, hard rows
    included. The truth lies between the two (docs/decisions.md).
    """
    n, n_classes = codes.shape[0], Q.shape[0]
    clean = 1.0 - r if weighted else np.ones_like(r)
    mass = np.bincount(codes, weights=clean, minlength=n_classes)
    weight = (n * Q[:, codes] * (clean / np.maximum(mass[codes], 1e-12))).T
    weight[np.arange(n), codes] = 0.0
    return weight


def known_flip_curve(P, codes, Q, r, weighted=True):
    """Estimated precision and recall of every threshold on r.

    Returns the thresholds (descending observed scores), the estimated number
    of wrong labels among the rows at or above each, and the estimated total
    number of wrong labels.
    """
    n = P.shape[0]
    R = flip_scores(P, Q)
    weight = flip_weights(codes, Q, r, weighted)
    n_wrong = float(weight.sum())
    # Only the cells with weight are sorted (with many classes the joint is
    # sparse, and few are): in the stable order of every cell's score they
    # keep their order, and the cells left out add exactly zero to each sum
    # (the weights are not negative), so every count is the same to the bit.
    weight = weight.ravel()
    cells = np.flatnonzero(weight)
    cells = cells[np.argsort(-R.ravel()[cells], kind="stable")]
    scores, cumulative = R.ravel()[cells], np.cumsum(weight[cells])
    thresholds = np.sort(r)[::-1]
    at = np.searchsorted(-scores, -thresholds, side="right")
    caught = cumulative[np.maximum(at - 1, 0)] if cells.size else np.zeros(n)
    return thresholds, np.where(at > 0, caught, 0.0), n_wrong


def estimates_at(threshold, P, codes, Q, r, weighted=True):
    """Estimated precision, recall and noise rate of the rows whose ``r``
    reaches ``threshold``."""
    thresholds, caught, n_wrong = known_flip_curve(P, codes, Q, r, weighted)
    flagged = int((r >= threshold).sum())
    at = np.searchsorted(-thresholds, -threshold, side="right")
    hit = float(caught[at - 1]) if at > 0 else 0.0
    precision = min(1.0, hit / flagged) if flagged else float("nan")
    recall = hit / n_wrong if n_wrong > 0 else float("nan")
    return precision, recall, n_wrong / codes.shape[0]


def estimates_at_noise_ends(P, codes, Q, r, threshold, noise_interval):
    """Estimated precision and recall of the same flags, were the noise at
    either end of its interval.

    ``P`` is the evidence as it is (not tempered). The flags (the rows whose
    ``r`` reaches ``threshold``) stay what they are; the joint is scaled to
    each end of ``noise_interval`` (its off-diagonal, :func:`scale_noise`),
    the evidence tempered under it, and the known flips drawn from it
    measure how many of the flagged count's highest-scored rows are wrong.
    The precision of a flag set depends on how much noise there is, and that
    is only known to within its interval (docs/decisions.md, *Honest
    intervals*). Returns a list of ``(precision, recall)``, one per end
    (empty without flags or interval).
    """
    count = int(np.count_nonzero(r >= threshold))
    if count == 0 or noise_interval is None:
        return []
    out = []
    for rate in noise_interval:
        joint = scale_noise(Q, rate)
        P_end, r_end, _ = tempered_posterior(P, codes, joint)
        _, caught, n_wrong = known_flip_curve(P_end, codes, joint, r_end)
        hit = float(caught[count - 1])
        out.append(
            (min(1.0, hit / count), hit / n_wrong if n_wrong > 0 else float("nan"))
        )
    return out
