"""Quality of the label-confidence stage.

Sections written to ``benchmarks/RESULTS.md``:

* ``table-1``: cb-adaboost.md Table I reproduced side by side with the paper
  (Normal data with the Bayes method at the known noise level, Sine data with
  the KNN method, K = 5 as in the paper);
* ``confidence-detection``: AUROC of 1 - γ and precision / recall / F1 of the
  filter's removed rows against the flipped rows on scikit-learn's bundled
  breast_cancer, wine and digits data, and the error of the estimated noise
  level;
* ``filter-k``: the measurement behind the filter's and the confidence's
  default neighbourhood sizes.

    python benchmarks/confidence_quality.py           # full (30 / 10 repetitions)
    python benchmarks/confidence_quality.py --quick   # a few repetitions
    python benchmarks/confidence_quality.py --only table-1-sine
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import command, mean_std, section_head, write_section
from labelclean.confidence import BayesConfidence, KNNConfidence
from labelclean.filters import KNNFilter
from labelclean.noise import flip_labels

PAPER_TABLE_1 = {
    # (data, n, noise): (clean mean, clean std, mislabeled mean, mislabeled std)
    ("Normal", 50, 0.1): (0.8919, 0.2068, 0.0581, 0.0616),
    ("Normal", 50, 0.2): (0.8693, 0.2267, 0.1795, 0.2265),
    ("Normal", 50, 0.3): (0.8201, 0.2519, 0.4459, 0.4018),
    ("Normal", 500, 0.1): (0.9172, 0.2011, 0.0850, 0.1790),
    ("Normal", 500, 0.2): (0.8547, 0.1978, 0.1446, 0.1843),
    ("Normal", 500, 0.3): (0.7145, 0.1514, 0.2742, 0.1499),
    ("Sine", 50, 0.1): (0.8551, 0.2503, 0.1833, 0.2905),
    ("Sine", 50, 0.2): (0.8503, 0.2720, 0.3888, 0.4047),
    ("Sine", 50, 0.3): (0.7142, 0.3556, 0.4661, 0.3999),
    ("Sine", 500, 0.1): (0.8731, 0.2639, 0.2870, 0.3832),
    ("Sine", 500, 0.2): (0.8543, 0.2675, 0.4142, 0.4195),
    ("Sine", 500, 0.3): (0.8451, 0.2844, 0.4958, 0.4257),
}


def normal_data(n: int, rng: np.random.RandomState):
    """cb-adaboost.md §V 'Norm': N((0,0), I) vs N((2,2), I), equal halves."""
    half = n // 2
    X = np.vstack([rng.normal(0, 1, (half, 2)), rng.normal(2, 1, (n - half, 2))])
    y = np.repeat([-1, 1], [half, n - half])
    return X, y


def sine_data(n: int, rng: np.random.RandomState):
    """cb-adaboost.md §V 'Sine': uniform on [-3,3]^2, P(z=y|x) logistic in g."""
    X = rng.uniform(-3, 3, (n, 2))
    g = (X[:, 1] - 3 * np.sin(X[:, 0])) / 2
    p_pos = np.exp(g) / (np.exp(g) + np.exp(-g))
    y = np.where(rng.uniform(size=n) < p_pos, 1, -1)
    return X, y


def table_1(reps: int) -> str:
    lines = [
        *section_head(
            "Table I of cb-adaboost.md: label confidence of clean and mislabeled rows"
        ),
        f"{reps} repetitions per cell. Normal: `BayesConfidence(noise_level=ε)` "
        "(Gaussian densities on L_red, the known ε). Sine: "
        "`KNNConfidence(n_neighbors=5)` (the paper's K). Both with the default "
        "KNN filter. Mean = mean over repetitions of the mean γ of the group; "
        "± = standard deviation of γ over all rows of the group (the paper's "
        "spread, which is per-row, not per-repetition); (rep sd) = standard "
        "deviation of the per-repetition means. Δ = ours − paper. Verdict "
        "(two-sided): 'within' when |Δ| is at most the paper's ±, else "
        "'above' or 'below' the paper.",
        "",
        "| data | n | noise | group | paper | ours | Δ | (rep sd) | verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    worst = 0.0
    verdicts = []
    for (data, n, noise), paper in PAPER_TABLE_1.items():
        clean_means, mis_means, clean_all, mis_all = [], [], [], []
        for rep in range(reps):
            rng = np.random.RandomState(10_000 * rep + n)
            X, y = (normal_data if data == "Normal" else sine_data)(n, rng)
            y_noisy, flipped = flip_labels(np.asarray(y), noise, random_state=rng)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                if data == "Normal":
                    est = BayesConfidence(noise_level=noise, random_state=rep)
                else:
                    est = KNNConfidence(n_neighbors=5, random_state=rep)
                gamma = est.fit(X, y_noisy).confidence_
            clean_means.append(gamma[~flipped].mean())
            mis_means.append(gamma[flipped].mean())
            clean_all.append(gamma[~flipped])
            mis_all.append(gamma[flipped])
        for group, means, values, (p_mean, p_std) in [
            ("clean", clean_means, clean_all, paper[:2]),
            ("mislabeled", mis_means, mis_all, paper[2:]),
        ]:
            ours = float(np.mean(means))
            spread = float(np.concatenate(values).std())
            delta = ours - p_mean
            if n == 500:
                worst = max(worst, abs(delta))
            if abs(delta) <= p_std:
                verdict = "within"
            else:
                verdict = "above" if delta > 0 else "below"
            verdicts.append(verdict)
            lines.append(
                f"| {data} | {n} | {noise:.0%} | {group} | {p_mean:.4f} ± {p_std:.4f} "
                f"| {ours:.4f} ± {spread:.4f} | {delta:+.4f} "
                f"| {np.std(means, ddof=1):.4f} | {verdict} |"
            )
    tally = ", ".join(
        f"{verdicts.count(v)} {v}"
        for v in ("within", "above", "below")
        if v in verdicts
    )
    lines += [
        "",
        f"Largest |Δ| over the n = 500 cells: {worst:.4f}. Verdicts: {tally} "
        f"(of {len(verdicts)} cells).",
    ]
    return "\n".join(lines)


def sine_variants(reps: int) -> str:
    """Measurements behind the explanation of the Sine cells of Table I."""
    variants = {
        "default filter (K=5)": lambda: KNNConfidence(n_neighbors=5),
        "no filter": lambda: KNNConfidence(n_neighbors=5, noise_filter=None),
        "filter K=15": lambda: KNNConfidence(
            n_neighbors=5, noise_filter=KNNFilter(n_neighbors=15)
        ),
    }
    lines = [
        "## Table I, Sine n = 500: what the differences are (and are not)",
        "",
        f"Command: `{command()}`",
        "",
        f"{reps} repetitions; mean γ of clean / mislabeled rows, K = 5. "
        "'flips' = mislabeled means the label was flipped (the paper's "
        "definition); 'Bayes label' = mislabeled means the observed label differs "
        "from sign(g(x)), the Bayes-optimal class of the Sine model.",
        "",
        "| noise | paper | variant | flips: clean | flips: mislabeled "
        "| Bayes label: clean | Bayes label: mislabeled |",
        "|---|---|---|---|---|---|---|",
    ]
    for noise in (0.1, 0.2, 0.3):
        paper = PAPER_TABLE_1[("Sine", 500, noise)]
        for name, make in variants.items():
            cells = []
            for rep in range(reps):
                rng = np.random.RandomState(10_000 * rep + 500)
                X, y = sine_data(500, rng)
                bayes_label = np.where(X[:, 1] - 3 * np.sin(X[:, 0]) > 0, 1, -1)
                y_noisy, flipped = flip_labels(np.asarray(y), noise, random_state=rng)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    gamma = make().fit(X, y_noisy).confidence_
                wrong = y_noisy != bayes_label
                cells.append(
                    (
                        gamma[~flipped].mean(),
                        gamma[flipped].mean(),
                        gamma[~wrong].mean(),
                        gamma[wrong].mean(),
                    )
                )
            means = np.mean(cells, axis=0)
            lines.append(
                f"| {noise:.0%} | {paper[0]:.4f} / {paper[2]:.4f} | {name} | "
                + " | ".join(f"{m:.4f}" for m in means)
                + " |"
            )
    lines += [
        "",
        "Reading: the paper's Sine clean γ barely falls with noise (0.873 → 0.845) "
        "while its mislabeled γ rises to 0.50. A clean γ of 0.85 at 30 % flips "
        "needs neighbourhoods in L_red with few flipped labels, and a mislabeled "
        "γ of 0.50 needs flipped rows whose L_red neighbours half carry the wrong "
        "label; no variant above (filter on/off, filter K, either definition of "
        "'mislabeled') produces both. Our clean γ falls with noise as the share of "
        "flipped labels left in L_red grows. The Sine model is itself noisy "
        "(labels drawn from a logistic in g), which lowers every clean γ; "
        "judged against the Bayes label, our clean γ at 10 % and 20 % (0.90, 0.85) "
        "is within 0.03 of the paper. The Normal/Bayes cells, where the paper is "
        "fully specified, agree within 0.06 in every n = 500 cell.",
    ]
    return "\n".join(lines)


DATASETS = {
    "breast_cancer": load_breast_cancer,
    "wine": load_wine,
    "digits": load_digits,
}


def detection(reps: int) -> str:
    lines = [
        *section_head("Detection quality of the confidence stage on bundled data"),
        f"{reps} repetitions (seeded uniform flips), mean ± sd over repetitions. "
        "KNN = `KNNConfidence()` defaults (filter K=5, confidence K=10); Bayes = "
        "`BayesConfidence()` with the noise level *estimated* (not given). "
        "Filter P/R/F1: the rows the KNN filter removed, against the flipped rows. "
        "ε̂: Bayes' maximum-likelihood noise estimate.",
        "",
        "| data | noise | AUROC 1-γ (KNN) | AUROC 1-γ (Bayes) | filter precision "
        "| filter recall | filter F1 | ε̂ |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, loader in DATASETS.items():
        X, y = loader(return_X_y=True)
        for noise in (0.1, 0.2, 0.3):
            auc_k, auc_b, prec, rec, f1, eps = [], [], [], [], [], []
            for rep in range(reps):
                y_noisy, flipped = flip_labels(np.asarray(y), noise, random_state=rep)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    knn = KNNConfidence(random_state=rep).fit(X, y_noisy)
                    bayes = BayesConfidence(random_state=rep).fit(X, y_noisy)
                removed = ~knn.in_reduced_set_
                auc_k.append(roc_auc_score(flipped, 1 - knn.confidence_))
                auc_b.append(roc_auc_score(flipped, 1 - bayes.confidence_))
                prec.append(precision_score(flipped, removed, zero_division=0))
                rec.append(recall_score(flipped, removed))
                f1.append(f1_score(flipped, removed))
                eps.append(bayes.noise_level_)
            lines.append(
                f"| {name} | {noise:.0%} | {mean_std(auc_k)} | {mean_std(auc_b)} "
                f"| {mean_std(prec)} | {mean_std(rec)} | {mean_std(f1)} "
                f"| {mean_std(eps)} |"
            )
    return "\n".join(lines)


def filter_k(reps: int) -> str:
    lines = [
        *section_head("Choice of the filter's and the confidence's K"),
        f"{reps} repetitions, mean over repetitions. Filter F1 of removed rows "
        "against flipped rows for the filter's K (thresholds 0.07/0.14/0.21), and "
        "AUROC of 1 − γ for the confidence's K (with the K=5 filter).",
        "",
        "| data | noise | filter F1, K=5 | K=7 | K=10 | K=15 "
        "| AUROC, K=5 | K=10 | K=15 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, loader in DATASETS.items():
        X, y = loader(return_X_y=True)
        for noise in (0.1, 0.2, 0.3):
            f1 = {k: [] for k in (5, 7, 10, 15)}
            auc = {k: [] for k in (5, 10, 15)}
            for rep in range(reps):
                y_noisy, flipped = flip_labels(np.asarray(y), noise, random_state=rep)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    for k in f1:
                        flt = KNNFilter(n_neighbors=k).fit(X, y_noisy)
                        removed = np.ones(len(y), bool)
                        removed[flt.sample_indices_] = False
                        f1[k].append(f1_score(flipped, removed))
                    for k in auc:
                        est = KNNConfidence(n_neighbors=k).fit(X, y_noisy)
                        auc[k].append(roc_auc_score(flipped, 1 - est.confidence_))
            cells = [f"{np.mean(v):.3f}" for v in f1.values()]
            cells += [f"{np.mean(v):.3f}" for v in auc.values()]
            lines.append(f"| {name} | {noise:.0%} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="Quality of the confidence stage.")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--only",
        nargs="*",
        choices=["table-1", "table-1-sine", "confidence-detection", "filter-k"],
        help="Sections to run (default: all).",
    )
    args = parser.parse_args()
    jobs = {
        "table-1": lambda: table_1(3 if args.quick else 30),
        "table-1-sine": lambda: sine_variants(3 if args.quick else 30),
        "confidence-detection": lambda: detection(2 if args.quick else 10),
        "filter-k": lambda: filter_k(2 if args.quick else 10),
    }
    for name, job in jobs.items():
        if args.only and name not in args.only:
            continue
        write_section(name, job())
        print(name, "done", flush=True)


if __name__ == "__main__":
    main()
