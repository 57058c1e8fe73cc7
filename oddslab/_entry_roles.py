"""What a library entry says beyond a ruleset's keys: weapons picked by name, and the notes of
what an importer could not model (for ``oddslab show``). See :mod:`oddslab.libraries`
for roles and ``default_weapons``.
"""

from __future__ import annotations

import copy
from typing import Any

from oddslab._schema import ScenarioError

__all__ = ["select_weapons"]


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
