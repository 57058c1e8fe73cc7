"""oddslab.analysis (the package): light to import, names loaded on first use, and ``sweep`` /
``matchup`` stay the functions whatever is imported first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(code: str) -> str:
    p = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_importing_the_package_imports_no_submodule():
    out = _run(
        "import sys, oddslab.analysis, oddslab.analysis.cli\n"
        "print(sorted(m for m in sys.modules if m.startswith('oddslab.analysis.')))"
    )
    assert out == "['oddslab.analysis.cli', 'oddslab.analysis.cli_common']"


@pytest.mark.parametrize(
    "first",
    [
        "from oddslab.analysis.sweep import SweepResult",
        "import oddslab.analysis.sweep",
        "from oddslab.analysis import sweep",
        "import oddslab",
    ],
)
def test_sweep_and_matchup_are_the_functions_whatever_came_first(first):
    out = _run(
        f"{first}\n"
        "import oddslab.analysis.matchup\n"
        "from oddslab.analysis import sweep, matchup, SweepResult\n"
        "import oddslab, oddslab.analysis as a\n"
        "print(callable(sweep), callable(matchup), a.sweep is sweep is oddslab.sweep,\n"
        "      type(a.matchup).__name__, SweepResult.__module__)"
    )
    assert out == "True True True function oddslab.analysis.sweep"


def test_every_public_name_resolves_and_is_listed():
    import oddslab.analysis as a

    for name in a.__all__:
        assert getattr(a, name) is not None
        assert name in dir(a)
    with pytest.raises(AttributeError):
        a.no_such_name  # noqa: B018
    from oddslab.analysis import distributed  # submodules still import by name

    assert distributed.__name__ == "oddslab.analysis.distributed"
