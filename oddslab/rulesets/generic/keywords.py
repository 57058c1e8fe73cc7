"""Weapon keywords as a datasheet prints them, and what they become against one target.

``keywords = "Sustained Hits 1, Lethal Hits, Anti-Infantry 4+"`` (a string, comma-separated,
case-insensitive, brackets optional; or an array of strings) is read into the weapon's own keys
(:func:`parse_keywords`); the situational ones (Heavy, Lance, Melta, Rapid Fire, Indirect Fire)
are turned into modifiers, attacks and damage for the scenario's :class:`Situation` by
:func:`fired`, so the kernel, the exact engine and the compile step only ever see an ordinary
profile. Blast (attacks that depend on the target's models when the weapon fires), Hazardous
and Precision stay as flags for the kernel. See ``docs/generic.md`` (weapon keywords).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from oddslab.dice import DiceExpr

if TYPE_CHECKING:
    from oddslab.rulesets.generic.model import Situation, Weapon

__all__ = [
    "KEYWORD_FIELDS",
    "KEYWORD_NAMES",
    "apply_keywords",
    "fired",
    "keyword_text",
    "parse_keywords",
]

#: keywords without a value: printed name -> the weapon's boolean key
FLAGS = {
    "blast": "blast",
    "heavy": "heavy",
    "lance": "lance",
    "indirect fire": "indirect_fire",
    "ignores cover": "ignores_cover",
    "twin-linked": "twin_linked",
    "torrent": "torrent",
    "lethal hits": "lethal_hits",
    "devastating wounds": "devastating_wounds",
    "extra attacks": "extra_attacks",
    "hazardous": "hazardous",
    "precision": "precision",
}
#: keywords with a value: printed name -> the weapon's key
VALUED = {"sustained hits": "sustained_hits", "melta": "melta", "rapid fire": "rapid_fire"}
#: every weapon key a keyword can set (``anti`` from "Anti-KEYWORD X+")
KEYWORD_FIELDS = (*FLAGS.values(), *VALUED.values(), "anti")
#: printed names, for messages and docs
KEYWORD_NAMES = (
    "Blast", "Heavy", "Lance", "Indirect Fire", "Ignores Cover", "Twin-linked", "Torrent",
    "Lethal Hits", "Devastating Wounds", "Extra Attacks", "Hazardous", "Precision",
    "Sustained Hits X", "Melta X", "Rapid Fire X", "Anti-KEYWORD X+",
)  # fmt: skip

_ANTI = re.compile(r"^anti-?\s*([a-z][a-z0-9 '\-]*?)\s+([2-6])\+$")
_VALUED = re.compile(r"^(sustained hits|melta|rapid fire)\s+(\S+)$")


def _normal(text: str) -> str:
    """``"[TWIN LINKED]"`` -> ``"twin-linked"``: no brackets, lower case, single spaces."""
    t = text.strip().strip("[]").strip().lower()
    t = re.sub(r"\s+", " ", t.replace("_", " "))
    return re.sub(r"^twin[ -]?linked$", "twin-linked", t)


def split_keywords(value: str | list | tuple) -> list[str]:
    """A keyword string (comma-separated) or array as a list of printed keywords."""
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list | tuple) and all(isinstance(x, str) for x in value):
        parts = [p for x in value for p in x.split(",")]
    else:
        raise ValueError(
            f'keywords must be a string like "Lethal Hits, Melta 2" or an array of strings, '
            f"got {value!r}"
        )
    return [p.strip() for p in parts if p.strip().strip("[]").strip()]


def parse_keywords(value: str | list | tuple, ignore: tuple[str, ...] = ()) -> dict[str, Any]:
    """The weapon keys the printed ``keywords`` set (``ignore``: keywords that change nothing).

    Returns ``{key: value}``: booleans for flag keywords, a :class:`DiceExpr` for Sustained Hits,
    an int for Melta / Rapid Fire, and ``anti`` as a tuple of ``(keyword, X)``. Raises
    ``ValueError`` naming an unknown keyword (with the closest known one).
    """
    skip = {_normal(k) for k in ignore}
    out: dict[str, Any] = {}
    anti: list[tuple[str, int]] = []
    for raw in split_keywords(value):
        kw = _normal(raw)
        if kw in skip:
            continue
        if kw in FLAGS:
            out[FLAGS[kw]] = True
            continue
        m = _ANTI.match(kw)
        if m:
            anti.append((m.group(1).strip(), int(m.group(2))))
            continue
        m = _VALUED.match(kw)
        if m:
            key = VALUED[m.group(1)]
            try:
                if key == "sustained_hits":
                    out[key] = DiceExpr.parse(m.group(2).upper())
                else:
                    out[key] = int(m.group(2))
            except ValueError:
                raise ValueError(
                    f"keyword {raw.strip()!r}: {m.group(1).title()} needs a number"
                    + (" or dice (D3)" if key == "sustained_hits" else "")
                ) from None
            continue
        if kw in VALUED:
            raise ValueError(f"keyword {raw.strip()!r} needs its value (e.g. {raw.strip()} 1)")
        names = [*FLAGS, *VALUED, "anti-infantry 4+"]
        close = difflib.get_close_matches(kw, names, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0].title()!r}?" if close else ""
        raise ValueError(
            f"unknown weapon keyword {raw.strip()!r}{hint} (known: {', '.join(KEYWORD_NAMES)}; "
            "list keywords that change nothing in this attack, e.g. Pistol, in ignore_keywords)"
        )
    if anti:
        out["anti"] = tuple(anti)
    return out


def keyword_text(w: Weapon) -> tuple[str, ...]:
    """The weapon's keywords as a datasheet prints them (from its keys)."""
    out = [name.title().replace("Twin-Linked", "Twin-linked") for name, key in FLAGS.items()
           if getattr(w, key)]  # fmt: skip
    if w.sustained_hits.max:
        out.append(f"Sustained Hits {w.sustained_hits}")
    if w.melta:
        out.append(f"Melta {w.melta}")
    if w.rapid_fire:
        out.append(f"Rapid Fire {w.rapid_fire}")
    out += [f"Anti-{kw.title()} {x}+" for kw, x in w.anti]
    return tuple(out)


def at_half_range(w: Weapon, situation: Situation) -> bool:
    """Within half range: the weapon's own ``half_range``, else the attacker's."""
    return situation.half_range if w.half_range is None else w.half_range


def indirect_unseen(w: Weapon, situation: Situation) -> bool:
    """Indirect Fire against a target none of the firing models can see."""
    return w.indirect_fire and not situation.target_visible


def fired(w: Weapon, situation: Situation) -> Weapon:
    """The profile as it fires in ``situation``: situational keywords turned into plain keys.

    Heavy: +1 to hit when the attacker remained stationary; Lance: +1 to wound when it charged;
    Indirect Fire against an unseen target: -1 to hit (the unmodified 1-3 that fail and the
    target's cover stay flags, read by the compile step); Rapid Fire X / Melta X within half
    range: +X attacks per model / +X damage per attack; Twin-linked: re-roll failed wound rolls
    (unless ``reroll_wounds`` says otherwise). Blast, Hazardous and Precision stay flags.
    """
    hit = w.hit_modifier + (1 if w.heavy and situation.remained_stationary else 0)
    hit -= 1 if indirect_unseen(w, situation) else 0
    wound = w.wound_modifier + (1 if w.lance and situation.charged else 0)
    attacks, damage = w.attacks, w.damage
    if at_half_range(w, situation):
        if w.rapid_fire:
            attacks = DiceExpr(attacks.n, attacks.sides, attacks.add + w.rapid_fire)
        if w.melta:
            damage = DiceExpr(damage.n, damage.sides, damage.add + w.melta)
    rw = "failed" if w.twin_linked and w.reroll_wounds == "none" else w.reroll_wounds
    return replace(
        w,
        keywords=(),
        hit_modifier=hit,
        wound_modifier=wound,
        attacks=attacks,
        damage=damage,
        reroll_wounds=rw,
        heavy=False,
        lance=False,
        melta=0,
        rapid_fire=0,
        twin_linked=False,
    )


def apply_keywords(w: Weapon, expr: Callable[[Any], DiceExpr]) -> None:
    """Set the keys the printed ``keywords`` of a weapon being built name (``expr`` reads a
    dice value); a key given both ways must agree. Called by ``Weapon.__post_init__``."""
    try:
        found = parse_keywords(w.keywords, w.ignore_keywords)
    except ValueError as exc:
        raise ValueError(f"Weapon.keywords: {exc}") from None
    for key, value in found.items():
        given = getattr(w, key)
        if key == "anti":
            mine = given.items() if isinstance(given, dict) else given
            object.__setattr__(w, key, tuple(dict([*mine, *value]).items()))
        elif isinstance(value, bool):
            object.__setattr__(w, key, True)
        elif given in (0, "0", None) or (isinstance(given, DiceExpr) and given.max == 0):
            object.__setattr__(w, key, value)
        elif expr(given) != expr(value):
            raise ValueError(
                f"Weapon.keywords: {key} = {given} and the keyword's {value} disagree; give one"
            )
    object.__setattr__(w, "keywords", ())
    object.__setattr__(w, "keywords", keyword_text(_Shown(w, expr)))


class _Shown:
    """A weapon's keys read as :func:`keyword_text` needs them, before validation is done."""

    def __init__(self, w: Weapon, expr: Callable[[Any], DiceExpr]):
        self._w = w
        self._expr = expr

    def __getattr__(self, name: str) -> Any:
        v = getattr(self._w, name)
        if name == "sustained_hits":
            return self._expr(v)
        if name == "anti":
            return tuple(
                (str(k).lower(), int(x)) for k, x in (v.items() if isinstance(v, dict) else v)
            )
        return v
