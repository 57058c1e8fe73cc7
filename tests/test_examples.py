"""Every example scenario runs through the CLI and exits 0."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from oddslab.cli import app

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.toml"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(path, tmp_path):
    res = CliRunner().invoke(
        app, ["simulate", str(path), "--trials", "20000", "--plot", str(tmp_path / "p.png")]
    )
    assert res.exit_code == 0, res.output
    assert "Headline probabilities" in res.output or "Per-trial statistics" in res.output
    assert (tmp_path / "p.png").exists()
