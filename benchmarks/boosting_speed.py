"""Speed of the boosting core: SPLBoost and CB-AdaBoost on binned weak learners
against scikit-learn's AdaBoostClassifier with exact stumps.

Each configuration runs in its own process, so its peak memory is its own. The
data are ``make_classification`` rows with 20 features (10 informative, 5% of
labels redrawn at random), and 100,000 held-out test rows. SPLBoost's age is
chosen by its own cross-validation on a 20,000-row subsample (timed separately),
then the full fit runs with that age. CB-AdaBoost gets ``gamma = 1`` (its cost
does not depend on the values of gamma; computing gamma is the confidence
stage's job and is not timed here). numba compilation is warmed up first.

    PYTHONPATH=. python benchmarks/boosting_speed.py [--quick]
"""

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from benchmarks._common import command, machine, peak_rss_mb, write_section

N_TEST = 100_000


def _data(n_train):
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=n_train + N_TEST,
        n_features=20,
        n_informative=10,
        n_redundant=5,
        flip_y=0.05,
        random_state=0,
    )
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def _model(method, rounds, age=3.0):
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    from labelclean.ensemble import (
        BinnedTreeClassifier,
        CBAdaBoostClassifier,
        SPLBoostClassifier,
    )

    if method == "sklearn":
        return AdaBoostClassifier(
            DecisionTreeClassifier(max_depth=1), n_estimators=rounds, random_state=0
        )
    kind, depth = method.split("-")
    weak = BinnedTreeClassifier(max_depth=int(depth))
    if kind == "spl":
        return SPLBoostClassifier(weak, n_estimators=rounds, age=age, random_state=0)
    return CBAdaBoostClassifier(weak, n_estimators=rounds, random_state=0)


def child(method, n_train, rounds):
    """Run one configuration; print a JSON line with its measurements."""
    X, y, X_test, y_test = _data(n_train)
    fit_params, small = {}, {}
    if method.startswith("cb"):
        fit_params["gamma"], small["gamma"] = np.ones(n_train), np.ones(500)
    if method != "sklearn":  # compile (or load) the numba kernels first
        _model(method, 2).fit(X[:500], y[:500], **small)
    age, search_seconds = None, None
    if method.startswith("spl"):
        start = time.perf_counter()
        search = _model(method, rounds, age="auto").fit(X[:20_000], y[:20_000])
        search_seconds = time.perf_counter() - start
        age = search.age_
    model = _model(method, rounds, age=age)
    start = time.perf_counter()
    model.fit(X, y, **fit_params)
    seconds = time.perf_counter() - start
    accuracy = float((model.predict(X_test) == y_test).mean())
    at_20 = None
    for i, pred in enumerate(model.staged_predict(X_test), start=1):
        if i == 20:
            at_20 = float((pred == y_test).mean())
            break
    print(
        json.dumps(
            {
                "seconds": seconds,
                "rounds": len(model.estimators_),
                "accuracy": accuracy,
                "accuracy_at_20": at_20,
                "peak_rss_mb": peak_rss_mb(),
                "age": age,
                "search_seconds": search_seconds,
            }
        )
    )


def run(method, n_train, rounds):
    out = subprocess.run(
        [sys.executable, __file__, "--child", method, str(n_train), str(rounds)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


LABELS = {
    "spl-1": "SPLBoost, binned stumps",
    "spl-3": "SPLBoost, binned depth-3 trees",
    "cb-1": "CB-AdaBoost, binned stumps",
    "cb-3": "CB-AdaBoost, binned depth-3 trees",
    "sklearn": "scikit-learn AdaBoostClassifier, stumps",
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--child", nargs=3)
    args = parser.parse_args()
    if args.child:
        method, n_train, rounds = args.child
        child(method, int(n_train), int(rounds))
        return
    sizes = [20_000, 100_000] if args.quick else [100_000, 1_000_000]
    rounds = 50 if args.quick else 200
    header = machine()
    rows = []
    for n in sizes:
        for method in LABELS:
            r = rounds
            if method == "sklearn" and n >= 1_000_000:
                r = 20  # about 5 s per round: 200 rounds would take ~18 min
            result = run(method, n, r)
            per_round = result["seconds"] / result["rounds"]
            rows.append((n, method, r, result, per_round))
            print(n, method, result, flush=True)
    base = {n: per for n, m, _, _, per in rows if m == "sklearn"}
    sk_acc = {n: res for n, m, _, res, _ in rows if m == "sklearn"}
    lines = [
        "## Boosting speed (boosting_speed.py)",
        "",
        f"Machine: {header}",
        "",
        f"Command: `PYTHONPATH=. {command()}`",
        "",
        "20 features, 100,000 test rows; one process per table row (its own "
        "peak memory, data included). SPLBoost: age chosen by its 3-fold search "
        "on a 20,000-row subsample (search time in its own column), then one "
        "fit on all rows. CB-AdaBoost: gamma = 1. 'fit time' is measured for "
        "the rounds run; for scikit-learn at 1e6 rows only 20 rounds were run "
        "and its 200-round time is 10x that (marked *). Speed-up: "
        "scikit-learn's time per round over ours. 'at 20' columns compare "
        "accuracies after 20 rounds with scikit-learn's after 20 rounds.",
        "",
        "| rows | method | age | rounds | fit time (s) | 200-round time (s) "
        "| speed-up | test accuracy | at 20 | scikit-learn at 20 "
        "| age search (s) | peak memory (MB) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, method, r, res, per in rows:
        star = "*" if method == "sklearn" and r < 200 else ""
        speed = "" if method == "sklearn" else f"{base[n] / per:.0f}x"
        age = "" if res["age"] is None else f"{res['age']:g}"
        search = "" if res["search_seconds"] is None else f"{res['search_seconds']:.1f}"
        lines.append(
            f"| {n:,} | {LABELS[method]} | {age} | {res['rounds']} "
            f"| {res['seconds']:.1f} | {per * 200:.1f}{star} | {speed} "
            f"| {res['accuracy']:.4f} | {res['accuracy_at_20']:.4f} "
            f"| {sk_acc[n]['accuracy_at_20']:.4f} | {search} "
            f"| {res['peak_rss_mb']:.0f} |"
        )
    write_section("boosting-speed", "\n".join(lines))


if __name__ == "__main__":
    main()
