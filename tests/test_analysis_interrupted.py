"""A study stopped by Ctrl-C keeps its finished cells (oddslab.analysis.interrupted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oddslab.analysis.interrupted import StudyInterrupted, default_store, keep_finished
from oddslab.analysis.store import CellStore
from oddslab.analysis.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml"
VARY = {"target.models": [3, 5, 8, 12, 16, 20]}


def _noseed(tmp_path: Path) -> Path:
    sc = tmp_path / "noseed.toml"
    sc.write_text(SCENARIO.read_text().replace("seed = 2026\n", ""))
    return sc


def _stop_after(n: int):
    def progress(done: int, total: int) -> None:
        if done >= n:
            raise KeyboardInterrupt

    return progress


@pytest.mark.parametrize("big", [False, True], ids=["in-memory", "streamed"])
def test_an_interrupted_sweep_hands_over_its_finished_cells(tmp_path, monkeypatch, big):
    """Without a store, Ctrl-C raises StudyInterrupted (a KeyboardInterrupt) holding the
    finished cells (in memory, or in a big study's temporary store, kept alive by it) and the
    drawn seed; saved to a file, resume=True ends with exactly the uninterrupted results."""
    import importlib

    sweep_mod = importlib.import_module("oddslab.analysis.sweep")  # the package's name: a function
    if big:  # a study above KEEP_VALIDATED cells streams into a temporary store
        monkeypatch.setattr(sweep_mod, "KEEP_VALIDATED", 3)
    sc = _noseed(tmp_path)
    with pytest.raises(StudyInterrupted) as info:
        sweep(sc, VARY, trials=2_000, progress=_stop_after(2), exact="never")
    exc = info.value
    assert isinstance(exc, KeyboardInterrupt) and (exc.finished, exc.total) == (2, 6)
    if big:
        assert exc.results == [] and exc.store is not None and exc.temporary is not None
    else:
        assert [r.key for r in exc.results] == ['{"target.models":3}', '{"target.models":5}']
    store = tmp_path / "kept.sqlite"
    assert exc.save(store) == 2
    seed = exc.identity["seed"]
    resumed = sweep(sc, VARY, trials=2_000, store=store, resume=True, progress=None,
                    exact="never")  # fmt: skip
    clean = sweep(sc, VARY, trials=2_000, seed=seed, progress=None, exact="never")
    assert resumed.seed == seed
    assert resumed.frame().equals(clean.frame())


def test_the_kept_file_is_named_after_the_study_and_never_replaces_another(tmp_path):
    study = "0123456789abcdef"
    assert default_store("sweep", study, tmp_path) == tmp_path / "oddslab-sweep-01234567.sqlite"
    (tmp_path / "oddslab-sweep-01234567.sqlite").write_text("not a store")
    other = tmp_path / "oddslab-sweep-01234567-2.sqlite"
    with CellStore(other) as db:
        db.claim("another", {"kind": "sweep"})
    mine = tmp_path / "oddslab-sweep-01234567-3.sqlite"
    assert default_store("sweep", study, tmp_path) == mine
    with CellStore(mine) as db:  # this study's own store (an earlier Ctrl-C): added to
        db.claim(study, {"kind": "sweep"})
    assert default_store("sweep", study, tmp_path) == mine
    assert (tmp_path / "oddslab-sweep-01234567.sqlite").read_text() == "not a store"


def test_nothing_finished_or_an_unwritable_folder_keeps_no_file(tmp_path):
    exc = StudyInterrupted("0123456789abcdef", {"kind": "sweep"}, [], None, 0, 6)
    assert keep_finished(exc, "sweep", []) == (
        "interrupted before any cell finished: nothing to keep"
    )
    with pytest.raises(StudyInterrupted) as info:
        sweep(SCENARIO, VARY, trials=1_000, progress=_stop_after(1), exact="never")
    nowhere = tmp_path / "a-file"  # not a folder (a read-only one would not stop root)
    nowhere.write_text("")
    text = keep_finished(info.value, "sweep", ["sweep"], folder=nowhere)
    assert text == (
        f"interrupted: 1 of 6 cells had finished but could not be kept in {nowhere} (not a "
        "writable folder); give --store FILE to keep a study's finished cells"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"]


def test_an_interrupted_matchup_hands_over_its_finished_cells(tmp_path):
    """The same for a matchup (and so efficiency and fair points, which run one)."""
    from oddslab.analysis.matchup import matchup

    lib = str(ROOT / "oddslab" / "examples" / "libraries" / "generic.toml")
    run = dict(trials=1_000, seed=4, exact="never")
    with pytest.raises(StudyInterrupted) as info:
        matchup(lib, lib, progress=_stop_after(3), **run)
    exc = info.value
    assert exc.finished == len(exc.results) == 3 < exc.total
    store = tmp_path / "kept.sqlite"
    assert exc.save(store) == 3
    resumed = matchup(lib, lib, store=store, resume=True, progress=None, **run)
    clean = matchup(lib, lib, progress=None, **run)
    assert resumed.table().equals(clean.table())
