"""A report built from batches of an audit, in bounded memory.

:class:`AuditSummary` is the streaming counterpart of
:func:`~labelclean.report.build_report`. It is fed the audit one batch (or one
Dask partition) at a time with :meth:`AuditSummary.add`, can be combined with
another summary by :meth:`AuditSummary.merge` (partitions summarised on
different workers), and finally gives the same ``report.json`` dict as
:func:`~labelclean.report.build_report` on the whole audit
(:meth:`AuditSummary.report`). It holds counts, histograms, at most
``n_suspects`` flagged rows (the most suspicious, with their feature values)
and the ``n_examples`` most suspicious rows of each decision, never the whole
audit, so its size is bounded whatever the number of rows.

Equal to the whole-audit report, key for key, except in one place: the
``summary`` of each evidence distribution. Its ``min``, ``max`` and the
quantiles are exact while a column has at most :data:`MAX_EXACT_VALUES`
distinct values (the neighbour shares, multiples of 1/k, always do); beyond
that the quantiles are read off a histogram of :data:`FINE_BINS` bins over
[0, 1] (error below 1e-4). The mean is a running sum, equal to the
whole-audit mean up to rounding (about 1e-15).
"""

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from labelclean.report._build import summary_report
from labelclean.report._distribution import FINE_BINS, MAX_EXACT_VALUES, Distribution
from labelclean.report._json import (
    _row_id,
    _suspicion,
)
from labelclean.utils._audit import (
    AUDIT_COLUMNS,
    DECISIONS,
    EVIDENCE_COLUMNS,
    PROBABILITY_COLUMNS,
    check_audit_frame,
)

__all__ = ["FINE_BINS", "MAX_EXACT_VALUES", "AuditSummary", "build_report"]

_POSITION = "__labelclean_position__"


class AuditSummary:
    """Everything ``report.json`` needs from an audit, gathered batch by batch.

    Parameters
    ----------
    id_column : str, default=None
        Column identifying rows; ``None`` uses the audit's index.
    n_suspects : int, default=10_000
        Most flagged (corrected or discarded) rows listed for review, the
        most suspicious first; ``report.json`` says when some were left out.
    n_examples : int, default=5
        Example rows listed per decision (the most suspicious of each).
    n_bins : int, default=20
        Histogram bins over [0, 1].
    max_example_columns : int, default=12
        Most user columns shown in example rows.
    max_feature_columns : int, default=40
        Most user columns whose values are listed with each suspect.

    Attributes
    ----------
    n_rows : int
        Rows added so far.
    decisions : dict of str to int
        Rows per decision so far.

    Examples
    --------
    >>> import pandas as pd
    >>> from labelclean.report import AuditSummary, build_report
    >>> audit = pd.DataFrame({
    ...     "decision": ["kept", "corrected", "discarded"],
    ...     "reason": ["ok", "relabelled", "low_confidence"],
    ...     "observed_label": ["a", "a", "b"],
    ...     "cleaned_label": ["a", "b", None],
    ... })
    >>> summary = AuditSummary()
    >>> summary.add(audit.iloc[:2])
    >>> summary.add(audit.iloc[2:])
    >>> summary.report() == build_report(audit)
    True
    """

    def __init__(
        self,
        *,
        id_column: str | None = None,
        n_suspects: int = 10_000,
        n_examples: int = 5,
        n_bins: int = 20,
        max_example_columns: int = 12,
        max_feature_columns: int = 40,
    ) -> None:
        self.id_column = id_column
        self.n_suspects = n_suspects
        self.n_examples = n_examples
        self.n_bins = n_bins
        self.max_example_columns = max_example_columns
        self.max_feature_columns = max_feature_columns
        self.n_rows = 0
        self.class_order: list[Any] | None = None  # a categorical label's order
        self.columns: list[str] | None = None
        self._labels: dict[Any, Any] = {}  # label -> value shown (observed first)
        self._observed_labels: set = set()
        self._triples: Counter = Counter()  # (observed, cleaned, decision) -> n
        self._reasons: Counter = Counter()  # (decision, reason) -> n
        self._dists: dict[str, Distribution] = {}
        self._rounds: Counter = Counter()
        self._rounds_missing = 0
        self._suspects: Any = None
        self._examples: Any = None
        # observed label -> [rows with a noise probability, sum, sum of squares]
        self._noise: dict[Any, list[float]] = {}
        # observed label -> rows a person relabelled (reason 'reviewed')
        self._reviewed_out: Counter = Counter()
        # observed label -> [rows with a model label, rows whose model label
        # is another class]: the evidence's disagreement, which drift reads
        self._disagree: dict[Any, list[int]] = {}

    @property
    def decisions(self) -> dict[str, int]:
        out = dict.fromkeys(DECISIONS, 0)
        for (_, _, d), n in self._triples.items():
            out[d] += n
        return out

    @property
    def missing_labels(self) -> int:
        """Rows discarded because they have no label (reason ``missing_label``)."""
        return self._reasons[("discarded", "missing_label")]

    # ------------------------------------------------------------------
    def add(self, audit: Any, positions: Any = None) -> None:
        """Add a batch of the audit.

        Parameters
        ----------
        audit : pandas.DataFrame
            Consecutive or scattered rows of the audit (user columns plus the
            audit columns), every batch with the same columns.
        positions : array-like of int, default=None
            Each row's position in the whole input, which orders suspects of
            equal suspicion and example rows; ``None`` continues from the rows
            added so far (batches added in input order).
        """

        check_audit_frame(audit)
        n = len(audit)
        if positions is None:
            positions = np.arange(self.n_rows, self.n_rows + n, dtype=np.int64)
        positions = np.asarray(positions, dtype=np.int64)
        if self.columns is None:
            self.columns = [str(c) for c in audit.columns]
        if self.class_order is None and isinstance(
            audit["observed_label"].dtype, pd.CategoricalDtype
        ):
            self.class_order = list(audit["observed_label"].dtype.categories)
        self.n_rows += n
        if not n:
            return
        decision = audit["decision"].to_numpy(dtype=object)
        observed = audit["observed_label"].astype(object)
        cleaned = audit["cleaned_label"].astype(object)
        for value in pd.unique(observed.dropna()):
            if value not in self._observed_labels:
                self._labels[value] = value  # observed spelling wins
                self._observed_labels.add(value)
        for value in pd.unique(cleaned.dropna()):
            self._labels.setdefault(value, value)
        for key, count in _count_rows(observed, cleaned, decision):
            self._triples[key] += count
        reason = audit["reason"].astype(object).where(audit["reason"].notna(), "")
        tally = pd.DataFrame(
            {"d": decision, "r": reason.astype(str).to_numpy()}
        ).value_counts(sort=False)
        for (d, r), count in tally.items():
            self._reasons[(str(d), str(r))] += int(count)
        for column in PROBABILITY_COLUMNS:
            if column in audit.columns:
                values = pd.to_numeric(audit[column], errors="coerce").to_numpy(
                    dtype=np.float64, na_value=np.nan
                )
                dist = self._dists.setdefault(column, Distribution(self.n_bins))
                dist.add(values, decision)
        if "spl_zero_round" in audit.columns:
            rounds = audit["spl_zero_round"]
            present = rounds.dropna().to_numpy(dtype=np.int64)
            self._rounds.update(Counter(present.tolist()))
            self._rounds_missing += int(rounds.isna().sum())
        self._add_noise(audit, observed)
        self._add_disagreement(audit, observed)
        by_person = (reason.to_numpy() == "reviewed") & (decision == "corrected")
        if by_person.any():
            self._reviewed_out.update(observed[by_person].tolist())
        self._add_suspects(audit, positions, decision)
        self._add_examples(audit, positions, decision)

    def _add_noise(self, audit: Any, observed: Any) -> None:
        """Per observed class: the count, sum and sum of squares of the
        calibrated probability that the label is wrong, and the count of rows
        kept unchecked (reason ``not_checked``): the label-noise profile."""
        if "noise_probability" not in audit.columns:
            return
        noise = pd.to_numeric(audit["noise_probability"], errors="coerce").to_numpy(
            dtype=np.float64, na_value=np.nan
        )
        unchecked = audit["reason"].to_numpy(dtype=object) == "not_checked"
        frame = pd.DataFrame(
            {"o": observed.to_numpy(), "p": noise, "u": unchecked.astype(float)}
        ).dropna()
        grouped = frame.groupby("o", sort=False, observed=True)
        stats = pd.DataFrame(
            {"n": grouped["p"].size(), "s": grouped["p"].sum(),
             "q": (frame["p"] ** 2).groupby(frame["o"], sort=False,
                                            observed=True).sum(),
             "u": grouped["u"].sum()}
        )  # fmt: skip
        for label, row in stats.iterrows():
            acc = self._noise.setdefault(label, [0.0, 0.0, 0.0, 0.0])
            for k, key in enumerate("nsqu"):
                acc[k] += float(row[key])

    def _add_disagreement(self, audit: Any, observed: Any) -> None:
        """Per observed class: the rows with a ``model_label`` and those whose
        model label is another class (the model never saw the row's label:
        out of fold in a run, fitted on other rows in ``apply``)."""
        if "model_label" not in audit.columns:
            return
        model = audit["model_label"].astype(object)
        known = (observed.notna() & model.notna()).to_numpy()
        if not known.any():
            return
        frame = pd.DataFrame(
            {"o": observed.to_numpy()[known],
             "d": (model.to_numpy()[known] != observed.to_numpy()[known])}
        )  # fmt: skip
        counts = frame.groupby("o", sort=False, observed=True)["d"].agg(["size", "sum"])
        for label, row in counts.iterrows():
            acc = self._disagree.setdefault(label, [0, 0])
            acc[0] += int(row["size"])
            acc[1] += int(row["sum"])

    def _add_suspects(self, audit: Any, positions: Any, decision: Any) -> None:

        suspicion = _suspicion(audit)
        sort_suspicion = np.where(np.isfinite(suspicion), -suspicion, np.inf)
        unlabelled = audit["reason"].to_numpy(dtype=object) == "missing_label"
        flagged = np.flatnonzero((decision != "kept") & ~unlabelled)
        order = flagged[np.lexsort((positions[flagged], sort_suspicion[flagged]))]
        order = order[: self.n_suspects]
        keep = [c for c in self._suspect_columns(audit) if c in audit.columns]
        top = audit.iloc[order][keep].copy()
        top["__suspicion"] = suspicion[order]
        top["__sort"] = sort_suspicion[order]
        top[_POSITION] = positions[order]
        self._suspects = _best(self._suspects, top, self.n_suspects)

    def _add_examples(self, audit: Any, positions: Any, decision: Any) -> None:

        keep = [c for c in self._example_columns(audit) if c in audit.columns]
        suspicion = _suspicion(audit)
        sort_suspicion = np.where(np.isfinite(suspicion), -suspicion, np.inf)
        picked = []
        for d in DECISIONS:
            rows = np.flatnonzero(decision == d)
            rows = rows[np.lexsort((positions[rows], sort_suspicion[rows]))]
            picked.append(rows[: self.n_examples])
        rows = np.concatenate(picked)
        part = audit.iloc[rows][keep].copy()
        part["__sort"] = sort_suspicion[rows]
        part[_POSITION] = positions[rows]
        self._examples = _best_per_decision(self._examples, part, self.n_examples)

    def _user_columns(self, columns: Any) -> list[str]:
        return [c for c in columns if c not in AUDIT_COLUMNS]

    def _suspect_columns(self, audit: Any) -> list[str]:
        present = [c for c in EVIDENCE_COLUMNS if c in audit.columns]
        extra = [self.id_column] if self.id_column in audit.columns else []
        features = [
            c for c in self._user_columns(audit.columns) if c != self.id_column
        ][: self.max_feature_columns]
        return [*extra, "decision", "reason", "observed_label", "cleaned_label"] + [
            c for c in [*present, *features] if c not in extra
        ]

    def _example_columns(self, audit: Any) -> list[str]:
        user = self._user_columns(audit.columns)
        shown = [c for c in user if self.id_column is None or c != self.id_column][
            : self.max_example_columns
        ]
        extra = [self.id_column] if self.id_column in audit.columns else []
        return [*extra, "decision", "reason", "observed_label", "cleaned_label"] + [
            c for c in shown if c not in extra
        ]

    # ------------------------------------------------------------------
    def merge(self, other: "AuditSummary") -> "AuditSummary":
        """Fold ``other`` (e.g. another partition's summary) into this one.

        Rows must have been added with their global ``positions``; the result
        does not depend on the order of merging.

        Returns
        -------
        self : AuditSummary
        """

        if other.columns is None:
            return self
        if self.columns is None:
            self.columns = list(other.columns)
        self.n_rows += other.n_rows
        for value in other._labels:
            if value in other._observed_labels and value not in self._observed_labels:
                self._labels[value] = other._labels[value]
                self._observed_labels.add(value)
            else:
                self._labels.setdefault(value, other._labels[value])
        self._triples.update(other._triples)
        self._reasons.update(other._reasons)
        for column, dist in other._dists.items():
            if column in self._dists:
                self._dists[column].merge(dist)
            else:
                self._dists[column] = dist
        self._rounds.update(other._rounds)
        self._rounds_missing += other._rounds_missing
        self._reviewed_out.update(other._reviewed_out)
        for label, sums in other._noise.items():
            acc = self._noise.setdefault(label, [0.0, 0.0, 0.0, 0.0])
            for k, value in enumerate(sums):
                acc[k] += value
        for label, (rows, other_class) in other._disagree.items():
            acc = self._disagree.setdefault(label, [0, 0])
            acc[0] += rows
            acc[1] += other_class
        if self.class_order is None:
            self.class_order = other.class_order
        if other._suspects is not None:
            self._suspects = _best(self._suspects, other._suspects, self.n_suspects)
        if other._examples is not None:
            self._examples = _best_per_decision(
                self._examples, other._examples, self.n_examples
            )
        return self

    # ------------------------------------------------------------------
    def class_counts(self) -> dict[Any, dict[str, int]]:
        """Per observed label: rows, discarded rows, rows labelclean corrected
        to another (a person's verdicts, reason ``reviewed``, are not
        labelclean's changes and are left out)."""
        out: dict[Any, dict[str, int]] = {}
        for (o, _, d), n in self._triples.items():
            if o is not None:
                row = out.setdefault(
                    o, {"n_observed": 0, "discarded": 0, "corrected_out": 0}
                )
                row["n_observed"] += n
                if d == "discarded":
                    row["discarded"] += n
                elif d == "corrected":
                    row["corrected_out"] += n
        for label, n in self._reviewed_out.items():
            if label in out:
                out[label]["corrected_out"] -= n
        return out

    def cleaned_labels(self) -> set:
        """Labels with at least one row in the cleaned output."""
        return {c for (_, c, d), n in self._triples.items() if d != "discarded" and n}

    def outside_unit_interval(self) -> dict[str, int]:
        """Per evidence column present: values outside [0, 1]."""
        return {column: dist.n_outside for column, dist in self._dists.items()}

    def example_ids(self, decision: str) -> list[Any]:
        """Row ids of the ``n_examples`` most suspicious rows with ``decision``."""
        ex = self._examples
        if ex is None:
            return []
        return [
            _row_id(ex, self.id_column, position)
            for position in range(len(ex))
            if ex["decision"].iat[position] == decision
        ]

    def report(
        self,
        *,
        label: str | None = None,
        run: Any = None,
        validation: Any = None,
        reason_descriptions: Any = None,
    ) -> dict[str, Any]:
        """The ``report.json`` dict, as :func:`~labelclean.report.build_report`.

        Parameters
        ----------
        label, run, validation, reason_descriptions
            As for :func:`~labelclean.report.build_report`.

        Returns
        -------
        report : dict
        """
        return summary_report(
            self,
            label=label,
            run=run,
            validation=validation,
            reason_descriptions=reason_descriptions,
        )


def _ranked(frame: Any) -> Any:
    """``frame`` sorted by suspicion (highest first), ties by input position."""
    order = np.lexsort((frame[_POSITION].to_numpy(), frame["__sort"].to_numpy()))
    return frame.iloc[order]


def _best(kept: Any, new: Any, n: int) -> Any:
    """The ``n`` most suspicious rows of two ranked lists."""
    if kept is None:
        return new
    return _ranked(pd.concat([kept, new]))[:n]


def _best_per_decision(kept: Any, new: Any, n: int) -> Any:
    """The ``n`` most suspicious rows of each decision of two lists."""
    both = new if kept is None else pd.concat([kept, new])
    return _ranked(both).groupby("decision", sort=False, group_keys=False).head(n)


def _count_rows(*columns: Any) -> list[tuple[tuple, int]]:
    """Each distinct row of ``columns`` (aligned) with its count, in the order
    of first appearance; a missing value is None.

    Values are compared as they are: a DataFrame's ``value_counts`` would put
    them in index levels, whose inferred dtype turns integers beside a
    missing value into floats (a class code above 2**53 then merges with its
    neighbours).
    """
    factorized = [pd.factorize(np.asarray(c, dtype=object)) for c in columns]
    key = np.zeros(len(factorized[0][0]), dtype=np.int64)
    for codes, uniques in factorized:  # one number per row: mixed radix
        key = key * (len(uniques) + 1) + (codes + 1)
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    out = []
    for j in np.argsort(first, kind="stable"):
        row = first[j]
        values = (u[c[row]] if c[row] >= 0 else None for c, u in factorized)
        out.append((tuple(values), int(counts[j])))
    return out


def build_report(
    audit: Any,
    *,
    label: str | None = None,
    id_column: str | None = None,
    run: Mapping[str, Any] | None = None,
    validation: Sequence[Mapping[str, Any]] | Mapping[str, Any] | None = None,
    n_suspects: int = 10_000,
    n_examples: int = 5,
    n_bins: int = 20,
    max_example_columns: int = 12,
    max_feature_columns: int = 40,
    reason_descriptions: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Summarise a run's audit as the canonical ``report.json`` dict.

    Parameters
    ----------
    audit : pandas.DataFrame
        One row per input row: the user's columns plus the audit columns of
        ``docs/audit.md``. Missing optional evidence columns are tolerated
        and listed under ``evidence.missing``.
    label : str, default=None
        Name of the user's label column, for the record.
    id_column : str, default=None
        Column identifying rows; ``None`` uses the audit's index.
    run : dict, default=None
        Information about the run (pipeline name and stages, parameters,
        seed, inputs, versions, ...); copied under ``run`` after
        :func:`to_jsonable`.
    validation : dict or list of dict, default=None
        Validation results (e.g. ``ValidationResult.to_dict()`` of the input
        suite and the output guardrails); copied under ``validation``.
    n_suspects : int, default=10_000
        Most flagged rows listed for review (the most suspicious first).
    n_examples : int, default=5
        Example rows listed per decision (the most suspicious of each).
    n_bins : int, default=20
        Histogram bins over [0, 1].
    max_example_columns : int, default=12
        Most user columns shown in example rows.
    max_feature_columns : int, default=40
        Most user columns whose values are listed with each suspect.
    reason_descriptions : dict of str to str, default=None
        One sentence per reason code, shown next to the reason counts; None
        uses labelclean's own (``DECISION_REASONS``).

    Returns
    -------
    report : dict
        JSON types only (``json.dumps(report, allow_nan=False)`` works). See
        ``docs/audit.md`` for the keys.

    Raises
    ------
    DataValidationError
        If ``audit`` does not follow the audit contract.

    Examples
    --------
    >>> import pandas as pd
    >>> from labelclean.report import build_report
    >>> audit = pd.DataFrame({
    ...     "x": [0.1, 0.2, 0.9],
    ...     "decision": ["kept", "corrected", "discarded"],
    ...     "reason": ["ok", "relabelled", "low_confidence"],
    ...     "observed_label": ["a", "a", "b"],
    ...     "cleaned_label": ["a", "b", None],
    ...     "confidence": [0.9, 0.1, 0.2],
    ... })
    >>> report = build_report(audit)
    >>> report["summary"]["decisions"]
    {'kept': 1, 'corrected': 1, 'discarded': 1}
    >>> [s["row_id"] for s in report["suspects"]["rows"]]
    [1, 2]
    """
    summary = AuditSummary(
        id_column=id_column,
        n_suspects=n_suspects,
        n_examples=n_examples,
        n_bins=n_bins,
        max_example_columns=max_example_columns,
        max_feature_columns=max_feature_columns,
    )
    summary.add(audit)
    return summary.report(
        label=label,
        run=run,
        validation=validation,
        reason_descriptions=reason_descriptions,
    )
