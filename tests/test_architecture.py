"""The floor plan (docs/architecture.md), checked on the source: layers, import circles, size.

Imports are read from the source with ``ast`` (top-level and inside functions alike: an
import inside a method still ties the two modules together; an import under
``if TYPE_CHECKING:`` is for type hints only and does not count).

- Floors, low to high: the core (``oddslab/*.py``, ``oddslab/_kernels``), the games
  (``oddslab/rulesets/<game>``), the front ends (``oddslab/analysis``, ``oddslab/web``,
  ``oddslab/importers``, the CLI modules). No import runs from a lower floor to a higher one;
  a game imports no other game; a front end imports no game (it reaches games through
  :mod:`oddslab.ruleset` and the scenario loader).
- No import circle among the modules of the core or of a front end. Inside a game the
  circles that remain are listed in :data:`KNOWN_GAME_CIRCLES`: the list may only shrink.
- No module over :data:`MAX_LINES` lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "oddslab"
#: "no module over ~500 lines": the hard limit a module may not pass
MAX_LINES = 550

FRONT = (
    "oddslab.analysis",
    "oddslab.web",
    "oddslab.importers",
    "oddslab.cli",
    "oddslab.cli_",
    "oddslab.__main__",
)


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = p.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


MODULES = _modules()


def _target(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(name: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    typing_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for stmt in block.body
        for n in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue  # for type hints only: never imported when the code runs
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_pkg else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, base] if base else here)
            names = [f"{base}.{a.name}" for a in node.names] or [base]
        else:
            continue
        for n in names:
            t = _target(n)
            if t and t != name and t.startswith("oddslab"):
                found.add(t)
    return found


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def floor(module: str) -> tuple[int, str]:
    """(floor number, room): 0 core, 1 a game (room = the game), 2 a front end."""
    if module.startswith("oddslab.rulesets."):
        return 1, module.split(".")[2]
    if module == "oddslab.rulesets":
        return 1, ""
    if module.startswith(FRONT):
        return 2, module.split(".")[1]
    return 0, ""


#: Imports from a lower floor to a higher one that remain, each with its reason. May only shrink.
KNOWN_UPWARD: set[tuple[str, str]] = set()

#: Circles inside a game's package that remain (the scenario class's methods import the
#: compile step, which imports the class): docs/architecture.md. May only shrink.
KNOWN_GAME_CIRCLES = {
    "generic": 5,  # model <-> compile, exact, chain, resolved
    "hex_platoon": 7,  # compile <-> validate, firepower, statistics, resolve, exact, exact_steps
}


def test_no_import_runs_up_a_floor():
    bad = []
    for mod, targets in GRAPH.items():
        (f, room) = floor(mod)
        for t in targets:
            (g, other) = floor(t)
            if mod == "oddslab" or (mod, t) in KNOWN_UPWARD:
                continue  # the package's curated re-exports
            if g > f or (f == g == 1 and room and other and room != other):
                bad.append(f"{mod} -> {t}")
    assert not bad, "imports from a lower floor to a higher one (or game to game):\n" + "\n".join(
        bad
    )
    for mod, t in KNOWN_UPWARD:
        assert t in GRAPH[mod], f"{mod} no longer imports {t}: remove it from KNOWN_UPWARD"


def test_front_ends_reach_games_only_through_the_protocol():
    bad = [
        f"{m} -> {t}"
        for m, targets in GRAPH.items()
        if floor(m)[0] == 2
        for t in targets
        if floor(t)[0] == 1
    ]
    assert not bad, bad


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circles_outside_the_games():
    circles = [c for c in _circles(GRAPH) if floor(c[0])[0] != 1]
    assert not circles, circles


def test_game_circles_only_shrink():
    sizes: dict[str, int] = {}
    for c in _circles(GRAPH):
        f, room = floor(c[0])
        if f == 1:
            sizes[room] = sizes.get(room, 0) + len(c)
    for room, n in sizes.items():
        assert n <= KNOWN_GAME_CIRCLES.get(room, 0), (room, n, "a new import circle in a game")


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name):
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{name}: {lines} lines (over {MAX_LINES}: it holds two jobs)"


ROOMS = ("__init__", "model", "reading", "compile")


@pytest.mark.parametrize(
    "game",
    sorted(
        p.name for p in (PKG / "rulesets").iterdir() if p.is_dir() and (p / "__init__.py").exists()
    ),
)
def test_every_game_has_the_same_rooms(game):
    names = {p.stem for p in (PKG / "rulesets" / game).glob("*.py")}
    assert set(ROOMS) <= names, sorted(set(ROOMS) - names)
    assert any(n.startswith("kernel") for n in names)
    # the same role has the same name everywhere
    for old, new in (("stats", "statistics"), ("checks", "validate"), ("describe", "resolved")):
        assert old not in names, f"{game}/{old}.py: call it {new}.py"


def test_report_game_circles():  # prints the remaining circles (pytest -s) for the docs
    for c in _circles(GRAPH):
        print(" <-> ".join(c))
