"""The bad-input matrix: every case gets one clear answer and harms nothing.

Each case builds its files under ``tmp_path`` and runs one command through the
CLI (and, where the case applies to it, the same call through the Python API).
Every failing case asserts:

* exactly one line on stderr, ``error: ...``, holding the fragments that name
  the problem and the fix, and no traceback;
* the exit code of its class of error (docs/reliability.md):
  2 usage, 3 data, 4 input file, 5 output location, 6 definition or model file;
* no output and no stray files: every file under ``tmp_path`` (inputs, an
  existing output folder, the definition, the model) has the same bytes
  afterwards and no file or folder was added;
* the API raises the labelclean error class carrying the same exit code.

Cases that labelclean accepts by design (string, categorical, boolean,
datetime and duration features; a class with one row; fewer rows than
neighbours) are checked to succeed, to account for every row, and to leave the
input unchanged.
"""

import decimal
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from reliability_utils import (
    EXIT_DATA,
    EXIT_DEFINITION,
    EXIT_INPUT,
    EXIT_OUTPUT,
    EXIT_USAGE,
    FAST_PIPELINE,
    make_frame,
    tree_digest,
    write_pipeline,
)
from typer.testing import CliRunner

from labelclean.cli.main import app
from labelclean.confidence import KNNConfidence
from labelclean.ensemble import CBAdaBoostClassifier
from labelclean.exceptions import (
    DataValidationError,
    InputFileError,
    LabelcleanError,
    OutputError,
    PipelineDefinitionError,
)
from labelclean.pipeline import LabelCleaner
from labelclean.report import AUDIT_COLUMNS
from labelclean.runner import apply_model, run_pipeline

EXPECTED_CLASS = {
    EXIT_DATA: DataValidationError,
    EXIT_INPUT: InputFileError,
    EXIT_OUTPUT: OutputError,
    EXIT_DEFINITION: PipelineDefinitionError,
}


@dataclass
class Job:
    """One command: ``run`` or ``apply`` with its paths and options."""

    command: str
    input: Path
    out: Path
    pipeline: Path | str | None = None
    model: Path | None = None
    options: dict[str, Any] = field(default_factory=dict)
    extra_args: list[str] = field(default_factory=list)

    def cli_args(self) -> list[str]:
        if self.command == "apply":
            args = ["apply", str(self.model), str(self.input), "--out", str(self.out)]
        else:
            args = ["run", str(self.input), "--pipeline", str(self.pipeline)]
            args += ["--out", str(self.out)]
            if self.options.get("label"):
                args += ["--label", self.options["label"]]
            for name in self.options.get("features") or ():
                args += ["--feature", name]
            if self.options.get("id_column"):
                args += ["--id", self.options["id_column"]]
        return args + self.extra_args

    def call_api(self) -> Any:
        if self.command == "apply":
            return apply_model(self.model, self.input, self.out)
        return run_pipeline(
            self.input, self.out, pipeline=self.pipeline, **self.options
        )


# --------------------------------------------------------------------------
# Building the cases
# --------------------------------------------------------------------------


def _base(tmp: Path, frame: pd.DataFrame | None = None, **options: Any) -> Job:
    data = tmp / "data"
    data.mkdir(exist_ok=True)
    path = data / "input.parquet"
    if frame is not None:
        frame.to_parquet(path)
    return Job(
        command="run",
        input=path,
        out=tmp / "out",
        pipeline=write_pipeline(tmp),
        options={"label": "label", **options},
    )


def _with(column: str, values: Callable[[int], Any]) -> Callable[[Path], Job]:
    def build(tmp: Path) -> Job:
        frame = make_frame()
        frame[column] = values(len(frame))
        return _base(tmp, frame)

    return build


def _id_named(column: str) -> Callable[[Path], Job]:
    def build(tmp: Path) -> Job:
        frame = make_frame()
        frame[column] = [f"row-{i}" for i in range(len(frame))]
        return _base(tmp, frame, id_column=column)

    return build


def _pipeline(text: str) -> Callable[[Path], Job]:
    def build(tmp: Path) -> Job:
        job = _base(tmp, make_frame())
        job.pipeline = write_pipeline(tmp, text, name="custom")
        return job

    return build


def _set_feature(frame: pd.DataFrame, value: float) -> pd.DataFrame:
    frame.loc[3, "f2"] = value
    return frame


def _missing_label(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    job.options = {}  # the fast pipeline names no label column
    return job


def _duplicate_columns(tmp: Path) -> Job:
    job = _base(tmp)
    frame = make_frame()
    table = pa.table(
        [pa.array(frame.f1), pa.array(frame.f2), pa.array(frame.label)],
        names=["f1", "f1", "label"],
    )
    pq.write_table(table, job.input)
    return job


def _duplicate_columns_in_folder(tmp: Path) -> Job:
    job = _base(tmp)
    folder = tmp / "data" / "parts"
    folder.mkdir()
    for part in range(2):
        frame = make_frame(seed=part + 1)
        table = pa.table(
            [pa.array(frame.f1), pa.array(frame.f2), pa.array(frame.label)],
            names=["f1", "f1", "label"],
        )
        pq.write_table(table, folder / f"part-{part}.parquet")
    job.input = folder
    return job


def _zero_byte(tmp: Path) -> Job:
    job = _base(tmp)
    job.input.write_bytes(b"")
    return job


def _truncated(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    raw = job.input.read_bytes()
    job.input.write_bytes(raw[: len(raw) // 2])
    return job


def _csv_named_parquet(tmp: Path) -> Job:
    job = _base(tmp)
    make_frame().to_csv(job.input, index=False)
    return job


def _mixed_schemas(tmp: Path) -> Job:
    job = _base(tmp)
    folder = tmp / "data" / "parts"
    folder.mkdir()
    make_frame(seed=1).to_parquet(folder / "part-0.parquet")
    make_frame(seed=2).assign(f4=1.0).to_parquet(folder / "part-1.parquet")
    job.input = folder
    return job


def _changed_type_in_folder(tmp: Path) -> Job:
    job = _base(tmp)
    folder = tmp / "data" / "parts"
    folder.mkdir()
    make_frame(seed=1).to_parquet(folder / "part-0.parquet")
    second = make_frame(seed=2)
    second["f2"] = second["f2"].astype(str)  # text where numbers were
    second.to_parquet(folder / "part-1.parquet")
    job.input = folder
    return job


def _empty_folder(tmp: Path) -> Job:
    job = _base(tmp)
    (tmp / "data" / "empty").mkdir()
    job.input = tmp / "data" / "empty"
    return job


def _missing_input(tmp: Path) -> Job:
    job = _base(tmp)
    job.input = tmp / "data" / "nope.parquet"
    return job


def _previous_results(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    # A complete earlier result, as a run leaves it.
    from labelclean.io import OutputFolder

    with OutputFolder(job.out) as folder:
        folder.write_json("report.json", {"previous": True})
    return job


def _foreign_files(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    job.out.mkdir()
    (job.out / "thesis.tex").write_text("years of work")
    return job


def _out_is_input(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    job.out = job.input
    return job


def _out_inside_input(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    job.input = tmp / "data"
    job.out = tmp / "data" / "cleaned"
    return job


def _out_under_file(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    (tmp / "file.txt").write_text("not a folder")
    job.out = tmp / "file.txt" / "sub"
    return job


def _out_in_proc(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    job.out = Path("/proc/labelclean-out")
    return job


def _out_is_file(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    job.out = tmp / "results.parquet"
    job.out.write_bytes(b"someone's file")
    return job


# -- apply ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def fitted_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model.skops from a fast run (fitted once per module)."""
    folder = tmp_path_factory.mktemp("fitted")
    frame = make_frame()
    frame.to_parquet(folder / "train.parquet")
    result = run_pipeline(
        folder / "train.parquet",
        folder / "run",
        pipeline=write_pipeline(folder),
        label="label",
    )
    return Path(result.files["model.skops"])


def _apply(change: Callable[[pd.DataFrame], pd.DataFrame]) -> Callable[[Path], Job]:
    def build(tmp: Path, model: Path) -> Job:
        job = _base(tmp, change(make_frame(seed=5)))
        job.command = "apply"
        job.model = tmp / "model.skops"
        shutil.copyfile(model, job.model)
        return job

    build.needs_model = True  # type: ignore[attr-defined]
    return build


def _model_file(content: Callable[[bytes], bytes]) -> Callable[[Path, Path], Job]:
    def build(tmp: Path, model: Path) -> Job:
        job = _base(tmp, make_frame(seed=5))
        job.command = "apply"
        job.model = tmp / "model.skops"
        job.model.write_bytes(content(model.read_bytes()))
        return job

    build.needs_model = True  # type: ignore[attr-defined]
    return build


def _pickle_bytes(_: bytes) -> bytes:
    import pickle

    return pickle.dumps({"format": "labelclean-model"})


def _tampered(raw: bytes) -> bytes:
    """The real model with one object's type rewritten to ``os.system``."""
    import io
    import zipfile

    source, target = io.BytesIO(raw), io.BytesIO()
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "schema.json":
                data = data.replace(
                    b'"labelclean.pipeline._cleaner"', b'"os"', 1
                ).replace(b'"LabelCleaner"', b'"system"', 1)
            zout.writestr(item, data)
    return target.getvalue()


def _damaged_inside(raw: bytes) -> bytes:
    """The real model with bytes flipped inside its compressed schema: the
    archive's directory intact, the entry's data not (a bad disk block)."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        info = archive.getinfo("schema.json")
    assert info.compress_type == zipfile.ZIP_DEFLATED
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 200
    damaged = bytearray(raw)
    for k in range(start, start + 64):
        damaged[k] ^= 0x5A
    return bytes(damaged)


def _missing_model(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    job.command = "apply"
    job.model = tmp / "model.skops"
    return job


def _unrelated_features(tmp: Path) -> Job:
    # every value of every feature holds as many rows of each class
    frame = make_frame().assign(
        label=["a", "b"] * 20,
        f1=[0.0, 0.0, 1.0, 1.0] * 10,
        f2=([0.0] * 4 + [1.0] * 4) * 5,
        f3=([0.0] * 8 + [1.0] * 8) * 2 + [0.0] * 8,
    )
    return _base(tmp, frame)


def _threshold_out_of_range(tmp: Path) -> Job:
    job = _base(tmp, make_frame())
    job.extra_args = ["--correct-threshold", "2"]
    return job


# --------------------------------------------------------------------------
# The matrix
# --------------------------------------------------------------------------

_STAGE = '[[stages]]\nname = "confidence"\nkind = "knn_confidence"\n'

#: (id, builder, exit code, fragments of the message, applies to the API)
CASES = [
    # -- data (3) ---------------------------------------------------------------
    ("label-missing", _missing_label, EXIT_DATA,
     ["no label column", "pass --label"], True),
    ("label-misspelled", lambda t: _base(t, make_frame(), label="lable"), EXIT_DATA,
     ["label column 'lable' not found", "did you mean 'label'?"], True),
    ("feature-misspelled", lambda t: _base(t, make_frame(), features=["f1", "f22"]),
     EXIT_DATA, ["'f22'", "did you mean 'f2'?", "fix the feature list"], True),
    ("labels-all-null", _with("label", lambda n: [None] * n), EXIT_DATA,
     ["0 class(es) in 'label'", "at least two"], True),
    ("single-class", _with("label", lambda n: ["a"] * n), EXIT_DATA,
     ["1 class(es) in 'label'", "at least two"], True),
    ("label-row-ids", _with("label", lambda n: [f"r{i}" for i in range(n)]),
     EXIT_DATA, ["every one of the 40 classes in 'label' has a single row",
                 "choose the label column"], True),
    ("feature-inf", lambda t: _base(t, _set_feature(make_frame(), np.inf)), EXIT_DATA,
     ["feature column 'f2' has 1 infinite", "leave them missing",
      "--exclude f2 leaves it out."], True),
    ("feature-neg-inf", lambda t: _base(t, _set_feature(make_frame(), -np.inf)),
     EXIT_DATA, ["feature column 'f2' has 1 infinite"], True),
    ("feature-nested-list", _with("tags", lambda n: [[i, 1] for i in range(n)]),
     EXIT_DATA, ["feature column 'tags' holds nested values", "flatten it",
                 "--exclude tags leaves it out."], True),
    ("feature-dict-struct", _with("meta", lambda n: [{"k": i} for i in range(n)]),
     EXIT_DATA, ["feature column 'meta' holds nested values like dicts"], True),
    ("feature-bytes", _with("blob", lambda n: [bytes([i % 3]) for i in range(n)]),
     EXIT_DATA, ["feature column 'blob'", "cannot compare", "convert it",
                 "--exclude blob leaves it out."], True),
    ("features-all-constant",
     lambda t: _base(t, make_frame().assign(f1=1.0, f2=2.0, f3=3.0)), EXIT_DATA,
     ["every feature column is constant", "give feature columns that vary"], True),
    ("features-unrelated-to-label", _unrelated_features, EXIT_DATA,
     ["could not fit a single weak learner", "better than chance",
      "Give features that predict the label"], True),
    ("zero-rows", lambda t: _base(t, make_frame().iloc[:0]), EXIT_DATA,
     ["the input has no rows"], True),
    ("duplicate-column-names", _duplicate_columns, EXIT_DATA,
     ["column name(s) ['f1'] appear more than once", "rename them"], True),
    ("duplicate-column-names-in-folder", _duplicate_columns_in_folder, EXIT_DATA,
     ["column name(s) ['f1'] appear more than once", "rename them"], True),
    ("id-column-named-reason", _id_named("reason"), EXIT_DATA,
     ["the id column 'reason' has a name labelclean adds", "rename it"], True),
    ("apply-missing-column", _apply(lambda f: f.drop(columns="f2")), EXIT_DATA,
     ["lacks feature column(s) ['f2']", "training schema"], True),
    ("apply-timestamps-instead-of-numbers",
     _apply(lambda f: f.assign(f2=pd.date_range("2024", periods=len(f)))), EXIT_DATA,
     ["'f2': float64 at fit, datetime64", "stay a number", "cast them back"], True),
    ("apply-string-instead-of-number", _apply(lambda f: f.astype({"f3": str})),
     EXIT_DATA, ["'f3': float64 at fit", "cast them back"], True),
    ("apply-infinite-value", _apply(lambda f: _set_feature(f, np.inf)), EXIT_DATA,
     ["feature column 'f2' has 1 infinite", "leave them missing (NaN). The fitted "
      "model reads this column: mend its values in the batch."], True),
    ("apply-no-label", _apply(lambda f: f.drop(columns="label")), EXIT_DATA,
     ["no label column 'label'"], True),
    ("apply-unknown-class", _apply(lambda f: f.assign(label=f.label.replace("b", "z"))),
     EXIT_DATA, ["fitted classes ['a', 'b'], e.g. ['z']", "fit a new model"],
     True),
    # -- input files (4) ---------------------------------------------------------
    ("zero-byte-file", _zero_byte, EXIT_INPUT,
     ["is empty (0 bytes)", "Re-export it"], True),
    ("truncated-file", _truncated, EXIT_INPUT,
     ["is truncated or corrupt", "footer is missing", "Re-export it"], True),
    ("csv-named-parquet", _csv_named_parquet, EXIT_INPUT,
     ["is not a parquet file", "CSV", "convert it to parquet"], True),
    ("folder-mixed-columns", _mixed_schemas, EXIT_INPUT,
     ["do not share one schema", "extra column(s) ['f4']", "make the files agree"],
     True),
    ("folder-mixed-types", _changed_type_in_folder, EXIT_INPUT,
     ["do not share one schema", "column 'f2' is large_string instead of double"],
     True),
    ("empty-folder", _empty_folder, EXIT_INPUT,
     ["holds no parquet files", "point to a parquet file"], True),
    ("missing-input", _missing_input, EXIT_INPUT,
     ["does not exist", "check the path"], True),
    # -- output location (5) ----------------------------------------------------------
    ("out-holds-results", _previous_results, EXIT_OUTPUT,
     ["already holds results", "--overwrite", "choose a new folder"], True),
    ("out-holds-foreign-files", _foreign_files, EXIT_OUTPUT,
     ["holds files labelclean did not write (thesis.tex)", "new or empty folder"],
     True),
    ("out-is-input", _out_is_input, EXIT_OUTPUT,
     ["is the input", "choose a separate output folder"], True),
    ("out-inside-input-folder", _out_inside_input, EXIT_OUTPUT,
     ["lies inside the input folder", "outside the input"], True),
    ("out-under-a-file", _out_under_file, EXIT_OUTPUT,
     ["cannot create the output folder", "not a writable folder"], True),
    ("out-in-proc", _out_in_proc, EXIT_OUTPUT,
     ["cannot create the output folder", "choose another output location"], True),
    ("out-is-existing-file", _out_is_file, EXIT_OUTPUT,
     ["is an existing file, not a folder"], True),
    # -- pipeline definitions and model files (6) -------------------------------------
    ("definition-unknown-key",
     _pipeline('[pipeline]\nname = "x"\ncolour = "red"\n' + _STAGE), EXIT_DEFINITION,
     ["pipeline -> colour: unknown key", "allowed: name"], True),
    ("definition-misspelled-section", _pipeline('[pipline]\nname = "x"\n' + _STAGE),
     EXIT_DEFINITION, ["pipline: unknown section", "did you mean 'pipeline'?"], True),
    ("definition-unknown-kind",
     _pipeline('[[stages]]\nname = "c"\nkind = "knn_confidense"\n'), EXIT_DEFINITION,
     ["stages -> 0 -> kind: unknown stage kind 'knn_confidense'",
      "did you mean 'knn_confidence'?"], True),
    ("definition-unknown-param", _pipeline(_STAGE + "params = { n_neighbours = 3 }\n"),
     EXIT_DEFINITION, ["stages -> 0 -> params -> n_neighbours: unknown parameter",
                       "did you mean 'n_neighbors'?"], True),
    ("definition-out-of-range",
     _pipeline(_STAGE + "params = { n_neighbors = -3 }\n"
               "[decisions]\ncorrect_threshold = 1.5\n"),
     EXIT_DEFINITION, ["2 problem(s)", "correct_threshold: must be in [0, 1], got 1.5",
                       "n_neighbors", "Got -3"], True),
    ("definition-duplicate-stage", _pipeline(_STAGE + _STAGE), EXIT_DEFINITION,
     ["duplicate stage name 'confidence'"], True),
    ("definition-not-toml", _pipeline("[[stages]\nname ="), EXIT_DEFINITION,
     ["is not valid TOML", "line 1"], True),
    ("definition-unknown-name",
     lambda t: Job("run", _base(t, make_frame()).input, t / "out", "fastt",
                   options={"label": "label"}),
     EXIT_DEFINITION, ["unknown pipeline 'fastt'", "available:"], True),
    ("definition-no-confidence-stage",
     _pipeline('[[stages]]\nname = "m"\nkind = "cb_adaboost"\n'), EXIT_DEFINITION,
     ["need exactly one confidence stage"], True),
    ("model-is-text", _model_file(lambda raw: b"hello"), EXIT_DEFINITION,
     ["is not a labelclean model file", "pass the model file"], True),
    ("model-is-pickle", _model_file(_pickle_bytes), EXIT_DEFINITION,
     ["is not a labelclean model file"], True),
    ("model-truncated", _model_file(lambda raw: raw[: len(raw) // 2]), EXIT_DEFINITION,
     ["is not a labelclean model file"], True),
    ("model-damaged-inside", _model_file(_damaged_inside), EXIT_DEFINITION,
     ["model.skops' is damaged", "decompressing", "pass the model file"], True),
    ("model-tampered", _model_file(_tampered), EXIT_DEFINITION,
     ["refusing to load", "os.system", "tampered with"], True),
    ("model-missing", _missing_model, EXIT_INPUT, ["model file", "does not exist"],
     True),
    # -- usage (2): typer rejects these before labelclean runs ------------------------
    ("cli-threshold-out-of-range", _threshold_out_of_range, EXIT_USAGE,
     ["'--correct-threshold'", "less than or equal"], False),
]  # fmt: skip


def _build(builder, tmp: Path, request: pytest.FixtureRequest) -> Job:
    if getattr(builder, "needs_model", False):
        return builder(tmp, request.getfixturevalue("fitted_model"))
    return builder(tmp)


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one stderr line, got:\n{stderr}"
    assert "Traceback" not in stderr
    return lines[0]


def _digest_outside_proc(tmp: Path) -> dict[str, str]:
    return tree_digest(tmp)


@pytest.mark.parametrize(
    "builder, code, fragments",
    [pytest.param(b, c, f, id=i) for i, b, c, f, _ in CASES],
)
def test_cli_bad_input(tmp_path, request, builder, code, fragments):
    job = _build(builder, tmp_path, request)
    before = tree_digest(tmp_path)

    result = CliRunner().invoke(app, job.cli_args())

    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    assert not isinstance(result.exception, LabelcleanError)
    if code == EXIT_USAGE:
        # typer's own usage message (a short framed block naming the option).
        assert "Traceback" not in result.stderr
        assert "Invalid value" in result.stderr
        line = result.stderr
    else:
        line = _one_error_line(result.stderr)
        assert line.startswith("error: ")
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    # stdout holds no result: at most the line naming the features, printed
    # before a fit that then failed.
    assert result.stdout == "" or re.fullmatch(
        r"label '[^\n]*'; \d+ feature\(s\) \([^\n]*\): [^\n]*\n", result.stdout
    ), result.stdout
    # Inputs, definitions, models and any earlier output folder keep their
    # bytes; nothing (not even a hidden staging folder) was added.
    assert tree_digest(tmp_path) == before
    if job.out.is_relative_to("/proc"):
        assert not job.out.exists()


@pytest.mark.parametrize(
    "builder, code, fragments",
    [pytest.param(b, c, f, id=i) for i, b, c, f, api in CASES if api],
)
def test_api_bad_input(tmp_path, request, builder, code, fragments):
    job = _build(builder, tmp_path, request)
    before = tree_digest(tmp_path)

    with pytest.raises(EXPECTED_CLASS[code]) as info:
        job.call_api()

    assert info.value.exit_code == code
    message = str(info.value)
    for fragment in fragments:
        if fragment.startswith("--"):  # CLI spelling of an option
            continue
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert tree_digest(tmp_path) == before


def test_the_matrix_is_large_and_distinct():
    ids = [case[0] for case in CASES]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 30
    assert {case[2] for case in CASES} == {2, 3, 4, 5, 6}


# --------------------------------------------------------------------------
# Cases labelclean accepts by design
# --------------------------------------------------------------------------


def _every_supported_kind(tmp: Path) -> Job:
    frame = make_frame()
    n = len(frame)
    frame["colour"] = [f"c{i % 3}" for i in range(n)]
    frame["size"] = pd.Categorical([f"s{i % 4}" for i in range(n)])
    frame["flag"] = np.arange(n) % 3 == 0
    frame["count"] = pd.array(range(n), "Int64")
    frame["small"] = np.arange(n, dtype=np.int8)
    frame["when"] = pd.date_range("2024", periods=n)
    frame["when_tz"] = pd.date_range("2024", periods=n, tz="Europe/Paris")
    frame["took"] = pd.to_timedelta(np.arange(n), unit="s")
    frame["ratio"] = np.linspace(0, 1, n).astype(np.float32)
    return _base(tmp, frame)


ACCEPTED = [
    # Every kind runs; the per-row counters and the timestamps are named as
    # columns that should probably not be features.
    ("strings-categoricals-booleans-ints-datetimes-durations",
     _every_supported_kind, "column 'count' has a different value in every row"),
    ("class-with-one-row",
     _with("label", lambda n: ["c", *(["a", "b"] * n)[: n - 1]]),
     "class(es) ['c'] have a single row"),
    ("fewer-rows-than-neighbours", lambda t: _base(t, make_frame(n=5)),
     "fewer than n_neighbors=5"),
    # Four rows of a third class, each among the rows of 'a': the noise
    # filter keeps them, once, naming the class and its rows.
    ("rare-class-inside-another",
     _with("label", lambda n: ["r" if i in (0, 10, 20, 30) else "ab"[i % 2]
                               for i in range(n)]),
     "the noise filter would remove every remaining row of class(es) 'r' ("),
    # Databases write exact numbers and calendar dates (decimal128, date32):
    # used as numbers and dates (and judged so: the date is a timestamp, the
    # amounts are not an id), kept as they came in the outputs.
    ("decimal-and-date32-features",
     lambda t: _base(t, make_frame().assign(
         price=lambda f: [decimal.Decimal(i) / 4 for i in range(len(f))],
         day=lambda f: pd.date_range("2024", periods=len(f)).date)),
     "feature column 'day' holds timestamps"),
    # A row without a label is discarded (reason missing_label), not fitted on.
    ("labels-some-null",
     _with("label", lambda n: [None, *(["a", "b"] * n)[: n - 1]]),
     "1 row(s) have no label in 'label'; they are discarded (reason "
     "missing_label) and not fitted on"),
    # Real tables have such columns: the audit holds them as '<name>_input'.
    ("column-named-decision", _with("decision", lambda n: np.arange(n) % 2),
     "['decision'] have names labelclean adds to its output; the audit holds "
     "them as ['decision_input']"),
    ("columns-named-confidence-and-reason",
     lambda t: _base(t, make_frame().assign(confidence=0.5, reason="x")),
     "['confidence', 'reason'] have names labelclean adds"),
]  # fmt: skip


@pytest.mark.parametrize(
    "builder, warning", [pytest.param(b, w, id=i) for i, b, w in ACCEPTED]
)
def test_cli_accepted_input(tmp_path, builder, warning):
    job = _build(builder, tmp_path, None)
    source = job.input.read_bytes()
    frame = pd.read_parquet(job.input)

    result = CliRunner().invoke(app, job.cli_args())

    assert result.exit_code == 0, (result.stderr, result.exception)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert all(line.startswith("WARNING: ") for line in lines), lines
    assert len(lines) == len(set(lines)), "a warning was repeated"
    # The report's cautions close the log, one line each, as report.json has
    # them; they speak of the evidence, the other lines of the input.
    cautions = json.loads((job.out / "report.json").read_text())["cautions"]
    said = [f"WARNING: [{c['code']}] {c['message']}" for c in cautions]
    assert lines[len(lines) - len(said) :] == said
    lines = lines[: len(lines) - len(said)]
    if warning:
        assert any(warning in line for line in lines), lines
    else:
        assert lines == []
    audit = pd.read_parquet(job.out / "audit.parquet")
    assert len(audit) == len(frame)
    assert audit.index.equals(frame.index)
    assert set(audit["decision"]) <= {"kept", "corrected", "discarded"}
    assert job.input.read_bytes() == source
    # Every user column is in the audit, under its name or '<name>_input'
    # when labelclean adds a column of that name; the cleaned data keeps the
    # user's names and values.
    cleaned = pd.read_parquet(job.out / "cleaned.parquet")
    assert list(cleaned.columns) == list(frame.columns)
    for column in frame.columns:
        kept = f"{column}_input" if column in AUDIT_COLUMNS else column
        pd.testing.assert_series_equal(
            audit[kept], frame[column], check_names=False, check_dtype=False
        )
        if column != "label":
            pd.testing.assert_series_equal(
                cleaned[column], frame.loc[cleaned.index, column]
            )


# --------------------------------------------------------------------------
# The same problems through the estimators
# --------------------------------------------------------------------------


def _xy(n: int = 30):
    frame = make_frame(n=n)
    return frame.drop(columns="label"), frame["label"]


def _api_case(change):
    X, y = _xy()
    return change(X.copy(), y.copy())


ESTIMATOR_CASES = [
    ("labels-all-null", lambda X, y: (X, pd.Series([None] * len(y))),
     r"missing label\(s\)"),
    ("single-class", lambda X, y: (X, pd.Series(["a"] * len(y))), "only 1 class"),
    ("feature-inf", lambda X, y: (X.assign(f1=[np.inf, *X.f1[1:]]), y),
     "contains infinity|feature column 'f1' has 1 infinite value"),
    ("feature-nested", lambda X, y: (X.assign(t=[[i] for i in range(len(X))]), y),
     "cannot compare"),
    ("feature-bytes", lambda X, y: (X.assign(t=[b"x"] * len(X)), y), "cannot compare"),
    ("zero-rows", lambda X, y: (X.iloc[:0], y.iloc[:0]), "0 (rows|sample)"),
    ("duplicate-columns", lambda X, y: (X.set_axis(["f", "f", "g"], axis=1), y),
     r"duplicate column names \['f'\]"),
    ("length-mismatch", lambda X, y: (X, y.iloc[:-1]), "29 labels but X has 30 rows"),
]  # fmt: skip


def _fast_cleaner() -> LabelCleaner:
    return LabelCleaner(
        confidence=KNNConfidence(n_neighbors=5),
        suspects=None,
        model=CBAdaBoostClassifier(n_estimators=5),
        cv=2,
        random_state=0,
    )


@pytest.mark.parametrize(
    "make, pattern", [pytest.param(m, p, id=i) for i, m, p in ESTIMATOR_CASES]
)
@pytest.mark.parametrize("estimator", ["KNNConfidence", "LabelCleaner"])
def test_estimators_bad_input(make, pattern, estimator):
    X, y = _api_case(make)
    X_before, y_before = X.copy(), y.copy()
    est = (
        KNNConfidence(n_neighbors=5)
        if estimator == "KNNConfidence"
        else (_fast_cleaner())
    )
    # NaN, inf and zero rows at KNNConfidence are scikit-learn's own
    # ValueErrors (the estimator contract); everything else is labelclean's.
    with pytest.raises(ValueError, match=pattern) as info:
        est.fit(X, y)
    sklearn_says = re.search("contains|sample", str(info.value))
    if estimator == "LabelCleaner" or not sklearn_says:
        assert isinstance(info.value, DataValidationError)
    pd.testing.assert_frame_equal(X, X_before)
    pd.testing.assert_series_equal(y, y_before)


def test_fast_pipeline_is_valid():
    import tomllib

    from labelclean.pipeline import parse_pipeline

    parse_pipeline(tomllib.loads(FAST_PIPELINE))
