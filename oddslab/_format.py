"""Numbers as people and CSV files should see them (no pandas, no numba).

Re-exported by :mod:`oddslab.outcome`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["format_probability", "format_number", "rows_to_csv"]


def format_probability(p: float, digits: int = 4) -> str:
    """A probability for people: ``0.1234``; ``3.2e-06`` when small; ``0`` / ``1`` when exact.

    Never prints ``0.0000`` for an event that has a positive probability (nor ``1.0000`` for
    one that can fail): below ``10**-digits`` the value is shown in scientific form, and
    within ``10**-digits`` of 1 as ``1 − 3.2e-06``.
    """
    if p != p:  # NaN
        return "nan"
    if p <= 0.0:
        return "0"
    if p >= 1.0 or 1.0 - p < 1e-12:  # (below 1e-12: rounding in sums of exact pmfs)
        return "1"
    tiny = 10.0**-digits
    if p < tiny:
        return f"{p:.1e}"
    if 1.0 - p < tiny:
        return f"1 − {1.0 - p:.1e}"
    return f"{p:.{digits}f}"


def format_number(x: float, digits: int = 3) -> str:
    """A mean or other real number: fixed ``digits`` decimals, scientific when tiny but not 0."""
    if x != x:
        return "nan"
    if x != 0.0 and abs(x) < 0.5 * 10.0**-digits:
        return f"{x:.1e}"
    return f"{x:.{digits}f}"


def _csv_number(x: Any) -> str:
    """Shortest text for a CSV cell: no float noise (``0.3``, not ``0.30000000000000004``)."""
    if isinstance(x, bool) or x is None:
        return "" if x is None else str(x).lower()
    if isinstance(x, int | np.integer):
        return str(int(x))
    if isinstance(x, float | np.floating):
        return format(float(x), ".12g")
    return str(x)


def rows_to_csv(columns: tuple[str, ...] | list[str], rows: list) -> str:
    """CSV text of ``rows`` (sequences) under ``columns``, numbers without float noise."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([_csv_number(x) for x in r])
    return buf.getvalue()
