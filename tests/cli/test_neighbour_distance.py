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


RANKED = """
[pipeline]
name = "ranked"
[[stages]]
name = "confidence"
kind = "knn"
params = { feature_scaling = "auto" }
[[stages]]
name = "suspects"
kind = "splboost"
[[stages]]
name = "model"
kind = "rosr"
"""


def _records(path):
    # World records: the race follows the distance run exactly, whose long
    # tail (the marathon) puts the short races within a sliver of one
    # standard deviation, so the year chooses the neighbours of a distance
    # read in standard deviations.
    rng = np.random.RandomState(0)
    km = np.array([0.1, 0.2, 0.4, 0.8, 1.5, 3.0, 10.0, 42.195])
    race = np.repeat(np.arange(km.shape[0]), 20)
    frame = pd.DataFrame({"year": rng.uniform(1900, 2000, race.shape[0])})
    frame["km"], frame["label"] = km[race], [f"r{r}" for r in race]
    frame.to_parquet(path, index=False)


def _run_records(tmp_path, *pipeline):
    _records(tmp_path / "in.parquet")
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["run", str(tmp_path / "in.parquet"), "--label", "label", "--out", str(out),
         *pipeline],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    report = json.loads((out / "report.json").read_text())
    html = unescape((out / "report.html").read_text())
    return (
        report["run"]["neighbour_scale"],
        html,
        pd.read_parquet(out / "audit.parquet"),
    )


def test_numbers_read_by_their_rank_where_a_definition_asks_and_it_helps(tmp_path):
    (tmp_path / "ranked.toml").write_text(RANKED)
    record, html, audit = _run_records(
        tmp_path, "--pipeline", str(tmp_path / "ranked.toml")
    )
    assert record["ranked"] is True
    assert record["difference"] > 2 * record["standard_error"]
    assert "read each number by its rank among the training values" in html
    assert f"{100 * record['difference']:+.1f}" in html
    assert (audit["trusted_label"] == audit["label"]).all()
    assert (audit["decision"] == "kept").all()


def test_the_shipped_pipelines_read_numbers_in_standard_deviations(tmp_path):
    # the rank reading flagged more right labels on public tables (docs)
    record, html, audit = _run_records(tmp_path)
    assert record is None
    assert "by its rank" not in html and "in standard deviations" not in html
    assert 'id="neighbourhood"' not in html  # 160 rows fill ten places
    assert (audit["trusted_label"] != audit["label"]).mean() > 0.2


def test_a_rank_reading_that_does_not_help_is_reported_as_such(tmp_path):
    # random labels: the ranks cannot make the neighbours better judges
    rng = np.random.RandomState(1)
    frame = pd.DataFrame(rng.lognormal(size=(300, 3)), columns=["a", "b", "c"])
    frame["label"] = rng.choice(["x", "y"], size=300)
    frame.to_parquet(tmp_path / "in.parquet", index=False)
    (tmp_path / "ranked.toml").write_text(RANKED)
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["run", str(tmp_path / "in.parquet"), "--label", "label", "--out", str(out),
         "--pipeline", str(tmp_path / "ranked.toml")],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    report = json.loads((out / "report.json").read_text())
    assert report["run"]["neighbour_scale"]["ranked"] is False
    html = unescape((out / "report.html").read_text())
    assert "read the numbers in standard deviations" in html
    assert "not more than two standard errors" in html
