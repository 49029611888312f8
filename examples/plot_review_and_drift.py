"""
==========================================================
A review round trip, then watching label noise week by week
==========================================================

Clean a labelled table, send the rows whose label is least settled to a
person, bring the verdicts back, let a second run learn from them, and check
each new batch for label-noise drift against the first one, as an ETL job
would (the same functions run ``labelclean review`` and ``labelclean
drift``).
"""

# %%
# A labelled table with 15 % of its labels flipped, and three weekly batches:
# two like it, one where twice as many rows of "dog" are labelled "cat".
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_blobs

from labelclean.drift import drift_report
from labelclean.noise import flip_labels
from labelclean.review import apply_review, export_review
from labelclean.runner import apply_model, run_pipeline

folder = Path(tempfile.mkdtemp())


def batch(seed, dog_to_cat):
    X, y = make_blobs(800, centers=[[0, 0], [3, 3]], random_state=seed)
    truth = np.array(["cat", "dog"])[y]
    noisy, _ = flip_labels(
        truth, {"cat": 0.1, "dog": dog_to_cat}, kind="class_conditional",
        random_state=seed,
    )  # fmt: skip
    frame = pd.DataFrame(X, columns=["width", "height"])
    frame.insert(0, "key", [f"s{seed}-{i}" for i in range(len(frame))])
    return frame.assign(label=noisy), dict(zip(frame["key"], truth, strict=True))


train, truth = batch(0, 0.1)
train.to_parquet(folder / "train.parquet", index=False)

# A small pipeline definition: KNN confidence and CB-AdaBoost (no SPLBoost
# stage, to keep the example quick); the shipped ones work the same way.
definition = folder / "quick.toml"
definition.write_text(
    '[pipeline]\nname = "quick"\n'
    '[[stages]]\nname = "confidence"\nkind = "knn"\n'
    '[[stages]]\nname = "model"\nkind = "cb_adaboost"\n'
    "params = { n_estimators = 50 }\n"
)

# %%
# Clean it.
run_pipeline(folder / "train.parquet", folder / "run", pipeline=definition,
             label="label", id_column="key")  # fmt: skip

# %%
# Export the 30 rows a reviewer's verdict would change most (a Label Studio
# task file works the same way: ``review.json``), fill in the verdicts (here
# from the true labels) and apply them.
rows = export_review(folder / "run", folder / "review.parquet", max_rows=30)
rows["verdict"] = rows["row_id"].map(truth)
rows.to_parquet(folder / "verdicts.parquet", index=False)
summary = apply_review(folder / "run", folder / "verdicts.parquet", folder / "reviewed")
print(f"{summary['reviewed']} rows reviewed; flag precision measured by the "
      f"reviewer: {summary['flag_precision']:.2f}")  # fmt: skip

# %%
# A second run takes the verdicts as known truth.
run_pipeline(
    folder / "train.parquet",
    folder / "run2",
    pipeline=definition,
    label="label",
    id_column="key",
    reviewed=folder / "verdicts.parquet",
)

# %%
# Each week's batch is decided by the fitted pipeline, and its label-noise
# profile compared with week 1's.
for week, share in ((1, 0.1), (2, 0.1), (3, 0.2)):
    frame, _ = batch(week, share)
    frame.to_parquet(folder / f"week{week}.parquet", index=False)
    apply_model(folder / "run2" / "model.skops", folder / f"week{week}.parquet",
                folder / f"week{week}")  # fmt: skip
drift = drift_report([folder / f"week{w}" for w in (1, 2, 3)], folder / "drift")
for alert in drift["alerts"]:
    name, label = Path(alert["run"]).name, alert["label"]
    print(
        f"drift in {name}: rows labelled {label!r} "
        f"{100 * alert['baseline']:.0f}% -> {100 * alert['value']:.0f}% wrong"
    )

# %%
# A fourth week arrives with ``width`` in millimetres instead of centimetres,
# a change upstream nobody announced. ``apply`` compares each column with what
# the fit saw: the guardrail ``features_within_fit`` fails and names the
# column, and the rows far outside the fit's range keep their labels (reason
# ``outside_fit``) instead of being judged by a model that never saw them.
frame, _ = batch(4, 0.1)
frame.assign(width=frame["width"] * 10).to_parquet(folder / "week4.parquet")
result = apply_model(folder / "run2" / "model.skops", folder / "week4.parquet",
                     folder / "week4")  # fmt: skip
print("failed:", result.failed_checks)
for caution in result.cautions:
    if caution["code"] == "features_shifted":
        print(caution["message"][:160], "...")
audit = pd.read_parquet(folder / "week4" / "audit.parquet")
print((audit["reason"] == "outside_fit").sum(), "rows kept as outside_fit")
