"""Example data shipped with labelclean (used by ``labelclean demo``)."""

from importlib import resources
from pathlib import Path

__all__ = ["example_path"]

_EXAMPLES = {
    "wine_noisy": (
        "scikit-learn's wine data (178 rows, 13 numeric features, 3 cultivars as "
        "strings) with 15 % of the labels flipped uniformly (seed 0), plus a "
        "`sample_id` column"
    ),
}


def example_path(name: str = "wine_noisy") -> Path:
    """Path of a bundled example parquet file.

    Parameters
    ----------
    name : {'wine_noisy'}, default='wine_noisy'
        The example.

    Returns
    -------
    path : Path
        The file inside the installed package (read it, never write it).
    """
    if name not in _EXAMPLES:
        raise ValueError(f"unknown example {name!r}; choose from {sorted(_EXAMPLES)}.")
    return Path(str(resources.files(__name__) / "data" / f"{name}.parquet"))
