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
