"""CLI tests of ``labelclean score`` (the issue-2 main job)."""

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.datasets import example_path

EXAMPLE = Path(example_path("wine_noisy"))
runner = CliRunner()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_score_example_file(tmp_path):
    before = _sha(EXAMPLE)
    out = tmp_path / "scores.parquet"
    result = runner.invoke(
        app,
        [
            "score",
            str(EXAMPLE),
            "--label",
            "cultivar",
            "--id",
            "sample_id",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "scored 178 rows" in result.stdout
    assert _sha(EXAMPLE) == before  # input untouched
    scored = pd.read_parquet(out)
    original = pd.read_parquet(EXAMPLE)
    pd.testing.assert_frame_equal(scored[original.columns], original)
    assert np.all((scored["confidence"] >= 0) & (scored["confidence"] <= 1))
    assert set(scored["trusted_label"]) <= set(original["cultivar"])
    assert scored["trusted_label"].dtype == original["cultivar"].dtype
    # the same command twice gives byte-identical output
    out2 = tmp_path / "scores2.parquet"
    runner.invoke(
        app,
        [
            "score",
            str(EXAMPLE),
            "--label",
            "cultivar",
            "--id",
            "sample_id",
            "--out",
            str(out2),
        ],
    )
    assert _sha(out) == _sha(out2)


def test_score_keeps_a_column_named_like_its_own(tmp_path):
    original = pd.read_parquet(EXAMPLE)
    path = tmp_path / "in.parquet"
    original.assign(confidence=1.0).to_parquet(path)
    out = tmp_path / "scores.parquet"
    result = runner.invoke(
        app,
        ["score", str(path), "--label", "cultivar", "--id", "sample_id",
         "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    scored = pd.read_parquet(out)
    assert (scored["confidence_input"] == 1.0).all()
    assert scored["confidence"].between(0, 1).all()
    assert scored["confidence"].nunique() > 1


def test_score_bayes_with_mixed_features(tmp_path):
    rng = np.random.RandomState(0)
    n = 300
    frame = pd.DataFrame(
        {
            "x": np.r_[rng.normal(0, 1, n // 2), rng.normal(3, 1, n // 2)],
            "shop": pd.Categorical(rng.choice(["a", "b"], n)),
            "label": np.repeat(["no", "yes"], n // 2),
        }
    )
    path = tmp_path / "in.parquet"
    frame.to_parquet(path)
    out = tmp_path / "out.parquet"
    result = runner.invoke(
        app,
        [
            "score",
            str(path),
            "--label",
            "label",
            "--method",
            "bayes",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert pd.read_parquet(out)["confidence"].between(0, 1).all()


@pytest.mark.parametrize(
    "args, code, message",
    [
        (
            ["--label", "cultivr"],
            3,
            "label column 'cultivr' is not in the input; did you mean 'cultivar'?",
        ),
        (
            ["--label", "cultivar", "--exclude", "sample_id", "--feature", "nope"],
            3,
            "feature column(s) ['nope'] are not in the input",
        ),
    ],
)
def test_score_user_errors(tmp_path, args, code, message):
    result = runner.invoke(
        app, ["score", str(EXAMPLE), "--out", str(tmp_path / "o.parquet"), *args]
    )
    assert result.exit_code == code
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "o.parquet").exists()


def test_score_refuses_to_overwrite_input(tmp_path):
    copy = tmp_path / "in.parquet"
    copy.write_bytes(EXAMPLE.read_bytes())
    before = _sha(copy)
    result = runner.invoke(
        app, ["score", str(copy), "--label", "cultivar", "--out", str(copy)]
    )
    assert result.exit_code == 5
    assert "is the input" in result.stderr
    assert _sha(copy) == before


def test_score_not_parquet(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_text("a,b\n1,2\n")
    result = runner.invoke(
        app, ["score", str(bad), "--label", "a", "--out", str(tmp_path / "o.parquet")]
    )
    assert result.exit_code == 4
    assert "not a parquet file" in result.stderr


def test_version_and_help():
    assert runner.invoke(app, ["--version"]).stdout.startswith("labelclean ")
    result = runner.invoke(app, [])
    assert result.exit_code == 2 and "score" in result.output


def test_cli_import_is_lazy():
    # `labelclean --help` must answer quickly: no heavy library at import.
    import subprocess
    import sys

    code = (
        "import sys; import labelclean.cli.main\n"
        "heavy = ['sklearn', 'pynndescent', 'great_expectations', 'dask', "
        "'matplotlib', 'pyarrow', 'pandas', 'numba']\n"
        "print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
