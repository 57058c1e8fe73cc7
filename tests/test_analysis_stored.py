"""Big studies: cells made when read, results only in the store, bounded client memory."""

from __future__ import annotations

import gc
import importlib
import sys
from pathlib import Path

import pandas as pd
import pytest

from oddslab.analysis import cells as cells_mod
from oddslab.analysis import distributed
from oddslab.analysis.stored import StoredResults, SweepCells
from oddslab.analysis.sweep import sweep

sweep_mod = importlib.import_module("oddslab.analysis.sweep")  # the module, not the function

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml"


@pytest.fixture()
def big(monkeypatch):
    """Every study counts as big (more cells than KEEP_VALIDATED)."""
    monkeypatch.setattr(sweep_mod, "KEEP_VALIDATED", 2)
    monkeypatch.setattr(cells_mod, "KEEP_VALIDATED", 2)


def test_a_big_sweep_reads_its_results_from_the_store_and_equals_a_small_one(tmp_path, monkeypatch):
    vary = {"target.save": [3, 4, 5], "attacker.weapons.0.models": [2, 7]}
    small = sweep(SCENARIO, vary, trials=2_000, seed=4, exact="never")
    monkeypatch.setattr(sweep_mod, "KEEP_VALIDATED", 2)
    monkeypatch.setattr(cells_mod, "KEEP_VALIDATED", 2)
    res = sweep(SCENARIO, vary, trials=2_000, seed=4, exact="never")  # a temporary store
    assert isinstance(res.cells, SweepCells) and isinstance(res.results, StoredResults)
    assert len(res.cells) == len(res.results) == 6
    assert [c.values for c in res.cells] == [c.values for c in small.cells]
    assert [c.seed for c in res.cells] == [c.seed for c in small.cells]
    assert res.cells[-1].values == small.cells[-1].values
    assert res.results[4].counts == small.results[4].counts
    assert [r.counts for r in res.results] == [r.counts for r in small.results]
    pd.testing.assert_frame_equal(res.frame(), small.frame(), check_exact=True)
    pd.testing.assert_frame_equal(res.table(), small.table(), check_exact=True)
    # the CSV is written a chunk at a time, identical to the small study's
    res.to_csv(tmp_path / "big.csv")
    small.to_csv(tmp_path / "small.csv")
    assert (tmp_path / "big.csv").read_text() == (tmp_path / "small.csv").read_text()
    tmp = res.results.path
    assert tmp.is_file()
    del res
    gc.collect()
    assert not tmp.exists()  # the temporary store goes with the result


def test_a_value_given_twice_is_refused_before_anything_runs(big):
    with pytest.raises(ValueError, match=r"same values \(target\.save=4"):
        sweep(SCENARIO, {"target.save": [4, 5, 4]}, trials=100)


def blocks_gained(cells, keep: bool, store: Path, n: int) -> int:
    """Memory blocks held by live Python objects (``sys.getallocatedblocks``: counted without
    tracing, so the cells run at full speed) gained between N and 4N finished ``cells`` (4N of
    them) of one study run by :func:`run_cells` (``keep``: results in memory as well)."""
    from oddslab.analysis.distributed import run_cells

    assert len(cells) == 4 * n
    held: dict[int, int] = {}

    def probe(done: int, total: int) -> None:
        if done in (n, 4 * n) and done not in held:
            gc.collect()
            held[done] = sys.getallocatedblocks()

    run_cells(cells, study=f"keep={keep}", trials=1, store=store, keep=keep, progress=probe)
    return held[4 * n] - held[n]


def _held(keep: bool, store: Path, n: int) -> int:
    """:func:`blocks_gained` of a sweep of 4N cells."""
    from oddslab.scenario import read_toml

    raw = read_toml(SCENARIO)
    grids = [list(range(1, 11)), list(range(1, 4 * n // 10 + 1))]  # 4n cells
    cells = SweepCells(raw, ["target.models", "attacker.weapons.0.models"], grids, 1,
                       str(SCENARIO), SCENARIO.parent)  # fmt: skip
    return blocks_gained(cells, keep, store, n)


def test_client_memory_stays_bounded_while_a_big_study_runs(tmp_path, monkeypatch):
    """What the client holds (live Python objects, after a collection, in pymalloc blocks)
    when N cells are done and when 4N are: the same but for under one block per cell of
    interpreter-level caches (numpy, numba, sqlite3; measured 0-1.6). Kept in memory
    (``keep=True``, the way of small studies), the results alone add about 37 blocks per
    one-trial cell: the control. (Counted with ``tracemalloc`` this test took 4 s more.)"""
    monkeypatch.setattr(distributed, "SAVE_CELLS", 4)  # a few unsaved results at most
    n = 30
    sweep(SCENARIO, {"target.models": [1]}, trials=1, seed=1, exact="never")  # warm
    streamed = _held(False, tmp_path / "a.sqlite", n)
    kept = _held(True, tmp_path / "b.sqlite", n)
    assert streamed < 3 * 3 * n, f"{streamed} blocks more for {3 * n} more cells"
    assert kept > 5 * max(streamed, 0) and kept > 15 * 3 * n, (kept, streamed)
