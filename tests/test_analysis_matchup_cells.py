"""Big matchups: pairs kept as a fit map, cells made when read, results only in the store."""

from __future__ import annotations

import gc
import importlib
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from test_analysis_stored import blocks_gained

from oddslab._schema import ScenarioError
from oddslab.analysis import cells as cells_mod
from oddslab.analysis import distributed
from oddslab.analysis.matchup_cells import MatchupCells, validate_pairs
from oddslab.analysis.points import efficiency, fair_points
from oddslab.analysis.stored import StoredResults

matchup_mod = importlib.import_module("oddslab.analysis.matchup")  # the module, not the function
matchup = matchup_mod.matchup

LIBS = Path(__file__).resolve().parent.parent / "oddslab" / "examples" / "libraries"
GENERIC = LIBS / "generic.toml"


def _big(monkeypatch) -> None:
    """Every matchup of more than 2 pairs counts as big (more pairs than KEEP_VALIDATED)."""
    monkeypatch.setattr(matchup_mod, "KEEP_VALIDATED", 2)
    monkeypatch.setattr(cells_mod, "KEEP_VALIDATED", 2)


def _tiny_library(path: Path, attackers: int, targets: int) -> Path:
    """Generic units with one weapon / one profile each (one-trial cells are ~free)."""
    lines = ['ruleset = "generic"']
    for i in range(attackers):
        lines += [f"[units.a{i}]", f"points = {40 + i}", f"models = {1 + i % 5}",
                  "attacks = 1", "skill = 4", f"strength = {3 + i % 4}", "ap = 0",
                  "damage = 1"]  # fmt: skip
    for j in range(targets):
        lines += [f"[units.t{j}]", "points = 10", f"models = {1 + j % 4}", "toughness = 4",
                  "wounds = 1", f"save = {3 + j % 4}"]  # fmt: skip
    lines += ["[matchup.template]", 'ruleset = "generic"', "[[matchup.template.attacker.weapons]]",
              'use = "{attacker}"', "[matchup.template.target]", 'use = "{target}"']  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_big_matchup_reads_its_results_from_the_store_and_equals_a_small_one(
    tmp_path, monkeypatch
):
    kw = dict(trials=100, seed=4, exact="never", progress=None)
    small = matchup(GENERIC, GENERIC, **kw)
    units, basket = f"{GENERIC}:line_troopers,lance_walker", {f"{GENERIC}:conscripts": 2,
                                                              f"{GENERIC}:battle_tank": 1}  # fmt: skip
    eff = efficiency(units, basket, seed=2, progress=None)  # exact cells
    fair = fair_points(f"{GENERIC}:shock_squad", f"{GENERIC}:line_troopers", basket, trials=100,
                       exact="never", progress=None)  # fmt: skip
    _big(monkeypatch)
    big = matchup(GENERIC, GENERIC, **kw)  # a temporary store
    assert isinstance(big.cells, MatchupCells) and isinstance(big.results, StoredResults)
    assert len(big.cells) == len(big.results) == len(small.cells) == 25
    assert [c.values for c in big.cells] == [c.values for c in small.cells]
    assert [c.seed for c in big.cells] == [c.seed for c in small.cells]
    assert big.cells[-3].values == small.cells[-3].values
    assert big.cells[7].scenario == small.cells[7].scenario
    assert [r.counts for r in big.results] == [r.counts for r in small.results]
    assert big.metric == small.metric and big.skipped == small.skipped
    # the tables, read off the store a chunk at a time, bit for bit (NaN notes included)
    for metric in (None, "P(models_slain >= 2)", "points_removed", "P(at least 1 target model)"):
        pd.testing.assert_frame_equal(big.table(metric), small.table(metric), check_exact=True)
    pd.testing.assert_frame_equal(big.matrix(per_points=True), small.matrix(per_points=True),
                                  check_exact=True)  # fmt: skip
    big.to_csv(tmp_path / "big.csv")  # written chunk by chunk
    assert (tmp_path / "big.csv").read_text() == small.to_csv()
    # the points studies run on matchups: the same numbers above the threshold
    big_eff = efficiency(units, basket, seed=2, progress=None)
    assert isinstance(big_eff.matchup.results, StoredResults)
    pd.testing.assert_frame_equal(big_eff.table, eff.table, check_exact=True)
    assert big_eff.table.attrs == eff.table.attrs
    big_fair = fair_points(f"{GENERIC}:shock_squad", f"{GENERIC}:line_troopers", basket,
                           trials=100, exact="never", progress=None)  # fmt: skip
    assert big_fair.to_dict() == fair.to_dict()
    tmp = big.results.path
    del big
    gc.collect()
    assert not tmp.exists()  # the temporary store goes with the result


def test_a_big_matchup_resumes_from_its_store(tmp_path, monkeypatch):
    _big(monkeypatch)
    store = tmp_path / "m.sqlite"
    lib = _tiny_library(tmp_path / "tiny.toml", 3, 3)
    kw = dict(trials=200, exact="never", store=store, progress=None)
    first = matchup(f"{lib}:a*", f"{lib}:t*", **kw)
    with sqlite3.connect(store) as db:  # a killed run: two cells lost
        db.execute("DELETE FROM cells WHERE rowid IN (SELECT rowid FROM cells LIMIT 2)")
    ran: list[str] = []  # the cells run again (run_cell's third argument: the cell's key)
    real = distributed.run_cell
    monkeypatch.setattr(distributed, "run_cell", lambda *a, **k: ran.append(a[2]) or real(*a, **k))
    with pytest.raises(ScenarioError, match="--resume"):
        matchup(f"{lib}:a*", f"{lib}:t*", **kw)
    again = matchup(f"{lib}:a*", f"{lib}:t*", resume=True, **kw)
    assert len(ran) == 2  # only the lost cells ran again
    pd.testing.assert_frame_equal(again.table(), first.table(), check_exact=True)
    with pytest.raises(ScenarioError, match="holds another study.*seed: 5 here, 1 in the store"):
        matchup(f"{lib}:a*", f"{lib}:t*", resume=True, seed=5, **kw)


def test_a_big_matchup_streams_through_worker_processes(tmp_path, monkeypatch):
    """Through oddslab's own ``workers=2`` (:func:`oddslab.analysis.dask_run.local_cluster`:
    two worker processes): cells made as tasks are sent, packed and unpacked in another
    process, results streamed to the store; the table equals the in-process one."""
    pytest.importorskip("distributed")
    lib = _tiny_library(tmp_path / "tiny.toml", 3, 4)
    kw = dict(trials=500, seed=8, exact="never", progress=None)
    local = matchup(f"{lib}:a*", f"{lib}:t*", **kw)
    _big(monkeypatch)
    remote = matchup(f"{lib}:a*", f"{lib}:t*", workers=2, batch=3, **kw)  # a temporary store
    assert isinstance(remote.results, StoredResults)
    pd.testing.assert_frame_equal(remote.table(), local.table(), check_exact=True)


def _held(keep: bool, store: Path, lib: Path, n: int) -> int:
    """:func:`blocks_gained` of a matchup of 4N cells (4N/10 attackers × 10 targets)."""
    from oddslab.libraries import load_library, resolved

    entries = list(load_library(lib))
    att = [e for e in entries if e.key.startswith("a")]
    tgt = [e for e in entries if e.key.startswith("t")]
    tpl = load_library(lib).template
    refs = ([f"{resolved(e.library)}:{e.key}" for e in att],
            [f"{resolved(e.library)}:{e.key}" for e in tgt])  # fmt: skip
    names = ([e.key for e in att], [e.key for e in tgt])
    why, _, _ = validate_pairs(tpl, "t", lib.parent, refs, names, 1, keep=False)
    cells = MatchupCells(tpl, "t", lib.parent, refs, names, why < 0, 1)
    return blocks_gained(cells, keep, store, n)


def test_client_memory_stays_bounded_while_a_big_matchup_runs(tmp_path, monkeypatch):
    """As tests/test_analysis_stored.py's sweep, counted in pymalloc blocks: the live Python
    objects after N and after 4N finished one-trial cells differ by under one block per cell
    (measured 0.2-0.7: interpreter caches); results kept in memory (the control) add about 26
    blocks per cell."""
    monkeypatch.setattr(distributed, "SAVE_CELLS", 4)  # a few unsaved results at most
    n = 30
    lib = _tiny_library(tmp_path / "tiny.toml", 4 * n // 10, 10)
    matchup(f"{lib}:a0", f"{lib}:t0", trials=1, progress=None, exact="never")  # warm
    streamed = _held(False, tmp_path / "a.sqlite", lib, n)
    kept = _held(True, tmp_path / "b.sqlite", lib, n)
    assert streamed < 3 * 3 * n, f"{streamed} blocks more for {3 * n} more cells"
    assert kept > 5 * max(streamed, 0) and kept > 15 * 3 * n, (kept, streamed)


def test_the_fit_map_answers_which_pairs_run_and_why_the_others_do_not():
    """Pairs that do not fit (reasons read off an int32 map) and the running pairs' order."""
    import numpy as np

    from oddslab.analysis.matchup_cells import Unfit

    why = np.array([[-1, 0, -1], [1, -1, 0]], dtype=np.int32)
    names = (["a", "b"], ["x", "y", "z"])
    unfit = Unfit(why, ["no weapon", "too far"], names)
    assert dict(unfit) == {("a", "y"): "no weapon", ("b", "x"): "too far", ("b", "z"): "no weapon"}
    assert len(unfit) == 3 and ("a", "x") not in unfit and unfit.get(("q", "x")) is None
    cells = MatchupCells({}, "t", Path("."), (["A", "B"], ["X", "Y", "Z"]), names, why < 0, 1)
    assert [cells.pair(i) for i in range(len(cells))] == [(0, 0), (0, 2), (1, 1)]
    assert list(cells.iter_pairs()) == [(0, 0), (0, 2), (1, 1)]
    assert cells.values(-1) == {"attacker": "b", "target": "y"}
    with pytest.raises(IndexError):
        cells.pair(3)
