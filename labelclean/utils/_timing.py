"""Wall time of the consecutive stages of a fit or a run (logged at INFO)."""

import time

__all__ = ["StageClock"]


class StageClock:
    """Wall seconds of consecutive stages (``lap(name)`` ends one)."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        """End the stage ``name`` now; the next one starts."""
        now = time.perf_counter()
        self.times[name] = now - self._last
        self._last = now

    def summary(self) -> str:
        """``"read 0.1, fit 2.3, ..."``: every stage's seconds, in order."""
        return ", ".join(f"{k} {v:.1f}" for k, v in self.times.items())
