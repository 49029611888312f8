"""RoSR / RoSR-L benchmark: accuracy under label noise (rosr.md Table 2) and speed.

Accuracy: the six methods of rosr.md Table 2 (LR, SR, RoSR-Lin, RoSR-Mix,
RoSR-L-Lin, RoSR-L-Mix) on scikit-learn's bundled digits, wine and
breast_cancer data, each clean and with 10 % / 20 % of the training labels
flipped uniformly (labelclean.noise.flip_labels). Stratified 10-fold CV,
features standardised on each training fold, models trained on the (noisy)
training labels and scored on the clean labels of the test fold. ``mu`` is
tuned on rosr.md's grid in two ways, both reported:

- nested: for each outer fold, the ``mu`` with the best accuracy on a held-out
  20 % of the training fold (noisy labels, as a user would have);
- best fixed: the ``mu`` with the best mean test accuracy over the folds (the
  optimistic protocol most papers, rosr.md included, report).

Speed: one RoSR-L fit (mixture weighting, defaults) against one scikit-learn
``LogisticRegression`` fit (defaults, i.e. the same L2 strength) on
make_classification data of 1e6 rows x 20 features, 5 classes, in the same
run, alternating, several repetitions.

One-hot columns (``--part one-hot``, with ``--repo`` another checkout, e.g.
the commit before a change): a default RoSR-L fit on dense tables of one-hot
categorical columns and a few numeric ones (what the pipeline's feature
encoder gives RoSR-L), and on the same table as CSR, in a fresh process per
checkout, the checkouts alternating; the fits' median seconds, their ratio,
and the largest difference of the coefficients between the checkouts.

    PYTHONPATH=. python benchmarks/rosr.py            # full: 10-fold, all of it
    PYTHONPATH=. python benchmarks/rosr.py --quick    # smoke: 3-fold, small grid
    PYTHONPATH=. python benchmarks/rosr.py --part one-hot --repo /tmp/before
"""

import argparse
import itertools
import logging
from pathlib import Path

import numpy as np
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_wine,
    make_classification,
)
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from benchmarks._common import (
    Timer,
    command,
    machine,
    peak_rss_mb,
    run_in_checkout,
    write_section,
)
from labelclean.linear_model import RoSRClassifier
from labelclean.noise import flip_labels

MU_GRID = [1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0]
METHODS = ["LR", "SR", "RoSR-Lin", "RoSR-Mix", "RoSR-L-Lin", "RoSR-L-Mix"]
DATASETS = {
    "digits": load_digits,
    "wine": load_wine,
    "breast_cancer": load_breast_cancer,
}
NOISE = [0.0, 0.1, 0.2]

# rosr.md Table 2, 10digits row (a 28x28 MNIST subset, not scikit-learn's digits)
PAPER_10DIGITS = ["85.62", "88.04", "88.47", "88.36", "88.44", "88.52"]


def make_model(method: str, mu: float, n_train: int):
    """The estimator for ``method`` with L2 strength ``mu`` (mean-loss scale)."""
    if method == "LR":
        # One-vs-rest binary logistic regressions, sum-of-losses C scaling.
        return OneVsRestClassifier(
            LogisticRegression(C=1.0 / (mu * n_train), max_iter=1000)
        )
    if method == "SR":
        return RoSRClassifier(mu=mu, weighting="none")
    weighting = "linear" if method.endswith("Lin") else "mixture"
    return RoSRClassifier(mu=mu, weighting=weighting, per_class="-L-" in method)


def accuracy_cell(X, y, noise, n_splits, n_reps, grid, seed):
    """Test accuracies for each method and mu, per fold: {method: (folds, mu)}."""
    test_acc = {m: [] for m in METHODS}
    val_acc = {m: [] for m in METHODS}
    for rep in range(n_reps):
        y_noisy = y
        if noise > 0:
            y_noisy, _ = flip_labels(np.asarray(y), noise, random_state=seed + rep)
        folds = StratifiedKFold(n_splits, shuffle=True, random_state=seed + rep)
        for train, test in folds.split(X, y):
            scaler = StandardScaler().fit(X[train])
            X_tr, X_te = scaler.transform(X[train]), scaler.transform(X[test])
            y_tr = y_noisy[train]
            in_tr, in_va = train_test_split(
                np.arange(train.size),
                test_size=0.2,
                stratify=y_tr,
                random_state=seed + rep,
            )
            for method in METHODS:
                t_row, v_row = [], []
                for mu in grid:
                    model = make_model(method, mu, train.size).fit(X_tr, y_tr)
                    t_row.append(model.score(X_te, y[test]))
                    inner = make_model(method, mu, in_tr.size)
                    inner.fit(X_tr[in_tr], y_tr[in_tr])
                    v_row.append(inner.score(X_tr[in_va], y_tr[in_va]))
                test_acc[method].append(t_row)
                val_acc[method].append(v_row)
    out = {}
    for method in METHODS:
        t = np.asarray(test_acc[method])
        v = np.asarray(val_acc[method])
        # Nested: per fold, the last best mu on the validation split (ties go to
        # the stronger penalty).
        pick = v.shape[1] - 1 - np.argmax(v[:, ::-1], axis=1)
        nested = t[np.arange(t.shape[0]), pick]
        best = t[:, np.argmax(t.mean(axis=0))]
        out[method] = {
            "nested": nested,
            "best": best,
            "mu_nested": np.asarray(grid)[pick],
        }
    return out


def fmt(values) -> str:
    arr = 100 * np.asarray(values)
    return f"{arr.mean():.2f} ± {arr.std(ddof=1) if arr.size > 1 else 0:.2f}"


def run_accuracy(args) -> str:
    grid = MU_GRID if not args.quick else [1e-3, 1e-2, 0.1]
    n_splits = 3 if args.quick else 10
    names = list(DATASETS) if not args.quick else ["wine", "breast_cancer"]
    results = {}
    with threadpool_limits(1):
        for name, noise in itertools.product(names, NOISE):
            X, y = DATASETS[name](return_X_y=True)
            with Timer() as t:
                results[name, noise] = accuracy_cell(
                    X, y, noise, n_splits, args.reps, grid, args.seed
                )
            logging.info("%s noise=%.2f done in %.1f s", name, noise, t.seconds)

    lines = []
    for protocol, title in [
        ("nested", "mu tuned per fold on a held-out 20 % of the (noisy) training fold"),
        ("best", "mu fixed per cell at its best mean test accuracy (paper protocol)"),
    ]:
        lines += [
            f"**Accuracy (%), {title}.** Mean ± std over {n_splits} folds x "
            f"{args.reps} repetition(s); best of each row in bold.",
            "",
            "| data | noise | " + " | ".join(METHODS) + " |",
            "|---|---|" + "---|" * len(METHODS),
        ]
        for (name, noise), res in results.items():
            means = [100 * res[m][protocol].mean() for m in METHODS]
            top = max(means)
            cells = [
                f"**{fmt(res[m][protocol])}**"
                if mean >= top - 1e-9
                else fmt(res[m][protocol])
                for m, mean in zip(METHODS, means, strict=True)
            ]
            lines.append(f"| {name} | {noise:.0%} | " + " | ".join(cells) + " |")
        lines.append("")

        # Done-when summary for this protocol.
        for variant in ["RoSR-L-Lin", "RoSR-L-Mix", "either"]:
            wins, gains20 = [], []
            for (_, noise), res in results.items():
                sr = res["SR"][protocol].mean()
                if variant == "either":
                    acc = max(
                        res["RoSR-L-Lin"][protocol].mean(),
                        res["RoSR-L-Mix"][protocol].mean(),
                    )
                else:
                    acc = res[variant][protocol].mean()
                wins.append(acc >= sr - 1e-12)
                if noise == 0.2:
                    gains20.append(100 * (acc - sr))
            lines.append(
                f"- {variant}: at least as accurate as SR in {sum(wins)}/{len(wins)} "
                f"cells ({np.mean(wins):.0%}); mean gain over SR at 20 % noise "
                f"{np.mean(gains20):+.2f} points."
            )
        lines.append("")
    mus = ", ".join(
        f"{name} {noise:.0%}: "
        + "/".join(
            f"{np.median(results[name, noise][m]['mu_nested']):g}" for m in METHODS
        )
        for name, noise in results
    )
    lines += [
        f"Median nested-chosen mu per cell ({'/'.join(METHODS)}): {mus}.",
        "",
        "For reference, rosr.md Table 2's 10digits row (a 28x28 MNIST subset, "
        "clean labels, 10x10-fold): "
        + ", ".join(f"{m} {p}" for m, p in zip(METHODS, PAPER_10DIGITS, strict=True))
        + ".",
        "",
        "Noise is injected into the whole label vector once per repetition; models "
        "see the noisy labels of the training folds and are scored on the clean "
        "labels of the test fold. LR is one-vs-rest scikit-learn "
        "LogisticRegression with C = 1/(mu n_train); SR is "
        "RoSRClassifier(weighting='none'), equal to multinomial LogisticRegression "
        "(tested). BLAS/OpenMP limited to one thread.",
    ]
    return "\n".join(lines)


def run_speed(args) -> str:
    n = 20_000 if args.quick else 1_000_000
    X, y = make_classification(
        n_samples=n,
        n_features=20,
        n_informative=10,
        n_classes=5,
        n_clusters_per_class=1,
        flip_y=0.05,
        random_state=args.seed,
    )
    rows = []
    for threads in args.threads:
        lr_times, rosr_times, ratios, iters = [], [], [], []
        with threadpool_limits(threads):
            for _ in range(args.speed_reps):
                lr = LogisticRegression()
                with Timer() as t_lr:
                    lr.fit(X, y)
                # C=1 (sklearn default) <=> mu = 1 / n
                rosr = RoSRClassifier(mu=1.0 / n)
                with Timer() as t_rosr:
                    rosr.fit(X, y)
                lr_times.append(t_lr.seconds)
                rosr_times.append(t_rosr.seconds)
                ratios.append(t_rosr.seconds / t_lr.seconds)
                iters.append((int(lr.n_iter_[0]), rosr.n_iter_))

        def runs(values: list[float]) -> str:
            return f"{np.median(values):.2f} ({', '.join(f'{x:.2f}' for x in values)})"

        rows.append(
            f"| {threads or 'default'} | {runs(lr_times)} | {runs(rosr_times)} | "
            f"{runs(ratios)} | {iters[0][0]} / {iters[0][1]} |"
        )
        logging.info("speed threads=%s ratios=%s", threads, ratios)
    lines = [
        f"**Speed**, make_classification {n:,} rows x 20 features, 5 classes "
        f"(float64). One RoSR-L fit (mixture, defaults, mu = 1/n, 6 rounds) vs one "
        f"LogisticRegression fit (defaults, C = 1, lbfgs), alternating, "
        f"{args.speed_reps} repetitions; seconds as median (all runs).",
        "",
        "| BLAS/OpenMP threads | LogisticRegression s | RoSR-L s | ratio | "
        "L-BFGS iterations LR / RoSR-L |",
        "|---|---|---|---|---|",
        *rows,
        "",
        f"Peak RSS {peak_rss_mb():.0f} MiB.",
    ]
    return "\n".join(lines)


#: One-hot tables: rows, categorical columns, levels of each, numeric
#: columns, classes.
ONE_HOT_CASES = [
    (2_000, 4, 10, 1, 2),
    (5_000, 6, 10, 2, 3),
    (5_000, 6, 20, 2, 3),
    (6_000, 10, 18, 3, 23),
    (20_000, 8, 12, 4, 5),
    (20_000, 8, 24, 4, 5),
    (6_000, 6, 4, 1, 23),
    (20_000, 4, 5, 2, 5),
]


def one_hot_table(rows, columns, levels, numeric, classes, seed=0):
    """Dense one-hot columns beside numeric ones; labels from a noisy linear
    score (argmax over the classes), 10 % of them flipped uniformly."""
    rng = np.random.default_rng(seed)
    X = np.zeros((rows, columns * levels + numeric))
    for j in range(columns):
        X[np.arange(rows), j * levels + rng.integers(0, levels, rows)] = 1.0
    X[:, columns * levels :] = rng.normal(size=(rows, numeric))
    scores = X @ rng.normal(size=(X.shape[1], classes))
    y = (scores + rng.gumbel(size=scores.shape)).argmax(axis=1)
    return X, flip_labels(y, 0.1, random_state=seed)[0]


def one_hot_child(case, reps) -> dict:
    """Median seconds of a default RoSR-L fit, dense and CSR, in this process."""
    import scipy.sparse as sp

    X, y = one_hot_table(*case)
    out = {"share": float(np.count_nonzero(X) / X.size)}
    with threadpool_limits(1):
        for kind, data in (("dense", X), ("csr", sp.csr_matrix(X))):
            timers = [Timer() for _ in range(reps)]
            for timer in timers:
                with timer:
                    model = RoSRClassifier().fit(data, y)
            out[kind] = float(np.median([timer.seconds for timer in timers]))
            out[f"{kind}_coef"] = model.coef_.ravel().tolist()
            out[f"{kind}_iter"] = int(model.n_iter_)
    return out


def run_one_hot(args) -> str:
    script = Path(__file__).resolve()
    here = script.parents[1]
    rows = []
    for case in ONE_HOT_CASES:
        call = f"m.one_hot_child({case!r}, {args.speed_reps})"
        res = {}
        for label, repo in (("other", args.repo), ("this", here)):
            res[label] = run_in_checkout(repo, str(script), call)
        this, other = res["this"], res["other"]
        diff = np.max(np.abs(np.subtract(this["dense_coef"], other["dense_coef"])))
        n, c, levels, m, k = case
        rows.append(
            f"| {n:,} × {c * levels + m} ({c} × {levels} levels + {m}) × {k} | "
            f"{this['share']:.3f} | {other['dense']:.2f} | {this['dense']:.2f} | "
            f"{this['dense'] / other['dense']:.2f} | {other['csr']:.2f} | "
            f"{this['csr']:.2f} | {other['dense_iter']} / {this['dense_iter']} | "
            f"{diff:.1e} |"
        )
        logging.info("one-hot %s: %s", case, rows[-1])
    return "\n".join(
        [
            f"This checkout: {here}; other: {args.repo}. A default "
            "`RoSRClassifier().fit` (BLAS limited to one thread, as in its "
            "solves) on dense one-hot tables (seed 0; labels from a noisy "
            "linear score, 10 % flipped) and on the same table as CSR; median "
            f"of {args.speed_reps} fits in one fresh process per checkout and "
            "table. share: non-zero values over all values.",
            "",
            "| rows × columns × classes | share | dense: other (s) | dense: this "
            "(s) | ratio | CSR: other (s) | CSR: this (s) | L-BFGS iterations "
            "(dense): other / this | max abs difference of the coefficients |",
            "|---|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fast smoke mode")
    parser.add_argument(
        "--part", choices=["accuracy", "speed", "all", "one-hot"], default="all"
    )
    parser.add_argument("--repo", type=Path, help="the other checkout (one-hot)")
    parser.add_argument("--section", help="results section (one-hot)")
    parser.add_argument("--reps", type=int, default=1, help="CV repetitions")
    parser.add_argument("--speed-reps", type=int, default=3)
    parser.add_argument(
        "--threads",
        type=lambda s: [None if x == "default" else int(x) for x in s.split(",")],
        default=[1, None],
        help="comma-separated thread limits for the speed part, e.g. 1,default",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

    header = f"Machine: {machine()}\n\nCommand: `{command()}`\n"
    if args.part in ("accuracy", "all"):
        body = run_accuracy(args)
        write_section(
            "rosr-accuracy" + ("-quick" if args.quick else ""),
            "## RoSR / RoSR-L accuracy under label noise\n\n" + header + "\n" + body,
        )
    if args.part in ("speed", "all"):
        body = run_speed(args)
        write_section(
            "rosr-speed" + ("-quick" if args.quick else ""),
            "## RoSR-L speed\n\n" + header + "\n" + body,
        )
    if args.part == "one-hot":
        if args.repo is None:
            parser.error("--part one-hot compares two checkouts: give --repo")
        body = run_one_hot(args)
        write_section(
            args.section or "rosr-one-hot",
            "## RoSR-L on one-hot columns, two checkouts\n\n" + header + "\n" + body,
        )


if __name__ == "__main__":
    main()
