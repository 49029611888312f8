"""The final model as a stack of ``model='auto'``'s candidates.

Out-of-fold error against noisy cleaned labels cannot choose reliably between
a linear and a tree model (docs/decisions.md, *The final model: a stack of
the candidates*), so under ``model='auto'`` the final model is their convex
combination, stacked generalisation with non-negative weights that sum to one
(Wolpert 1992; Breiman 1996). The inputs are the candidates' out-of-fold
probabilities on the cleaned rows, which the final choice computes anyway:

1. each candidate's probabilities are calibrated by a temperature T,
   softmax(log p / T) (Guo et al., ICML 2017), fitted by weighted log-loss
   against the cleaned labels; boosting's scores are sharper than its
   accuracy, and an average of uncalibrated probabilities is the sharper
   model's;
2. the weights minimise the weighted log-loss of the average of the
   calibrated probabilities;
3. a candidate under :data:`LEAST_MEMBER_WEIGHT` is left out, the others'
   weights scaled to sum to one; one candidate left is the final model alone.
"""

from typing import Any

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import softmax
from sklearn.utils import get_tags

__all__ = [
    "LEAST_MEMBER_WEIGHT",
    "StackedModel",
    "calibrated",
    "evidence_temperature",
    "fit_stack",
]

#: A candidate weighing less than this in the stack is left out of it (its
#: fit would cost a final fit for a hundredth of the vote).
LEAST_MEMBER_WEIGHT = 0.01

#: log T is searched in [-4, 4]: T from 0.018 (sharpen) to 55 (flatten).
_LOG_T_BOUND = 4.0

_TINY = 1e-12


def _log(p: np.ndarray) -> np.ndarray:
    return np.log(np.clip(p, _TINY, 1.0))


def calibrated(p: np.ndarray, temperature: float) -> np.ndarray:
    """``softmax(log p / temperature)`` row by row."""
    return softmax(_log(p) / temperature, axis=1)


def _log_loss(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    return float(-np.dot(w, _log(p[np.arange(y.shape[0]), y])) / w.sum())


def fit_temperature(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """The temperature that minimises the weighted log-loss of ``p``."""
    result = minimize_scalar(
        lambda t: _log_loss(calibrated(p, np.exp(t)), y, w),
        bounds=(-_LOG_T_BOUND, _LOG_T_BOUND),
        method="bounded",
    )
    return float(np.exp(result.x))


def evidence_temperature(p: np.ndarray, codes: np.ndarray, rows: np.ndarray) -> float:
    """The temperature, at least 1, under which ``p``'s ``rows`` (a mask) give
    their observed labels the highest likelihood, each row weighing one: the
    out-of-fold calibration of a model whose probabilities grow surer than
    its held-out rows bear out
    (:data:`~labelclean.pipeline._kinds.TEMPERED_EVIDENCE_KINDS`). The loss is
    unimodal in the temperature, so the one at least 1 is the larger of the
    best and 1."""
    if not rows.any():
        return 1.0
    best = fit_temperature(p[rows], codes[rows], np.ones(int(rows.sum())))
    return max(best, 1.0)


def fit_weights(probas: list[np.ndarray], y, w) -> np.ndarray:
    """Convex weights minimising the weighted log-loss of the average of
    ``probas`` (a softmax of free parameters, searched by Nelder-Mead from
    equal weights: deterministic, and there are at most three)."""
    if len(probas) == 1:
        return np.ones(1)
    stacked = np.stack(probas)

    def loss(a):
        return _log_loss(np.tensordot(softmax(a), stacked, axes=1), y, w)

    result = minimize(
        loss,
        np.zeros(len(probas)),
        method="Nelder-Mead",
        options={"xatol": 1e-4, "fatol": 1e-8},
    )
    return softmax(result.x)


def fit_stack(
    oofs: dict[str, np.ndarray], codes: np.ndarray, weight: np.ndarray | None
) -> dict[str, Any]:
    """Temperatures and weights of each candidate from out-of-fold ``oofs``.

    Rows without out-of-fold probabilities for some candidate are left out;
    ``weight`` (the final fit's row weights) weighs each row's log-loss.
    Returns ``{"members": {name: {"weight", "temperature"}}, "rows": n}``,
    with the members that reach :data:`LEAST_MEMBER_WEIGHT` only.
    """
    names = list(oofs)
    decided = np.ones(codes.shape[0], dtype=bool)
    for p in oofs.values():
        decided &= ~np.isnan(p).any(axis=1)
    w = np.ones(codes.shape[0]) if weight is None else np.asarray(weight, float)
    y, w = codes[decided], w[decided]
    if y.shape[0] < 2 or w.sum() <= 0:
        return {"members": {names[0]: {"weight": 1.0, "temperature": 1.0}}, "rows": 0}
    temps = [fit_temperature(oofs[n][decided], y, w) for n in names]
    cal = [calibrated(oofs[n][decided], t) for n, t in zip(names, temps, strict=True)]
    weights = fit_weights(cal, y, w)
    keep = weights >= LEAST_MEMBER_WEIGHT
    weights = weights[keep] / weights[keep].sum()
    kept = [(n, t) for n, t, k in zip(names, temps, keep, strict=True) if k]
    members = {
        n: {"weight": float(a), "temperature": t}
        for (n, t), a in zip(kept, weights, strict=True)
    }
    return {"members": members, "rows": int(y.shape[0])}


class StackedModel:
    """Fitted candidates and their stack: Σ weight · softmax(log p / T).

    Not an estimator to fit: :class:`~labelclean.pipeline.LabelCleaner` fits
    the members (``members``, in the order of ``names``), each on the class
    codes 0 … k − 1 (``classes_``), and combines their probabilities in its
    classes (:meth:`combine`). :meth:`predict_proba` does the same on the
    cleaner's prepared features (``LabelCleaner._check_X``), filling missing
    values with ``missing_fill`` for members that do not route them.
    """

    def __init__(self, names, members, weights, temperatures, n_classes, missing_fill):
        self.names = list(names)
        self.members = list(members)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.temperatures = np.asarray(temperatures, dtype=np.float64)
        self.classes_ = np.arange(n_classes)
        self.missing_fill = missing_fill

    def predict_proba(self, X) -> np.ndarray:
        """The stack's class probabilities (columns: ``classes_``)."""
        X = np.asarray(X, dtype=np.float64)
        missing = np.isnan(X)
        probas = []
        for model in self.members:
            rows = X
            if missing.any() and not get_tags(model).input_tags.allow_nan:
                rows = np.where(missing, self.missing_fill[None, :], X)
            out = np.zeros((X.shape[0], self.classes_.shape[0]))
            out[:, np.asarray(model.classes_, dtype=np.intp)] = model.predict_proba(
                rows
            )
            probas.append(out)
        return self.combine(probas)

    def predict(self, X) -> np.ndarray:
        """The most probable class code of each row."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def combine(self, probas: list[np.ndarray]) -> np.ndarray:
        """The stack's probabilities from its members' (same order)."""
        out = np.zeros_like(probas[0], dtype=np.float64)
        for a, t, p in zip(self.weights, self.temperatures, probas, strict=True):
            out += a * calibrated(p, t)
        return out
