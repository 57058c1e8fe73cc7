"""The README quick start and CI stay in step."""

from __future__ import annotations

import re


def test_ci_runs_the_readme_test_command(root):
    readme = (root / "README.md").read_text()
    ci = (root / ".ci" / "run").read_text()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.S)
    test_cmd = 'pip install -e ".[dev]" && python -m pytest'
    assert test_cmd in blocks
    assert test_cmd in ci.splitlines()


def test_quick_start_example_exists(root):
    """The quick start names a shipped example by its bare name (so it works from any folder,
    installed or not)."""
    from oddslab import examples_dir

    readme = (root / "README.md").read_text()
    m = re.search(r"oddslab simulate ([\w-]+) --plot", readme)
    assert m and (examples_dir() / f"{m.group(1)}.toml").exists()
    assert (root / "docs" / "img" / "quickstart.png").exists()
