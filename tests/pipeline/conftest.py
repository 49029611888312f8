"""Data shared by the pipeline tests."""

import numpy as np
import pytest


@pytest.fixture(scope="session")
def ordinal_labels():
    """Six ordered classes from a latent score the features only partly give
    (no label flipped: every disagreement with the evidence is overlap)."""
    rng = np.random.RandomState(0)
    X = rng.randn(1500, 6)
    latent = X[:, :3] @ np.array([1.0, 0.7, 0.5]) + rng.randn(1500)
    y = np.digitize(latent, np.quantile(latent, [0.1, 0.3, 0.5, 0.7, 0.9]))
    return X, y
