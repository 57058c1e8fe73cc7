"""Progress bars over cells: in a notebook and a terminal, nothing in a pipe."""

from __future__ import annotations

import re
from pathlib import Path

from oddslab.analysis import progress

SCENARIO = (
    Path(__file__).resolve().parent.parent
    / "oddslab"
    / "examples"
    / "generic-intercessors-vs-guardsmen.toml"
)


def test_no_bar_where_nobody_sees_it():
    assert not progress.in_notebook()
    with progress.progress_bar("cells") as bar:
        assert bar is None  # pytest's stderr is not a terminal


class _FakeHandle:
    """What ``IPython.display.display(..., display_id=True)`` returns, recording updates."""

    def __init__(self, shown: list) -> None:
        self.shown = shown

    def update(self, data, raw=False):
        self.shown.append(data["text/plain"])


def test_a_notebook_gets_a_bar_and_a_study_drives_it(monkeypatch):
    import IPython.display

    from oddslab.analysis.sweep import sweep

    shown: list[str] = []
    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    monkeypatch.setattr(progress, "NOTEBOOK_EVERY", 0.0)  # every update drawn

    def display(data, raw=False, display_id=False):
        assert raw and display_id  # one output, updated in place
        shown.append(data["text/plain"])
        return _FakeHandle(shown)

    monkeypatch.setattr(IPython.display, "display", display)
    sweep(SCENARIO, {"target.save": [3, 4, 5]}, trials=500, seed=1, exact="never")
    assert shown[0].startswith("study ░") and "0 cells" in shown[0]
    assert any("█" in line and "/3 cells" in line for line in shown[1:-1])
    assert re.fullmatch(r"study: 3/3 cells in \d+\.\d s", shown[-1]), shown


def test_the_notebook_record_says_a_stopped_study():
    line = progress.notebook_line("study", 2, 3, 1.25, end=True)
    assert line == "study: 2/3 cells in 1.2 s (stopped)"
    assert "about 0:00:05 left" in progress.notebook_line("study", 1, 3, 2.5, end=False)
