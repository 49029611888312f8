"""Reports of a run: the canonical ``report.json`` and a self-contained HTML page.

:func:`build_report` turns an audit table (one row per input row; columns in
``docs/audit.md``) into a dict of JSON types; :func:`render_html` renders that
dict, and nothing else, into one HTML page with inline plots and styles that
opens without a network connection. :class:`AuditSummary` builds the same
dict from an audit streamed in batches or partitions, in bounded memory.
"""

from labelclean.report._copies import label_copies
from labelclean.report._html import render_html
from labelclean.report._json import REPORT_FORMAT, REPORT_VERSION, to_jsonable
from labelclean.report._summary import AuditSummary, build_report
from labelclean.utils._audit import (
    AUDIT_COLUMNS,
    DECISION_REASONS,
    DECISIONS,
    EVIDENCE_COLUMNS,
    PROBABILITY_COLUMNS,
    REQUIRED_AUDIT_COLUMNS,
    check_audit_frame,
)

__all__ = [
    "AUDIT_COLUMNS",
    "DECISIONS",
    "DECISION_REASONS",
    "EVIDENCE_COLUMNS",
    "PROBABILITY_COLUMNS",
    "REPORT_FORMAT",
    "REPORT_VERSION",
    "REQUIRED_AUDIT_COLUMNS",
    "AuditSummary",
    "build_report",
    "check_audit_frame",
    "label_copies",
    "render_html",
    "to_jsonable",
]
