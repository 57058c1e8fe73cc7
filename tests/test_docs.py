"""docs/python-api.md: every ``python`` block runs on its own, in a fresh namespace, from an
empty folder (so none depends on the repository's working directory or on another block)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import ROOT

DOC = ROOT / "docs" / "python-api.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_there_are_snippets():
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_python_api_snippet_runs_alone(i, tmp_path):
    env = {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    import os

    env = {**os.environ, **env}
    res = subprocess.run(
        [sys.executable, "-c", BLOCKS[i]], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert res.returncode == 0, f"snippet {i}:\n{BLOCKS[i]}\n{res.stderr[-2000:]}"


def test_docs_cite_only_shipped_or_repository_files():
    """Paths a user is told to open exist (examples are shipped inside the package)."""
    for page in (ROOT / "docs").glob("*.md"):
        text = page.read_text(encoding="utf-8")
        for path in re.findall(r"(?<![\w/.])((?:examples|oddslab/examples)/[\w./-]+\.toml)", text):
            assert (ROOT / path).exists() or (ROOT / "oddslab" / path).exists(), (page.name, path)
