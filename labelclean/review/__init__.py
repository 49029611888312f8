"""A human review round trip: export the rows worth a person's time, apply
the verdicts (``labelclean review export`` / ``review apply``).

See ``docs/review.md``.
"""

from labelclean.review._apply import apply_review, read_verdicts
from labelclean.review._export import (
    evidence_against,
    export_review,
    label_studio_config,
    load_run,
    review_rows,
    to_label_studio,
)

__all__ = [
    "apply_review",
    "evidence_against",
    "export_review",
    "label_studio_config",
    "load_run",
    "read_verdicts",
    "review_rows",
    "to_label_studio",
]
