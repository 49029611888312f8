"""Label-noise drift on a real change in how labels were recorded.

The Seattle weather table (``benchmarks/data/README.md``) holds 1,461 days
of 2012–2015. Its ``weather`` label comes from the NOAA record's weather
types, which stopped naming rain, drizzle and snow at the start of 2013: the
file the ``vega_datasets`` package ships labels most rainy days of
2013–2015 ``fog`` or ``sun``; the file the vega-datasets project corrected
in 2020 labels them ``rain``. The rows and their measurements are the same.

For each version of the labels, as a production job would run it: ``labelclean
run`` on 2012, ``labelclean apply`` of its model to 2013, 2014 and 2015 (one
batch a year), and ``labelclean drift`` of the four folders against 2012,
with the command's default limits. The corrected labels are the control: a
monitor should stay quiet on them and speak on the recorded ones.

Per version and year: the exit code of ``drift``, its alerts, and per class
the rows, the mean noise probability and the share of rows the model assigns
to another class (with its z score against 2012); and how many of the first
rows ``labelclean review export`` puts before a person for each later year
carry a label the corrected file does not (the next step after an alert).

    pip install -e ".[peers]"          # vega_datasets
    python benchmarks/drift_years.py   # section drift-years
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import section_head, write_section

DATA = Path(__file__).resolve().parent / "data" / "seattle-weather.csv"
TITLE = "Label-noise drift on a change in how labels were recorded (drift_years.py)"


def versions() -> dict[str, pd.DataFrame]:
    """The table with each version of its labels, the same rows."""
    from vega_datasets import local_data

    corrected = pd.read_csv(DATA, parse_dates=["date"])
    recorded = local_data.seattle_weather()
    columns = ["precipitation", "temp_max", "temp_min", "wind"]
    if not (recorded["date"].equals(corrected["date"])) or not recorded[columns].equals(
        corrected[columns]
    ):
        raise RuntimeError("vega_datasets' seattle_weather rows are not the file's")
    return {"recorded (vega_datasets 0.9)": recorded, "corrected (2020)": corrected}


def _labelclean(*args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("labelclean")
    return subprocess.run([str(exe), *args], capture_output=True, text=True)


def review_errors(folder: Path, rows: pd.DataFrame, truth: pd.Series, n: int) -> int:
    """How many of the ``n`` rows ``labelclean review export`` puts first for
    a person carry a label other than ``truth`` (the rows of that batch)."""
    out = folder.with_name(folder.name + "-review.csv")
    done = _labelclean("review", "export", str(folder), "--out", str(out),
                       "--max-rows", str(n))  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1])
    exported = pd.read_csv(out)["row_id"].to_numpy()
    recorded = rows["weather"].to_numpy()[exported]
    return int((recorded != truth.to_numpy()[exported]).sum())


def run_version(
    frame: pd.DataFrame, root: Path, truth: pd.Series, n_review: int
) -> tuple[int, dict, str, list[int]]:
    """run on 2012, apply to the later years, drift: the exit code of drift,
    drift.json, the last line of its stderr, and per later year the wrong
    labels (against ``truth``) among the first ``n_review`` rows exported for
    review, and whether ``apply`` gave the caution ``disagreement_rose``."""
    folders, review, said = [], [], []
    for year, rows in frame.groupby(frame["date"].dt.year):
        path = root / f"{year}.parquet"
        rows.drop(columns="date").reset_index(drop=True).to_parquet(path)
        out = root / str(year)
        if not folders:
            done = _labelclean("run", str(path), "--label", "weather", "-o", str(out))
        else:
            model = str(folders[0] / "model.skops")
            done = _labelclean("apply", model, str(path), "--out", str(out))
        if done.returncode != 0:
            raise RuntimeError(f"{year}: {done.stderr.strip().splitlines()[-1]}")
        if folders:
            said.append("[disagreement_rose]" in done.stderr)
            year_truth = truth[rows.index].reset_index(drop=True)
            review.append(
                review_errors(out, rows.reset_index(drop=True), year_truth, n_review)
            )
        folders.append(out)
    done = _labelclean("drift", *map(str, folders), "--out", str(root / "drift"))
    drift = json.loads((root / "drift" / "drift.json").read_text())
    last = (done.stderr.strip().splitlines() or [""])[-1]
    return done.returncode, drift, last.replace(f"{root}/", ""), review, said


def _cell(entry: dict) -> str:
    noise = (
        "not checked"
        if entry["not_checked"]
        else f"{100 * entry['mean_noise_probability']:.1f}%"
    )
    share, z = entry.get("disagreement_share"), entry.get("disagreement_z")
    model = "–" if share is None else f"{100 * share:.1f}%"
    if z is not None and entry.get("disagreement_increase") is not None:
        model += f" (z {z:+.1f})"
    alert = " **alert**" if entry["alert"] else ""
    return f"{entry['rows']}: {noise}; {model}{alert}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--section", default="drift-years")
    parser.add_argument("--review-rows", type=int, default=30)
    args = parser.parse_args()
    lines = [
        *section_head(TITLE),
        "Seattle weather, one batch a year: `labelclean run` on 2012, `apply` "
        "to 2013–2015, `drift` against 2012 (default limits: 5 points and 3 "
        "standard errors). Per class: rows; mean noise probability; share of "
        "the rows the model assigns to another class (z against 2012).",
        "",
    ]
    tables = versions()
    truth = tables["corrected (2020)"]["weather"]
    for name, frame in tables.items():
        with tempfile.TemporaryDirectory() as tmp:
            code, drift, last, review, said = run_version(
                frame, Path(tmp), truth, args.review_rows
            )
        labels = sorted({c for r in drift["runs"] for c in r["classes"]})
        grew = "; ".join(
            f"{g['label']} {100 * g['baseline']:.1f}% → {100 * g['value']:.1f}% "
            f"({Path(g['run']).name})"
            for g in drift["unchecked_growth"]
        )
        lines += [
            f"**Labels {name}**: `drift` exit {code}"
            + (f" ({last.removeprefix('error: ')})" if code else "")
            + ". Among the first "
            + f"{args.review_rows} rows `labelclean review export` puts before a "
            "person for 2013, 2014 and 2015, labels that differ from the "
            f"corrected ones: {', '.join(map(str, review))}. `apply`'s own "
            "caution `disagreement_rose` in 2013, 2014, 2015: "
            f"{', '.join('yes' if s else 'no' for s in said)}. Classes kept "
            f"unchecked whose share of the rows grew (a warning): {grew or 'none'}.",
            "",
            "| year | " + " | ".join(labels) + " |",
            "|---|" + "---|" * len(labels),
        ]
        for year, run in zip(range(2012, 2016), drift["runs"], strict=True):
            cells = [
                _cell(run["classes"][label]) if label in run["classes"] else "–"
                for label in labels
            ]
            lines.append(f"| {year} | " + " | ".join(cells) + " |")
        lines.append("")
        print(name, "exit", code, last, flush=True)
    write_section(args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
