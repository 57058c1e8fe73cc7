"""tools/example_histograms.py: a recording compares identical to itself and flags a change."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location(
        "example_histograms", ROOT / "tools" / "example_histograms.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_record_then_compare(monkeypatch, capsys):
    tool = _tool()
    monkeypatch.setattr(tool, "TRIALS", 3000)
    first = tool.record()
    assert len(first) >= 20
    assert tool.compare(first, tool.record()) == 0
    assert capsys.readouterr().out.strip().endswith("identical")
    name = next(iter(first))
    stat = next(iter(first[name]))
    changed = {k: {s: list(c) for s, c in v.items()} for k, v in first.items()}
    changed[name][stat][0] += 1
    assert tool.compare(changed, first) == 1
    renamed = {k: dict(v) for k, v in first.items()}
    renamed[name] = {f"old_{s}": c for s, c in first[name].items()}
    assert tool.compare(renamed, first) == 0  # a pure rename is recognised
