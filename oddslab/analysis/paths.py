"""Dotted key paths into scenario dicts: one spelling per key, set in place, and a scenario
with a study's values set (``target.save``, ``weapons[0].models``, ``target[save]``).

The sweep, the duel and the CLI read every varied key through :func:`canonical_paths`, so two
spellings of one key are refused instead of answering another question, and labels and cell
seeds use the one spelling.
"""

from __future__ import annotations

from typing import Any

__all__ = ["split_path", "canonical_path", "canonical_paths", "set_path", "with_paths"]


def split_path(path: str) -> list[str | int]:
    """``"weapons.0.models"`` → ``["weapons", 0, "models"]``.

    Brackets are the same path: ``weapons[0].models``, ``target[save]`` and
    ``target["save"]`` split as ``weapons.0.models`` and ``target.save``.
    """
    text = path.strip().replace("[", ".").replace("]", "")
    parts: list[str | int] = []
    for p in text.split("."):
        p = p.strip()
        if len(p) >= 2 and p[0] == p[-1] and p[0] in "\"'":
            p = p[1:-1]
        if p == "":
            raise ValueError(f"'{path}' is not a dotted key path (e.g. target.save)")
        parts.append(int(p) if p.isdigit() else p)
    return parts


def canonical_path(path: str) -> str:
    """The one spelling of a key path: dots only (``target[save]`` → ``target.save``,
    ``weapons[0].models`` → ``weapons.0.models``). Labels and cell seeds use it, so two
    spellings of one key are one cell."""
    return ".".join(str(p) for p in split_path(path))


def canonical_paths(paths: list[str], what: str = "vary") -> list[str]:
    """:func:`canonical_path` of each path; a key given twice (in any spelling), or a key
    inside another given key, is a ValueError naming both as written."""
    out: list[str] = []
    for path in paths:
        c = canonical_path(path)
        for j, prev in enumerate(out):
            if prev == c:
                raise ValueError(
                    f"'{paths[j]}' and '{path}' are the same key ({c}): {what} it once"
                )
            inner, outer = (c, prev) if len(c) > len(prev) else (prev, c)
            if inner.startswith(outer + "."):
                raise ValueError(
                    f"'{paths[j]}' and '{path}': {inner} is inside {outer}; {what} one of them"
                )
        out.append(c)
    return out


def _resolves(data: Any, parts: list[str | int]) -> bool:
    node = data
    for p in parts[:-1]:
        if isinstance(p, int):
            if not isinstance(node, list) or p >= len(node):
                return False
        elif not isinstance(node, dict) or p not in node:
            return False
        node = node[p]
    last = parts[-1]
    if isinstance(last, int):
        return isinstance(node, list) and last < len(node)
    return isinstance(node, dict)


def set_path(data: dict[str, Any], path: str, value: Any, source: str = "<dict>") -> None:
    """Set ``value`` at dotted ``path`` in ``data`` (in place); the last key may be new.

    Raises
    ------
    ScenarioError
        When an intermediate key is missing or is not a table / array.
    """
    from oddslab._schema import ScenarioError

    parts = split_path(path)
    node: Any = data
    walked: list[str] = []
    for p in parts[:-1]:
        walked.append(str(p))
        if isinstance(p, int):
            if not isinstance(node, list) or p >= len(node):
                n = len(node) if isinstance(node, list) else 0
                raise ScenarioError(
                    source, ".".join(walked), f"no entry {p} to vary (the array has {n})"
                )
        elif not isinstance(node, dict) or p not in node:
            raise ScenarioError(source, ".".join(walked), "no such table in the scenario to vary")
        node = node[p]
    last = parts[-1]
    if isinstance(last, int):
        if not isinstance(node, list) or last >= len(node):
            raise ScenarioError(source, path, "no such array entry in the scenario to vary")
    elif not isinstance(node, dict):
        raise ScenarioError(source, path, "the key's parent is not a table")
    node[last] = value


def with_paths(
    raw: dict[str, Any], values: dict[str, Any], source: str, base: Any = None
) -> dict[str, Any]:
    """The scenario ``raw`` with each dotted path of ``values`` set, ``use`` expanded.

    A path whose tables all exist in ``raw`` as written is set there *before* library uses are
    expanded (so ``target.save`` next to ``target.use`` overrides the entry, and
    ``target.use`` itself can be varied); any other path is set in the expanded scenario
    (``attacker.weapons.0.models`` inside a library entry).
    """
    import copy

    from oddslab.libraries import expand_uses

    data = copy.deepcopy(raw)
    later = {}
    for path, value in values.items():
        if _resolves(data, split_path(path)):
            set_path(data, path, value, source)
        else:
            later[path] = value
    data = copy.deepcopy(expand_uses(data, source, base))
    for path, value in later.items():
        set_path(data, path, value, source)
    return data
