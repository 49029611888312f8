"""Does reviewing the exported rows clean more than reviewing random suspects?

For scikit-learn's breast_cancer, wine and digits (the development sets; or,
with ``--data``, tables held out from development: iris, penguins, cars, mpg,
anes96, seattle_weather, tictactoe, diamonds) with 20 % uniform flips:
``labelclean run`` (the shipped pipeline for the number of classes), then a
simulated reviewer who knows the true labels gives verdicts on a budget of
rows, either the rows ``labelclean review export`` ranks first or the same
number of suspects (flagged rows) chosen at random; ``labelclean review
apply`` writes the cleaned rows. The measure is the error rate of the cleaned
labels (share of rows in the cleaned output whose label is not the true
one), before and after each review, and the number of wrong labels removed
per verdict. Then a second run takes the exported verdicts as known truth
(``--reviewed``); the flag F1 on the rows nobody reviewed is compared with the
first run's on the same rows.

    python benchmarks/review.py [--reps 5] [--budget 40] [--data NAME ...]
    python benchmarks/review.py --reps 20 --noise 0.3 --section review-30
    python benchmarks/review.py --reps 20 --data iris penguins cars mpg anes96 \
        --section review-held-out
    python benchmarks/review.py --reps 2 --data cars seattle_weather anes96 \
        diamonds --section review-unchecked     # what `why` tells of the rows
"""

import argparse
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.metrics import f1_score

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import mean_std, section_head, write_section
from benchmarks.real_data import DATASETS as HELD_OUT
from labelclean.noise import flip_labels
from labelclean.pipeline import shipped_pipeline_name
from labelclean.review import apply_review, export_review
from labelclean.runner import run_pipeline


def _sklearn(loader):
    return lambda: loader(return_X_y=True, as_frame=True)


#: Tables of ``benchmarks/real_data.py`` this benchmark can run.
HELD_OUT_TABLES = ("iris", "penguins", "cars", "mpg", "anes96", "seattle_weather",
                   "tictactoe", "diamonds")  # fmt: skip

#: Development sets (the default), then tables held out from development
#: (``benchmarks/real_data.py``): categorical columns, missing values, a
#: label the features only partly predict.
DATA = {
    "breast_cancer": _sklearn(load_breast_cancer),
    "wine": _sklearn(load_wine),
    "digits": _sklearn(load_digits),
    **{k: HELD_OUT[k] for k in HELD_OUT_TABLES},
}
DEVELOPMENT = ("breast_cancer", "wine", "digits")


def _error_rate(cleaned: pd.DataFrame, truth: dict) -> float:
    return float((cleaned["label"] != cleaned["key"].map(truth)).mean())


def _one(
    name: str, rep: int, budget: int, root: Path, noise: float = 0.2
) -> dict[str, float]:
    X, y = DATA[name]()
    X = X.reset_index(drop=True)
    truth = np.array([f"c{v}" for v in y])
    noisy, _ = flip_labels(truth, noise, random_state=rep)
    frame = X.copy()
    frame.insert(0, "key", [f"k{i}" for i in range(len(frame))])
    frame["label"] = noisy
    frame.to_parquet(root / "in.parquet", index=False)
    truth_of = dict(zip(frame["key"], truth, strict=True))
    pipeline = shipped_pipeline_name(len(set(truth)))
    # fail_on="never": a guardrail verdict does not change the audit measured.
    run_pipeline(root / "in.parquet", root / "run", pipeline=pipeline,
                 label="label", id_column="key", seed=rep, fail_on="never")  # fmt: skip
    cleaned = root / "run" / "cleaned.parquet"
    if not cleaned.exists():  # withheld by a failed guardrail
        cleaned = root / "run" / "cleaned.parquet.rejected"
    before = _error_rate(pd.read_parquet(cleaned), truth_of)
    out = {"before": before}
    exported = export_review(root / "run", root / "review.parquet", max_rows=budget)
    # What the reviewer reads of the wrong labels among the exported rows.
    wrong = (exported["observed_label"] != exported["row_id"].map(truth_of)).to_numpy()
    said = exported["why"].astype(str)
    out["export_wrong"] = float(wrong.mean())
    out["told_zero"] = int(said.str.startswith("0% likely mislabelled")[wrong].sum())
    out["told_unchecked"] = int(said.str.startswith("not checked")[wrong].sum())
    audit = pd.read_parquet(root / "run" / "audit.parquet")
    flagged = audit.loc[audit["decision"] != "kept", "key"].to_numpy()
    # Its own seed: flip_labels(random_state=rep) draws the flipped rows from
    # RandomState(rep), and the same stream would pick exactly those rows
    # whenever the run flags nothing.
    rng = np.random.RandomState(1_000_003 + rep)
    others = audit.loc[audit["decision"] == "kept", "key"].to_numpy()
    random_rows = np.concatenate([rng.permutation(flagged), rng.permutation(others)])[
        : len(exported)
    ]
    for kind, keys in (
        ("export", exported["row_id"].to_numpy()),
        ("random", random_rows),
    ):
        verdicts = pd.DataFrame(
            {"row_id": keys, "verdict": [truth_of[k] for k in keys]}
        )
        verdicts.to_parquet(root / f"{kind}.parquet", index=False)
        apply_review(root / "run", root / f"{kind}.parquet", root / kind)
        after = _error_rate(pd.read_parquet(root / kind / "cleaned.parquet"), truth_of)
        out[kind] = after
        out[f"{kind}_gain"] = (before - after) * 100.0
    # A later run with the exported verdicts as known truth (--reviewed):
    # flag F1 on the rows nobody reviewed, against the first run's.
    run_pipeline(root / "in.parquet", root / "refit", pipeline=pipeline,
                 label="label", id_column="key", seed=rep, fail_on="never",
                 reviewed=root / "export.parquet")  # fmt: skip
    reviewed = set(exported["row_id"])
    for name, folder in (("f1_first", "run"), ("f1_refit", "refit")):
        audit = pd.read_parquet(root / folder / "audit.parquet")
        rest = audit[~audit["key"].isin(reviewed)]
        wrong = rest["observed_label"].to_numpy() != rest["key"].map(truth_of)
        out[name] = f1_score(wrong, rest["decision"].to_numpy() != "kept")
    out["f1_gain"] = out["f1_refit"] - out["f1_first"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument(
        "--data", nargs="+", choices=sorted(DATA), default=list(DEVELOPMENT)
    )
    parser.add_argument("--noise", type=float, default=0.2, help="share flipped")
    parser.add_argument("--section", default="review")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    lines = [
        *section_head(
            "Review round trip: exported rows against random suspects (review.py)"
        ),
        f"{args.noise:.0%} uniform flips, seeds 0–{args.reps - 1}; a simulated "
        f"reviewer with the true labels reviews {args.budget} rows: the first "
        "rows of `review export`, "
        "or as many suspects (flagged rows, then kept rows) drawn at random. Error "
        "rate of the cleaned labels (share of rows in `cleaned.parquet` whose label "
        "is wrong), mean ± sd. Wrong labels exported: the share of the exported "
        "rows whose label is wrong, and how many of them (all repetitions) "
        'their `why` called "0% likely mislabelled" or "not checked" (the '
        "run took the class's labels as right).",
        "",
        "| data | before review | after export review | after random suspects | "
        "points gained: export | points gained: random | flag F1, other rows: "
        "first run | flag F1, other rows: refit with --reviewed | paired F1 gain "
        "(refit − first) | refits better / equal / worse | wrong labels exported "
        "| of them, `why`: 0% likely mislabelled / not checked |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in args.data:
        results = []
        for rep in range(args.reps):
            with tempfile.TemporaryDirectory() as tmp:
                results.append(_one(name, rep, args.budget, Path(tmp), args.noise))
        col = {k: [r[k] for r in results] for k in results[0]}
        lines.append(
            f"| {name} | {mean_std(col['before'])} | {mean_std(col['export'])} | "
            f"{mean_std(col['random'])} | {mean_std(col['export_gain'])} | "
            f"{mean_std(col['random_gain'])} | {mean_std(col['f1_first'])} | "
            f"{mean_std(col['f1_refit'])} | {mean_std(col['f1_gain'])} | "
            f"{sum(g > 1e-12 for g in col['f1_gain'])} / "
            f"{sum(abs(g) <= 1e-12 for g in col['f1_gain'])} / "
            f"{sum(g < -1e-12 for g in col['f1_gain'])} | "
            f"{mean_std(col['export_wrong'])} | {sum(col['told_zero'])} / "
            f"{sum(col['told_unchecked'])} |"
        )
        print(lines[-1], flush=True)
    write_section(args.section, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
