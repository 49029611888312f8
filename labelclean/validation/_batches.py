"""The input suite over a stream of batches (a parquet input read in parts).

:class:`InputChecks` runs :func:`~labelclean.validation.validate_input` on
the first batch (schema, columns, id) and the row-level label checks on every
batch, and totals the checks that depend on every row, so a streamed input is
held to the same rules as one read whole, in memory bounded by a batch.
"""

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from labelclean.exceptions import DataValidationError
from labelclean.utils._feature_profile import count_outside
from labelclean.utils._labels import spelling_hint
from labelclean.validation._columns import label_text_checks
from labelclean.validation._input import validate_input
from labelclean.validation._label_checks import single_row_check
from labelclean.validation._results import CheckResult, ValidationResult, _plain
from labelclean.validation._shift import feature_shift

__all__ = ["InputChecks"]

#: Checks of the input suite whose value depends on every row; they are
#: totalled over the batches instead of taken from the first batch.
_TOTALLED = (
    "has_rows",
    "label_not_null",
    "label_in_domain",
    "at_least_two_classes",
    "no_single_row_class",
    "label_placeholders",
    "label_variants",
    "feature_not_constant",
    "features_vary",
)


@dataclass
class InputChecks:
    """The input suite over a stream of batches.

    The first batch gets the whole input suite
    (:func:`~labelclean.validation.validate_input`): schema, columns, id.
    Every batch then gets the row-level label checks, and the checks that
    depend on every row (:data:`_TOTALLED`) are reported from the totals. A
    batch with a label outside ``classes`` stops the run with
    :class:`~labelclean.exceptions.DataValidationError`, as the whole-input
    suite would; rows without a label are counted (``missing_labels``) and
    discarded by the run. The id column is checked for uniqueness within
    each batch only (checking it across batches would take memory growing
    with the input). Given the fit's ``feature_profile`` (``apply``), each
    batch's feature values outside it are counted too, and :meth:`shift`
    compares their totals with the fit's (``features_within_fit``).
    With ``fitted_features`` (``apply``) the features are a fitted model's,
    and an unusable column is to be mended, not excluded.
    """

    label: str
    features: list[str]
    classes: list[Any]
    id_column: str | None = None
    reserved_columns: tuple[str, ...] = ()
    max_examples: int = 10
    n_rows: int = 0
    missing_labels: int = 0
    class_counts: dict[Any, int] = field(default_factory=dict)
    missing_counts: dict[str, int] = field(default_factory=dict)
    feature_profile: dict[str, dict[str, Any]] | None = None
    outside_counts: dict[str, list[int]] = field(default_factory=dict)
    first: Any = None
    fitted_features: bool = False

    def add(self, frame: pd.DataFrame) -> None:
        """Check one batch; raise on a failure."""
        if self.first is None:
            result = validate_input(
                frame,
                label=self.label,
                features=self.features,
                id_column=self.id_column,
                label_domain=self.classes,
                reserved_columns=self.reserved_columns,
                max_examples=self.max_examples,
                fitted_features=self.fitted_features,
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
        self.missing_labels += int(missing.sum())  # discarded, not refused
        outside = ~labels.isin(self.classes) & ~missing
        if outside.any():
            bad = pd.unique(labels[outside])[:5].tolist()
            raise DataValidationError(
                f"the input failed validation: {int(outside.sum())} row(s) have a "
                f"label outside the fitted classes {self.classes!r}, e.g. {bad!r}"
                f"{spelling_hint(bad, self.classes)}; relabel those rows (a "
                "missing label is discarded as missing_label), or fit a new "
                "model on data that has them (labelclean run)."
            )
        for value, n in labels.value_counts(sort=False).items():
            self.class_counts[value] = self.class_counts.get(value, 0) + int(n)
        for column, n in frame[self.features].isna().sum().items():
            if n:
                key = str(column)
                self.missing_counts[key] = self.missing_counts.get(key, 0) + int(n)
        if self.feature_profile is not None:
            counts = count_outside(self.feature_profile, frame[self.features])
            _add_counts(self.outside_counts, counts)
        self.n_rows += len(frame)

    def fresh(self) -> "InputChecks":
        """A new, empty set of checks with the same columns and classes (for
        one partition, merged back with :meth:`merge`)."""
        return InputChecks(
            label=self.label,
            features=list(self.features),
            classes=list(self.classes),
            id_column=self.id_column,
            reserved_columns=self.reserved_columns,
            max_examples=self.max_examples,
            feature_profile=self.feature_profile,
            fitted_features=self.fitted_features,
        )

    def merge(self, other: "InputChecks") -> None:
        """Add the totals of another batch's checks (the first batch's suite
        is kept)."""
        if self.first is None:
            self.first = other.first
        self.n_rows += other.n_rows
        self.missing_labels += other.missing_labels
        for value, n in other.class_counts.items():
            self.class_counts[value] = self.class_counts.get(value, 0) + n
        for column, n in other.missing_counts.items():
            self.missing_counts[column] = self.missing_counts.get(column, 0) + n
        _add_counts(self.outside_counts, other.outside_counts)

    def shift(self) -> dict[str, Any] | None:
        """The report's ``run.feature_shift`` over every batch
        (:func:`~labelclean.validation._shift.feature_shift`); None without
        the fit's ``feature_profile``."""
        if self.feature_profile is None:
            return None
        return feature_shift(self.feature_profile, self.outside_counts)

    def result(self) -> Any:
        """The input suite's result over every batch."""
        kept = [] if self.first is None else list(self.first.checks)
        checks = [c for c in kept if c.name not in _TOTALLED]
        n_classes = len(self.class_counts)
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
                success=not self.missing_labels,
                severity="warning",
                column=self.label,
                engine="pandas",
                unexpected_count=self.missing_labels,
                message=(
                    f"{self.missing_labels} row(s) have no label in {self.label!r}; "
                    "they are discarded (reason missing_label)."
                    if self.missing_labels
                    else "every row has a label."
                ),
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
            single_row_check(
                self.class_counts, self.label, self.max_examples, fitted=False
            ),
        ]
        checks += label_text_checks(self.class_counts, self.label, self.max_examples)
        return ValidationResult("labelclean_input", checks)


def _add_counts(total: dict[str, list[int]], counts: dict[str, list[int]]) -> None:
    """Add per-column counts (lists of equal length) into ``total``."""
    for column, values in counts.items():
        before = total.get(column, [0] * len(values))
        total[column] = [a + b for a, b in zip(before, values, strict=True)]
