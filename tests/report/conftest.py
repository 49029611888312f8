"""A small audit table with known counts, shared by the report tests."""

import json

import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def audit():
    """10 rows: 6 kept, 2 corrected (b->a, c->a), 2 discarded (a, b)."""
    return pd.DataFrame(
        {
            "x": np.arange(10, dtype=float),
            "color": ["red", "<script>alert(1)</script>"] + ["blue"] * 8,
            "decision": ["kept"] * 6
            + ["corrected", "corrected", "discarded", "discarded"],
            "reason": ["ok"] * 6
            + ["trusted_alternative"] * 2
            + ["low_confidence", "spl_zero"],
            "observed_label": ["a", "a", "b", "b", "c", "c", "b", "c", "a", "b"],
            "cleaned_label": ["a", "a", "b", "b", "c", "c", "a", "a", None, None],
            "confidence": [0.9, 0.8, 0.95, 0.7, 0.85, 0.6, 0.05, 0.1, 0.3, 0.2],
            "trusted_label": ["a", "a", "b", "b", "c", "c", "a", "a", "a", "c"],
            "trusted_probability": [
                0.9,
                0.8,
                0.95,
                0.7,
                0.85,
                0.6,
                0.95,
                0.9,
                0.7,
                0.5,
            ],
            "spl_weight": [1.0, 1.0, 1.0, 1.0, 0.9, 0.5, 0.0, 0.0, 0.0, 0.0],
            "spl_zero_round": pd.array([None] * 6 + [2, 3, 3, 5], dtype="Int64"),
            "model_probability": [0.9, 0.9, 0.9, 0.8, 0.8, 0.7, 0.1, 0.1, 0.4, 0.6],
            "model_label": ["a", "a", "b", "b", "c", "c", "a", "a", "a", "c"],
            "neighbor_label_counts": [json.dumps({"a": 4, "b": 1})] * 9 + [None],
        },
        index=pd.Index([f"r{i}" for i in range(10)], name="id"),
    )
