"""How a cleaning run compares candidate models out of fold.

:func:`choose_model` keeps the first candidate (the default) unless another's
out-of-fold error rate is lower by more than one standard error of the paired
per-row difference; the same rule chooses the evidence's model
(:data:`AUTO_RULE`), the final model on the cleaned rows (:data:`FINAL_RULE`)
and RoSR-L's penalty for the final fit (:data:`PENALTY_RULE`,
:data:`FINAL_PENALTIES`).
"""

from typing import Any

import numpy as np

from labelclean.pipeline._decisions import argmax_keep_observed

__all__ = [
    "AUTO_RULE",
    "EVIDENCE_PENALTY_RULE",
    "FINAL_HOLD_OUT_ROWS",
    "FINAL_PENALTIES",
    "FINAL_RULE",
    "MODEL_SELECTION_MAX_SAMPLES",
    "PENALTY_MAX_SAMPLES",
    "PENALTY_RULE",
    "PLAIN_SUFFIX",
    "choose_model",
    "penalty_names",
    "penalty_setting",
    "weighted_mean",
]

#: The penalties ``mu`` of RoSR-L's final fit compared out of fold: the grid
#: on which the paper tunes μ for each data set (rosr.md §5.1). RoSRClassifier's
#: default (1e-3, the paper's setting for its toy data, on which the evidence
#: and the decisions are built) is compared first and kept unless another is
#: clearly better.
FINAL_PENALTIES = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0)

#: Above this many rows, ``model='auto'`` compares its candidates on a
#: stratified sample of this many rows (then evaluates only the chosen one on
#: every row): the comparison's standard error is already below 0.3 points.
MODEL_SELECTION_MAX_SAMPLES = 50_000

#: Above this many cleaned rows, RoSR-L's penalties for the final fit are
#: compared on a stratified sample of this many, and the one chosen there is
#: scaled to the rows of the fit (``ModelSelectionMixin._final_penalty``).
PENALTY_MAX_SAMPLES = 10_000

#: From this many compared cleaned rows, the final model's choices (the
#: candidates' comparison and the stack's temperatures and weights; RoSR-L's
#: penalties where they share its rows) are read on one held-out fold of the
#: ``cv`` folds instead of all of them: each candidate is fitted once, on the
#: same share of the rows as each fold's fit, and judged on a fifth of them
#: (2,000 rows and more by default), as histogram gradient boosting holds out
#: rows for its early stopping from 10,000 on (docs/decisions.md, *The final
#: comparisons on one held-out fold*).
FINAL_HOLD_OUT_ROWS = 10_000

#: The mark of a penalty compared without RoSR-L's self-paced weights
#: (``weighting='none'``) in ``model_selection_['final_penalty']['candidates']``:
#: ``'0.001 plain'``.
PLAIN_SUFFIX = "plain"


def penalty_names(default: float, own: str) -> list[str]:
    """The settings RoSR-L's final fit compares, the default first: each of
    :data:`FINAL_PENALTIES` (``default`` first) with the model's own
    weighting ``own``, then, unless that is ``'none'`` already, each without
    self-paced weights (:data:`PLAIN_SUFFIX`)."""
    grid = [default, *(mu for mu in FINAL_PENALTIES if mu != default)]
    names = [repr(mu) for mu in grid]
    if own == "none":
        return names
    return names + [f"{mu!r} {PLAIN_SUFFIX}" for mu in grid]


def penalty_setting(name: str, own: str) -> tuple[float, str]:
    """``(mu, weighting)`` of a name of :func:`penalty_names`."""
    mu, _, plain = name.partition(" ")
    return float(mu), "none" if plain else own


#: The rule of ``model_selection_['final_penalty']``, in words.
PENALTY_RULE = (
    "out-of-fold error rate of RoSR-L against the cleaned labels over the "
    "cleaned rows, each row counted by the caller's sample_weight (once "
    "without), not by the final fit's weights, at each penalty, "
    "with its self-paced weights and without them (plain softmax regression); "
    "another setting replaces the default (the default penalty, with the "
    "self-paced weights) only if its error rate is lower by "
    "more than one standard error of the paired per-row difference (the "
    f"lowest error rate among those that are); above {PENALTY_MAX_SAMPLES:,} "
    f"cleaned rows, on a stratified sample of {PENALTY_MAX_SAMPLES:,}, the "
    "penalty chosen there scaled by the sample's share of the cleaned rows; "
    f"from {FINAL_HOLD_OUT_ROWS:,} compared rows, over one held-out fold"
)

#: The rule of ``model_selection_['evidence_penalty']``, in words.
EVIDENCE_PENALTY_RULE = (
    "out-of-fold error rate of RoSR-L against the observed labels over every "
    "row decided out of fold, at its default penalty and at each weaker one "
    "of the paper's grid; a weaker penalty replaces the default only if its "
    "error rate is lower by more than one standard error of the paired "
    "per-row difference and by more than the standard error of the default's "
    "error rate (the lowest error rate among those that are); above "
    f"{PENALTY_MAX_SAMPLES:,} rows, on a stratified sample of "
    f"{PENALTY_MAX_SAMPLES:,}, a penalty chosen there scaled by the sample's "
    "share of the rows"
)

#: The rule of :meth:`ModelSelectionMixin._choose_final`, in words
#: (``model_selection_['final']['rule']``).
FINAL_RULE = (
    "out-of-fold error rate against the cleaned labels over the cleaned rows "
    f"(from {FINAL_HOLD_OUT_ROWS:,} of them, over one held-out fold), "
    "each row counted by the caller's sample_weight (once without), not by "
    "the final fit's weights; another candidate replaces the "
    "first (RoSR-L under model='auto') only if its error rate is lower by more "
    "than one standard error of the paired per-row difference (the lowest "
    "error rate among those that are)"
)

#: How ``model='auto'``'s final model is made from its candidates
#: (``model_selection_['final']['rule']``; :mod:`~labelclean.pipeline._stacking`).
STACK_RULE = (
    "a weighted average of the candidates' probabilities, each calibrated by a "
    "temperature; temperatures and weights (non-negative, summing to one) "
    "minimise the out-of-fold log-loss against the cleaned labels over the "
    f"cleaned rows (from {FINAL_HOLD_OUT_ROWS:,} of them, over one held-out "
    "fold), each row counted by the caller's sample_weight (once without), "
    "not by the final fit's weights; a candidate under 1 % "
    "of the weight is left out"
)

#: The rule of :func:`choose_model`, in words (``model_selection_['rule']``).
AUTO_RULE = (
    "out-of-fold error rate against the observed labels over every row decided "
    "out of fold, each candidate fitted on the labels it gives the evidence on "
    "(the observed labels; CB-AdaBoost the neighbours' soft labels without the "
    "held-out fold's); another candidate replaces the first (RoSR-L under "
    "model='auto') only if its error rate is lower by more than one standard "
    "error of the paired per-row difference (the lowest error rate among "
    "those that are)"
)


def choose_model(
    oofs: dict[str, np.ndarray], codes: np.ndarray, weight: np.ndarray | None = None
) -> tuple[str, dict[str, Any]]:
    """Pick the final model from the out-of-fold probabilities of candidates.

    With one candidate, that one. With more (``model='auto'``, or a list), the
    first (RoSR-L under 'auto') unless another's error rate is lower by more
    than one standard error of the paired per-row difference (the
    one-standard-error rule, leaning to the first). Rows without out-of-fold
    probabilities for some candidate are left out of the comparison; with
    fewer than two rows left, the first candidate is kept. With ``weight``,
    each row's error counts by its weight (:func:`weighted_mean`).
    """
    names = list(oofs)
    decided = np.ones(codes.shape[0], dtype=bool)
    for proba in oofs.values():
        decided &= ~np.isnan(proba).any(axis=1)
    n_rows = int(decided.sum())
    w = None if weight is None else weight[decided]
    errors: dict[str, np.ndarray | None] = {}
    for name, proba in oofs.items():
        if n_rows == 0:
            errors[name] = None
            continue
        p = proba[decided]
        label = argmax_keep_observed(p, codes[decided])
        errors[name] = (label != codes[decided]).astype(np.float64)
    selection: dict[str, Any] = {
        "rule": AUTO_RULE if len(names) > 1 else "the configured final model",
        # the first is the one kept; a list keeps the order in report.json,
        # whose keys are sorted
        "order": names,
        "candidates": {
            name: {
                "error_rate": None if e is None else weighted_mean(e, w)[0],
                "rows": n_rows,
            }
            for name, e in errors.items()
        },
    }
    chosen = names[0]
    best_error = None
    compared: dict[str, tuple[float | None, float | None]] = {}
    first = errors[names[0]]
    for name in names[1:]:
        other = errors[name]
        diff: float | None = None
        se: float | None = None
        if n_rows >= 2 and first is not None and other is not None:
            diff, se = weighted_mean(first - other, w)
            rate = weighted_mean(other, w)[0]
            if diff > se and (best_error is None or rate < best_error):
                chosen, best_error = name, rate
        compared[name] = (diff, se)
        if len(names) > 2:
            selection["candidates"][name]["difference"] = diff
            selection["candidates"][name]["standard_error"] = se
    if compared:
        # the chosen challenger's comparison, or the closest challenger's
        closest = max(compared, key=lambda k: -np.inf if compared[k][0] is None
                      else compared[k][0])  # fmt: skip
        diff, se = compared[chosen if chosen in compared else closest]
        selection["difference"], selection["standard_error"] = diff, se
    selection["chosen"] = chosen
    return chosen, selection


def weighted_mean(values: np.ndarray, weight: np.ndarray | None):
    """Mean of ``values`` and its standard error (None for one value).

    With ``weight``: the weighted mean, and sqrt(n / (n - 1) * sum(w² (v -
    mean)²)) / sum(w), which is the unweighted standard error when every
    weight is equal."""
    n = values.shape[0]
    if n < 2:
        return float(np.average(values, weights=weight)), None
    if weight is None:
        return float(values.mean()), float(values.std(ddof=1) / np.sqrt(n))
    total = float(weight.sum())
    mean = float(np.dot(weight, values) / total)
    spread = float(np.dot(weight**2, (values - mean) ** 2)) * n / (n - 1)
    return mean, float(np.sqrt(spread) / total)
