"""Scoring a parquet file's labels with a confidence estimator.

:func:`score_file` is the library function behind ``labelclean score``: it
reads a parquet file or folder, estimates every row's label confidence with
:class:`~labelclean.confidence.KNNConfidence` or
:class:`~labelclean.confidence.BayesConfidence`, and writes the input rows,
unchanged, with the score columns added.
"""

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from labelclean.confidence import BayesConfidence, KNNConfidence
from labelclean.exceptions import DataValidationError, OutputError
from labelclean.io import inspect_parquet, read_parquet, write_parquet
from labelclean.runner._stream import input_field_types
from labelclean.utils._audit import renamed_user_columns
from labelclean.utils._features import select_features
from labelclean.utils._suggest import did_you_mean

logger = logging.getLogger(__name__)

__all__ = ["SCORE_COLUMNS", "ScoreSummary", "score_file", "score_frame"]

#: Columns added by :func:`score_frame`.
SCORE_COLUMNS = ("confidence", "trusted_label", "trusted_probability", "filter_round")


@dataclass(frozen=True)
class ScoreSummary:
    """What :func:`score_file` did."""

    output: Path
    n_rows: int
    n_features: int
    method: str
    mean_confidence: float
    n_trusted_differs: int


def _feature_columns(
    frame: pd.DataFrame,
    label: str,
    id_column: str | None,
    features: list[str] | None,
    exclude: list[str] | None,
) -> list[str]:
    columns = [str(c) for c in frame.columns]
    for name, role in ((label, "label"), (id_column, "id")):
        if name is not None and name not in columns:
            raise DataValidationError(
                f"{role} column {name!r} is not in the input"
                f"{did_you_mean(name, columns)} (columns: {columns!r})"
            )
    missing = [c for c in features or () if c not in columns]
    if missing:
        raise DataValidationError(
            f"feature column(s) {missing!r} are not in the input (columns: {columns!r})"
        )
    chosen = select_features(
        columns, label=label, id_column=id_column, features=features, exclude=exclude
    )
    if not chosen:
        raise DataValidationError(
            "no feature columns are left to score with; pass --feature or fewer "
            "--exclude options."
        )
    return chosen


def score_frame(
    frame: pd.DataFrame,
    *,
    label: str,
    method: str = "knn",
    id_column: str | None = None,
    features: list[str] | None = None,
    exclude: list[str] | None = None,
    noise_level: float | None = None,
    random_state: int | None = 0,
) -> pd.DataFrame:
    """Add label-confidence columns to a copy of ``frame``.

    Parameters
    ----------
    frame : DataFrame
        Features and the label column; it is not modified.
    label : str
        Name of the label column.
    method : {'knn', 'bayes'}, default='knn'
        - 'knn': :class:`~labelclean.confidence.KNNConfidence`; needs no
          noise level.
        - 'bayes': :class:`~labelclean.confidence.BayesConfidence`, with
          ``noise_level`` or its estimate.
    id_column : str, default=None
        A row-identifier column, never used as a feature.
    features, exclude : list of str, default=None
        Feature columns to use (default: all but the label and id) and to
        leave out.
    noise_level : float, default=None
        Noise level for ``method='bayes'``; estimated when None.
    random_state : int or None, default=0
        Seed of the neighbour search.

    Returns
    -------
    scored : DataFrame
        The input's rows and columns, in order and unchanged (a column named
        like one of the four below is renamed ``<name>_input``), plus
        ``confidence`` (γ), ``trusted_label``, ``trusted_probability`` and
        ``filter_round`` (KNN filter round that removed the row from L_red, 0
        if kept).
    """
    columns = _feature_columns(frame, label, id_column, features, exclude)
    if method == "knn":
        est = KNNConfidence(random_state=random_state)
    elif method == "bayes":
        est = BayesConfidence(noise_level=noise_level, random_state=random_state)
    else:
        raise DataValidationError(
            f"unknown method {method!r}{did_you_mean(method, ['knn', 'bayes'])}; "
            "use 'knn' or 'bayes'."
        )
    est.fit(frame[columns], frame[label])
    proba = est.soft_labels_ if method == "knn" else est.posterior_
    trusted_codes = np.searchsorted(est.classes_, est.trusted_labels_)
    renamed = renamed_user_columns(list(frame.columns), SCORE_COLUMNS)
    if renamed:
        logger.warning(
            "input column(s) %s have names `score` adds; the output holds them as %s.",
            list(renamed),
            list(renamed.values()),
        )
    scored = frame.rename(columns=renamed)
    scored["confidence"] = est.confidence_
    scored["trusted_label"] = pd.Series(
        est.trusted_labels_, index=frame.index, dtype=frame[label].dtype
    )
    scored["trusted_probability"] = proba[np.arange(len(frame)), trusted_codes]
    scored["filter_round"] = est.removal_round_.astype(np.int64)
    return scored


def score_file(
    input_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    *,
    label: str,
    method: str = "knn",
    id_column: str | None = None,
    features: list[str] | None = None,
    exclude: list[str] | None = None,
    noise_level: float | None = None,
    random_state: int | None = 0,
    overwrite: bool = False,
) -> ScoreSummary:
    """Score the labels of a parquet file or folder and write the result.

    Parameters
    ----------
    input_path : path-like
        A parquet file, or a folder of parquet files with one schema. Never
        modified.
    output_path : path-like
        The parquet file to write (atomically).
    label, method, id_column, features, exclude, noise_level, random_state
        As in :func:`score_frame`.
    overwrite : bool, default=False
        Replace an existing output file.

    Returns
    -------
    summary : ScoreSummary
        Counts and the output path.
    """
    source = inspect_parquet(input_path)
    out = Path(output_path).resolve()
    inputs = [Path(p).resolve() for p in source.files]
    if out in inputs or out == Path(input_path).resolve():
        raise OutputError(
            f"the output {str(out)!r} is the input; choose another output path "
            "(labelclean never overwrites its input)."
        )
    if out.exists() and not overwrite:
        raise OutputError(
            f"the output {str(out)!r} already exists; choose another path or pass "
            "--overwrite."
        )
    folders = [Path(input_path).resolve()] if Path(input_path).is_dir() else []
    if any(out.is_relative_to(folder) for folder in folders):
        raise OutputError(
            f"the output {str(out)!r} lies inside the input folder "
            f"{str(folders[0])!r}, where the next run would read it as input; "
            "write it elsewhere."
        )
    if not out.parent.is_dir():
        raise OutputError(
            f"the output folder {str(out.parent)!r} does not exist; create it first."
        )
    frame = read_parquet(source)
    scored = score_frame(
        frame,
        label=label,
        method=method,
        id_column=id_column,
        features=features,
        exclude=exclude,
        noise_level=noise_level,
        random_state=random_state,
    )
    write_parquet(
        scored,
        out,
        metadata={"command": "score", "method": method, "label": label},
        field_types=input_field_types(source.schema)[0],
    )
    n_differs = int((scored["trusted_label"] != scored[label]).sum())
    logger.info("scored %d rows into %s", len(scored), out)
    return ScoreSummary(
        output=out,
        n_rows=len(scored),
        n_features=scored.shape[1] - len(SCORE_COLUMNS) - 1,
        method=method,
        mean_confidence=float(scored["confidence"].mean()),
        n_trusted_differs=n_differs,
    )
