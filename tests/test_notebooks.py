"""Every notebook in notebooks/ executes top to bottom (nbclient)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_quickstart_exists():
    assert (ROOT / "notebooks" / "quickstart.ipynb") in NOTEBOOKS


def test_a_notebook_per_ruleset_and_no_paths_from_the_package_file():
    """The README promises a notebook per ruleset (the generic one is the quickstart), and
    notebooks find the examples through ``oddslab.examples_dir()`` (so they run installed)."""
    from oddslab.scenario import RULESETS

    names = {p.stem for p in NOTEBOOKS}
    assert {r for r in RULESETS if r != "generic"} <= names, sorted(set(RULESETS) - names)
    for p in NOTEBOOKS:
        assert "__file__" not in p.read_text(encoding="utf-8"), p.name


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
