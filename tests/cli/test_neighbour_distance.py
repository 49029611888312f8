"""The run's report says how the neighbours' distance weighed the columns."""

import json
from html import unescape

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.noise import flip_labels

runner = CliRunner()


def _table(path, n=500, decides=True, seed=0):
    rng = np.random.RandomState(seed)
    frame = pd.DataFrame(
        rng.normal(size=(n, 8)), columns=[f"noise_{j}" for j in range(8)]
    )
    frame["signal"] = rng.normal(size=n)
    frame["colour"] = rng.choice(["red", "green", "blue"], size=n)
    truth = (
        np.where(frame["signal"] > 0, "yes", "no")
        if decides
        else rng.choice(["yes", "no"], size=n)
    )
    frame["label"], flipped = flip_labels(truth, 0.15, random_state=seed)
    frame.to_parquet(path, index=False)
    return flipped


def _run(tmp_path, **kw):
    flipped = _table(tmp_path / "in.parquet", **kw)
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["run", str(tmp_path / "in.parquet"), "--label", "label", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    report = json.loads((out / "report.json").read_text())
    html = unescape((out / "report.html").read_text())
    return flipped, out, report["run"]["neighbour_distance"], html


def test_a_weighted_distance_is_reported_with_each_columns_weight(tmp_path):
    flipped, out, record, html = _run(tmp_path)
    assert record["weighted"] is True
    assert record["difference"] > 2 * record["standard_error"]
    info = record["information"]
    assert max(info, key=info.get) == "signal"
    assert "weight in the neighbours' distance" in html
    mean = sum(info.values()) / len(info)
    assert f"{info['signal'] / mean:.2f}" in html
    assert "found in a distance that weighs each column" in html
    audit = pd.read_parquet(out / "audit.parquet")
    flagged = audit["decision"].to_numpy() != "kept"
    assert (flagged & flipped).sum() > 0.8 * flipped.sum()


def test_a_plain_distance_is_reported_as_such(tmp_path):
    _, _, record, html = _run(tmp_path, decides=False, seed=1)
    assert record["weighted"] is False
    assert "found in the plain distance, every column alike" in html
    assert "not more than two standard errors" in html


def test_a_long_tailed_number_read_by_its_rank_is_reported(tmp_path):
    # World records: the race follows the distance run exactly, whose long
    # tail (the marathon) put the short races within a sliver of one
    # standard deviation, so the year chose the neighbours and the audit's
    # trusted_label was another race for a third of the rows.
    rng = np.random.RandomState(0)
    km = np.array([0.1, 0.2, 0.4, 0.8, 1.5, 3.0, 10.0, 42.195])
    race = np.repeat(np.arange(km.shape[0]), 20)
    frame = pd.DataFrame({"year": rng.uniform(1900, 2000, race.shape[0])})
    frame["km"], frame["label"] = km[race], [f"r{r}" for r in race]
    frame.to_parquet(tmp_path / "in.parquet", index=False)
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["run", str(tmp_path / "in.parquet"), "--label", "label", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    record = json.loads((out / "report.json").read_text())["run"]["neighbour_scale"]
    assert record["ranked"] is True
    assert record["difference"] > 2 * record["standard_error"]
    html = unescape((out / "report.html").read_text())
    assert "read each number by its rank among the training values" in html
    assert f"{100 * record['difference']:+.1f}" in html
    audit = pd.read_parquet(out / "audit.parquet")
    assert (audit["trusted_label"] == audit["label"]).all()
    assert (audit["decision"] == "kept").all()


def test_numbers_read_in_standard_deviations_are_reported_as_such(tmp_path):
    _, out, _, html = _run(tmp_path, decides=False, seed=1)
    record = json.loads((out / "report.json").read_text())["run"]["neighbour_scale"]
    assert record["ranked"] is False
    assert "read the numbers in standard deviations" in html
