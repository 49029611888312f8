"""How well the evidence tells the classes apart (Cohen's κ).

Overall (:func:`cohen_kappa`: the readings of docs/decisions.md, *Calibrated
decisions*), per class against the rest (:func:`recognised_classes`), per
pair of classes (:func:`recognised_pairs`), and which labels may therefore
hide rows of which classes in the noise estimate (:func:`noise_gate`).
"""

import numpy as np
from sklearn.metrics import roc_auc_score

__all__ = [
    "CORRECTION_PAIR_KAPPA",
    "GOOD_RANKING_AUROC",
    "LOW_PREDICTABILITY_KAPPA",
    "NOISE_CORRECTED_KAPPA",
    "SLIGHT_AGREEMENT_KAPPA",
    "agreement_lines",
    "class_rankings",
    "cohen_kappa",
    "correctable_pairs",
    "corrected_agreement",
    "kappa_lower_limit",
    "noise_gate",
    "predictability_summary",
    "recognised_classes",
    "recognised_pairs",
    "weak_agreement",
]

#: Below this agreement beyond chance (Cohen's κ) between the evidence's most
#: probable class and the observed label, the features predict the label
#: poorly; the report says so first, and the noise is estimated the cautious
#: way (:func:`~labelclean.pipeline._noise_estimate.estimate_joint` with
#: ``predictable=False``) and nothing is corrected.
LOW_PREDICTABILITY_KAPPA = 0.4

#: The same data are still taken as predictable when κ on the table of the
#: evidence's most probable class against the label, corrected for the noise
#: measured on the surest rows (the share of their labels that disagree with
#: the evidence beyond what the evidence itself expects there), reaches this
#: ("substantial" agreement, Landis and Koch 1977): heavy noise alone lowers
#: the agreement of a model with the observed labels.
NOISE_CORRECTED_KAPPA = 0.6

#: Below this agreement, by both κ and the noise-corrected κ ("slight", Landis
#: and Koch 1977), the evidence tells the classes apart hardly better than
#: chance: it cannot tell a wrong label from a hard case, and nothing is
#: flagged (docs/decisions.md, *Evidence hardly better than chance*).
SLIGHT_AGREEMENT_KAPPA = 0.2


#: A label is corrected from one class to another only where the evidence
#: tells the two apart at least this well with the noise taken out ("almost
#: perfect", Landis and Koch 1977): the pair's noise-corrected κ, the
#: table's with two classes. Below it, rows of one class that the features
#: place in the other are right labels about as often as wrong ones
#: (docs/decisions.md, *Corrections need almost perfect agreement*); their
#: flagged rows are discarded instead.
CORRECTION_PAIR_KAPPA = 0.8

#: From this area under the ROC curve a class's rows are ranked well above
#: the others' ("excellent discrimination", Hosmer and Lemeshow, *Applied
#: Logistic Regression*, 2nd ed., 2000, 5.2.4). Where the reading is
#: cautious and such a class is the most probable for under half of its
#: rows, the report says that κ reads only the most probable class
#: (:func:`class_rankings`); no decision reads it.
GOOD_RANKING_AUROC = 0.8

#: One-sided standard normal quantile of κ's lower confidence limit (95 %).
_KAPPA_LOWER_Z = 1.645


def kappa_lower_limit(P, codes, n_classes, kappa):
    """κ's one-sided 95 % lower confidence limit.

    From κ's large-sample standard error (Fleiss, Cohen and Everitt 1969;
    Fleiss, Levin and Paik, *Statistical Methods for Rates and
    Proportions*, 3rd ed., eq. 18.13) on the table of the evidence's most
    probable class against the label. Where it is not above 0 the rows do
    not show the evidence agreeing with the labels beyond chance
    (:func:`weak_agreement`).
    """
    N = _agreement_table(P, codes, n_classes)
    n = N.sum()
    p = N / max(n, 1.0)
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    chance = float(rows @ cols)
    if n <= 0 or chance >= 1:
        return float(kappa)
    diagonal = np.diag(p) * (1.0 - (rows + cols) * (1.0 - kappa)) ** 2
    spread = cols[:, None] + rows[None, :]  # [i, j]: p_.i + p_j.
    off = p * spread**2
    np.fill_diagonal(off, 0.0)
    term = diagonal.sum() + (1.0 - kappa) ** 2 * off.sum()
    term -= (kappa - chance * (1.0 - kappa)) ** 2
    se = float(np.sqrt(max(term, 0.0) / n)) / (1.0 - chance)
    return float(kappa - _KAPPA_LOWER_Z * se)


def weak_agreement(kappa_star: float, kappa_low: float | None = None) -> str | None:
    """``'slight'`` or ``'fair'`` (Landis and Koch 1977) where even the
    agreement corrected for the noise is below moderate; None otherwise.
    ``'slight'`` also where κ's lower limit (``kappa_low``,
    :func:`kappa_lower_limit`) is not above 0: on a few hundred rows κ
    varies by ±0.1 around 0 from chance alone, and the noise correction
    scales it up by the noise it reads, so chance can pass for agreement
    (random labels on 200 rows: a fit discarded 45 % of them;
    docs/decisions.md, *Agreement the rows do not show beyond chance*).

    Nothing is flagged there: the evidence cannot tell a wrong label from a
    hard case (docs/decisions.md, *Evidence hardly better than chance* and
    *Fair agreement flags nothing either*). The band decides the report's
    first line.
    """
    if kappa_star < SLIGHT_AGREEMENT_KAPPA or (
        kappa_low is not None and kappa_low <= 0
    ):
        return "slight"
    if kappa_star < LOW_PREDICTABILITY_KAPPA:
        return "fair"
    return None


def agreement_lines(kappa: float, kappa_star: float) -> tuple[bool, bool]:
    """Whether the evidence agrees with the labels at least moderately as
    they are (κ ≥ :data:`LOW_PREDICTABILITY_KAPPA`) and at least
    substantially with the noise taken out (κ* ≥
    :data:`NOISE_CORRECTED_KAPPA`).

    A correction needs both; the flag threshold reaches down to one half
    only at the second: below it, rows the features cannot place inflate the
    posterior read row by row (docs/decisions.md, *Corrections need
    substantial agreement with the noise taken out*).
    """
    return kappa >= LOW_PREDICTABILITY_KAPPA, kappa_star >= NOISE_CORRECTED_KAPPA


def corrected_agreement(P, codes, n_classes, anchor) -> tuple[tuple, float]:
    """:func:`cohen_kappa` corrected for the noise the surest rows show, and
    that noise (the excess of their disagreement over the evidence's own
    expectation, :func:`~labelclean.pipeline._anchor.anchor_disagreement`).

    The excess has two readings, and each errs on one side. The evidence's
    surest rows (``beyond_evidence``) hide wrong labels, as its neighbours
    lean towards each row's own label, but its filtered neighbours are also
    surer than they are right, so the excess can be overlap. The label-blind
    evidence's (``blind_beyond_evidence``) shows the wrong labels but
    expects more disagreement. Each reading is taken on the side that does
    no harm in the reading it leads to: the larger where, corrected for it,
    the agreement is at least moderate as it is or substantial with the
    noise taken out (the features predict the label, and a low excess would
    leave the noise unread); the smaller otherwise, in the cautious reading,
    where an excess that is overlap would flag right labels
    (docs/decisions.md, *The noise taken out of κ: the side of each
    reading that does no harm*). With one reading, that one.
    """
    sharp = anchor["beyond_evidence"]
    smaller, larger = sorted((sharp, anchor.get("blind_beyond_evidence", sharp)))
    kappas = cohen_kappa(P, codes, n_classes, larger)
    if any(agreement_lines(kappas[2], kappas[3])):
        return kappas, larger
    return cohen_kappa(P, codes, n_classes, smaller), smaller


def correctable_pairs(n_classes: int, kappa_star: float, told) -> np.ndarray:
    """``ok[l, j]``: whether a label *l* may be corrected to *j*, the pair told
    apart almost perfectly with the noise taken out (κ* of the pair at least
    :data:`CORRECTION_PAIR_KAPPA`).

    ``told``: :func:`recognised_pairs`'s result as the class gate read it;
    None with two classes, where the pair is the table and ``kappa_star``
    its κ*. A pair without rows of both classes among the rows read is
    left open, as :func:`recognised_pairs` takes it as told apart.
    """
    if told is None:
        return np.full((n_classes, n_classes), kappa_star >= CORRECTION_PAIR_KAPPA)
    ok = np.ones((n_classes, n_classes), dtype=bool)
    for (a, b), (_, corrected) in told[1].items():
        ok[a, b] = ok[b, a] = corrected >= CORRECTION_PAIR_KAPPA
    return ok


def cohen_kappa(P, codes, n_classes, noise=0.0):
    """Accuracy of the evidence's most probable class, the largest class's
    share, Cohen's κ, and κ on that table corrected for ``noise``.

    Wrong labels lower the agreement of even a perfect model. With a share ρ
    of labels flipped uniformly among K classes, the observed table (most
    probable class × label) is the true one times the transition that keeps
    a label with probability 1 − ρ and moves it to each other class with
    ρ / (K − 1); the transition is inverted, as :func:`recognised_classes`
    does per class. (Correcting the accuracy alone, and not the agreement
    expected by chance, called an evidence that names the largest class for
    nearly every row 'substantial': κ 0.03 became 0.65 on a public table of
    voters' race, and the whole other class was flagged.)

    Where uniform flips would leave a small class with more wrong labels
    than right ones (the premise of :func:`_premise_kappa`), the flips are
    read as spread over the other classes in proportion to their rows
    (:func:`_flips_by_share`), which sends a small class few; only where that
    too breaks the premise is the noise lowered. With two classes, or
    classes of one size, the two readings are one. (A stray class of four
    rows beside breast_cancer's two, with 20 % of the labels flipped: read
    uniformly, half the flips would carry the four rows' label, the noise was
    lowered until they did not, κ 0.53 stayed 0.54, and no row was flagged;
    docs/decisions.md, *A stray class of a few rows*.)
    """
    N = _agreement_table(P, codes, n_classes)
    accuracy = float(np.trace(N) / max(codes.shape[0], 1))
    kappa = _table_kappa(N)
    majority = float(N.sum(axis=0).max() / max(codes.shape[0], 1))
    if kappa <= 1e-12 or noise <= 0:
        # No better than chance: uniform flips scale κ by a positive factor,
        # so no amount of noise makes such an evidence predictive.
        return accuracy, majority, kappa, kappa

    def uniform(rho):
        T = np.full((n_classes, n_classes), rho / max(n_classes - 1, 1))
        np.fill_diagonal(T, 1.0 - rho)
        return T

    observed = N.sum(axis=0)
    by_share = _flips_by_share(observed)
    if (
        n_classes > 2
        and not _most_right(observed, uniform(noise))
        and _most_right(observed, by_share(noise))
    ):
        return (
            accuracy,
            majority,
            kappa,
            max(kappa, _corrected_kappa(N, by_share(noise))),
        )
    return accuracy, majority, kappa, max(kappa, _premise_kappa(N, uniform, noise))


def _flips_by_share(observed):
    """The transition (true class → label) of a share ρ of labels flipped,
    each to another class with probability in proportion to that class's
    rows (``observed``, the label counts): ``T[i, j] = ρ s_j / (1 − s_i)``
    for the shares ``s``, ``1 − ρ`` on the diagonal. Returned as a function
    of ρ, as :func:`_premise_kappa` takes it."""
    shares = observed / max(float(observed.sum()), 1.0)
    others = np.maximum(1.0 - shares, 1e-12)[:, None]

    def transition(rho):
        T = rho * shares[None, :] / others
        np.fill_diagonal(T, 1.0 - rho)
        return T

    return transition


def _agreement_table(P, codes, n_classes):
    """Counts of the evidence's most probable class (rows) against the label
    (columns)."""
    N = np.zeros((n_classes, n_classes))
    np.add.at(N, (np.argmax(P, axis=1), codes), 1)
    return N


def _table_kappa(N):
    """Cohen's κ of a square table of counts (rows: predicted, columns: label)."""
    total = N.sum()
    if total <= 0:
        return 0.0
    agree = np.trace(N) / total
    chance = float(N.sum(axis=1) @ N.sum(axis=0)) / total**2
    return float((agree - chance) / (1.0 - chance)) if chance < 1 else 0.0


def _corrected_kappa(N, T):
    """κ of the table ``N`` (predicted × observed label) with the label
    transition ``T`` inverted, i.e. of the labels before the noise (0 when
    ``T`` cannot be inverted)."""
    if abs(np.linalg.det(T)) < 1e-9:
        return 0.0
    return _table_kappa(np.clip(N @ np.linalg.inv(T), 0, None))


def _premise_kappa(N, transition, noise):
    """:func:`_corrected_kappa` of ``N`` at ``transition(noise)``, the noise
    taken no higher than the premise of every estimate here allows: most of
    each class's labels are right.

    Flipped uniformly, the rows of a large class that take a small class's
    label can outnumber that class's own rows: on a table of 197 men and 30
    women whose evidence names nearly everyone a man, the surest rows'
    10 % read as uniform flips made 21 of the 30 women wrong labels, and κ
    0.21 became 0.65 (docs/decisions.md, *A small class read as mostly
    noise*). The noise is lowered, by bisection, until every observed class
    keeps at least half of its labels right under the transition.
    """
    observed = N.sum(axis=0)
    if _most_right(observed, transition(noise)):
        return _corrected_kappa(N, transition(noise))
    low, high = 0.0, float(noise)
    for _ in range(40):
        mid = 0.5 * (low + high)
        low, high = (
            (mid, high) if _most_right(observed, transition(mid)) else (low, mid)
        )
    return _corrected_kappa(N, transition(low))


def _most_right(observed, T):
    """Whether, with the labels' transition ``T`` (true class → observed
    label), at most half of each observed class's labels are wrong."""
    if abs(np.linalg.det(T)) < 1e-9:
        return False
    true = np.clip(np.linalg.solve(T.T, observed), 0, None)
    wrong = true @ T - true * np.diag(T)  # labels of each class from others
    seen = observed > 0
    return bool(np.all(wrong[seen] <= 0.5 * observed[seen] + 1e-9))


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

    def one_against_rest(rho):
        spread = rho / max(n_classes - 1, 1)
        return np.array([[1.0 - spread, spread], [rho, 1.0 - rho]])

    for label in range(n_classes):
        N = np.zeros((2, 2))
        np.add.at(
            N, ((predicted == label).astype(int), (codes == label).astype(int)), 1
        )
        kappa = _table_kappa(N)
        corrected = kappa
        if noise > 0:
            corrected = max(kappa, _premise_kappa(N, one_against_rest, noise))
        kappas.append((kappa, corrected))
        out[label] = not (
            kappa < LOW_PREDICTABILITY_KAPPA and corrected < NOISE_CORRECTED_KAPPA
        )
    if n_classes == 2:
        out[:] = True
    return out, kappas


def recognised_pairs(P, codes, n_classes, noise=0.0):
    """Whether the evidence tells each pair of classes apart.

    Per pair *j*, *l*, the predictability test of :func:`recognised_classes`
    on the rows labelled *j* or *l* whose most probable class is one of the
    two, the evidence choosing between them (the larger probability). A row
    the evidence places in a third class tells nothing about *j* against
    *l*: with 30 % uniform flips on iris, the virginica rows labelled setosa
    sat among that pair's rows, nearer versicolor, and took setosa and
    versicolor for a pair the evidence cannot tell apart (docs/decisions.md,
    *The pair test reads the rows the evidence places in the pair*). Cohen's
    κ, and κ corrected for ``noise``
    flipped uniformly among all classes (among the pair's rows, a row of *j*
    carries label *l* with probability (ρ / (K − 1)) / (1 − ρ + ρ / (K − 1))).
    Two classes can each be told from all the others and not from each other
    (two totals of the same quantity): the labels they exchange are then
    overlap, not noise (docs/decisions.md, *Calibrated decisions*, step 2,
    *And per pair of classes*).

    Returns
    -------
    apart : ndarray of bool, shape (n_classes, n_classes)
        Symmetric, True on the diagonal.
    kappas : dict
        ``(a, b) -> (κ, noise-corrected κ)`` for classes a < b with rows of
        both among the rows read (a pair without is taken as told apart).
    """
    apart = np.ones((n_classes, n_classes), dtype=bool)
    kappas = {}

    def pair(rho):
        move = rho / max(n_classes - 1, 1)
        swap = move / max(1.0 - rho + move, 1e-12)
        return np.array([[1.0 - swap, swap], [swap, 1.0 - swap]])

    top = np.argmax(P, axis=1)
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            rows = ((codes == a) | (codes == b)) & ((top == a) | (top == b))
            if not (np.any(codes[rows] == a) and np.any(codes[rows] == b)):
                continue
            N = np.zeros((2, 2))
            chose_b = (P[rows, b] > P[rows, a]).astype(int)
            np.add.at(N, (chose_b, (codes[rows] == b).astype(int)), 1)
            kappa = _table_kappa(N)
            corrected = (
                max(kappa, _premise_kappa(N, pair, noise)) if noise > 0 else kappa
            )
            kappas[(a, b)] = (kappa, corrected)
            apart[a, b] = apart[b, a] = not (
                kappa < LOW_PREDICTABILITY_KAPPA and corrected < NOISE_CORRECTED_KAPPA
            )
    return apart, kappas


def class_rankings(P, codes) -> list[tuple[float | None, int]]:
    """Per class, how well the evidence ranks its rows above the others'
    (the area under the ROC curve of its probability, the class against the
    rest; None where the labels hold none of it or nothing else, or where
    a probability is not a number) and for how many of its rows it is the
    most probable class.

    κ reads only the most probable class, which a small class seldom is
    even where its rows are ranked well. The report says so where the
    reading is cautious (:data:`GOOD_RANKING_AUROC`); no decision reads it
    (docs/decisions.md, *Imbalanced tables, a corpus no decision was read
    on*: the agreement read at the label's shares, replayed).
    """
    named = np.argmax(P, axis=1) == codes
    out = []
    for k in range(P.shape[1]):
        mine = codes == k
        both = 0 < np.count_nonzero(mine) < codes.shape[0]
        both &= bool(np.isfinite(P[:, k]).all())
        auroc = float(roc_auc_score(mine, P[:, k])) if both else None
        out.append((auroc, int(np.count_nonzero(named & mine))))
    return out


def predictability_summary(
    kappas, low, weak, class_kappas, recognised, told, rows
) -> dict:
    """``calibration_['predictability']``: agreement, reading (``weak``: the
    band of :func:`weak_agreement`), per class (with its ranking on
    ``rows``, the evidence and the codes: :func:`class_rankings`) and, with
    more than two classes, per pair of classes."""
    accuracy, majority, kappa, kappa_star, kappa_low = kappas
    moderate, substantial = agreement_lines(kappa, kappa_star)
    per_class = np.asarray(class_kappas, dtype=float).reshape(-1, 2).tolist()
    ranks = class_rankings(*rows)
    out = {
        "out_of_fold_accuracy": accuracy,
        "majority_share": majority,
        "kappa": kappa,
        "kappa_noise_corrected": kappa_star,
        "kappa_lower_limit": kappa_low,
        "low": bool(low),
        "moderate": moderate,
        "substantial": substantial,
        "almost_perfect": bool(kappa_star >= CORRECTION_PAIR_KAPPA),
        "correction_kappa": CORRECTION_PAIR_KAPPA,
        "ranking_auroc": GOOD_RANKING_AUROC,
        "slight": weak == "slight",
        "fair": weak == "fair",
        "per_class": [
            {
                "kappa": k,
                "kappa_noise_corrected": c,
                "recognised": bool(ok),
                "auroc": auroc,
                "named_rows": named,
            }
            for (k, c), ok, (auroc, named) in zip(
                per_class, recognised, ranks, strict=True
            )
        ],
    }
    if told is not None:
        apart, pair_kappas = told
        out["pairs"] = [
            {
                "classes": [a, b],
                "kappa": k,
                "kappa_noise_corrected": c,
                "told_apart": bool(apart[a, b]),
                "corrected_between": bool(c >= CORRECTION_PAIR_KAPPA),
            }
            for (a, b), (k, c) in sorted(pair_kappas.items())
        ]
    return out


def noise_gate(P, codes, n_classes, noise=0.0):
    """Which labels may hide rows of which classes: ``gate[l, j]`` is False
    where the evidence does not tell class *l* or *j* from the rest
    (:func:`recognised_classes`) or, with more than two classes, *l* from *j*
    (:func:`recognised_pairs`). Returns the gate, ``recognised_classes``'s
    result and ``recognised_pairs``'s (None with two classes)."""
    per_class = recognised_classes(P, codes, n_classes, noise)
    if n_classes <= 2:
        return per_class[0], per_class, None
    told = recognised_pairs(P, codes, n_classes, noise)
    return np.outer(per_class[0], per_class[0]) & told[0], per_class, told
