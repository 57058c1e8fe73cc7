"""Characteristics of BattleScribe profiles → numbers, and what abilities say about saves.

Profile type and characteristic names as the BSData data repositories spell them:

- 10th edition (``wh40k-10e``, ``Warhammer 40,000.gst``): ``Unit`` (M, T, SV, W, LD, OC),
  ``Ranged Weapons`` (Range, A, BS, S, AP, D, Keywords), ``Melee Weapons`` (Range, A, WS, S,
  AP, D, Keywords), ``Abilities`` (Description). The invulnerable save and feel-no-pain are
  abilities ("Invulnerable Save" with a description such as "4+", or text such as "This model
  has a 4+ invulnerable save").
- 11th edition (``wh40k-11e``): the same types, with ``Sv`` for the save and a new ``InSv``
  (invulnerable save, "-" when none) in the ``Unit`` profile.

Every characteristic a value is read from goes through one function here, so a garbled value
("A" = "lots") is one :class:`RosterError` naming the file, the unit and the profile.
"""

from __future__ import annotations

import re

from oddslab._schema import ScenarioError

__all__ = [
    "MELEE_TYPES",
    "RANGED_TYPES",
    "UNIT_TYPES",
    "ABILITY_TYPES",
    "TYPE_IDS",
    "RosterError",
    "read_unit_profile",
    "read_weapon_profile",
    "saves_from_ability",
]

#: Profile type names (``typeName``) by role; both editions spell these the same.
UNIT_TYPES = frozenset({"unit"})
RANGED_TYPES = frozenset({"ranged weapons", "ranged weapon"})
MELEE_TYPES = frozenset({"melee weapons", "melee weapon"})
ABILITY_TYPES = frozenset({"abilities", "ability"})

#: Profile type ids → names, for a profile exported without its ``typeName``: the ids of the
#: BSData game-system files (the same in ``wh40k-10e`` and ``wh40k-11e``).
TYPE_IDS = {
    "c547-1836-d8a-ff4f": "unit",
    "f77d-b953-8fa4-b762": "ranged weapons",
    "8a40-4aaa-c780-9046": "melee weapons",
    "9cc3-6d83-4dd3-9b64": "abilities",
}

#: Characteristic names → our field (names compared case-insensitively): 10e ``SV``, 11e
#: ``Sv``; 11e ``InSv``; ``BS`` for ranged and ``WS`` for melee weapons.
UNIT_NAMES = {"t": "toughness", "sv": "save", "w": "wounds", "insv": "invulnerable"}
WEAPON_NAMES = {
    "range": "range",
    "a": "attacks",
    "bs": "skill",
    "ws": "skill",
    "s": "strength",
    "ap": "ap",
    "d": "damage",
    "keywords": "keywords",
}
_NONE = {"", "-", "–", "—", "n/a", "none"}


class RosterError(ScenarioError):
    """A roster that cannot be imported: the file, where in it (unit / profile) and why."""


def _int(text: str, source: str, where: str, name: str, lo: int, hi: int) -> int:
    t = text.strip()
    if re.fullmatch(r"\d{1,3}", t) and lo <= int(t) <= hi:
        return int(t)
    raise RosterError(source, where, f"{name} = {text!r}: expected a whole number {lo}-{hi}")


def _roll(text: str, source: str, where: str, name: str) -> int | None:
    """``"3+"`` → 3; "-" / "N/A" → None (no roll)."""
    t = text.strip()
    if t.casefold() in _NONE:
        return None
    m = re.fullmatch(r"([2-7])\s*\+", t)
    if m:
        return int(m.group(1))
    raise RosterError(source, where, f"{name} = {text!r}: expected a roll like 3+ (or -)")


def _dice(text: str, source: str, where: str, name: str) -> int | str:
    """``"2"`` → 2, ``"D6+1"`` → "D6+1" (checked by oddslab's dice parser)."""
    from oddslab.dice import DiceExpr

    t = text.strip().replace(" ", "").upper()
    if re.fullmatch(r"\d{1,3}", t):
        return int(t)
    try:
        expr = DiceExpr.parse(t)
    except ValueError:
        expr = None
    if expr is None or expr.max > 100 or len(t) > 12:
        raise RosterError(source, where, f"{name} = {text!r}: expected a number or dice like D6+1")
    return t


def read_unit_profile(chars: dict[str, str], source: str, where: str) -> dict[str, int | None]:
    """A ``Unit`` profile → ``toughness``, ``save`` (7 = none), ``wounds``, ``invulnerable``.

    ``chars`` maps characteristic names (as printed) to their text.
    """
    got = {UNIT_NAMES[k.casefold()]: (k, v) for k, v in chars.items() if k.casefold() in UNIT_NAMES}
    for need, label in (("toughness", "T"), ("save", "SV"), ("wounds", "W")):
        if need not in got:
            raise RosterError(source, where, f"the Unit profile has no {label} characteristic")
    out: dict[str, int | None] = {}
    k, v = got["toughness"]
    out["toughness"] = _int(v, source, where, k, 1, 30)
    k, v = got["wounds"]
    out["wounds"] = _int(v, source, where, k, 1, 100)
    k, v = got["save"]
    save = _roll(v, source, where, k)
    out["save"] = 7 if save is None else save
    out["invulnerable"] = None
    if "invulnerable" in got:
        k, v = got["invulnerable"]
        inv = _roll(v, source, where, k)
        out["invulnerable"] = inv if inv is None or inv <= 6 else None
    return out


def read_weapon_profile(
    chars: dict[str, str], melee: bool, source: str, where: str
) -> dict[str, object]:
    """A weapon profile → ``range`` (inches; None in melee), ``attacks``, ``skill`` (None for
    "N/A", as Torrent weapons print it), ``strength``, ``ap`` (positive), ``damage``,
    ``keywords`` (the text as printed, "" for none)."""
    got = {
        WEAPON_NAMES[k.casefold()]: (k, v) for k, v in chars.items() if k.casefold() in WEAPON_NAMES
    }
    for need, label in (
        ("attacks", "A"),
        ("skill", "WS" if melee else "BS"),
        ("strength", "S"),
        ("ap", "AP"),
        ("damage", "D"),
    ):
        if need not in got:
            raise RosterError(source, where, f"the weapon profile has no {label} characteristic")
    out: dict[str, object] = {}
    k, v = got.get("range", ("Range", "Melee" if melee else ""))
    r = v.strip().rstrip('"″”').strip()
    if r.casefold() == "melee" or (melee and r.casefold() in _NONE):
        out["range"] = None
    elif re.fullmatch(r"\d{1,3}", r):
        out["range"] = int(r)
    else:
        raise RosterError(source, where, f'{k} = {v!r}: expected inches like 24" or Melee')
    k, v = got["attacks"]
    out["attacks"] = _dice(v, source, where, k)
    k, v = got["skill"]
    skill = _roll(v, source, where, k)
    if skill is not None and skill > 6:
        raise RosterError(source, where, f"{k} = {v!r}: expected a roll from 2+ to 6+")
    out["skill"] = skill
    k, v = got["strength"]
    out["strength"] = _int(v, source, where, k, 1, 30)
    k, v = got["ap"]
    t = v.strip().replace("−", "-")
    if t.casefold() in _NONE or t == "0":
        out["ap"] = 0
    elif re.fullmatch(r"-\s*[0-6]", t):
        out["ap"] = int(t.replace("-", "").strip())
    else:
        raise RosterError(source, where, f"{k} = {v!r}: expected AP like -2 or 0")
    k, v = got["damage"]
    out["damage"] = _dice(v, source, where, k)
    kw = got.get("keywords", ("Keywords", ""))[1].strip()
    out["keywords"] = "" if kw.casefold() in _NONE else " ".join(kw.split())
    return out


# -- abilities that say what a save is ----------------------------------------------------------
_CONDITION = re.compile(
    r"\b(against|while|if|when|each time|until|within|in the (?:fight|shooting)|first time)\b",
    re.IGNORECASE,
)
_INV = re.compile(r"(?<![\d+])([2-6])\s*\+\s*invulnerable save", re.IGNORECASE)
_FNP = re.compile(r"feel no pain\s*([2-6])\s*\+", re.IGNORECASE)
_BARE = re.compile(r"^\s*([2-6])\s*\+\s*\.?\s*$")


def saves_from_ability(name: str, text: str) -> dict[str, int]:
    """``{"invulnerable": 4}`` / ``{"feel_no_pain": 5}`` when an ability says so outright.

    Read: an ability named "Invulnerable Save" whose text is a bare roll ("4+"); a sentence
    with "N+ invulnerable save"; an ability named "Feel No Pain N+" or a sentence with "Feel
    No Pain N+". A sentence with a condition ("against ranged attacks", "while", "if", "each
    time", ...) is not read: the save does not always apply, so the ability is listed as not
    modelled instead.
    """
    out: dict[str, int] = {}
    bare = _BARE.match(text or "") if "(" not in name else None  # "(Ranged)": conditional
    if bare and "invulnerable" in name.casefold():
        return {"invulnerable": int(bare.group(1))}
    if bare and "feel no pain" in name.casefold():
        return {"feel_no_pain": int(bare.group(1))}
    m = _FNP.search(name)  # "Feel No Pain 6+": its text explains the roll ("each time ...")
    if m and not _CONDITION.search(name) and not re.search(r"against|mortal", text or "", re.I):
        out["feel_no_pain"] = int(m.group(1))
    low = (text or "").casefold()
    if "invulnerable" not in low and "feel no pain" not in low:  # most abilities: no regex
        return out
    for sentence in re.split(r"(?<=[.;])\s+", text or ""):
        if _CONDITION.search(sentence):
            continue
        if m := _INV.search(sentence):
            out.setdefault("invulnerable", int(m.group(1)))
        if m := _FNP.search(sentence):
            out.setdefault("feel_no_pain", int(m.group(1)))
    return out
