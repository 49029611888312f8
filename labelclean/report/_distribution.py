"""One evidence column's distribution, gathered batch by batch.

:class:`Distribution` holds a histogram per decision, the extremes, the sum
and (while there are few) the exact value counts of a [0, 1] evidence column,
so :class:`~labelclean.report.AuditSummary` can report quantiles of any
number of rows in bounded memory.
"""

from collections import Counter
from typing import Any

import numpy as np

from labelclean.utils._audit import DECISIONS

__all__ = ["FINE_BINS", "MAX_EXACT_VALUES", "Distribution"]

#: Bins of the histogram quantiles are read from, once a column has too many
#: distinct values to count them exactly.
FINE_BINS = 16_384

#: Most distinct values per evidence column counted exactly.
MAX_EXACT_VALUES = 4_096


class Distribution:
    """Histogram, extremes, sum and (while few) exact value counts of a column."""

    def __init__(self, n_bins: int) -> None:

        self.edges = np.linspace(0.0, 1.0, n_bins + 1)
        self.counts = np.zeros((len(DECISIONS), n_bins), dtype=np.int64)
        self.fine = np.zeros(FINE_BINS, dtype=np.int64)
        self.values: Counter | None = Counter()
        self.n_missing = 0
        self.n_outside = 0
        self.n_present = 0
        self.total = 0.0
        self.min = np.inf
        self.max = -np.inf

    def add(self, values: Any, decision: Any) -> None:

        finite = np.isfinite(values)
        for k, d in enumerate(DECISIONS):
            sel = finite & (decision == d)
            hist, _ = np.histogram(np.clip(values[sel], 0.0, 1.0), bins=self.edges)
            self.counts[k] += hist
        present = values[finite]
        self.n_missing += int((~finite).sum())
        if not present.size:
            return
        self.n_outside += int(((present < 0) | (present > 1)).sum())
        self.n_present += int(present.size)
        self.total += float(present.sum())
        self.min = min(self.min, float(present.min()))
        self.max = max(self.max, float(present.max()))
        bins = np.clip((present * FINE_BINS).astype(np.int64), 0, FINE_BINS - 1)
        self.fine += np.bincount(bins, minlength=FINE_BINS)
        if self.values is not None:
            uniq, tally = np.unique(present, return_counts=True)
            self.values.update(dict(zip(uniq.tolist(), tally.tolist(), strict=True)))
            if len(self.values) > MAX_EXACT_VALUES:
                self.values = None

    def merge(self, other: "Distribution") -> None:
        self.counts += other.counts
        self.fine += other.fine
        if self.values is None or other.values is None:
            self.values = None
        else:
            self.values.update(other.values)
            if len(self.values) > MAX_EXACT_VALUES:
                self.values = None
        self.n_missing += other.n_missing
        self.n_outside += other.n_outside
        self.n_present += other.n_present
        self.total += other.total
        self.min = min(self.min, other.min)
        self.max = max(self.max, other.max)

    def _quantile(self, q: float) -> float:

        n = self.n_present
        rank = q * (n - 1)
        lo, hi = int(np.floor(rank)), int(np.ceil(rank))
        if self.values is not None:
            keys = sorted(self.values)
            cum = np.cumsum([self.values[k] for k in keys])
            a = keys[int(np.searchsorted(cum, lo, side="right"))]
            b = keys[int(np.searchsorted(cum, hi, side="right"))]
            # numpy's own interpolation between the two order statistics.
            return float(np.quantile(np.array([a, b]), rank - lo))
        cum = np.cumsum(self.fine)
        b = int(np.searchsorted(cum, rank, side="right"))
        before = cum[b - 1] if b else 0
        inside = (rank - before + 0.5) / max(int(self.fine[b]), 1)
        value = (b + min(max(inside, 0.0), 1.0)) / FINE_BINS
        return float(min(max(value, self.min), self.max))

    def to_dict(self, column: str) -> dict[str, Any]:
        summary = None
        if self.n_present:
            summary = {
                "min": self.min,
                "q25": self._quantile(0.25),
                "median": self._quantile(0.5),
                "q75": self._quantile(0.75),
                "max": self.max,
                "mean": self.total / self.n_present,
            }
        return {
            "column": column,
            "bin_edges": [round(float(e), 12) for e in self.edges],
            "counts": {
                d: [int(c) for c in self.counts[k]] for k, d in enumerate(DECISIONS)
            },
            "n_missing": self.n_missing,
            "n_outside_unit_interval": self.n_outside,
            "summary": summary,
        }
