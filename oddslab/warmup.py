"""Compiling kernels ahead of time (``oddslab warmup``).

Each ruleset (:class:`oddslab.ruleset.Ruleset`) gives ``warmup``: tiny valid scenarios as
dicts (what ``tomllib`` gives for a file) that compile every kernel a real scenario of that
ruleset uses, with the same array dtypes. Warming a ruleset is
``simulate(from_dict(d), trials=1)`` for each; numba writes the machine code to its cache, so
later processes load it in a fraction of a second. Plugins are warmed the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from oddslab import ruleset as _registry

__all__ = ["ALL", "POOLS", "everything", "warm", "warmup_scenarios"]

#: The name ``oddslab warmup`` uses for the dice-pool kernel of ``oddslab roll``.
POOLS = "dice-pools"
#: Everything ``oddslab warmup`` compiles by default, in order (plugins: :func:`everything`).
ALL: tuple[str, ...] = (*_registry.BUILTIN, POOLS)


def everything() -> tuple[str, ...]:
    """The built-in rulesets, the installed ruleset plugins, and the dice pools, in order."""
    return (*_registry.names(), POOLS)


_POOL_EXAMPLE = "4D6 explode 6 reroll 1 keep 3 vs 2D6 count 4+ >= 2"


def warmup_scenarios(name: str) -> list[Any] | str:
    """The scenario objects whose runs compile ``name``'s kernels, or the reason there are
    none (a sentence)."""
    if name == POOLS:
        from oddslab.pools import parse_roll

        return [parse_roll(_POOL_EXAMPLE)]
    if name not in _registry.names():
        raise KeyError(f"unknown ruleset '{name}'")
    try:
        game = _registry.get(name)
    except ModuleNotFoundError as exc:
        module = _registry.available()[name].partition(":")[0]
        if exc.name and not module.startswith(exc.name):
            raise  # the package exists but something it imports is missing: a real error
        return "not available in this version"
    spec = tuple(game.warmup)
    if not spec:
        return "it has no warm-up scenario; it compiles on its first run instead"
    from oddslab.scenario import from_dict

    return [from_dict(d, source=f"<{name} WARMUP>") for d in spec]


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
