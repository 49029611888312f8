"""Two classes that overlap smoothly, every label right: rows of one class
among the other's are corrected as sure.

One informative column (and a copy of it rounded to cents, as a price
column holds it): the classes are one standard deviation wide and two
apart, so a sixth of each class lies nearer the other, rightly. The run
reads that overlap as noise (7 % where none is), κ with it taken out
crosses the line where corrections are allowed, and CB-AdaBoost's
out-of-fold probability of these rows' own labels is about 10⁻⁶ where a
sixth of the rows there carry them: 32 right labels are relabelled at an
estimated correction precision of 0.998 (interval 0.969–1.00). The test
states what the run should do and is a known failure (docs/decisions.md,
*Corrections of right labels where two classes overlap smoothly*).
"""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from labelclean.cli.main import app


def overlapping(seed: int, n: int = 600) -> pd.DataFrame:
    """Two overlapping classes on one column and its rounded copy."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.normal(size=n) + 2.0 * y
    label = pd.Series(np.where(y == 1, "yes", "no"), dtype="string")
    return pd.DataFrame({"x": x, "price": np.round(x, 2), "label": label})


class CorrectedRightLabels(AssertionError):
    """The known failure: right labels of overlapping classes relabelled."""


@pytest.mark.xfail(
    strict=True,
    raises=CorrectedRightLabels,  # a crash or a failed run is no known failure
    reason="known: the overlap is read as 7 % noise, κ with it taken out "
    "reaches the correction line, and the evidence is saturated, so 32 right "
    "labels are corrected at an estimated precision of 0.998. CB-AdaBoost's "
    "evidence at a temperature fitted to the labels cleared them, and 2,155 "
    "right corrections on public tables with flips (docs/decisions.md, "
    "Corrections of right labels where two classes overlap smoothly)",
)
def test_right_labels_of_overlapping_classes_are_not_corrected(tmp_path):
    overlapping(0).to_parquet(data := tmp_path / "table.parquet")
    res = CliRunner().invoke(app, ["run", str(data), "--label", "label",
                                   "--out", str(out := tmp_path / "out")])  # fmt: skip
    assert res.exit_code == 0, res.output
    audit = pd.read_parquet(out / "audit.parquet")
    assert len(audit) == 600
    assert audit["decision"].isin(["kept", "corrected", "discarded"]).all()
    corrected = int((audit["decision"] == "corrected").sum())
    if corrected:  # no label is wrong: every correction is a wrong one
        raise CorrectedRightLabels(f"{corrected} right labels corrected")
