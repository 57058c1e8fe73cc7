"""Numbers as people and CSV files should see them (no pandas, no numba).

Re-exported by :mod:`oddslab.outcome`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "format_probability",
    "format_number",
    "format_estimate",
    "format_se",
    "json_records",
    "rows_to_csv",
    "csv_frame",
    "json_number",
]


def format_probability(p: float, digits: int = 4) -> str:
    """A probability for people: ``0.1234``; ``3.2e-06`` when small; ``0`` / ``1`` when exact.

    Never prints ``0.0000`` for an event that has a positive probability (nor ``1.0000`` for
    one that can fail): below ``10**-digits`` the value is shown in scientific form, and
    within ``10**-digits`` of 1 with two significant digits of ``1 - p`` (``0.9999968``).
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
        # enough decimals for two digits of 1 - p (0.999908): never "1" for an event that
        # can fail, and no minus sign to sit next to an interval's dash
        q = float(f"{1.0 - p:.1e}")  # 1 - p to two digits, without float noise
        return f"{p:.{min(12, 1 - math.floor(math.log10(q)))}f}"
    return f"{p:.{digits}f}"


def format_number(x: float, digits: int = 3) -> str:
    """A mean or other real number: fixed ``digits`` decimals, scientific when tiny but not 0."""
    if x != x:
        return "nan"
    if x != 0.0 and abs(x) < 0.5 * 10.0**-digits:
        return f"{x:.1e}"
    return f"{x:.{digits}f}"


def format_estimate(value: float, se: float | None) -> str:
    """An estimate with as many decimals as its standard error supports (one past the SE's
    first digit), at least 3 significant digits, and never a round number that is not
    exact: 0.99999 with SE 0.005 prints ``0.99999``, not ``1``; 2.99742 with SE 0.01
    ``2.997``."""
    if value != value:
        return "nan"
    if not se or se != se or se <= 0:
        return f"{value:.4g}"
    dec = max(0, 1 - math.floor(math.log10(se)))
    if value != 0:
        dec = max(dec, 2 - math.floor(math.log10(abs(value))))
    text = f"{value:.{dec}f}"
    while float(text) == round(float(text)) and float(text) != value and dec < 12:
        dec += 1  # a whole number that is not exact: show where it differs
        text = f"{value:.{dec}f}"
    return text


def format_se(se: float) -> str:
    """A standard error to two significant digits whatever its size (``0.0061``, ``0.10``,
    ``12``), as :func:`format_estimate` shows the value beside it (one decimal past the
    SE's first digit): never ``± 0.0`` for an SE that is not 0."""
    if se != se:
        return "nan"
    if se <= 0 or math.isinf(se):
        return f"{se:g}"
    if se < 1e-4:
        return f"{se:.1e}"
    se = float(f"{se:.1e}")  # two significant digits first: 0.0995 → 0.10, not 0.100
    dec = 1 - math.floor(math.log10(se))
    return f"{se:.{max(0, dec)}f}"


def csv_frame(df: Any, path: Any = None) -> str | None:
    """``df.to_csv`` without float noise (12 significant digits, as :func:`rows_to_csv`)."""
    return df.to_csv(path, index=False, float_format="%.12g")


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


def json_number(x: Any) -> Any:
    """``x`` for a JSON document: NaN and infinities (which JSON has not) become None, numpy
    scalars Python numbers; anything else as it is."""
    if isinstance(x, float | np.floating):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.bool_ | np.integer):
        return x.item()
    return x


def json_records(df: Any) -> list[dict[str, Any]]:
    """The rows of the DataFrame ``df`` as JSON-ready dicts: floats at full precision (JSON
    numbers round-trip a float64; ``DataFrame.to_json`` rounds to 10 decimals), NaN and
    missing values None, numpy scalars Python numbers."""
    import pandas as pd

    def cell(x: Any) -> Any:
        if x is pd.NA or x is pd.NaT:
            return None
        return json_number(x)

    return [{str(k): cell(v) for k, v in r.items()} for r in df.to_dict("records")]
