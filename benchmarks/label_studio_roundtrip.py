"""The review round trip through a real Label Studio.

Needs a running Label Studio (``pip install label-studio`` in its own
environment, then ``LABEL_STUDIO_USERNAME=... LABEL_STUDIO_PASSWORD=...
label-studio start --no-browser --port 8089``). Runs ``labelclean run`` on a
seeded noisy table, ``labelclean review export`` to Label Studio tasks, creates
a project with the exported labelling interface, imports the tasks, annotates
some of them through Label Studio's API with the true labels (a simulated
reviewer), exports the project as Label Studio JSON and feeds that export to
``labelclean review apply``. Records what Label Studio accepted.

    python benchmarks/label_studio_roundtrip.py --url http://localhost:8089 \\
        --email review@example.com --password reviewpass123
"""

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import requests
from sklearn.datasets import make_blobs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import command, machine, write_section
from labelclean.noise import flip_labels
from labelclean.review import apply_review, export_review
from labelclean.runner import run_pipeline


def _session(url: str, email: str, password: str) -> tuple[requests.Session, dict]:
    s = requests.Session()
    s.get(f"{url}/user/login/", timeout=30)
    s.post(
        f"{url}/user/login/",
        data={"email": email, "password": password,
              "csrfmiddlewaretoken": s.cookies.get("csrftoken")},
        headers={"Referer": f"{url}/user/login/"},
        timeout=30,
    )  # fmt: skip
    return s, {"X-CSRFToken": s.cookies.get("csrftoken"), "Referer": url}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://localhost:8089")
    parser.add_argument("--email", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--tasks", type=int, default=25)
    parser.add_argument("--annotate", type=int, default=20)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp())
    X, y = make_blobs(800, centers=[[0, 0], [2.2, 2.2]], random_state=5)
    truth = np.array(["cat", "dog"])[y]
    noisy, _ = flip_labels(truth, 0.2, random_state=5)
    frame = pd.DataFrame(X, columns=["f1", "f2"])
    frame.insert(0, "key", [f"k{i}" for i in range(len(frame))])
    frame.assign(label=noisy).to_parquet(root / "in.parquet", index=False)
    truth_of = dict(zip(frame["key"], truth, strict=True))
    run_pipeline(root / "in.parquet", root / "run", pipeline="binary-cbadaboost",
                 label="label", id_column="key", seed=0)  # fmt: skip
    export_review(root / "run", root / "tasks.json", max_rows=args.tasks)
    s, headers = _session(args.url, args.email, args.password)
    version = s.get(f"{args.url}/api/version", timeout=30).json()
    project = s.post(
        f"{args.url}/api/projects", headers=headers, timeout=30,
        json={"title": "labelclean review",
              "label_config": (root / "tasks.label_config.xml").read_text()},
    )  # fmt: skip
    project.raise_for_status()
    pid = project.json()["id"]
    tasks = json.loads((root / "tasks.json").read_text())
    imported = s.post(f"{args.url}/api/projects/{pid}/import", headers=headers,
                      json=tasks, timeout=60)  # fmt: skip
    imported.raise_for_status()
    listed = s.get(f"{args.url}/api/tasks", params={"project": pid, "page_size": 1000},
                   timeout=30).json()  # fmt: skip
    listed = listed.get("tasks", listed) if isinstance(listed, dict) else listed
    for task in listed[: args.annotate]:
        label = truth_of[task["data"]["row_id"]]
        s.post(
            f"{args.url}/api/tasks/{task['id']}/annotations", headers=headers,
            timeout=30, json={"result": [{"from_name": "verdict", "to_name": "row",
                                          "type": "choices",
                                          "value": {"choices": [label]}}]},
        ).raise_for_status()  # fmt: skip
    exported = s.get(f"{args.url}/api/projects/{pid}/export",
                     params={"exportType": "JSON"}, timeout=60).json()  # fmt: skip
    (root / "export.json").write_text(json.dumps(exported))
    summary = apply_review(root / "run", root / "export.json", root / "reviewed")
    audit = pd.read_parquet(root / "reviewed" / "audit.parquet")
    done = audit[audit["reviewed"]]
    right = (done["cleaned_label"] == done["key"].map(truth_of)).mean()
    counts = imported.json()
    lines = [
        "## Review round trip through Label Studio (label_studio_roundtrip.py)",
        "",
        f"Machine: {machine()}; Label Studio {version.get('release', version)}",
        "",
        f"Command: `{command()}`",
        "",
        f"- `review export` wrote {len(tasks)} tasks; Label Studio's import API "
        f"accepted {counts['task_count']} tasks and {counts['prediction_count']} "
        "predictions into a project created with the exported labelling interface.",
        f"- {args.annotate} tasks annotated through Label Studio's API; its JSON "
        f"export held {len(exported)} tasks.",
        f"- `review apply` on that export: {summary['reviewed']} rows reviewed, "
        f"{summary['labels_changed_by_reviewers']} labels changed, measured flag "
        f"precision {summary['flag_precision']:.2f}; every reviewed row's cleaned "
        f"label equals its verdict ({right:.0%}).",
    ]
    print("\n".join(lines))
    write_section("label-studio", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
