"""Armoured Clash: ranged and close quarters attacks, damage, suppression cascades, VPs.

A scenario is a set of units (profiles with their armaments grids and statuses) and a
sequence of attacks resolved in order in every trial, all sharing the state of the units and
each side's C&C deck (cards drawn without replacement, so the deck carries over from attack
to attack). Statistics describe one *focus* unit (by default the target of the first attack):
hits, damage, models destroyed, officer lost, suppressed, fell back, broke, annihilated,
VPs, models lost by each side, the close quarters result and its rally test.

Every rule, default and assumption is documented in ``docs/armoured-clash.md``.

Example
-------
>>> from oddslab.rulesets.armoured_clash import *
>>> tanks = Unit("tanks", side="attacker", type="armour", category="heavy", models=3,
...              defence=4, damage_limit=3, discipline=7,
...              armaments=Armaments(ranged=(RangedAttack("gun", dice=(4, 7, 10)),)))
>>> foot = Unit("foot", side="defender", models=8, defence=2, discipline=6, break_limit=3)
>>> sc = ArmouredClashScenario(units=(tanks, foot), attacks=(Attack("tanks", "foot"),))
>>> job = sc.compile()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oddslab._kernels import armoured_clash as K
from oddslab._schema import ScenarioError, Table
from oddslab.engine import Job
from oddslab.outcome import Headline, Stat

__all__ = [
    "AttackDie",
    "RangedAttack",
    "Armaments",
    "Unit",
    "Situation",
    "Attack",
    "Rules",
    "ArmouredClashScenario",
    "attack_pool_pmf",
    "combat_rating",
    "default_deck",
    "from_table",
    "UNIT_TYPES",
    "CATEGORIES",
    "RATINGS",
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
        return (self.kinds() == K.HEROIC).astype(np.uint8)

    def reroll_mask(self, rating: int, extra: Sequence[str] = ()) -> np.ndarray:
        """Faces re-rolled at ``rating`` (0 weakened, 1 neutral, 2 improved) plus ``extra``."""
        kinds = self.kinds()
        mask = np.zeros(len(kinds), dtype=np.uint8)
        if rating >= 1:
            mask |= (kinds == K.GLANCING).astype(np.uint8)
        if rating >= 2:
            mask |= (kinds == K.MISS).astype(np.uint8)
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
        When the officer dies: with the unit's first casualty (open formation, officer
        nearest the attacker), only with the last model (close formation: another model is
        removed from the back rank instead), or as a random model. Default by formation.
    commander_nearby : bool
        Within 6" of a friendly commander: cannot become disordered.
    suppressed, disordered, taking_cover, garrisoned, reloading : bool
        Statuses at the start.
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
        if self.officer is not None:
            return self.officer
        return "first" if self.formation == "open" else "last"

    def column_length(self) -> int:
        """Entries a dice column needs: one per model count, or per damage for a behemoth."""
        return self.damage_limit if self.type == "behemoth" else self.models


@dataclass(frozen=True)
class Situation:
    """Circumstances of one attack (combat rating bonuses and penalties, options).

    Ranged attacks: ``aiming``, ``short_range`` (bonuses); ``concealed``,
    ``opportunity_fire``, ``reforming`` (penalties; a suppressed attacker is a penalty taken
    from its status, and a garrisoned target always counts as concealed). ``exposed``: the
    attack prioritises exposed models, ``exposed`` of them (the concealed penalty is then
    ignored, only exposed models can be destroyed and damage beyond them is discarded).

    Close quarters: ``outflanking``, ``supported`` (bonuses; *overwhelming* is derived from
    the unit types), ``threatened`` (penalty); ``defensive_advantage`` when the charge crossed
    difficult terrain (storming a garrisoned building gives it anyway);
    ``defender_supported`` / ``defender_threatened`` for the retaliation; ``secondary``:
    names of secondary combatants that retaliate alongside the target.

    ``extra_rerolls`` / ``defender_extra_rerolls``: faces ("glancing", "miss", "blank") a
    special rule or command also lets the attacker / the retaliating units re-roll.
    ``rating`` / ``defender_rating`` force a combat rating instead of counting.
    """

    aiming: bool = False
    short_range: bool = False
    concealed: bool = False
    exposed: int | None = None
    opportunity_fire: bool = False
    reforming: bool = False
    outflanking: bool = False
    supported: bool = False
    threatened: bool = False
    defensive_advantage: bool = False
    defender_supported: bool = False
    defender_threatened: bool = False
    secondary: Sequence[str] = ()
    extra_rerolls: Sequence[str] = ()
    defender_extra_rerolls: Sequence[str] = ()
    rating: str | None = None
    defender_rating: str | None = None

    def __post_init__(self) -> None:
        for key in ("secondary", "extra_rerolls", "defender_extra_rerolls"):
            object.__setattr__(self, key, tuple(getattr(self, key)))


@dataclass(frozen=True)
class Attack:
    """One attack of the sequence.

    Parameters
    ----------
    attacker, target : str
        Unit names.
    kind : {"ranged", "close"}
    weapon : str or None
        Ranged: the row's name (default: the first row that can attack the target's
        category). Close: ``"melee"`` (default) or ``"impact"``.
    situation : Situation
    """

    attacker: str
    target: str
    kind: str = "ranged"
    weapon: str | None = None
    situation: Situation = field(default_factory=Situation)


@dataclass(frozen=True)
class Rules:
    """Rule switches for points the text leaves open.

    Parameters
    ----------
    embarked_tests : {"always", "on_fail"}
        ``"always"``: whenever an occupied transport takes a suppression test its embarked
        unit also tests (the text: "has to take a suppression test"); ``"on_fail"``: only
        when the transport fails.
    rally_test : bool
        After the sequence, a suppressed focus unit takes its rally test (next activation).
    """

    embarked_tests: str = "always"
    rally_test: bool = True


_STAT_TEXT = {
    "hits": "hits scored on the focus unit",
    "damage": "damage points inflicted on the focus unit (before DAMAGE LIMIT)",
    "models_destroyed": "models of the focus unit destroyed (not counting a break)",
    "officer_lost": "the focus unit's officer was destroyed",
    "suppressed": "the focus unit ends the sequence suppressed and on the table",
    "fell_back": "the focus unit fell back (failed a test while suppressed)",
    "broke": "the focus unit broke (failed a test at or below its BREAK LIMIT)",
    "annihilated": "the focus unit was annihilated (destroyed, broke or fled)",
    "vp": "VPs scored against the focus unit's side (annihilations)",
    "vp_against": "VPs scored by the focus unit's side",
    "attacker_models_lost": "models lost by the other side",
    "defender_models_lost": "models lost by the focus unit's side",
    "rally_failed": "the focus unit is suppressed and fails its rally test",
    "full_activation": "the focus unit can both move and attack at its next activation",
    "qc_result": "last close quarters combat: 0 none, 1 attacker won, 2 defender won, 3 stalemate",
    "qc_attacker_won": "the attacker won the (last) close quarters combat",
    "qc_defender_won": "the defender won the (last) close quarters combat",
    "qc_stalemate": "the (last) close quarters combat was a stalemate",
    "embarked_lost": "models of the embarked unit destroyed",
    "embarked_suppressed": "the embarked unit ends suppressed",
    "embarked_annihilated": "the embarked unit was annihilated",
}
_STAT_NAMES = tuple(_STAT_TEXT)
_FLAGS = {
    "officer_lost",
    "suppressed",
    "fell_back",
    "broke",
    "annihilated",
    "rally_failed",
    "full_activation",
    "qc_attacker_won",
    "qc_defender_won",
    "qc_stalemate",
    "embarked_suppressed",
    "embarked_annihilated",
}
assert len(_STAT_NAMES) == K.N_STATS


def _rating_index(name: str | None) -> int:
    return -1 if name is None else RATINGS.index(name)


@dataclass(frozen=True)
class ArmouredClashScenario:
    """Units, a sequence of attacks and the rule options, plus run defaults.

    Parameters
    ----------
    units : sequence of Unit
    attacks : sequence of Attack
        Resolved in order in every trial; unit state and decks carry over.
    die : AttackDie
    decks : mapping side -> sequence of int
        C&C card values per side (default :func:`default_deck` for both).
    rules : Rules
    focus : str or None
        Unit the statistics describe (default: the first attack's target).
    """

    units: Sequence[Unit]
    attacks: Sequence[Attack]
    die: AttackDie = field(default_factory=AttackDie)
    decks: Mapping[str, Sequence[int]] = field(default_factory=dict)
    rules: Rules = field(default_factory=Rules)
    focus: str | None = None
    name: str = "armoured clash"
    description: str = ""
    trials: int | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "units", tuple(self.units))
        object.__setattr__(self, "attacks", tuple(self.attacks))
        object.__setattr__(self, "decks", dict(self.decks))
        problems = self.problems()
        if problems:
            key, text = problems[0]
            raise ValueError(f"{key}: {text}")

    # -- validation (key paths match the scenario file) ----------------------------------------
    def problems(self) -> list[tuple[str, str]]:
        """Every inconsistency as ``(key path, problem)``; empty when the scenario can run."""
        out: list[tuple[str, str]] = []
        by = {u.name: u for u in self.units}
        if len(by) != len(self.units):
            out.append(("units", "unit names must be unique"))
        if not self.attacks:
            out.append(("attacks", "a scenario needs at least one attack"))
        carried: dict[str, str] = {}
        for u in self.units:
            if u.carrying is not None:
                c = by.get(u.carrying)
                if c is None:
                    out.append((f"units.{u.name}.carrying", f"no unit named '{u.carrying}'"))
                elif c.type != "infantry":
                    out.append((f"units.{u.name}.carrying", "only infantry can embark"))
                elif c.side != u.side:
                    out.append(
                        (f"units.{u.name}.carrying", "the embarked unit must be on its side")
                    )
                elif c.models > u.capacity * u.models:
                    out.append(
                        (
                            f"units.{u.name}.carrying",
                            f"'{c.name}' has {c.models} models, above the transport capacity "
                            f"{u.capacity * u.models}",
                        )
                    )
                elif c.name in carried:
                    out.append((f"units.{u.name}.carrying", f"'{c.name}' is already embarked"))
                else:
                    carried[c.name] = u.name
            if u.garrisoned and u.type != "infantry":
                out.append((f"units.{u.name}.garrisoned", "only infantry can garrison"))
        for side in self.decks:
            if side not in SIDES:
                out.append((f"decks.{side}", "expected attacker or defender"))
        for side, cards in self.decks.items():
            if not 1 <= len(cards) <= 1000:
                out.append((f"decks.{side}.cards", "expected 1 to 1000 cards"))
        if self.focus is not None and self.focus not in by:
            out.append(("focus", f"no unit named '{self.focus}'"))
        fired_reload: set[str] = set()
        for i, a in enumerate(self.attacks):
            key = f"attacks[{i}]"
            s = a.situation
            if a.attacker not in by:
                out.append((f"{key}.attacker", f"no unit named '{a.attacker}'"))
                continue
            if a.target not in by:
                out.append((f"{key}.target", f"no unit named '{a.target}'"))
                continue
            att, tgt = by[a.attacker], by[a.target]
            if att.side == tgt.side:
                out.append((f"{key}.target", "attacker and target are on the same side"))
            for who, name in (("attacker", att.name), ("target", tgt.name)):
                if name in carried:
                    out.append(
                        (
                            f"{key}.{who}",
                            f"'{name}' is embarked on '{carried[name]}' and cannot attack or be attacked",
                        )
                    )
            if a.kind not in ("ranged", "close"):
                out.append((f"{key}.kind", "expected ranged or close"))
                continue
            for r in (s.rating, s.defender_rating):
                if r is not None and r not in RATINGS:
                    out.append((f"{key}.rating", f"expected one of {', '.join(RATINGS)}"))
            for rr in (*s.extra_rerolls, *s.defender_extra_rerolls):
                if rr not in REROLLABLE:
                    out.append(
                        (f"{key}.extra_rerolls", f"expected faces among {', '.join(REROLLABLE)}")
                    )
            if s.exposed is not None and not 1 <= s.exposed <= MAX_MODELS:
                out.append((f"{key}.exposed", "expected 1 or more exposed models"))
            if a.kind == "ranged":
                row = self._row(a, att, tgt)
                if row is None:
                    want = f"'{a.weapon}'" if a.weapon else "a ranged row"
                    out.append(
                        (
                            f"{key}.weapon",
                            f"'{att.name}' has no {want} that can attack {tgt.category} targets",
                        )
                    )
                else:
                    if len(row.dice) < att.column_length():
                        out.append(
                            (
                                f"units.{att.name}.ranged.{row.name}.dice",
                                f"needs {att.column_length()} entries (one per {'damage point' if att.type == 'behemoth' else 'model count'})",
                            )
                        )
                    if row.reload and (att.reloading or att.name in fired_reload):
                        out.append(
                            (
                                f"{key}.weapon",
                                f"'{att.name}' is reloading and '{row.name}' has the reload quality",
                            )
                        )
                    if row.reload:
                        fired_reload.add(att.name)
                if tgt.type == "aircraft" and not s.opportunity_fire:
                    out.append(
                        (
                            f"{key}.opportunity_fire",
                            "aircraft can only be targeted by opportunity fire (set opportunity_fire = true)",
                        )
                    )
                if s.exposed is not None and tgt.garrisoned:
                    out.append(
                        (
                            f"{key}.exposed",
                            "a garrisoned unit cannot have exposed models prioritised",
                        )
                    )
            else:
                col = self._qc_col(a, att)
                if a.weapon not in (None, "melee", "impact"):
                    out.append((f"{key}.weapon", "close quarters uses melee or impact"))
                elif col is None:
                    out.append(
                        (f"{key}.weapon", f"'{att.name}' has no {a.weapon or 'melee'} column")
                    )
                elif len(col) < att.column_length():
                    out.append(
                        (
                            f"units.{att.name}.{a.weapon or 'melee'}",
                            f"needs {att.column_length()} entries",
                        )
                    )
                if tgt.type in ("aircraft", "rotorcraft"):
                    out.append((f"{key}.target", "aircraft and rotorcraft cannot be charged"))
                if len(s.secondary) > K.MAX_SEC:
                    out.append((f"{key}.secondary", f"at most {K.MAX_SEC} secondary combatants"))
                for nm in s.secondary:
                    if (
                        nm not in by
                        or by[nm].side != tgt.side
                        or nm in (tgt.name,)
                        or nm in carried
                    ):
                        out.append(
                            (f"{key}.secondary", f"'{nm}' is not another unit on the target's side")
                        )
                for u in (tgt, *(by[n] for n in s.secondary if n in by)):
                    m = u.armaments.melee
                    if m is not None and len(m) < u.column_length():
                        out.append((f"units.{u.name}.melee", f"needs {u.column_length()} entries"))
        return out

    @staticmethod
    def _row(a: Attack, att: Unit, tgt: Unit) -> RangedAttack | None:
        for row in att.armaments.ranged:
            if (a.weapon is None or row.name == a.weapon) and tgt.category in row.vs:
                return row
        return None

    @staticmethod
    def _qc_col(a: Attack, att: Unit) -> Sequence[int] | None:
        return att.armaments.impact if a.weapon == "impact" else att.armaments.melee

    # -- arrays for the kernel ------------------------------------------------------------------
    @property
    def focus_unit(self) -> str:
        return self.focus if self.focus is not None else self.attacks[0].target

    def _units_index(self) -> dict[str, int]:
        return {u.name: i for i, u in enumerate(self.units)}

    def arrays(self) -> dict[str, Any]:
        """Kernel inputs: ``AT`` int64[A, A_NCOLS], ``UI`` int64[U, U_NCOLS], ``DC`` int64[C, L],
        ``R`` int64[R_NCOLS], ``deck`` int64[2, D], ``dn`` int64[2]."""
        idx = self._units_index()
        cols: list[tuple[int, ...]] = []

        def col(values: Sequence[int], unit: Unit) -> int:
            # DC[c, m]: dice for m counted models (index 0 = none), or for m damage (behemoth)
            v = tuple(values)
            cols.append(v if unit.type == "behemoth" else (0, *v))
            return len(cols) - 1

        UI = np.zeros((len(self.units), K.U_NCOLS), dtype=np.int64)
        for i, u in enumerate(self.units):
            row = UI[i]
            row[K.U_SIDE] = SIDES.index(u.side)
            row[K.U_DEF] = u.defence
            row[K.U_DL] = u.damage_limit
            row[K.U_DISC] = u.discipline
            row[K.U_BREAK] = -1 if u.break_limit is None else u.break_limit
            row[K.U_VP] = u.vp_value
            row[K.U_OFFICER] = OFFICER_MODES.index(u.officer_mode)
            row[K.U_CMDR] = u.commander_nearby
            row[K.U_NOSUPP] = u.type == "aircraft"
            row[K.U_CAP] = u.capacity
            row[K.U_CARRYING] = -1 if u.carrying is None else idx[u.carrying]
            row[K.U_FB_LOSS] = u.fall_back_losses
            row[K.U_FLEES] = u.flees_field
            row[K.U_WD_LOSS] = u.withdraw_losses
            row[K.U_BYDMG] = u.type == "behemoth"
            row[K.U_MODELS] = u.models
            row[K.U_TOKENS] = u.damage
            row[K.U_SUPP] = u.suppressed
            row[K.U_DISO] = u.disordered
            row[K.U_COVER] = u.taking_cover
            row[K.U_GARR] = u.garrisoned
            row[K.U_MELEE] = -1 if u.armaments.melee is None else col(u.armaments.melee, u)
        for u in self.units:
            if u.carrying is not None:
                UI[idx[u.carrying], K.U_CARRIED] = 1
        AT = np.zeros((len(self.attacks), K.A_NCOLS), dtype=np.int64)
        for i, a in enumerate(self.attacks):
            s = a.situation
            att, tgt = self.units[idx[a.attacker]], self.units[idx[a.target]]
            row = AT[i]
            row[K.A_ATT] = idx[a.attacker]
            row[K.A_TGT] = idx[a.target]
            row[K.A_FORCE] = _rating_index(s.rating)
            row[K.A_RFORCE] = _rating_index(s.defender_rating)
            row[K.A_RR] = sum(1 << FACE_KINDS.index(f) for f in set(s.extra_rerolls))
            row[K.A_RRR] = sum(1 << FACE_KINDS.index(f) for f in set(s.defender_extra_rerolls))
            row[K.A_EXPOSED] = -1 if s.exposed is None else s.exposed
            if a.kind == "ranged":
                row[K.A_KIND] = 0
                rng = self._row(a, att, tgt)
                assert rng is not None
                row[K.A_COL] = col(rng.dice, att)
                # live penalties: concealed (garrison or situation), attacker suppressed
                row[K.A_STATIC] = (
                    int(s.aiming) + int(s.short_range) - int(s.opportunity_fire) - int(s.reforming)
                )
                row[K.A_CONC] = s.concealed
                row[K.A_OPP] = s.opportunity_fire
            else:
                row[K.A_KIND] = 1
                qc = self._qc_col(a, att)
                assert qc is not None
                row[K.A_COL] = col(qc, att)
                overwhelming = att.type == "infantry" and tgt.type in ("armour", "fortification")
                row[K.A_STATIC] = (
                    int(s.outflanking) + int(overwhelming) + int(s.supported) - int(s.threatened)
                )
                r_over = tgt.type == "infantry" and att.type in ("armour", "fortification")
                row[K.A_RSTATIC] = (
                    int(r_over) + int(s.defender_supported) - int(s.defender_threatened)
                )
                row[K.A_DEFADV] = s.defensive_advantage
                row[K.A_NSEC] = len(s.secondary)
                for j, nm in enumerate(s.secondary):
                    row[K.A_SEC0 + j] = idx[nm]
        width = max(len(c) for c in cols)
        DC = np.zeros((len(cols), width + 1), dtype=np.int64)
        for j, c in enumerate(cols):
            DC[j, : len(c)] = c
        R = np.zeros(K.R_NCOLS, dtype=np.int64)
        R[K.R_EMB_ALWAYS] = self.rules.embarked_tests == "always"
        R[K.R_RALLY] = self.rules.rally_test
        R[K.R_FOCUS] = idx[self.focus_unit]
        decks = [tuple(self.decks.get(side, default_deck())) for side in SIDES]
        deck = np.zeros((2, max(len(d) for d in decks)), dtype=np.int64)
        for j, d in enumerate(decks):
            deck[j, : len(d)] = d
        dn = np.array([len(d) for d in decks], dtype=np.int64)
        return {"AT": AT, "UI": UI, "DC": DC, "R": R, "deck": deck, "dn": dn}

    # -- statistics -----------------------------------------------------------------------------
    def _has_qc(self) -> bool:
        return any(a.kind == "close" for a in self.attacks)

    def _bounds(self) -> dict[str, int]:
        by = {u.name: u for u in self.units}
        f = by[self.focus_unit]
        heroic = self.die.heroic > 0
        per_die = 4 if heroic else 2  # a heroic strike: 2 hits and an added die worth 2 more
        if self.die.heroic == 0 and self.die.strike == 0:
            per_die = 0
        hits = 0
        for a in self.attacks:
            att = by[a.attacker]
            if a.target == f.name:
                if a.kind == "ranged":
                    row = self._row(a, att, by[a.target])
                    assert row is not None
                    hits += per_die * max(row.dice)
                else:
                    hits += per_die * max(self._qc_col(a, att) or (0,))
            if a.kind == "close" and a.attacker == f.name:
                for nm in (a.target, *a.situation.secondary):
                    hits += per_die * max(by[nm].armaments.melee or (0,))
        own = [u for u in self.units if u.side == f.side]
        other = [u for u in self.units if u.side != f.side]
        emb = by[f.carrying] if f.carrying is not None else None
        return {
            "hits": hits,
            "damage": hits,
            "models_destroyed": f.models,
            "vp": sum(u.vp_value for u in own),
            "vp_against": sum(u.vp_value for u in other),
            "attacker_models_lost": sum(u.models for u in other),
            "defender_models_lost": sum(u.models for u in own),
            "qc_result": 3,
            "embarked_lost": emb.models if emb is not None else 0,
        }

    def _reported(self) -> list[str]:
        by = {u.name: u for u in self.units}
        f = by[self.focus_unit]
        names = [
            "hits",
            "damage",
            "models_destroyed",
            "officer_lost",
            "suppressed",
            "fell_back",
            "broke",
            "annihilated",
            "vp",
            "vp_against",
            "attacker_models_lost",
            "defender_models_lost",
        ]
        if self.rules.rally_test:
            names += ["rally_failed", "full_activation"]
        if self._has_qc():
            names += ["qc_result", "qc_attacker_won", "qc_defender_won", "qc_stalemate"]
        if f.carrying is not None:
            names += ["embarked_lost", "embarked_suppressed", "embarked_annihilated"]
        return names

    def stats(self) -> tuple[Stat, ...]:
        bounds = self._bounds()
        return tuple(
            Stat(n, (1 if n in _FLAGS else bounds[n]) + 1, _STAT_TEXT[n], flag=n in _FLAGS)
            for n in self._reported()
        )

    def headlines(self) -> tuple[Headline, ...]:
        by = {u.name: u for u in self.units}
        f = by[self.focus_unit]
        heads = [Headline("P(at least 1 model destroyed)", "models_destroyed", 1)]
        if f.type != "aircraft":
            heads.append(Headline("P(suppressed at the end)", "suppressed", 1))
            heads.append(Headline("P(fell back)", "fell_back", 1))
        if f.break_limit is not None:
            heads.append(Headline("P(broke)", "broke", 1))
        heads.append(Headline("P(annihilated)", "annihilated", 1))
        heads.append(Headline("P(officer lost)", "officer_lost", 1))
        if self.rules.rally_test and f.type != "aircraft":
            heads.append(Headline("P(fails rally test)", "rally_failed", 1))
        if self._has_qc():
            heads += [
                Headline("P(attacker wins close quarters)", "qc_attacker_won", 1),
                Headline("P(defender wins close quarters)", "qc_defender_won", 1),
                Headline("P(stalemate)", "qc_stalemate", 1),
            ]
        if f.carrying is not None:
            heads.append(Headline("P(embarked unit annihilated)", "embarked_annihilated", 1))
        return tuple(heads)

    def compile(self) -> Job:
        a = self.arrays()
        reported = self._reported()
        slots = np.full(K.N_STATS, -1, dtype=np.int64)
        for row, n in enumerate(reported):
            slots[_STAT_NAMES.index(n)] = row
        die = self.die
        params = (
            a["AT"],
            a["UI"],
            a["DC"],
            a["R"],
            a["deck"],
            a["dn"],
            die.face_score(),
            die.explode_mask(),
            die.tier_table(),
            die.kinds(),
            slots,
        )
        exact = self.exact_pmfs if self._exact_ok() else None
        return Job(
            self.name,
            K.run_armoured_clash,
            params,
            self.stats(),
            self.headlines(),
            exact=exact,
            meta={
                "ruleset": "armoured-clash",
                "description": self.description,
                "primary": "models_destroyed",
                "focus": self.focus_unit,
            },
        )

    # -- exact ---------------------------------------------------------------------------------
    def _exact_ok(self) -> bool:
        if len(self.attacks) != 1 or self.attacks[0].kind != "ranged":
            return False
        a = self.attacks[0]
        by = {u.name: u for u in self.units}
        return a.target == self.focus_unit and by[a.attacker].type != "behemoth"

    def static_rating(self, i: int) -> int:
        """Combat rating of attack ``i`` (0-2) from the starting state (ranged or close)."""
        a = self.attacks[i]
        arr = self.arrays()
        row = arr["AT"][i]
        if row[K.A_FORCE] >= 0:
            return int(row[K.A_FORCE])
        by = {u.name: u for u in self.units}
        att, tgt = by[a.attacker], by[a.target]
        live = -int(att.suppressed)
        if a.kind == "ranged":
            live -= int(tgt.garrisoned or (a.situation.concealed and a.situation.exposed is None))
        d = int(row[K.A_STATIC]) + live
        return 2 if d > 0 else (1 if d == 0 else 0)

    def exact_pmfs(self) -> dict[str, np.ndarray]:
        """Exact PMFs of ``hits`` and ``damage`` for a single ranged attack."""
        a = self.attacks[0]
        by = {u.name: u for u in self.units}
        att, tgt = by[a.attacker], by[a.target]
        row = self._row(a, att, tgt)
        assert row is not None
        m = (att.models + 1) // 2 if att.garrisoned else att.models
        n = row.dice[m - 1]
        hits = attack_pool_pmf(n, self.static_rating(0), self.die, a.situation.extra_rerolls)
        conc = tgt.garrisoned or (a.situation.concealed and a.situation.exposed is None)
        d = tgt.defence + int(tgt.garrisoned) + int(conc and tgt.taking_cover)
        dmg = np.zeros(len(hits) // d + 1)
        np.add.at(dmg, np.arange(len(hits)) // d, hits)
        return {"hits": hits, "damage": dmg}


# ------------------------------------------------------------------------------------------
# scenario files
# ------------------------------------------------------------------------------------------
def _int_col(tbl: Table, key: str, default: Any = None) -> tuple[int, ...] | None:
    if not tbl.has(key):
        tbl.raw(key, None)
        return default
    vals = tbl.int_list(key, min=0, max=MAX_DICE)
    if not vals:
        raise tbl.error(key, "expected at least one entry")
    return tuple(vals)


def _read_ranged(tbl: Table, index: int) -> RangedAttack:
    vs = tbl.raw("vs", ["light", "heavy"])
    if isinstance(vs, str):
        vs = [vs]
    if not isinstance(vs, list) or not vs or any(v not in CATEGORIES for v in vs):
        raise tbl.error("vs", f"expected a list of categories among {', '.join(CATEGORIES)}")
    r = RangedAttack(
        name=tbl.str("name", f"ranged {index + 1}"),
        dice=_int_col(tbl, "dice", None) or (),
        vs=tuple(vs),
        short=tbl.float("short", 0.0, min=0.0, max=1000.0),
        long=tbl.float("long", 0.0, min=0.0, max=1000.0),
        reload=tbl.bool("reload", False),
    )
    if not r.dice:
        raise tbl.error("dice", "required key is missing")
    tbl.finish()
    return r


def _read_unit(name: str, tbl: Table) -> Unit:
    vp_raw = tbl.raw("vp", 0)
    if isinstance(vp_raw, list):
        vp: int | tuple[int, ...] = tuple(tbl.int_list("vp", min=0, max=10_000))
    else:
        vp = tbl.int("vp", 0, min=0, max=10_000)
    ranged = tuple(_read_ranged(t, i) for i, t in enumerate(tbl.tables("ranged", [])))
    kw = dict(
        name=name,
        side=tbl.str("side", choices=SIDES),
        type=tbl.str("type", "infantry", choices=UNIT_TYPES),
        category=tbl.str("category", "light", choices=CATEGORIES),
        models=tbl.int("models", min=1, max=MAX_MODELS),
        defence=tbl.int("defence", min=1, max=50),
        damage_limit=tbl.int("damage_limit", 1, min=1, max=50),
        discipline=tbl.int("discipline", min=-5, max=100),
        damage=tbl.int("damage", 0, min=0, max=49),
        break_limit=tbl.int("break_limit", None, min=0, max=MAX_MODELS),
        vp=vp,
        reinforcement=tbl.str("reinforcement", "basic", choices=LEVELS),
        formation=tbl.str("formation", "open", choices=FORMATIONS),
        officer=tbl.str("officer", None, choices=OFFICER_MODES),
        commander_nearby=tbl.bool("commander_nearby", False),
        suppressed=tbl.bool("suppressed", False),
        disordered=tbl.bool("disordered", False),
        taking_cover=tbl.bool("taking_cover", False),
        garrisoned=tbl.bool("garrisoned", False),
        reloading=tbl.bool("reloading", False),
        armaments=Armaments(
            ranged=ranged, melee=_int_col(tbl, "melee"), impact=_int_col(tbl, "impact")
        ),
        capacity=tbl.int("capacity", 0, min=0, max=100),
        carrying=tbl.str("carrying", None),
        fall_back_losses=tbl.int("fall_back_losses", 0, min=0, max=MAX_MODELS),
        flees_field=tbl.bool("flees_field", False),
        withdraw_losses=tbl.int("withdraw_losses", 0, min=0, max=MAX_MODELS),
    )
    tbl.finish()
    probe = Unit.__new__(Unit)
    for k, v in kw.items():
        object.__setattr__(probe, k, v)
    problems = probe.problems()
    if problems:
        key, text = problems[0]
        raise tbl.error(key, text)
    return Unit(**kw)  # type: ignore[arg-type]


def _str_list(tbl: Table, key: str, choices: Sequence[str] | None = None) -> tuple[str, ...]:
    v = tbl.raw(key, [])
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or any(not isinstance(x, str) for x in v):
        raise tbl.error(key, "expected a list of strings")
    if choices is not None:
        for x in v:
            if x not in choices:
                raise tbl.error(key, f"'{x}' is not one of {', '.join(choices)}")
    return tuple(v)


def _read_attack(tbl: Table) -> Attack:
    exposed = tbl.int("exposed", None, min=1, max=MAX_MODELS)
    s = Situation(
        aiming=tbl.bool("aiming", False),
        short_range=tbl.bool("short_range", False),
        concealed=tbl.bool("concealed", False),
        exposed=exposed,
        opportunity_fire=tbl.bool("opportunity_fire", False),
        reforming=tbl.bool("reforming", False),
        outflanking=tbl.bool("outflanking", False),
        supported=tbl.bool("supported", False),
        threatened=tbl.bool("threatened", False),
        defensive_advantage=tbl.bool("defensive_advantage", False),
        defender_supported=tbl.bool("defender_supported", False),
        defender_threatened=tbl.bool("defender_threatened", False),
        secondary=_str_list(tbl, "secondary"),
        extra_rerolls=_str_list(tbl, "extra_rerolls", REROLLABLE),
        defender_extra_rerolls=_str_list(tbl, "defender_extra_rerolls", REROLLABLE),
        rating=tbl.str("rating", None, choices=RATINGS),
        defender_rating=tbl.str("defender_rating", None, choices=RATINGS),
    )
    a = Attack(
        attacker=tbl.str("attacker"),
        target=tbl.str("target"),
        kind=tbl.str("kind", "ranged", choices=("ranged", "close")),
        weapon=tbl.str("weapon", None),
        situation=s,
    )
    repeat = tbl.int("repeat", 1, min=1, max=100)
    tbl.finish()
    object.__setattr__(a, "_repeat", repeat)
    return a


def from_table(root: Table) -> ArmouredClashScenario:
    """Build an :class:`ArmouredClashScenario` from a scenario file's root table."""
    from oddslab.scenario import read_run_options

    run = read_run_options(root, "armoured clash")
    dt = root.table("die", {})
    die_kw = {k: dt.int(k, getattr(AttackDie(), k), min=0, max=1000) for k in FACE_KINDS}
    dt.finish()
    try:
        die = AttackDie(**die_kw)
    except ValueError as exc:
        raise dt.error("", str(exc)) from None
    decks: dict[str, tuple[int, ...]] = {}
    dk = root.table("decks", {})
    for side in SIDES:
        if dk.has(side):
            t = dk.table(side)
            cards = t.int_list("cards", min=-100, max=100)
            if not 1 <= len(cards) <= 1000:
                raise t.error("cards", "expected 1 to 1000 cards")
            decks[side] = tuple(cards)
            t.finish()
    dk.finish()
    ut = root.table("units")
    if not ut.data:
        raise root.error("units", "expected at least two units ([units.NAME] tables)")
    units = tuple(_read_unit(name, ut.table(name)) for name in list(ut.data))
    ut.finish()
    attacks: list[Attack] = []
    for t in root.tables("attacks", min_len=1):
        a = _read_attack(t)
        attacks += [a] * getattr(a, "_repeat", 1)
    rt = root.table("rules", {})
    rules = Rules(
        embarked_tests=rt.str("embarked_tests", "always", choices=("always", "on_fail")),
        rally_test=rt.bool("rally_test", True),
    )
    rt.finish()
    focus = root.str("focus", None)
    root.finish()
    sc = ArmouredClashScenario.__new__(ArmouredClashScenario)
    kw = dict(units=units, attacks=tuple(attacks), die=die, decks=decks, rules=rules, focus=focus)
    for k, v in {**kw, **run}.items():
        object.__setattr__(sc, k, v)
    problems = sc.problems()
    if problems:
        key, text = problems[0]
        raise ScenarioError(root.source, _file_key(key, root, attacks), text)
    return ArmouredClashScenario(**kw, **run)  # type: ignore[arg-type]


def _file_key(key: str, root: Table, attacks: list[Attack]) -> str:
    """Map an attack index after ``repeat`` expansion back to its ``attacks[i]`` table."""
    if not key.startswith("attacks["):
        return key
    i = int(key[len("attacks[") : key.index("]")])
    seen = 0
    j = 0
    for t_index, item in enumerate(root.data.get("attacks", [])):
        rep = int(item.get("repeat", 1)) if isinstance(item, dict) else 1
        if i < seen + rep:
            j = t_index
            break
        seen += rep
    return f"attacks[{j}]" + key[key.index("]") + 1 :]
