"""Most of the surest rows disagreeing with their labels is no noise.

A full factorial design whose label is one of its factors: a consequence of
the label (``use``) is a feature, but where ``vis`` is ``no`` it does not
depend on the label, so each of those feature rows appears twice, once with
each label (and so does each row with ``magn`` above ``m0``, where ``use`` is
``noauto`` either way). Out of fold, each such row sees only its twin, of
the other label, and the evidence is sure of the wrong label (MASS's ``shuttle``
table, labelled by its stability, through ``labelclean run``: 93 of 256 right
labels discarded, 37 % of a class, before the rule; then nothing discarded,
but a noise rate of 43 % reported within 40–47 %, and 47 rows weighted
under one half in the final model).
"""

import itertools
import json
from html import unescape

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.pipeline._anchor import anchor_disagreement


def factorial_table() -> pd.DataFrame:
    rows = []
    levels = (range(4), range(2), range(2), range(4), ("no", "yes"), ("stab", "xstab"))
    for error, sign, wind, magn, vis, label in itertools.product(*levels):
        follows = vis == "yes" and (label == "xstab" or magn > 0)
        rows.append(
            {
                "error": f"e{error}",
                "sign": f"s{sign}",
                "wind": f"w{wind}",
                "magn": f"m{magn}",
                "vis": vis,
                "use": "noauto" if follows else "auto",
                "stability": label,
            }
        )
    return pd.DataFrame(rows)


def surest(n_disagreeing: int):
    """200 rows of two classes; the evidence sure (0.98) of 80 rows labelled
    0, of the other class for ``n_disagreeing`` of them."""
    codes = np.r_[np.zeros(100, int), np.ones(100, int)]
    P = np.full((200, 2), 0.5)
    P[:80] = [0.98, 0.02]
    P[:n_disagreeing] = [0.02, 0.98]
    return anchor_disagreement(P, codes)


def test_surest_rows_that_surely_mostly_disagree_show_no_noise():
    reading = surest(72)
    assert reading["lower_limit"] > 0.5
    assert reading["beyond_evidence"] == 0.0
    assert reading["evidence_wrong_where_surest"] is True
    # above one half by chance, perhaps (the lower limit under it): read
    reading = surest(48)
    assert reading["share"] > 0.5 > reading["lower_limit"]
    assert reading["beyond_evidence"] > 0.5
    assert reading["evidence_wrong_where_surest"] is False
    # mostly agreeing: read, as always
    reading = surest(8)
    assert reading["share"] < 0.5 and reading["beyond_evidence"] > 0.05


def test_a_factorial_table_keeps_its_own_labels(tmp_path):
    table = factorial_table()
    # twins: every row with vis 'no', and with magn above m0 (use is 'noauto'
    # under either label)
    assert table.duplicated(subset=list(table.columns[:-1])).sum() == 64 + 48
    table.to_parquet(tmp_path / "in.parquet")
    out = tmp_path / "out"
    command = ["run", str(tmp_path / "in.parquet"), "--label", "stability"]
    res = CliRunner().invoke(app, [*command, "--out", str(out)])
    assert res.exit_code == 0, res.output
    audit = pd.read_parquet(out / "audit.parquet")
    assert (audit["decision"] == "kept").all(), audit["decision"].value_counts()
    calibration = json.loads((out / "report.json").read_text())["run"]["calibration"]
    surest = calibration["anchor_disagreement"]
    assert surest["share"] > 0.5  # the twins are among the surest rows
    assert surest["noise_taken_out"] == 0.0
    # The evidence's count of wrong labels may be its own errors: the noise
    # reported admits none, and the report says why.
    assert surest["evidence_wrong_where_surest"] is True
    assert calibration["noise_rate"] > 0.2
    assert calibration["noise_rate_interval"][0] == 0.0
    # Nor do the final model's row weights take it for doubt about the labels.
    fit = json.loads((out / "report.json").read_text())["run"]["final_model"]["fit"]
    assert fit["weighted"] and fit["mean_weight"] == 1.0
    assert fit["rows_under_half"] == 0
    page = unescape((out / "report.html").read_text())
    assert "the evidence is wrong where it is surest" in page
    assert "the data admit that no label is wrong" in page
