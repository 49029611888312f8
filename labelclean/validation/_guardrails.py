"""The output guardrails: limits on how much a run may change, in one place.

A cleaning run can harm the data by discarding too many rows, by discarding
or relabelling most of one class, by flagging far more rows than the
estimated noise explains, or by emptying a class. :func:`guardrail_checks`
computes every limit from an :class:`~labelclean.report.AuditSummary` (counts
per observed label, cleaned label and decision), so every engine, and
:func:`~labelclean.validation.validate_output` on a whole audit, gets the
same checks from the same arithmetic.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from labelclean.validation._results import CheckResult, _plain

__all__ = ["all_classes_present_check", "change_checks", "guardrail_checks"]

#: The flagged share may exceed the upper end of the estimated noise rate's
#: interval by this factor (plus one point) before the run is called suspect.
FLAGGED_OVER_NOISE = 1.5


def change_checks(
    counts: Mapping[Any, Mapping[str, int]],
    *,
    max_changed_share_per_class: float,
    calibration: Mapping[str, Any] | None = None,
    max_examples: int = 10,
) -> list[CheckResult]:
    """``class_net_change`` and, with a calibration, ``flagged_vs_noise``.

    Parameters
    ----------
    counts : mapping
        The summary's ``class_counts()``: per observed class ``n_observed``,
        ``discarded`` and ``corrected_out``.
    max_changed_share_per_class : float
        Largest share of a class's rows that may leave it, discarded or
        corrected into another class.
    calibration : mapping, default=None
        The fitted cleaner's ``calibration_`` (``noise_rate`` and its
        interval); without it only the per-class check runs.
    max_examples : int, default=10
        Most classes named as examples.

    Returns
    -------
    checks : list of CheckResult
    """
    shares, rates = {}, _class_noise(calibration)
    for label, row in sorted(counts.items(), key=lambda kv: str(kv[0])):
        n = row.get("n_observed", 0)
        if n:
            moved = row.get("discarded", 0) + row.get("corrected_out", 0)
            shares[label] = (moved / n, moved, n)
    over = [
        k for k, (s, _, _) in shares.items() if s > max_changed_share_per_class + 1e-12
    ]
    checks = [
        CheckResult(
            name="class_net_change",
            description=(
                f"at most {max_changed_share_per_class:.1%} of each class is "
                "discarded or corrected into another class"
            ),
            success=not over,
            column="observed_label",
            engine="pandas",
            unexpected_count=len(over),
            examples=[_plain(k) for k in over[:max_examples]],
            message=(
                "class(es) "
                + ", ".join(
                    f"{_plain(k)!r} ({shares[k][1]} of {shares[k][2]}, "
                    f"{shares[k][0]:.1%}{_class_noise_text(rates, k)})"
                    for k in over[:5]
                )
                + f" lost more than {max_changed_share_per_class:.1%} of their rows "
                "to discards and corrections; the evidence may not tell these "
                "classes apart, or most of their labels may be wrong: inspect them."
                if over
                else "no class lost more than the allowed share to discards and "
                "corrections."
            ),
            details={
                "limit": max_changed_share_per_class,
                "shares": {str(k): v[0] for k, v in shares.items()},
            },
        )
    ]
    if calibration and calibration.get("noise_rate") is not None:
        checks.append(_flagged_vs_noise_check(shares, calibration))
    return checks


def all_classes_present_check(
    required: Sequence[Any],
    present: Any,
    *,
    require_all_classes: bool = True,
    max_examples: int = 10,
) -> CheckResult:
    """The ``all_classes_present`` guardrail: every class keeps a cleaned row.

    Parameters
    ----------
    required : sequence
        Classes that must survive cleaning.
    present : container
        Labels present in the cleaned output.
    require_all_classes : bool, default=True
        A missing class is an error (else a warning).
    max_examples : int, default=10
        Most missing classes listed as examples.

    Returns
    -------
    check : CheckResult
    """
    absent = [c for c in required if c not in present]
    try:
        absent = sorted(absent)
    except TypeError:
        absent = sorted(absent, key=str)
    return CheckResult(
        name="all_classes_present",
        description="every class still has rows in the cleaned output",
        success=not absent,
        severity="error" if require_all_classes else "warning",
        column="cleaned_label",
        engine="pandas",
        unexpected_count=len(absent),
        examples=[_plain(v) for v in absent[:max_examples]],
        message=(
            f"class(es) {[_plain(v) for v in absent[:5]]} have no row left in the "
            "cleaned output; check the thresholds."
            if absent
            else "every class is still present."
        ),
        details={"classes": [_plain(v) for v in required]},
    )


def guardrail_checks(
    summary: Any,
    *,
    classes: Sequence[Any] | None = None,
    max_discarded_share: float = 0.5,
    max_discarded_share_per_class: float | None = None,
    require_all_classes: bool = True,
    max_changed_share_per_class: float | None = None,
    calibration: Mapping[str, Any] | None = None,
    max_examples: int = 10,
) -> list[CheckResult]:
    """Every output guardrail, from an audit's summary.

    Parameters
    ----------
    summary : AuditSummary
        The run's audit, summarised.
    classes : sequence, default=None
        Classes that must survive cleaning; None uses the observed ones.
    max_discarded_share : float, default=0.5
        Largest share of all rows that may be discarded.
    max_discarded_share_per_class : float, default=None
        Largest share of one observed class that may be discarded; None uses
        ``max_discarded_share``.
    require_all_classes : bool, default=True
        Fail when a class has no row left in the cleaned output (a warning
        when false).
    max_changed_share_per_class : float, default=None
        Largest share of one observed class that may be discarded or
        corrected into another class; None uses
        ``max_discarded_share_per_class``.
    calibration : mapping, default=None
        The fitted cleaner's ``calibration_``; adds ``flagged_vs_noise``.
    max_examples : int, default=10
        Most examples (row ids or classes) per check.

    Returns
    -------
    checks : list of CheckResult
        ``discarded_share``, ``discarded_share_per_class``,
        ``class_net_change``, ``flagged_vs_noise`` (with a calibration),
        ``all_classes_present``.
    """
    if max_discarded_share_per_class is None:
        max_discarded_share_per_class = max_discarded_share
    for name, value in [
        ("max_discarded_share", max_discarded_share),
        ("max_discarded_share_per_class", max_discarded_share_per_class),
    ]:
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {value!r}.")
    per_class = summary.class_counts()
    checks = [
        _discarded_share_check(summary, max_discarded_share, max_examples),
        _per_class_check(
            per_class, max_discarded_share_per_class, max_examples, calibration
        ),
        *change_checks(
            per_class,
            max_changed_share_per_class=(
                max_discarded_share_per_class
                if max_changed_share_per_class is None
                else max_changed_share_per_class
            ),
            calibration=calibration,
            max_examples=max_examples,
        ),
    ]
    required = list(per_class) if classes is None else list(classes)
    checks.append(
        all_classes_present_check(
            required,
            summary.cleaned_labels(),
            require_all_classes=require_all_classes,
            max_examples=max_examples,
        )
    )
    return checks


def _discarded_share_check(
    summary: Any, limit: float, max_examples: int
) -> CheckResult:
    # Rows without a label are discarded whatever the evidence: they are not
    # decisions on labels, so they count on neither side of the share.
    unlabelled = getattr(summary, "missing_labels", 0)
    n = summary.n_rows - unlabelled
    n_disc = summary.decisions["discarded"] - unlabelled
    share = n_disc / n if n else 0.0
    ok = share <= limit + 1e-12
    return CheckResult(
        name="discarded_share",
        description=f"at most {limit:.1%} of rows are discarded",
        success=ok,
        column="decision",
        engine="pandas",
        unexpected_count=n_disc,
        unexpected_percent=100.0 * share if n else None,
        examples=[_plain(v) for v in summary.example_ids("discarded")[:max_examples]],
        message=(
            f"{n_disc} of {n} rows ({share:.1%}) were discarded"
            + (f" ({unlabelled} rows without a label aside)" if unlabelled else "")
            + (
                f", at most {limit:.1%} allowed."
                if ok
                else f", more than the {limit:.1%} allowed; check the data or "
                "raise the limit."
            )
        ),
        details={"limit": limit, "share": share},
    )


def _per_class_check(
    per_class: Mapping[Any, Mapping[str, int]],
    limit: float,
    max_examples: int,
    calibration: Mapping[str, Any] | None = None,
) -> CheckResult:
    rates = _class_noise(calibration)
    shares = {
        k: v["discarded"] / v["n_observed"]
        for k, v in sorted(per_class.items(), key=lambda kv: str(kv[0]))
    }
    over = [k for k, s in shares.items() if s > limit + 1e-12]
    return CheckResult(
        name="discarded_share_per_class",
        description=f"at most {limit:.1%} of each class is discarded",
        success=not over,
        column="observed_label",
        engine="pandas",
        unexpected_count=len(over),
        examples=[_plain(v) for v in over[:max_examples]],
        message=(
            "class(es) "
            + ", ".join(
                f"{_plain(k)!r} ({shares[k]:.1%} of {per_class[k]['n_observed']}"
                f"{_class_noise_text(rates, k)})"
                for k in over[:5]
            )
            + f" lost more than {limit:.1%} to discards."
            if over
            else "no class lost more than the allowed share."
        ),
        details={
            "limit": limit,
            "shares": {str(k): float(v) for k, v in shares.items()},
        },
    )


def _class_noise(calibration: Mapping[str, Any] | None) -> dict[str, float]:
    """Each class's estimated share of wrong labels, by its label as text."""
    if not calibration:
        return {}
    return dict(
        zip(
            map(str, calibration.get("classes") or []),
            calibration.get("noise_rate_per_class") or [],
            strict=False,
        )
    )


def _class_noise_text(rates: Mapping[str, float], label: Any) -> str:
    """'; estimated 71.0% of its labels wrong' from :func:`_class_noise`."""
    rate = rates.get(str(_plain(label)))
    return "" if rate is None else f"; estimated {rate:.1%} of its labels wrong"


def _flagged_vs_noise_check(
    shares: dict, calibration: Mapping[str, Any]
) -> CheckResult:
    """``flagged_vs_noise``: the flagged share against the estimated noise."""
    n_rows = sum(v[2] for v in shares.values())
    flagged = sum(v[1] for v in shares.values())
    share = flagged / n_rows if n_rows else 0.0
    interval = calibration.get("noise_rate_interval") or [None, None]
    upper = interval[1] if interval[1] is not None else calibration["noise_rate"]
    # a share of wrong labels the run was told (``known_noise_rate``) is noise
    # it may flag, whatever the estimate
    told = (calibration.get("known_noise") or {}).get("rate")
    limit = FLAGGED_OVER_NOISE * (upper if told is None else max(upper, told))
    limit = min(1.0, limit + 0.01)
    ok = share <= limit + 1e-12
    return CheckResult(
        name="flagged_vs_noise",
        description=(
            "the share of rows discarded or corrected stays near the "
            "estimated share of wrong labels"
        ),
        success=ok,
        column="decision",
        engine="pandas",
        unexpected_count=flagged,
        unexpected_percent=100.0 * share,
        message=(
            f"{flagged} of {n_rows} rows ({share:.1%}) were discarded or "
            f"corrected; the estimated noise is "
            f"{calibration['noise_rate']:.1%} (up to {upper:.1%}"
            + ("" if told is None else f", or the {told:.1%} the run was told")
            + f"), limit {limit:.1%}"
            + ("." if ok else "; the decisions flag more than the noise explains.")
        ),
        details={
            "share": share,
            "limit": limit,
            "noise_rate": calibration["noise_rate"],
        },
    )
