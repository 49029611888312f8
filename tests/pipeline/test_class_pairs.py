"""Pairs of classes the evidence does not tell apart (docs/decisions.md,
*Calibrated decisions*, step 2)."""

from html import unescape

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.metrics import cohen_kappa_score
from sklearn.model_selection import train_test_split

from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner
from labelclean.pipeline._calibration import calibrate, decide_calibrated
from labelclean.pipeline._decisions import Evidence
from labelclean.pipeline._noise_estimate import (
    anchor_disagreement,
    estimate_joint,
    recognised_classes,
    recognised_pairs,
)
from labelclean.report import render_html

#: Fits of the decisions alone, without the default stack (test_calibration.py).
DECIDE = {"final_model": "cb_adaboost"}


def _sure_but_confused(n=400, agree=0.65, seed=0):
    """Three classes; the evidence is sure of every row, and right about class
    2, but between classes 0 and 1 it names the row's own label only
    ``agree`` of the time (two totals of the same quantity: each told from
    class 2, not from each other). Every label is right."""
    rng = np.random.default_rng(seed)
    codes = np.repeat([0, 1, 2], n)
    named = codes.copy()
    pair = codes < 2
    named[pair] = np.where(rng.random(pair.sum()) < agree, codes[pair], 1 - codes[pair])
    P = np.full((codes.shape[0], 3), 0.015)
    P[np.arange(codes.shape[0]), named] = 0.97
    P[~pair] = [0.02, 0.02, 0.96]
    return P, codes


def test_recognised_pairs_tells_an_overlapping_pair_from_separated_ones():
    P, codes = _sure_but_confused()
    recognised, _ = recognised_classes(P, codes, 3)
    assert recognised.all()  # each class is told from the rest
    apart, kappas = recognised_pairs(P, codes, 3)
    assert not apart[0, 1] and not apart[1, 0]
    assert apart[0, 2] and apart[1, 2] and apart[np.diag_indices(3)].all()
    assert kappas[(0, 1)][0] < 0.4 < kappas[(0, 2)][0]
    # Flipped labels lower the pair's κ; the correction for the measured
    # noise keeps a pair told apart by a perfect evidence: with half the
    # labels flipped uniformly among three classes, a third of the pair's
    # rows carry the other's label.
    truth = np.repeat([0, 1, 2], 300)
    P = np.eye(3)[truth] * 0.94 + 0.02
    noisy = truth.copy()
    noisy[:600:3] = 1 - noisy[:600:3]
    apart, kappas = recognised_pairs(P, noisy, 3, noise=0.5)
    assert apart.all()
    assert kappas[(0, 1)][0] < 0.4 and kappas[(0, 1)][1] > 0.95


def test_rows_the_evidence_places_in_a_third_class_do_not_blur_a_pair():
    # Classes 0 and 1 are told apart perfectly; half the rows of the large
    # class 2 carry label 0, and the evidence, sure they are class 2, finds
    # them nearer class 1 than class 0. Read among the pair's rows they
    # would disagree with their label 90 times in 210 (κ 0.28): they say
    # nothing about 0 against 1, so they are not read there.
    truth = np.repeat([0, 1, 2], [60, 60, 180])
    codes = truth.copy()
    codes[120:210] = 0
    P = np.eye(3)[truth] * 0.9 + 0.05
    P[truth == 2] = [0.02, 0.18, 0.80]
    pair = codes < 2
    read_everywhere = cohen_kappa_score(codes[pair], (P[pair, 1] > P[pair, 0]))
    assert read_everywhere < 0.3
    apart, kappas = recognised_pairs(P, codes, 3)
    assert apart[0, 1] and kappas[(0, 1)][0] == 1.0
    # The same rows still count for the pair they are placed in: their
    # label 0 disagrees with the evidence's class 2.
    assert kappas[(0, 2)][0] < 0.4


def test_a_small_table_with_heavy_flips_keeps_its_pairs_told_apart():
    # 75 rows of iris with 30 % of the labels flipped uniformly: virginica
    # rows labelled setosa sit among setosa's and versicolor's rows, nearer
    # versicolor; read there, setosa and versicolor looked like a pair the
    # evidence cannot tell apart, and their flips were assumed overlap. The
    # evidence is RoSR-L's (model='auto' keeps the trees on this split: on
    # the observed labels RoSR-L errs more out of fold, 0.43 against 0.35,
    # and the trees' evidence flags nothing; docs/decisions.md, *The
    # candidates compared on the labels they give evidence on*).
    X, y = load_iris(return_X_y=True)
    X_half, _, y_half, _ = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=4
    )
    noisy, flipped = flip_labels(y_half, 0.3, random_state=4)
    cleaner = LabelCleaner(**DECIDE, model="rosr", random_state=4)
    cleaner.fit(X_half, noisy)
    pairs = cleaner.calibration_["predictability"]["pairs"]
    assert all(pair["told_apart"] for pair in pairs)
    flagged = cleaner.decisions_ != "kept"
    assert flipped[flagged].mean() >= 0.8  # precision
    assert flagged[flipped].mean() >= 0.8  # recall


def test_rows_of_closed_pairs_do_not_set_the_cautious_cap():
    # Every label is right. Classes 0 and 1 are told apart, but on 50 of
    # their rows the evidence leans to the other class (overlap), a little
    # less sure than of the rest. Class 2 is never named: the evidence places
    # its 100 rows in class 0, surer than of any other row.
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1, 2], [250, 250, 100])
    named = np.minimum(labels, 1)
    leaning = rng.choice(500, 50, replace=False)
    named[leaning] = 1 - named[leaning]
    P = np.full((600, 3), 0.05)
    P[np.arange(600), named] = 0.9
    P[leaning, named[leaning]] = 0.8
    P[labels == 2] = [0.95, 0.04, 0.01]
    P /= P.sum(axis=1, keepdims=True)
    gate = np.eye(3, dtype=bool)
    gate[0, 1] = gate[1, 0] = True
    # Read on every row, the surest rows are class 2's, all disagreeing: a
    # cap under which confident learning counts the overlap as noise.
    everywhere = anchor_disagreement(P, labels)["share"]
    assert everywhere > 0.5
    capped_there = estimate_joint(
        P, labels, 3, predictable=False, recognised=gate, noise_cap=everywhere
    )
    assert 1.0 - np.trace(capped_there) > 0.005
    # Class 2 is closed to the others (its labels assumed right), so those
    # rows' disagreement is overlap; the surest rows left agree with their
    # labels, and the joint admits no noise.
    Q = estimate_joint(P, labels, 3, predictable=False, recognised=gate)
    assert np.trace(Q) == pytest.approx(1.0)
    # The same gate given per class reads the same rows.
    per_class = estimate_joint(
        P, labels, 3, predictable=False, recognised=np.array([True, True, False])
    )
    np.testing.assert_allclose(per_class, Q)


def test_the_cautious_cap_reads_the_agreeing_rows_of_an_unrecognised_class():
    # The gate the class test builds closes its own diagonal for a class it
    # does not recognise (class 2 here). Half of class 2's rows are still
    # named 2, surer than any other row, and agree with their labels; 25
    # labels of class 0 sit among rows the evidence surely names 1.
    labels = np.repeat([0, 1, 2], [250, 250, 100])
    named = np.minimum(labels, 1)
    named[:25] = 1
    P = np.full((600, 3), 0.05)
    P[np.arange(600), named] = 0.9
    P[500:550] = [0.015, 0.015, 0.97]
    P[550:] = [0.95, 0.04, 0.01]
    P /= P.sum(axis=1, keepdims=True)
    recognised = np.array([True, True, False])
    gate = np.outer(recognised, recognised)
    assert not gate[2, 2]
    # An agreeing row is no pair of classes: the surest rows are class 2's
    # named rows, none disagrees, and the cap admits no noise (dropped with
    # the closed pairs' rows, they left the 25 sure disagreements on top).
    Q = estimate_joint(P, labels, 3, predictable=False, recognised=gate)
    assert np.trace(Q) == pytest.approx(1.0)


def test_a_pair_the_evidence_confuses_exchanges_no_noise():
    P, codes = _sure_but_confused()
    recognised, _ = recognised_classes(P, codes, 3)
    free = estimate_joint(P, codes, 3, noise_cap=1.0, recognised=recognised)
    # Each class told from the rest, confident learning counts about a third
    # of the pair's labels as each other's.
    assert free[0, 1] > 0.08 and free[1, 0] > 0.08
    apart, _ = recognised_pairs(P, codes, 3)
    gate = np.outer(recognised, recognised) & apart
    Q = estimate_joint(P, codes, 3, noise_cap=1.0, recognised=gate)
    assert Q[0, 1] == Q[1, 0] == 0.0
    np.testing.assert_allclose(Q.sum(axis=1), np.bincount(codes) / codes.shape[0])
    # Through the whole calibration: the surest rows disagree with a third of
    # the pair's labels, and still no row is flagged (without the pair test,
    # 301 of the 1,200 rows were, every one of them rightly labelled).
    evidence = Evidence(codes, P, P, None)
    calibration = calibrate(evidence, random_state=0)
    decision, *_ = decide_calibrated(evidence, calibration)
    assert (decision == "kept").all()
    pairs = calibration.summary["predictability"]["pairs"]
    assert [(p["classes"], p["told_apart"]) for p in pairs] == [
        ([0, 1], False),
        ([0, 2], True),
        ([1, 2], True),
    ]


def _two_close_classes(n=1200, seed=0):
    """Four classes in the plane: 'north' and 'east' a little apart in one
    cloud, 'far' and 'high' each far away. Every label is right."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 4, n)
    centers = np.array([[0.0, 0.0], [0.8, 0.0], [6.0, 0.0], [0.0, 6.0]])
    names = np.array(["north", "east", "far", "high"])
    return pd.DataFrame(centers[y] + rng.randn(n, 2), columns=["a", "b"]), names[y]


def test_the_report_names_the_pairs_the_evidence_does_not_tell_apart():
    X, y = _two_close_classes()
    cleaner = LabelCleaner(**DECIDE, random_state=0).fit(X, y)
    pred = cleaner.calibration_["predictability"]
    assert all(c["recognised"] for c in pred["per_class"])
    confused = [p["classes"] for p in pred["pairs"] if not p["told_apart"]]
    assert confused == [["east", "north"]]  # classes_ is sorted
    assert (cleaner.decisions_ == "kept").all()
    html = unescape(
        render_html(cleaner.report(run={"calibration": cleaner.calibration_}))
    )
    assert "does not tell 'east' and 'north' apart from each other" in html
