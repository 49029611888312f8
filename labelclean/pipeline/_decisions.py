"""The per-row decisions of a cleaning run: kept, corrected or discarded.

:func:`decide` turns the evidence of the stages into one decision and one
reason code per row. The rule (``docs/decisions.md``):

* **corrected** (``trusted_alternative``): the confidence stage's trusted label
  differs from the observed one, and both the confidence stage and the final
  model's out-of-sample prediction give that same label a probability of at
  least ``correct_threshold`` (with ``require_agreement=False`` the confidence
  stage alone decides);
* **discarded**: the row is a suspect and no alternative is trusted enough.
  A row is a suspect when the final model's out-of-sample probability of its
  observed label is below ``model_threshold`` and either its confidence γ is
  below ``suspect_confidence`` (reason ``low_confidence``) or SPLBoost gave it
  zero weight (reason ``spl_zero_weight``; ``low_confidence_and_spl_zero`` when
  both hold);
* **kept** (``ok``): everything else.
"""

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from labelclean.pipeline._anchor import withheld_cells
from labelclean.pipeline._audit_frame import (
    LABEL_EVIDENCE,
    missing_labels,
    neighbor_counts_json,
    stand_in_labels,
    with_user_columns,
)
from labelclean.pipeline._calibration import Calibration, calibrate, decide_calibrated
from labelclean.pipeline._fit_guardrails import warn_failed_guardrails
from labelclean.pipeline._folds import proba_in_classes
from labelclean.pipeline._known_noise import add_known_noise
from labelclean.pipeline._noise_estimate import closed_classes, new_row_joint
from labelclean.pipeline._outside_fit import keep_far_rows, warn_shifted_features
from labelclean.report import build_report, to_jsonable
from labelclean.report._copies import label_copies
from labelclean.report._row_order import row_orders
from labelclean.utils._audit import label_dtype_with_missing
from labelclean.utils._validation import is_dataframe

__all__ = [
    "Evidence",
    "argmax_keep_observed",
    "check_reviewed",
    "decide",
]


class Evidence:
    """Per-row evidence, as integer class codes and probabilities.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Observed label codes.
    confidence_proba : ndarray of shape (n_samples, n_classes)
        The confidence stage's probability of each class (soft labels).
    model_proba : ndarray of shape (n_samples, n_classes)
        The final model's out-of-sample probability of each class.
    spl_weight : ndarray of shape (n_samples,) or None
        SPLBoost's self-paced weights, when that stage ran.
    known : ndarray of shape (n_samples,), dtype=bool, or None
        Rows whose label a person has confirmed (reviewed rows): kept with
        reason ``reviewed``, never flagged.
    before_review : ndarray of shape (n_samples,) or None
        Every row's label code before the review (``codes`` but for the
        reviewed rows), when known: the noise is estimated on those labels.
    blind_confidence : ndarray of shape (n_samples, n_classes) or None
        The confidence stage's probabilities blind to each row's own label,
        where ``confidence_proba`` is not
        (:attr:`~labelclean.confidence.KNNConfidence.unfiltered_soft_labels_`);
        with the final model's, they read the surest rows of the noise
        estimate a second time
        (:func:`~labelclean.pipeline._noise_estimate.label_blind_evidence`).
    """

    def __init__(
        self,
        codes,
        confidence_proba,
        model_proba,
        spl_weight=None,
        known=None,
        before_review=None,
        blind_confidence=None,
    ):
        self.codes = codes
        self.blind_confidence = blind_confidence
        self.known = known
        self.before_review = before_review
        self.confidence_proba = confidence_proba
        self.model_proba = model_proba
        self.spl_weight = spl_weight
        rows = np.arange(codes.shape[0])
        self.confidence = confidence_proba[rows, codes]
        self.model_probability = model_proba[rows, codes]
        self.trusted = argmax_keep_observed(confidence_proba, codes)
        self.trusted_probability = confidence_proba[rows, self.trusted]
        self.model_label = argmax_keep_observed(model_proba, codes)
        self.model_label_probability = model_proba[rows, self.model_label]

    @property
    def review(self):
        """The reviewed rows and the labels before the review (or Nones)."""
        return self.known, self.before_review


def check_reviewed(reviewed, labels_before_review, classes, codes):
    """The mask of reviewed rows and every row's label code before the review.

    Returns ``(None, None)`` when no row is reviewed; the codes are None when
    ``labels_before_review`` is not given.
    """
    n_samples = codes.shape[0]
    if reviewed is None:
        if labels_before_review is not None:
            raise ValueError("labels_before_review needs reviewed, the rows it is for.")
        return None, None
    mask = np.asarray(reviewed)
    if mask.dtype != bool or mask.shape != (n_samples,):
        raise ValueError(
            f"reviewed must be a boolean array of shape ({n_samples},), one "
            f"entry per row; got dtype {mask.dtype} and shape {mask.shape}."
        )
    if not mask.any():
        return None, None
    if labels_before_review is None:
        return mask, None
    before = np.asarray(labels_before_review, dtype=object)
    if before.shape != (n_samples,):
        raise ValueError(
            f"labels_before_review must have one label per row ({n_samples}); "
            f"got shape {before.shape}."
        )
    lookup = {c: i for i, c in enumerate(classes.tolist())}
    outside = sorted({str(v) for v in before[mask] if v not in lookup})
    if outside:
        raise ValueError(
            f"labels_before_review holds labels y does not: {outside[:5]}; the "
            "noise is estimated over the classes of y."
        )
    before_codes = codes.copy()
    before_codes[mask] = [lookup[v] for v in before[mask]]
    return mask, before_codes


def argmax_keep_observed(proba: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Most probable class per row; a tie with the observed class keeps it."""
    rows = np.arange(codes.shape[0])
    best = proba.max(axis=1)
    out = np.argmax(proba, axis=1)
    tie = np.isclose(proba[rows, codes], best, rtol=0, atol=1e-12)
    out[tie] = codes[tie]
    return out


def decide(
    evidence: Evidence,
    *,
    correct_threshold: float,
    suspect_confidence: float,
    model_threshold: float,
    suspect_zero_weight: bool = True,
    require_agreement: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One decision and reason per row.

    Returns
    -------
    decision : ndarray of str
        ``kept``, ``corrected`` or ``discarded``.
    reason : ndarray of str
        A code of :data:`DECISION_REASONS`.
    new_codes : ndarray of int
        The cleaned label code; -1 for discarded rows.
    """
    ev = evidence
    alternative = (ev.trusted != ev.codes) & (
        ev.trusted_probability >= correct_threshold
    )
    if require_agreement:
        alternative &= (ev.model_label == ev.trusted) & (
            ev.model_label_probability >= correct_threshold
        )
    doubtful = ev.model_probability < model_threshold
    low = (ev.confidence < suspect_confidence) & doubtful
    zero = np.zeros_like(low)
    if suspect_zero_weight and ev.spl_weight is not None:
        zero = (ev.spl_weight <= 0) & doubtful
    suspect = low | zero
    n = ev.codes.shape[0]
    decision = np.full(n, "kept", dtype=object)
    reason = np.full(n, "ok", dtype=object)
    reason[low] = "low_confidence"
    reason[zero] = "spl_zero_weight"
    reason[low & zero] = "low_confidence_and_spl_zero"
    decision[suspect] = "discarded"
    decision[alternative] = "corrected"
    reason[alternative] = "trusted_alternative"
    reason[~suspect & ~alternative] = "ok"
    new_codes = ev.codes.copy()
    new_codes[alternative] = ev.trusted[alternative]
    new_codes[(decision == "discarded")] = -1
    return decision, reason, new_codes


#: The fixed rule's thresholds, used only when a threshold is given
#: explicitly (``docs/decisions.md``, "The fixed rule").
THRESHOLD_DEFAULTS = {"correct_threshold": 0.9, "suspect_confidence": 0.3,
                      "model_threshold": 0.4}  # fmt: skip


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinite floats as None (JSON-ready)."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, float | np.floating):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


def final_model_info(cleaner: Any) -> dict[str, Any] | None:
    """The fitted cleaner's final model and how it was chosen, as JSON types.

    ``{"name": model_name_, "estimator": class name, "selection":
    model_selection_, "fit": final_fit_}``; None for an object without
    ``model_name_`` (e.g. a model file written before the attribute existed).
    """
    name = getattr(cleaner, "model_name_", None)
    if name is None:
        return None
    return {
        "name": name,
        "estimator": type(cleaner.model_).__name__,
        "selection": getattr(cleaner, "model_selection_", None),
        "fit": getattr(cleaner, "final_fit_", None),
    }


class DecisionsMixin:
    """Calibrating and applying the decision rule, and the audit (not public).

    Needs the decision parameters of :class:`~labelclean.pipeline.LabelCleaner`
    and a fitted ``classes_``.
    """

    def _thresholds(self) -> dict[str, float] | None:
        """The fixed rule's thresholds, or None for calibrated decisions."""
        given = {
            name: getattr(self, name)
            for name in THRESHOLD_DEFAULTS
            if getattr(self, name) is not None
        }
        if not given:
            return None
        return {**THRESHOLD_DEFAULTS, **given}

    def _calibrate(self, evidence: Evidence, seed: int) -> None:
        """Estimate the noise and choose the operating point on the fit's rows."""
        calibration = calibrate(
            evidence,
            require_agreement=self.require_agreement,
            target_precision=self.target_precision,
            random_state=seed,
        )
        self.noise_joint_ = calibration.joint
        self.noise_gate_ = calibration.gate
        self.flag_threshold_ = calibration.flag_threshold
        self.correction_thresholds_ = calibration.correction_thresholds
        thresholds = self._thresholds()
        self.decision_rule_ = "calibrated" if thresholds is None else "thresholds"
        summary = dict(calibration.summary)
        labels = [to_jsonable(c) for c in self.classes_]  # JSON keys and values
        summary["classes"] = labels
        # Classes whose labels the gate closed: taken as right, unchecked.
        summary["not_checked"] = closed_classes(calibration.gate, len(labels)).tolist()
        summary["decision_rule"] = self.decision_rule_
        summary["reviewed_rows"] = (
            0 if evidence.known is None else int(evidence.known.sum())
        )
        if thresholds is not None:
            summary["thresholds"] = thresholds
        for pair in summary["correction_pairs"]:
            pair["from"], pair["to"] = labels[pair["from"]], labels[pair["to"]]
        for pair in summary["predictability"].get("pairs", []):
            pair["classes"] = [labels[code] for code in pair["classes"]]
        self.calibration_ = _finite(summary)
        self.noise_rate_ = summary["noise_rate"]
        self.noise_rate_per_class_ = dict(
            zip(labels, summary["noise_rate_per_class"], strict=True)
        )

    def _decide(self, evidence: Evidence, new_rows: bool = False):
        """Decision, reason, new codes and noise probability of each row
        (``new_rows``: rows the fit did not see, judged on
        :func:`new_row_joint`)."""

        # Flags are judged on the evidence tempered as the fit measured, the
        # corrections on the evidence shrunk as it measured and on its
        # correction target (docs/decisions.md); the classes it took as right,
        # and a reading that flags no row, are named in the reasons.
        fitted = getattr(self, "calibration_", {})
        kept = ("temperature", "correction_temperature", "evidence_shrinkage",
                "correction_target", "not_checked", "predictability")  # fmt: skip
        summary = {key: fitted[key] for key in kept if key in fitted}
        joint = self.noise_joint_
        if new_rows and getattr(self, "noise_gate_", None) is not None:
            fitted_rows = sum(fitted.get("rows_per_class", [])) or 1
            closed = withheld_cells(
                fitted.get("flags_against_surest_rows"), joint.shape[0]
            )
            joint = new_row_joint(joint, fitted_rows, self.noise_gate_, closed)
        calibration = Calibration(
            joint,
            self.flag_threshold_,
            self.correction_thresholds_,
            summary,
        )
        decision, reason, new_codes, noise = decide_calibrated(
            evidence, calibration, require_agreement=self.require_agreement
        )
        thresholds = self._thresholds()
        if thresholds is not None:
            decision, reason, new_codes = decide(
                evidence, **thresholds, require_agreement=self.require_agreement
            )
        if evidence.known is not None:  # a person's verdict stands
            decision[evidence.known] = "kept"
            reason[evidence.known] = "reviewed"
            new_codes[evidence.known] = evidence.codes[evidence.known]
        cut = getattr(self, "known_noise_cut_", None) if new_rows else None
        if cut is not None:  # the fit's cut for a known share of wrong labels
            rate = self.known_noise_rate
            return add_known_noise(evidence, (decision, reason, new_codes, noise),
                                   rate, cut)[0]  # fmt: skip
        return decision, reason, new_codes, noise

    def _decide_fitted(self, evidence: Evidence):
        """:meth:`_decide` on the fitted rows, up to a known share of wrong
        labels (:func:`add_known_noise`), with a
        :class:`~labelclean.exceptions.GuardrailWarning` for each output
        guardrail the decisions fail at the shipped limits."""
        rate = getattr(self, "known_noise_rate", None)
        decided, self.known_noise_cut_, info = add_known_noise(
            evidence, self._decide(evidence), rate
        )
        if info is not None:
            self.calibration_["known_noise"] = info
        labels = np.asarray(self.classes_).tolist()  # plain values, as in messages
        calibration = getattr(self, "calibration_", None)
        warn_failed_guardrails(labels, evidence.codes, decided, calibration)
        return decided

    def _audit_frame(
        self, index, y, ev, decided, neighbor_counts, zero_round
    ) -> pd.DataFrame:
        """The audit columns; ``decided`` is what :meth:`_decide` returned."""
        decision, reason, new_codes, noise = decided
        classes = self.classes_
        observed = pd.Series(np.asarray(y), index=index)
        if isinstance(y, pd.Series):
            observed = pd.Series(y.array, index=index, dtype=y.dtype)
        cleaned = observed.astype(label_dtype_with_missing(observed.dtype))
        moved = decision == "corrected"
        cleaned[moved] = classes[new_codes[moved]]
        cleaned = cleaned.where(decision != "discarded")
        frame = pd.DataFrame(
            {
                "decision": pd.Series(decision, index=index, dtype=object),
                "reason": pd.Series(reason, index=index, dtype=object),
                "observed_label": observed,
                "cleaned_label": cleaned,
                "confidence": ev.confidence,
                "trusted_label": pd.Series(classes[ev.trusted], index=index),
                "trusted_probability": ev.trusted_probability,
                "spl_weight": np.nan if ev.spl_weight is None else ev.spl_weight,
                "spl_zero_round": pd.array(
                    [None] * len(index)
                    if zero_round is None
                    else np.where(np.asarray(zero_round) >= 0, zero_round, -1),
                    dtype="Int64",
                ),
                "model_probability": ev.model_probability,
                "model_label": pd.Series(classes[ev.model_label], index=index),
                "neighbor_label_counts": (
                    pd.Series([None] * len(index), index=index, dtype=object)
                    if neighbor_counts is None
                    else neighbor_counts_json(neighbor_counts, classes).set_axis(index)
                ),
                "noise_probability": noise,
            },
            index=index,
        )
        frame["spl_zero_round"] = frame["spl_zero_round"].mask(
            frame["spl_zero_round"] < 0
        )
        for col in ("trusted_label", "model_label"):
            if isinstance(y, pd.Series):
                frame[col] = frame[col].astype(y.dtype)
        return frame

    def audit(
        self, X: ArrayLike, y: ArrayLike, *, user_columns: bool = True,
        check_features: bool = True,
    ) -> pd.DataFrame:  # fmt: skip
        """Decide new labelled rows with the fitted stages (no refitting).

        The confidence of a new row comes from the fitted confidence stage
        (neighbours among the training rows of L_red, or the fitted densities),
        its model probability from the fitted final model, and its SPLBoost
        weight from the fitted SPLBoost ensemble: the self-paced weight its
        regularizer gives the row's loss at the final age
        (:meth:`~labelclean.ensemble.SPLBoostClassifier.self_paced_weights`),
        i.e. whether SPLBoost would have left the row out as a suspect. A
        suspect stage without that method gives no weights, and new rows are
        then judged on the other two. ``spl_zero_round`` stays empty: new rows
        took part in no round.

        Parameters
        ----------
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            New rows with the training columns.
        y : array-like of shape (n_samples,)
            Their observed labels, among ``classes_``. A missing label (None,
            NaN) is allowed: the row is discarded with reason
            ``missing_label``, and only the evidence that does not depend on
            its label is given (``trusted_label``, ``trusted_probability``,
            ``model_label``, ``neighbor_label_counts``: what the fitted
            stages would label it).
        user_columns : bool, default=True
            Start with the rows' own columns, as ``labelclean apply`` writes
            its audit (see :func:`with_user_columns`); False gives the audit
            columns only.
        check_features : bool, default=True
            Warn (``GuardrailWarning``) when a feature column of ``X`` left the
            fit's range: ``labelclean apply``'s ``features_within_fit``. Either
            way, a row with a number farther outside the fit's range than the
            range is wide is kept, with reason ``outside_fit`` (docs/drift.md).

        Returns
        -------
        audit : DataFrame
            The user's columns, then those of
            :data:`~labelclean.report.AUDIT_COLUMNS`, indexed like ``X``.
        """
        check_is_fitted(self)
        raw, Z = self._check_X(X, reset=False)
        if (profile := getattr(self, "feature_profile_", None)) and check_features:
            warn_shifted_features(profile, raw)
        conf = self.confidence_estimator_
        missing = missing_labels(y, Z.shape[0])
        codes = conf._encode_new_labels(
            stand_in_labels(y, missing, self.classes_[0]), Z.shape[0]
        )
        counts = None
        if hasattr(conf, "neighbor_counts") and hasattr(conf, "n_neighbors_"):
            # One neighbour search gives both the evidence counts and the
            # class probabilities (KNNConfidence.predict_proba is counts / k).
            counts = conf.neighbor_counts(raw)
            soft = np.zeros((counts.shape[0], self.classes_.shape[0]))
            cols = np.searchsorted(self.classes_, conf.classes_)
            soft[:, cols] = counts / conf.n_neighbors_
        else:
            soft = proba_in_classes(conf, raw, self.classes_)
            if hasattr(conf, "neighbor_counts"):
                counts = conf.neighbor_counts(raw)
        # the model type the decisions were calibrated on (model_ before the
        # final model was chosen apart from it)
        decider = getattr(self, "decision_model_", self.model_)
        model_proba = self._evidence_proba(decider, Z)
        spl_weight = None
        suspects = self.suspect_estimator_
        if suspects is not None and hasattr(suspects, "self_paced_weights"):
            spl_weight = suspects.self_paced_weights(Z, self._stage_labels(codes))
        evidence = Evidence(codes, soft, model_proba, spl_weight)
        index = X.index if is_dataframe(X) else pd.RangeIndex(Z.shape[0])
        decision, reason, new_codes, noise = keep_far_rows(
            profile, raw, codes, self._decide(evidence, new_rows=True)
        )
        if missing.any():
            decision[missing], reason[missing] = "discarded", "missing_label"
            noise = np.where(missing, np.nan, noise)
        audit = self._audit_frame(
            index, y, evidence, (decision, reason, new_codes, noise), counts, None
        )
        if missing.any():  # evidence about a label the row does not have
            audit.loc[missing, list(LABEL_EVIDENCE)] = np.nan
        return with_user_columns(X, y, audit) if user_columns else audit

    def report(self, **kwargs) -> dict:
        """The report dict (``report.json``) of the training rows' audit.

        Parameters
        ----------
        **kwargs
            Passed to :func:`labelclean.report.build_report`. ``run`` gains a
            ``final_model`` entry (the final model and how it was chosen), a
            ``calibration`` entry (:attr:`calibration_`: the noise
            estimate and how sure the decisions are, the report's first
            lines), ``label_copies`` and ``row_orders`` (feature columns
            that copy the label, or number the rows in an order that
            groups it) unless it has them.

        Returns
        -------
        report : dict
        """
        check_is_fitted(self)
        run = dict(kwargs.pop("run", None) or {})
        run.setdefault("final_model", final_model_info(self))
        run.setdefault("calibration", getattr(self, "calibration_", None))
        features = [str(c) for c in getattr(self, "feature_names_in_", ())]
        run.setdefault("label_copies", label_copies(self.audit_, features))
        run.setdefault("row_orders", row_orders(self.audit_, features))
        return build_report(self.audit_, run=run, **kwargs)
