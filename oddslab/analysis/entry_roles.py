"""What a library entry says beyond a ruleset's keys: weapons picked by name, and the notes of
what an importer could not model (for ``oddslab show``). See :mod:`oddslab.analysis.libraries`
for roles and ``default_weapons``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from oddslab._schema import ScenarioError

__all__ = ["entry_notes", "select_weapons"]


def _is_name_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _norm(name: Any) -> str:
    return " ".join(str(name).casefold().split())


def select_weapons(weapons: Any, names: list[str], source: str, key: str) -> list[dict[str, Any]]:
    """The weapon tables of ``weapons`` named by ``names``, in the order named.

    A name picks the weapon of that name (case and spacing free) or, failing that, every
    weapon called ``"<name> (...)"`` (one weapon carried by several kinds of model); a name
    that fits only the modes of a weapon (``"plasma gun - supercharge"``) is an error listing
    them. Used by ``weapons = ["bolt rifle"]`` next to a ``use`` of an entry.
    """
    if not isinstance(weapons, list) or not all(isinstance(w, dict) for w in weapons):
        raise ScenarioError(source, key, "names weapons, but the entry used has no [[weapons]]")
    out: list[dict[str, Any]] = []
    for wanted in names:
        n = _norm(wanted)
        hits = [w for w in weapons if _norm(w.get("name", "")) == n]
        if not hits:
            hits = [w for w in weapons if _norm(w.get("name", "")).startswith(n + " (")]
        if not hits:
            import difflib

            known = [str(w.get("name", "")) for w in weapons]
            modes = [k for k in known if _norm(k).startswith(n + " - ")]
            close = modes or difflib.get_close_matches(wanted, known, n=3)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise ScenarioError(
                source, key, f"no weapon '{wanted}'{hint} (weapons: {', '.join(known)})"
            )
        out.extend(copy.deepcopy(h) for h in hits if h not in out)
    return out


def entry_notes(path: str | Path) -> dict[str, str]:
    """``{table: "entry: note; note"}`` for every ``use`` of an entry with ``not_modelled``.

    Read from the scenario file as written; a reference that cannot be read is skipped here
    (loading the scenario reports it).
    """
    from oddslab.analysis.libraries import NOTES_KEY, load_library, parse_ref
    from oddslab.scenario import read_toml

    path = Path(path)
    out: dict[str, str] = {}

    def walk(node: Any, where: str) -> None:
        if isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}[{i}]")
            return
        if not isinstance(node, dict):
            return
        if isinstance(node.get("use"), str):
            try:
                lib_path, name = parse_ref(node["use"], path.parent, str(path), where)
                entry = load_library(lib_path).entries.get(name)
            except ScenarioError:
                entry = None
            notes = entry.data.get(NOTES_KEY) if entry is not None else None
            if isinstance(notes, list) and notes:
                ref = f"{entry.library.name}:{entry.key}"
                out[where or "(file)"] = f"{ref}: " + "; ".join(str(n) for n in notes)
        for k, v in node.items():
            walk(v, f"{where}.{k}" if where else k)

    try:
        walk(read_toml(path), "")
    except ScenarioError:
        return {}
    return out
