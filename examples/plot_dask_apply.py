"""
=====================================================
Deciding the partitions of a dataset on a Dask cluster
=====================================================

Fit a :class:`~labelclean.pipeline.LabelCleaner` on the driver, send it once
to every worker, and decide every partition of a parquet dataset with the
same code the command line uses (``labelclean apply --engine dask``).
"""

# %%
# A small labelled dataset, with 20 % of the labels flipped, split in two files.
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from labelclean.noise import flip_labels

rng = np.random.RandomState(0)
X = rng.normal(size=(1200, 4))
y, flipped = flip_labels((X[:, 0] + X[:, 1] > 0).astype(int), 0.2, random_state=0)
frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(label=y)
folder = Path(tempfile.mkdtemp())
frame.iloc[:600].to_parquet(folder / "part-0.parquet", row_group_size=300)
frame.iloc[600:].to_parquet(folder / "part-1.parquet", row_group_size=300)

# %%
# Fit on the driver, here on the first 400 rows.
from labelclean.pipeline import LabelCleaner

features = ["a", "b", "c", "d"]
cleaner = LabelCleaner(cv=3, random_state=0)
cleaner.fit(frame.loc[:399, features], frame.loc[:399, "label"])

# %%
# A local cluster (pass an address, or set ``DASK_SCHEDULER_ADDRESS``, to use
# a real one). ``read_partitions`` gives one partition per row group, indexed
# by row position; ``audit_partition`` decides one partition.
from labelclean.runner import audit_partition, dask_client, read_partitions

with dask_client(n_workers=1, threads_per_worker=1, processes=False) as client:
    ddf = read_partitions(folder)
    shipped = client.scatter(cleaner, broadcast=True)
    meta = audit_partition(frame.iloc[:2], cleaner, label="label", features=features)
    audit = ddf.map_partitions(
        audit_partition, shipped, label="label", features=features, meta=meta.iloc[:0]
    ).compute()

print(audit["decision"].value_counts().to_dict())

# %%
# The same decisions as the fitted pipeline on the whole frame.
whole = cleaner.audit(frame[features], frame["label"])
assert audit["decision"].tolist() == whole["decision"].tolist()
flagged = (audit["decision"] != "kept").to_numpy()
print(
    f"flagged rows that were flipped: {(flagged & flipped).sum() / flagged.sum():.2f}"
)
