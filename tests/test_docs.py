"""The Python code blocks of the pages listed here run as written."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).parent.parent / "docs"
PAGES = ["fidelity.md"]


def blocks(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("page", PAGES)
def test_python_blocks_run(page):
    found = blocks(page)
    assert found, f"no python block in {page}"
    for code in found:
        exec(compile(code, f"{page}", "exec"), {"__name__": "__main__"})


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    # The README's Python blocks run in order, as one session (the second
    # uses the first's data), in an empty folder.
    text = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(found) >= 2
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    for code in found:
        exec(compile(code, "README.md", "exec"), namespace)
    assert "cleaner" in namespace and namespace["cleaner"].audit_.shape[0] == 569
