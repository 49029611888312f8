"""labelclean: find, correct and discard wrong labels in tabular data.

The estimators live in subpackages (``labelclean.confidence``,
``labelclean.filters``, ``labelclean.ensemble``, ``labelclean.linear_model``;
``labelclean.papers`` configures them as their papers print them);
importing this top-level package is cheap and pulls in none of them.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
