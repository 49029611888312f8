"""Label-noise drift across runs: is this batch noisier than the baseline?

Every ``labelclean run`` and ``apply`` records its label-noise profile in
``report.json`` (``noise_profile``). :func:`compare` sets profiles side by
side and flags the classes whose estimated share of wrong labels rose beyond
a limit; :func:`drift_report` does it for run folders and writes
``drift.json`` and ``drift.html`` (``labelclean drift``, exit 7 on drift).
"""

from labelclean.drift._compare import (
    compare,
    describe_alert,
    describe_growth,
    shifted_runs,
)
from labelclean.drift._files import drift_report, load_report, render_drift

__all__ = [
    "compare",
    "describe_alert",
    "describe_growth",
    "drift_report",
    "load_report",
    "render_drift",
    "shifted_runs",
]
