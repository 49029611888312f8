"""An outcome the features only make likely: right labels flagged as sure.

A table like the Titanic's passenger list: survival from sex, class and age,
every label drawn from the passenger's own probability of it, so no label is
wrong. The features sort the rows into plateaus, none of them pure. The
run reads the disagreement of its surest rows, every label right, as noise
and flags survivors among the men, whose evidence says "died" at 0.99 and
more, at an estimated precision of 1.00 and with no caution
(docs/decisions.md, *Flags on an outcome the features only make likely*).
The test states what the run should do, and is a known failure.
"""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from labelclean.cli.main import app

#: Probability of survival per (sex, class), the passengers' own rates.
SURVIVAL = {
    ("female", "1st"): 0.97, ("female", "2nd"): 0.89, ("female", "3rd"): 0.49,
    ("male", "1st"): 0.34, ("male", "2nd"): 0.15, ("male", "3rd"): 0.15,
}  # fmt: skip


def passengers(seed: int, n: int = 1300) -> pd.DataFrame:
    """Passengers whose survival is drawn from their own probability of it."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["female", "male"], n, p=[0.36, 0.64])
    cls = rng.choice(["1st", "2nd", "3rd"], n, p=[0.25, 0.21, 0.54])
    age = np.round(rng.gamma(5, 6, n), 0)
    p = np.array([SURVIVAL[key] for key in zip(sex, cls, strict=True)])
    p = np.clip(p - 0.004 * (age - 30), 0.01, 0.99)
    survived = np.where(rng.random(n) < p, "yes", "no")
    return pd.DataFrame(
        {"sex": sex, "passenger_class": cls, "age": age, "survived": survived}
    )


class FlaggedAsSure(AssertionError):
    """The known failure: right outcomes flagged, with no caution."""


@pytest.mark.xfail(
    strict=True,
    raises=FlaggedAsSure,  # a crash or a failed run is no known failure
    reason="known: the noise is read at the surest rows, and here their "
    "disagreement is right labels; the run flags 8.9 % of the rows "
    "at an estimated precision of 1.00 (interval 0.92-1.00) with no caution. "
    "Widening the flags' interval to the surest rows' lower limit passed "
    "this test but made doubtful_flags fire on 21 of the 23 runs whose "
    "flags were mostly right on public tables with flips, 13 before "
    "(docs/decisions.md, Flags on an outcome the features only make likely)",
)
def test_right_outcomes_are_not_flagged_as_sure(tmp_path):
    passengers(3).to_parquet(data := tmp_path / "passengers.parquet")
    res = CliRunner().invoke(app, ["run", str(data), "--label", "survived",
                                   "--out", str(out := tmp_path / "out")])  # fmt: skip
    assert res.exit_code == 0, res.output
    report = json.loads((out / "report.json").read_text())
    flagged = report["run"]["calibration"]["flagged"]
    codes = [c["code"] for c in report["cautions"]]
    # No label is wrong: flag at most 3 % of the rows (the clean-table line),
    # or say that the flags may be right labels.
    if not (flagged <= 0.03 * report["summary"]["n_rows"] or "doubtful_flags" in codes):
        raise FlaggedAsSure(f"{flagged} right labels flagged, cautions {codes}")
