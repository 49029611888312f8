"""Each class's ranking by the evidence, beside κ (``predictability``'s
``per_class``: ``auroc`` and ``named_rows``), and the report's sentence on a
class ranked well that the evidence seldom makes the most probable."""

import json
from html import unescape
from itertools import product

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.pipeline._predictability import GOOD_RANKING_AUROC, class_rankings

runner = CliRunner()


def _pairs_auroc(scores, positive):
    """The area under the ROC curve as the share of (positive, negative)
    pairs the score orders right, ties counting one half."""
    pos, neg = scores[positive], scores[~positive]
    pairs = list(product(pos, neg))
    return sum(1.0 if p > q else 0.5 if p == q else 0.0 for p, q in pairs) / len(pairs)


def _run(tmp_path, X, labels):
    """``labelclean run`` on the rows and labels as a parquet file: the
    result, ``report.json`` and the output folder."""
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["label"] = labels
    data, out = tmp_path / "data.parquet", tmp_path / "out"
    frame.to_parquet(data, index=False)
    res = runner.invoke(app, ["run", str(data), "--label", "label", "--out", str(out)])
    assert res.exit_code == 0, res.output
    return res, json.loads((out / "report.json").read_text()), out


def _clause(cal, label):
    """The clause the report gives a class ranked well but seldom named."""
    k = cal["classes"].index(label)
    entry, rows = cal["predictability"]["per_class"][k], cal["rows_per_class"][k]
    assert entry["auroc"] >= GOOD_RANKING_AUROC and 2 * entry["named_rows"] < rows
    return (
        f"; the evidence ranks the rows of class '{label}' well against the "
        f"others (AUROC {entry['auroc']:.2f}) but makes it the most probable "
        f"class for only {entry['named_rows']} of its {rows} rows, and κ reads "
        "only the most probable class"
    )


def test_a_class_ranked_first_but_never_most_probable_reads_one_and_zero():
    # class 2's rows hold the highest probability of class 2 of all rows, yet
    # class 0 is the most probable for every row
    P = np.array([[0.9, 0.1, 0.0], [0.8, 0.2, 0.0], [0.5, 0.4, 0.1],
                  [0.6, 0.1, 0.3], [0.55, 0.0, 0.45]])  # fmt: skip
    codes = np.array([0, 1, 1, 2, 2])
    (a0, n0), (a1, n1), (a2, n2) = class_rankings(P, codes)
    assert (a2, n2) == (1.0, 0) and n1 == 0 and n0 == 1
    assert a1 == _pairs_auroc(P[:, 1], codes == 1)
    assert a0 == _pairs_auroc(P[:, 0], codes == 0)


def test_rankings_are_the_pairs_ordered_right_with_ties_and_missing_classes():
    rng = np.random.RandomState(0)
    P = rng.dirichlet(np.ones(4), size=60).round(1)  # many ties
    codes = rng.choice([0, 1, 3], size=60)  # class 2 has no row
    ranks = class_rankings(P, codes)
    for k in (0, 1, 3):
        assert abs(ranks[k][0] - _pairs_auroc(P[:, k], codes == k)) < 1e-12
        mine = codes == k
        assert ranks[k][1] == int(np.sum(mine & (P.argmax(axis=1) == k)))
    assert ranks[2] == (None, 0)
    # a label of one class: nothing to rank it against
    assert class_rankings(P, np.zeros(60, dtype=int))[0][0] is None
    # a probability that is not a number: no ranking, the others still read
    P[5, 1] = np.nan
    ranks = class_rankings(P, codes)
    assert ranks[1][0] is None and ranks[0][0] is not None


def test_a_rare_class_ranked_well_is_said_beside_a_low_agreement(tmp_path):
    # 3 % of the rows in a rare class the features rank well: the evidence
    # seldom makes it the most probable, κ is low, nothing is flagged, and
    # the run says that the low agreement is the rare class's, not the
    # features' silence
    X, y = make_classification(2000, n_features=10, n_informative=5,
                               weights=[0.97], flip_y=0, random_state=1)  # fmt: skip
    res, report, out = _run(tmp_path, X, np.where(y == 1, "rare", "common"))
    cal = report["run"]["calibration"]
    assert cal["predictability"]["low"]
    assert cal["predictability"]["ranking_auroc"] == GOOD_RANKING_AUROC
    said = _clause(cal, "rare")
    (poor,) = [c for c in report["cautions"] if c["code"] == "poor_predictability"]
    assert said in poor["message"] and said in res.stderr
    html = unescape((out / "report.html").read_text())
    summary = html[html.index("<h2") :]
    first = summary[summary.index("<p") : summary.index("</p>")]
    assert first.startswith("<p>Warning:") and said in first
    # said, not acted on: the run flagged no row
    audit = pd.read_parquet(out / "audit.parquet")
    assert len(audit) == 2000 and (audit["decision"] == "kept").all()


def test_a_class_kept_unchecked_though_ranked_well_is_said_so(tmp_path):
    # three classes, the third 3 % of the rows: the features predict the
    # label (not the cautious reading), yet the evidence makes the small
    # class the most probable for a quarter of its rows, so the class gate
    # keeps its labels unchecked; the caution that says so adds its ranking
    X, y = make_classification(2000, n_features=8, n_informative=5, n_classes=3,
                               weights=[0.6, 0.37, 0.03], class_sep=1.5,
                               flip_y=0, random_state=1)  # fmt: skip
    _, report, out = _run(tmp_path, X, np.array(["a", "b", "rare"])[y])
    cal = report["run"]["calibration"]
    assert not cal["predictability"]["low"]
    assert cal["not_checked"] == [False, False, True]
    said = _clause(cal, "rare")
    (unchecked,) = [c for c in report["cautions"] if c["code"] == "classes_not_checked"]
    assert unchecked["message"].endswith("kept unchecked" + said)
    assert [c["code"] for c in report["cautions"] if said in c["message"]] == [
        "classes_not_checked"
    ]
    html = unescape((out / "report.html").read_text())
    assert "no row was relabelled into them" + said + "." in html
    audit = pd.read_parquet(out / "audit.parquet")
    rare = audit["label"] == "rare"
    assert (audit.loc[rare, "reason"] == "not_checked").all()
