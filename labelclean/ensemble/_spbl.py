"""Self-paced boost learning (SPBL): fully corrective multi-class boosting.

:class:`SPBLClassifier` implements spbl.md (Pi et al., 2016): class scores
``F_r(x) = sum_j w_rj h_j(x)`` with non-negative weights ``W``, the logistic
loss on the pairwise margins, an l2,1 penalty on the rows of ``W`` and
self-paced mixture weights ``v`` on the rows. Weak learners are added one at a
time by column generation (the most violated dual constraint, eq. 12), after
each addition every weight in ``W`` is re-optimised (fully corrective), then
``v`` is updated and the self-paced threshold annealed; a held-out validation
split picks the number of weak learners.

The weak-learner fit (:func:`_fit_candidates`) and the l2,1 solver for ``W``
(:func:`_solve_w`) live here; the self-paced weights are the shared ones of
:mod:`labelclean.utils._self_paced`.
"""

import logging
import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.extmath import softmax
from sklearn.utils.validation import check_is_fitted, validate_data

from labelclean.utils._self_paced import mixture_weights, share_threshold
from labelclean.utils._sklearn import (
    MAX_ESTIMATORS,
    MAX_ITERATIONS,
    Interval,
    OlderFilesMixin,
    StrOptions,
    check_sample_weight,
    fit_context,
)
from labelclean.utils._threads import one_blas_thread
from labelclean.utils._validation import check_classifier_labels

__all__ = ["SPBLClassifier"]

logger = logging.getLogger(__name__)

# Smoothing of the l2,1 norm in the W update.
_EPS = 1e-6


# --- weak learners -------------------------------------------------------------


def _fit_candidates(
    Xs: np.ndarray, C: np.ndarray, alpha: float, max_iter: int
) -> tuple[np.ndarray, np.ndarray]:
    """One logistic unit per class, fitted to the dual scores ``C``.

    Eq. 12 asks, for each class ``r``, for the unit maximising
    ``sum_i C_ir h(x_i)``. With ``h = sigmoid(z)`` this equals (up to a
    constant) ``sum_i |C_ir| sigmoid(sign(C_ir) z_i)``, a weighted soft
    accuracy; its convex surrogate, weighted logistic regression with labels
    ``sign(C_ir)``, weights ``|C_ir|`` and an L2 penalty ``alpha``, is solved
    for all classes at once by L-BFGS.
    """
    n_features = Xs.shape[1]
    n_classes = C.shape[1]
    sign = np.where(C > 0, 1.0, -1.0)
    weight = np.abs(C)
    weight /= np.maximum(weight.sum(axis=0), np.finfo(float).tiny)

    def objective(params: np.ndarray) -> tuple[float, np.ndarray]:
        theta = params[: n_classes * n_features].reshape(n_classes, n_features)
        b = params[n_classes * n_features :]
        margin = (Xs @ theta.T + b) * sign
        loss = -float(np.sum(weight * log_expit(margin)))
        g = -weight * sign * expit(-margin)  # d loss / d z
        grad_theta = g.T @ Xs + alpha * theta
        loss += 0.5 * alpha * float(np.sum(theta * theta))
        return loss, np.concatenate([grad_theta.ravel(), g.sum(axis=0)])

    x0 = np.zeros(n_classes * (n_features + 1))
    with one_blas_thread():
        res = optimize.minimize(
            objective, x0, method="L-BFGS-B", jac=True, options={"maxiter": max_iter}
        )
    theta = res.x[: n_classes * n_features].reshape(n_classes, n_features)
    return theta, res.x[n_classes * n_features :]


# --- the fully corrective W step ------------------------------------------------


def _margins_loss(
    H: np.ndarray, W: np.ndarray, codes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per-row loss ``l_i = sum_r ln(1 + exp(-rho_ir))`` and the margins ``rho``."""
    F = H @ W
    rho = F[np.arange(F.shape[0]), codes][:, None] - F
    return -log_expit(rho).sum(axis=1), rho


def _dual(rho: np.ndarray, a: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """eq. 11 ``U_ir = a_i / (1 + exp(rho_ir))`` and the eq. 12 scores ``C``.

    ``C_ir = delta(r, y_i) sum_l U_il - U_ir``; the ``r = y_i`` term of ``U``
    cancels, so it is left out. ``C`` is minus the gradient of the loss with
    respect to the class scores ``F``.
    """
    rows = np.arange(rho.shape[0])
    U = a[:, None] * expit(-rho)
    U[rows, codes] = 0.0
    C = -U
    C[rows, codes] = U.sum(axis=1)
    return C


def _solve_w(
    H: np.ndarray,
    W: np.ndarray,
    codes: np.ndarray,
    a: np.ndarray,
    nu: float,
    max_iter: int,
    tol: float,
) -> tuple[np.ndarray, bool]:
    """eq. 9: min over ``W >= 0`` of the weighted loss + ``nu ||W||_{2,1}``.

    Solved by L-BFGS-B with the bounds ``W >= 0``, started at ``W``. The
    l2,1 norm is smoothed as ``sum_j sqrt(||W_j||^2 + eps^2) - eps`` with
    ``eps = 1e-8 + 1e-4 * nu``-free constant ``_EPS``, which differs from
    the exact norm by less than ``_EPS`` per row. Returns the solution and
    whether L-BFGS-B converged.
    """
    n_classes = W.shape[1]

    def objective(params: np.ndarray) -> tuple[float, np.ndarray]:
        W_ = params.reshape(-1, n_classes)
        losses, rho = _margins_loss(H, W_, codes)
        grad = -(H.T @ _dual(rho, a, codes))
        norms = np.sqrt(np.einsum("jr,jr->j", W_, W_) + _EPS**2)
        value = float(a @ losses) + nu * float(np.sum(norms - _EPS))
        grad += nu * W_ / norms[:, None]
        return value, grad.ravel()

    with one_blas_thread():
        res = optimize.minimize(
            objective,
            W.ravel(),
            method="L-BFGS-B",
            jac=True,
            bounds=[(0.0, None)] * W.size,
            options={
                "maxiter": max_iter,
                "gtol": tol,
                "ftol": 1e3 * np.finfo(float).eps,
            },
        )
    return res.x.reshape(-1, n_classes), not (res.status == 1 and res.nit >= max_iter)


class SPBLClassifier(OlderFilesMixin, ClassifierMixin, BaseEstimator):
    """Self-paced boost learning: robust, fully corrective multi-class boosting.

    Scores each class with a non-negative combination of logistic weak
    learners, ``F_r(x) = sum_j w_rj h_j(x)``, fitted by minimising the
    self-paced, l2,1-regularised logistic loss of spbl.md eq. 5. Each
    iteration adds the weak learner that most violates the dual constraints
    (column generation, eq. 12), re-optimises all of ``W`` (eq. 9), then
    re-weights the rows with the mixture self-paced regularizer (eq. 7-8):
    rows that the ensemble finds hard (often mislabeled) get weights below 1,
    down to 0. The share of rows selected grows each iteration. A held-out
    validation split stops the boosting (Algorithm 1).

    Parameters
    ----------
    n_estimators : int, default=100
        Largest number of weak learners (boosting iterations).
    nu : float, default=1e-3
        Strength of the l2,1 penalty on ``W`` (spbl.md's ``nu``), relative to
        the mean loss per row. Column generation also stops when no weak
        learner violates the dual constraints by more than ``nu + tol``.
    weighting : {'mixture', 'none'}, default='mixture'
        - 'mixture': the self-paced mixture weighting of eq. 7-8 (SPBL).
        - 'none': every ``v_i = 1``; the plain fully corrective boosting that
          SPBL generalises (MultiBoost, Shen et al. 2012), for comparison.
    per_class : bool, default=True
        Select the same share of every class (one threshold per class, as
        RoSR-L does) instead of one global threshold (spbl.md). With many
        classes a global threshold leaves the hardest classes out of the early
        iterations; per-class thresholds gave lower errors on digits.
    zeta_ratio : float, default=0.5
        ``zeta / lambda`` of the mixture weighting, kept fixed while both are
        annealed (Algorithm 1 multiplies both by the same factor).
    initial_share : float, default=0.7
        Share of the training rows selected (``v > 0``) at the first
        iteration.
    share_step : float, default=0.02
        Share added at each iteration (annealing by the share of selected
        rows, spbl.md §4.2).
    final_share : float, default=0.9
        Largest share selected. Algorithm 1 caps ``lambda`` at
        ``lambda_max``; capping the share plays that role, so the hardest
        rows (beyond ``final_share``) keep weight 0.
    weak_alpha : float, default=1e-2
        L2 penalty of the weighted logistic regression that fits each
        candidate weak learner; smaller values give steeper units.
    weak_max_iter : int, default=50
        L-BFGS iterations per candidate fit.
    early_stopping : bool, default=True
        Hold out ``validation_fraction`` of the rows and keep the ensemble size
        with the lowest validation error (Algorithm 1).
    validation_fraction : float, default=0.2
        Share of the rows held out (stratified) when ``early_stopping``.
    n_iter_no_change : int, default=20
        Boosting stops when the validation error has not improved on its best
        value for this many iterations; the ensemble of the best iteration is
        kept.
    max_iter : int, default=200
        Maximum L-BFGS-B iterations of each ``W`` update.
    tol : float, default=1e-4
        Gradient tolerance of the ``W`` updates and slack of the
        column-generation stop.
    random_state : int, RandomState instance or None, default=None
        Seed of the validation split.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    coef_ : ndarray of shape (n_estimators_, n_classes)
        The weights ``W`` (non-negative), one row per weak learner.
    estimator_coef_ : ndarray of shape (n_estimators_, n_features)
        Slopes of the logistic weak learners, on standardised features.
    estimator_intercept_ : ndarray of shape (n_estimators_,)
        Intercepts of the weak learners.
    n_estimators_ : int
        Number of weak learners kept (the best validation iteration).
    spl_weight_ : ndarray of shape (n_samples,)
        Self-paced weight ``v_i`` of every row of ``X`` at the kept iteration
        (rows held out for validation are weighted with the same threshold but
        did not take part in the fit; rows with a zero ``sample_weight`` get 0).
    zero_weight_indices_ : ndarray of shape (n_zero,)
        Positions of the rows whose final weight is 0.
    validation_error_ : ndarray of shape (n_iter_,)
        Validation error after each iteration (empty without early stopping).
    n_iter_ : int
        Number of boosting iterations run.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn.ensemble.AdaBoostClassifier : Stagewise multi-class boosting (SAMME).

    Notes
    -----
    Choices where spbl.md is open or different:

    - Weak learners are logistic units (eq. 13) on standardised features. The
      paper does not say how they are fitted; here each candidate for class
      ``r`` is a weighted logistic regression separating the rows with a
      positive eq. 12 score from those with a negative one, weighted by the
      scores' magnitude (a convex surrogate of eq. 12). One candidate per class
      is fitted per iteration and the best (largest eq. 12 score) is added.
    - The loss is averaged over rows (weighted by ``sample_weight``), so
      ``nu`` does not depend on the number of rows.
    - ``W`` is solved in the primal by L-BFGS-B with ``W >= 0`` as bounds and
      the l2,1 norm smoothed as ``sqrt(||W_j||^2 + 1e-12)``, rather than in
      the dual. The column-generation stop is the paper's (eq. 12 score below
      ``nu + tol``), checked once the annealing has reached ``final_share``.
    - Annealing raises the selected share additively (``share_step``) up to
      ``final_share``; ``lambda`` is set from the losses each iteration and
      ``zeta = zeta_ratio * lambda``. By default one threshold per class
      (``per_class=True``, a deviation from the paper's global threshold).
    - Early stopping uses a patience of ``n_iter_no_change`` iterations
      instead of Algorithm 1's "stop at the first increase after ``T_ES``",
      which stopped after a handful of learners on small validation sets.
    - ``predict_proba`` is the softmax of the class scores ``F``.
    - The validation rows carry the observed (possibly noisy) labels.

    References
    ----------
    .. [1] T. Pi, X. Li, Z. Zhang, D. Meng, F. Wu, J. Xiao and Y. Zhuang,
       "Self-paced boost learning for classification", Proceedings of IJCAI,
       pp. 1932-1938, 2016.
    .. [2] C. Shen, S. Paisitkriangkrai and A. van den Hengel, "A direct
       approach to multi-class boosting and extensions", arXiv:1210.4601, 2012.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from labelclean.ensemble import SPBLClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = SPBLClassifier(n_estimators=10, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_estimators": [Interval(Integral, 1, MAX_ESTIMATORS, closed="both")],
        "nu": [Interval(Real, 0, None, closed="left")],
        "weighting": [StrOptions({"mixture", "none"})],
        "per_class": ["boolean"],
        "zeta_ratio": [Interval(Real, 0, None, closed="neither")],
        "initial_share": [Interval(Real, 0, 1, closed="right")],
        "share_step": [Interval(Real, 0, 1, closed="both")],
        "final_share": [Interval(Real, 0, 1, closed="right")],
        "weak_alpha": [Interval(Real, 0, None, closed="neither")],
        "weak_max_iter": [Interval(Integral, 1, MAX_ITERATIONS, closed="both")],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, MAX_ITERATIONS, closed="both")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        nu: float = 1e-3,
        weighting: str = "mixture",
        per_class: bool = True,
        zeta_ratio: float = 0.5,
        initial_share: float = 0.7,
        share_step: float = 0.02,
        final_share: float = 0.9,
        weak_alpha: float = 1e-2,
        weak_max_iter: int = 50,
        early_stopping: bool = True,
        validation_fraction: float = 0.2,
        n_iter_no_change: int = 20,
        max_iter: int = 200,
        tol: float = 1e-4,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.n_estimators = n_estimators
        self.nu = nu
        self.weighting = weighting
        self.per_class = per_class
        self.zeta_ratio = zeta_ratio
        self.initial_share = initial_share
        self.share_step = share_step
        self.final_share = final_share
        self.weak_alpha = weak_alpha
        self.weak_max_iter = weak_max_iter
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    @fit_context(prefer_skip_nested_validation=True)
    def fit(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> "SPBLClassifier":
        """Boost logistic weak learners with self-paced row weights.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Observed labels, of any type.
        sample_weight : array-like of shape (n_samples,), default=None
            Initial non-negative row weights, multiplied by the self-paced
            weights. Rows with weight 0 take no part (nor in validation).

        Returns
        -------
        self : SPBLClassifier
            Fitted estimator.
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, codes = check_classifier_labels(y, X.shape[0])
        n_samples, n_features = X.shape
        n_classes = self.classes_.shape[0]
        s = check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=True
        )
        rng = check_random_state(self.random_state)

        active = np.flatnonzero(s > 0)
        if np.unique(codes[active]).shape[0] < 2:
            raise ValueError(
                "fewer than 2 classes have rows with a positive sample_weight; a "
                "classifier needs at least 2 classes."
            )
        train, val = active, np.empty(0, dtype=np.intp)
        if self.early_stopping:
            counts = np.bincount(codes[active], minlength=n_classes)
            stratify = codes[active] if counts[counts > 0].min() >= 2 else None
            n_val = int(np.ceil(self.validation_fraction * active.size))
            if 1 <= n_val < active.size:
                try:
                    train, val = train_test_split(
                        active,
                        test_size=n_val,
                        stratify=stratify,
                        random_state=rng.randint(np.iinfo(np.int32).max),
                    )
                except ValueError:
                    train, val = train_test_split(
                        active,
                        test_size=n_val,
                        random_state=rng.randint(np.iinfo(np.int32).max),
                    )
                train, val = np.sort(train), np.sort(val)

        # Weighted, so that integer weights and repeated rows agree.
        mean = np.average(X[train], axis=0, weights=s[train])
        scale = np.sqrt(np.average((X[train] - mean) ** 2, axis=0, weights=s[train]))
        scale[scale == 0] = 1.0
        Xs = (X - mean) / scale
        unit_coef: list[np.ndarray] = []
        unit_intercept: list[float] = []

        X_tr, c_tr, s_tr = Xs[train], codes[train], s[train]
        base = s_tr / s_tr.sum()
        v = np.ones(train.size)
        H = np.empty((train.size, 0))
        H_val = np.empty((val.size, 0))
        W = np.empty((0, n_classes))
        history: list[tuple[np.ndarray, np.ndarray, np.ndarray, bool]] = []
        val_errors: list[float] = []
        lam = np.full(n_classes, np.inf)

        for t in range(self.n_estimators):
            # Boosting: most violated dual constraint (eq. 12) from U (eq. 11)
            # of the previous W and v.
            _, rho = _margins_loss(H, W, c_tr)
            C = _dual(rho, base * v, c_tr)
            theta, b = _fit_candidates(X_tr, C, self.weak_alpha, self.weak_max_iter)
            responses = expit(X_tr @ theta.T + b)
            scores = np.einsum("ir,ir->r", C, responses)
            r_hat = int(np.argmax(scores))
            # Column generation has converged when no constraint is violated;
            # checked once the annealing is over, since a growing threshold
            # brings new rows (and violated constraints) in.
            annealed = self.weighting == "none" or (
                self.initial_share + t * self.share_step >= self.final_share
            )
            if t > 0 and annealed and scores[r_hat] < self.nu + self.tol:
                logger.debug("SPBL: no violated constraint left at iteration %d", t)
                break
            unit_coef.append(theta[r_hat])
            unit_intercept.append(float(b[r_hat]))
            H = np.column_stack([H, responses[:, r_hat]])
            if val.size:
                H_val = np.column_stack(
                    [H_val, expit(Xs[val] @ theta[r_hat] + b[r_hat])]
                )
            W = np.vstack([W, np.zeros((1, n_classes))])
            # Fully corrective update of W (eq. 9) under the current v.
            W, ok = _solve_w(H, W, c_tr, base * v, self.nu, self.max_iter, self.tol)
            # SPL: new v (eq. 8) from the new W, threshold annealed by share.
            losses, _ = _margins_loss(H, W, c_tr)
            if self.weighting == "mixture":
                share = min(self.initial_share + t * self.share_step, self.final_share)
                if self.per_class:
                    lam = np.array(
                        [
                            share_threshold(losses[c_tr == k], s_tr[c_tr == k], share)
                            if np.any(c_tr == k)
                            else np.inf
                            for k in range(n_classes)
                        ]
                    )
                else:
                    lam = np.full(n_classes, share_threshold(losses, s_tr, share))
                lam_rows = lam[c_tr]
                v = mixture_weights(losses, lam_rows, self.zeta_ratio * lam_rows)
            history.append((W.copy(), v.copy(), lam, ok))
            if val.size:
                pred = np.argmax(H_val @ W, axis=1)
                err = float(np.average(pred != codes[val], weights=s[val]))
                val_errors.append(err)
                best_t = int(np.argmin(val_errors))
                if len(val_errors) - 1 - best_t >= self.n_iter_no_change:
                    break

        n_iter = len(history)
        best = int(np.argmin(val_errors)) if val_errors else n_iter - 1
        W, v, lam, ok = history[best]
        if not ok:
            # Earlier W updates are warm starts for later ones; only the kept
            # one has to be converged.
            warnings.warn(
                f"The update of W for the kept ensemble did not converge within "
                f"max_iter={self.max_iter} iterations (tol={self.tol}); increase "
                "max_iter or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )

        self.coef_ = W
        self.estimator_coef_ = np.asarray(unit_coef[: best + 1]).reshape(-1, n_features)
        self.estimator_intercept_ = np.asarray(unit_intercept[: best + 1])
        self._mean, self._scale = mean, scale
        self.n_estimators_ = best + 1
        self.n_iter_ = n_iter
        self.validation_error_ = np.asarray(val_errors)
        spl_weight = np.zeros(n_samples)
        spl_weight[train] = v
        if val.size:
            if self.weighting == "mixture":
                H_v = H_val[:, : best + 1]
                val_losses, _ = _margins_loss(H_v, W, codes[val])
                lam_val = lam[codes[val]]
                spl_weight[val] = mixture_weights(
                    val_losses, lam_val, self.zeta_ratio * lam_val
                )
            else:
                spl_weight[val] = 1.0
        self.spl_weight_ = spl_weight
        self.zero_weight_indices_ = np.flatnonzero(spl_weight == 0)
        return self

    def _responses(self, X: np.ndarray) -> np.ndarray:
        Xs = (X - self._mean) / self._scale
        return expit(Xs @ self.estimator_coef_.T + self.estimator_intercept_)

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Class scores ``F_r(x) = sum_j w_rj h_j(x)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            One score per class, columns ordered like ``classes_``; for two
            classes, the second class's score minus the first's.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        scores = self._responses(X) @ self.coef_
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Softmax of the class scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities, columns ordered like ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            scores = np.column_stack([-0.5 * scores, 0.5 * scores])
        return softmax(scores, copy=False)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class with the largest score.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels, from ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]
