"""A correction holds at the lower limit of the rows its pair's noise rests on.

A correction from label *s* to class *d* is as sure as the joint's cell
``Q[s, d]`` says many rows labelled *s* are of class *d*. On a small class
that cell is a handful of rows: the same evidence on few rows must not
correct what it corrects on many (docs/decisions.md, *Corrections hold at
the least noise the data admit*). The limit is read on all of the label's
wrong rows and shared among its cells, not per cell (*The least noise read
per label*).
"""

from html import unescape

import numpy as np
import pandas as pd
import pytest
from scipy.stats import poisson

from labelclean.pipeline._calibration import calibrate, decide_calibrated
from labelclean.pipeline._corrections import cell_lower_limit, correction_thresholds
from labelclean.pipeline._decisions import Evidence
from labelclean.report import build_report, render_html


def _evidence(copies=1, seed=0):
    """Two large classes with ten labels each swapped (the evidence sure of
    them), and a small class two of whose twenty labels' rows the evidence
    places, nearly sure, in the first class; ``copies`` repeats every row."""
    blocks = [  # label, the evidence's probabilities, rows
        (0, [0.99, 0.005, 0.005], 190),
        (0, [0.0005, 0.999, 0.0005], 10),
        (1, [0.005, 0.99, 0.005], 190),
        (1, [0.999, 0.0005, 0.0005], 10),
        (2, [0.02, 0.02, 0.96], 16),
        (2, [0.989, 0.009, 0.002], 4),
    ]
    return _from_blocks([(c, p, n * copies) for c, p, n in blocks], seed, 1e-3)


def _from_blocks(blocks, seed, jitter):
    """Evidence of ``(label, probabilities, rows)`` blocks, each row's
    probabilities moved by up to ``jitter`` (seeded) so no two tie."""
    codes = np.concatenate([np.full(n, label) for label, _, n in blocks])
    P = np.concatenate([np.tile(p, (n, 1)) for _, p, n in blocks])
    P = P + np.random.default_rng(seed).uniform(0, jitter, P.shape)
    P /= P.sum(axis=1, keepdims=True)
    return Evidence(codes, P, P, None)


def _pair(summary, source, dest):
    (pair,) = [p for p in summary["correction_pairs"]
               if (p["from"], p["to"]) == (source, dest)]  # fmt: skip
    return pair


@pytest.mark.parametrize("count", [1, 3, 10, 100])
def test_a_cells_lower_limit_leaves_a_poisson_count_that_small_one_time_in_twenty(
    count,
):
    # Garwood's limit: a Poisson mean at the limit gives the observed count
    # or more with probability 0.05.
    low = cell_lower_limit(count)
    assert 0 < low < count
    assert poisson.sf(count - 1, low) == pytest.approx(0.05, rel=1e-6)


def test_an_empty_cell_has_no_rows_at_its_lower_limit():
    assert cell_lower_limit(0.0) == 0.0
    assert cell_lower_limit(-1e-12) == 0.0


def test_a_pair_resting_on_a_few_rows_is_not_corrected_but_on_many_it_is():
    for copies, corrected in ((1, 0), (10, 40)):
        evidence = _evidence(copies)
        calibration = calibrate(evidence, random_state=0)
        summary = calibration.summary
        target = summary["correction_target"]
        small = _pair(summary, 2, 0)
        # the same posterior on the fitted noise, whatever the number of rows
        assert small["estimated_precision"] >= target
        assert small["noise_cell_rows"] == pytest.approx(4 * copies, rel=0.05)
        assert small["noise_cell_lower_limit"] == pytest.approx(
            cell_lower_limit(small["noise_cell_rows"])
        )
        assert small["corrected"] == corrected
        assert (small["estimated_precision_at_least_noise"] >= target) == (copies > 1)
        # the large pairs' corrections stand either way
        for source, dest in ((0, 1), (1, 0)):
            large = _pair(summary, source, dest)
            assert large["corrected"] == 10 * copies
            assert large["estimated_precision_at_least_noise"] >= target
        decision, reason, _, _ = decide_calibrated(evidence, calibration)
        looks_first = np.flatnonzero(evidence.codes == 2)[-4 * copies :]
        if copies == 1:
            assert (decision[looks_first] == "discarded").all()
            assert (reason[looks_first] == "correction_not_precise").all()
            assert np.isinf(calibration.correction_thresholds[2, 0])  # new rows too
        else:
            assert (decision[looks_first] == "corrected").all()


def test_a_pair_corrects_its_surest_rows_as_long_as_each_holds():
    # Four candidates of one pair; under the least noise their posteriors fall
    # to 0.98, 0.92, 0.80, 0.70. The mean of the first three still reaches
    # 0.9, but the third is under it on its own, as a row under the target
    # at the fitted noise is not corrected however sure the others are. The
    # first two are corrected and the pair's threshold rises to the second
    # one's posterior, so a new row between the target and that posterior
    # is not corrected.
    codes = np.zeros(4, dtype=int)
    alternative = np.ones(4, dtype=int)
    strength = np.array([0.99, 0.97, 0.95, 0.93])
    least = np.array([0.98, 0.92, 0.80, 0.70])
    candidate = np.ones(4, dtype=bool)
    thresholds, (pair,) = correction_thresholds(
        (codes, alternative, strength), candidate, 0.9, 2, least
    )
    assert pair["corrected"] == 2
    assert thresholds[0, 1] == pytest.approx(0.97)
    assert pair["estimated_precision"] == pytest.approx(np.mean(strength[:2]))
    assert pair["estimated_precision_at_least_noise"] == pytest.approx(0.95)
    # with no least-noise reading the pair corrects all four at the target
    thresholds, (pair,) = correction_thresholds(
        (codes, alternative, strength), candidate, 0.9, 2
    )
    assert pair["corrected"] == 4 and thresholds[0, 1] == 0.9


def test_the_report_says_how_few_rows_a_withheld_pair_rests_on():
    evidence = _evidence(1)
    calibration = calibrate(evidence, random_state=0)
    summary = calibration.summary
    decision, reason, new_codes, _ = decide_calibrated(evidence, calibration)
    audit = pd.DataFrame({"decision": decision, "reason": reason})
    audit["label"] = audit["observed_label"] = evidence.codes
    audit["cleaned_label"] = np.where(new_codes < 0, None, new_codes)
    run = {"calibration": {**summary, "decision_rule": "calibrated"}}
    html = unescape(render_html(build_report(audit, label="label", run=run)))
    # only the small pair is named, with the rows its noise rests on
    assert "Corrections 2 → 0 were withheld" in html
    small = _pair(summary, 2, 0)
    assert (
        f"about {small['noise_cell_rows']:.1f} rows labelled 2 are of class 0, "
        f"perhaps as few as {small['noise_cell_lower_limit']:.1f}"
    ) in html
    assert "rows labelled 0 are of class 1" not in html


def test_a_pair_that_holds_only_for_its_surest_rows_corrects_those():
    # The small class's pair now holds two rows the evidence places in the
    # first class beyond doubt and four it places there a little less
    # surely: with the cell at its lower limit the mean of all six falls
    # under the target, of the surest four not. The surest are corrected,
    # the others discarded, and the report says the pair was limited.
    evidence = _evidence(1)
    codes, P = evidence.codes, evidence.model_proba
    small = np.flatnonzero(codes == 2)
    P = P.copy()
    P[small[-6:-4]] = [0.9999, 0.00005, 0.00005]
    P[small[-4:]] = [[0.9895 - 0.003 * k, 0.0055 + 0.003 * k, 0.005] for k in range(4)]
    P /= P.sum(axis=1, keepdims=True)
    evidence = Evidence(codes, P, P, None)
    calibration = calibrate(evidence, random_state=0)
    summary = calibration.summary
    pair = _pair(summary, 2, 0)
    assert pair["reached_target"] == 6
    assert 0 < pair["corrected"] < pair["reached_target"]
    assert pair["estimated_precision_at_least_noise"] >= summary["correction_target"]
    decision, reason, _, _ = decide_calibrated(evidence, calibration)
    looks_first = small[-6:]
    strength = P[looks_first, 0]
    corrected = decision[looks_first] == "corrected"
    assert corrected.sum() == pair["corrected"]
    assert strength[corrected].min() >= strength[~corrected].max()  # surest first
    assert (reason[looks_first][~corrected] == "correction_not_precise").all()
    run = {"calibration": {**summary, "decision_rule": "calibrated"}}
    audit = pd.DataFrame({"decision": decision, "reason": reason})
    audit["label"] = audit["observed_label"] = codes
    audit["cleaned_label"] = None
    html = unescape(render_html(build_report(audit, label="label", run=run)))
    assert (
        f"Corrections 2 → 0 ({pair['corrected']} of 6) were limited to the rows "
        "the evidence is surest of"
    ) in html


def _spread_evidence(k=9, seed=0):
    """Eight classes of 200 rows and one, label 0, of 100 right rows and two
    rows of each other class (16 wrong labels, two per cell); and two rows
    labelled 1 of class 2, that label's only wrong rows. The evidence is
    nearly sure of every row."""

    def sure(c, p):
        row = np.full(k, (1 - p) / (k - 1))
        row[c] = p
        return row

    blocks = [(c, sure(c, 0.99), 200) for c in range(1, k)]
    blocks += [(0, sure(0, 0.99), 100), (1, sure(2, 0.99), 2)]
    blocks += [(0, sure(d, 0.998), 2) for d in range(1, k)]
    return _from_blocks(blocks, seed, 1e-4)


def test_the_least_noise_is_read_on_a_labels_wrong_rows_not_per_cell():
    # Label 0's 16 wrong rows split two to a cell among eight classes. At
    # each cell's own limit (2 rows: perhaps as few as 0.36) none would be
    # corrected; read on the label's 16 rows (perhaps as few as 10.0) shared
    # among its cells, each cell keeps 1.25 and all 16 are corrected. Label
    # 1's two wrong rows are all its noise: read the same either way, and
    # withheld.
    evidence = _spread_evidence()
    calibration = calibrate(evidence, random_state=0)
    summary = calibration.summary
    target = summary["correction_target"]
    share = cell_lower_limit(16.0) / 16.0
    for dest in range(1, 9):
        pair = _pair(summary, 0, dest)
        assert pair["noise_cell_rows"] == pytest.approx(2.0, rel=0.01)
        assert pair["noise_cell_lower_limit"] == pytest.approx(2.0 * share, rel=0.02)
        assert pair["noise_cell_lower_limit"] > 3 * cell_lower_limit(2.0)
        assert pair["corrected"] == 2
        assert pair["estimated_precision_at_least_noise"] >= target
    alone = _pair(summary, 1, 2)
    assert alone["noise_cell_lower_limit"] == pytest.approx(
        cell_lower_limit(alone["noise_cell_rows"]), rel=0.02
    )
    assert alone["corrected"] == 0
    decision, reason, new_codes, _ = decide_calibrated(evidence, calibration)
    wrong = np.flatnonzero(evidence.codes == 0)[100:]
    assert (decision[wrong] == "corrected").all()
    assert (new_codes[wrong] == np.repeat(np.arange(1, 9), 2)).all()
    assert (decision[evidence.codes == 0][:100] == "kept").all()
    looks_two = np.flatnonzero(evidence.codes == 1)[200:]
    assert (reason[looks_two] == "correction_not_precise").all()
