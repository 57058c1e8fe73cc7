"""Compiling kernels ahead of time (``oddslab warmup``).

Each ruleset package exposes ``WARMUP``: a tiny valid scenario as a dict (what ``tomllib``
gives for a file) that compiles every kernel a real scenario of that ruleset uses, with the
same array dtypes. Warming a ruleset is ``simulate(from_dict(WARMUP), trials=1)``; numba
writes the machine code to its cache, so later processes load it in a fraction of a second.
``WARMUP`` may also be a list of such dicts when one scenario cannot reach every kernel, or
the package may give that list as ``WARMUPS`` (which then wins).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from oddslab.scenario import RULESETS

__all__ = ["ALL", "POOLS", "warm", "warmup_scenarios"]

#: The name ``oddslab warmup`` uses for the dice-pool kernel of ``oddslab roll``.
POOLS = "dice-pools"
#: Everything ``oddslab warmup`` compiles by default, in order.
ALL: tuple[str, ...] = (*RULESETS, POOLS)

_POOL_EXAMPLE = "4D6 explode 6 reroll 1 keep 3 vs 2D6 count 4+ >= 2"


def warmup_scenarios(name: str) -> list[Any] | str:
    """The scenario objects whose runs compile ``name``'s kernels, or the reason there are
    none (a sentence)."""
    if name == POOLS:
        from oddslab.pools import parse_roll

        return [parse_roll(_POOL_EXAMPLE)]
    if name not in RULESETS:
        raise KeyError(f"unknown ruleset '{name}'")
    try:
        module = importlib.import_module(RULESETS[name])
    except ModuleNotFoundError as exc:
        if exc.name and not RULESETS[name].startswith(exc.name):
            raise  # the package exists but something it imports is missing: a real error
        return "not available in this version"
    spec = getattr(module, "WARMUPS", None) or getattr(module, "WARMUP", None)
    if spec is None:
        return "its package has no WARMUP scenario; it compiles on its first run instead"
    from oddslab.scenario import from_dict

    dicts = spec if isinstance(spec, list | tuple) else [spec]
    return [from_dict(d, source=f"<{name} WARMUP>") for d in dicts]


def warm(name: str, on_compile: Callable[[str], None] | None = None) -> str:
    """Compile (or load from numba's cache) the kernels of ruleset ``name``.

    Returns
    -------
    str
        One line for the user: what happened and how long it took.
    """
    from oddslab.engine import simulate

    scenarios = warmup_scenarios(name)
    if isinstance(scenarios, str):
        return f"{name}: skipped ({scenarios})"
    seconds = 0.0
    compiled = False
    said: set[str] = set()

    def once(what: str) -> None:  # one "compiling ..." line per ruleset, not per scenario
        if on_compile is not None and what not in said:
            said.add(what)
            on_compile(what)

    for sc in scenarios:
        out = simulate(sc, trials=1, seed=0, on_compile=once)
        seconds += out.compile_time
        compiled = compiled or out.compiled
    if compiled:
        return f"{name}: compiled in {seconds:.1f} s"
    if seconds > 0:
        return f"{name}: already compiled (loaded from the cache in {seconds:.2f} s)"
    return f"{name}: already compiled"
