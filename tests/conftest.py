"""Shared test setup: headless plotting, repository paths."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = Path(__file__).resolve().parent.parent

# Hypothesis: two fixed profiles. "dev" keeps the examples it finds in .hypothesis/examples
# (gitignored) and replays them first on the next run; "ci" (CI=true) is derandomized: the
# examples come from a hash of each test, the same every run, so a CI failure reproduces and
# a green CI run is not luck. Hypothesis refuses a database with derandomize (the examples
# are fixed), so a failure found locally is kept in the test as an @example.
_HYPOTHESIS_DB = DirectoryBasedExampleDatabase(str(ROOT / ".hypothesis" / "examples"))
settings.register_profile("dev", database=_HYPOTHESIS_DB, print_blob=True)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")


# The longest tests start first: pytest-xdist hands tests out in collection order, and a
# 30-second test picked up last leaves the other worker idle for its length. Moving these
# modules to the front (each keeps its own order) shortens the suite's tail on 2 workers.
LONG_FIRST = ("test_naive_power.py", "test_jit.py", "test_packaging.py")


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        name = item.path.name
        return LONG_FIRST.index(name) if name in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=rank)  # stable: every other test keeps its place


@pytest.fixture
def default_sigint():
    """SIGINT raises KeyboardInterrupt during the test, as in a Python started from a terminal,
    and the processes the test starts inherit that. pytest-xdist starts its workers with
    SIGINT ignored (so a Ctrl-C reaches only the controller): ``interrupt_main`` then does
    nothing, and every child process inherits the ignored signal, so a Ctrl-C test would pass
    or hang depending on which tests its worker ran before (a notebook run restores it)."""
    import signal

    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def examples_dir() -> Path:
    return ROOT / "examples"


# The `statistical` marker promises >= 1e6 Monte Carlo trials: every engine run inside a test
# marked statistical is recorded, and the test fails when the largest had fewer.
STATISTICAL_MIN_TRIALS = 1_000_000


@pytest.fixture(autouse=True)
def _statistical_trials(request, monkeypatch):
    if request.node.get_closest_marker("statistical") is None:
        yield
        return
    from oddslab import engine

    seen: list[int] = []
    real = engine.run_job

    def recording(job, trials, *args, **kwargs):
        seen.append(int(trials))
        return real(job, trials, *args, **kwargs)

    monkeypatch.setattr(engine, "run_job", recording)
    yield
    if seen and max(seen) < STATISTICAL_MIN_TRIALS:
        pytest.fail(
            f"marked statistical but its largest run had {max(seen):,} trials "
            f"(the marker promises >= {STATISTICAL_MIN_TRIALS:,})"
        )


# A rule-switch test promises a comparison that a 0.5 pp error fails (issue 27): its check
# (switches.assert_power, or an exact comparison's power check) says so through
# switches.note_power, and a marked test that passes without it fails here.
@pytest.fixture(autouse=True)
def _rule_switch_power(request):
    if request.node.get_closest_marker("rule_switch") is None:
        yield
        return
    flag = "ODDSLAB_TEST_POWER_CHECKED"  # tests/switches.py's POWER_FLAG
    os.environ.pop(flag, None)
    yield
    call = getattr(request.node, "rep_call", None)
    if call is not None and call.passed and os.environ.pop(flag, None) != "1":
        pytest.fail(
            "marked rule_switch but no comparison in it checked that a 0.5 pp error would "
            "fail (switches.assert_power, or note_power after an exact comparison's check)"
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.rep_call = report
    return report
