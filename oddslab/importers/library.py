"""Units read from a roster → generic-ruleset library entries, and the library file's text.

One entry per unit (``[units.<key>]``) with its ``points``, ``name``, ``not_modelled`` (what
could not be read, also written as a comment) and two roles (see
:mod:`oddslab.libraries`):

- ``roles.target``: the unit's defensive profile: the one-profile keys (``models``,
  ``toughness``, ``wounds``, ``save``, ``invulnerable``, ``feel_no_pain``, ``keywords``) or,
  for models that differ, ``[[models]]`` groups (``name``, ``models``, ``toughness``,
  ``wounds``, ``save``, ``invulnerable``, ``feel_no_pain``, ``keywords``, ``character``);
- ``roles.attacker``: every weapon profile of the unit (``name``, ``models`` carrying it,
  ``range``, ``attacks``, ``skill``, ``strength``, ``ap``, ``damage``, ``keywords`` as printed,
  ``ignore_keywords`` for the printed keywords the generic pipeline does not model) and
  ``default_weapons``, the ones fired when a scenario names none.

Readings (documented in docs/import.md): the unit's entry fires its ranged weapons, each
weapon in its first mode, without Pistols when the unit has other ranged weapons and is not a
Monster or Vehicle (a model shoots its Pistols or its other weapons). ``<key>_melee`` fires the
melee weapons; ``<key>_<mode>`` fires the same set with another mode of one weapon. These
extra entries are attacker-only, so a whole-library matchup does not count a unit twice as a
target.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

from oddslab.importers.battlescribe import (
    GroupData,
    RosterData,
    UnitData,
    WeaponData,
    _known_keyword,
    _split_keywords,
)
from oddslab.importers.characteristics import RosterError

__all__ = ["build_entries", "library_text", "slug"]


def slug(name: str) -> str:
    """A TOML bare key from a name: ``"Intercessor Squad"`` → ``intercessor_squad``."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", text.casefold()).strip("_")[:60] or "unit"


def _points(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 2)


# -- weapons ---------------------------------------------------------------------------------
def _weapon_table(w: WeaponData) -> dict[str, Any]:
    p = w.profile
    t: dict[str, Any] = {"name": w.name, "models": w.models}
    if p["range"] is not None:
        t["range"] = p["range"]
    t["attacks"] = p["attacks"]
    if p["skill"] is not None:
        t["skill"] = p["skill"]
    t["strength"] = p["strength"]
    t["ap"] = p["ap"]
    t["damage"] = p["damage"]
    if p["keywords"]:
        t["keywords"] = p["keywords"]
        unknown = [k for k in _split_keywords(p["keywords"]) if not _known_keyword(k)]
        if unknown:
            t["ignore_keywords"] = unknown
    return t


def _usable(w: WeaponData, notes: list[str]) -> bool:
    torrent = any(k.casefold() == "torrent" for k in _split_keywords(w.profile["keywords"]))
    if w.profile["skill"] is None and not torrent:
        notes.append(f"weapon {w.name}: no hit roll (BS/WS N/A), not imported")
        return False
    return True


def _fire_sets(
    parts: list[tuple[UnitData, list[WeaponData]]], unfired: list[str]
) -> list[tuple[str, str, list[str]]]:
    """(key suffix, name suffix, weapon names) of each entry the weapons give; ``parts`` are
    the units joined in the entry (a bodyguard and its leaders), each with its weapons.
    Pistols left out by the Pistol rule are added to ``unfired``."""
    out = []
    for melee in (False, True):
        ws = []
        for unit, weapons in parts:  # the Pistol rule is each unit's own
            big = any(k in ("monster", "vehicle") for k in unit.keywords)
            own = [w for w in weapons if w.melee == melee]
            if not melee and not big and any(not _pistol(w) for w in own):
                unfired.extend(w.name for w in own if _pistol(w))
                own = [w for w in own if not _pistol(w)]
            ws.extend(own)
        first: dict[tuple, WeaponData] = {}
        alternatives: list[tuple[tuple, WeaponData]] = []
        plain = []
        ws = list({id(w): w for w in ws}.values())  # a weapon joined units share, once
        for w in ws:
            if w.mode_of is None:
                plain.append(w)
                continue
            k = (w.mode_of.casefold(), w.carrier)
            if k in first:
                alternatives.append((k, w))
            else:
                first[k] = w
                plain.append(w)
        if not plain:
            continue
        base = "_melee" if melee and out else ""
        label = " (melee)" if melee and out else ""
        out.append((base, label, [w.name for w in plain]))
        for k, alt in alternatives:
            names = [alt.name if w is first[k] else w.name for w in plain]
            out.append((f"{base}_{slug(alt.name)}", f" ({alt.name})", names))
    return out


def _pistol(w: WeaponData) -> bool:
    return any(k.casefold() == "pistol" for k in _split_keywords(w.profile["keywords"]))


# -- targets -----------------------------------------------------------------------------------
_DEFENCE = ("toughness", "wounds", "save", "invulnerable", "feel_no_pain")


def _group_table(g: GroupData, keywords, character: bool) -> dict[str, Any]:
    t: dict[str, Any] = {"name": g.name, "models": g.models}
    for k in _DEFENCE:
        if getattr(g, k) is not None:
            t[k] = getattr(g, k)
    if keywords:
        t["keywords"] = list(keywords)
    if character:
        t["character"] = True
    return t


def _target(groups: list[tuple[GroupData, tuple[str, ...], bool]]) -> dict[str, Any]:
    profiles = {tuple(getattr(g, k) for k in _DEFENCE) for g, _, _ in groups}
    if len(profiles) == 1 and not any(c for _, _, c in groups):
        g, kws, _ = groups[0]
        t: dict[str, Any] = {"models": sum(x.models for x, _, _ in groups)}
        t.update({k: getattr(g, k) for k in _DEFENCE if getattr(g, k) is not None})
        if kws:
            t["keywords"] = list(kws)
        return t
    return {"models": [_group_table(g, kws, c) for g, kws, c in groups]}


# -- entries -----------------------------------------------------------------------------------
def build_entries(
    roster: RosterData, attach: list[str] | tuple[str, ...] = ()
) -> dict[str, dict[str, Any]]:
    """Library entries (``{key: table}``) for every unit of ``roster``, and for every
    ``"Leader:Bodyguard"`` in ``attach`` one more entry of the two as a mixed unit."""
    entries: dict[str, dict[str, Any]] = {}
    keys: dict[int, str] = {}
    for unit in roster.units:
        key = _fresh(slug(unit.name), entries)
        keys[id(unit)] = key
        _add_unit(entries, key, unit.name, unit.points, [unit], unit.notes)
    for spec in attach:
        leaders_text, sep, body_text = spec.partition(":")
        if not sep or not leaders_text.strip() or not body_text.strip():
            raise RosterError(
                roster.source, "--attach", f'expected "Leader:Bodyguard", got {spec!r}'
            )
        body = _find(roster, keys, body_text.strip(), spec)
        leaders = [_find(roster, keys, t.strip(), spec) for t in leaders_text.split("+")]
        units = [body, *leaders]
        if len({id(u) for u in units}) < len(units):
            raise RosterError(roster.source, "--attach", f"{spec!r} names one unit twice")
        key = _fresh(f"{keys[id(body)]}_with_" + "_".join(keys[id(u)] for u in leaders), entries)
        name = " + ".join(u.name for u in units)
        notes = [f"{u.name}: {n}" for u in units for n in u.notes]
        _add_unit(entries, key, name, sum(u.points for u in units), units, notes)
    return entries


def _fresh(key: str, taken: dict[str, Any]) -> str:
    out, i = key, 2
    while out in taken:
        out, i = f"{key}_{i}", i + 1
    return out


def _find(roster: RosterData, keys: dict[int, str], text: str, spec: str) -> UnitData:
    t = " ".join(text.casefold().split())
    hits = [u for u in roster.units if u.name.casefold() == t or keys[id(u)] == slug(text)]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        which = ", ".join(keys[id(u)] for u in hits)
        raise RosterError(
            roster.source, "--attach", f"'{text}' fits several units ({which}): name the entry"
        )
    import difflib

    names = [u.name for u in roster.units]
    close = difflib.get_close_matches(text, names, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise RosterError(roster.source, "--attach", f"no unit '{text}' in the roster{hint}")


def _add_unit(entries, key, name, points, units: list[UnitData], notes: list[str]) -> None:
    notes = list(notes)
    weapons: list[WeaponData] = []
    parts: list[tuple[UnitData, list[WeaponData]]] = []
    for i, u in enumerate(units):
        mine: list[WeaponData] = []
        for w in u.weapons:
            if not _usable(w, notes):
                continue
            clash = next((x for x in weapons if x.name.casefold() == w.name.casefold()), None)
            if clash is not None and clash.profile == w.profile and clash.melee == w.melee:
                clash.models += w.models
                mine.append(clash)
                continue
            copy = WeaponData(w.name, w.models, w.profile, w.melee, w.mode_of, w.carrier)
            if clash is not None:
                copy.name = f"{w.name} ({u.name})"
            if i > 0:
                copy.carrier = f"{u.name}/{w.carrier}"
            weapons.append(copy)
            mine.append(copy)
        parts.append((u, mine))
    # in a joined unit the leaders are the characters (the generic pipeline's allocation)
    target = _target([(g, u.keywords, i > 0) for i, u in enumerate(units) for g in u.groups])
    unfired: list[str] = []
    sets = _fire_sets(parts, unfired)
    if unfired:
        notes.append(f"not fired by default (Pistol rule): {', '.join(unfired)}")
    tables = [_weapon_table(w) for w in weapons]
    for n, (suffix, label, fired) in enumerate(sets or [("", "", [])]):
        e: dict[str, Any] = {"points": _points(points), "name": name + label}
        if notes:
            e["not_modelled"] = list(dict.fromkeys(notes))
        roles: dict[str, Any] = {}
        if fired:
            roles["attacker"] = {"default_weapons": fired, "weapons": tables}
        if n == 0:
            roles["target"] = target
        e["roles"] = roles
        entries[_fresh(key + suffix, entries)] = e


# -- the file ------------------------------------------------------------------------------------
def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    # a TOML basic string: JSON's escapes are TOML's, plus DEL, which TOML wants escaped
    return json.dumps(str(v), ensure_ascii=False).replace("\x7f", "\\u007f")


def _comment(text: str) -> str:
    """A comment line: no control characters (a name cannot end the comment and add keys)."""
    return "# " + "".join(c if c.isprintable() else " " for c in text)


def _emit(prefix: str, table: dict[str, Any], lines: list[str], array: bool = False) -> None:
    lines.append(f"[[{prefix}]]" if array else f"[{prefix}]")
    subs, arrays = [], []
    for k, v in table.items():
        if isinstance(v, dict):
            subs.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            arrays.append((k, v))
        else:
            lines.append(f"{k} = {_value(v)}")
    for k, v in subs:
        _emit(f"{prefix}.{k}", v, lines)
    for k, items in arrays:
        for item in items:
            _emit(f"{prefix}.{k}", item, lines, array=True)


def library_text(roster: RosterData, entries: dict[str, dict[str, Any]]) -> str:
    """The library file: a header, one commented table per entry, a matchup template."""
    lines = [
        _comment(
            f"Imported by `oddslab import` from {Path(roster.source).name}"
            f" ({roster.game_system or 'unknown game system'})."
        ),
        _comment("Check every entry against your datasheets; docs/import.md says what is read."),
    ]
    lines += ['ruleset = "generic"', f"description = {_value(roster.name)}"]
    if roster.notes:
        lines.append(f"not_modelled = {_value(roster.notes)}  # army-wide")
    lines.append("")
    for key, e in entries.items():
        lines.append(_comment(f"{e['name']}: {e['points']} points"))
        for note in e.get("not_modelled", []):
            lines.append(_comment(f"  not modelled: {note}"))
        _emit(f"units.{key}", e, lines)
        lines.append("")
    lines += [
        "[matchup.template]",
        'ruleset = "generic"',
        "trials = 100000",
        "[matchup.template.attacker]",
        'use = "{attacker}"',
        "[matchup.template.target]",
        'use = "{target}"',
        "",
    ]
    return "\n".join(lines)
