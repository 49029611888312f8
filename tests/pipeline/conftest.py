"""Fixtures of the pipeline tests."""

import pytest
from sklearn.datasets import make_classification

from labelclean.pipeline import LabelCleaner


@pytest.fixture(scope="session")
def partly_linear():
    """400 training rows whose boundary is partly linear (trees and RoSR-L
    each miss part of it), 4,000 new rows, and ``LabelCleaner(random_state=2)``
    fitted on the training rows: ``(cleaner, X, y, X_new, y_new)``. The
    cleaner is shared: copy it before changing it."""
    X, y = make_classification(
        4400, n_features=8, n_informative=4, n_redundant=0,
        n_clusters_per_class=1, flip_y=0, random_state=2,
    )  # fmt: skip
    cleaner = LabelCleaner(random_state=2).fit(X[:400], y[:400])
    return cleaner, X[:400], y[:400], X[400:], y[400:]
