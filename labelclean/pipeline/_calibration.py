"""Decisions calibrated on the user's own rows.

A fixed rule ("discard when γ < 0.3") means different things on different
data: where the features separate the classes it misses most wrong labels,
where they only partly predict the label it flags rows that are merely
ambiguous. This module chooses the operating point of each fit from the
fit's own evidence (``docs/decisions.md``, "Calibrated decisions"):

1. **Evidence.** ``P[i, j]``: the mean of the confidence stage's and the
   final model's out-of-fold probability that row *i* belongs to class *j*.
   Neither saw row *i*'s own label (leave-one-out neighbours, cross-fitting,
   out-of-fold models), so ``P[i]`` would be the same had the row carried
   another label.
2. **Noise estimate.** The confident joint of confident learning (Northcutt,
   Jiang and Chuang, JAIR 2021): per-class thresholds ``t_j`` (the mean
   ``P[:, j]`` over the rows labelled *j*), each row counted under the most
   probable class whose probability reaches its threshold, calibrated so that
   each observed class keeps its row count. Confident learning counts every
   confusion of the model as noise, which overstates the noise where the
   features only partly predict the label. So each observed class's noise
   rate is capped by a mixture-proportion bound: the rows labelled *l* are a
   mixture of clean rows and rows of other classes relabelled *l*; the latter
   look like the rows of the other classes, so for every threshold *s*,
   ``ρ_l ≤ share(P[·, l] ≤ s among rows labelled l) / share(P[·, l] ≤ s among
   the other rows)`` (Scott, Blanchard and Handy, COLT 2013). Both still
   count overlap as noise where every region of the feature space mixes
   classes. So the total is also capped by the labels of the rows the
   evidence is surest of (the "anchor points" of Liu and Tao, TPAMI 2016, and
   Patrini et al., CVPR 2017): where the classes are pure, a label that
   disagrees with the most probable class is wrong, and the share of such
   labels among the most confident rows measures the noise without counting
   the overlap elsewhere. Where the features predict the label well, the cap
   is the upper confidence limit of that share; where they barely do, its
   lower confidence limit (the conservative side: without pure regions, noise
   and overlap cannot be told apart, and labelclean assumes overlap). The joint
   ``Q`` (observed × true) gives the transition ``T[j, l] = P(observed l |
   true j)``.
3. **Per-row posterior.** By Bayes' rule with ``P`` as the class posterior,
   ``W[i, j] ∝ T[j, y_i] P[i, j]`` is the probability that row *i*'s true
   class is *j*; ``r_i = 1 − W[i, y_i]`` is the probability that its label is
   wrong (the audit's ``noise_probability``).
4. **Operating point, measured on known flips.** Because ``P[i]`` does not
   depend on row *i*'s label, the score a row would get if its label were
   flipped to *l* is known without refitting: ``R[i, l]``. Every row is
   flipped, on paper, to every other class, weighted by the estimated joint
   (and by the chance ``1 − r_i`` that its own label was right): these are
   known wrong labels, and the share of them above a threshold is the recall
   of that threshold. With the estimated number of wrong labels, the
   precision of every threshold follows. The threshold of highest estimated
   F1 among those whose estimated precision reaches the floor (or, with a
   target precision, the widest threshold that meets it) is chosen.
5. **Corrections.** A flagged row is corrected to ``a = argmax_{j≠y} W[i, j]``
   only when its own ``W[i, a]`` meets the correction target (so the
   estimated precision of the corrections from its observed class to *a*,
   the mean of ``W[·, a]`` over them, does too); otherwise it is discarded.
   Where the features barely predict the label, nothing is corrected.

The uncertainty of the estimates comes from a bootstrap over rows (the noise
estimate and the known-flip measurement are redone on each resample).
"""

from typing import Any

import numpy as np
from scipy.special import betaincinv

__all__ = [
    "DEFAULT_CORRECTION_PRECISION",
    "DEFAULT_FLAG_PRECISION_FLOOR",
    "LOW_PREDICTABILITY_KAPPA",
    "Calibration",
    "calibrate",
    "combine_evidence",
    "confident_joint",
    "estimate_joint",
    "noise_posterior",
]

#: Estimated precision a correction of one class into another must reach
#: when no ``target_precision`` is given.
DEFAULT_CORRECTION_PRECISION = 0.9

#: Without a target, the flagged set must be estimated to be more often right
#: than wrong: a flag set whose flags are mostly wrong removes more good rows
#: than bad ones.
DEFAULT_FLAG_PRECISION_FLOOR = 0.5

#: Below this agreement beyond chance (Cohen's κ) between the evidence's most
#: probable class and the observed label, the features predict the label
#: poorly; the report says so first and the flag floor rises to
#: :data:`LOW_PREDICTABILITY_FLOOR`.
LOW_PREDICTABILITY_KAPPA = 0.4

#: The same data are still taken as predictable when κ, with the accuracy
#: corrected for the noise measured on the surest rows (the share of their
#: labels that disagree with the evidence beyond what the evidence itself
#: expects there), reaches this
#: ("substantial" agreement, Landis and Koch 1977): heavy noise alone lowers
#: the agreement of a model with the observed labels.
NOISE_CORRECTED_KAPPA = 0.6

#: The flag floor on data whose features predict the label poorly.
LOW_PREDICTABILITY_FLOOR = 0.8

#: Shares of the rows, most confident first, whose labels measure the noise
#: where the classes are pure (the smallest group has ``_ANCHOR_MIN_ROWS``).
_ANCHOR_SHARES = (0.02, 0.05, 0.1, 0.2)
_ANCHOR_MIN_ROWS = 20
#: One-sided level of the anchor cap's upper confidence limit (Bonferroni
#: over the shares).
_ANCHOR_ALPHA = 0.05

#: Rows used for each bootstrap resample (a seeded sample above this).
_BOOTSTRAP_ROWS = 20_000
_BOOTSTRAP_REPS = 30


def combine_evidence(confidence_proba: np.ndarray, model_proba: np.ndarray):
    """Mean of the two stages' class probabilities (confidence where the model
    has none)."""
    model = np.array(model_proba, dtype=np.float64, copy=True)
    missing = np.isnan(model).any(axis=1)
    model[missing] = confidence_proba[missing]
    return 0.5 * (np.asarray(confidence_proba, dtype=np.float64) + model)


def confident_joint(P: np.ndarray, codes: np.ndarray, n_classes: int) -> np.ndarray:
    """Confident learning's count matrix C[observed, confident class]."""
    counts = np.bincount(codes, minlength=n_classes)
    sums = np.zeros(n_classes)
    np.add.at(sums, codes, P[np.arange(codes.shape[0]), codes])
    thresholds = np.where(counts > 0, sums / np.maximum(counts, 1), np.inf)
    above = P >= thresholds[None, :] - 1e-12
    best = np.argmax(np.where(above, P, -np.inf), axis=1)
    has = above.any(axis=1)
    joint = np.zeros((n_classes, n_classes))
    np.add.at(joint, (codes[has], best[has]), 1.0)
    return joint


def _mixture_bound(P, codes, sources, source_noise=None) -> np.ndarray:
    """Upper bound of each observed class's noise rate (see module doc).

    ``sources[l, j]``: the estimated number of rows labelled l whose true
    class is j; the rows labelled j, weighted by it, stand for the wrong
    labels of class l. ``source_noise[j]``: the estimated share of the rows
    labelled j that are themselves of another class. Those rows are no
    stand-ins for class j: their probability of l is typically far lower
    than a true row of j's, so they crowd the lowest quantiles of the
    stand-ins' distribution, where the bound would bite wrongly (with 30 %
    of each class flipped to the next, it cut confident learning's correct
    31 % to 12 %). The thresholds therefore start above that share.
    """
    n_classes = sources.shape[0]
    counts = np.bincount(codes, minlength=n_classes)
    bound = np.zeros(n_classes)
    for label in range(n_classes):
        share = np.where(np.arange(n_classes) == label, 0.0, sources[label])
        if share.sum() <= 0:
            continue
        tainted = 0.0
        if source_noise is not None:
            tainted = float(share @ source_noise) / float(share.sum())
        quantiles = tainted + (1.0 - tainted) * np.linspace(0.1, 1.0, 10)
        own = np.sort(P[codes == label, label])
        other = codes != label
        weight = (share / np.maximum(counts, 1))[codes[other]]
        values = P[other, label]
        order = np.argsort(values, kind="stable")
        values, cdf = values[order], np.cumsum(weight[order])
        cdf /= cdf[-1]
        cuts = values[np.minimum(np.searchsorted(cdf, quantiles), values.size - 1)]
        b = cdf[np.searchsorted(values, cuts, side="right") - 1]
        a = np.searchsorted(own, cuts, side="right") / own.size
        # The bound is a minimum over thresholds of noisy shares; an upper
        # confidence limit of the own share (two binomial standard errors)
        # keeps it from biting through sampling noise alone.
        a = a + 2.0 * np.sqrt(a * (1.0 - a) / own.size) + 1.0 / own.size
        bound[label] = float(np.min(a / np.maximum(b, 1e-12)))
    return np.clip(bound, 0.0, 1.0)


def anchor_disagreement(P: np.ndarray, codes: np.ndarray) -> dict[str, float]:
    """Share of labels that disagree with the evidence among its surest rows.

    For each share in :data:`_ANCHOR_SHARES` of the rows, ranked by their
    highest class probability, the share of those rows whose label is not
    the most probable class.

    Returns
    -------
    anchor : dict
        ``share``: the smallest such share; ``lower_limit`` and
        ``upper_limit``: the smallest one-sided Clopper–Pearson limits
        (:data:`_ANCHOR_ALPHA` each, Bonferroni over the shares);
        ``beyond_evidence``: the smallest excess of the share over the
        disagreement the evidence itself expects there (the mean of one minus
        the highest probability), at least 0. A share the evidence expects is
        overlap; only the excess points to wrong labels.
    """
    n = codes.shape[0]
    top = P.max(axis=1)
    predicted = np.argmax(P, axis=1)
    order = np.argsort(-top, kind="stable")
    lower, point, upper, excess = 1.0, 1.0, 1.0, 1.0
    alpha = _ANCHOR_ALPHA / len(_ANCHOR_SHARES)
    for share in _ANCHOR_SHARES:
        m = max(_ANCHOR_MIN_ROWS, int(np.ceil(share * n)))
        if m > n:
            break
        rows = order[:m]
        k = int(np.count_nonzero(codes[rows] != predicted[rows]))
        point = min(point, k / m)
        excess = min(excess, k / m - float(np.mean(1.0 - top[rows])))
        lower = min(lower, float(betaincinv(k, m - k + 1, alpha)) if k else 0.0)
        if k < m:
            upper = min(upper, float(betaincinv(k + 1, m - k, 1.0 - alpha)))
    return {
        "lower_limit": min(lower, point),
        "share": point,
        "upper_limit": upper,
        "beyond_evidence": max(0.0, min(excess, point)),
    }


def _cap_noise(Q: np.ndarray, cap: float) -> np.ndarray:
    """Scale the off-diagonal of the joint so that the noise is at most cap."""
    noise = 1.0 - float(np.trace(Q))
    if noise <= cap or noise <= 0:
        return Q
    off = Q - np.diag(np.diag(Q))
    scaled = off * (cap / noise)
    return scaled + np.diag(Q.sum(axis=1) - scaled.sum(axis=1))


def estimate_joint(
    P: np.ndarray,
    codes: np.ndarray,
    n_classes: int,
    *,
    predictable: bool = True,
    noise_cap: float | None = None,
    recognised: np.ndarray | None = None,
) -> np.ndarray:
    """The joint distribution Q[observed, true] of the labels (sums to 1).

    ``predictable``: the features predict the label well (Cohen's κ of the
    evidence at least :data:`LOW_PREDICTABILITY_KAPPA`); the wrong labels of a
    class are then represented by the rows of the classes confident learning
    names as their sources. Otherwise by all rows of the other classes, a
    bound that does not mistake the overlap of neighbouring classes for noise
    (and that underestimates noise concentrated between two classes: the
    conservative side). The total is capped by :func:`anchor_disagreement`
    (its upper limit, or its lower limit when not ``predictable``), or by
    ``noise_cap`` when given.

    ``recognised``: per class, whether the evidence tells the class apart
    from the others (:func:`recognised_classes`). A class it does not is
    assumed clean: none of its labels is counted as wrong, and no label of
    another class is counted as a hidden row of it (the evidence could not
    tell either from overlap).
    """
    counts = np.bincount(codes, minlength=n_classes).astype(np.float64)
    joint = confident_joint(P, codes, n_classes)
    row = joint.sum(axis=1)
    calibrated = np.where(
        row[:, None] > 0, joint * (counts / np.maximum(row, 1))[:, None], 0.0
    )
    rate = 1.0 - np.diag(calibrated) / np.maximum(counts, 1)
    sources = calibrated if predictable else np.ones_like(calibrated)
    rate = np.minimum(
        rate, _mixture_bound(P, codes, sources, rate if predictable else None)
    )
    Q = np.zeros((n_classes, n_classes))
    for label in range(n_classes):
        off = calibrated[label].sum() - calibrated[label, label]
        if off > 0 and rate[label] > 0:
            Q[label] = calibrated[label] * (rate[label] * counts[label] / off)
        Q[label, label] = counts[label] * (1.0 - rate[label] if off > 0 else 1.0)
    if recognised is not None and not np.all(recognised):
        unseen = ~np.asarray(recognised, dtype=bool)
        Q[unseen] = 0.0
        Q[:, unseen] = 0.0
        Q[np.diag_indices(n_classes)] += counts - Q.sum(axis=1)
    if noise_cap is None:
        anchor = anchor_disagreement(P, codes)
        noise_cap = anchor["upper_limit" if predictable else "lower_limit"]
    return _cap_noise(Q / max(counts.sum(), 1.0), noise_cap)


def _transition(Q: np.ndarray) -> np.ndarray:
    """T[true, observed] = P(observed | true) from the joint."""
    true_mass = Q.sum(axis=0)
    return (Q / np.where(true_mass > 0, true_mass, 1.0)[None, :]).T


def _flip_scores(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """R[i, l]: the probability that row i's label is wrong, were it l."""
    T = _transition(Q)
    own = P * np.diag(T)[None, :]
    total = P @ T
    with np.errstate(invalid="ignore", divide="ignore"):
        right = np.where(total > 0, own / total, 1.0)
    return np.clip(1.0 - right, 0.0, 1.0)


def noise_posterior(P: np.ndarray, codes: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """W[i, j]: probability that row i's true class is j, given its label."""
    T = _transition(Q)
    W = T[:, codes].T * P
    total = W.sum(axis=1, keepdims=True)
    fallback = np.eye(Q.shape[0])[codes]
    return np.where(total > 0, W / np.where(total > 0, total, 1.0), fallback)


def _known_flip_curve(P, codes, Q, r, weighted=True):
    """Estimated precision and recall of every threshold on r.

    Returns the thresholds (descending observed scores), the estimated number
    of wrong labels among the rows at or above each, and the estimated total
    number of wrong labels.
    """
    n, n_classes = P.shape
    R = _flip_scores(P, Q)
    # Weighted by the chance that the row's own label is right, so that a
    # wrong label flipped "back" does not count as a missed flip; unweighted
    # (``weighted=False``), every row stands for the flips equally, hard rows
    # included. The truth lies between the two (docs/decisions.md).
    clean = 1.0 - r if weighted else np.ones_like(r)
    mass = np.bincount(codes, weights=clean, minlength=n_classes)
    weight = (n * Q[:, codes] * (clean / np.maximum(mass[codes], 1e-12))).T
    weight[np.arange(n), codes] = 0.0
    n_wrong = float(weight.sum())
    order = np.argsort(-R, axis=None, kind="stable")
    flip_scores = R.ravel()[order]
    cumulative = np.cumsum(weight.ravel()[order])
    thresholds = np.sort(r)[::-1]
    at = np.searchsorted(-flip_scores, -thresholds, side="right")
    caught = np.where(at > 0, cumulative[np.maximum(at - 1, 0)], 0.0)
    return thresholds, caught, n_wrong


def _estimates_at(threshold, P, codes, Q, r, weighted=True):
    thresholds, caught, n_wrong = _known_flip_curve(P, codes, Q, r, weighted)
    flagged = int((r >= threshold).sum())
    at = np.searchsorted(-thresholds, -threshold, side="right")
    hit = float(caught[at - 1]) if at > 0 else 0.0
    precision = min(1.0, hit / flagged) if flagged else float("nan")
    recall = hit / n_wrong if n_wrong > 0 else float("nan")
    return precision, recall, n_wrong / codes.shape[0]


class Calibration:
    """What a fit measured about its own data, and the operating point chosen.

    Plain arrays and numbers (it is stored in the model file).

    Attributes
    ----------
    joint : ndarray of shape (n_classes, n_classes)
        Estimated joint of observed (rows) and true (columns) labels.
    flag_threshold : float
        Rows whose ``noise_probability`` reaches it are flagged (inf: none).
    correction_thresholds : ndarray of shape (n_classes, n_classes)
        ``[observed, new]``: the smallest posterior of the new class at which
        a flagged row is corrected (inf where corrections are not precise
        enough).
    summary : dict
        JSON-ready estimates (see :meth:`LabelCleaner.calibration_`).
    """

    def __init__(self, joint, flag_threshold, correction_thresholds, summary):
        self.joint = joint
        self.flag_threshold = flag_threshold
        self.correction_thresholds = correction_thresholds
        self.summary = summary


def _choose_threshold(thresholds, caught, n_wrong, floor, target):
    flagged = np.arange(1, thresholds.shape[0] + 1)
    precision = np.minimum(1.0, caught / flagged)
    # Flagging stops inside a run of tied scores only at its end.
    last_of_tie = np.r_[thresholds[1:] != thresholds[:-1], True]
    admissible = last_of_tie & (thresholds > 0)
    if target is not None:
        ok = np.flatnonzero(admissible & (precision >= target))
        return float(thresholds[ok.max()]) if ok.size else float("inf")
    f1 = 2.0 * caught / (flagged + n_wrong)
    f1 = np.where(admissible & (precision >= floor), f1, -1.0)
    k = int(np.argmax(f1))
    return float(thresholds[k]) if f1[k] > 0 else float("inf")


def _kappa(P, codes, n_classes, noise=0.0):
    """Accuracy of the evidence's most probable class, the largest class's
    share, Cohen's κ, and κ with the accuracy corrected for ``noise``.

    Wrong labels lower the agreement of even a perfect model: with a share
    ρ of labels flipped uniformly, the observed accuracy is a (1 − ρ) +
    (1 − a) ρ / (K − 1) for an accuracy a on the true labels, which is
    solved for a.
    """
    predicted = np.argmax(P, axis=1)
    accuracy = float(np.mean(predicted == codes))
    p_obs = np.bincount(codes, minlength=n_classes) / codes.shape[0]
    p_pred = np.bincount(predicted, minlength=n_classes) / codes.shape[0]
    chance = float(p_obs @ p_pred)
    if chance >= 1:
        return accuracy, float(p_obs.max()), 0.0, 0.0
    kappa = (accuracy - chance) / (1.0 - chance)
    spread = noise / max(n_classes - 1, 1)
    denominator = 1.0 - noise - spread
    clean = (accuracy - spread) / denominator if denominator > 0 else accuracy
    corrected = (min(clean, 1.0) - chance) / (1.0 - chance)
    return accuracy, float(p_obs.max()), kappa, max(kappa, corrected)


def _table_kappa(N):
    """Cohen's κ of a 2 × 2 table of counts (rows: predicted, columns: label)."""
    total = N.sum()
    if total <= 0:
        return 0.0
    agree = np.trace(N) / total
    chance = float(N.sum(axis=1) @ N.sum(axis=0)) / total**2
    return float((agree - chance) / (1.0 - chance)) if chance < 1 else 0.0


def recognised_classes(P, codes, n_classes, noise=0.0):
    """Whether the evidence tells each class apart from the others.

    Per class *l*, the predictability test of :func:`calibrate` for the two
    classes "l" and "not l": Cohen's κ between "the evidence's most probable
    class is l" and "the label is l", and the same κ on the table corrected
    for ``noise`` (flipped uniformly, a row of class l loses its label with
    probability ρ and a row of another class takes label l with probability
    ρ / (K − 1); the observed table is the true one times that transition,
    which is inverted). A class is recognised unless both are low (κ below
    :data:`LOW_PREDICTABILITY_KAPPA` and corrected κ below
    :data:`NOISE_CORRECTED_KAPPA`). A class the evidence never or rarely
    names (a small class among large ones, a class the features do not
    describe) is not: its rows look unlike their label only because the
    evidence cannot see the class at all. With two classes the test is the
    data set's own.

    Returns
    -------
    recognised : ndarray of bool, shape (n_classes,)
    kappas : list of (float, float)
        κ and noise-corrected κ per class.
    """
    predicted = np.argmax(P, axis=1)
    out = np.ones(n_classes, dtype=bool)
    kappas = []
    spread = noise / max(n_classes - 1, 1)
    T = np.array([[1.0 - spread, spread], [noise, 1.0 - noise]])
    for label in range(n_classes):
        N = np.zeros((2, 2))
        np.add.at(
            N, ((predicted == label).astype(int), (codes == label).astype(int)), 1
        )
        kappa = _table_kappa(N)
        corrected = kappa
        if noise > 0 and abs(np.linalg.det(T)) > 1e-9:
            corrected = max(kappa, _table_kappa(np.clip(N @ np.linalg.inv(T), 0, None)))
        kappas.append((kappa, corrected))
        out[label] = not (
            kappa < LOW_PREDICTABILITY_KAPPA and corrected < NOISE_CORRECTED_KAPPA
        )
    if n_classes == 2:
        out[:] = True
    return out, kappas


def _alternative(W, codes):
    """Most probable true class other than the observed one, and its posterior."""
    rows = np.arange(codes.shape[0])
    others = W.copy()
    others[rows, codes] = -1.0
    alternative = np.argmax(others, axis=1)
    return alternative, others[rows, alternative]


def _agreement(evidence, alternative, require_agreement):
    if not require_agreement:
        return np.ones(alternative.shape[0], dtype=bool)
    return (evidence.trusted == alternative) & (evidence.model_label == alternative)


def _correction_thresholds(codes, alternative, strength, candidate, target, n_classes):
    """Per (observed, new) pair, the posterior a correction needs.

    Each corrected row's own posterior of the new class must reach the
    target (so the pair's estimated precision, the mean posterior of its
    corrections, does too); a pair none of whose rows reaches it is not
    corrected at all, on these rows or on new ones.
    """
    out = np.full((n_classes, n_classes), np.inf)
    pairs: list[dict[str, Any]] = []
    for source in range(n_classes):
        for dest in range(n_classes):
            if source == dest:
                continue
            rows = candidate & (codes == source) & (alternative == dest)
            if not rows.any():
                continue
            values = np.sort(strength[rows])[::-1]
            running = np.cumsum(values) / np.arange(1, values.shape[0] + 1)
            ok = np.flatnonzero(values >= target)
            if ok.size:
                out[source, dest] = target
            pairs.append(
                {
                    "from": source,
                    "to": dest,
                    "candidates": int(values.shape[0]),
                    "corrected": int(ok.max() + 1) if ok.size else 0,
                    "estimated_precision": (
                        float(running[ok.max()]) if ok.size else float(running[-1])
                    ),
                }
            )
    return out, pairs


def calibrate(
    evidence,
    *,
    require_agreement=True,
    target_precision=None,
    random_state=0,
) -> Calibration:
    """Estimate the noise on the fit's rows and choose the operating point.

    Parameters
    ----------
    evidence : Evidence
        Observed codes and the out-of-sample class probabilities of the
        confidence stage and of the final model.
    require_agreement : bool, default=True
        A row is corrected only to the class both stages find most probable.
    target_precision : float, default=None
        Precision the flags and the corrections must be estimated to reach.
        None: flags at the highest estimated F1 whose estimated precision is
        at least :data:`DEFAULT_FLAG_PRECISION_FLOOR`, corrections at
        :data:`DEFAULT_CORRECTION_PRECISION`.
    random_state : int, default=0
        Seed of the bootstrap.

    Returns
    -------
    calibration : Calibration
    """
    codes = evidence.codes
    n, n_classes = evidence.confidence_proba.shape
    P = combine_evidence(evidence.confidence_proba, evidence.model_proba)
    anchor = anchor_disagreement(P, codes)
    accuracy, majority, kappa, kappa_star = _kappa(
        P, codes, n_classes, anchor["beyond_evidence"]
    )
    low = kappa < LOW_PREDICTABILITY_KAPPA and kappa_star < NOISE_CORRECTED_KAPPA
    recognised, class_kappas = recognised_classes(
        P, codes, n_classes, anchor["beyond_evidence"]
    )
    Q = estimate_joint(P, codes, n_classes, predictable=not low, recognised=recognised)
    W = noise_posterior(P, codes, Q)
    r = 1.0 - W[np.arange(n), codes]
    alternative, strength = _alternative(W, codes)
    floor = LOW_PREDICTABILITY_FLOOR if low else DEFAULT_FLAG_PRECISION_FLOOR
    thresholds, caught, n_wrong = _known_flip_curve(P, codes, Q, r)
    threshold = _choose_threshold(thresholds, caught, n_wrong, floor, target_precision)
    flagged = r >= threshold
    correction_target = (
        DEFAULT_CORRECTION_PRECISION if target_precision is None else target_precision
    )
    allowed = _agreement(evidence, alternative, require_agreement)
    corr_thresholds, pairs = _correction_thresholds(
        codes, alternative, strength, flagged & allowed, correction_target, n_classes
    )
    if low:
        # Where the features barely predict the label, the posterior of the
        # other class rests on the weakest part of the evidence: relabelling
        # could corrupt a class, so suspect rows are discarded, not corrected.
        corr_thresholds[:] = np.inf
        for pair in pairs:
            pair["corrected"] = 0
    corrected = flagged & (strength >= corr_thresholds[codes, alternative])
    precision, recall, _ = _estimates_at(threshold, P, codes, Q, r)
    # Beside the bootstrap: the estimates with unweighted known flips, and
    # with the other noise levels the data allow (the cap not applied, and
    # the cap at the surest rows' share itself; classes the evidence does
    # not recognise not assumed clean: their noise is unknown, not absent).
    others = [_estimates_at(threshold, P, codes, Q, r, weighted=False)]
    noise_ends = []
    for cap in (1.0, anchor["share"]):
        Qc = estimate_joint(P, codes, n_classes, predictable=not low, noise_cap=cap)
        rc = 1.0 - noise_posterior(P, codes, Qc)[np.arange(n), codes]
        others.append(_estimates_at(threshold, P, codes, Qc, rc))
        noise_ends.append(1.0 - float(np.trace(Qc)))
    boot = _bootstrap(P, codes, threshold, random_state, not low, recognised)
    counts = np.bincount(codes, minlength=n_classes)
    per_class = 1.0 - np.diag(Q) / np.maximum(Q.sum(axis=1), 1e-300)
    summary = {
        "method": "confident joint capped by a mixture-proportion bound and "
        "by the labels of the surest rows; operating point measured on known "
        "flips of the fit's own rows",
        "anchor_disagreement": anchor,
        "noise_rate": float(1.0 - np.trace(Q)),
        "noise_rate_interval": _interval(
            1.0 - np.trace(Q), boot["noise_rate"], noise_ends
        ),
        "noise_rate_per_class": [float(v) for v in per_class],
        "rows_per_class": [int(c) for c in counts],
        "flag_threshold": threshold,
        "flag_precision_floor": None if target_precision is not None else floor,
        "target_precision": target_precision,
        "flagged": int(flagged.sum()),
        "flag_precision": precision,
        "flag_precision_interval": _interval(
            precision, boot["precision"], [o[0] for o in others]
        ),
        "flag_recall": recall,
        "flag_recall_interval": _interval(
            recall, boot["recall"], [o[1] for o in others]
        ),
        "correction_target": correction_target,
        "corrections_allowed": not low,
        "corrections": int(corrected.sum()),
        "correction_precision": (
            float(strength[corrected].mean()) if corrected.any() else None
        ),
        "correction_pairs": pairs,
        "predictability": {
            "out_of_fold_accuracy": accuracy,
            "majority_share": majority,
            "kappa": kappa,
            "kappa_noise_corrected": kappa_star,
            "low": bool(low),
            "per_class": [
                {
                    "kappa": float(k),
                    "kappa_noise_corrected": float(kc),
                    "recognised": bool(ok),
                }
                for (k, kc), ok in zip(class_kappas, recognised, strict=True)
            ],
        },
    }
    return Calibration(Q, threshold, corr_thresholds, summary)


def _bootstrap(P, codes, threshold, random_state, predictable, recognised=None):
    """Point estimates ± 1.645 bootstrap standard deviations (about 5–95 %).

    The noise estimate and the known-flip measurement are redone on each
    resample of the rows; the interval is centred on the full-data estimate
    (resamples repeat rows, which biases the bootstrap mean of the estimate).
    """
    rng = np.random.RandomState(random_state)
    n, n_classes = P.shape
    size = min(n, _BOOTSTRAP_ROWS)
    values: dict[str, list[float]] = {"noise_rate": [], "precision": [], "recall": []}
    for _ in range(_BOOTSTRAP_REPS):
        rows = rng.randint(n, size=size)
        Pb, cb = P[rows], codes[rows]
        if np.unique(cb).shape[0] < n_classes:
            continue
        Qb = estimate_joint(
            Pb, cb, n_classes, predictable=predictable, recognised=recognised
        )
        rb = 1.0 - noise_posterior(Pb, cb, Qb)[np.arange(size), cb]
        precision, recall, rate = _estimates_at(threshold, Pb, cb, Qb, rb)
        values["noise_rate"].append(rate)
        values["precision"].append(precision)
        values["recall"].append(recall)
    out = {}
    for key, vals in values.items():
        finite = np.asarray([v for v in vals if np.isfinite(v)])
        out[key] = float(finite.std(ddof=1)) if finite.size > 1 else None
    return out


def _interval(value, sd, others=()):
    """value ± 1.645 sd, widened to include ``others`` (other estimators)."""
    if sd is None or not np.isfinite(value):
        return None
    low, high = value - 1.645 * sd, value + 1.645 * sd
    for other in others:
        if other is not None and np.isfinite(other):
            low, high = min(low, other), max(high, other)
    return [float(max(0.0, low)), float(min(1.0, high))]


def decide_calibrated(evidence, calibration: Calibration, *, require_agreement=True):
    """Decisions from a :class:`Calibration`: flagged rows corrected or discarded.

    Returns decision, reason, new codes and the per-row noise probability.
    """
    ev = evidence
    n = ev.codes.shape[0]
    P = combine_evidence(ev.confidence_proba, ev.model_proba)
    W = noise_posterior(P, ev.codes, calibration.joint)
    r = 1.0 - W[np.arange(n), ev.codes]
    flagged = r >= calibration.flag_threshold
    alternative, strength = _alternative(W, ev.codes)
    precise = strength >= calibration.correction_thresholds[ev.codes, alternative]
    agree = _agreement(ev, alternative, require_agreement)
    corrected = flagged & precise & agree
    decision = np.full(n, "kept", dtype=object)
    reason = np.full(n, "ok", dtype=object)
    decision[flagged] = "discarded"
    reason[flagged] = "likely_mislabeled"
    reason[flagged & agree & ~precise] = "correction_not_precise"
    decision[corrected] = "corrected"
    reason[corrected] = "trusted_alternative"
    new_codes = ev.codes.copy()
    new_codes[corrected] = alternative[corrected]
    new_codes[decision == "discarded"] = -1
    return decision, reason, new_codes, r
