"""Corrections: which flagged rows are relabelled, to what, and how sure.

A flagged row is corrected to its most probable other class only where both
stages name it, the evidence alone names it among the other classes, its
posterior (on the evidence as sharp as the labels surely make it, shrunk as
far as they show it too sure) reaches the correction target, and still
reaches it at the least noise the data admit (its pair's noise cell at its
share of its label's lower limit, and the surest rows' lower limit where
their cap binds; docs/decisions.md, *Calibrated decisions*, step 5).
"""

from typing import Any

import numpy as np
from scipy.special import gammaincinv

from labelclean.pipeline._noise_estimate import (
    estimate_interval,
    evidence_shrinkage,
    joint_where_cap_binds,
    noise_posterior,
    scale_noise,
    shrink_evidence,
)
from labelclean.pipeline._temperature import (
    fitted_temperature,
    least_temperature,
    temper,
)

__all__ = [
    "agreement",
    "cell_lower_limit",
    "correction_estimates",
    "correction_posterior",
    "correction_thresholds",
    "corrections",
    "noise_cell",
    "strength_at_least_noise",
    "told_apart",
    "withhold_doubtful",
]


#: One-sided confidence level of a noise cell's lower limit (95 %, as
#: κ's lower limit in :mod:`~labelclean.pipeline._predictability`).
_CELL_LOWER_LEVEL = 0.05


def cell_lower_limit(count: float) -> float:
    """One-sided 95 % lower confidence limit of a count of ``count`` rows
    taken as Poisson (Garwood 1936: half the chi-square quantile on
    ``2 count`` degrees of freedom, the gamma quantile of shape ``count``);
    0 for no rows."""
    if count <= 0:
        return 0.0
    return float(gammaincinv(count, _CELL_LOWER_LEVEL))


def noise_cell(Q, source, dest, n) -> tuple[float, float]:
    """Rows the joint's cell ``Q[source, dest]`` counts among ``n``, and
    their share of the least noise the label admits: all the rows labelled
    ``source`` that are of another class, at their count's lower limit
    (:func:`cell_lower_limit`), shared among the other classes as ``Q``
    shares them. The limit is read where the data count the noise: with
    many classes one label's wrong rows split into cells of a row or two
    each, and a limit per cell would read far less noise than the label's
    (docs/decisions.md, *The least noise read per label*)."""
    rows = float(Q[source, dest]) * n
    wrong = float(Q[source].sum() - Q[source, source]) * n
    if rows <= 0 or wrong <= 0:
        return rows, 0.0
    return rows, rows * cell_lower_limit(wrong) / wrong


def strength_at_least_noise(P, codes, Q, alternative, readings):
    """Each row's correction posterior of ``alternative`` under the least
    noise the data admit for its pair of classes.

    A correction from label *s* to class *d* rests on the joint's cell
    ``Q[s, d]``: how many rows labelled *s* are of class *d*. On a small
    class that cell is a handful of rows, and the posterior with it (on a
    car table of 117 rows with 10 % of the labels flipped, three to five
    rows labelled rear-wheel drive that the evidence places among the
    four-wheel-drive cars; two of the four corrections to four-wheel drive,
    at 0.92–0.99, relabelled clean rows). So each pair's posteriors are also
    read with its cell at its share of the least noise its label admits
    (:func:`noise_cell`; the mass moved back to the diagonal: those rows
    then carry their own label); on large cells this changes little.
    ``P``: the evidence as it is, and the temperature the corrections read
    it at (the least the labels support under ``Q``:
    :func:`~labelclean.pipeline._temperature.least_temperature`). The cells
    are read on the evidence at the least temperature the labels support
    with every label's wrong rows at their lower limit
    (:func:`_labels_at_least_noise`), if lower: with less noise the labels'
    disagreements are read more as the evidence's own doubt.
    ``readings``: the fit's shrinkage, and the predictable reading of the
    surest rows (None in the cautious one; where their cap binds, the
    posteriors are also read under the joint capped at their lower limit,
    on the evidence at the least temperature the labels support under that
    joint, if lower). The lower reading counts (docs/decisions.md,
    *Corrections hold at the least noise the data admit*).
    """
    (raw, tau), (shrinkage, predictable_reading) = P, readings
    n, n_classes = codes.shape[0], Q.shape[0]
    P = _at_least_temperature(raw, codes, _labels_at_least_noise(Q, n), tau)
    least = np.ones(n)
    if predictable_reading is not None:
        capped = joint_where_cap_binds(raw, codes, predictable_reading, "lower_limit")
        if capped is not None:
            sharp = _at_least_temperature(raw, codes, capped, tau)
            W = noise_posterior(sharp, codes, capped)
            new, strength, _ = correction_posterior(sharp, codes, capped, W)
            least = np.where(new == alternative, strength, 0.0)
    pair_of_row = codes * n_classes + alternative
    by_pair = np.argsort(pair_of_row, kind="stable")
    pairs, starts = np.unique(pair_of_row[by_pair], return_index=True)
    for pair, rows in zip(pairs, np.split(by_pair, starts[1:]), strict=True):
        joint = _cell_at_least_noise(Q.copy(), Q, divmod(int(pair), n_classes), n)
        at_cell = _posterior_of(P[rows], codes[rows], joint, alternative[rows],
                                shrinkage)  # fmt: skip
        least[rows] = np.minimum(least[rows], at_cell)
    return least


def _cell_at_least_noise(joint, Q, cell, n):
    """``joint`` (in place) with ``Q``'s off-diagonal ``cell`` (label, class)
    at its share of the label's least noise (:func:`noise_cell`), the mass
    moved back to the label's diagonal: those rows then carry their label."""
    source, dest = cell
    joint[source, dest] = noise_cell(Q, source, dest, n)[1] / n
    joint[source, source] += Q[source, dest] - joint[source, dest]
    return joint


def _labels_at_least_noise(Q, n):
    """The joint with every label's wrong rows at their count's lower limit
    (:func:`_cell_at_least_noise` for every off-diagonal cell)."""
    joint = Q.copy()
    for cell in zip(*np.nonzero(Q * (1 - np.eye(Q.shape[0]))), strict=True):
        _cell_at_least_noise(joint, Q, cell, n)
    return joint


def _at_least_temperature(raw, codes, joint, tau):
    """The evidence at the least temperature the labels support under
    ``joint``, no sharper than ``tau``."""
    lower = least_temperature(raw, codes, joint, fitted_temperature(raw, codes, joint))
    return temper(raw, min(tau, lower))


def _alternative(W, codes):
    """Most probable true class other than the observed one, and its posterior."""
    rows = np.arange(codes.shape[0])
    others = W.copy()
    others[rows, codes] = -1.0
    alternative = np.argmax(others, axis=1)
    return alternative, others[rows, alternative]


def correction_posterior(P, codes, Q, W, shrinkage=None):
    """The class a flagged row would be corrected to, the posterior the
    correction is judged by, and the shrinkage used.

    The posterior is ``W`` recomputed on the evidence shrunk as far as the
    labels show it overstates its certainty (``shrinkage``: ``alpha`` and
    the fit's ``class_shares``; None: measured here, by
    :func:`evidence_shrinkage`). Flags keep the evidence as it is.
    """
    if shrinkage is None:
        shrinkage = evidence_shrinkage(P, codes, Q)
    alternative, strength = _alternative(W, codes)
    if shrinkage.get("alpha", 0.0) > 0:
        strength = _posterior_of(P, codes, Q, alternative, shrinkage)
    return alternative, strength, shrinkage


def agreement(evidence, alternative, require_agreement):
    """Rows whose alternative both stages find most probable (all rows
    without ``require_agreement``)."""
    if not require_agreement:
        return np.ones(alternative.shape[0], dtype=bool)
    return (evidence.trusted == alternative) & (evidence.model_label == alternative)


def told_apart(P, codes, alternative, target):
    """Whether the evidence alone names the new class among the other classes.

    The posterior of a correction weighs the evidence by the estimated
    transition matrix, whose rare cells rest on a handful of rows: a row the
    evidence splits between two other classes can then be "corrected" to the
    one the joint happens to name as the usual source of its label (on a
    flights sample with no label flipped, 32 corrections, all wrong). So,
    given that the label is wrong, the evidence's own probability of the new
    class among the classes other than the observed one must reach the
    target, with no help from the transition matrix.
    """
    rows = np.arange(codes.shape[0])
    rest = 1.0 - P[rows, codes]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(rest > 0, P[rows, alternative] / rest, 0.0)
    return share >= target - 1e-12


def correction_thresholds(posterior, candidate, target, n_classes, least=None):
    """Per (observed, new) pair, the posterior a correction needs.

    Each corrected row's own posterior of the new class must reach the
    target (so the pair's estimated precision, the mean posterior of its
    corrections, does too); a pair none of whose rows reaches it is not
    corrected at all, on these rows or on new ones. With ``least`` (the
    posteriors under the least noise the data admit,
    :func:`strength_at_least_noise`), each corrected row's posterior must
    reach the target under that noise too, as it must under the fitted
    one: the pair corrects its surest rows only up to the first whose
    posterior there falls short, and its threshold rises to the last of
    them (none: the pair is not corrected). The pair's mean there would
    admit rows under the target carried by surer ones (docs/decisions.md,
    *Each row holds at the least noise*).
    """
    codes, alternative, strength = posterior
    out = np.full((n_classes, n_classes), np.inf)
    pairs: list[dict[str, Any]] = []
    for source in range(n_classes):
        for dest in range(n_classes):
            if source == dest:
                continue
            rows = np.flatnonzero(candidate & (codes == source) & (alternative == dest))
            if not rows.size:
                continue
            order = rows[np.argsort(-strength[rows], kind="stable")]
            values = strength[order]
            running = np.cumsum(values) / np.arange(1, values.shape[0] + 1)
            reach = int(np.count_nonzero(values >= target))
            count, threshold = reach, target
            pair = {"from": source, "to": dest, "candidates": int(values.shape[0]),
                    "reached_target": reach}  # fmt: skip
            if least is not None and reach:
                count = _each_holds(least[order[:reach]], target)
                pair["estimated_precision_at_least_noise"] = float(
                    least[order[: count or reach]].mean()
                )
                if 0 < count < reach:  # the surest rows hold, the rest not
                    threshold = float(values[count - 1])
                    count = int(np.count_nonzero(values >= threshold))  # ties too
            pair["corrected"] = count
            pair["estimated_precision"] = float(running[count - 1 if count else -1])
            if count:
                out[source, dest] = threshold
            pairs.append(pair)
    return out, pairs


def _each_holds(values, target) -> int:
    """How many leading ``values`` each reach ``target`` (0: none)."""
    short = np.flatnonzero(values < target - 1e-12)
    return int(short[0]) if short.size else int(values.shape[0])


def corrections(posterior, candidate, target, withheld, least=None):
    """Per-pair correction thresholds, their summaries, and the rows corrected.

    ``withheld`` (κ under :data:`LOW_PREDICTABILITY_KAPPA` before the noise
    correction, which overlap can inflate, or κ* under
    :data:`NOISE_CORRECTED_KAPPA` after it): relabelling could corrupt a
    class, so suspect rows are discarded, not corrected (docs/decisions.md).
    ``least``: see :func:`correction_thresholds`.
    """
    codes, alternative, strength = posterior
    n_classes = int(max(codes.max(), alternative.max())) + 1  # codes hold every class
    thresholds, pairs = correction_thresholds(
        posterior, candidate, target, n_classes, least
    )
    if withheld:
        _withhold_all(thresholds, pairs)
    # Only candidates (flags the final model agrees with, between classes the
    # evidence tells apart) are corrected, as decide_calibrated does.
    corrected = candidate & (strength >= thresholds[codes, alternative])
    return thresholds, pairs, corrected


#: The lowest precision the corrections may be estimated to have at the low
#: end of their interval: below it, where the noise is at its least the
#: data admit (or the evidence tempered to the labels), a correction is
#: more likely wrong than right, and no label is corrected (docs/decisions.md,
#: *Corrections the data cannot tell from no noise at all*).
DOUBTFUL_CORRECTION_PRECISION = 0.5


def withhold_doubtful(thresholds, pairs, corrected, estimated, target, expected):
    """Withhold every correction whose estimate cannot rule out that most
    of them are wrong.

    ``estimated`` and ``expected``: :func:`correction_estimates` of the
    corrections ``corrected``. Where the low end of ``expected``, the
    interval of their expected precision (the reported interval less the
    half step the count measured on these rows adds,
    :func:`estimate_interval`), is under
    :data:`DOUBTFUL_CORRECTION_PRECISION` (under ``target``, the correction
    target, where a user set it lower; typically because the noise
    interval reaches 0: the labels admit no wrong label at all, and each
    corrected row may be the overlap of two classes), the thresholds are
    set to infinity (new rows are not corrected either), the pairs correct
    nothing and the rows are discarded instead.

    Returns the thresholds, the rows corrected, the estimates (of no
    corrections where withheld) and the interval that was too wide (None
    where the corrections stand).
    """
    interval = expected
    if interval is None or interval[0] >= min(DOUBTFUL_CORRECTION_PRECISION, target):
        return thresholds, corrected, estimated, None
    _withhold_all(thresholds, pairs)
    no_estimates = dict.fromkeys(estimated)
    return (
        thresholds,
        np.zeros_like(corrected),
        no_estimates,
        [float(v) for v in interval],
    )


def _withhold_all(thresholds, pairs) -> None:
    """No pair is corrected, on these rows or new ones (in place)."""
    thresholds[:] = np.inf
    for pair in pairs:
        pair["corrected"] = 0


def _posterior_of(P, codes, Q, alternative, shrinkage):
    """Each row's posterior of ``alternative`` under ``Q``, on the evidence
    shrunk as the fit measured (:func:`correction_posterior`)."""
    alpha = shrinkage.get("alpha", 0.0)
    if alpha > 0:
        P = shrink_evidence(P, alpha, shrinkage["class_shares"])
    return noise_posterior(P, codes, Q)[np.arange(codes.shape[0]), alternative]


def correction_estimates(evidence, codes, Q, correction, noise_interval):
    """Estimated precision and recall of the corrections, with intervals.

    ``evidence``: the evidence as the corrections read it (at the least
    temperature the labels support), then other readings of it: tempered to
    the labels (the flags' reading, at the fitted temperature) and as it is.
    ``correction``:
    the class each row would be corrected to, its posterior, the rows
    corrected and the fit's shrinkage. Each corrected row restores its true
    label with its posterior probability (the posterior the correction was
    judged by), so the number of right corrections is a sum of independent
    Bernoulli draws: its mean gives the precision (over the corrections)
    and the recall (over the estimated number of wrong labels), its
    standard deviation the uncertainty. The intervals
    (:func:`estimate_interval`) are widened to the same corrections judged
    with the noise at either end of ``noise_interval`` (the joint scaled
    there, :func:`scale_noise`): how many of them are right depends on how
    much noise there is; and to them judged on the other readings of the
    evidence. The corrections are judged on evidence no sharper than the
    labels surely make it, which can be less sure than the truth (on
    100,000 separable rows with 20 % of the labels flipped, the evidence as
    it is gave a posterior of 0.93 for corrections 98.6 % right, 0.999
    tempered), or surer, where one temperature sharpens the overlap of
    two classes with the rest (docs/decisions.md, *Corrections read on the
    evidence as sharp as the labels surely make it*). None without
    corrections.

    Returns the estimates and the interval of the corrections' expected
    precision, without the measured count's half step (None without
    corrections), which :func:`withhold_doubtful` reads.
    """
    P, *others = evidence
    alternative, strength, corrected, shrinkage = correction
    count = int(np.count_nonzero(corrected))
    n_wrong = (1.0 - float(np.trace(Q))) * codes.shape[0]
    out: dict[str, Any] = dict.fromkeys(
        ("correction_precision", "correction_precision_interval",
         "correction_recall", "correction_recall_interval")
    )  # fmt: skip
    if count == 0 or n_wrong <= 0:
        return out, None
    right = strength[corrected]
    sd = float(np.sqrt(np.sum(right * (1.0 - right))))
    readings = [(P, scale_noise(Q, rate), rate) for rate in noise_interval or ()]
    readings += [(other, Q, 1.0 - float(np.trace(Q))) for other in others]
    ends = []
    for evidence_read, joint, rate in readings:
        posterior = _posterior_of(evidence_read, codes, joint, alternative, shrinkage)
        hits = float(posterior[corrected].sum())
        n_end = rate * codes.shape[0]
        ends.append((hits / count, hits / n_end if n_end > 0 else float("nan")))
    precision, recall = float(right.mean()), float(right.sum()) / n_wrong
    out["correction_precision"] = precision
    # The doubt is read on the expected precision's interval, the report
    # gives where the share measured on these rows falls (half a step wider).
    expected = estimate_interval(precision, sd / count, [e[0] for e in ends])
    out["correction_precision_interval"] = estimate_interval(
        precision, sd / count, [e[0] for e in ends], steps=count
    )
    out["correction_recall"] = min(1.0, recall)
    out["correction_recall_interval"] = estimate_interval(
        min(1.0, recall), sd / n_wrong, [min(1.0, e[1]) for e in ends], steps=n_wrong
    )
    return out, expected
