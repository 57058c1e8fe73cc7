"""Vom Kriege layout: column indices are distinct and inside their tables."""

from __future__ import annotations

from oddslab.rulesets.vom_kriege import layout as L


def _cols(prefix: str) -> dict[str, int]:
    return {
        k: v
        for k, v in vars(L).items()
        if k.startswith(prefix)
        and k[len(prefix)].isupper()
        and isinstance(v, int)
        and not k.endswith("NCOLS")
    }


def test_columns_distinct_and_in_range():
    for prefix, n in (
        ("U_", L.U_NCOLS),
        ("S_", L.S_NCOLS),
        ("LD_", L.LD_NCOLS),
        ("LS_", L.LS_NCOLS),
        ("R_", L.R_NCOLS),
        ("F_", L.F_NCOLS),
    ):
        cols = _cols(prefix)
        if prefix == "R_":
            cols = {
                k: v
                for k, v in cols.items()
                if k not in ("R_NONE", "R_FIRE", "R_RETIRE", "R_COUNTER", "R_SQUARE", "R_AUTO")
            }
        if prefix == "F_":
            cols = {
                k: v
                for k, v in cols.items()
                if not k.startswith(
                    (
                        "F_LINE",
                        "F_2RANK",
                        "F_COLUMN",
                        "F_MARCH",
                        "F_OPEN",
                        "F_SQUARE",
                        "F_LIMBERED",
                        "F_UNLIMBERED",
                    )
                )
            }
        assert len(set(cols.values())) == len(cols), prefix
        assert all(0 <= v < n for v in cols.values()), prefix
    assert L.A_ARTB + L.MAX_BATTERIES == L.A_NCOLS
    assert len(set(L.STAT_NAMES)) == L.N_STATS


def test_artillery_table_shape():
    assert len(L.ARTILLERY_FIRE_POINTS) == len(L.ARTILLERY_ROWS) == 4
    assert all(len(r) == len(L.BAND_LIMITS) for r in L.ARTILLERY_FIRE_POINTS)
