"""The kernels' numba cache is keyed by a digest of every kernel source, not one file's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from oddslab import _jit
from oddslab._jit import cache_dir, source_digest

ROOT = Path(__file__).resolve().parent.parent


def _package_copy(tmp_path: Path) -> Path:
    pkg = tmp_path / "oddslab"
    shutil.copytree(ROOT / "oddslab", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return pkg


def test_digest_follows_every_kernel_source_and_nothing_else(tmp_path):
    pkg = _package_copy(tmp_path)
    base = source_digest(pkg)
    assert base == source_digest(ROOT / "oddslab") and len(base) == 16
    (pkg / "cli.py").write_text("# not kernel code\n")  # no kernel reads it
    assert source_digest(pkg) == base
    for rel in ("_kernels/rng.py", "rulesets/generic/layout.py", "_jit.py"):
        f = pkg / rel
        old = f.read_bytes()
        f.write_bytes(old + b"\n# changed\n")  # a helper or constant file another kernel uses
        assert source_digest(pkg) != base, rel
        f.write_bytes(old)
    (pkg / "rulesets" / "generic" / "extra.py").write_text("X = 1\n")  # a new file counts too
    assert source_digest(pkg) != base


def test_cache_dir_under_numba_cache_dir_or_the_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "nc"))
    assert cache_dir() == str(tmp_path / "nc" / f"oddslab-{source_digest()}")
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    want = tmp_path / "xdg" / "oddslab" / f"oddslab-{source_digest()}"
    assert cache_dir() == str(want) and want.is_dir()


def test_an_unwritable_place_falls_back_to_numbas_default(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker))  # a file: no directory can go there
    assert cache_dir() == ""


def test_kernels_cache_in_the_digest_directory(tmp_path):
    code = (
        "import numba, oddslab._jit as j\n"
        "from oddslab.engine import simulate\n"
        "from oddslab.pools import parse_roll\n"
        "simulate(parse_roll('3D6'), trials=10, seed=1)\n"
        "print(numba.config.CACHE_DIR)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    want = tmp_path / f"oddslab-{source_digest()}"
    assert out == str(want)
    assert any(want.rglob("*.nbi")), "the kernels were cached there"
    assert _jit._CACHE  # this test process caches somewhere writable too
