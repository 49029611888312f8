"""New rows checked against what a fitted encoder was fitted on."""

from typing import Any

import pandas as pd

from labelclean.exceptions import DataValidationError
from labelclean.utils._column_kinds import (
    as_fitted_codes,
    check_fitted_frame,
    fitted_kinds,
)

__all__ = ["check_fitted_input"]


def check_fitted_input(encoder: Any, X: Any, owner: str = "the pipeline") -> Any:
    """``X`` as the fitted encoder takes it: for a DataFrame, codes typed as
    numbers read as the text they were fitted as
    (:func:`~labelclean.utils._column_kinds.as_fitted_codes`), then
    :func:`~labelclean.utils._column_kinds.check_fitted_frame`; an array
    where the encoder was fitted on named columns is refused with those
    names (``DataValidationError``), not with scikit-learn's message on
    column selection."""
    if isinstance(X, pd.DataFrame):
        X = as_fitted_codes(encoder, X)
        check_fitted_frame(encoder, X)
        return X
    fitted = list(fitted_kinds(encoder))
    if fitted:
        shown = ", ".join(repr(c) for c in fitted[:8])
        more = f" and {len(fitted) - 8} more" if len(fitted) > 8 else ""
        raise DataValidationError(
            f"{owner} was fitted on a DataFrame with columns {shown}{more}; pass "
            f"a DataFrame with those columns, not a {type(X).__name__}."
        )
    return X
