"""Reading a run's ``report.json`` back: one reader for every command that
takes a run folder (``report``, ``drift``, ``review``)."""

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from labelclean.exceptions import InputFileError

__all__ = ["read_report_json"]


def read_report_json(
    path: str | os.PathLike[str], *, required: Sequence[str] = ()
) -> dict[str, Any]:
    """The ``report.json`` of a run folder (or the file itself).

    Raises
    ------
    InputFileError
        If there is no such file, it is not JSON, not a labelclean report, or
        it lacks one of the ``required`` top-level keys.
    """
    path = Path(path)
    source = path / "report.json" if path.is_dir() else path
    try:
        report = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputFileError(
            f"no report.json in {str(path)!r}; pass a folder that `labelclean run` "
            "or `labelclean apply` wrote."
        ) from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputFileError(f"{str(source)!r} is not valid JSON: {exc}.") from exc
    if not isinstance(report, dict) or report.get("format") != "labelclean-report":
        raise InputFileError(f"{str(source)!r} is not a labelclean report.")
    missing = [k for k in required if k not in report]
    if missing:
        raise InputFileError(
            f"{str(source)!r} is not a complete labelclean report: it lacks "
            f"{missing}; use the report.json a run wrote (written by an older "
            "labelclean, run or apply again)."
        )
    return report
