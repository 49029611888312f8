"""`labelclean run` and `apply` on a multi-class table whose label trees
read and no line draws, with a definition that lists AdaBoost's trees on the
observed labels beside RoSR-L: its evidence is the trees', at a temperature
the report states."""

from html import unescape
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.pipeline import load_cleaner

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def _board(n, seed):
    rng = np.random.RandomState(seed)
    X = rng.uniform(0, 2, size=(n, 6))
    y = (np.floor(2 * X[:, 0]) + np.floor(2 * X[:, 1])).astype(int) % 3
    flipped = rng.rand(n) < 0.15
    y[flipped] = (y[flipped] + rng.randint(1, 3, flipped.sum())) % 3
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(6)])
    frame["label"] = pd.Series(np.array(["ash", "elm", "oak"])[y], dtype="string")
    return frame


def test_run_reports_the_trees_temperature_and_apply_reads_new_rows_by_it(tmp_path):
    train, batch = tmp_path / "train.parquet", tmp_path / "batch.parquet"
    _board(1000, 0).to_parquet(train, index=False)
    _board(200, 1).to_parquet(batch, index=False)
    shipped = (ROOT / "pipelines" / "multiclass-rosr.toml").read_text()
    listed = shipped.replace('kind = "rosr"', 'kind = ["rosr", "adaboost_trees"]')
    assert listed != shipped
    definition = tmp_path / "trees.toml"
    definition.write_text(listed)
    out = tmp_path / "fit"
    args = ["run", str(train), "--label", "label", "--pipeline", str(definition)]
    res = runner.invoke(app, [*args, "--out", str(out)])
    assert res.exit_code == 0, res.output
    cleaner, _ = load_cleaner(out / "model.skops")
    t = cleaner.model_selection_["evidence_temperature"]
    assert cleaner.model_selection_["chosen"] == "adaboost_trees" and t > 1
    html = unescape((out / "report.html").read_text())
    assert "came from AdaBoost on the observed labels (depth-3 trees)" in html
    assert f"calibrated by a temperature of {t:.3g}" in html
    res = runner.invoke(
        app,
        ["apply", str(out / "model.skops"), str(batch), "--out", str(tmp_path / "new")],
    )
    assert res.exit_code == 0, res.output
    audit = pd.read_parquet(tmp_path / "new" / "audit.parquet")
    assert len(audit) == 200
    # the batch's evidence is the loaded model's, temperature and all
    expected = cleaner.audit(
        pd.read_parquet(batch).drop(columns="label"), pd.read_parquet(batch)["label"]
    )
    np.testing.assert_allclose(
        audit["model_probability"], expected["model_probability"]
    )


def test_the_temperature_is_said_when_the_final_model_is_the_trees_too(tmp_path):
    train = tmp_path / "train.parquet"
    _board(1000, 0).to_parquet(train, index=False)
    shipped = (ROOT / "pipelines" / "multiclass-rosr.toml").read_text()
    definition = tmp_path / "trees.toml"
    definition.write_text(shipped.replace('kind = "rosr"', 'kind = "adaboost_trees"'))
    out = tmp_path / "fit"
    args = ["run", str(train), "--label", "label", "--pipeline", str(definition)]
    res = runner.invoke(
        app, [*args, "--final-model", "adaboost_trees", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    cleaner, _ = load_cleaner(out / "model.skops")
    assert cleaner.model_name_ == "adaboost_trees"
    t = cleaner.model_selection_["evidence_temperature"]
    html = unescape((out / "report.html").read_text())
    said = "as the evidence, its probabilities were calibrated by a temperature"
    assert f"{said} of {t:.3g}" in html
