"""Decisions calibrated on the user's own rows.

A fixed rule ("discard when γ < 0.3") means different things on different
data: where the features separate the classes it misses most wrong labels,
where they only partly predict the label it flags rows that are merely
ambiguous. This module chooses the operating point of each fit from the
fit's own evidence (``docs/decisions.md``, "Calibrated decisions"):

1. **Evidence.** ``P[i, j]``: the mean of the confidence stage's and the
   final model's out-of-fold probability that row *i* belongs to class *j*.
   Neither is fitted on row *i*'s own label (leave-one-out neighbours,
   cross-fitting, out-of-fold models fitted on the other folds' observed
   labels), so ``P[i]`` would be nearly the same had the row carried another
   label (nearly: through the noise filter's reduced set the label still
   leans it a little; docs/decisions.md, *Out-of-fold evidence sees its
   fold's labels*).
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
   the overlap elsewhere. Where the features predict the label well and the
   agreement with the noise taken out is substantial, the cap is the upper
   confidence limit of that share; otherwise the share itself (without pure
   regions, noise and overlap cannot be told apart, and labelclean assumes
   overlap; below substantial agreement confident learning counts the rows
   the features cannot place). The joint ``Q`` (observed × true)
   gives the transition ``T[j, l] = P(observed l | true j)``.
3. **Per-row posterior.** By Bayes' rule with ``P`` as the class posterior,
   ``W[i, j] ∝ T[j, y_i] P[i, j]`` is the probability that row *i*'s true
   class is *j*; ``r_i = 1 − W[i, y_i]`` is the probability that its label is
   wrong (the audit's ``noise_probability``). For the flags and the known
   flips, ``P`` is first raised to the temperature (at least 1) under which
   the observed labels are most likely, each drawn from ``P ** τ`` through
   the transition ``T``
   (:func:`~labelclean.pipeline._temperature.fitted_temperature`):
   evidence learnt from noisy labels is smoother than the posterior it stands for.
4. **Operating point, measured on known flips.** Because ``P[i]`` does not
   depend on row *i*'s label, the score a row would get if its label were
   flipped to *l* is known without refitting: ``R[i, l]``. Every row is
   flipped, on paper, to every other class, weighted by the estimated joint
   (and by the chance ``1 − r_i`` that its own label was right): these are
   known wrong labels, and the share of them above a threshold is its recall;
   with the estimated number of wrong labels, its precision follows. The
   threshold of highest estimated F1 whose estimated precision reaches the
   floor (with a target precision, the widest that meets it) is chosen;
   without a target and where the features predict the label, never below
   one half: a row is flagged only when its own label is more likely wrong
   than right. Where the agreement corrected for the noise is at least
   substantial (κ* ≥ 0.6), it reaches down to one half while the flags stay
   at least half right: every row more likely wrong than right raises the
   expected F1. Where no reading of the surest rows shows a wrong label
   (``no_wrong_label_seen``: the pooled share and each class's own, read
   blind, both 0), nothing is flagged: confident learning's count there is
   the classes' edge.
5. **Corrections.** A flagged row is corrected to ``a = argmax_{j≠y} W[i, j]``
   only when its own ``W[i, a]`` meets the correction target (so the
   estimated precision of the corrections from its observed class to *a*,
   the mean of ``W[·, a]`` over them, does too); otherwise it is discarded.
   ``W`` is recomputed for this on ``P`` at the least temperature the
   labels support (the low end of the fitted one's likelihood interval:
   :func:`~labelclean.pipeline._temperature.least_temperature`), shrunk
   toward the class shares as far as the observed labels show it
   overstates its certainty (:func:`evidence_shrinkage`, forward correction
   with a likelihood-ratio test). Nothing is corrected where κ is under 0.4
   before the noise correction (the evidence agrees with the labels less
   than moderately),
   nor where κ* is under 0.6 after it (less than substantially).
   A pair's corrections must also reach the target with its cell of the
   joint (how many rows labelled *s* are of class *d*) at the one-sided
   95 % lower limit of its count, and, where the cap binds, under the
   least noise the surest rows admit (their lower limit); a pair corrects
   its surest rows as far as each of them does.
6. **Flags against the surest rows.** Where at least half of the flags move
   a label *l* to a class *j* whose surest rows carry labels *l* much less
   often than *l*'s carry labels *j*
   (:func:`~labelclean.pipeline._anchor.flags_against_surest_rows`), steps
   2–5 are done again with those cells of the joint emptied onto its
   diagonal after the cap: one-way noise read backwards, or a class inside
   another's region (docs/decisions.md, *Flags against the surest rows*).

The uncertainty comes from a bootstrap over rows (the noise estimate, the
known-flip measurement and the classes' own surest rows are redone on each
resample), widened to the other readings of the noise (among them, in the
predictable reading, those surest rows' share and its spread where it is
above confident learning's count) and, for the flags, to their known-flip precision and
recall with the noise at either end of its interval
(:mod:`labelclean.pipeline._known_flips`)."""

import numpy as np

from labelclean.pipeline._anchor import flags_against_surest_rows, pair_cells
from labelclean.pipeline._bootstrap import bootstrap, class_intervals, class_noise
from labelclean.pipeline._corrections import (
    agreement,
    correction_estimates,
    correction_posterior,
    corrections,
    noise_cell,
    strength_at_least_noise,
    told_apart,
    withhold_doubtful,
)
from labelclean.pipeline._known_flips import (
    estimates_at,
    estimates_at_noise_ends,
    known_flip_curve,
    tempered_posterior,
)
from labelclean.pipeline._noise_estimate import (
    LOW_PREDICTABILITY_KAPPA,
    anchor_disagreement,
    cap_level,
    class_gate,
    combine_evidence,
    confident_joint,
    estimate_interval,
    estimate_joint,
    joint_where_cap_binds,
    label_blind_evidence,
    noise_posterior,
    predictability_summary,
    reviewed_joint,
    scale_noise,
)
from labelclean.pipeline._predictability import (
    agreement_lines,
    correctable_pairs,
    corrected_agreement,
    kappa_lower_limit,
    weak_agreement,
)
from labelclean.pipeline._temperature import least_temperature, temper
from labelclean.report._against import most_flags_against
from labelclean.report._why import flags_nothing

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
    gate : ndarray of shape (n_classes,) or (n_classes, n_classes), or None
        Which classes (pairs of classes) may exchange noise: the class and
        pair tests' result (:func:`class_gate`).
    """

    def __init__(
        self, joint, flag_threshold, correction_thresholds, summary, gate=None
    ):
        self.joint = joint
        self.flag_threshold = flag_threshold
        self.correction_thresholds = correction_thresholds
        self.summary = summary
        self.gate = gate


_METHOD = (
    "confident joint capped by a mixture-proportion bound and by the labels of "
    "the surest rows; operating point measured on known flips of the fit's own rows"
)


def _choose_threshold(
    thresholds, caught, n_wrong, target, at_share=None, row_floor=0.0, reach=False
):
    """The flag threshold on the descending scores; with ``at_share`` (see
    :func:`_precision_at_share`) the flags must reach the floor or target
    under both readings of the noise; the threshold is at least
    ``row_floor`` and, with ``reach``, down to it where the flags stay at
    least half right."""
    flagged = np.arange(1, thresholds.shape[0] + 1)
    precision = np.minimum(1.0, caught / flagged)
    if at_share is not None:
        precision = np.minimum(precision, at_share)
    # Flagging stops inside a run of tied scores only at its end.
    last_of_tie = np.r_[thresholds[1:] != thresholds[:-1], True]
    admissible = last_of_tie & (thresholds > 0) & (thresholds >= row_floor)
    if target is not None:
        ok = np.flatnonzero(admissible & (precision >= target))
        return float(thresholds[ok.max()]) if ok.size else float("inf")
    f1 = 2.0 * caught / (flagged + n_wrong)
    f1 = np.where(admissible & (precision >= DEFAULT_FLAG_PRECISION_FLOOR), f1, -1.0)
    k = int(np.argmax(f1))
    if f1[k] <= 0:
        return float("inf")
    if reach and row_floor > 0:
        # A row whose r reaches the floor (one half) raises the expected F1 of
        # any flag set (adding it pays when r > F1 / 2); on a small table the
        # F1 measured on the known flips is too noisy to stop above it.
        k = max(k, int(np.flatnonzero(f1 > 0).max()))
    return float(thresholds[k])


def _flag_threshold(
    P, tempered, codes, Q, r, target, predictable_reading=None, substantial=False
):
    """The operating point on known flips of the ``tempered`` evidence;
    ``predictable_reading`` (the anchor, the review, the recognised classes)
    adds the check at the anchor share and, without a target, the floor on
    each row: a flag set's precision can be carried by its surest rows,
    and a row whose own ``r`` is under one half is more likely right than
    wrong. Not in the cautious reading, whose joint is capped below the
    noise it may hold, so that its ``r`` understates a wrong label (the
    caution would be taken twice), nor with a target, which sets the
    operating point the user asked for. Where no reading of the surest rows
    shows a wrong label (``no_wrong_label_seen``), nothing is flagged. Where
    the agreement corrected for the noise is at least ``substantial``, the
    threshold also reaches down to the floor while the flags stay at least
    half right: a row more likely wrong than right raises the expected F1
    (below that agreement, rows the features cannot place inflate ``r``;
    see docs/decisions.md, *Every row more likely wrong than right*)."""
    if predictable_reading is not None and predictable_reading[0].get(
        "no_wrong_label_seen"
    ):
        return float("inf")  # the data show no noise to act on
    thresholds, caught, n_wrong = known_flip_curve(tempered, codes, Q, r)
    at_share, row_floor = None, 0.0
    if predictable_reading is not None:
        at_share = _precision_at_share(P, codes, r, *predictable_reading)
        row_floor = DEFAULT_FLAG_PRECISION_FLOOR if target is None else 0.0
    return _choose_threshold(thresholds, caught, n_wrong, target, at_share,
                             row_floor, substantial)  # fmt: skip


def _precision_at_share(P, codes, r, anchor, review, recognised):
    """Per count of rows flagged (highest ``r`` first), the precision were the
    noise only the surest rows' share of disagreeing labels: the higher of
    two estimates, the mean posterior of a wrong label and the known flips
    (each is biased, in opposite directions on different data). None unless
    confident learning counts at least the share's upper limit: the surest
    rows then contradict it, and that limit is the most noise the data admit,
    not the likeliest (docs/decisions.md, *Many public tables*)."""
    joint = joint_where_cap_binds(P, codes, (anchor, review, recognised), "share")
    if joint is None:
        return None
    # On the evidence as it is, where the check's two estimates were placed;
    # tempered to the share's lower noise, it stopped flags that were mostly
    # right (docs/decisions.md, *A posterior that agrees with its joint*).
    r_share = 1.0 - noise_posterior(P, codes, joint)[np.arange(codes.shape[0]), codes]
    count = np.arange(1, r.shape[0] + 1)
    posterior = np.cumsum(r_share[np.argsort(-r, kind="stable")]) / count
    return np.maximum(posterior, known_flip_curve(P, codes, joint, r_share)[1] / count)


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
        at least :data:`DEFAULT_FLAG_PRECISION_FLOOR` (step 4 of the module
        docstring for the floor on each row), corrections at
        :data:`DEFAULT_CORRECTION_PRECISION`.
    random_state : int, default=0
        Seed of the bootstrap.

    Returns
    -------
    calibration : Calibration

    Where most flags move labels against the way each class's surest rows
    show them flowing (:func:`~labelclean.report._against.most_flags_against`),
    the calibration is done again with those directions left out of the
    joint, and its ``flags_against_surest_rows`` keeps the first reading
    under ``withheld`` (docs/decisions.md, *Flags against the surest rows*).
    """
    settings = (require_agreement, target_precision, random_state)
    first = _calibrate_once(evidence, *settings)
    reading = first.summary["flags_against_surest_rows"]
    if not most_flags_against(reading):
        return first
    closed = pair_cells(reading["pairs"], first.joint.shape[0])
    again = _calibrate_once(evidence, *settings, closed=closed)
    again.summary["flags_against_surest_rows"]["withheld"] = reading
    return again


def _calibrate_once(
    evidence, require_agreement, target_precision, random_state, closed=None
) -> Calibration:
    """:func:`calibrate` with the joint's cells ``closed`` left out."""
    codes, (n, n_classes) = evidence.codes, evidence.confidence_proba.shape
    P = combine_evidence(evidence.confidence_proba, evidence.model_proba)
    blind = label_blind_evidence(evidence)
    anchor = anchor_disagreement(P, codes, blind)
    kappas, anchor["noise_taken_out"] = corrected_agreement(P, codes, n_classes, anchor)
    kappa, kappa_star = kappas[2:]
    kappas += (kappa_lower_limit(P, codes, n_classes, kappa),)
    moderate, substantial = agreement_lines(kappa, kappa_star)
    low = not (moderate or substantial)  # the cautious reading
    weak = weak_agreement(kappa_star, kappas[4])  # below moderate or chance: no flags
    gate, (recognised, class_kappas), told = class_gate(P, codes, anchor, not low)
    Q = reviewed_joint(P, codes, evidence.review, closed, blind=blind, recognised=gate,
                       predictable=not low, substantial=substantial)  # fmt: skip
    tempered, r, temperature = tempered_posterior(P, codes, Q)
    sharpest, posterior = _correction_reading(P, codes, Q, temperature)
    reading = None if low else (anchor, evidence.review, gate)
    threshold = float("inf") if weak else _flag_threshold(P, tempered, codes, Q, r,
                    target_precision, reading, substantial)  # fmt: skip
    flagged = (r >= threshold) & _unknown(evidence.known, n)
    correction_target = target_precision or DEFAULT_CORRECTION_PRECISION
    between = correctable_pairs(n_classes, kappa_star, told)  # and pair by pair
    other = ~np.eye(n_classes, dtype=bool)
    allowed = moderate and substantial and bool(between[other].any())  # step 5
    precision, recall, _ = estimates_at(threshold, tempered, codes, Q, r)
    boot = bootstrap(evidence, threshold, random_state, not low, gate, substantial,
                     closed)  # fmt: skip
    others, noise_ends, class_ends = _other_noise_levels(
        P, tempered, codes, Q, r, threshold,
        (low, anchor, evidence.review, substantial, boot["blind_by_class"], closed),
    )  # fmt: skip
    noise = 1.0 - float(np.trace(Q))
    noise_interval = estimate_interval(noise, boot["noise_rate"], noise_ends)
    others += estimates_at_noise_ends(P, codes, Q, r, threshold, noise_interval)
    corr_thresholds, pairs, corrected, estimated, doubt = _settle_corrections(
        evidence, (P, sharpest), (tempered, Q, noise_interval, reading), flagged,
        correction_target, (posterior, require_agreement, allowed, between),
    )  # fmt: skip
    summary = {
        "method": _METHOD,
        "anchor_disagreement": anchor,
        "noise_rate": noise,
        "noise_rate_interval": noise_interval,
        "noise_rate_per_class": [float(v) for v in class_noise(Q)],
        "noise_rate_per_class_interval": class_intervals(Q, boot, class_ends),
        "noise_cap_reading": cap_level(not low, substantial),
        "rows_per_class": np.bincount(codes, minlength=n_classes).tolist(),
        "flag_threshold": threshold,
        "temperature": temperature,
        "correction_temperature": sharpest,
        "flag_precision_floor": (
            None if target_precision is not None else DEFAULT_FLAG_PRECISION_FLOOR
        ),
        "target_precision": target_precision,
        "flagged": int(flagged.sum()),
        "flag_precision": precision,
        "flag_precision_interval": estimate_interval(
            precision, boot["precision"], [o[0] for o in others], flagged.sum()
        ),
        "flags_against_surest_rows": flags_against_surest_rows(
            P if blind is None else blind, codes, flagged, posterior[0]
        ),
        "flag_recall": recall,
        "flag_recall_interval": estimate_interval(
            recall, boot["recall"], [o[1] for o in others], (1 - np.trace(Q)) * n
        ),
        "correction_target": correction_target,
        "corrections_allowed": bool(allowed and doubt is None),
        "doubtful_correction_precision_interval": doubt,
        "corrections": int(corrected.sum()),
        **estimated,
        "correction_pairs": pairs,
        "evidence_shrinkage": posterior[2],
        "predictability": predictability_summary(
            kappas, low, weak, class_kappas, recognised, told, (P, codes)
        ),
    }
    return Calibration(Q, threshold, corr_thresholds, summary, gate)


def _correction_reading(P, codes, Q, temperature):
    """The least temperature the labels support under ``Q`` (the fitted one
    ``temperature``'s interval's low end), and the correction posterior of
    each row on the evidence there (:func:`correction_posterior`)."""
    sharpest = least_temperature(P, codes, Q, temperature)
    sharp = temper(P, sharpest)
    W = noise_posterior(sharp, codes, Q)
    return sharpest, correction_posterior(sharp, codes, Q, W)


def _settle_corrections(evidence, P, readings, flagged, target, options):
    """Step 5: which flagged rows are corrected.

    ``P``: the evidence as it is, and the temperature the corrections read
    it at (the least the labels support:
    :func:`~labelclean.pipeline._temperature.least_temperature`).
    ``readings``: the tempered evidence, the joint, the noise interval and
    the predictable reading of the surest rows (None in the cautious one);
    ``options``: the correction posterior (alternative, strength,
    shrinkage), whether both stages must agree, whether the agreement
    lines allow corrections at all, and between which pairs of classes
    (:func:`~labelclean.pipeline._predictability.correctable_pairs`).
    Returns the per-pair thresholds and summaries, the rows corrected, their
    estimates, and the precision interval that withheld them (None where
    they stand, :func:`withhold_doubtful`).
    """
    tempered, Q, noise_interval, reading = readings
    (alternative, strength, shrinkage), require_agreement, allowed, between = options
    codes, sharp = evidence.codes, temper(*P)
    candidate = flagged & agreement(evidence, alternative, require_agreement)
    candidate &= between[codes, alternative]
    candidate &= told_apart(sharp, codes, alternative, target)
    least = strength_at_least_noise(P, codes, Q, alternative, (shrinkage, reading))
    thresholds, pairs, corrected = corrections(
        (codes, alternative, strength), candidate, target, not allowed, least
    )
    for pair in pairs:  # what each pair's noise rests on (its cell of the joint)
        pair["noise_cell_rows"], pair["noise_cell_lower_limit"] = noise_cell(
            Q, pair["from"], pair["to"], codes.shape[0]
        )
    estimated, expected = correction_estimates((sharp, tempered, P[0]), codes, Q, (
        alternative, strength, corrected, shrinkage), noise_interval)  # fmt: skip
    thresholds, corrected, estimated, doubt = withhold_doubtful(
        thresholds, pairs, corrected, estimated, target, expected
    )
    return thresholds, pairs, corrected, estimated, doubt


def _unknown(known, n: int) -> np.ndarray:
    """Rows whose label no person has confirmed: the only ones flagged.

    Confirmed rows still take part in the noise estimate and in the known
    flips as the rows they are (docs/review.md says why).
    """
    return np.ones(n, dtype=bool) if known is None else ~known


def _other_noise_levels(P, tempered, codes, Q, r, threshold, reading):
    """The estimates at ``threshold`` with unweighted known flips, and with the
    other noise levels the data allow: the cap not applied, and the cap one
    level lower (the surest rows' share, or where the noise was read at that
    share its lower limit; classes the evidence does not recognise not
    assumed clean: their noise is unknown, not absent), and, in the
    predictable reading, the uncapped joint scaled up to the classes' own
    surest rows' share (``anchor["blind_by_class"]``) plus 1.645 of its
    bootstrap standard deviations, where they show more noise than
    confident learning counts: wrong labels that flow one way
    (docs/decisions.md, *The noise interval reaches each class's surest
    rows*). ``reading``: whether
    the cautious reading applies, the surest rows' disagreement, the review
    (:func:`~labelclean.pipeline._noise_estimate.reviewed_joint`) and whether the
    agreement with the noise taken out is substantial (which reading capped
    the joint, :func:`~labelclean.pipeline._noise_estimate.cap_level`) and
    the bootstrap standard deviation of the class-by-class reading (None
    without one, :func:`~labelclean.pipeline._bootstrap.bootstrap`) and the
    joint's closed cells (:func:`calibrate`); and no noise at all where the
    evidence is wrong where it is surest
    (``anchor["evidence_wrong_where_surest"]``).
    Returns the (precision, recall, ...) tuples, the noise rates, and each
    class's noise rate at each of them (:func:`class_noise`)."""
    low, anchor, review, substantial, by_class_sd, closed = reading
    others = [estimates_at(threshold, tempered, codes, Q, r, weighted=False)]
    noise_ends, class_ends = [], []
    lower = "lower_limit" if cap_level(not low, substantial) == "share" else "share"
    uncapped = reviewed_joint(P, codes, review, closed, predictable=not low,
                              noise_cap=1.0)  # fmt: skip
    joints = [uncapped, reviewed_joint(P, codes, review, closed, predictable=not low,
                                       noise_cap=anchor[lower])]  # fmt: skip
    by_class = 0.0 if low else anchor.get("blind_by_class", 0.0)
    if by_class > 1.0 - float(np.trace(uncapped)):  # one-way noise read higher
        joints.append(scale_noise(uncapped, by_class + 1.645 * (by_class_sd or 0.0)))
    for Qc in joints:
        Pc, rc, _ = tempered_posterior(P, codes, Qc)
        others.append(estimates_at(threshold, Pc, codes, Qc, rc))
        noise_ends.append(1.0 - float(np.trace(Qc)))
        class_ends.append(class_noise(Qc))
    if anchor.get("evidence_wrong_where_surest"):
        noise_ends.append(0.0)  # its count may be the evidence's errors alone
        class_ends.append(np.zeros(Q.shape[0]))
    return others, noise_ends, class_ends


def unchecked_classes(calibration: Calibration) -> np.ndarray:
    """Per class, whether the fit took its labels as right unchecked
    (``not_checked``: ``LabelCleaner._calibrate``; none in older files)."""
    n_classes = calibration.joint.shape[0]
    found = calibration.summary.get("not_checked") or [False] * n_classes
    return np.asarray(found, dtype=bool)


def decide_calibrated(evidence, calibration: Calibration, *, require_agreement=True):
    """Decisions from a :class:`Calibration`: flagged rows corrected or discarded.

    Returns decision, reason, new codes and the per-row noise probability.
    A kept row of a class the fit took as right (:func:`unchecked_classes`)
    has reason ``not_checked``, not ``ok``: its noise probability of 0 is
    that assumption, not an estimate; one of a fit that flags no row (its
    agreement slight or fair, :func:`~labelclean.report._why.flags_nothing`)
    has reason ``weak_evidence``: it was kept whatever its noise probability.
    """
    ev = evidence
    n = ev.codes.shape[0]
    P = combine_evidence(ev.confidence_proba, ev.model_proba)
    # Flags on the evidence tempered as the fit measured (older files: none).
    tempered = temper(P, calibration.summary.get("temperature", 1.0))
    rows = np.arange(n)
    r = 1.0 - noise_posterior(tempered, ev.codes, calibration.joint)[rows, ev.codes]
    flagged = r >= calibration.flag_threshold
    # Corrections on the evidence as sharp as the fit's labels surely made it.
    sharp = temper(P, calibration.summary.get("correction_temperature", 1.0))
    W = noise_posterior(sharp, ev.codes, calibration.joint)
    shrinkage = calibration.summary.get("evidence_shrinkage", {})  # older files: none
    alternative, strength, _ = correction_posterior(
        sharp, ev.codes, calibration.joint, W, shrinkage
    )
    precise = strength >= calibration.correction_thresholds[ev.codes, alternative]
    precise &= told_apart(
        sharp, ev.codes, alternative, calibration.summary.get("correction_target", 0.0)
    )
    agree = agreement(ev, alternative, require_agreement)
    corrected = flagged & precise & agree
    decision = np.full(n, "kept", dtype=object)
    reason = np.full(n, "ok", dtype=object)
    decision[flagged] = "discarded"
    reason[flagged] = "likely_mislabeled"
    reason[flagged & agree & ~precise] = "correction_not_precise"
    decision[corrected] = "corrected"
    reason[corrected] = "trusted_alternative"
    if flags_nothing(calibration.summary):
        reason[decision == "kept"] = "weak_evidence"
    reason[(decision == "kept") & unchecked_classes(calibration)[ev.codes]] = (
        "not_checked"
    )
    new_codes = ev.codes.copy()
    new_codes[corrected] = alternative[corrected]
    new_codes[decision == "discarded"] = -1
    return decision, reason, new_codes, r
