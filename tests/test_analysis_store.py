"""The SQLite cell store."""

from __future__ import annotations

import pytest

from oddslab._schema import ScenarioError
from oddslab.analysis.cells import CellResult
from oddslab.analysis.store import CellStore


def _result(key: str) -> CellResult:
    return CellResult(key, "h", "n", 1, 10, (("x", 2, "", False, "x"),), (), {"x": [4, 6]}, {}, 0.1)


def test_put_finished_clear(tmp_path):
    with CellStore(tmp_path / "s.sqlite") as s:
        s.put("study", _result("a"))
        s.put("study", _result("b"))
        s.put("other", _result("a"))
        assert s.count("study") == 2
        assert s.finished("study")["a"] == _result("a")
        s.put("study", _result("a"))  # replacing is idempotent
        assert s.count("study") == 2
        s.clear("study")
        assert s.count("study") == 0 and s.count("other") == 1
    with CellStore(tmp_path / "s.sqlite") as s:  # persisted
        assert s.count("other") == 1


def test_not_a_store(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_text("this is not sqlite" * 100)
    with pytest.raises(ScenarioError, match="not a usable results store"):
        CellStore(bad)
