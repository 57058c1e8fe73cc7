"""Progress bars over cells: in a notebook and a terminal, nothing in a pipe."""

from __future__ import annotations

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


def test_a_notebook_gets_a_bar_and_a_study_drives_it(monkeypatch, capsys):
    from oddslab.analysis.sweep import sweep

    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    seen = []
    real = progress.progress_bar

    def spy(what):
        cm = real(what)

        class Wrap:
            def __enter__(self):
                bar = cm.__enter__()
                assert bar is not None

                def cb(done, total):
                    seen.append((done, total))
                    bar(done, total)

                return cb

            def __exit__(self, *exc):
                return cm.__exit__(*exc)

        return Wrap()

    monkeypatch.setattr(progress, "progress_bar", spy)
    sweep(SCENARIO, {"target.save": [3, 4, 5]}, trials=500, seed=1, exact="never")
    assert seen[0] == (0, 3) and seen[-1] == (3, 3)
    assert "3/3" in capsys.readouterr().out  # the finished bar stays in the notebook's output
