"""Robust softmax regression with self-paced soft weights (RoSR and RoSR-L).

:class:`RoSRClassifier` fits a weighted softmax (multinomial logistic)
regression whose per-row weights ``v`` come from a self-paced regularizer
applied to the current losses (Ren et al., 2017). The weights are set either
with one global threshold ``lambda`` (RoSR) or with one threshold per class
(RoSR-L, the default), so that no class is starved of training rows.

The numerical pieces (the vectorised softmax loss and gradient, the row
losses, the self-paced weights and the per-class thresholds) live in
:mod:`labelclean.linear_model._softmax`.
"""

import logging
import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from scipy import optimize
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import Tags
from sklearn.utils.extmath import softmax
from sklearn.utils.validation import check_is_fitted, validate_data

from labelclean.linear_model._softmax import (
    row_losses,
    self_paced_weights,
    softmax_loss_grad,
    thresholds,
)
from labelclean.utils._sklearn import (
    MAX_ITERATIONS,
    Interval,
    OlderFilesMixin,
    StrOptions,
    check_sample_weight,
    fit_context,
)
from labelclean.utils._threads import one_blas_thread
from labelclean.utils._validation import check_classifier_labels

__all__ = ["RoSRClassifier"]

logger = logging.getLogger(__name__)

#: A dense ``X`` with at most this share of non-zero values is fitted as CSR.
#: On one-hot tables at 6 to 7 % non-zero the fit then took 0.18 to 0.52 of
#: its dense time; at 12 to 13 % the CSR fit took 0.56 to 2 times the dense
#: one's, at 27 to 28 % 1.1 to 1.7 times (``docs/rosr.md``, "Speed").
SPARSE_SHARE = 0.1


def _sparse_if_mostly_zeros(
    X: np.ndarray | sp.csr_matrix,
) -> np.ndarray | sp.csr_matrix:
    """``X`` as CSR when it is dense and mostly zeros, else ``X`` itself."""
    if sp.issparse(X):
        return X
    if np.count_nonzero(X) > SPARSE_SHARE * X.size:
        return X
    return sp.csr_matrix(X)


class RoSRClassifier(OlderFilesMixin, ClassifierMixin, BaseEstimator):
    """Robust softmax regression with self-paced soft weights (RoSR / RoSR-L).

    Softmax (multinomial logistic) regression in which every training row
    enters the loss with a weight ``v_i`` in [0, 1] set by a self-paced
    regularizer from its current loss: rows that the model finds hard (often
    mislabeled rows and outliers) get small weights and so have little pull on
    the decision boundaries. The thresholds that map losses to weights are set
    per class by default (RoSR-L), so that every class keeps rows in training,
    and grow round by round until every row is selected.

    Parameters
    ----------
    mu : float, default=1e-3
        Strength of the L2 penalty ``mu / 2 * ||W||^2`` on the coefficients
        (rosr.md eq. 6-7), relative to the mean loss. The intercepts are not
        penalised. It matches scikit-learn's ``LogisticRegression`` with
        ``C = 1 / (mu * sample_weight.sum())``.
    weighting : {'mixture', 'linear', 'none'}, default='mixture'
        Self-paced regularizer.

        - 'mixture': mixture weighting (rosr.md eq. 11-12 / 17-18); rows with
          small losses keep weight exactly 1, so only hard rows are
          down-weighted. Prefer it when most rows are clean.
        - 'linear': linear soft weighting (eq. 9-10 / 13-14); every row's
          weight falls linearly with its loss.
        - 'none': every ``v_i = 1``; plain softmax regression (the paper's SR
          baseline), useful as a reference.
    per_class : bool, default=True
        Set the thresholds per class (RoSR-L, eq. 13-18) rather than with one
        global threshold (RoSR). Per-class thresholds select the same share of
        every class, so no class is starved when its rows are harder than the
        others.
    class_mass : {'keep', 'free'}, default='keep'
        What RoSR-L (``per_class=True``) does with each class's total weight.

        - 'keep': after the self-paced weights are set, each class's weights
          are rescaled so that the class keeps its share of the total
          (initial) weight, as in plain softmax regression; the weights still
          rank the rows within a class. Prefer it: with a strong penalty the
          per-class weights otherwise shift the class priors, and the model
          can collapse onto one class.
        - 'free': use the weights as they come (the paper's formulation).

        Ignored when ``per_class=False``. ``spl_weight_`` always reports the
        weights before rescaling.
    zeta_ratio : float, default=0.5
        ``zeta / lambda`` for the mixture weighting; the paper fixes 0.5.
        Ignored by the other weightings.
    initial_share : float, default=0.5
        Share of each class (of all rows when ``per_class=False``) selected,
        i.e. given a positive weight, in the first round.
    share_step : float, default=0.1
        Share added each further round.
    final_share : float, default=1.0
        Share selected in the last round. The paper selects every row (1.0);
        below 1 the rows left out end with weight 0 and are listed in
        ``zero_weight_indices_``.
    init_iter : int, default=5
        L-BFGS iterations of plain softmax regression that initialise the
        parameters before the first weights are set (the paper's warm start).
    fit_intercept : bool, default=True
        Whether to fit one (unpenalised) intercept per class.
    max_iter : int, default=250
        Maximum L-BFGS iterations of each weighted fit (one fit per round);
        the paper uses 250.
    tol : float, default=1e-4
        L-BFGS stops when the largest gradient component falls below ``tol``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Coefficients. For two classes, the difference of the second class's
        softmax coefficients and the first's (as in scikit-learn).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts, laid out like ``coef_``; centred to sum to zero over the
        classes when there are more than two.
    spl_weight_ : ndarray of shape (n_samples,)
        Final self-paced weight ``v_i`` of every training row, the one used in
        the last fit; 0 for rows given a zero ``sample_weight``.
    zero_weight_indices_ : ndarray of shape (n_zero,)
        Positions of the training rows whose final weight ``v_i`` is 0 (rows
        given a zero ``sample_weight`` included).
    lambda_ : ndarray of shape (n_classes,)
        Threshold of each class in the last round (all equal for RoSR).
    n_rounds_ : int
        Number of self-paced rounds (weight update + weighted fit).
    n_iter_ : int
        Total L-BFGS iterations, warm start included.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn.linear_model.LogisticRegression : The unweighted model, equal to
        ``RoSRClassifier(weighting='none')`` with ``C = 1 / (mu * n_samples)``.

    Notes
    -----
    Rounds alternate the two steps of rosr.md §4.2: given the parameters, the
    losses set the thresholds ``lambda_k`` so that a share of each class is
    selected (``initial_share``, then ``share_step`` more per round, up to
    ``final_share``) and the weights ``v`` follow from eq. 10/12 (RoSR) or
    14/18 (RoSR-L); given ``v``, eq. 20 is solved by L-BFGS started from the
    previous round's solution. Choices where the paper is open:

    - The loss is averaged: ``sum_i s_i v_i l_i / sum_i s_i + mu r(W)``, with
      ``s`` the initial sample weights, as in eq. 4, so ``mu`` has the same
      meaning as for plain softmax regression and the paper's grid of
      ``mu`` values applies.
    - The intercepts are not penalised (the paper folds them into ``theta``),
      to match scikit-learn and keep the model invariant to shifts of ``X``.
    - A threshold is placed just above the loss of the last selected row
      (shares counted with the initial sample weights), so the last selected
      row gets a tiny positive weight.
    - By default (``class_mass='keep'``) RoSR-L rescales each class's
      weights to the class's share of the total weight before each weighted
      fit (a deviation; 'free' is the paper's form). On digits, wine and
      breast_cancer with 20 % flipped labels the paper's form lost 10 to 80
      accuracy points at ``mu`` of 0.3 to 1, where 'keep' did not.
    - Rows with a zero ``sample_weight`` take no part in the fit nor in the
      shares. ``soft_labels`` in :meth:`fit` replace the one-hot targets of
      the cross-entropy; the per-class groups of RoSR-L stay the observed
      labels.
    - Each L-BFGS solve runs with BLAS limited to one thread: the solver's
      own steps are tiny BLAS calls that multi-threaded OpenBLAS slows many
      times over on a loaded machine (``docs/rosr.md``, "Speed").
    - A dense ``X`` of which at most one value in ten is non-zero (one-hot
      categorical columns) is fitted as a CSR copy: the loss and gradient
      then cost in proportion to the non-zeros (``docs/rosr.md``, "Speed").

    References
    ----------
    .. [1] Y. Ren, P. Zhao, Y. Sheng, D. Yao and Z. Xu, "Robust softmax
       regression for multi-class classification with self-paced learning",
       Proceedings of IJCAI, pp. 2641-2647, 2017.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from labelclean.linear_model import RoSRClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = RoSRClassifier(mu=1e-3).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    >>> clf.spl_weight_.shape, clf.n_rounds_
    ((150,), 6)
    """

    _parameter_constraints: ClassVar[dict] = {
        "mu": [Interval(Real, 0, None, closed="left")],
        "weighting": [StrOptions({"mixture", "linear", "none"})],
        "per_class": ["boolean"],
        "class_mass": [StrOptions({"keep", "free"})],
        "zeta_ratio": [Interval(Real, 0, None, closed="neither")],
        "initial_share": [Interval(Real, 0, 1, closed="right")],
        "share_step": [Interval(Real, 0, 1, closed="right")],
        "final_share": [Interval(Real, 0, 1, closed="right")],
        "init_iter": [Interval(Integral, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, MAX_ITERATIONS, closed="both")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        mu: float = 1e-3,
        *,
        weighting: str = "mixture",
        per_class: bool = True,
        class_mass: str = "keep",
        zeta_ratio: float = 0.5,
        initial_share: float = 0.5,
        share_step: float = 0.1,
        final_share: float = 1.0,
        init_iter: int = 5,
        fit_intercept: bool = True,
        max_iter: int = 250,
        tol: float = 1e-4,
    ) -> None:
        self.mu = mu
        self.weighting = weighting
        self.per_class = per_class
        self.class_mass = class_mass
        self.zeta_ratio = zeta_ratio
        self.initial_share = initial_share
        self.share_step = share_step
        self.final_share = final_share
        self.init_iter = init_iter
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol

    @fit_context(prefer_skip_nested_validation=True)
    def fit(
        self,
        X: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        soft_labels: ArrayLike | None = None,
    ) -> "RoSRClassifier":
        """Fit the model, alternating self-paced weights and weighted fits.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Observed labels, of any type.
        sample_weight : array-like of shape (n_samples,), default=None
            Initial non-negative row weights ``s_i``; each row's loss counts
            ``s_i * v_i`` times. Rows with weight 0 (for instance the
            suspects of SPLBoost) take no part at all.
        soft_labels : array-like of shape (n_samples,) or \
                (n_samples, n_classes), default=None
            Soft targets for the cross-entropy instead of the one-hot observed
            labels.

            - shape (n_samples,): the confidence ``gamma_i`` that the observed
              label is right; the target puts ``gamma_i`` on the observed
              class and spreads ``1 - gamma_i`` evenly over the others.
            - shape (n_samples, n_classes): one probability distribution over
              ``classes_`` per row.

            The self-paced losses are the soft cross-entropies, and RoSR-L
            still groups rows by their observed label.

        Returns
        -------
        self : RoSRClassifier
            Fitted estimator.
        """
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=np.float64, y_numeric=False
        )
        self.classes_, codes = check_classifier_labels(y, X.shape[0])
        n_samples, n_features = X.shape
        n_classes = self.classes_.shape[0]
        s = check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=True
        )
        Q = self._soft_targets(soft_labels, codes, n_samples, n_classes)

        active = s > 0
        class_weight = np.bincount(
            codes[active], weights=s[active], minlength=n_classes
        )
        if np.any(class_weight <= 0):
            empty = self.classes_[class_weight <= 0].tolist()
            raise ValueError(
                f"class(es) {empty!r} have no row with a positive sample_weight, so "
                "the model cannot learn them; drop those labels or give their rows "
                "a positive weight."
            )
        X = _sparse_if_mostly_zeros(X)
        if active.all():  # no copy of X in the common case
            X_a, codes_a, s_a, Q_a = X, codes, s, Q
        else:
            X_a, codes_a, s_a = X[active], codes[active], s[active]
            Q_a = None if Q is None else Q[active]
        total = float(s_a.sum())
        # Loss and weights are scaled by the total initial weight (mean loss).
        base = s_a / total

        params = np.zeros(
            n_classes * n_features + (n_classes if self.fit_intercept else 0)
        )
        n_iter = 0
        failed = False
        v_a = np.ones_like(s_a)
        lam = np.full(n_classes, np.inf)
        shares = self._shares()
        if self.weighting == "none":
            params, it, failed = self._solve(
                params, X_a, Q_a, codes_a, base, self.max_iter
            )
            n_iter += it
            shares = []
        elif self.init_iter > 0:
            params, it, _ = self._solve(params, X_a, Q_a, codes_a, base, self.init_iter)
            n_iter += it

        for share in shares:
            W, b = self._unpack(params, n_classes, n_features)
            losses = row_losses(W, b, X_a, Q_a, codes_a)
            lam = thresholds(losses, codes_a, s_a, n_classes, share, self.per_class)
            v_a = self_paced_weights(
                losses, lam[codes_a], self.weighting, self.zeta_ratio
            )
            a = base * v_a
            if self.per_class and self.class_mass == "keep":
                # Rescale each class's weights so that it keeps its share of
                # the total weight, as in plain softmax regression.
                mass = np.bincount(codes_a, weights=a, minlength=n_classes)
                a *= (class_weight / total / np.maximum(mass, np.finfo(float).tiny))[
                    codes_a
                ]
            keep = a > 0
            if keep.mean() < 0.9:
                # Skip unselected rows: the early rounds leave about half out.
                params, it, bad = self._solve(
                    params,
                    X_a[keep],
                    None if Q_a is None else Q_a[keep],
                    codes_a[keep],
                    a[keep],
                    self.max_iter,
                )
            else:
                params, it, bad = self._solve(
                    params, X_a, Q_a, codes_a, a, self.max_iter
                )
            n_iter += it
            failed = failed or bad
            logger.debug(
                "RoSR round: share=%.2f selected=%d lbfgs_iter=%d",
                share,
                int(keep.sum()),
                it,
            )

        if failed:
            warnings.warn(
                f"L-BFGS did not converge within max_iter={self.max_iter} iterations "
                f"in at least one round (tol={self.tol}); increase max_iter, scale "
                "the features, or increase mu.",
                ConvergenceWarning,
                stacklevel=2,
            )
        W, b = self._unpack(params, n_classes, n_features)
        if self.fit_intercept:
            b = b - b.mean()
        if n_classes == 2:
            self.coef_ = (W[1] - W[0])[None, :]
            self.intercept_ = np.array([b[1] - b[0]])
        else:
            self.coef_ = W
            self.intercept_ = b
        spl_weight = np.zeros(n_samples)
        spl_weight[active] = v_a
        self.spl_weight_ = spl_weight
        self.zero_weight_indices_ = np.flatnonzero(spl_weight == 0)
        self.lambda_ = lam
        self.n_rounds_ = len(shares)
        self.n_iter_ = int(n_iter)
        return self

    def _shares(self) -> list[float]:
        """Selected share per round: initial, +step, ..., capped at final."""
        final = self.final_share
        start = min(self.initial_share, final)
        n_steps = int(np.ceil((final - start) / self.share_step - 1e-9))
        return [min(start + i * self.share_step, final) for i in range(n_steps + 1)]

    def _soft_targets(
        self,
        soft_labels: ArrayLike | None,
        codes: np.ndarray,
        n_samples: int,
        n_classes: int,
    ) -> np.ndarray | None:
        if soft_labels is None:
            return None
        Q = np.asarray(soft_labels, dtype=np.float64)
        if Q.ndim == 1:
            if (
                Q.shape[0] != n_samples
                or np.any((Q < 0) | (Q > 1))
                or not np.all(np.isfinite(Q))
            ):
                raise ValueError(
                    "soft_labels of shape (n_samples,) must hold one confidence in "
                    f"[0, 1] per row ({n_samples} rows); got shape {Q.shape} with "
                    f"values in [{np.nanmin(Q):.3g}, {np.nanmax(Q):.3g}]."
                )
            gamma = Q
            Q = np.repeat(((1.0 - gamma) / (n_classes - 1))[:, None], n_classes, axis=1)
            Q[np.arange(n_samples), codes] = gamma
            return Q
        if (
            Q.shape != (n_samples, n_classes)
            or not np.all(np.isfinite(Q))
            or np.any(Q < 0)
            or not np.allclose(Q.sum(axis=1), 1.0, atol=1e-6)
        ):
            raise ValueError(
                "soft_labels of shape (n_samples, n_classes) must hold one "
                f"probability distribution per row over the {n_classes} classes "
                f"({n_samples} rows, non-negative, rows summing to 1); got shape "
                f"{Q.shape}. Normalise each row or pass per-row confidences instead."
            )
        return Q

    def _unpack(
        self, params: np.ndarray, n_classes: int, n_features: int
    ) -> tuple[np.ndarray, np.ndarray]:
        W = params[: n_classes * n_features].reshape(n_classes, n_features)
        if self.fit_intercept:
            return W, params[n_classes * n_features :]
        return W, np.zeros(n_classes)

    def _solve(
        self,
        params: np.ndarray,
        X: np.ndarray | sp.csr_matrix,
        Q: np.ndarray | None,
        codes: np.ndarray,
        a: np.ndarray,
        max_iter: int,
    ) -> tuple[np.ndarray, int, bool]:
        """One weighted fit (eq. 20) by L-BFGS from ``params``."""
        n_classes = self.classes_.shape[0]
        n_rows = X.shape[0]
        if Q is None:
            target, Qt = codes * n_rows + np.arange(n_rows), None
        else:
            target, Qt = codes, np.ascontiguousarray(Q.T)
        # One BLAS thread: L-BFGS-B's own steps are tiny BLAS/LAPACK calls,
        # which multi-threaded OpenBLAS slows by 10-70x when other processes
        # load the cores; the loss and gradient lose little (docs/rosr.md).
        with one_blas_thread():
            result = optimize.minimize(
                softmax_loss_grad,
                params,
                method="L-BFGS-B",
                jac=True,
                args=(X, Qt, target, a, float(self.mu), n_classes, self.fit_intercept),
                options={
                    "maxiter": max_iter,
                    "maxls": 50,
                    "gtol": self.tol,
                    "ftol": 64 * np.finfo(float).eps,
                },
            )
        hit_limit = result.status == 1 and result.nit >= max_iter
        return result.x, int(result.nit), bool(hit_limit)

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Class scores ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, the score of the second class minus the first's.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Softmax class probabilities, columns ordered like ``classes_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            scores = np.column_stack([-0.5 * scores, 0.5 * scores])
        return softmax(scores, copy=False)

    def predict_log_proba(self, X: ArrayLike) -> np.ndarray:
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log class probabilities.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            scores = np.column_stack([-0.5 * scores, 0.5 * scores])
        scores = scores - scores.max(axis=1, keepdims=True)
        return scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Most probable class of each row.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
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

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
