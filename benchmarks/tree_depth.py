"""Boosted binned trees of depth 3 and 5 against gradient boosting, labels clean.

The ad hoc comparison behind the final model's deeper trees
(``docs/decisions.md``, *Deeper trees for the final model*), rerunnable:
``make_classification(40_000, n_features=20, n_informative=10,
random_state=123)`` (another draw of the generator of ``real_data.py``'s
100,000-row file), first half train, second half test, the labels as
drawn. ``CBAdaBoostClassifier`` with ``gamma = 1`` (AdaBoost) on binned
trees of depth 3 and 5, scikit-learn's ``AdaBoostClassifier`` on its own
trees of the same depths, and ``HistGradientBoostingClassifier`` (31
leaves): test accuracy and fit time.

    python benchmarks/tree_depth.py [--section tree-depth]
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier, HistGradientBoostingClassifier
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, section_head, write_section
from labelclean.ensemble import BinnedTreeClassifier, CBAdaBoostClassifier


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", default="tree-depth")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    X, y = make_classification(
        40_000, n_features=20, n_informative=10, random_state=123
    )
    X_tr, y_tr, X_te, y_te = X[:20_000], y[:20_000], X[20_000:], y[20_000:]
    models = {}
    for depth in (3, 5):
        models[f"CB-AdaBoost, gamma = 1, binned depth {depth}"] = (
            CBAdaBoostClassifier(BinnedTreeClassifier(max_depth=depth), random_state=0),
            {"gamma": np.ones(y_tr.shape[0])},
        )
    for depth in (3, 5):
        models[f"scikit-learn AdaBoost, depth {depth}"] = (
            AdaBoostClassifier(
                DecisionTreeClassifier(max_depth=depth),
                n_estimators=200,
                random_state=0,
            ),
            {},
        )
    models["HistGradientBoosting (31 leaves)"] = (
        HistGradientBoostingClassifier(random_state=0),
        {},
    )
    lines = [
        *section_head("Boosted trees of depth 3 and 5, labels clean (tree_depth.py)"),
        "`make_classification(40_000, n_features=20, n_informative=10, "
        "random_state=123)`, first half train, second half test, labels as drawn; "
        "200 rounds for the AdaBoost models.",
        "",
        "| model | test accuracy | fit (s) |",
        "|---|---|---|",
    ]
    for name, (model, kwargs) in models.items():
        with Timer() as t:
            model.fit(X_tr, y_tr, **kwargs)
        accuracy = float(np.mean(model.predict(X_te) == y_te))
        lines.append(f"| {name} | {accuracy:.4f} | {t.seconds:.1f} |")
        print(lines[-1], flush=True)
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
