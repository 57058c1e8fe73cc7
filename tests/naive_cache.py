"""Naive-reference histograms kept on disk, so a slow reference runs once per clean checkout.

The pure-Python references (``tests/naive*.py``) need 10^5 trials and more for a comparison
that a 0.5 percentage-point error fails, minutes of CPU over the suite. Their histograms are
kept in ``.naive_cache/`` at the repository root (gitignored; ``ODDSLAB_NAIVE_CACHE`` names
another folder, ``ODDSLAB_NAIVE_CACHE=off`` recomputes everything), one ``.npz`` per run,
named by a SHA-256 of:

- the source of every naive reference ``tests/naive_*.py`` and ``tests/naive.py`` (an edit
  to any reference recomputes every run; this file is not among them),
- the ``key`` the test gives: the ``repr`` of the scenario object the reference reads (which
  holds every unit, situation and rule switch: dataclass reprs, checked to hold no memory
  address), the trial count and the seed.

So a cached histogram is exactly what the reference would produce now for that input, and a
change to the scenario (in a test or in the reading code that builds it) misses the cache.
Writes are atomic (a temporary file renamed), so two pytest-xdist workers may race safely.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Hashable
from functools import cache
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

_MEMORY: dict[str, dict[str, np.ndarray]] = {}


def cache_dir() -> Path | None:
    """The folder runs are kept in, or None when caching is off."""
    where = os.environ.get("ODDSLAB_NAIVE_CACHE", "")
    if where.lower() in ("off", "0", "no", "false"):
        return None
    return Path(where) if where else ROOT / ".naive_cache"


@cache
def source_digest() -> str:
    """SHA-256 of every naive reference's source (``tests/naive*.py`` but this module)."""
    h = hashlib.sha256()
    for path in sorted(p for p in TESTS.glob("naive*.py") if p.name != "naive_cache.py"):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def key_digest(key: Hashable) -> str:
    text = repr(key)
    if " at 0x" in text:
        raise ValueError(f"naive cache key holds a memory address (not stable): {text[:200]}")
    return hashlib.sha256((source_digest() + "\n" + text).encode()).hexdigest()[:32]


def cached_counts(key: Hashable, run: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """``run()``'s histograms (``{statistic: int64 counts by value}``) for ``key``: from memory,
    else from disk, else computed and kept in both."""
    digest = key_digest(key)
    if digest in _MEMORY:
        return _MEMORY[digest]
    folder = cache_dir()
    path = None if folder is None else folder / f"{digest}.npz"
    if path is not None and path.exists():
        with np.load(path) as z:
            counts = {name: z[name] for name in z.files}
    else:
        counts = {k: np.asarray(v, dtype=np.int64) for k, v in run().items()}
        if path is not None:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                np.savez(f, **counts)
            os.replace(tmp, path)
    _MEMORY[digest] = counts
    return counts


def cached_run(
    tag: str, sc: object, trials: int, seed: int, run: Callable[[object, int, int], dict]
) -> dict[str, np.ndarray]:
    """``run(sc, trials, seed)`` (histograms) through :func:`cached_counts`, keyed by ``tag``,
    the scenario's ``repr``, ``trials`` and ``seed``."""
    return cached_counts((tag, repr(sc), trials, seed), lambda: run(sc, trials, seed))
