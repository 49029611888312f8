"""Plots for the HTML pages (``report.html``, ``drift.html``), inlined as SVG
whose text stays text.

Class names are the user's data, in any script. Drawn into pixels, a
character the plotting font lacks (DejaVu Sans has no CJK ideographs, for
one) became an empty box, and matplotlib warned on stderr once per
character. Kept as SVG ``<text>``, each label is drawn by the browser that
opens the page, with its own fonts and their fallbacks, as it draws the
tables beside the plots. matplotlib still lays the text out with its own
font, so a label in a script that font lacks is placed by an estimate of its
width; the warnings about those characters are not shown, since the browser
draws them.

The same figure gives the same bytes: no date or creator in the metadata,
and the ids of clip paths hashed from a fixed salt.
"""

import base64
import contextlib
import io
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = ["drawing", "svg_data_uri"]

_STYLE = {
    "text.parse_math": False,  # "$x$" in a label is the label, not mathtext
    "text.usetex": False,
    "svg.fonttype": "none",  # text as <text>, drawn by the browser's fonts
    "svg.hashsalt": "labelclean",  # clip-path ids from a fixed salt, not uuid4
}


@contextlib.contextmanager
def drawing() -> Iterator[None]:
    """Settings under which the pages' plots are drawn and saved."""
    # lazy: matplotlib is needed only to draw a page
    import matplotlib

    with matplotlib.rc_context(_STYLE), warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=r"Glyph \d+ .*missing from font", category=UserWarning
        )
        yield


def svg_data_uri(fig: Any) -> str:
    """``fig`` as an inline SVG image (call it within :func:`drawing`)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return "data:image/svg+xml;base64," + encoded
