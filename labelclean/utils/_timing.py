"""Wall time of the consecutive stages of a fit or a run.

Each finished stage is logged at INFO on the ``labelclean.progress`` logger
(what the CLI shows as progress on a terminal, and
``LABELCLEAN_LOG_LEVEL=INFO`` prints).
"""

import logging
import time

__all__ = ["StageClock"]

progress = logging.getLogger("labelclean.progress")


class StageClock:
    """Wall seconds of consecutive stages (``lap(name)`` ends one).

    Parameters
    ----------
    what : str, default=""
        What the stages belong to, for the progress log (e.g. "fit on 178
        rows").
    """

    def __init__(self, what: str = "") -> None:
        self.what = what
        self.times: dict[str, float] = {}
        self._start = self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        """End the stage ``name`` now; the next one starts."""
        now = time.perf_counter()
        self.times[name] = now - self._last
        self._last = now
        progress.info(
            "%s%s done in %.1f s (%.1f s elapsed)",
            f"{self.what}: " if self.what else "",
            name,
            self.times[name],
            now - self._start,
        )

    def summary(self) -> str:
        """``"read 0.1, fit 2.3, ..."``: every stage's seconds, in order."""
        return ", ".join(f"{k} {v:.1f}" for k, v in self.times.items())
