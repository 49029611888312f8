"""Feature columns that number the rows in an order that groups the label.

Rows are often numbered in the order they were filed, and files are often
sorted by a class: a row number (R's ``rownames``, a surrogate key, a
saved index) then tells the label through the order alone. The evidence
uses it as a number like any other feature, so the agreement the run
reports may be the order's and not the features', and a wrong label filed
among the rows of its (wrong) class looks right beside them. Where the
numbering is a time (one row a year), the order may be evidence after all:
the person who knows the column decides, so the report names it (caution
``label_in_row_order``) and says how to leave it out.

A *numbering* is a feature column of whole numbers with a different value
in every labelled row (at least :data:`MIN_ROWS` of them; the validation's
``feature_looks_like_id`` warning reads it alike). It *groups the label*
where, taken in its order, each row's label agrees with the next row's at
least substantially beyond chance: Cohen's κ of the consecutive pairs, the
chance agreement read from the label's shares, at least :data:`MIN_KAPPA`
(the line of :mod:`labelclean.report._copies`). In an order that has
nothing to do with the label, κ is near 0.
"""

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from labelclean.report._copies import named_first

__all__ = ["MIN_KAPPA", "MIN_ROWS", "row_order_caution", "row_orders"]

#: Labelled rows needed before "a different value in every row" means a
#: numbering (as for the ``feature_looks_like_id`` warning).
MIN_ROWS = 20

#: Cohen's κ of the labels of consecutive rows, in the column's order.
MIN_KAPPA = 0.6


def _order_kappa(values: pd.Series, codes: np.ndarray) -> float:
    """κ of each row's label against the next row's, rows in ``values``'
    order (compared as integers: ids above 2**53 keep their order);
    chance from the labels' shares."""
    order = values.reset_index(drop=True).argsort(kind="stable").to_numpy()
    ordered = codes[order]
    agree = float(np.mean(ordered[1:] == ordered[:-1]))
    shares = np.bincount(codes) / codes.shape[0]
    chance = float(shares @ shares)
    return 0.0 if chance >= 1.0 else (agree - chance) / (1.0 - chance)


def row_orders(audit: pd.DataFrame, features: Sequence[Any]) -> list[dict[str, Any]]:
    """The numberings among ``features`` whose order groups the label.

    Parameters
    ----------
    audit : DataFrame
        An audit with the user's columns (``observed_label``, ``reason`` and
        the ``features``).
    features : sequence
        The columns the evidence was computed from.

    Returns
    -------
    orders : list of dict
        Per such column, in ``features``' order: ``column``; ``rows``, the
        labelled rows read; ``kappa``, the agreement of consecutive rows'
        labels beyond chance.

    Examples
    --------
    >>> import pandas as pd
    >>> audit = pd.DataFrame({
    ...     "row": range(1, 41),
    ...     "size": [float(i % 7) for i in range(40)],
    ...     "observed_label": ["a"] * 20 + ["b"] * 20,
    ... })
    >>> found = row_orders(audit, ["row", "size"])
    >>> [(o["column"], round(o["kappa"], 2)) for o in found]
    [('row', 0.95)]
    """
    labels = audit["observed_label"]
    labelled = labels.notna().to_numpy(copy=True)
    if "reason" in audit.columns:  # rows without a label are no judgement of one
        labelled &= audit["reason"].to_numpy(dtype=object) != "missing_label"
    codes = pd.factorize(labels[labelled])[0]
    if codes.shape[0] < MIN_ROWS or codes.max(initial=0) < 1:
        return []
    out = []
    for column in (c for c in features if c in audit.columns):
        series = audit[column]
        if pd.api.types.is_bool_dtype(series.dtype) or not (
            pd.api.types.is_integer_dtype(series.dtype)
        ):
            continue
        values = series[labelled]
        if values.isna().any() or values.nunique() < codes.shape[0]:
            continue
        kappa = _order_kappa(values, codes)
        if kappa >= MIN_KAPPA:
            out.append({"column": str(column), "rows": int(codes.shape[0]),
                        "kappa": kappa})  # fmt: skip
    return out


def row_order_caution(orders: Any) -> list[dict[str, str]]:
    """Caution ``label_in_row_order``: the numberings whose order groups the
    label (``run.row_orders``, :func:`row_orders`), the most telling named."""
    if not isinstance(orders, Sequence):
        return []
    found = [o for o in orders if isinstance(o, Mapping) and "column" in o]
    if not found:
        return []
    top, also = named_first(found, "kappa")
    name = top["column"]
    return [{
        "code": "label_in_row_order",
        "message": (
            f"column {name!r}{also} numbers the rows (a different whole number "
            "in each), and in its order consecutive rows share their label far "
            f"beyond chance (Cohen's κ {top['kappa']:.2f} over {top['rows']:,} "
            "rows): the evidence can read the label from the order the rows "
            "were numbered in, so its agreement with the labels may be the "
            "order's and not the features', and a wrong label filed among its "
            "class's rows looks right; if the numbering is no evidence of the "
            f"label, run again with --exclude {shlex.quote(name)}"
        ),
    }]  # fmt: skip
