"""The model file: its size, and the time to write and read it.

A fitted cleaner is saved as ``model.skops`` by ``labelclean run``
(:func:`labelclean.pipeline.dumps_cleaner`) and read by every ``apply``
(:func:`labelclean.pipeline.loads_cleaner`). For each table the script fits
``LabelCleaner(random_state=0)`` on the table with 10 % of its labels
flipped, then measures, best of ``--reps`` runs each:

- ``dumps_cleaner``: seconds and bytes of the archive as labelclean writes it;
- the same archive with every entry stored uncompressed (zip's ``stored``,
  the same files inside, byte for byte): its bytes and the seconds to read
  it, the archive as labelclean wrote it before it compressed its entries;
- ``loads_cleaner`` of both: seconds; the loaded cleaners give the same
  ``predict_proba`` bytes on the table as the fitted one (checked);
- the peer: ``joblib.dump`` of the same fitted cleaner (pickle, zlib level
  3, the usual way to save a scikit-learn model; it may execute code when
  loaded, which skops refuses), its bytes and seconds to write and read.
  The pickle holds the per-row results too (the audit, the evidence),
  which the model file leaves out.

    python benchmarks/model_file.py
    python benchmarks/model_file.py --rows 20000 100000 --section model-file-large
"""

import argparse
import io
import sys
import tempfile
import warnings
import zipfile
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_wine,
    make_classification,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import Timer, section_head, write_section
from labelclean.noise import flip_labels
from labelclean.pipeline import LabelCleaner, dumps_cleaner, loads_cleaner


def tables(rows: list[int]):
    """``(name, X, y)``: three bundled tables and ``make_classification``
    (20 features, 10 informative, 2 classes) at each of ``rows``."""
    for name, loader in (
        ("wine", load_wine),
        ("breast_cancer", load_breast_cancer),
        ("digits", load_digits),
    ):
        X, y = loader(return_X_y=True)
        yield name, X, y
    for n in rows:
        X, y = make_classification(
            n_samples=n, n_features=20, n_informative=10, random_state=0
        )
        yield f"make_classification {n:,}", X.astype(np.float32), y


def stored(archive: bytes) -> bytes:
    """``archive`` with the same entries, each stored uncompressed."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(archive)) as source,
        zipfile.ZipFile(out, "w") as target,
    ):
        for item in source.infolist():
            info = zipfile.ZipInfo(item.filename, date_time=item.date_time)
            info.external_attr = item.external_attr  # compress_type: stored
            target.writestr(info, source.read(item.filename))
    return out.getvalue()


def best(reps: int, call):
    """(fastest seconds, last value) of ``reps`` calls of ``call()``."""
    times, value = [], None
    for _ in range(reps):
        with Timer() as t:
            value = call()
        times.append(t.seconds)
    return min(times), value


def measure(name, X, y, reps: int) -> dict:
    y_noisy, _ = flip_labels(y, 0.1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cleaner = LabelCleaner(random_state=0).fit(X, y_noisy)
    expected = cleaner.predict_proba(X).tobytes()
    row = {"table": name, "rows": X.shape[0], "model": cleaner.model_name_}
    row["write"], archive = best(reps, lambda: dumps_cleaner(cleaner))
    plain = stored(archive)
    row["bytes"], row["stored_bytes"] = len(archive), len(plain)
    row["read"], (loaded, _) = best(reps, lambda: loads_cleaner(archive))
    row["stored_read"], (loaded_plain, _) = best(reps, lambda: loads_cleaner(plain))
    row["same"] = all(
        m.predict_proba(X).tobytes() == expected for m in (loaded, loaded_plain)
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cleaner.joblib"
        row["peer_write"], _ = best(reps, lambda: joblib.dump(cleaner, path, 3))
        row["peer_bytes"] = path.stat().st_size
        row["peer_read"], _ = best(reps, lambda: joblib.load(path))
    return row


def render(rows: list[dict], reps: int) -> str:
    lines = section_head("The model file: size, write and read (model_file.py)")
    lines += [
        f"`LabelCleaner(random_state=0)` fitted on each table with 10 % of its "
        f"labels flipped; best of {reps} runs of each step. *stored*: the same "
        "archive with its entries uncompressed (as labelclean wrote it before "
        "it compressed them); *joblib*: the peer, `joblib.dump(cleaner, path, "
        "3)` of the same fitted cleaner (pickle, per-row results included). "
        "same: the loaded cleaners (compressed and stored) give the fitted "
        "one's `predict_proba` bytes.",
        "",
        "| table | rows | final model | model file (MB) | stored (MB) | ratio | "
        "write (s) | read (s) | read stored (s) | joblib (MB) | joblib write / "
        "read (s) | same |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['table']} | {r['rows']:,} | {r['model']} | "
            f"{r['bytes'] / 1e6:.2f} | {r['stored_bytes'] / 1e6:.2f} | "
            f"{r['bytes'] / r['stored_bytes']:.3f} | {r['write']:.2f} | "
            f"{r['read']:.2f} | {r['stored_read']:.2f} | "
            f"{r['peer_bytes'] / 1e6:.2f} | {r['peer_write']:.2f} / "
            f"{r['peer_read']:.2f} | {r['same']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[10_000])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--section", default="model-file")
    args = parser.parse_args(argv)
    rows = []
    for name, X, y in tables(args.rows):
        rows.append(measure(name, X, y, args.reps))
        print(pd.Series(rows[-1]).to_dict(), flush=True)
    body = render(rows, args.reps)
    print(body)
    write_section(args.section, body)


if __name__ == "__main__":
    main()
