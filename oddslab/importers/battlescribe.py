"""BattleScribe / New Recruit rosters (``.ros`` XML, ``.rosz`` zipped, New Recruit's JSON) →
plain unit data.

The roster schema (``http://www.battlescribe.net/schema/rosterSchema``), as exported rosters
and the BSData data repositories show it: ``roster/forces/force/selections/selection``; a
selection has a ``type`` (``unit``, ``model``, ``upgrade``), a ``number`` (for a weapon, how
many models carry it: the total, not per parent model), ``profiles/profile`` (``typeName``
"Unit", "Ranged Weapons", "Melee Weapons", "Abilities", with ``characteristics``),
``rules/rule``, ``categories/category`` (the unit's keywords) and ``costs/cost`` (``pts``: each
selection's own cost, so a unit costs the sum over its selections).

Reading is hardened, because a roster is someone else's file: the file (and, zipped, what it
unzips to) is capped at :data:`MAX_BYTES` before parsing (the size a zip declares is not
trusted: at most the cap plus one byte is ever unzipped); the XML goes through ``defusedxml``
with DTDs forbidden, so entity expansion ("billion laughs") and external entities are refused
and nothing is fetched or opened; nesting deeper than :data:`MAX_DEPTH` is refused. Every
problem is one :class:`RosterError` naming the file and the unit / weapon.
"""

from __future__ import annotations

import functools
import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oddslab.importers.characteristics import (
    ABILITY_TYPES,
    MELEE_TYPES,
    RANGED_TYPES,
    TYPE_IDS,
    UNIT_TYPES,
    RosterError,
    read_unit_profile,
    read_weapon_profile,
    saves_from_ability,
)

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "GroupData",
    "RosterData",
    "UnitData",
    "WeaponData",
    "parse_roster",
    "read_roster_xml",
    "roster_element_from_bytes",
]

#: Largest roster (or unzipped ``.rosz`` content) read, in bytes. A 2,000-point army exports
#: to well under 2 MiB; the cap bounds the parser's memory (a few times the text).
MAX_BYTES = 16 * 2**20
#: Deepest nesting of selections read (real rosters nest 3-6 deep).
MAX_DEPTH = 64

_MODE_MARK = re.compile(r"^\s*[➤►▶>]+\s*")
_MODE_SPLIT = re.compile(
    r"^(?P<base>.+?)\s+[-–]\s+(?P<mode>[^-–]+)$|^(?P<b2>.+?)\s*\((?P<m2>[^()]+)\)$"
)


@dataclass
class WeaponData:
    """One weapon profile of a unit: ``models`` carry it; ``profile`` holds the numbers."""

    name: str
    models: int
    profile: dict[str, Any]
    melee: bool
    mode_of: str | None = None  # the weapon's name when this profile is one of its modes
    carrier: str = ""  # the model group that carries it


@dataclass
class GroupData:
    """Models of a unit that share a defensive profile."""

    name: str
    models: int
    toughness: int
    save: int
    wounds: int
    invulnerable: int | None = None
    feel_no_pain: int | None = None


@dataclass
class UnitData:
    """A unit of the roster: what the library entry is built from."""

    name: str
    points: float
    groups: list[GroupData]
    weapons: list[WeaponData]
    keywords: tuple[str, ...]
    notes: list[str] = field(default_factory=list)
    leader_text: str = ""  # the text of its "Leader" ability: the units it can join

    @property
    def character(self) -> bool:
        return any(k in ("character", "epic hero") for k in self.keywords)


@dataclass
class RosterData:
    """The units of a roster, with its name, game system and army-wide notes."""

    source: str
    name: str
    game_system: str
    units: list[UnitData]
    notes: list[str] = field(default_factory=list)

    def leaders(self) -> list[str]:
        """``"Leader:Bodyguard"`` for every unit of the roster a leader's "Leader" ability
        names (the roster does not say which one it joins: suggestions for ``--attach``)."""
        out = []
        for lead in self.units:
            text = " ".join(lead.leader_text.casefold().split())
            for body in self.units:
                if body is not lead and text and body.name.casefold() in text:
                    out.append(f"{lead.name}:{body.name}")
        return list(dict.fromkeys(out))


# -- reading the file safely ---------------------------------------------------------------------
def read_roster_xml(path: str | Path, max_bytes: int = MAX_BYTES) -> Any:
    """The parsed root element of a ``.ros``, ``.rosz`` or JSON roster file (see the module
    notes).

    Raises
    ------
    RosterError
        Missing, too big, not a zip / not XML, a DTD or entities, not a roster.
    """
    path = Path(path)
    src = str(path)
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            head = fh.read(4)
    except OSError:
        raise RosterError(src, "", "file not found or not readable") from None
    if head.startswith(b"PK"):
        return _roster_element(_unzip(path, src, max_bytes), src)
    if size > max_bytes:
        raise RosterError(src, "", f"{size:,} bytes, more than the {max_bytes:,} read")
    return _roster_element(path.read_bytes(), src)


def roster_element_from_bytes(data: bytes, name: str, max_bytes: int = MAX_BYTES) -> Any:
    """:func:`read_roster_xml` for a file's bytes (an upload): ``name`` names it in errors."""
    if data.startswith(b"PK"):
        import io

        return _roster_element(_unzip(io.BytesIO(data), name, max_bytes), name)
    if len(data) > max_bytes:
        raise RosterError(name, "", f"{len(data):,} bytes, more than the {max_bytes:,} read")
    return _roster_element(data, name)


def _roster_element(data: bytes, src: str) -> Any:
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):  # New Recruit's JSON export
        from oddslab.importers.newrecruit import element_from_json

        return element_from_json(data, src)
    return _parse_xml(data, src)


def _unzip(file: Any, src: str, max_bytes: int) -> bytes:
    try:
        with zipfile.ZipFile(file) as zf:
            files = [i for i in zf.infolist() if not i.is_dir()]
            ros = [i for i in files if i.filename.lower().endswith((".ros", ".xml"))] or files
            if len(ros) != 1:
                raise RosterError(src, "", f"expected one .ros file in the zip, found {len(ros)}")
            info = ros[0]
            if info.file_size > max_bytes:
                raise RosterError(
                    src,
                    info.filename,
                    f"unzips to {info.file_size:,} bytes, more than the {max_bytes:,} read",
                )
            parts, got = [], 0
            with zf.open(info) as fh:  # a zip may lie about its size: 1 MiB at a time, to the cap
                while got <= max_bytes and (part := fh.read(min(2**20, max_bytes + 1 - got))):
                    parts.append(part)
                    got += len(part)
            data = b"".join(parts)
    except RosterError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, RuntimeError, NotImplementedError):
        raise RosterError(src, "", "not a readable .rosz (zip) file") from None
    if len(data) > max_bytes:
        raise RosterError(src, info.filename, f"unzips to more than the {max_bytes:,} bytes read")
    return data


def _parse_xml(data: bytes, src: str) -> Any:
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    try:
        root = fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException:
        raise RosterError(
            src, "", "refused: the XML declares a DTD or entities (rosters have none)"
        ) from None
    except ParseError as exc:
        raise RosterError(src, "", f"not valid XML ({exc})") from None
    if _local(root.tag) != "roster":
        raise RosterError(src, "", f"not a BattleScribe roster (its root is <{_local(root.tag)}>)")
    return root


# -- element helpers ----------------------------------------------------------------------------
def _local(tag: Any) -> str:
    return str(tag).rsplit("}", 1)[-1]


def _items(el: Any, kind: str) -> list[Any]:
    """``el/<kind>s/<kind>`` children."""
    out = []
    plural = "categories" if kind == "category" else kind + "s"
    for box in el:
        if _local(box.tag) == plural:
            out.extend(c for c in box if _local(c.tag) == kind)
    return out


def _number(el: Any, src: str, where: str) -> int:
    text = (el.get("number") or "1").strip()
    if not re.fullmatch(r"\d{1,4}(\.0+)?", text):  # JSON exports may write 1.0
        raise RosterError(src, where, f"number = {text!r}: expected a whole number")
    return int(float(text))


def _points(el: Any, src: str, where: str) -> float:
    total = 0.0
    for cost in _items(el, "cost"):
        if (cost.get("name") or "").strip().casefold() in ("pts", "points"):
            try:
                total += float(cost.get("value") or 0)
            except ValueError:
                raise RosterError(
                    src, where, f"cost {cost.get('value')!r} is not a number"
                ) from None
    return total


def _chars(profile: Any) -> dict[str, str]:
    return {(c.get("name") or ""): (c.text or "") for c in _items(profile, "characteristic")}


def _walk(el: Any, src: str, where: str):
    """(selection, depth, parents) for ``el`` and every selection below it, depth-first."""
    stack = [(el, 0, ())]
    while stack:
        sel, depth, parents = stack.pop()
        if depth > MAX_DEPTH:
            raise RosterError(src, where, f"selections nested more than {MAX_DEPTH} deep")
        yield sel, depth, parents
        kids = _items(sel, "selection")
        stack.extend((k, depth + 1, (*parents, sel)) for k in reversed(kids))


# -- the roster → units -------------------------------------------------------------------------
def parse_roster(root: Any, src: str) -> RosterData:
    """Read every unit of a parsed roster (see :func:`read_roster_xml`)."""
    units: list[UnitData] = []
    notes: list[str] = []
    forces = []
    stack = list(_items(root, "force"))
    while stack:  # forces may hold forces
        force = stack.pop(0)
        forces.append(force)
        stack.extend(_items(force, "force"))
        if len(forces) > 1000:
            raise RosterError(src, "forces", "more than 1,000 forces")
    other = 0.0  # points of selections that are not units (a detachment's)
    for force in forces:
        notes.extend(f"army rule: {r.get('name')}" for r in _items(force, "rule"))
        for sel in _items(force, "selection"):
            kind = (sel.get("type") or "").casefold()
            if kind in ("unit", "model"):
                units.append(_unit(sel, src))
            else:
                notes.append(f"{sel.get('name')} (not a unit)")
                other += sum(_points(s, src, "forces") for s, _, _ in _walk(sel, src, "forces"))
    if not units:
        raise RosterError(src, "forces", "the roster has no units")
    said, added = _points(root, src, "costs"), sum(u.points for u in units) + other
    if _items(root, "cost") and abs(said - added) > 0.5:  # the file disagrees with itself
        notes.append(f"the roster says {said:g} points, its selections add up to {added:g}")
    name = root.get("name") or Path(src).stem
    return RosterData(
        src, name, root.get("gameSystemName") or "", units, list(dict.fromkeys(notes))
    )


def _unit(sel: Any, src: str) -> UnitData:
    uname = (sel.get("name") or "unit").strip()
    if sel.get("customName"):
        uname = f"{sel.get('customName').strip()} ({uname})"
    walk = list(_walk(sel, src, uname))
    points = sum(_points(s, src, uname) for s, _, _ in walk)
    keywords = tuple(
        dict.fromkeys(
            (c.get("name") or "").strip().casefold()
            for c in _items(sel, "category")
            if not (c.get("name") or "").startswith("Faction:")
        )
    )
    notes: list[str] = []
    # model carriers: selections of type model; else selections with a Unit profile; else U
    carriers = [s for s, _, _ in walk if (s.get("type") or "").casefold() == "model"]
    if not carriers:
        carriers = [s for s, d, _ in walk if d > 0 and _profiles(s, UNIT_TYPES)]
    if not carriers:
        carriers = [sel]
    parents = {id(s): p for s, _, p in walk}
    groups: dict[tuple, GroupData] = {}
    group_of: dict[int, GroupData] = {}
    for m in carriers:
        where = f"{uname} / {m.get('name')}" if m is not sel else uname
        prof = _unit_profile(m, parents[id(m)], src, where, notes)
        values = read_unit_profile(_chars(prof), src, where)
        key = (prof.get("name"), *values.values())
        g = groups.get(key)
        if g is None:
            g = groups[key] = GroupData(
                name=(prof.get("name") or uname).strip(), models=0, **values
            )
        g.models += _number(m, src, where)
        group_of[id(m)] = g
    leader = _read_abilities(walk, group_of, list(groups.values()), uname, notes)
    weapons = _read_weapons(walk, group_of, uname, src)
    for w in weapons:
        for kw in _split_keywords(w.profile["keywords"]):
            if not _known_keyword(kw):
                notes.append(f"keyword {kw} ({w.name})")
    return UnitData(
        uname, points, list(groups.values()), weapons, keywords, list(dict.fromkeys(notes)), leader
    )


def _profiles(sel: Any, types: frozenset[str]) -> list[Any]:
    """The profiles of ``sel`` of those types (by ``typeName``, else by the BSData type id);
    hidden ones left out."""
    return [
        p
        for p in _items(sel, "profile")
        if _type(p) in types and (p.get("hidden") or "").casefold() != "true"
    ]


def _type(profile: Any) -> str:
    name = (profile.get("typeName") or "").strip().casefold()
    return name or TYPE_IDS.get(profile.get("typeId") or "", "")


def _unit_profile(m: Any, parents: tuple, src: str, where: str, notes: list[str]) -> Any:
    """The Unit profile of a model: on it or below it, else on the nearest selection above."""
    for s, _, _ in _walk(m, src, where):
        found = _profiles(s, UNIT_TYPES)
        if found:
            break
    else:
        found = []
        for s in reversed(parents):
            found = _profiles(s, UNIT_TYPES)
            if found:
                break
    if not found:
        raise RosterError(src, where, "no Unit profile (T, SV, W) for this model")
    if len(found) > 1:
        mname = (m.get("name") or "").casefold()
        named = [p for p in found if (p.get("name") or "").casefold() in mname]
        pick = named[0] if named else found[0]
        notes.append(
            f"{len(found)} Unit profiles ({', '.join(p.get('name') for p in found)}); "
            f"read '{pick.get('name')}' for {m.get('name')}"
        )
        return pick
    return found[0]


def _read_abilities(walk, group_of, groups, uname, notes) -> str:
    """Invulnerable saves and feel-no-pain from abilities and rules; the rest → notes. Returns
    the text of a "Leader" ability ("" if none)."""
    seen: set[str] = set()
    leader = ""
    for s, _, parents in walk:
        texts = [
            (p.get("name") or "", " ".join(_chars(p).values()), "ability")
            for p in _profiles(s, ABILITY_TYPES)
        ]
        for r in _items(s, "rule"):
            desc = " ".join((d.text or "") for d in r if _local(d.tag) == "description")
            texts.append((r.get("name") or "", desc, "rule"))
        if not texts:
            continue
        owner = next((group_of[id(x)] for x in (s, *reversed(parents)) if id(x) in group_of), None)
        targets = groups if owner is None or len(group_of) == 1 else [owner]
        for name, text, kind in texts:
            saves = saves_from_ability(name, text)
            for key, value in saves.items():
                for g in targets:
                    old = getattr(g, key)
                    setattr(g, key, value if old is None else min(old, value))
            if not saves and name not in seen:
                notes.append(f"{kind}: {name.strip()}")
            if name.strip().casefold() == "leader":
                leader += " " + text
            seen.add(name)
    return leader


def _read_weapons(walk, group_of, uname, src) -> list[WeaponData]:
    merged: dict[tuple, WeaponData] = {}
    for s, _, parents in walk:
        profs = _profiles(s, RANGED_TYPES | MELEE_TYPES)
        if not profs:
            continue
        model = next((x for x in (s, *reversed(parents)) if id(x) in group_of), None)
        carrier = (model.get("name") or "").strip() if model is not None else ""
        count = _number(s, src, uname)
        names = [_MODE_MARK.sub("", p.get("name") or "").strip() for p in profs]
        bases = [_mode_base(n) for n in names]
        for p, n, base in zip(profs, names, bases, strict=True):
            melee = _type(p) in MELEE_TYPES
            where = f"{uname} / {n}"
            profile = read_weapon_profile(_chars(p), melee, src, where)
            is_mode = base is not None and (
                bases.count(base) > 1 or _MODE_MARK.match(p.get("name") or "")
            )
            key = (n.casefold(), melee, *profile.values())
            w = merged.get(key)
            if w is None:
                w = merged[key] = WeaponData(
                    n, 0, profile, melee, base if is_mode else None, carrier
                )
            w.models += count
    weapons = list(merged.values())
    names = [w.name.casefold() for w in weapons]
    for w in weapons:  # one name, two profiles (a sergeant's better pistol): name them apart
        if names.count(w.name.casefold()) > 1 and w.carrier:
            w.name = f"{w.name} ({w.carrier})"
    return weapons


def _mode_base(name: str) -> str | None:
    m = _MODE_SPLIT.match(name)
    if not m:
        return None
    return (m.group("base") or m.group("b2")).strip()


def _split_keywords(text: str) -> list[str]:
    return [k.strip() for k in re.split(r",(?![^\[]*\])", text or "") if k.strip()]


@functools.cache
def _known_keyword(kw: str) -> bool:
    """Whether the generic ruleset models ``kw``: its own reader decides (so "Rapid Fire D3",
    which it refuses, is listed as not modelled). Asked through the scenario loader, as every
    front end reaches a game: a one-weapon scenario with that keyword."""
    from oddslab.scenario import ScenarioError, from_dict

    weapon = {"attacks": 1, "skill": 3, "strength": 4, "keywords": kw}
    try:
        target = {"models": 1, "toughness": 4, "save": 4}
        from_dict({"ruleset": "generic", "attacker": {"weapons": [weapon]}, "target": target})
    except ScenarioError as exc:
        if "keywords" in exc.key:
            return False
        raise  # any other problem is a bug of this check, not a verdict on the keyword
    return True
