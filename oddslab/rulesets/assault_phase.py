"""The assault phase: charges, Initiative-stepped close combat, assault results and morale.

A combat is two :class:`Side` s (attacker = the charging player, defender), each one or more
:class:`Unit` s made of :class:`ModelGroup` s (models sharing a profile). One trial plays
the whole combat: charge (difficult terrain), regroup of a defender caught falling back,
rounds of close combat by Initiative step with casualties removed after each step, the
majority-save procedure for mixed armour, the assault result, the losers' Leadership
tests, fall back, sweeping advance, and further turns while the combat lasts. Every rule
and every assumption is listed in ``docs/assault-phase.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oddslab._kernels import assault_phase as K
from oddslab._schema import ScenarioError, Table
from oddslab.engine import Job
from oddslab.outcome import Headline, Stat

__all__ = [
    "ModelGroup",
    "Unit",
    "Side",
    "Rules",
    "AssaultScenario",
    "WEAPONS",
    "GRENADES",
    "to_hit",
    "to_wound",
    "from_table",
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
    target : str or None
        Enemy unit or independent character this group attacks (default: the first enemy
        unit).
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
    target: str | None = None

    def __post_init__(self) -> None:
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
        Charging units: frag grenades strike simultaneously with defenders in cover;
        plasma grenades fight in Initiative order against them.
    in_cover : bool
        Defending units: in or behind cover (strike first when charged, first turn only).
    fired : bool
        Charging units: fired this turn, so no +1 charge attack.
    charge_distance : int
        Charging units: inches to the enemy through difficult terrain (roll 2D6, pick the
        highest; the charge fails if short); 0 = no difficult terrain.
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
    charge_distance: int = 0
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
    to_hit_chart: tuple[tuple[int, ...], ...] | None = None
    to_wound_chart: tuple[tuple[int, ...], ...] | None = None

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
        return r


_FIXED_STATS = (
    ("charge", 1, "the charge went in", True),
    ("attacker_wins", 1, "attacker won the first round's assault result", True),
    ("defender_wins", 1, "defender won the first round's assault result", True),
    ("draw", 1, "first round drawn (or no models left on either side)", True),
    ("loser_failed_morale", 1, "a loser of the first round failed its morale check", True),
    ("regroup_failed", 1, "a defender assaulted while falling back failed to regroup", True),
    ("turns", None, "turn the combat ended in (max_turns + 1: still going; 0: no charge)", False),
    ("attacker_won_fight", 1, "every defender fled or was destroyed, attackers remain", True),
    ("defender_won_fight", 1, "every attacker fled or was destroyed, defenders remain", True),
)
_SIDE_STATS = (
    ("attacks", "attacks made"),
    ("hits", "hits scored (rending sixes included)"),
    ("wounds", "wounds scored before saves"),
    ("unsaved", "wounds not saved"),
    ("inflicted", "wounds actually inflicted (overkill and out-of-reach surplus excluded)"),
    ("slain", "enemy models slain"),
    ("fell_back", "a unit of this side fell back"),
    ("swept", "a unit of this side was caught by a sweeping advance"),
    ("destroyed", "every model of this side is dead"),
)
SIDES = ("attacker", "defender")


@dataclass(frozen=True)
class AssaultScenario:
    """A close combat between ``attacker`` (charging) and ``defender``, plus run defaults."""

    attacker: Side
    defender: Side
    rules: Rules = field(default_factory=Rules)
    name: str = "assault"
    description: str = ""
    trials: int | None = None
    seed: int | None = None

    # -- flattening ---------------------------------------------------------------------------
    def _groups(self) -> list[tuple[int, int, Unit, ModelGroup]]:
        out = []
        u_index = 0
        for side_i, side in enumerate((self.attacker, self.defender)):
            for unit in side.units:
                for grp in unit.groups:
                    out.append((side_i, u_index, unit, grp))
                u_index += 1
        return out

    def _units(self) -> list[tuple[int, Unit]]:
        return [(i, u) for i, s in enumerate((self.attacker, self.defender)) for u in s.units]

    def arrays(self) -> dict[str, np.ndarray]:
        """Kernel inputs: ``gi`` int64[G, G_NCOLS], ``ui`` int64[U, U_NCOLS], ``ei``
        int64[E, E_NCOLS], ``rules`` int64[R_NCOLS], ``hit_tab``/``wound_tab`` int64[11, 11].
        """
        units = self._units()
        groups = self._groups()
        # entities: each unit's non-independent body, then each independent character
        ent_of_group: list[int] = []
        ents: list[tuple[int, int]] = []
        body: dict[int, int] = {}
        by_name: list[dict[str, int]] = [{}, {}]
        for side_i, u_i, _unit, grp in groups:
            if grp.independent:
                ents.append((u_i, side_i))
                e = len(ents) - 1
                by_name[side_i].setdefault(grp.name, e)
            else:
                if u_i not in body:
                    ents.append((u_i, side_i))
                    body[u_i] = len(ents) - 1
                e = body[u_i]
            ent_of_group.append(e)
        unit_entity: dict[int, int] = {}
        for g, (_side_i, u_i, _unit, _grp) in enumerate(groups):
            unit_entity.setdefault(u_i, body.get(u_i, ent_of_group[g]))
        for u_i, (side_i, unit) in enumerate(units):
            by_name[side_i][unit.name] = unit_entity[u_i]
        first_enemy = [
            unit_entity[next(i for i, (s, _) in enumerate(units) if s == k)] for k in (0, 1)
        ]
        gi = np.zeros((len(groups), K.G_NCOLS), dtype=np.int64)
        for g, (side_i, u_i, _unit, grp) in enumerate(groups):
            enemy = 1 - side_i
            if grp.target is None:
                aim = first_enemy[enemy]
            else:
                aim = by_name[enemy][grp.target]  # validated when the scenario is read
            fist = grp.weapon == "power-fist"
            claws = grp.weapon in ("lightning-claw", "lightning-claws")
            row = gi[g]
            row[K.G_SIDE] = side_i
            row[K.G_UNIT] = u_i
            row[K.G_ENT] = ent_of_group[g]
            row[K.G_AIM] = aim
            row[K.G_COUNT] = grp.count
            row[K.G_CONTACT] = grp.in_contact
            row[K.G_SUPPORT] = grp.supporting
            row[K.G_WS] = grp.ws
            row[K.G_T] = grp.t
            row[K.G_W] = grp.w
            row[K.G_LD] = grp.ld
            row[K.G_SV] = grp.save
            row[K.G_INV] = grp.invulnerable
            two = grp.two_weapons or grp.weapon == "lightning-claws"
            row[K.G_A_C] = grp.a + (1 if two else 0)
            row[K.G_S_C] = min(2 * grp.s, 10) if fist else grp.s
            row[K.G_I_C] = 1 if fist else grp.i
            row[K.G_NOARM_C] = grp.monstrous or grp.weapon != "none"
            row[K.G_HEAVY_C] = grp.heavy
            row[K.G_REND_C] = grp.rending
            row[K.G_POISON_C] = grp.poisoned or 0
            row[K.G_CLAW_C] = claws
            row[K.G_FORCE_C] = grp.weapon == "force-weapon"
            row[K.G_A_PROF] = grp.a
            row[K.G_S] = grp.s
            row[K.G_I] = grp.i
            row[K.G_NOARM_S] = grp.monstrous
            row[K.G_FIST] = fist
        ui = np.zeros((len(units), K.U_NCOLS), dtype=np.int64)
        for u_i, (side_i, unit) in enumerate(units):
            ui[u_i, K.U_SIDE] = side_i
            ui[u_i, K.U_FAST] = unit.fast
            ui[u_i, K.U_COVER] = unit.in_cover and side_i == 1
            ui[u_i, K.U_GRENADES] = GRENADES.index(unit.grenades)
            ui[u_i, K.U_FIRED] = unit.fired
            ui[u_i, K.U_CHARGE_DIST] = unit.charge_distance if side_i == 0 else 0
            ui[u_i, K.U_FALLING_BACK] = unit.falling_back and side_i == 1
            ui[u_i, K.U_TRAPPED] = unit.trapped
        ei = np.array(ents, dtype=np.int64).reshape(-1, K.E_NCOLS)
        return {
            "gi": gi,
            "ui": ui,
            "ei": ei,
            "rules": self.rules.array(),
            "hit_tab": self.rules.hit_table(),
            "wound_tab": self.rules.wound_table(),
        }

    # -- statistics ---------------------------------------------------------------------------
    def group_stat_names(self) -> list[str]:
        """``"<side>.<unit>.<group>.slain"`` for every group, in kernel order."""
        return [f"{SIDES[s]}.{unit.name}.{grp.name}.slain" for s, _, unit, grp in self._groups()]

    def stats(self) -> tuple[Stat, ...]:
        groups = self._groups()
        max_turns = self.rules.max_turns
        # exact upper bounds per side: per turn each model makes at most A + 2 attacks
        # (two weapons, charge), plus one sweeping advance of at most A per model
        att_max = [0, 0]
        models = [0, 0]
        wounds_cap = [0, 0]
        for side_i, _, _, grp in groups:
            att_max[side_i] += grp.count * ((grp.a + 2) * max_turns + grp.a)
            models[side_i] += grp.count
            wounds_cap[side_i] += grp.count * grp.w
        bounds: dict[str, int] = {}
        fixed: list[Stat] = []
        for name, nb, text, flag in _FIXED_STATS:
            top = max_turns + 1 if nb is None else nb
            fixed.append(Stat(name, top + 1, text, flag))
        per: dict[tuple[int, str], Stat] = {}
        for s in range(2):
            enemy = 1 - s
            bounds = {
                "attacks": att_max[s],
                "hits": att_max[s],
                "wounds": att_max[s],
                "unsaved": att_max[s],
                "inflicted": wounds_cap[enemy],
                "slain": models[enemy],
                "fell_back": 1,
                "swept": 1,
                "destroyed": 1,
            }
            for key, text in _SIDE_STATS:
                flag = key in ("fell_back", "swept", "destroyed")
                per[(s, key)] = Stat(
                    f"{SIDES[s]}_{key}", bounds[key] + 1, f"{SIDES[s]}: {text}", flag
                )
        # kernel order: fixed, then each per-side stat as (attacker, defender) pairs
        ordered = list(fixed)
        for key, _ in _SIDE_STATS:
            ordered += [per[(0, key)], per[(1, key)]]
        for (_s, _u, _unit, grp), name in zip(groups, self.group_stat_names(), strict=True):
            ordered.append(Stat(name, grp.count + 1, f"{grp.name} models slain"))
        assert len(ordered) == K.S_NFIXED + len(groups)
        return tuple(ordered)

    def headlines(self) -> tuple[Headline, ...]:
        heads = []
        if any(u.charge_distance > 0 for u in self.attacker.units):
            heads.append(Headline("P(charge happens)", "charge", 1))
        if any(u.falling_back for u in self.defender.units):
            heads.append(Headline("P(defender fails to regroup)", "regroup_failed", 1))
        heads += [
            Headline("P(attacker wins the assault)", "attacker_wins", 1),
            Headline("P(defender wins the assault)", "defender_wins", 1),
            Headline("P(draw)", "draw", 1),
            Headline("P(loser fails morale)", "loser_failed_morale", 1),
            Headline("P(defender falls back)", "defender_fell_back", 1),
            Headline("P(defender swept)", "defender_swept", 1),
            Headline("P(defender destroyed)", "defender_destroyed", 1),
            Headline("P(attacker destroyed)", "attacker_destroyed", 1),
        ]
        if self.rules.max_turns > 1:
            heads += [
                Headline("P(attacker wins the fight)", "attacker_won_fight", 1),
                Headline("P(defender wins the fight)", "defender_won_fight", 1),
            ]
        return tuple(heads)

    def _params(self) -> tuple:
        a = self.arrays()
        return (a["gi"], a["ui"], a["ei"], a["rules"], a["hit_tab"], a["wound_tab"])

    def compile(self) -> Job:
        return Job(
            self.name,
            K.run_assault,
            self._params(),
            self.stats(),
            self.headlines(),
            meta={"ruleset": "assault-phase", "description": self.description},
        )

    def run_with_dice(self, dice: list[int], seed: int = 1) -> dict[str, int]:
        """Play one combat with the given D6 results used first, in the order rolled.

        For tests and for replaying worked examples. Returns ``{stat name: value}`` plus
        ``"dice_used"``. Once the list runs out, dice come from a generator seeded by
        ``seed``.
        """
        script = np.array([1, *dice], dtype=np.int64)
        seed_words = np.array([seed, 2, 3, 4], dtype=np.uint64)
        res = K.run_scripted(*self._params(), script, seed_words)
        out = {s.name: int(v) for s, v in zip(self.stats(), res, strict=True)}
        out["dice_used"] = int(script[0]) - 1
        return out


# -- scenario files ------------------------------------------------------------------------------


def _read_group(tbl: Table, index: int) -> ModelGroup:
    def stat(key: str, default: Any, lo: int = 1) -> int:
        return tbl.int(key, default, min=lo, max=10)

    poisoned = tbl.int("poisoned", None, min=2, max=6, what="a wound roll from 2 to 6 (2+, 4+)")
    count = tbl.int("count", 1, min=1, max=100)
    contact = tbl.int("contact", None, min=0, max=count, what=f"0 to count ({count})")
    supporting = tbl.int("supporting", 0, min=0, max=count, what=f"0 to count ({count})")
    kwargs = dict(
        name=tbl.str("name", f"group {index + 1}"),
        count=count,
        ws=stat("ws", 4),
        s=stat("s", 4),
        t=stat("t", 4),
        w=stat("w", 1),
        i=stat("i", 4),
        a=stat("a", 1, lo=0),
        ld=stat("ld", 8),
        save=tbl.int("save", 7, min=2, max=7, what="a save from 2 (2+) to 7 (none)"),
        invulnerable=tbl.int(
            "invulnerable", 7, min=2, max=7, what="a save from 2 (2+) to 7 (none)"
        ),
        two_weapons=tbl.bool("two_weapons", False),
        weapon=tbl.str("weapon", "none", choices=WEAPONS),
        rending=tbl.bool("rending", False),
        poisoned=poisoned,
        heavy=tbl.bool("heavy", False),
        monstrous=tbl.bool("monstrous", False),
        independent=tbl.bool("independent", False),
        contact=contact,
        supporting=supporting,
        target=tbl.str("target", None),
    )
    c = count if contact is None else contact
    if c + supporting > count:
        raise tbl.error(
            "supporting", f"contact ({c}) + supporting ({supporting}) exceeds count ({count})"
        )
    if kwargs["weapon"] == "lightning-claw" and kwargs["two_weapons"]:
        raise tbl.error(
            "two_weapons",
            "a single lightning claw gets no two-weapon bonus; use weapon = 'lightning-claws'",
        )
    tbl.finish()
    return ModelGroup(**kwargs)


def _read_unit(tbl: Table, index: int, attacking: bool) -> Unit:
    name = tbl.str("name", f"unit {index + 1}")
    groups = tuple(_read_group(t, i) for i, t in enumerate(tbl.tables("groups", min_len=1)))
    kw: dict[str, Any] = {"fast": tbl.bool("fast", False), "trapped": tbl.bool("trapped", False)}
    if attacking:
        kw["grenades"] = tbl.str("grenades", "none", choices=GRENADES)
        kw["fired"] = tbl.bool("fired", False)
        kw["charge_distance"] = tbl.int(
            "charge_distance", 0, min=0, max=6, what="inches from 0 (no difficult terrain) to 6"
        )
    else:
        kw["in_cover"] = tbl.bool("in_cover", False)
        kw["falling_back"] = tbl.bool("falling_back", False)
    tbl.finish()
    return Unit(name, groups, **kw)


def _read_side(tbl: Table, attacking: bool) -> Side:
    name = tbl.str("name", "attacker" if attacking else "defender")
    units = tuple(_read_unit(t, i, attacking) for i, t in enumerate(tbl.tables("units", min_len=1)))
    tbl.finish()
    units_seen: set[str] = set()
    targets_seen: set[str] = set()  # unit names and independent characters' names
    for i, unit in enumerate(units):
        if unit.name in units_seen:
            raise tbl.error(f"units[{i}].name", f"unit name '{unit.name}' is used twice")
        units_seen.add(unit.name)
        targets_seen.add(unit.name)
    for i, unit in enumerate(units):
        group_seen: set[str] = set()
        for j, grp in enumerate(unit.groups):
            key = f"units[{i}].groups[{j}].name"
            if grp.name in group_seen:
                raise tbl.error(key, f"group name '{grp.name}' is used twice in this unit")
            group_seen.add(grp.name)
            if grp.independent:
                if grp.name in targets_seen:
                    raise tbl.error(
                        key, f"independent character '{grp.name}' needs a name of its own"
                    )
                targets_seen.add(grp.name)
    return Side(name, units)


def _read_chart(tbl: Table, key: str) -> tuple[tuple[int, ...], ...] | None:
    raw = tbl.raw(key, None)
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 10:
        raise tbl.error(key, "expected 10 rows of 10 rolls (2..7, 7 = impossible)")
    rows = []
    for r, row in enumerate(raw):
        ok = isinstance(row, list) and len(row) == 10
        ok = ok and all(isinstance(v, int) and not isinstance(v, bool) and 2 <= v <= 7 for v in row)
        if not ok:
            raise ScenarioError(
                tbl.source, f"{tbl.key(key)}[{r}]", "expected 10 rolls from 2 to 7 (7 = impossible)"
            )
        rows.append(tuple(row))
    return tuple(rows)


def _read_rules(tbl: Table) -> Rules:
    r = Rules(
        max_turns=tbl.int("max_turns", 1, min=1, max=20),
        double_one_passes=tbl.bool("double_one_passes", False),
        below_half_penalty=tbl.bool("below_half_penalty", False),
        unit_leadership=tbl.str("unit_leadership", "highest", choices=LD_MODES),
        reach=tbl.str("reach", "engaged", choices=REACH_MODES),
        tie_save=tbl.str("tie_save", "better", choices=TIE_SAVE),
        tie_toughness=tbl.str("tie_toughness", "higher", choices=TIE_T),
        fist_strikes_last=tbl.bool("fist_strikes_last", True),
        sweep_support=tbl.str("sweep_support", "profile", choices=SWEEP_SUPPORT),
        pile_in=tbl.bool("pile_in", True),
        to_hit_chart=_read_chart(tbl, "to_hit_chart"),
        to_wound_chart=_read_chart(tbl, "to_wound_chart"),
    )
    tbl.finish()
    return r


def _check_targets(root: Table, sides: tuple[Side, Side]) -> None:
    for s, side in enumerate(sides):
        enemy = sides[1 - s]
        names = {u.name for u in enemy.units} | {
            g.name for u in enemy.units for g in u.groups if g.independent
        }
        for i, unit in enumerate(side.units):
            for j, grp in enumerate(unit.groups):
                if grp.target is not None and grp.target not in names:
                    raise ScenarioError(
                        root.source,
                        f"{SIDES[s]}.units[{i}].groups[{j}].target",
                        f"'{grp.target}' is not an enemy unit or independent character "
                        f"(known: {', '.join(sorted(names))})",
                    )


def from_table(root: Table) -> AssaultScenario:
    """Build an :class:`AssaultScenario` from a scenario file's root table."""
    from oddslab.scenario import read_run_options

    run = read_run_options(root, "assault")
    attacker = _read_side(root.table("attacker"), True)
    defender = _read_side(root.table("defender"), False)
    rules = _read_rules(root.table("rules", {}))
    root.finish()
    _check_targets(root, (attacker, defender))
    try:
        return AssaultScenario(attacker, defender, rules, **run)
    except ValueError as exc:  # pragma: no cover - guarded by the readers above
        raise ScenarioError(root.source, "", str(exc)) from None
