"""The review round trip through a real Label Studio.

Runs ``labelclean run`` on a seeded noisy table, ``labelclean review export``
to Label Studio tasks, creates a project with the exported labelling
interface, imports the tasks, annotates some of them through Label Studio's
API with the true labels (a simulated reviewer), exports the project as
Label Studio JSON and feeds that export to ``labelclean review apply``.
Records what Label Studio accepted.

Label Studio lives in its own environment (``python -m venv ls &&
ls/bin/pip install -c .ci/label-studio-constraints.txt label-studio``).
Either let the script start it on a fresh database, or point it at a running
one::

    python benchmarks/label_studio_roundtrip.py --label-studio ls/bin/label-studio
    python benchmarks/label_studio_roundtrip.py --url http://localhost:8089 \\
        --email review@example.com --password reviewpass123
"""

import argparse
import contextlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_blobs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import _label_studio
from benchmarks._common import command, machine, write_section
from labelclean.noise import flip_labels
from labelclean.review import apply_review, export_review
from labelclean.runner import run_pipeline


def roundtrip(
    client: _label_studio.Client, root: Path, tasks: int, annotate: int
) -> list:
    """The round trip in ``root``; returns the lines of the result section."""
    X, y = make_blobs(800, centers=[[0, 0], [2.2, 2.2]], random_state=5)
    truth = np.array(["cat", "dog"])[y]
    noisy, _ = flip_labels(truth, 0.2, random_state=5)
    frame = pd.DataFrame(X, columns=["f1", "f2"])
    frame.insert(0, "key", [f"k{i}" for i in range(len(frame))])
    frame.assign(label=noisy).to_parquet(root / "in.parquet", index=False)
    truth_of = dict(zip(frame["key"], truth, strict=True))
    run_pipeline(root / "in.parquet", root / "run", pipeline="binary-cbadaboost",
                 label="label", id_column="key", seed=0)  # fmt: skip
    export_review(root / "run", root / "tasks.json", max_rows=tasks)
    project = client.create_project(
        "labelclean review", (root / "tasks.label_config.xml").read_text()
    )
    exported_tasks = json.loads((root / "tasks.json").read_text())
    counts = client.import_tasks(project, exported_tasks)
    for task in client.tasks(project)[:annotate]:
        client.annotate(task["id"], truth_of[task["data"]["row_id"]])
    exported = client.export(project)
    (root / "export.json").write_text(json.dumps(exported))
    summary = apply_review(root / "run", root / "export.json", root / "reviewed")
    audit = pd.read_parquet(root / "reviewed" / "audit.parquet")
    done = audit[audit["reviewed"]]
    right = (done["cleaned_label"] == done["key"].map(truth_of)).mean()
    return [
        "## Review round trip through Label Studio (label_studio_roundtrip.py)",
        "",
        f"Machine: {machine()}; Label Studio {client.version()}",
        "",
        f"Command: `{command()}`",
        "",
        f"- `review export` wrote {len(exported_tasks)} tasks; Label Studio's "
        f"import API accepted {counts['task_count']} tasks and "
        f"{counts['prediction_count']} predictions into a project created with "
        "the exported labelling interface.",
        f"- {annotate} tasks annotated through Label Studio's API; its JSON "
        f"export held {len(exported)} tasks.",
        f"- `review apply` on that export: {summary['reviewed']} rows reviewed, "
        f"{summary['labels_changed_by_reviewers']} labels changed, measured flag "
        f"precision {summary['flag_precision']:.2f}; every reviewed row's cleaned "
        f"label equals its verdict ({right:.0%}).",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--label-studio", help="the label-studio executable to start")
    where.add_argument("--url", help="a running Label Studio")
    parser.add_argument("--email", default=_label_studio.EMAIL)
    parser.add_argument("--password", default=_label_studio.PASSWORD)
    parser.add_argument("--tasks", type=int, default=25)
    parser.add_argument("--annotate", type=int, default=20)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp())
    with contextlib.ExitStack() as stack:
        url = args.url or stack.enter_context(
            _label_studio.started(args.label_studio, root)
        )
        client = _label_studio.Client(url, args.email, args.password)
        lines = roundtrip(client, root, args.tasks, args.annotate)
    print("\n".join(lines))
    write_section("label-studio", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
