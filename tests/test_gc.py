"""oddslab._gc: the collector paused around compiles and for quick command-line runs."""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pytest

from oddslab._gc import paused


@pytest.fixture
def collector_restored():
    """Whatever a test does to the collector, the session gets it back on and unfrozen."""
    was = gc.isenabled()
    yield
    gc.unfreeze()
    if was:
        gc.enable()
    else:
        gc.disable()


def test_paused_turns_the_collector_off_and_back_on(collector_restored):
    gc.enable()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_paused_leaves_a_disabled_collector_disabled(collector_restored):
    gc.disable()
    with paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_paused_restores_the_collector_after_an_error(collector_restored):
    gc.enable()
    with pytest.raises(RuntimeError), paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "generic-anti-infantry.toml"


def _scenario():
    from oddslab.scenario import load

    return load(EXAMPLE)


@pytest.mark.parametrize("enabled", [True, False])
def test_prepare_kernel_leaves_the_collector_as_it_found_it(enabled, collector_restored):
    from oddslab.engine import prepare_kernel

    job = _scenario().compile()
    if enabled:
        gc.enable()
    else:
        gc.disable()
    prepare_kernel(job)
    assert gc.isenabled() is enabled


def test_cli_main_runs_a_command_with_the_collector_off_and_freezes_at_the_end(
    monkeypatch, collector_restored
):
    import oddslab.cli as cli

    seen = {}

    def fake_app():
        seen["enabled"] = gc.isenabled()
        seen["frozen_before"] = gc.get_freeze_count()
        seen["junk"] = [object() for _ in range(1000)]

    gc.enable()
    monkeypatch.setattr(cli, "app", fake_app)
    cli.main()
    assert seen["enabled"] is False
    assert gc.get_freeze_count() > seen["frozen_before"]  # exit skips sweeps over these


def test_long_analysis_commands_turn_the_collector_back_on(collector_restored):
    from oddslab.analysis.cli import _collecting

    @_collecting
    def study(x: int) -> tuple[int, bool]:
        return x, gc.isenabled()

    gc.disable()
    assert study(3) == (3, True)


def test_the_engine_answer_is_the_same_with_the_collector_paused(collector_restored):
    from oddslab.engine import simulate

    gc.enable()
    a = simulate(_scenario(), trials=20_000, seed=3)
    gc.disable()
    b = simulate(_scenario(), trials=20_000, seed=3)
    assert a.stat_names == b.stat_names
    for stat in a.stat_names:
        assert np.array_equal(a.pmf(stat), b.pmf(stat))
