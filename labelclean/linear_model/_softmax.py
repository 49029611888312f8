"""The numerical pieces of RoSR-L: softmax loss, row losses, self-paced weights.

:func:`softmax_loss_grad` is the weighted, soft-labelled softmax loss and its
gradient for L-BFGS; :func:`row_losses` each row's loss; the self-paced
weights (:func:`self_paced_weights`, rosr.md eq. 10-18) and their thresholds
per class or global (:func:`thresholds`).
"""

import numpy as np
import scipy.sparse as sp

from labelclean.utils._self_paced import mixture_weights, share_threshold

__all__ = ["row_losses", "self_paced_weights", "softmax_loss_grad", "thresholds"]


def softmax_loss_grad(
    params: np.ndarray,
    X: np.ndarray | sp.csr_matrix,
    Qt: np.ndarray | None,
    target: np.ndarray,
    a: np.ndarray,
    mu: float,
    n_classes: int,
    fit_intercept: bool,
) -> tuple[float, np.ndarray]:
    """Weighted softmax cross-entropy plus ``mu / 2 * ||W||^2`` and its gradient.

    ``params`` is ``W.ravel()`` (``n_classes x n_features``) followed by the
    intercepts when ``fit_intercept``. ``a`` are the per-row weights (already
    divided by the total initial weight). ``Qt`` is the transposed soft target
    matrix (``n_classes x n_samples``), or None for one-hot targets, whose
    positions in the flattened ``n_classes x n_samples`` score matrix are
    ``target``.

    Scores are kept as ``n_classes x n_samples``: every per-row reduction over
    the classes is then an element-wise operation on contiguous rows, which
    is several times faster than reducing a short trailing axis.
    """
    n_features = X.shape[1]
    W = params[: n_classes * n_features].reshape(n_classes, n_features)
    Z = np.asarray((X @ W.T).T, order="C") if sp.issparse(X) else W @ X.T
    if fit_intercept:
        Z += params[n_classes * n_features :, None]
    Z -= Z.max(axis=0)
    flat = Z.reshape(-1)
    # -log P[y_i | x_i] = log(sum_k exp z_ki) - z_{y_i i} (soft: sum_k q_ki z_ki)
    z_target = flat[target] if Qt is None else np.einsum("ki,ki->i", Qt, Z)
    np.exp(Z, out=Z)
    norm = Z.sum(axis=0)
    Z /= norm  # Z now holds the probabilities P
    loss = float(a @ (np.log(norm) - z_target))
    if Qt is None:
        flat[target] -= 1.0
    else:
        Z -= Qt
    Z *= a  # G = a * (P - Q)
    # G @ X: for a dense X the product in this order is about twice as fast
    # as (X.T @ G.T).T, whose operands are both transposed views.
    grad_W = np.asarray(X.T @ Z.T).T if sp.issparse(X) else Z @ X
    loss += 0.5 * mu * float(np.einsum("ij,ij->", W, W))
    grad_W += mu * W
    if fit_intercept:
        return loss, np.concatenate([grad_W.ravel(), Z.sum(axis=1)])
    return loss, grad_W.ravel()


def row_losses(
    W: np.ndarray,
    b: np.ndarray,
    X: np.ndarray | sp.csr_matrix,
    Q: np.ndarray | None,
    codes: np.ndarray,
) -> np.ndarray:
    """Per-row cross-entropy ``l_i`` (rosr.md eq. 5, or its soft-label form)."""
    Z = np.asarray(X @ W.T) + b
    Z -= Z.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(Z).sum(axis=1))
    if Q is None:
        return log_norm - Z[np.arange(Z.shape[0]), codes]
    return log_norm - np.einsum("ik,ik->i", Q, Z)


def self_paced_weights(
    losses: np.ndarray, lam: np.ndarray, weighting: str, zeta_ratio: float
) -> np.ndarray:
    """Optimal self-paced weights for given losses and per-row thresholds.

    ``lam`` holds the threshold of each row's group (its class for RoSR-L, the
    same value everywhere for RoSR).

    - 'linear': rosr.md eq. 10 / 14, ``v = max(0, 1 - l / lambda)``.
    - 'mixture': rosr.md eq. 12 / 18 with ``zeta = zeta_ratio * lambda``
      (:func:`~labelclean.utils._self_paced.mixture_weights`).
    """
    if weighting == "linear":
        return np.clip(1.0 - losses / lam, 0.0, 1.0)
    return mixture_weights(losses, lam, zeta_ratio * lam)


def thresholds(
    losses: np.ndarray,
    codes: np.ndarray,
    weights: np.ndarray,
    n_classes: int,
    share: float,
    per_class: bool,
) -> np.ndarray:
    """Thresholds ``lambda_k`` per class (RoSR-L) or one global ``lambda``."""
    if not per_class:
        return np.full(
            n_classes, share_threshold(losses, weights, share, double_ties=True)
        )
    lam = np.empty(n_classes)
    for k in range(n_classes):
        members = codes == k
        lam[k] = share_threshold(
            losses[members], weights[members], share, double_ties=True
        )
    return lam
