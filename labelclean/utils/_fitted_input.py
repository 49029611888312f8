"""New rows checked against what a fitted encoder was fitted on."""

from typing import Any

import pandas as pd

from labelclean.exceptions import DataValidationError
from labelclean.utils._column_kinds import check_fitted_frame, fitted_kinds

__all__ = ["check_fitted_input"]


def check_fitted_input(encoder: Any, X: Any, owner: str = "the pipeline") -> None:
    """:func:`~labelclean.utils._column_kinds.check_fitted_frame` for a
    DataFrame; an array where the encoder was fitted on named columns is
    refused with those names (``DataValidationError``), not with
    scikit-learn's message on column selection."""
    if isinstance(X, pd.DataFrame):
        check_fitted_frame(encoder, X)
        return
    fitted = list(fitted_kinds(encoder))
    if fitted:
        shown = ", ".join(repr(c) for c in fitted[:8])
        more = f" and {len(fitted) - 8} more" if len(fitted) > 8 else ""
        raise DataValidationError(
            f"{owner} was fitted on a DataFrame with columns {shown}{more}; pass "
            f"a DataFrame with those columns, not a {type(X).__name__}."
        )
