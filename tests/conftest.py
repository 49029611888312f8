"""Shared fixtures: seeds and small noisy datasets."""

import os

import numpy as np
import pytest

os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")

# One seed by default keeps CI fast; LABELCLEAN_TESTS_GLOBAL_RANDOM_SEED="all"
# (or "0-5") runs the seeded tests over several seeds, like scikit-learn's.
_SEED_SPEC = os.environ.get("LABELCLEAN_TESTS_GLOBAL_RANDOM_SEED", "42")


def _seeds(spec: str) -> list[int]:
    if spec == "all":
        return list(range(10))
    if "-" in spec:
        lo, hi = (int(part) for part in spec.split("-"))
        return list(range(lo, hi + 1))
    return [int(spec)]


@pytest.fixture(params=_seeds(_SEED_SPEC))
def global_random_seed(request: pytest.FixtureRequest) -> int:
    """A seed for tests whose assertions must hold for any seed."""
    return request.param


@pytest.fixture
def rng(global_random_seed: int) -> np.random.RandomState:
    return np.random.RandomState(global_random_seed)
