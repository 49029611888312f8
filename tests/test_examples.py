"""Every script in examples/ runs top to bottom (smoke test)."""

import runpy
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("plot_*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(script):
    if "dask" in script.name:
        pytest.importorskip("distributed")
    runpy.run_path(str(script), run_name="__main__")
