"""Assault-phase scenario model: the frozen dataclasses a combat is made of.

The assault phase: charges, Initiative-stepped close combat, assault results and morale.

A combat is two :class:`Side` s (attacker = the charging player, defender), each one or more
:class:`Unit` s made of :class:`ModelGroup` s (models sharing a profile). One trial plays
the whole combat: charge (difficult terrain), regroup of a defender caught falling back,
rounds of close combat by Initiative step with casualties removed after each step, the
majority-save procedure for mixed armour, the assault result, the losers' Leadership
tests, fall back, sweeping advance, and further turns while the combat lasts. Every rule
and every assumption is listed in ``docs/assault-phase.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from oddslab.rulesets.assault_phase import layout as K

__all__ = [
    "ModelGroup",
    "Unit",
    "Side",
    "Rules",
    "WEAPONS",
    "GRENADES",
    "to_hit",
    "to_wound",
    "SIDES",
]

#: special close combat weapons a group can carry (one per group)
WEAPONS = (
    "none",
    "power-weapon",
    "power-fist",
    "lightning-claw",
    "lightning-claws",
    "force-weapon",
)
GRENADES = ("none", "frag", "plasma")
LD_MODES = ("highest", "majority")
REACH_MODES = ("engaged", "unit")
TIE_SAVE = ("better", "worse")
TIE_T = ("higher", "lower")
SWEEP_SUPPORT = ("profile", "one")
MAJORITY = ("most-common", "more-than-half")
FRAG_MODES = ("target", "any-engaged")
PLASMA_MODES = ("per-unit", "all-units")
#: most units an independent character can split his hits between
MAX_SPLIT = 4


def to_hit(ws: int, target_ws: int) -> int:
    """Standard close combat to-hit chart: D6 roll needed.

    3+ if the attacker's WS is higher than the target's, 5+ if the target's WS is more than
    twice the attacker's, otherwise 4+.
    """
    if ws > target_ws:
        return 3
    if target_ws > 2 * ws:
        return 5
    return 4


def to_wound(strength: int, toughness: int) -> int:
    """Standard Strength-vs-Toughness chart: D6 roll needed, 7 = cannot wound.

    2+ at S >= T+2, 3+ at S = T+1, 4+ at S = T, 5+ at S = T-1, 6+ at S = T-2 or T-3,
    impossible at S <= T-4.
    """
    diff = strength - toughness
    if diff >= 2:
        return 2
    if diff == 1:
        return 3
    if diff == 0:
        return 4
    if diff == -1:
        return 5
    if diff >= -3:
        return 6
    return 7


@dataclass(frozen=True)
class ModelGroup:
    """Models of one unit sharing a profile and wargear.

    Parameters
    ----------
    name : str
        Unique within its side (used for per-group statistics and ``target``).
    count : int
        Models in the group.
    ws, s, t, w, i, a, ld : int
        Weapon Skill, Strength, Toughness, Wounds, Initiative, Attacks, Leadership (1–10;
        ``a`` may be 0).
    save : int
        Armour save needed (2–6), 7 for none.
    invulnerable : int
        Invulnerable save needed (2–6), 7 for none.
    two_weapons : bool
        An extra close combat weapon or pistol: +1 attack in base contact.
    weapon : str
        Special close combat weapon, one of :data:`WEAPONS`.
    rending, heavy, monstrous : bool
        Rending weapon; heavy close combat weapon (armour capped at 4+); monstrous creature
        (ignores armour saves).
    poisoned : int or None
        Poisoned weapon wounding on this roll (4 or 2) regardless of Strength and Toughness.
    independent : bool
        Independent character: takes wounds separately from the rest of the unit.
    contact : int or None
        Models in base contact at the start of the combat (default: all of them).
    supporting : int
        Models within 2" of an engaged friend (one attack each, no special weapons).
    target : str, tuple of str, or None
        Enemy unit or independent character this group attacks (default: the first enemy
        unit). An independent character may name up to four: he rolls to hit against the
        first that has models in reach and deals his hits between them ("An Independent
        Character may allocate his hits between units he is Engaged with").
    split : tuple of int or None
        With several targets: hits dealt to each target per round (default one each: the
        hits are dealt in turn, first target first); targets with nobody left in reach are
        skipped.
    """

    name: str
    count: int = 1
    ws: int = 4
    s: int = 4
    t: int = 4
    w: int = 1
    i: int = 4
    a: int = 1
    ld: int = 8
    save: int = 7
    invulnerable: int = 7
    two_weapons: bool = False
    weapon: str = "none"
    rending: bool = False
    poisoned: int | None = None
    heavy: bool = False
    monstrous: bool = False
    independent: bool = False
    contact: int | None = None
    supporting: int = 0
    target: str | tuple[str, ...] | None = None
    split: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.target, list | tuple):
            object.__setattr__(self, "target", tuple(self.target))
            if len(self.target) == 1:
                object.__setattr__(self, "target", self.target[0])
        if self.split is not None:
            object.__setattr__(self, "split", tuple(int(x) for x in self.split))
        targets = self.targets
        if len(targets) > 1:
            if not self.independent:
                raise ValueError("only an independent character may split his hits")
            if len(targets) > MAX_SPLIT:
                raise ValueError(f"at most {MAX_SPLIT} targets to split hits between")
            if len(set(targets)) != len(targets):
                raise ValueError("a target is named twice")
            if self.weapon == "force-weapon":
                raise ValueError("a force weapon's hits cannot be split (one psychic test)")
        if self.split is not None:
            if len(self.split) != max(1, len(targets)) or any(x < 1 for x in self.split):
                raise ValueError("split needs one positive number of hits per target")
        if self.weapon not in WEAPONS:
            raise ValueError(f"weapon must be one of {', '.join(WEAPONS)}, got {self.weapon!r}")
        if self.weapon == "lightning-claw" and self.two_weapons:
            raise ValueError(
                "a single lightning claw gets no two-weapon bonus; use 'lightning-claws'"
            )
        c = self.count if self.contact is None else self.contact
        if c + self.supporting > self.count:
            raise ValueError("contact + supporting exceeds the models in the group")

    @property
    def targets(self) -> tuple[str, ...]:
        """The named targets (empty: the first enemy unit)."""
        if self.target is None:
            return ()
        return self.target if isinstance(self.target, tuple) else (self.target,)

    @property
    def split_weights(self) -> tuple[int, ...]:
        """Hits dealt to each target per round of a split."""
        return self.split if self.split is not None else (1,) * max(1, len(self.targets))

    @property
    def in_contact(self) -> int:
        return self.count if self.contact is None else self.contact


@dataclass(frozen=True)
class Unit:
    """A unit in the combat.

    Parameters
    ----------
    name : str
        Unique within its side.
    groups : tuple of ModelGroup
    fast : bool
        Bikes and jump packs: fall back and sweeping advance 3D6 instead of 2D6.
    grenades : {"none", "frag", "plasma"}
        Charging units: frag grenades strike simultaneously with the defenders in cover they
        attack; plasma grenades fight in Initiative order against defenders in cover (see
        ``Rules.frag_grenades`` and ``Rules.plasma_grenades``).
    in_cover : bool
        Defending units: in or behind cover (strike first when charged, first turn only).
    fired : bool
        Charging units: fired this turn, so no +1 charge attack.
    difficult_terrain_distance : int
        Charging units: inches the charge must cover through difficult terrain (roll 2D6,
        pick the highest; the charge fails if short); 0 = no difficult terrain in the way
        (the charge always goes in).
    falling_back : bool
        Defending units: assaulted while falling back, so must regroup (Ld test) or be
        destroyed.
    trapped : bool
        The unit is destroyed if it has to fall back (fall-back corridor blocked).
    """

    name: str
    groups: tuple[ModelGroup, ...]
    fast: bool = False
    grenades: str = "none"
    in_cover: bool = False
    fired: bool = False
    difficult_terrain_distance: int = 0
    falling_back: bool = False
    trapped: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", tuple(self.groups))
        if not self.groups:
            raise ValueError(f"unit {self.name!r} needs at least one group")
        if self.grenades not in GRENADES:
            raise ValueError(f"grenades must be one of {', '.join(GRENADES)}")


@dataclass(frozen=True)
class Side:
    """One side of the combat: ``name`` and its ``units``."""

    name: str
    units: tuple[Unit, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "units", tuple(self.units))
        if not self.units:
            raise ValueError(f"side {self.name!r} needs at least one unit")


@dataclass(frozen=True)
class Rules:
    """Rule switches where the text is silent or ambiguous (see docs/assault-phase.md).

    Parameters
    ----------
    max_turns : int
        Turns of close combat played while the combat is drawn or the loser holds (1–20).
    double_one_passes : bool
        A roll of double one always passes a Leadership test (default off: not in the text).
    below_half_penalty : bool
        -1 Ld for a losing unit below half its starting strength (default off: not in the
        text, whose Morale section is missing).
    unit_leadership : {"highest", "majority"}
        Ld a unit tests on: the best living model's (the leader's), or the majority value.
    reach : {"engaged", "unit"}
        Models that can be hit: those in contact or supporting (the 2" danger zone), or the
        whole unit.
    tie_save : {"better", "worse"}
        Equal numbers with different saves: which save the owner uses first.
    tie_toughness : {"higher", "lower"}
        Equal numbers with different Toughness: which the owner chooses.
    fist_strikes_last : bool
        Power fists strike at Initiative 1 even when their unit strikes first from cover or
        with frag grenades ("power fists always strike at Initiative 1 no matter what").
    sweep_support : {"profile", "one"}
        Attacks of supporting models in a sweeping advance.
    pile_in : bool
        After the first turn every surviving model is in base contact (reinforcement moves).
    majority : {"most-common", "more-than-half"}
        Reading of "the majority" WS, Toughness and armour save of a unit: the value most
        models have (equal counts: the tie rules for Toughness and saves; for WS there is
        then no majority type and the lowest WS in the unit is used), or a value more than
        half the models have (exactly two values at half each: the tie rules, the lower WS;
        otherwise the lowest WS, the lowest Toughness, the worst save).
    frag_grenades : {"target", "any-engaged"}
        When a charging unit with frag grenades strikes with the cover step (first turn):
        ``"target"``, a group whose target (its first, for an independent character with
        several) is a unit in cover strikes with it, one attacking a unit in the open
        strikes in Initiative order; ``"any-engaged"``, the whole unit strikes with it
        whenever any defending unit in the combat is in cover.
    plasma_grenades : {"per-unit", "all-units"}
        Whom defenders in cover strike first (first turn): ``"per-unit"``, a group whose
        target is a charging unit with plasma grenades strikes in Initiative order, one
        attacking any other charging unit strikes first; ``"all-units"``, the cover first
        strike is lost only if every charging unit has plasma grenades.
    to_hit_chart, to_wound_chart : tuple of tuple of int, optional
        10×10 overrides: ``to_hit_chart[ws-1][target_ws-1]``, ``to_wound_chart[s-1][t-1]``
        (roll needed; 7 = impossible).
    """

    max_turns: int = 1
    double_one_passes: bool = False
    below_half_penalty: bool = False
    unit_leadership: str = "highest"
    reach: str = "engaged"
    tie_save: str = "better"
    tie_toughness: str = "higher"
    fist_strikes_last: bool = True
    sweep_support: str = "profile"
    pile_in: bool = True
    majority: str = "most-common"
    frag_grenades: str = "target"
    plasma_grenades: str = "per-unit"
    to_hit_chart: tuple[tuple[int, ...], ...] | None = None
    to_wound_chart: tuple[tuple[int, ...], ...] | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.max_turns <= 20:
            raise ValueError("max_turns must be from 1 to 20")
        for name, choices in (
            ("unit_leadership", LD_MODES),
            ("reach", REACH_MODES),
            ("tie_save", TIE_SAVE),
            ("tie_toughness", TIE_T),
            ("sweep_support", SWEEP_SUPPORT),
            ("majority", MAJORITY),
            ("frag_grenades", FRAG_MODES),
            ("plasma_grenades", PLASMA_MODES),
        ):
            if getattr(self, name) not in choices:
                raise ValueError(f"{name} must be one of {', '.join(choices)}")

    def hit_table(self) -> np.ndarray:
        """``int64[11, 11]``: roll needed by WS (row) against target WS (column), 1-based."""
        tab = np.full((11, 11), 7, dtype=np.int64)
        for a in range(1, 11):
            for d in range(1, 11):
                tab[a, d] = self.to_hit_chart[a - 1][d - 1] if self.to_hit_chart else to_hit(a, d)
        return tab

    def wound_table(self) -> np.ndarray:
        """``int64[11, 11]``: roll needed by S (row) against T (column), 1-based."""
        tab = np.full((11, 11), 7, dtype=np.int64)
        for s in range(1, 11):
            for t in range(1, 11):
                tab[s, t] = (
                    self.to_wound_chart[s - 1][t - 1] if self.to_wound_chart else to_wound(s, t)
                )
        return tab

    def array(self) -> np.ndarray:
        r = np.zeros(K.R_NCOLS, dtype=np.int64)
        r[K.R_MAX_TURNS] = self.max_turns
        r[K.R_DOUBLE_ONE] = self.double_one_passes
        r[K.R_HALF_PENALTY] = self.below_half_penalty
        r[K.R_LD_MODE] = LD_MODES.index(self.unit_leadership)
        r[K.R_REACH] = REACH_MODES.index(self.reach)
        r[K.R_TIE_SAVE] = TIE_SAVE.index(self.tie_save)
        r[K.R_TIE_T] = TIE_T.index(self.tie_toughness)
        r[K.R_FIST_LAST] = self.fist_strikes_last
        r[K.R_SWEEP_SUPPORT] = self.sweep_support == "profile"
        r[K.R_PILE_IN] = self.pile_in
        r[K.R_MAJORITY] = MAJORITY.index(self.majority)
        r[K.R_FRAG] = FRAG_MODES.index(self.frag_grenades)
        r[K.R_PLASMA] = PLASMA_MODES.index(self.plasma_grenades)
        return r


SIDES = ("attacker", "defender")
