""" "Did you mean ...?" hints for misspelt names (columns, keys, stage kinds)."""

import difflib
from collections.abc import Hashable, Iterable

__all__ = ["close_match", "did_you_mean"]


def close_match(name: Hashable, choices: Iterable[Hashable]) -> str | None:
    """The choice closest to ``name`` (as strings), or None when none is close."""
    close = difflib.get_close_matches(
        str(name), sorted(str(c) for c in choices), n=1, cutoff=0.6
    )
    return close[0] if close else None


def did_you_mean(name: Hashable, choices: Iterable[Hashable]) -> str:
    """A ``"; did you mean 'x'?"`` suffix, or ``""`` when nothing is close."""
    close = close_match(name, choices)
    return f"; did you mean {close!r}?" if close else ""
