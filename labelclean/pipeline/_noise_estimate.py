"""How much of the labels is wrong, estimated from the evidence of a fit.

Steps 1-3 of the calibration (``docs/decisions.md``, "Calibrated decisions";
the whole procedure is described in :mod:`labelclean.pipeline._calibration`):
the evidence ``P`` (:func:`combine_evidence`), the joint of observed and true
labels ``Q`` (:func:`estimate_joint`: confident learning's confident joint,
capped by a mixture-proportion bound per class and by the disagreement of the
surest rows' labels), the per-row probability that the label is wrong
(:func:`noise_posterior`); which classes the evidence tells apart (Cohen's
κ) is measured in :mod:`labelclean.pipeline._predictability` and re-exported
here.
"""

import numpy as np
from scipy.optimize import minimize_scalar

from labelclean.pipeline._anchor import anchor_disagreement
from labelclean.pipeline._predictability import (
    LOW_PREDICTABILITY_KAPPA,
    NOISE_CORRECTED_KAPPA,
    SLIGHT_AGREEMENT_KAPPA,
    cohen_kappa,
    noise_gate,
    predictability_summary,
    recognised_classes,
    recognised_pairs,
)

__all__ = [
    "LOW_PREDICTABILITY_KAPPA",
    "NOISE_CORRECTED_KAPPA",
    "SLIGHT_AGREEMENT_KAPPA",
    "anchor_disagreement",
    "cap_level",
    "class_gate",
    "closed_classes",
    "cohen_kappa",
    "combine_evidence",
    "conditional_rows",
    "confident_joint",
    "estimate_interval",
    "estimate_joint",
    "evidence_shrinkage",
    "joint_where_cap_binds",
    "label_blind_evidence",
    "new_row_joint",
    "noise_gate",
    "noise_posterior",
    "predictability_summary",
    "recognised_classes",
    "recognised_pairs",
    "reviewed_joint",
    "right_label_probability",
    "scale_noise",
    "shrink_evidence",
    "transition_matrix",
]


def combine_evidence(confidence_proba: np.ndarray, model_proba: np.ndarray):
    """Mean of the two stages' class probabilities (confidence where the model
    has none)."""
    model = np.array(model_proba, dtype=np.float64, copy=True)
    missing = np.isnan(model).any(axis=1)
    model[missing] = confidence_proba[missing]
    return 0.5 * (np.asarray(confidence_proba, dtype=np.float64) + model)


def label_blind_evidence(evidence):
    """:func:`combine_evidence` of the final model's out-of-fold probabilities
    and the confidence stage's probabilities blind to each row's own label
    (``evidence.blind_confidence`` where the stage's soft labels are not;
    None where they are). The second reading of the surest rows
    (:func:`anchor_disagreement`).

    The KNN stage's soft labels lean towards each row's own label through
    the noise filter: a wrong label keeps its neighbours of the same wrong
    label in the filtered set, and they then vote for it, so rows with wrong
    labels are less often among the surest, and the noise there looks lower
    than it is (docs/decisions.md, *The surest rows are chosen blind to their
    own labels*).
    """
    blind = getattr(evidence, "blind_confidence", None)  # older pickles: none
    if blind is None or blind is evidence.confidence_proba:  # no filter: one reading
        return None
    return combine_evidence(blind, evidence.model_proba)


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


def class_gate(P, codes, anchor, predictable):
    """:func:`noise_gate`, its κ corrected for the noise the reading admits.

    The surest rows' disagreement beyond the evidence
    (``anchor["noise_taken_out"]``, the reading κ* took:
    :func:`~labelclean.pipeline._predictability.corrected_agreement`) is a
    point estimate, low where few rows are sure: on 89 rows of
    scikit-learn's wine with 30 % of the labels flipped it read 0.19, the
    gate then took a class the flips had blurred
    for one the evidence cannot see, and the noise estimate fell from 0.34
    to 0.05. When the features predict the label well
    (``predictable``) and there are more than two classes, the correction
    therefore takes the noise confident learning counts without the gate
    (:func:`estimate_joint`), as far as the surest rows admit it (their
    upper limit, that reading's cap), and never less than before: the gate
    only assumes a class clean that the evidence cannot recognise even then
    (docs/decisions.md, *The class gate reads the noise the surest rows
    admit*). With two classes the gate is the data set's own test, which
    ``predictable`` has already passed.
    """
    n_classes = P.shape[1]
    noise = anchor["noise_taken_out"]
    if predictable and n_classes > 2:
        free = estimate_joint(P, codes, n_classes, noise_cap=1.0)
        counted = min(1.0 - float(np.trace(free)), anchor["upper_limit"])
        noise = max(noise, counted)
    return noise_gate(P, codes, n_classes, noise)


def scale_noise(Q: np.ndarray, rate: float) -> np.ndarray:
    """The joint with its off-diagonal scaled so that the noise is ``rate``
    (as near as each observed class's mass allows); row sums are kept."""
    noise = 1.0 - float(np.trace(Q))
    if noise <= 0:
        return Q
    mass = Q.sum(axis=1)
    off = (Q - np.diag(np.diag(Q))) * (rate / noise)
    rows = off.sum(axis=1)
    off *= np.where(rows > mass, mass / np.maximum(rows, 1e-300), 1.0)[:, None]
    return off + np.diag(mass - off.sum(axis=1))


def _cap_noise(Q: np.ndarray, cap: float) -> np.ndarray:
    """Scale the off-diagonal of the joint so that the noise is at most cap."""
    noise = 1.0 - float(np.trace(Q))
    if noise <= cap or noise <= 0:
        return Q
    return scale_noise(Q, cap)


def cap_level(predictable: bool, substantial: bool = True) -> str:
    """Which reading of the surest rows caps the noise (a key of
    :func:`anchor_disagreement`): their upper limit where the features
    predict the label and the agreement with the noise taken out is
    substantial; their share itself otherwise. Below substantial agreement
    confident learning counts the rows the features cannot place as wrong
    labels, and the upper limit of a few dozen sure rows admits that count
    (docs/decisions.md, *Below substantial agreement the noise is read at
    the surest rows' share*)."""
    return "upper_limit" if predictable and substantial else "share"


def estimate_joint(
    P: np.ndarray,
    codes: np.ndarray,
    n_classes: int,
    *,
    predictable: bool = True,
    noise_cap: float | None = None,
    recognised: np.ndarray | None = None,
    blind: np.ndarray | None = None,
    substantial: bool = True,
) -> np.ndarray:
    """The joint distribution Q[observed, true] of the labels (sums to 1).

    ``predictable``: the features predict the label well (Cohen's κ of the
    evidence at least :data:`LOW_PREDICTABILITY_KAPPA`); the wrong labels of a
    class are then represented by the rows of the classes confident learning
    names as their sources. Otherwise by all rows of the other classes, a
    bound that does not mistake the overlap of neighbouring classes for noise
    (and that underestimates noise concentrated between two classes: the
    conservative side). The total is capped by :func:`anchor_disagreement`
    (the reading :func:`cap_level` names, from ``predictable`` and
    ``substantial``; read also on ``blind``, :func:`label_blind_evidence`,
    when given; in the cautious reading without the rows of the pairs
    ``recognised`` closes, :func:`_rows_read_for_noise`), or by
    ``noise_cap`` when given.

    ``recognised``: per class, whether the evidence tells the class apart
    from the others (:func:`recognised_classes`). A class it does not is
    assumed clean: none of its labels is counted as wrong, and no label of
    another class is counted as a hidden row of it (the evidence could not
    tell either from overlap). Or per pair of classes (a square boolean
    array, :func:`recognised_pairs`): a label of class *l* is counted as a
    hidden row of class *j* only where the pair is told apart.
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
    apart = None if recognised is None else _pair_gate(recognised, n_classes)
    if apart is not None and not apart.all():
        Q[~apart] = 0.0
        Q[np.diag_indices(n_classes)] += counts - Q.sum(axis=1)
    if noise_cap is None:
        read = _rows_read_for_noise(P, codes, None if predictable else apart)
        anchor = anchor_disagreement(
            P[read], codes[read], None if blind is None else blind[read]
        )
        noise_cap = anchor[cap_level(predictable, substantial)]
    return _cap_noise(Q / max(counts.sum(), 1.0), noise_cap)


def _pair_gate(recognised, n_classes: int) -> np.ndarray:
    """``recognised`` (per class, or per pair of classes) as the square
    gate ``apart[l, j]``: whether a label *l* may hide a row of *j*; the
    diagonal is open."""
    apart = np.asarray(recognised, dtype=bool)
    if apart.ndim == 1:
        apart = np.outer(apart, apart)
    return apart | np.eye(n_classes, dtype=bool)


def closed_classes(gate, n_classes: int) -> np.ndarray:
    """Per class, whether the gate (:func:`_pair_gate`) closes every pair it
    labels: none of its labels can be counted wrong, so the run takes them as
    right without checking them (a class the evidence does not recognise, or
    one whose every partner is closed)."""
    open_pairs = _pair_gate(gate, n_classes) & ~np.eye(n_classes, dtype=bool)
    return ~open_pairs.any(axis=1)


def _rows_read_for_noise(P, codes, gate):
    """The rows whose disagreement with the evidence may count as noise in the
    cautious reading: every row but those whose label and most probable
    class form a pair the gate (:func:`_pair_gate`) closes, a class it does
    not recognise or a pair it does not tell apart. The joint assumes such
    a label right, so its disagreement is overlap, not noise, and must not
    set the cap that the joint then spends on the open pairs
    (docs/decisions.md, *The cautious cap is read without the closed pairs'
    rows*)."""
    if gate is None:
        return slice(None)
    read = gate[codes, np.argmax(P, axis=1)]
    return read if read.any() else slice(None)


def conditional_rows(Q: np.ndarray) -> np.ndarray:
    """Each row of a joint divided by its sum (a row without mass: no noise)."""
    total = Q.sum(axis=1, keepdims=True)
    return np.where(total > 0, Q / np.where(total > 0, total, 1.0), np.eye(Q.shape[0]))


def transition_matrix(Q: np.ndarray) -> np.ndarray:
    """T[true, observed] = P(observed | true) from the joint."""
    true_mass = Q.sum(axis=0)
    return (Q / np.where(true_mass > 0, true_mass, 1.0)[None, :]).T


def noise_posterior(P: np.ndarray, codes: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """W[i, j]: probability that row i's true class is j, given its label."""
    T = transition_matrix(Q)
    W = T[:, codes].T * P
    total = W.sum(axis=1, keepdims=True)
    fallback = np.eye(Q.shape[0])[codes]
    return np.where(total > 0, W / np.where(total > 0, total, 1.0), fallback)


#: Half the 95 % point of the chi-squared distribution with one degree of
#: freedom: the log-likelihood a shrinkage of the evidence must gain to be
#: applied (a likelihood-ratio test of "the evidence is as sure as it says").
_SHRINKAGE_LR_CRITICAL = 0.5 * 3.841


def evidence_shrinkage(P: np.ndarray, codes: np.ndarray, Q: np.ndarray) -> dict:
    """How far the evidence overstates its certainty, measured on the labels.

    Forward correction (Patrini et al., CVPR 2017): under the estimated
    transition ``T``, a row whose true-class probabilities are ``p`` carries
    label *l* with probability ``(p T)[l]``. The evidence mixed with the class
    shares, ``(1 - α) P + α π``, is fitted to the observed labels by maximum
    likelihood over ``α`` in [0, 1] (the log-likelihood is concave in ``α``),
    and kept only when it beats ``α = 0`` by a likelihood-ratio test at 5 %.
    Out-of-fold neighbours and boosted trees on a few hundred rows say 0.999
    where a class is merely rare: on a car table whose label is the maker's
    continent, small American cars sit among Japanese ones, and with the
    evidence taken at its word corrections to "Japan" looked 95-99 % sure
    and 1 in 6 was right (five seeds, 10 % of the labels flipped). There
    ``α`` goes to 0.3 and more; on tables whose labels the evidence
    separates, the test keeps it at 0.

    Returns ``{"alpha", "log_likelihood_gain", "class_shares"}``.
    """
    n, n_classes = P.shape
    T = transition_matrix(Q)
    prior = np.bincount(codes, minlength=n_classes) / max(n, 1)
    said = (P @ T)[np.arange(n), codes]
    flat = (prior @ T)[codes]

    def loglik(alpha):
        likelihood = (1.0 - alpha) * said + alpha * flat
        return float(np.log(np.maximum(likelihood, 1e-300)).sum())

    best = minimize_scalar(lambda a: -loglik(a), bounds=(0.0, 1.0), method="bounded")
    alpha = float(best.x)
    gain = loglik(alpha) - loglik(0.0)
    if not gain >= _SHRINKAGE_LR_CRITICAL:
        alpha = 0.0
    return {
        "alpha": alpha,
        "log_likelihood_gain": float(max(gain, 0.0)),
        "class_shares": [float(v) for v in prior],
    }


def shrink_evidence(P: np.ndarray, alpha: float, class_shares) -> np.ndarray:
    """``(1 - alpha) P + alpha π``: the evidence as sure as the labels allow."""
    if alpha <= 0:
        return P
    shares = np.asarray(class_shares, dtype=np.float64)
    return (1.0 - alpha) * P + alpha * shares[None, :]


def estimate_interval(value, sd, others=(), count=None, steps=None):
    """Where the measured share should fall: value ± 1.645 sd, widened to
    include ``others`` (other estimators).

    ``sd`` (the bootstrap's) is the uncertainty of the *expected* share; the
    share measured on the fit's rows is a count out of ``count`` (the flags,
    or the wrong labels), which varies around its expectation even when that
    is known: the binomial variance ``p (1 - p) / count`` is added to the
    variance (an upper bound for rows of unequal probabilities), with ``p``
    the value given half a success and half a failure (Jeffreys' prior), so
    that an estimate of 0 or 1 still leaves room for a count that falls short.

    The measured share moves in steps of ``1 / steps`` (``steps``: its
    denominator, ``count`` by default), and a normal interval for a count
    misses its ends by up to half a step: each side is widened by
    ``0.5 / steps``, the continuity correction. Without it, 43 corrections
    each right with probability about 0.94 had an upper limit of 0.9993, and
    all 43 were right, which happens about once in 14 fits
    (docs/decisions.md, *Half a step for a count*).
    """
    if sd is None or not np.isfinite(value):
        return None
    if count is not None and count >= 1:
        p = (value * count + 0.5) / (count + 1.0)
        sd = float(np.sqrt(sd**2 + p * (1.0 - p) / count))
    steps = count if steps is None else steps
    half_step = 0.5 / steps if steps is not None and steps >= 1 else 0.0
    low, high = value - 1.645 * sd - half_step, value + 1.645 * sd + half_step
    for other in others:
        if other is not None and np.isfinite(other):
            low, high = min(low, other), max(high, other)
    return [float(max(0.0, low)), float(min(1.0, high))]


def reviewed_joint(P, codes, review, closed=None, **kwargs):
    """The joint of observed and true labels of the rows still to decide,
    with the cells ``closed`` (``[observed, true]``, or None) emptied onto
    their diagonal (:func:`close_cells`).

    ``review``: the reviewed rows (mask) and every row's label code before
    the review, or Nones. With both, two estimates of the noise of the rows
    nobody reviewed, each of which undercounts in its own cases, and per
    observed class the one with more noise:

    - on the verdicts, as any fit would. The confirmed rows, the ones the
      evidence was least sure of and now labelled right, can bend the
      mixture bound: on penguins with 20 % of the labels flipped and 40
      verdicts it cut one class's noise from 0.22 to 0.07, and the refit
      found 13 of the 42 wrong labels left;
    - on the labels before the review, the way the fit before it did, less
      the reviewed rows as that estimate had counted them (each row's
      posterior over the true classes). Where it had undercounted a class's
      noise, the reviewed rows can take all of it: on wine, 0 for a class,
      and a class estimated clean is never flagged (docs/review.md).

    Each class keeps its share of the rows nobody reviewed.
    """
    known, before = review
    n_classes = P.shape[1]
    on_verdicts = estimate_joint(P, codes, n_classes, **kwargs)
    if known is None or before is None:
        return close_cells(on_verdicts, closed)
    joint = estimate_joint(P, before, n_classes, **kwargs)
    counts = joint * codes.shape[0]
    np.add.at(counts, before[known], -noise_posterior(P[known], before[known], joint))
    rows = [conditional_rows(np.clip(counts, 0.0, None)), conditional_rows(on_verdicts)]
    more_noise = np.diag(rows[1]) < np.diag(rows[0])
    rest = ~known
    share = np.bincount(codes[rest], minlength=n_classes) / max(int(rest.sum()), 1)
    joint = share[:, None] * np.where(more_noise[:, None], rows[1], rows[0])
    return close_cells(joint, closed)


def close_cells(Q, closed):
    """The joint with the cells ``closed`` set to 0 and each observed class's
    mass kept (on the diagonal): after the cap, so the noise can only fall
    (docs/decisions.md, *Flags against the surest rows*). None: ``Q``."""
    if closed is None or not np.any(closed):
        return Q
    out = np.where(closed, 0.0, Q)
    out[np.diag_indices(Q.shape[0])] += Q.sum(axis=1) - out.sum(axis=1)
    return out


def new_row_joint(Q, n_rows, gate=None, closed=None):
    """The joint with which rows the fit did not see are decided.

    Its flip cells count the fit's own rows' flips; a new row's can fall in
    a cell they left empty (digits at 10 %: 39 of 90), where its posterior
    stays near 0 however sure both stages are. So each true class with m
    counted flips and k cells that may hold noise (``gate``: a cell the
    class and pair tests clear stays empty) has the share k / (m + k) of
    its flips spread evenly over those cells; its noise rate is kept
    (docs/decisions.md, *New rows*). Cells the fit ``closed`` stay empty.
    """
    n_classes = Q.shape[0]
    allowed = ~np.eye(n_classes, dtype=bool)  # cells of flips
    if gate is not None:
        gate = np.asarray(gate, dtype=bool)
        allowed &= np.outer(gate, gate) if gate.ndim == 1 else gate
    if closed is not None:
        allowed &= ~closed
    out = Q.copy()
    for true in range(n_classes):
        cells = allowed[:, true]
        flips = Q[:, true].sum() - Q[true, true]
        if flips <= 0 or not cells.any():
            continue
        k = int(cells.sum())
        weight = k / (n_rows * flips + k)
        off = np.where(np.arange(n_classes) == true, 0.0, Q[:, true])
        spread = np.where(cells, flips / k, 0.0)
        out[:, true] = (1.0 - weight) * off + weight * spread
        out[true, true] = Q[true, true]
    return out


def right_label_probability(P, codes, labels, share):
    """Each row's probability that ``labels`` (its cleaned label) is its true
    class: the posterior under confident learning's joint capped at the
    surest rows' ``share`` of disagreeing labels, read as it is (no class
    or pair assumed clean).

    The final model's row weights (``final_fit='weighted'``): importance
    reweighting for noisy labels (Liu and Tao, TPAMI 2016), whose weight
    P(Y = ỹ | x) / P(Ỹ = ỹ | x) this is up to the factor 1 − ρ of the
    label's class; a weight only lowers a row's say, in proportion to the
    doubt the surest rows show (docs/decisions.md, *The final model's row
    weights*).
    """
    joint = estimate_joint(P, codes, P.shape[1], noise_cap=share)
    return noise_posterior(P, codes, joint)[np.arange(codes.shape[0]), labels]


def joint_where_cap_binds(P, codes, predictable_reading, level):
    """The joint capped at the surest rows' ``level`` (``"share"`` or
    ``"lower_limit"``) where confident learning counts at least their upper
    limit (the cap binds: the surest rows contradict its count, and the
    noise can be anywhere down to that limit); None where it does not."""
    anchor, review, recognised = predictable_reading
    kwargs = {"predictable": True, "recognised": recognised}
    free = reviewed_joint(P, codes, review, noise_cap=1.0, **kwargs)
    if 1.0 - np.trace(free) < anchor["upper_limit"]:
        return None
    return reviewed_joint(P, codes, review, noise_cap=anchor[level], **kwargs)
