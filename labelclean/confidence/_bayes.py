"""Bayes-rule label confidence (cb-adaboost.md §III-E, first method).

:class:`BayesConfidence` fits one density per class on the reduced set L_red,
corrects the observed class shares for the label-noise level ε to get the
true-class priors, and computes γ_i = P(Z = y_i | x_i) by Bayes' rule. The
noise level is given, or estimated by maximum likelihood (see
:func:`estimate_noise_level`).
"""

from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp, softmax
from scipy.stats import multivariate_normal
from sklearn.covariance import LedoitWolf
from sklearn.neighbors import KernelDensity
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from labelclean.confidence._base import BaseConfidence
from labelclean.exceptions import DataValidationError
from labelclean.utils._neighbors import CANDIDATE_MARGIN, NeighborIndex
from labelclean.utils._sampling import draw_seed
from labelclean.utils._sklearn import Interval, StrOptions, fit_context
from labelclean.utils._validation import check_labels

__all__ = ["BayesConfidence", "corrected_priors", "estimate_noise_level"]


def corrected_priors(observed: np.ndarray, noise_level: float) -> np.ndarray:
    """True-class priors from observed label shares under uniform noise.

    With a share ε of labels flipped uniformly to the other K - 1 classes,
    ``P(Y=k) = (1 - ε) P(Z=k) + ε/(K-1) (1 - P(Z=k))``; solving for P(Z=k)
    gives ``(P(Y=k) - ε/(K-1)) / (1 - ε K/(K-1))``, which for K = 2 is the
    paper's ``(P(Y=y) - ε) / (1 - 2ε)``. Shares the noise would make negative
    are clipped to a small positive value and the priors renormalised.

    Parameters
    ----------
    observed : ndarray of shape (n_classes,)
        Observed label shares P(Y=k), summing to one.
    noise_level : float
        ε, in [0, (K-1)/K).

    Returns
    -------
    priors : ndarray of shape (n_classes,)
        Estimated true-class shares P(Z=k), summing to one.
    """
    n_classes = observed.shape[0]
    off = noise_level / (n_classes - 1)
    priors = (observed - off) / (1.0 - noise_level * n_classes / (n_classes - 1))
    priors = np.clip(priors, 1e-6, None)
    return priors / priors.sum()


def estimate_noise_level(
    log_density: np.ndarray,
    codes: np.ndarray,
    observed: np.ndarray,
    *,
    max_iter: int = 100,
    tol: float = 1e-6,
) -> float:
    """Maximum-likelihood estimate of the uniform label-noise level ε.

    Under uniform noise the observed label of a row is right with probability
    1 - ε and each other class with ε/(K-1), so the likelihood of the labels
    is ``∏_i [(1-ε) γ_i + ε/(K-1) (1-γ_i)]`` with γ_i = P(Z=y_i | x_i). The
    posterior itself depends on ε through the corrected priors, so the
    estimate alternates: priors from ε, posteriors, then the ε that maximises
    the (concave) log-likelihood given those posteriors, until ε settles.

    Parameters
    ----------
    log_density : ndarray of shape (n_samples, n_classes)
        log f(x_i | Z = k) from the class densities fitted on L_red.
    codes : ndarray of shape (n_samples,)
        Observed label codes.
    observed : ndarray of shape (n_classes,)
        Observed label shares.
    max_iter : int, default=100
        Most alternations.
    tol : float, default=1e-6
        Stop when ε moves less than this.

    Returns
    -------
    noise_level : float
        Estimated ε in [0, (K-1)/K).
    """
    n_classes = observed.shape[0]
    upper = (n_classes - 1) / n_classes - 1e-3
    rows = np.arange(codes.shape[0])
    eps = 0.1
    for _ in range(max_iter):
        post = softmax(log_density + np.log(corrected_priors(observed, eps)), axis=1)
        gamma = post[rows, codes]

        def negative_log_likelihood(e: float, gamma: np.ndarray = gamma) -> float:
            p = (1.0 - e) * gamma + e / (n_classes - 1) * (1.0 - gamma)
            return -float(np.log(np.clip(p, 1e-300, None)).sum())

        new = minimize_scalar(
            negative_log_likelihood,
            bounds=(0.0, upper),
            method="bounded",
            options={"xatol": tol / 10},
        ).x
        if abs(new - eps) < tol:
            eps = new
            break
        eps = new
    return float(eps)


class BayesConfidence(BaseConfidence):
    """Label confidence by Bayes' rule with noise-corrected class priors.

    The class-conditional densities f(x | Z = k) are fitted on the reduced set
    L_red (the rows the noise filter keeps), the priors P(Z = k) are the
    observed label shares of the whole training set corrected for the noise
    level ε (:func:`corrected_priors`), and γ_i = P(Z = y_i | x_i) is the
    posterior of the observed label. The posterior over all classes is each
    row's soft label and its argmax the trusted label, for any number of
    classes.

    Parameters
    ----------
    noise_level : float or None, default=None
        Share ε of wrong labels, assumed flipped uniformly to the other
        classes. ``None`` estimates it by maximum likelihood
        (:func:`estimate_noise_level`); the estimate is ``noise_level_``.
    density : {'gaussian', 'kde'}, default='gaussian'
        Model of each class-conditional density.

        - 'gaussian': one multivariate normal per class with a Ledoit-Wolf
          shrunk covariance, which stays well conditioned even with few rows
          or many features. Fast at any size; prefer it unless classes are
          clearly multi-modal.
        - 'kde': Gaussian kernel density estimate per class with bandwidth
          ``bandwidth``, on at most ``max_kde_samples`` rows per class. For
          multi-modal classes in few dimensions.
    bandwidth : float or {'scott', 'silverman'}, default='scott'
        Kernel bandwidth of ``density='kde'`` (in standardised units).
    max_kde_samples : int, default=2000
        Most rows per class kept as kernel centres (a seeded random subset),
        which bounds the cost of scoring.
    noise_filter : {'knn'}, KNNFilter or None, default='knn'
        The filter that builds L_red.

        - 'knn': a :class:`KNNFilter` with its defaults and this estimator's
          ``algorithm``, ``max_categories`` and ``n_jobs``.
        - a :class:`KNNFilter` instance: cloned and used.
        - None: densities are fitted on all rows.
    algorithm : {'auto', 'exact', 'hnsw', 'approximate'}, default='auto'
        Neighbour search backend of the filter.

        - 'exact': exact search (faiss float32 screen, float64 ranking); best
          below about 6e4 rows.
        - 'hnsw': an HNSW graph over every row (faiss, built on one thread).
        - 'approximate': pynndescent's graph search, for large data.
        - 'auto': 'exact' below 75,000 rows, 'hnsw' below 200,000,
          'approximate' from then on.
    max_categories : int, default=32
        Most one-hot columns per categorical feature.
    random_state : int, RandomState instance or None, default=None
        Seed of the approximate search and of the kernel-centre subsample.
    n_jobs : int, default=None
        Parallel jobs of the neighbour search.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Distinct labels, sorted.
    confidence_ : ndarray of shape (n_samples,)
        γ per training row, in [0, 1]; higher means the label is more likely
        right.
    posterior_ : ndarray of shape (n_samples, n_classes)
        P(Z = k | x) per training row.
    trusted_labels_ : ndarray of shape (n_samples,)
        Class of highest posterior per row; ties keep the observed label.
    noise_level_ : float
        ε used: ``noise_level`` if given, else the estimate.
    observed_priors_ : ndarray of shape (n_classes,)
        Observed label shares P(Y = k).
    class_priors_ : ndarray of shape (n_classes,)
        Noise-corrected priors P(Z = k).
    in_reduced_set_ : ndarray of shape (n_samples,), dtype=bool
        True for rows of L_red.
    removal_round_ : ndarray of shape (n_samples,)
        Filter round in which each row left L_red; 0 for kept rows.
    feature_encoder_ : object
        Fitted encoder of the features into distance space.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    KNNConfidence : Confidence from neighbours' labels; needs no noise level.

    Notes
    -----
    The formula printed in §III-E has ``ε f(x|Z=-y)`` in the denominator,
    while the derivation just above it (with P(Z=-y) = (P(Y=-y) - ε)/(1-2ε))
    gives ``(P(Y=-y) - ε) f(x|Z=-y)``. This estimator implements the
    derivation, i.e. the exact posterior under the corrected priors.

    Features are used in the encoded distance space of the KNN methods
    (standardised numeric columns, scaled one-hot categorical columns); a
    Gaussian over one-hot columns is a pragmatic approximation, kept well
    conditioned by the shrinkage. A class with a single row in L_red uses
    the pooled covariance of L_red.

    A row that every class density gives zero density (possible when a
    class's rows all coincide in some direction, or far in the tail of a
    kernel density) gets the corrected priors as its posterior.

    References
    ----------
    .. [1] Z. Xiao, Z. Luo, B. Zhong and X. Dang, "Robust and Efficient
       Boosting Method using the Conditional Risk", IEEE Transactions on
       Neural Networks and Learning Systems, §III-E.
    .. [2] O. Ledoit and M. Wolf, "A well-conditioned estimator for
       large-dimensional covariance matrices", Journal of Multivariate
       Analysis, 88(2), 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from labelclean.confidence import BayesConfidence
    >>> from labelclean.noise import flip_labels
    >>> rng = np.random.RandomState(0)
    >>> X = np.vstack([rng.normal(0, 1, (200, 2)), rng.normal(2, 1, (200, 2))])
    >>> y = np.repeat([-1, 1], 200)
    >>> y_noisy, flipped = flip_labels(y, 0.1, random_state=0)
    >>> est = BayesConfidence(noise_level=0.1, random_state=0).fit(X, y_noisy)
    >>> bool(est.confidence_[flipped].mean() < 0.3 < est.confidence_[~flipped].mean())
    True
    """

    _parameter_constraints: dict = {
        **BaseConfidence._parameter_constraints,
        "noise_level": [Interval(Real, 0.0, 1.0, closed="left"), None],
        "density": [StrOptions({"gaussian", "kde"})],
        "bandwidth": [
            Interval(Real, 0.0, None, closed="neither"),
            StrOptions({"scott", "silverman"}),
        ],
        "max_kde_samples": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        noise_level: float | None = None,
        *,
        density: str = "gaussian",
        bandwidth: float | str = "scott",
        max_kde_samples: int = 2000,
        noise_filter="knn",
        algorithm: str = "auto",
        max_categories: int = 32,
        random_state=None,
        n_jobs: int | None = None,
    ) -> None:
        self.noise_level = noise_level
        self.density = density
        self.bandwidth = bandwidth
        self.max_kde_samples = max_kde_samples
        self.noise_filter = noise_filter
        self.algorithm = algorithm
        self.max_categories = max_categories
        self.random_state = random_state
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: ArrayLike, y: ArrayLike) -> "BayesConfidence":
        """Filter the rows, fit the densities and compute every row's γ.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Features: numeric arrays, or DataFrames with numeric, categorical,
            boolean or datetime columns.
        y : array-like of shape (n_samples,)
            Observed labels of any type.

        Returns
        -------
        self : BayesConfidence
            Fitted estimator.
        """
        Z = self._encode_features(X, reset=True)
        self.classes_, codes = check_labels(y, n_samples=Z.shape[0])
        n_samples, n_classes = codes.shape[0], self.classes_.shape[0]
        if self.noise_level is not None and self.noise_level >= (n_classes - 1) / (
            n_classes
        ):
            raise DataValidationError(
                f"noise_level={self.noise_level} is too high for {n_classes} classes: "
                f"it must be below {(n_classes - 1) / n_classes:.3f}, where labels "
                "would carry no information."
            )
        rng = check_random_state(self.random_state)
        flt = self._make_filter()
        if flt is None:
            keep = np.ones(n_samples, dtype=bool)
            self.removal_round_ = np.zeros(n_samples, dtype=np.int64)
        else:
            index = NeighborIndex(
                Z,
                n_candidates=flt.n_neighbors + CANDIDATE_MARGIN,
                algorithm=self.algorithm,
                random_state=draw_seed(rng),
                n_jobs=self.n_jobs,
            )
            keep, self.removal_round_, _ = flt.rounds(index, codes, self.classes_)
        self.in_reduced_set_ = keep
        self._fit_densities(Z[keep], codes[keep], n_classes, rng)
        self.observed_priors_ = np.bincount(codes, minlength=n_classes) / n_samples
        log_density = self._log_density(Z)
        if self.noise_level is None:
            self.noise_level_ = estimate_noise_level(
                log_density, codes, self.observed_priors_
            )
        else:
            self.noise_level_ = float(self.noise_level)
        self.class_priors_ = corrected_priors(self.observed_priors_, self.noise_level_)
        self.posterior_ = self._posterior(log_density)
        self.confidence_ = self.posterior_[np.arange(n_samples), codes]
        self.trusted_labels_ = self.classes_[self._trusted(self.posterior_, codes)]
        return self

    def _fit_densities(self, Z, codes, n_classes, rng) -> None:
        """Per class: (mean, covariance) or the kernel centres, as arrays."""
        pooled = LedoitWolf().fit(Z).covariance_ if Z.shape[0] > 1 else None
        self._densities = []
        for k in range(n_classes):
            members = Z[codes == k]
            if self.density == "kde":
                if members.shape[0] > self.max_kde_samples:
                    pick = rng.choice(members.shape[0], self.max_kde_samples, False)
                    members = members[np.sort(pick)]
                self._densities.append(("kde", members))
                continue
            if members.shape[0] > 1:
                cov = LedoitWolf().fit(members).covariance_
            elif pooled is not None:
                cov = pooled
            else:
                cov = np.eye(Z.shape[1])
            self._densities.append(("gaussian", members.mean(axis=0), cov))

    def _log_density(self, Z: np.ndarray) -> np.ndarray:
        columns = []
        for density in self._densities:
            if density[0] == "kde":
                kde = KernelDensity(bandwidth=self.bandwidth).fit(density[1])
                columns.append(kde.score_samples(Z))
            else:
                _, mean, cov = density
                logpdf = multivariate_normal.logpdf(Z, mean, cov, allow_singular=True)
                columns.append(np.atleast_1d(logpdf))
        return np.column_stack(columns)

    def _posterior(self, log_density: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            log_joint = log_density + np.log(self.class_priors_)
        norm = logsumexp(log_joint, axis=1, keepdims=True)
        unexplained = ~np.isfinite(norm[:, 0])
        posterior = np.empty_like(log_joint)
        posterior[~unexplained] = np.exp(log_joint[~unexplained] - norm[~unexplained])
        # A row outside the support of every class density (a degenerate
        # Gaussian, or a kernel density that underflows) carries no evidence:
        # its posterior is the corrected prior, not 0/0.
        posterior[unexplained] = self.class_priors_
        return posterior

    def _training_proba(self) -> np.ndarray:
        return self.posterior_

    def _class_probabilities(self, Z: np.ndarray) -> np.ndarray:
        check_is_fitted(self)
        return self._posterior(self._log_density(Z))
