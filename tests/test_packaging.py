"""A regular (non-editable) build ships the examples and unit libraries as package data."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT


@pytest.mark.slow
def test_wheel_ships_examples_and_libraries(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
    )
    if res.returncode != 0 and "Could not" in res.stderr and "setuptools" in res.stderr:
        pytest.skip(f"cannot fetch the build backend: {res.stderr[-300:]}")
    assert res.returncode == 0, res.stderr
    (wheel,) = tmp_path.glob("oddslab-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "oddslab" / "examples").rglob("*.toml")
    }
    assert shipped and shipped <= names, sorted(shipped - names)
    assert "oddslab/examples/generic-intercessors-vs-guardsmen.toml" in names
    # the web app's page, scripts and styles (oddslab serve works offline from the wheel)
    web = {
        p.relative_to(ROOT).as_posix()
        for d in ("templates", "static")
        for p in (ROOT / "oddslab" / "web" / d).iterdir()
    }
    assert web and web <= names, sorted(web - names)
