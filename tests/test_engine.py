"""Engine: chunking, seeding, determinism across threads and processes, precision, Ctrl-C."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from oddslab import GenericScenario, Target, Weapon, simulate
from oddslab._seeding import chunk_seeds
from oddslab.engine import (
    BATCH_CHUNKS,
    CHUNK_TRIALS,
    kernel_status,
    precision_batches,
    trials_needed,
)

SC = GenericScenario(
    (
        Weapon(
            models=5,
            attacks="D6",
            skill=3,
            reroll_hits="ones",
            sustained_hits=1,
            strength=5,
            ap=1,
            damage="D3",
        ),
    ),
    Target(models=10, wounds=2, toughness=4, save=4, feel_no_pain=6),
)

_SCRIPT = """
import hashlib, numpy as np
from oddslab import GenericScenario, Target, Weapon, simulate
sc = GenericScenario(
    (Weapon(models=5, attacks="D6", skill=3, reroll_hits="ones", sustained_hits=1, strength=5, ap=1, damage="D3"),),
    Target(models=10, wounds=2, toughness=4, save=4, feel_no_pain=6),
)
o = simulate(sc, trials=300_000, seed=4242)
h = hashlib.sha256()
for k in sorted(o.counts):
    h.update(o.counts[k].tobytes())
print(h.hexdigest())
"""


def _digest(outcome) -> str:
    h = hashlib.sha256()
    for k in sorted(outcome.counts):
        h.update(outcome.counts[k].tobytes())
    return h.hexdigest()


def _run_subprocess(threads: int, root) -> str:
    env = {**os.environ, "NUMBA_NUM_THREADS": str(threads), "PYTHONPATH": str(root)}
    res = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    return res.stdout.strip()


def test_same_seed_identical_across_thread_counts_and_processes(root):
    """1 thread, 2 threads (two processes each) and this process give bit-identical histograms."""
    one = _run_subprocess(1, root)
    two = _run_subprocess(2, root)
    two_again = _run_subprocess(2, root)
    here = _digest(simulate(SC, trials=300_000, seed=4242))
    assert one == two == two_again == here


def test_repeat_and_different_seeds():
    a = simulate(SC, trials=100_000, seed=1)
    b = simulate(SC, trials=100_000, seed=1)
    c = simulate(SC, trials=100_000, seed=2)
    assert _digest(a) == _digest(b)
    assert _digest(a) != _digest(c)


def test_partial_chunks_count_every_trial():
    out = simulate(SC, trials=CHUNK_TRIALS + 123, seed=3)
    assert out.trials == CHUNK_TRIALS + 123
    for k, v in out.counts.items():
        assert v.sum() == CHUNK_TRIALS + 123, k


def test_chunk_seeds_are_prefix_stable_and_distinct():
    all5 = chunk_seeds(9, 0, 5)
    assert np.array_equal(all5[2:4], chunk_seeds(9, 2, 4))
    assert len({tuple(r) for r in all5}) == 5
    # seed s chunk 1 is not seed s+1 chunk 0 (no seed + index shortcut)
    assert not np.array_equal(chunk_seeds(9, 1, 2)[0], chunk_seeds(10, 0, 1)[0])


def test_seed_recorded_when_not_given():
    a = simulate(SC, trials=70_000)
    assert a.seed is not None
    b = simulate(SC, trials=70_000, seed=a.seed)
    assert _digest(a) == _digest(b)


def test_precision_stops_when_half_width_reached():
    out = simulate(SC, precision=0.004, seed=5)
    ends = {CHUNK_TRIALS * stop for _, stop in precision_batches(10_000)}
    assert out.trials in ends and out.trials < 20 * BATCH_CHUNKS * CHUNK_TRIALS
    probs = out.probabilities()
    half = (probs["ci_high"] - probs["ci_low"]) / 2
    assert (half < 0.004).all()
    assert out.precision_reached is True and out.half_width < 0.004
    assert out.precision == 0.004


def test_precision_steps_finer_at_first_and_stays_deterministic():
    assert precision_batches(40)[:7] == [
        (0, 1),
        (1, 2),
        (2, 4),
        (4, 8),
        (8, 16),
        (16, 32),
        (32, 40),
    ]
    coarse = simulate(SC, precision=0.02, seed=8)
    assert coarse.trials <= 2 * CHUNK_TRIALS  # a coarse target stops after a chunk or two
    again = simulate(SC, precision=0.02, seed=8)
    assert _digest(coarse) == _digest(again)
    # chunk i's seed never changes: a precision run equals a fixed run of as many trials
    fixed = simulate(SC, trials=coarse.trials, seed=8)
    assert _digest(fixed) == _digest(coarse)


def test_precision_respects_ceiling_and_says_so():
    out = simulate(SC, precision=1e-5, trials=CHUNK_TRIALS * 3, seed=5)
    assert out.trials == CHUNK_TRIALS * 3
    assert out.precision_reached is False and out.half_width > 1e-5
    need = trials_needed(out)
    assert need > 1000 * out.trials and need % CHUNK_TRIALS == 0


def test_fixed_runs_have_no_precision_fields():
    out = simulate(SC, trials=1000, seed=1)
    assert out.precision is None and out.precision_reached is None and trials_needed(out) is None


def test_compile_time_is_reported_apart():
    out = simulate(SC, trials=1000, seed=1)
    again = simulate(SC, trials=1000, seed=1)
    assert again.compile_time == 0.0 and not again.compiled  # in memory by now
    assert out.elapsed >= 0 and again.elapsed >= 0
    assert kernel_status(SC.compile().kernel, ()) in ("unknown", "ready", "cached", "compile")


def test_kernel_status_and_prepare_detect_a_compile(tmp_path, root):
    """A fresh cache: 'compile' is announced before compiling; then a new process loads it."""
    script = """
import numpy as np
from oddslab._jit import jit
from oddslab._kernels.chunks import ChunkKernel
from oddslab.engine import Job, prepare_kernel, kernel_status
from oddslab.outcome import Stat

@jit
def chunk(seed, ntrials, hist, k):
    hist[0, 0] += ntrials * k

kern = ChunkKernel(chunk)

job = Job("t", kern, (np.int64(2),), (Stat("x", 1),), ruleset="test-ruleset")
said = []
seconds, compiled = prepare_kernel(job, said.append)
print(said, compiled, prepare_kernel(job, said.append))
"""
    mod = tmp_path / "kmod.py"
    mod.write_text(script)
    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": f"{root}:{tmp_path}",
    }
    run = lambda: subprocess.run(  # noqa: E731
        [sys.executable, "-c", "import kmod"], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    first = run()
    assert first.startswith("['test-ruleset'] True (0.0, False)"), first
    second = run()
    assert second.startswith("[] False (0.0, False)"), second  # loaded from the cache, silently


def test_ctrl_c_returns_partial_result():
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == 1:
            raise KeyboardInterrupt

    out = simulate(SC, trials=BATCH_CHUNKS * CHUNK_TRIALS * 3, seed=6, progress=progress)
    assert out.interrupted
    assert out.trials == BATCH_CHUNKS * CHUNK_TRIALS
    assert out.counts["hits"].sum() == out.trials


def test_bad_arguments():
    with pytest.raises(ValueError):
        simulate(SC, precision=0.7)
    with pytest.raises(ValueError):
        simulate(SC, trials=0)
    with pytest.raises(
        ValueError, match="trials: expected a number of trials from 1 to 10,000,000,000"
    ):
        simulate(SC, trials=10**10 + 1)


def test_too_wide_histograms_are_a_clear_error_before_any_allocation():
    from oddslab.exact import exact

    # legal inputs, but the damage total can reach 1000 * 100 * 100 = 10,000,000
    big = GenericScenario(
        weapons=(Weapon(models=1000, attacks=100, damage=100, skill=2),),
        target=Target(models=1000, wounds=100, toughness=1),
    )
    with pytest.raises(ValueError, match="'damage' can reach 10,000,000"):
        simulate(big, trials=10)
    with pytest.raises(ValueError, match="histogram bins"):
        exact(big)


def test_seed_text_gets_the_file_message():
    from oddslab import ScenarioError, from_dict

    with pytest.raises(ValueError) as api:
        simulate(SC, trials=10, seed="abc")
    doc = {"seed": "abc", "attacker": {"weapons": [{"attacks": 1}]}, "target": {"models": 1}}
    with pytest.raises(ScenarioError) as file:
        from_dict(doc)
    assert str(api.value) == f"seed: {file.value.problem}"
    assert "expected an integer >= 0, got a string 'abc'" in str(api.value)
    with pytest.raises(ValueError, match="seed: expected an integer >= 0, got -1"):
        simulate(SC, trials=10, seed=-1)
    assert simulate(SC, trials=10, seed=np.int64(3)).seed == 3


def test_simulate_accepts_a_path(examples_dir):
    out = simulate(examples_dir / "generic-intercessors-vs-guardsmen.toml", trials=10_000)
    assert out.trials == 10_000 and out.seed == 2026


def test_resolved_inputs_fallbacks_and_json_ready():
    from oddslab.dice import DiceExpr
    from oddslab.engine import resolved_inputs

    class NoResolved:
        pass

    class NotYet:
        def resolved(self):
            raise NotImplementedError

    class Odd:
        def resolved(self):
            return {"weapon": {"damage": DiceExpr.parse("D3+1"), 3: True}, "note": "plain"}

    assert resolved_inputs(NoResolved()) is None and resolved_inputs(NotYet()) is None
    assert resolved_inputs(Odd()) == {
        "weapon": {"damage": "D3+1", "3": True},
        "note": {"": "plain"},
    }


class _FakeDispatcher:
    """Looks like a numba dispatcher whose cache cannot be inspected (private API changed)."""

    def __init__(self, delay: float):
        self.overloads: dict = {}
        self.delay = delay
        self.compiled: list = []

    def typeof_pyval(self, value):
        return type(value).__name__

    def compile(self, sig):
        import time

        time.sleep(self.delay)
        self.compiled.append(sig)


def test_unknown_cache_state_still_talks_when_slow():
    from oddslab.engine import Job, prepare_kernel
    from oddslab.outcome import Stat

    slow = _FakeDispatcher(1.3)
    job = Job("fake", slow, (), (Stat("x", 1),), ruleset="fake-ruleset")
    assert kernel_status(slow, (1, 2)) == "unknown"
    said = []
    seconds, compiled = prepare_kernel(job, said.append)
    assert said == ["fake-ruleset"] and seconds >= 1.3 and slow.compiled
    quick = _FakeDispatcher(0.0)
    said.clear()
    prepare_kernel(Job("fake", quick, (), (Stat("x", 1),), ruleset="r"), said.append)
    assert said == []  # a fast load says nothing
    assert kernel_status(lambda *a: None, ()) == "python"


#: About 0.1-0.3 s a chunk (a thousand D3-damage attacks into three-wound models with a
#: feel-no-pain): a batch of 16 chunks takes seconds, as the issue's heavy runs did.
HEAVY = GenericScenario(
    (Weapon(models=300, attacks=2, skill=4, strength=3, ap=0, damage="D3"),),
    Target(models=300, wounds=3, toughness=4, save=4, feel_no_pain=5),
)


def test_progress_moves_inside_a_batch_and_ctrl_c_keeps_finished_chunks(default_sigint):
    """The helper thread reports trials inside the first batch (before any batch ends), and
    a Ctrl-C (``interrupt_main``, as the terminal's SIGINT does) in the middle of that
    batch returns the chunks that finished, each whole, instead of 0 trials."""
    import _thread

    seen = []

    def progress(done, total):
        seen.append(done)
        if done >= CHUNK_TRIALS and len(seen) > 1 and not seen.count(-1):
            seen.append(-1)
            _thread.interrupt_main()

    out = simulate(
        HEAVY, trials=4 * BATCH_CHUNKS * CHUNK_TRIALS, seed=8, progress=progress,
        progress_every=0.02,
    )  # fmt: skip
    assert out.interrupted
    assert 0 < min(d for d in seen if d > 0) < CHUNK_TRIALS  # moved inside a chunk
    assert out.trials % CHUNK_TRIALS == 0 and 0 < out.trials < 4 * BATCH_CHUNKS * CHUNK_TRIALS
    for name in out.stat_names:
        assert out.counts[name].sum() == out.trials
