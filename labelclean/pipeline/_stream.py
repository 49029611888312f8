"""Deciding rows batch by batch with a fitted pipeline, in bounded memory.

The pieces every engine shares (the single-machine stream of
:func:`~labelclean.pipeline.apply_model` and
:func:`~labelclean.pipeline.run_pipeline`, and the Dask engine of
:mod:`labelclean.pipeline._dask`):

* :func:`decide_frame`: one batch (or partition) in, its audit rows and
  cleaned rows out, by :meth:`LabelCleaner.audit` -- the same code whatever
  the engine, so every engine decides every row identically;
* :class:`InputChecks`: the input suite run on the first batch, and the
  row-level label checks (missing, outside the fitted classes) on every batch,
  totalled;
* :func:`output_checks`: the output guardrails computed from an
  :class:`~labelclean.report.AuditSummary` instead of the whole audit;
* :func:`stream_decide`: read a parquet source with
  :func:`~labelclean.io.iter_batches`, decide each batch, append it to the
  audit and cleaned files with :class:`~labelclean.io.ParquetBatchWriter`,
  and fold it into the summary, reading the next batch and writing the
  previous one while it decides. Memory holds a few batches, the fitted
  pipeline and the summary, whatever the number of rows.
"""

from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from joblib import effective_n_jobs

from labelclean.exceptions import DataValidationError
from labelclean.utils._threads import one_openmp_thread

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "InputChecks",
    "StreamOutcome",
    "decide_frame",
    "output_checks",
    "stream_decide",
]

#: Rows per batch of the streaming engine.
DEFAULT_BATCH_SIZE = 65_536

#: Checks of the input suite whose value depends on every row; they are
#: totalled over the batches instead of taken from the first batch.
_TOTALLED = (
    "has_rows",
    "label_not_null",
    "label_in_domain",
    "at_least_two_classes",
    "no_single_row_class",
    "feature_not_constant",
)


def _missing_value_dtype(dtype: Any) -> Any:
    """The dtype a column of ``dtype`` takes once it holds a missing value."""
    return pd.Series([], dtype=dtype).reindex([0]).dtype


def decide_frame(
    cleaner: Any, frame: pd.DataFrame, *, label: str, features: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Decide the rows of one batch with a fitted :class:`LabelCleaner`.

    Parameters
    ----------
    cleaner : LabelCleaner
        Fitted pipeline; not refitted.
    frame : pandas.DataFrame
        Rows with the training feature columns and a label column.
    label : str
        The label column.
    features : list of str
        The feature columns the cleaner was fitted with.

    Returns
    -------
    audit : pandas.DataFrame
        ``frame``'s columns followed by the audit columns, one row per row of
        ``frame``, same index. ``cleaned_label`` always has the dtype the label
        takes with missing values, so every batch has the same schema.
    cleaned : pandas.DataFrame
        ``frame``'s kept and corrected rows, with the cleaned labels.
    """
    from labelclean.pipeline._run import _cleaned_frame

    audit_cols = cleaner.audit(frame[features], frame[label])
    audit_cols["cleaned_label"] = audit_cols["cleaned_label"].astype(
        _missing_value_dtype(audit_cols["observed_label"].dtype)
    )
    audit = pd.concat([frame, audit_cols], axis=1)
    return audit, _cleaned_frame(frame, audit_cols, label)


@dataclass
class InputChecks:
    """The input suite over a stream of batches.

    The first batch gets the whole input suite
    (:func:`~labelclean.validation.validate_input`): schema, columns, id.
    Every batch then gets the row-level label checks, and the checks that
    depend on every row (:data:`_TOTALLED`) are reported from the totals. A
    batch with a missing label or a label outside ``classes`` stops the run
    with :class:`~labelclean.exceptions.DataValidationError`, as the
    whole-input suite would. The id column is checked for uniqueness within
    each batch only (checking it across batches would take memory growing
    with the input).
    """

    label: str
    features: list[str]
    classes: list[Any]
    id_column: str | None = None
    reserved_columns: tuple[str, ...] = ()
    max_examples: int = 10
    n_rows: int = 0
    class_counts: dict[Any, int] = field(default_factory=dict)
    missing_counts: dict[str, int] = field(default_factory=dict)
    first: Any = None

    def add(self, frame: pd.DataFrame) -> None:
        """Check one batch; raise on a failure."""
        from labelclean.validation import validate_input

        if self.first is None:
            result = validate_input(
                frame,
                label=self.label,
                features=self.features,
                id_column=self.id_column,
                label_domain=self.classes,
                reserved_columns=self.reserved_columns,
                max_examples=self.max_examples,
            )
            failed = [
                c
                for c in result.failures
                if c.name not in _TOTALLED and c.severity == "error"
            ]
            if failed:
                raise DataValidationError(
                    "the input failed validation: "
                    + "; ".join(c.message or c.name for c in failed)
                )
            self.first = result
        elif self.id_column is not None:
            dup = frame[self.id_column].duplicated(keep=False)
            if dup.any():
                raise DataValidationError(
                    f"the input failed validation: id column {self.id_column!r} "
                    f"repeats values, e.g. {frame.loc[dup, self.id_column].head(3)!r}."
                )
        labels = frame[self.label]
        missing = labels.isna()
        if missing.any():
            raise DataValidationError(
                f"the input failed validation: {int(missing.sum())} row(s) have no "
                f"label in {self.label!r} (batch from row {self.n_rows}); drop or "
                "label them first."
            )
        outside = ~labels.isin(self.classes)
        if outside.any():
            bad = pd.unique(labels[outside])[:5].tolist()
            raise DataValidationError(
                f"the input failed validation: {int(outside.sum())} row(s) have a "
                f"label outside the fitted classes {self.classes!r}, e.g. {bad!r}; "
                "relabel those rows, or fit a new model on data that has them "
                "(labelclean run)."
            )
        for value, n in labels.value_counts(sort=False).items():
            self.class_counts[value] = self.class_counts.get(value, 0) + int(n)
        for column, n in frame[self.features].isna().sum().items():
            if n:
                key = str(column)
                self.missing_counts[key] = self.missing_counts.get(key, 0) + int(n)
        self.n_rows += len(frame)

    def merge(self, other: "InputChecks") -> None:
        """Add the totals of another batch's checks (the first batch's suite
        is kept)."""
        if self.first is None:
            self.first = other.first
        self.n_rows += other.n_rows
        for value, n in other.class_counts.items():
            self.class_counts[value] = self.class_counts.get(value, 0) + n
        for column, n in other.missing_counts.items():
            self.missing_counts[column] = self.missing_counts.get(column, 0) + n

    def result(self) -> Any:
        """The input suite's result over every batch."""
        from labelclean.validation._results import (
            CheckResult,
            ValidationResult,
            _plain,
        )

        kept = [] if self.first is None else list(self.first.checks)
        checks = [c for c in kept if c.name not in _TOTALLED]
        n_classes = len(self.class_counts)
        single = [k for k, v in self.class_counts.items() if v == 1]
        checks += [
            CheckResult(
                name="has_rows",
                description="the input has at least one row",
                success=self.n_rows > 0,
                engine="pandas",
                message=f"{self.n_rows} rows.",
            ),
            CheckResult(
                name="label_not_null",
                description=f"every row has a label in {self.label!r}",
                success=True,
                column=self.label,
                engine="pandas",
                unexpected_count=0,
                message="every row has a label.",
            ),
            CheckResult(
                name="label_in_domain",
                description=f"labels lie in {[_plain(v) for v in self.classes]}",
                success=True,
                column=self.label,
                engine="pandas",
                unexpected_count=0,
                message="every label lies in the expected domain.",
            ),
            CheckResult(
                name="at_least_two_classes",
                description="the labels hold at least two classes",
                success=n_classes >= 2,
                column=self.label,
                engine="pandas",
                message=(
                    f"{n_classes} classes."
                    if n_classes >= 2
                    else f"{n_classes} class(es) in {self.label!r}."
                ),
                details={
                    "class_counts": {
                        str(k): int(v) for k, v in sorted(self.class_counts.items())
                    }
                },
            ),
            CheckResult(
                name="no_single_row_class",
                description="every class has at least two rows",
                success=not single,
                severity="warning",
                column=self.label,
                engine="pandas",
                unexpected_count=len(single),
                examples=[_plain(v) for v in single[: self.max_examples]],
                message=(
                    f"class(es) {[_plain(v) for v in single[:5]]} have a single row."
                    if single
                    else "every class has at least two rows."
                ),
            ),
        ]
        return ValidationResult("labelclean_input", checks)


def output_checks(
    summary: Any,
    *,
    max_discarded_share: float = 0.5,
    max_discarded_share_per_class: float | None = None,
    require_all_classes: bool = True,
    max_changed_share_per_class: float | None = None,
    calibration: Any = None,
) -> Any:
    """The output guardrails of :func:`~labelclean.validation.validate_output`,
    from an :class:`~labelclean.report.AuditSummary`.

    Same check names, limits and arithmetic; computed from the summary's
    counts, so the checks carry no example row ids.

    Returns
    -------
    result : ValidationResult
    """
    from labelclean.validation._change import change_checks
    from labelclean.validation._expectations import all_classes_present_check
    from labelclean.validation._results import CheckResult, ValidationResult, _plain

    if max_discarded_share_per_class is None:
        max_discarded_share_per_class = max_discarded_share
    checks = [
        CheckResult(
            name="audit_columns_present",
            description="the audit has the columns "
            "['decision', 'observed_label', 'cleaned_label']",
            success=True,
            engine="schema",
            unexpected_count=0,
            message="the audit has its decision columns.",
        ),
        CheckResult(
            name="decision_known",
            description="every decision is one of ['kept', 'corrected', 'discarded']",
            success=True,
            column="decision",
            engine="pandas",
            unexpected_count=0,
            message="every decision is known.",
        ),
    ]
    for column, dist in summary._dists.items():
        bad = dist.n_outside
        checks.append(
            CheckResult(
                name="probability_in_unit_interval",
                description=f"{column!r} lies in [0, 1]",
                success=bad == 0,
                column=column,
                engine="pandas",
                unexpected_count=bad,
                message=(
                    f"{bad} value(s) of {column!r} lie outside [0, 1]."
                    if bad
                    else f"every {column!r} value lies in [0, 1]."
                ),
            )
        )
    n = summary.n_rows
    n_disc = summary.decisions["discarded"]
    share = n_disc / n if n else 0.0
    ok = share <= max_discarded_share + 1e-12
    checks.append(
        CheckResult(
            name="discarded_share",
            description=f"at most {max_discarded_share:.1%} of rows are discarded",
            success=ok,
            column="decision",
            engine="pandas",
            unexpected_count=n_disc,
            unexpected_percent=100.0 * share if n else None,
            message=(
                f"{n_disc} of {n} rows ({share:.1%}) were discarded"
                + (
                    f", at most {max_discarded_share:.1%} allowed."
                    if ok
                    else f", more than the {max_discarded_share:.1%} allowed; check "
                    "the data or raise the limit."
                )
            ),
            details={"limit": max_discarded_share, "share": share},
        )
    )
    per_class = summary.class_counts()
    shares = {
        k: v["discarded"] / v["n_observed"]
        for k, v in sorted(per_class.items(), key=lambda kv: str(kv[0]))
    }
    over = [k for k, s in shares.items() if s > max_discarded_share_per_class + 1e-12]
    checks.append(
        CheckResult(
            name="discarded_share_per_class",
            description=(
                f"at most {max_discarded_share_per_class:.1%} of each class is "
                "discarded"
            ),
            success=not over,
            column="observed_label",
            engine="pandas",
            unexpected_count=len(over),
            examples=[_plain(v) for v in over[:10]],
            message=(
                "class(es) "
                + ", ".join(
                    f"{_plain(k)!r} ({shares[k]:.1%} of {per_class[k]['n_observed']})"
                    for k in over[:5]
                )
                + f" lost more than {max_discarded_share_per_class:.1%} to discards."
                if over
                else "no class lost more than the allowed share."
            ),
            details={
                "limit": max_discarded_share_per_class,
                "shares": {str(k): float(v) for k, v in shares.items()},
            },
        )
    )
    checks.extend(
        change_checks(
            per_class,
            max_changed_share_per_class=(
                max_discarded_share_per_class
                if max_changed_share_per_class is None
                else max_changed_share_per_class
            ),
            calibration=calibration,
        )
    )
    checks.append(
        all_classes_present_check(
            list(per_class),
            summary.cleaned_labels(),
            require_all_classes=require_all_classes,
        )
    )
    return ValidationResult("labelclean_output", checks)


@dataclass
class StreamOutcome:
    """What :func:`stream_decide` did."""

    summary: Any
    input_checks: InputChecks
    n_batches: int


def stream_decide(
    cleaner: Any,
    source: Any,
    folder: Any,
    *,
    label: str,
    features: list[str],
    id_column: str | None,
    names: dict[str, str],
    metadata: dict[str, Any] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    reserved_columns: tuple[str, ...] = (),
    progress: Any = None,
    fit_positions: np.ndarray | None = None,
    fit_audit: pd.DataFrame | None = None,
    n_jobs: int | None = None,
) -> StreamOutcome:
    """Decide every row of ``source`` batch by batch into ``folder``.

    Parameters
    ----------
    cleaner : LabelCleaner
        Fitted pipeline.
    source : ParquetSource
        The input (:func:`~labelclean.io.inspect_parquet`).
    folder : OutputFolder
        Open output folder; ``names['audit']`` and ``names['cleaned']`` are
        written into it, one batch at a time. Both files keep the input's
        index as a stored index column, so every output row names its input
        row.
    label, features, id_column : str, list of str, str or None
        Columns, as at fit time.
    names : dict
        Output file names (keys ``'audit'`` and ``'cleaned'``).
    metadata : dict, default=None
        labelclean metadata stored in both files.
    batch_size : int, default=DEFAULT_BATCH_SIZE
        Most rows per batch.
    reserved_columns : tuple of str, default=()
        Column names the input must not use (the audit's).
    progress : callable, default=None
        Called with the number of rows of each finished batch.
    fit_positions : ndarray of int, default=None
        Sorted positions (in the whole source) of the rows the cleaner was
        fitted on, when it was fitted on a sample. Those rows are not asked
        again (a training row would be its own nearest neighbour); they keep
        their fit-time decision and evidence, ``fit_audit``.
    fit_audit : DataFrame, default=None
        ``cleaner.audit_``, row ``i`` for position ``fit_positions[i]``.
    n_jobs : int, default=None
        Batches decided at once, each on one thread (joblib's convention:
        None is 1, -1 every processor). Memory holds ``n_jobs + 2`` batches.
        The outputs do not depend on it.

    Returns
    -------
    outcome : StreamOutcome
    """
    from labelclean.io import iter_batches
    from labelclean.report import AuditSummary

    checks = InputChecks(
        label=label,
        features=list(features),
        classes=cleaner.classes_.tolist(),
        id_column=id_column,
        reserved_columns=tuple(reserved_columns),
    )
    summary = AuditSummary(id_column=id_column)
    n_batches = 0
    with (
        folder.parquet_writer(
            names["audit"], metadata=metadata, preserve_index=True
        ) as audit_writer,
        folder.parquet_writer(
            names["cleaned"], metadata=metadata, preserve_index=True
        ) as cleaned_writer,
    ):

        def write(audit: pd.DataFrame, cleaned: pd.DataFrame) -> None:
            audit_writer.write(audit)
            cleaned_writer.write(cleaned)
            summary.add(audit)
            if progress is not None:
                progress(len(audit))

        def decide(frame: pd.DataFrame, offset: int) -> tuple[Any, Any]:
            with one_openmp_thread(n_workers > 1):
                if fit_positions is None:
                    return decide_frame(cleaner, frame, label=label, features=features)
                return _decide_with_fitted(
                    cleaner, frame, offset, fit_positions, fit_audit, label, features
                )

        # Batches in flight: the next one is read, up to ``n_workers`` are
        # decided (each on one thread; the neighbour search and the boosting
        # kernels run without the GIL), and the previous one is written and
        # folded into the summary, all at once. Each batch is decided on its
        # own, so the threads change no output; batches are checked, decided
        # and written in input order.
        n_workers = effective_n_jobs(n_jobs)
        batches = iter_batches(source, batch_size=batch_size, row_id=None)
        decided: deque = deque()
        written = None

        def write_done(limit: int) -> None:
            nonlocal written
            while len(decided) > limit:
                audit, cleaned = decided.popleft().result()
                if written is not None:
                    written.result()
                written = writer.submit(write, audit, cleaned)

        with (
            ThreadPoolExecutor(1, thread_name_prefix="labelclean-read") as reader,
            ThreadPoolExecutor(n_workers, thread_name_prefix="labelclean") as deciders,
            ThreadPoolExecutor(1, thread_name_prefix="labelclean-write") as writer,
        ):
            next_frame = reader.submit(next, batches, None)
            offset = 0
            while (frame := next_frame.result()) is not None:
                next_frame = reader.submit(next, batches, None)
                checks.add(frame)
                decided.append(deciders.submit(decide, frame, offset))
                offset += len(frame)
                n_batches += 1
                write_done(n_workers - 1)
            write_done(0)
            if written is not None:
                written.result()
    return StreamOutcome(summary=summary, input_checks=checks, n_batches=n_batches)


def _decide_with_fitted(
    cleaner, frame, offset, fit_positions, fit_audit, label, features
):
    """:func:`decide_frame`, except for the rows the cleaner was fitted on."""
    from labelclean.pipeline._run import _cleaned_frame

    n = len(frame)
    lo, hi = np.searchsorted(fit_positions, [offset, offset + n])
    inside = np.zeros(n, dtype=bool)
    inside[fit_positions[lo:hi] - offset] = True
    if not inside.any():
        return decide_frame(cleaner, frame, label=label, features=features)
    parts = []
    if (~inside).any():
        rest = frame.loc[~inside]
        cols = cleaner.audit(rest[features], rest[label])
        parts.append(cols)
    fitted = fit_audit.iloc[lo:hi].set_axis(frame.index[inside])
    parts.append(fitted)
    audit_cols = pd.concat(parts) if len(parts) > 1 else parts[0]
    audit_cols = audit_cols.reindex(frame.index)
    audit_cols["cleaned_label"] = audit_cols["cleaned_label"].astype(
        _missing_value_dtype(frame[label].dtype)
    )
    audit_cols["spl_zero_round"] = audit_cols["spl_zero_round"].astype("Int64")
    audit = pd.concat([frame, audit_cols], axis=1)
    return audit, _cleaned_frame(frame, audit_cols, label)


def read_rows(source: Any, positions: np.ndarray, batch_size: int) -> pd.DataFrame:
    """The rows at sorted ``positions`` of ``source``, read batch by batch."""
    from labelclean.io import iter_batches

    parts = []
    offset = 0
    for frame in iter_batches(source, batch_size=batch_size, row_id=None):
        n = len(frame)
        lo, hi = np.searchsorted(positions, [offset, offset + n])
        if hi > lo:
            parts.append(frame.iloc[positions[lo:hi] - offset])
        offset += n
    return pd.concat(parts) if len(parts) > 1 else parts[0]
