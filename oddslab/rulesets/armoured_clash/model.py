"""Armoured Clash model: the attack die and unit profiles.

Frozen dataclasses, validated in ``__post_init__``; no numba here. The attack situations and
rule switches are in :mod:`.situation` (re-exported here). Every rule, default and assumption
is documented in ``docs/armoured-clash.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from oddslab.rulesets.armoured_clash.layout import GLANCING, HEROIC, MISS
from oddslab.rulesets.armoured_clash.situation import (
    EXPIRY,
    REROLL_SOURCES,
    Attack,
    Rules,
    Situation,
)

__all__ = [
    "AttackDie",
    "RangedAttack",
    "Armaments",
    "Unit",
    "Situation",
    "Attack",
    "Rules",
    "attack_pool_pmf",
    "combat_rating",
    "default_deck",
    "UNIT_TYPES",
    "CATEGORIES",
    "RATINGS",
    "FACE_KINDS",
    "REROLLABLE",
    "REROLL_SOURCES",
    "OUTFLANKABLE",
    "MAX_GARRISON",
    "EXPIRY",
    "FORMATIONS",
    "OFFICER_MODES",
    "LEVELS",
    "SIDES",
    "MAX_DICE",
    "MAX_MODELS",
]

UNIT_TYPES = (
    "infantry",
    "cavalry",
    "field gun",
    "armour",
    "artillery",
    "fortification",
    "aircraft",
    "rotorcraft",
    "behemoth",
    "other",
)
CATEGORIES = ("light", "heavy", "aerial")
RATINGS = ("weakened", "neutral", "improved")
FACE_KINDS = ("heroic", "strike", "glancing", "miss", "blank")
#: face kinds a special rule may add to the re-roll tier
REROLLABLE = ("glancing", "miss", "blank")
FORMATIONS = ("open", "close")
OFFICER_MODES = ("first", "last", "random")
LEVELS = ("basic", "reinforced", "full")
#: unit types a charge can outflank
OUTFLANKABLE = ("infantry", "cavalry", "field gun")
#: the most models a defensible building holds
MAX_GARRISON = 12
SIDES = ("attacker", "defender")

MAX_DICE = 200
MAX_MODELS = 100


def default_deck() -> tuple[int, ...]:
    """The assumed C&C deck: 20 cards, two each of values 1 to 10."""
    return tuple(v for v in range(1, 11) for _ in range(2))


# ------------------------------------------------------------------------------------------
# the attack die and the attack pool
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AttackDie:
    """The attack die as numbers of faces of each result.

    The default is the assumed d6: heroic strike ×1, strike ×2, glancing strike ×1, miss ×1,
    blank ×1. A heroic strike scores 2 hits and adds one die (added dice do not add more);
    a strike scores 1 hit; the rest score nothing.
    """

    heroic: int = 1
    strike: int = 2
    glancing: int = 1
    miss: int = 1
    blank: int = 1

    def __post_init__(self) -> None:
        counts = self.counts()
        if any(c < 0 for c in counts) or sum(counts) < 1 or sum(counts) > 1000:
            raise ValueError("an attack die needs 1 to 1000 faces and no negative counts")

    def counts(self) -> tuple[int, ...]:
        return (self.heroic, self.strike, self.glancing, self.miss, self.blank)

    def kinds(self) -> np.ndarray:
        """Face kind of each face (0 heroic … 4 blank); shape ``(faces,)``."""
        return np.repeat(np.arange(5, dtype=np.int64), self.counts())

    def face_score(self) -> np.ndarray:
        """Hits scored by each face; shape ``(faces,)``."""
        return np.array([2, 1, 0, 0, 0], dtype=np.int64)[self.kinds()]

    def explode_mask(self) -> np.ndarray:
        return (self.kinds() == HEROIC).astype(np.uint8)

    def reroll_mask(self, rating: int, extra: Sequence[str] = ()) -> np.ndarray:
        """Faces re-rolled at ``rating`` (0 weakened, 1 neutral, 2 improved) plus ``extra``."""
        kinds = self.kinds()
        mask = np.zeros(len(kinds), dtype=np.uint8)
        if rating >= 1:
            mask |= (kinds == GLANCING).astype(np.uint8)
        if rating >= 2:
            mask |= (kinds == MISS).astype(np.uint8)
        for name in extra:
            mask |= (kinds == FACE_KINDS.index(name)).astype(np.uint8)
        return mask

    def tier_table(self) -> np.ndarray:
        """``uint8[3, faces]``: the re-roll mask of each combat rating."""
        return np.stack([self.reroll_mask(r) for r in range(3)])


def attack_pool_pmf(
    n: int,
    rating: int | str = "neutral",
    die: AttackDie | None = None,
    extra_rerolls: Sequence[str] = (),
) -> np.ndarray:
    """Exact PMF of the hits scored by an attack pool of ``n`` dice.

    Parameters
    ----------
    n : int
        Attack dice rolled (before heroic strikes add dice).
    rating : int or {"weakened", "neutral", "improved"}
    die : AttackDie, optional
    extra_rerolls : sequence of {"glancing", "miss", "blank"}
        Faces a special rule or command also lets the attacker re-roll.

    Returns
    -------
    ndarray, shape (4 n + 1,)
        ``p[h] = P(hits == h)`` (with the default die at most ``4 n`` hits).
    """
    from oddslab.exact import pool_pmf

    die = die or AttackDie()
    r = RATINGS.index(rating) if isinstance(rating, str) else int(rating)
    return pool_pmf(
        n, die.face_score(), die.explode_mask(), 1, die.reroll_mask(r, extra_rerolls), False
    )


def combat_rating(bonuses: int, penalties: int) -> int:
    """0 weakened (more penalties), 1 neutral, 2 improved (more bonuses)."""
    return 2 if bonuses > penalties else (1 if bonuses == penalties else 0)


# ------------------------------------------------------------------------------------------
# profiles
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RangedAttack:
    """One ranged attack row of an armaments grid.

    Parameters
    ----------
    name : str
    dice : sequence of int
        Attack dice for 1, 2, … models (``dice[m-1]`` for ``m`` models); for a behemoth,
        for 0, 1, … damage suffered (``dice[d]``).
    vs : sequence of {"light", "heavy", "aerial"}
        Target categories this row can attack.
    short, long : float
        Ranges in inches (documentation only: the attack says whether it is at short range).
    reload : bool
        The *reload* quality: a reloading unit cannot fire it; firing it makes the unit
        reloading, so it cannot fire a reload weapon again later in the same sequence.
    """

    name: str
    dice: Sequence[int]
    vs: Sequence[str] = ("light", "heavy")
    short: float = 0.0
    long: float = 0.0
    reload: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", tuple(int(x) for x in self.dice))
        object.__setattr__(self, "vs", tuple(self.vs))


@dataclass(frozen=True)
class Armaments:
    """An armaments grid: ranged rows plus the melee and impact columns.

    ``melee`` / ``impact``: attack dice for 1, 2, … models (or by damage for a behemoth);
    ``None`` when the unit has no such column. The melee column is the unit's MELEE score:
    a unit without one cannot retaliate in close quarters.
    """

    ranged: Sequence[RangedAttack] = ()
    melee: Sequence[int] | None = None
    impact: Sequence[int] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "ranged", tuple(self.ranged))
        for key in ("melee", "impact"):
            v = getattr(self, key)
            if v is not None:
                object.__setattr__(self, key, tuple(int(x) for x in v))


@dataclass(frozen=True)
class Unit:
    """A unit profile and its state at the start of the sequence.

    Parameters
    ----------
    name : str
        Identifier used by attacks (``Attack.attacker`` / ``target``).
    side : {"attacker", "defender"}
        Whose C&C deck it tests from; the other side scores its VPs.
    type : str
        One of :data:`UNIT_TYPES`. Infantry attacking armour or fortifications in close
        quarters is *overwhelming*; aircraft cannot be suppressed or charged; behemoths read
        their dice columns by damage suffered.
    category : {"light", "heavy", "aerial"}
    models : int
        Models at the start (for a behemoth, normally 1).
    defence, damage_limit, discipline : int
    damage : int
        Damage tokens already on the unit (< damage_limit).
    break_limit : int or None
        Breaks on a failed suppression test with this many models or fewer; None: never.
    vp : int or sequence of 3 ints
        VP rating; with three numbers, ``reinforcement`` picks one.
    reinforcement : {"basic", "reinforced", "full"}
    formation : {"open", "close"}
    officer : {"first", "last", "random"} or None
        When the officer dies: with the unit's first casualty (it stands nearest the
        attacker), only with the last model, or as a random model. Default ``"last"``: in
        close formation the text removes another model from the back rank in its stead; in
        open formation the closest model dies, and nothing in the text puts the officer (the
        model the others keep within 3" of) closest, so its general keeps it back.
    commander_nearby : bool
        Within 6" of a friendly commander: cannot become disordered.
    suppressed, disordered, taking_cover, garrisoned, reloading : bool
        Statuses at the start. A garrison is infantry of at most 12 models; a unit with
        ``commander_nearby`` cannot be disordered (both rejected otherwise).
    armaments : Armaments
    capacity : int
        Transport capacity per model (the *Capacity (X)* rule); 0 = not a transport.
    carrying : str or None
        Name of the infantry unit embarked on this transport.
    fall_back_losses : int
        Models removed when it falls back (its path is blocked by enemies); default 0.
    flees_field : bool
        Falling back takes it off its own table edge: it counts as annihilated.
    withdraw_losses : int
        Models that cannot complete a withdrawal after a lost (or, as attacker, stalemated)
        close quarters combat and are destroyed; default 0.
    """

    name: str
    side: str = "defender"
    type: str = "infantry"
    category: str = "light"
    models: int = 1
    defence: int = 1
    damage_limit: int = 1
    discipline: int = 6
    damage: int = 0
    break_limit: int | None = None
    vp: int | Sequence[int] = 0
    reinforcement: str = "basic"
    formation: str = "open"
    officer: str | None = None
    commander_nearby: bool = False
    suppressed: bool = False
    disordered: bool = False
    taking_cover: bool = False
    garrisoned: bool = False
    reloading: bool = False
    armaments: Armaments = field(default_factory=Armaments)
    capacity: int = 0
    carrying: str | None = None
    fall_back_losses: int = 0
    flees_field: bool = False
    withdraw_losses: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.vp, int):
            object.__setattr__(self, "vp", tuple(int(x) for x in self.vp))
        problems = self.problems()
        if problems:
            key, text = problems[0]
            raise ValueError(f"unit '{self.name}': {key}: {text}")

    # the checks, as (key, problem) pairs so the TOML reader can name the key
    def problems(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if self.side not in SIDES:
            out.append(("side", f"expected one of {', '.join(SIDES)}"))
        if self.type not in UNIT_TYPES:
            out.append(("type", f"expected one of {', '.join(UNIT_TYPES)}"))
        if self.category not in CATEGORIES:
            out.append(("category", f"expected one of {', '.join(CATEGORIES)}"))
        if self.formation not in FORMATIONS:
            out.append(("formation", "expected open or close"))
        if self.officer is not None and self.officer not in OFFICER_MODES:
            out.append(("officer", f"expected one of {', '.join(OFFICER_MODES)}"))
        if self.reinforcement not in LEVELS:
            out.append(("reinforcement", f"expected one of {', '.join(LEVELS)}"))
        if not 1 <= self.models <= MAX_MODELS:
            out.append(("models", f"expected 1 to {MAX_MODELS} models"))
        if not 1 <= self.defence <= 50:
            out.append(("defence", "expected a DEFENCE from 1 to 50"))
        if not 1 <= self.damage_limit <= 50:
            out.append(("damage_limit", "expected a DAMAGE LIMIT from 1 to 50"))
        if not 0 <= self.damage < self.damage_limit:
            out.append(("damage", f"expected 0 to {self.damage_limit - 1} damage tokens"))
        if not -5 <= self.discipline <= 100:
            out.append(("discipline", "expected a DISCIPLINE from -5 to 100"))
        if self.break_limit is not None and not 0 <= self.break_limit <= MAX_MODELS:
            out.append(("break_limit", "expected a BREAK LIMIT from 0 to 100"))
        if isinstance(self.vp, tuple) and len(self.vp) not in (1, 3):
            out.append(("vp", "expected one VP rating or three (basic/reinforced/full)"))
        if any(v < 0 for v in (self.vp if isinstance(self.vp, tuple) else (self.vp,))):
            out.append(("vp", "VP ratings cannot be negative"))
        if self.capacity < 0:
            out.append(("capacity", "expected a capacity >= 0"))
        if self.carrying is not None and self.capacity == 0:
            out.append(("carrying", "only a transport (capacity > 0) can carry a unit"))
        for key in ("fall_back_losses", "withdraw_losses"):
            if not 0 <= getattr(self, key) <= MAX_MODELS:
                out.append((key, "expected 0 to 100 models"))
        if self.garrisoned and self.models > MAX_GARRISON:
            out.append(("garrisoned", f"a defensible building holds at most {MAX_GARRISON} models"))
        if self.disordered and self.commander_nearby:
            out.append(
                (
                    "disordered",
                    'a unit within 6" of a friendly commander cannot be disordered '
                    "(commander_nearby = true)",
                )
            )
        if self.type == "behemoth" and self.models != 1:
            out.append(("models", "a behemoth is one model (its dice follow damage suffered)"))
        return out

    @property
    def vp_value(self) -> int:
        """VP rating at this unit's reinforcement level."""
        if isinstance(self.vp, int):
            return self.vp
        return self.vp[0] if len(self.vp) == 1 else self.vp[LEVELS.index(self.reinforcement)]

    @property
    def officer_mode(self) -> str:
        return "last" if self.officer is None else self.officer

    def column_length(self) -> int:
        """Entries a dice column needs: one per model count, or per damage for a behemoth."""
        return self.damage_limit if self.type == "behemoth" else self.models
