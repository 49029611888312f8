"""Do a change keep every output byte? Hash the outputs of a fixed set of runs.

A refactoring that claims "no behaviour change" records the hashes before and
checks them after::

    python benchmarks/same_outputs.py --write /tmp/before.json   # on the old commit
    python benchmarks/same_outputs.py --check /tmp/before.json   # on the new one

The runs go through the command line a user types (``labelclean demo``,
``run`` with every shipped pipeline, the streamed and the Dask engine,
``apply``, ``score``, ``report``) and through the Python API
(``LabelCleaner``), on the bundled wine data and a seeded noisy copy of
scikit-learn's breast-cancer table. Every file of every output folder is
hashed. Hashes depend on the installed library versions (pyarrow writes its
version into parquet files), so compare on one machine and one environment.
The runs use the library of the checkout the script is in (on the path
first, for the commands too), whatever checkout the environment installed.
"""

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import checkout_env
from labelclean.datasets import example_path
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner


def _breast_cancer(path: Path) -> None:
    data = load_breast_cancer(as_frame=True)
    frame = data.frame.drop(columns="target")
    labels = np.where(data.target.to_numpy() == 1, "benign", "malignant")
    frame["diagnosis"] = flip_labels(labels, 0.15, random_state=0)[0]
    frame.insert(0, "case", np.arange(len(frame)))
    frame.to_parquet(path, index=False)


def _runs() -> list[tuple[str, list[str]]]:
    wine = str(example_path())
    cancer = "cancer.parquet"  # relative: paths are written into reports
    runs = [("demo", ["demo", "--out", "{out}"])]
    for pipeline in ("binary-cbadaboost", "bayes-cbadaboost"):
        runs.append(
            (
                f"run-{pipeline}",
                [
                    "run",
                    cancer,
                    "-p",
                    pipeline,
                    "--label",
                    "diagnosis",
                    "--id",
                    "case",
                    "--out",
                    "{out}",
                ],
            )
        )
    runs += [
        (
            "run-multiclass-rosr",
            [
                "run",
                wine,
                "-p",
                "multiclass-rosr",
                "--label",
                "cultivar",
                "--out",
                "{out}",
            ],
        ),
        (
            "run-streamed",
            [
                "run",
                wine,
                "-p",
                "multiclass-rosr",
                "--label",
                "cultivar",
                "--max-fit-rows",
                "120",
                "--batch-size",
                "50",
                "--out",
                "{out}",
            ],
        ),
        (
            "run-fixed-rule",
            [
                "run",
                cancer,
                "-p",
                "binary-cbadaboost",
                "--label",
                "diagnosis",
                "--id",
                "case",
                "--correct-threshold",
                "0.9",
                "--suspect-confidence",
                "0.3",
                "--out",
                "{out}",
            ],
        ),
        (
            "apply",
            [
                "apply",
                "run-binary-cbadaboost/model.skops",
                cancer,
                "--out",
                "{out}",
            ],
        ),
        *(
            (
                f"score-{method}",
                [
                    "score",
                    cancer,
                    "--label",
                    "diagnosis",
                    "--id",
                    "case",
                    "--method",
                    method,
                    "--out",
                    "{out}/scores.parquet",
                ],
            )
            for method in ("knn", "bayes")
        ),
        ("report", ["report", "{out}/report.json"]),
    ]
    try:
        import dask.distributed  # noqa: F401

        runs.append(
            (
                "run-dask",
                [
                    "run",
                    wine,
                    "-p",
                    "multiclass-rosr",
                    "--label",
                    "cultivar",
                    "--engine",
                    "dask",
                    "--batch-size",
                    "60",
                    "--out",
                    "{out}",
                ],
            )
        )
    except ImportError:  # pragma: no cover
        print("dask is not installed: the Dask run is skipped", file=sys.stderr)
    return runs


def _hash_folder(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _python_api() -> dict[str, str]:
    frame = pd.read_parquet(example_path())
    y = frame.pop("cultivar")
    frame = frame.drop(columns="sample_id")
    cleaner = LabelCleaner(random_state=0).fit(frame, y)
    hashes = {}
    for name, table in (
        ("audit_", cleaner.audit_),
        ("fit_resample", pd.DataFrame({"label": cleaner.fit_resample(frame, y)[1]})),
        ("audit", cleaner.audit(frame, y)),
        ("predict_proba", pd.DataFrame(cleaner.predict_proba(frame))),
    ):
        table.columns = table.columns.astype(str)
        hashes[name] = hashlib.sha256(table.to_parquet()).hexdigest()
    return hashes


def collect(keep: Path | None = None) -> dict[str, dict[str, str]]:
    """Run everything in a temporary folder (or ``keep``); folder -> file -> sha256."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) if keep is None else keep
        work.mkdir(parents=True, exist_ok=True)
        _breast_cancer(work / "cancer.parquet")
        result = {}
        for name, argv in _runs():
            out = work / name
            if argv[0] in ("score", "report"):
                out.mkdir()
            if argv[0] == "report":  # render the demo's report.json again
                shutil.copy(work / "demo" / "report.json", out / "report.json")
            args = [a.format(out=name) for a in argv]
            if argv[0] in ("demo", "run", "score"):
                args += ["--seed", "0"]
            done = subprocess.run(
                [sys.executable, "-m", "labelclean", *args],
                capture_output=True,
                text=True,
                cwd=work,
                env=checkout_env(),
            )
            if done.returncode != 0:
                raise SystemExit(f"{name} failed ({done.returncode}):\n{done.stderr}")
            result[name] = _hash_folder(out)
            print(f"{name}: {len(result[name])} files", file=sys.stderr)
        result["python-api"] = _python_api()
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path, help="write the hashes to this JSON file")
    group.add_argument("--check", type=Path, help="compare with hashes written before")
    parser.add_argument(
        "--keep", type=Path, help="run in this folder and keep the outputs to compare"
    )
    args = parser.parse_args()
    now = collect(args.keep)
    if args.write:
        args.write.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"wrote {sum(map(len, now.values()))} hashes to {args.write}")
        return
    before = json.loads(args.check.read_text())
    differ = [
        f"{run}/{name}"
        for run in sorted(set(before) | set(now))
        for name in sorted(set(before.get(run, {})) | set(now.get(run, {})))
        if before.get(run, {}).get(name) != now.get(run, {}).get(name)
    ]
    total = sum(map(len, now.values()))
    if differ:
        print(f"{len(differ)} of {total} outputs differ:\n  " + "\n  ".join(differ))
        raise SystemExit(1)
    print(f"all {total} outputs byte-identical")


if __name__ == "__main__":
    main()
