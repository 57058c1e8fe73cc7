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

    Raises
    ------
    ValueError
        Naming the key and the character (from 1) where it goes wrong: a ``[`` without its
        ``]`` (or inside another), a ``]`` without its ``[``, an empty ``[]``, an empty key
        between dots (``..``, a leading or trailing dot), text right after a ``]``, or a
        quoted name that a dotted path cannot hold (``.``, ``[``, ``]``).
    """
    text = path.strip()
    lead = len(path) - len(path.lstrip())  # positions count characters of ``path`` as given

    def fail(i: int, problem: str) -> ValueError:
        return ValueError(f"'{path}': {problem} at character {lead + i + 1}")

    if not text:
        raise ValueError(f"'{path}' is not a dotted key path (e.g. target.save)")
    if text[0] == "[":
        raise fail(0, "a key path starts with a name, not '['")
    parts: list[str | int] = []
    i, n = 0, len(text)
    while True:  # one part per turn: a name (after a dot, or first) or a [subscript]
        if i < n and text[i] == "[":
            close = text.find("]", i + 1)
            nested = text.find("[", i + 1)
            if close < 0 or 0 <= nested < close:
                raise fail(i, "'[' has no ']'")
            part, at = text[i + 1 : close], i + 1
            if not part.strip():
                raise fail(i, "empty '[]'")
            i = close + 1
        else:
            stop = min((j for j in (text.find(c, i) for c in ".[]") if j >= 0), default=n)
            part, at = text[i:stop], i
            if stop < n and text[stop] == "]":
                raise fail(stop, "']' has no '['")
            if not part.strip():
                if i == 0 or stop == n:
                    raise fail(min(i, n - 1), "an empty key (a dot at the start or the end)")
                raise fail(i - 1, "an empty key between dots ('..')")
            i = stop
        name = part.strip()
        if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'":
            name = name[1:-1]
            if not name or any(c in name for c in ".[]"):
                raise fail(at, f"the quoted name {part.strip()} is not a key a path can hold")
        elif any(c in name for c in "\"'"):
            raise fail(at, f"unbalanced quotes in {name}")
        parts.append(int(name) if name.isdigit() else name)
        if i >= n:
            return parts
        if text[i] == ".":
            i += 1
            if i >= n:
                raise fail(i - 1, "an empty key (a dot at the start or the end)")
            if text[i] == "[":
                raise fail(i - 1, "a name must follow '.' (write a.0 or a[0], not a.[0])")
        elif text[i] == "]":
            raise fail(i, "']' has no '['")
        elif text[i] != "[":  # text right after a ']'
            raise fail(i, "a '.' or '[' must follow ']'")


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
