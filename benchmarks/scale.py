"""Scale: wall time and peak memory of `run` and `apply` against the number of rows.

Writes section ``scale`` of ``benchmarks/RESULTS.md``. Every measurement is a
separate ``python -m labelclean`` process (so its peak memory is its own: the
largest resident set of the process and its children, sampled every 0.2 s,
and the kernel's ``ru_maxrss`` of the main process), on synthetic parquet
data: 20 float32 features, a noisy linear rule (two classes) or the largest
of five linear scores (five classes), 20 % of the labels flipped uniformly to
another class; row groups of 65,536 rows. Stage times come from the
commands' own INFO log (``LABELCLEAN_LOG_LEVEL=INFO``).

* ``run`` at 1e4, 1e5, 1e6 rows (every row fitted), both cases: wall time,
  peak memory, each stage's wall time, and the fitted exponent of time
  against rows;
* ``apply`` of fitted models to new inputs: rows per second (end to end, and
  while deciding and writing, i.e. without start-up and model loading), and
  peak memory at 1e6 and 1e7 rows (it must not grow with the input);
* a 1e7-row ``apply --engine dask`` on a local cluster;
* beside every ``run``, in the same invocation and on the same file,
  cleanlab's ``find_label_issues`` with 5-fold cross-validated
  ``HistGradientBoostingClassifier`` probabilities (reading the file
  included), and both tools' flag F1 against the flipped rows, so the ratio
  of wall times is measured side by side.

``--wide`` measures wide tables instead (section ``scale-wide``): ``run``
and cleanlab, as above, on :data:`WIDE_SHAPES` (rows × columns × classes:
few rows of many columns, as a gene-expression or a spectral table has, up
to an isolet-sized one of 26 classes), ``make_classification`` with 20
informative columns and 20 % of the labels flipped uniformly to another
class; the pipeline is the one ``run`` picks by the number of classes.
Beside each default ``run``, the same ``run`` with ``--final-model rosr``
(one final model instead of the stack): its wall time, whether its audit's
decisions and evidence equal the default's, and both final models' accuracy
on as many clean rows of the same draw (``predict`` of the saved model),
beside plain histogram gradient boosting fitted on the noisy labels.

Usage::

    PYTHONPATH=. python benchmarks/scale.py            # everything (~1 h)
    PYTHONPATH=. python benchmarks/scale.py --quick    # 1e4 and 1e5 rows only
    PYTHONPATH=. python benchmarks/scale.py --wide     # wide tables (~50 min)
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._common import section_head, write_section

N_FEATURES = 20
ROW_GROUP = 65_536
CASES = {
    "two classes": ("binary-cbadaboost", 2),
    "two classes, Bayes confidence": ("bayes-cbadaboost", 2),
    "five classes": ("multiclass-rosr", 5),
}

#: ``--wide``'s tables: rows, feature columns, classes.
WIDE_SHAPES = ((400, 5000, 3), (2000, 1000, 2), (7797, 617, 26))


def make_wide(path: Path, n_rows: int, n_features: int, n_classes: int) -> None:
    """Write a wide ``make_classification`` table (20 informative columns,
    no label flipped by scikit-learn) with 20 % of its labels flipped
    uniformly to another class, which rows were flipped beside it, and as
    many clean rows of the same draw (:func:`_test_path`) to test on."""
    import pandas as pd
    from sklearn.datasets import make_classification

    from labelclean.noise import flip_labels

    X, y = make_classification(
        n_samples=2 * n_rows, n_features=n_features, n_informative=20,
        n_classes=n_classes, n_clusters_per_class=1, flip_y=0.0, random_state=0,
    )  # fmt: skip
    columns = [f"f{i}" for i in range(n_features)]
    noisy, flipped = flip_labels(y[:n_rows], 0.2, random_state=0)
    frame = pd.DataFrame(X[:n_rows].astype(np.float32), columns=columns)
    frame["label"] = noisy
    frame.to_parquet(path, index=False)
    np.save(_flipped_path(path), np.asarray(flipped, dtype=bool))
    test = pd.DataFrame(X[n_rows:].astype(np.float32), columns=columns)
    test["label"] = y[n_rows:]
    test.to_parquet(_test_path(path), index=False)


def _test_path(path: Path) -> Path:
    return Path(str(path) + ".test.parquet")


#: The audit's columns a single final model must leave as the stack does.
_DECISION_COLUMNS = (
    "decision", "reason", "cleaned_label", "confidence", "noise_probability",
)  # fmt: skip


def _same_decisions(out: Path, other: Path) -> bool:
    """Whether two runs' audits hold the same :data:`_DECISION_COLUMNS`."""
    import pyarrow.parquet as pq

    columns = list(_DECISION_COLUMNS)
    first = pq.read_table(out / "audit.parquet", columns=columns)
    return first.equals(pq.read_table(other / "audit.parquet", columns=columns))


def _test_accuracy(out: Path, data: Path) -> float:
    """Accuracy of ``out``'s final model (``model_``, what ``predict`` uses;
    ``apply``'s ``model_label`` is ``decision_model_``'s) on ``data``'s clean
    rows."""
    import pyarrow.parquet as pq

    from labelclean.pipeline import load_cleaner

    cleaner, _ = load_cleaner(out / "model.skops")
    test = pq.read_table(_test_path(data)).to_pandas()
    truth = test.pop("label").to_numpy()
    return float(np.mean(cleaner.predict(test) == truth))


def wide(load_start) -> None:
    """``--wide``: ``run`` (the default and ``--final-model rosr``) and
    cleanlab on :data:`WIDE_SHAPES`, section ``scale-wide``."""
    rows = [
        "| rows × columns × classes | pipeline | wall (s) | peak memory (MiB) | "
        "flag F1 | cleanlab wall (s) | cleanlab peak memory (MiB) | cleanlab flag "
        "F1 | wall labelclean / cleanlab | stages (s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    finals = [
        "| rows × columns × classes | wall (s): stack / `rosr` | final model stage "
        "(s): stack / `rosr` | same decisions | clean-row accuracy: stack / `rosr` "
        "/ plain HGB |",
        "|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory(dir=os.environ.get("SCALE_TMP")) as tmp:
        for n_rows, n_features, n_classes in WIDE_SHAPES:
            shape = f"{n_rows:,} × {n_features:,} × {n_classes}"
            data = Path(tmp) / f"wide_{n_rows}_{n_features}.parquet"
            make_wide(data, n_rows, n_features, n_classes)
            out = Path(tmp) / f"out_{n_rows}_{n_features}"
            res = timed(["run", str(data), "--label", "label", "--out", str(out)])
            said = res["stdout"] + res["stderr"]
            pipeline = re.search(r"pipeline '([^']+)'", said).group(1)
            stages = {**_times(res["stderr"], "run"), **_times(res["stderr"], "stage")}
            peer = _cleanlab(data)
            rows.append(
                f"| {shape} | `{pipeline}` | "
                f"{res['wall']:.1f} | {res['tree_rss']:.0f} | {_run_f1(out, data):.4f} "
                f"| {peer['wall']:.1f} | {peer['tree_rss']:.0f} | {peer['f1']:.4f} | "
                f"{res['wall'] / peer['wall']:.2f} | "
                + ", ".join(f"{k} {v:.1f}" for k, v in stages.items())
                + " |"
            )
            print(rows[-1], flush=True)
            one = out.parent / (out.name + "_rosr")
            args = ["run", str(data), "--label", "label", "--out", str(one)]
            single = timed([*args, "--final-model", "rosr"])
            one_stages = _times(single["stderr"], "stage")
            plain = timed(
                [str(Path(__file__).resolve()), "--child", "plain", str(data)],
                labelclean=False,
            )
            plain_acc = float(re.search(r"accuracy ([0-9.]+)", plain["stdout"])[1])
            finals.append(
                f"| {shape} | {res['wall']:.1f} / {single['wall']:.1f} | "
                f"{stages.get('final_model', float('nan')):.1f} / "
                f"{one_stages.get('final_model', float('nan')):.1f} | "
                f"{'yes' if _same_decisions(out, one) else 'no'} | "
                f"{_test_accuracy(out, data):.4f} / {_test_accuracy(one, data):.4f} "
                f"/ {plain_acc:.4f} |"
            )
            print(finals[-1], flush=True)
    lines = [
        *section_head(
            "Scale: wide tables (`benchmarks/scale.py --wide`)",
            path_prefix="PYTHONPATH=. ",
        ),
        "`make_classification` (20 informative columns, one cluster per class, "
        "seed 0), float32 features, 20 % of the labels flipped uniformly to "
        "another class. `labelclean run` with the pipeline it picks by the "
        "number of classes, then cleanlab's `find_label_issues` on 5-fold "
        "cross-validated `HistGradientBoostingClassifier` probabilities, each in "
        "its own process (reading the file included); flag F1 against the "
        "flipped rows.",
        "",
        *rows,
        "",
        "The same `run` with `--final-model rosr` (RoSR-L alone as the final "
        "model, instead of the stack of candidates): wall times, the `final "
        "model` stage, whether the audits' "
        + ", ".join(f"`{c}`" for c in _DECISION_COLUMNS)
        + " are equal, and the accuracy of each final model on as many clean "
        "rows of the same draw (the saved model's `predict` against the true "
        "labels), beside `HistGradientBoostingClassifier` fitted on the "
        "noisy labels (seed 0).",
        "",
        *finals,
        "",
        _load_line(load_start),
    ]
    write_section("scale-wide", "\n".join(lines))


def make_data(path: Path, n_rows: int, seed: int, n_classes: int = 2) -> None:
    """Write ``n_rows`` synthetic rows to ``path``, one row group at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    weights = np.random.default_rng(12345).normal(size=(N_FEATURES, n_classes))
    names = [f"f{i}" for i in range(N_FEATURES)]
    writer = None
    wrong = []
    try:
        for start in range(0, n_rows, ROW_GROUP):
            n = min(ROW_GROUP, n_rows - start)
            X = rng.normal(size=(n, N_FEATURES)).astype(np.float32)
            if n_classes == 2:
                score = X @ weights[:, 0] + 0.5 * rng.normal(size=n)
                y = (score > 0).astype(np.int64)
            else:
                score = X @ weights + 0.5 * rng.normal(size=(n, n_classes))
                y = np.argmax(score, axis=1).astype(np.int64)
            flipped = rng.random(n) < 0.2
            shift = rng.integers(1, n_classes, size=n)
            y[flipped] = (y[flipped] + shift[flipped]) % n_classes
            wrong.append(flipped)
            table = pa.table({**{c: X[:, i] for i, c in enumerate(names)}, "label": y})
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table, row_group_size=ROW_GROUP)
    finally:
        if writer is not None:
            writer.close()
    # which rows were flipped, beside the file (for the flag F1)
    np.save(_flipped_path(path), np.concatenate(wrong))


def _flipped_path(path: Path) -> Path:
    return Path(str(path) + ".flipped.npy")


def _f1(flagged: np.ndarray, flipped: np.ndarray) -> float:
    tp = float((flagged & flipped).sum())
    return 2 * tp / max(float(flagged.sum() + flipped.sum()), 1.0)


def _run_f1(out: Path, data: Path) -> float:
    """Flag F1 of a ``run``'s audit against the rows flipped in ``data``."""
    import pyarrow.parquet as pq

    decision = pq.read_table(out / "audit.parquet", columns=["decision"])
    flagged = decision.column("decision").to_numpy(zero_copy_only=False) != "kept"
    return _f1(flagged, np.load(_flipped_path(data)))


def _tree_rss(pid: int) -> float:
    """Resident memory (bytes) of a process and all its descendants."""
    import psutil

    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0.0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def timed(args: list[str], *, labelclean: bool = True) -> dict:
    """Run a command; return wall seconds, peak memory (MiB) and stderr.

    ``labelclean=True`` runs ``python -m labelclean ARGS``; otherwise ARGS is
    a whole ``python`` command line.
    """
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
        "LABELCLEAN_LOG_LEVEL": "INFO",
    }
    argv = [sys.executable, *(["-m", "labelclean"] if labelclean else []), *args]
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    peak = [0.0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            done.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out_chunks: list[str] = []
    reader = threading.Thread(
        target=lambda: out_chunks.append(proc.stdout.read()), daemon=True
    )
    reader.start()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    reader.join()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 7):
        raise RuntimeError(f"{' '.join(argv)} failed ({code}):\n{err[-3000:]}")
    return {
        "wall": wall,
        "rss": usage.ru_maxrss / 1024.0,
        "tree_rss": peak[0] / 2**20,
        "stderr": err,
        "stdout": "".join(out_chunks),
    }


def _times(stderr: str, what: str) -> dict[str, float]:
    """``{stage: seconds}`` from an INFO line ``WHAT times (s): a 1.0, b 2.0``."""
    match = re.search(rf"{what} times \(s\): ([^;\n]*)", stderr)
    if not match:
        return {}
    out = {}
    for part in match.group(1).split(", "):
        name, _, value = part.rpartition(" ")
        out[name] = float(value)
    return out


def _apply_rate(stderr: str) -> float | None:
    match = re.search(r"([0-9]+) rows/s while deciding and writing", stderr)
    return float(match.group(1)) if match else None


def cleanlab_child(path: str) -> None:
    """find_label_issues on 5-fold CV probabilities of HistGradientBoosting."""
    import pyarrow.parquet as pq
    from cleanlab.filter import find_label_issues
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    start = time.perf_counter()
    frame = pq.read_table(path).to_pandas()
    y = frame.pop("label").to_numpy()
    X = frame.to_numpy()
    proba = cross_val_predict(
        HistGradientBoostingClassifier(random_state=0),
        X,
        y,
        cv=StratifiedKFold(5, shuffle=True, random_state=0),
        method="predict_proba",
    )
    issues = find_label_issues(y, proba)
    print(f"cleanlab {time.perf_counter() - start:.1f} s, {int(issues.sum())} flagged")
    print(f"cleanlab F1 {_f1(issues, np.load(_flipped_path(Path(path)))):.4f}")


def plain_child(path: str) -> None:
    """HistGradientBoosting fitted on the noisy labels of ``path``: its
    accuracy on the clean rows beside it (:func:`_test_path`)."""
    import pyarrow.parquet as pq
    from sklearn.ensemble import HistGradientBoostingClassifier

    frame = pq.read_table(path).to_pandas()
    y = frame.pop("label").to_numpy()
    model = HistGradientBoostingClassifier(random_state=0).fit(frame.to_numpy(), y)
    test = pq.read_table(_test_path(Path(path))).to_pandas()
    truth = test.pop("label").to_numpy()
    print(f"plain accuracy {np.mean(model.predict(test.to_numpy()) == truth):.4f}")


def _cleanlab(data: Path) -> dict:
    """cleanlab's detection on ``data`` in its own process: wall, memory, F1."""
    res = timed(
        [str(Path(__file__).resolve()), "--child", "cleanlab", str(data)],
        labelclean=False,
    )
    res["f1"] = float(re.search(r"cleanlab F1 ([0-9.]+)", res["stdout"]).group(1))
    return res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--runs-only",
        action="store_true",
        help="only the two-class `run`s (1e4-1e6 rows), into section scale-run",
    )
    parser.add_argument(
        "--section", default="scale-run", help="section of --runs-only's results"
    )
    parser.add_argument(
        "--wide", action="store_true", help="wide tables, into section scale-wide"
    )
    parser.add_argument("--child", nargs=2, metavar=("WHAT", "PATH"))
    args = parser.parse_args()
    if args.child:
        what, path = args.child
        (plain_child if what == "plain" else cleanlab_child)(path)
        return
    if args.wide:
        wide(os.getloadavg())
        return
    run_sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    cases = ["two classes"] if args.runs_only else list(CASES)
    load_start = os.getloadavg()
    lines = [
        *section_head(
            "Scale: `run` and `apply` against rows (`benchmarks/scale.py`)",
            path_prefix="PYTHONPATH=. ",
        ),
        "Synthetic data: 20 float32 features; two classes (noisy linear rule, "
        "pipelines `binary-cbadaboost` and `bayes-cbadaboost`) or five "
        "(largest of five noisy linear scores, pipeline `multiclass-rosr`); "
        "20 % of labels flipped uniformly; "
        "seed 0. Each measurement is one `python -m labelclean` process (`run` "
        "with the default `--jobs -1`); peak memory is the largest resident set "
        "of the process and its children (sampled every 0.2 s).",
        "",
    ]
    with tempfile.TemporaryDirectory(dir=os.environ.get("SCALE_TMP")) as tmp:
        tmp = Path(tmp)
        run_rows = [
            "| case | rows | wall (s) | peak memory (MiB) | flag F1 | cleanlab wall "
            "(s) | cleanlab peak memory (MiB) | cleanlab flag F1 | wall labelclean "
            "/ cleanlab | stages (s) |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        exponents = []
        models = {}
        for case in cases:
            pipeline, n_classes = CASES[case]
            times = []
            for n in run_sizes:
                data = tmp / f"run_{pipeline}_{n}.parquet"
                make_data(data, n, seed=n, n_classes=n_classes)
                out = tmp / f"out_{pipeline}_{n}"
                res = timed(
                    [
                        "run",
                        str(data),
                        "-p",
                        pipeline,
                        "--label",
                        "label",
                        "--out",
                        str(out),
                    ]
                )
                err = res["stderr"]
                stages = {**_times(err, "run"), **_times(err, "stage")}
                # each stage's seconds and its share of the process's wall time
                stage_text = ", ".join(
                    f"{k} {v:.1f} ({100 * v / res['wall']:.0f} %)"
                    for k, v in stages.items()
                )
                times.append(res["wall"])
                models[(pipeline, n)] = out / "model.skops"
                peer = _cleanlab(data)
                run_rows.append(
                    f"| {case} | {n:,} | {res['wall']:.1f} | {res['tree_rss']:.0f} "
                    f"| {_run_f1(out, data):.4f} | {peer['wall']:.1f} | "
                    f"{peer['tree_rss']:.0f} | {peer['f1']:.4f} | "
                    f"{res['wall'] / peer['wall']:.2f} | {stage_text} |"
                )
                print(run_rows[-1], flush=True)
                data.unlink()
                _flipped_path(data).unlink()
            slope = np.polyfit(np.log(run_sizes), np.log(times), 1)[0]
            exponents.append(
                f"- {case}: time ∝ rows^**{slope:.2f}** "
                f"({run_sizes[0]:,} to {run_sizes[-1]:,} rows)"
            )
        lines += [
            "### `run` (every row fitted)",
            "",
            "Stages: `read`, `validate_input`, `fit` (itself `features`, "
            "`confidence`, `suspects`, `model_out_of_fold`, `decisions`, "
            "`final_model`), `outputs` (audit, cleaned data, report, model file); "
            "each with its share of the process's wall time, which also holds "
            "start-up and imports (the stages of `fit` are inside `fit`).",
            "",
            *run_rows,
            "",
            "Fitted exponent of wall time against rows (least squares on log-log):",
            "",
            *exponents,
            "",
        ]

        if args.runs_only:
            lines[0] = (
                "## Scale: `run` against rows, two classes (`scale.py --runs-only`)"
            )
            lines.append(_load_line(load_start))
            write_section(args.section, "\n".join(lines))
            return

        # -- apply ------------------------------------------------------------
        apply_rows = [
            "| model fitted on | engine | input rows | wall (s) | rows/s end to end "
            "| rows/s deciding and writing | peak memory (MiB) |",
            "|---|---|---|---|---|---|---|",
        ]
        apply_sizes = [1_000_000] if args.quick else [1_000_000, 10_000_000]
        fits = [run_sizes[0]] if args.quick else [run_sizes[0], run_sizes[-1]]
        for n in apply_sizes:
            data = tmp / f"apply_{n}.parquet"
            make_data(data, n, seed=n + 1)
            jobs = [(fit, "local") for fit in fits if n < 10_000_000 or fit == fits[0]]
            if n == apply_sizes[-1] and not args.quick:
                jobs.append((fits[0], "dask"))
            for fit, engine in jobs:
                out = tmp / f"app_{n}_{fit}_{engine}"
                res = timed(
                    [
                        "apply",
                        str(models["binary-cbadaboost", fit]),
                        str(data),
                        "--out",
                        str(out),
                        "--engine",
                        engine,
                    ]
                )
                rate = _apply_rate(res["stderr"])
                apply_rows.append(
                    f"| {fit:,} rows | {engine} | {n:,} | {res['wall']:.1f} | "
                    f"{n / res['wall']:,.0f} | "
                    f"{'n/a' if rate is None else f'{rate:,.0f}'} | "
                    f"{res['tree_rss']:.0f} |"
                )
                print(apply_rows[-1], flush=True)
            data.unlink()
        lines += [
            "### `apply` (streamed, batches of 65,536 rows; two classes)",
            "",
            "Models: the `run`s above. Rows/s end to end include start-up, "
            "imports, loading the model and writing every output; 'deciding and "
            "writing' leaves out start-up and loading (the command's own log). "
            "The Dask run starts a local cluster (one worker per core).",
            "",
            *apply_rows,
            "",
        ]

    lines.append(_load_line(load_start))
    write_section("scale", "\n".join(lines))


def _load_line(load_start) -> str:
    return (
        "Load average (1, 5, 15 min) at start "
        + ", ".join(f"{x:.2f}" for x in load_start)
        + "; at end "
        + ", ".join(f"{x:.2f}" for x in os.getloadavg())
        + "."
    )


if __name__ == "__main__":
    main()
