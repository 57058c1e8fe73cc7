"""Frozen dataclasses of the hex platoon ruleset: counters, hexes, steps and rule switches.

A scenario is a few :class:`Hex` es, each holding a stack of :class:`Unit` s (counters), and
an ordered list of :class:`Step` s played in every trial (fire, opportunity fire after a
move, mortar fire, artillery missions, mines, clearing, rally, command checks, assault,
overrun, close air support). :class:`Rules` holds every reading of the rule text that a
player might want to change. Values are checked in ``__post_init__``; the TOML reader
(:mod:`.reading`) reports the same problems with the file and key path.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "TYPES",
    "TERRAINS",
    "CONCEALING",
    "STEP_KINDS",
    "BANDS",
    "SupportWeapon",
    "Unit",
    "Hex",
    "Step",
    "Rules",
]

#: movement / counter classes (HQ covers sHQ; reconnaissance is "recon")
TYPES = ("infantry", "engineer", "recon", "afv", "hq", "mortar", "aa", "aircraft")
#: terrain of a hex
TERRAINS = ("open", "wood", "city", "rough", "cultivated", "hill", "wreck")
#: terrain that conceals (cultivated: infantry only; an improved position conceals too)
CONCEALING = ("wood", "city", "rough", "cultivated", "wreck")
STEP_KINDS = (
    "fire",
    "mortar",
    "artillery",
    "move",
    "clear-mines",
    "rally",
    "command",
    "assault",
    "overrun",
    "air-strike",
)
BANDS = ("normal", "reduced", "extended")


def _need(value: int, what: str, lo: int = 1, hi: int = 7) -> None:
    if not lo <= value <= hi:
        raise ValueError(f"{what} must be from {lo} to {hi}, got {value}")


@dataclass(frozen=True)
class SupportWeapon:
    """A support weapon assigned to an infantry platoon (rule 1.3.4).

    Adds ``he`` / ``ap`` firepower and ``range`` hexes to its platoon's fire, or, when
    ``augmented`` (a ``+`` on the counter instead of values), one augmentation die.
    """

    name: str
    he: int = 0
    ap: int = 0
    range: int = 0
    augmented: bool = False

    def __post_init__(self) -> None:
        for key in ("he", "ap", "range"):
            _need(getattr(self, key), key, 0, 30)


@dataclass(frozen=True)
class Unit:
    """One counter, on the side it shows now.

    Parameters
    ----------
    name : str
        Unique in the scenario.
    type : str
        One of :data:`TYPES`.
    he, ap : int
        Firepower (d6) against soft targets (High Explosive) and hard targets (Armor
        Piercing).
    he_plus, ap_plus : bool
        The firepower is followed by ``+`` (augmented: one more die, the lowest ignored).
    aa, aa_plus : int, bool
        Anti-aircraft (blue) firepower.
    range : int
        Range in hexes; ``range_underlined``: no extended or reduced range fire.
    to_hit : int
        To Hit number (a die >= it hits).
    assault : int or None
        Assault factor; None: may neither attack nor counter-attack in an assault.
    assault_counter_only : bool
        ``*`` after the Assault factor: may counter-attack but not initiate an assault.
    assault_plus : bool
        ``+`` after the Assault factor.
    assault_to_hit : int
    hard : bool
        Hard target (armour); default: AFVs and aircraft.
    infantry : bool
        Infantry for concealment in cultivated terrain, the concealed-infantry rule and the
        assault modifiers; default: infantry and engineers.
    armor, save : int
        Armor factor (dice) and Save Number of a hard target (and of an aircraft).
    leadership, leadership_reduced : int
        (s)HQ leadership rating on the full and reduced side.
    morale : int
        The formation's morale (Moral Check: 2D6 <= morale).
    reduced, disrupted, ops_complete, out_of_command : bool
        State at the start of the scenario.
    concealed : {"auto", "yes", "no"}
        "auto": concealed by terrain and the conditions below; "yes"/"no" forces it.
    adjacent_enemy : bool
        Adjacent to a Good Order unit of the firing side (no concealment).
    spotted : bool
        In line of sight and within 4 hexes of a Good Order enemy reconnaissance unit.
    support : tuple of SupportWeapon
    """

    name: str
    type: str = "infantry"
    he: int = 0
    ap: int = 0
    he_plus: bool = False
    ap_plus: bool = False
    aa: int = 0
    aa_plus: bool = False
    range: int = 0
    range_underlined: bool = False
    to_hit: int = 5
    assault: int | None = None
    assault_counter_only: bool = False
    assault_plus: bool = False
    assault_to_hit: int = 5
    hard: bool | None = None
    infantry: bool | None = None
    armor: int = 0
    save: int = 6
    leadership: int = 0
    leadership_reduced: int | None = None
    morale: int = 7
    reduced: bool = False
    disrupted: bool = False
    ops_complete: bool = False
    out_of_command: bool = False
    concealed: str = "auto"
    adjacent_enemy: bool = False
    spotted: bool = False
    support: tuple[SupportWeapon, ...] = ()

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"type must be one of {', '.join(TYPES)}, got {self.type!r}")
        if self.concealed not in ("auto", "yes", "no"):
            raise ValueError("concealed must be 'auto', 'yes' or 'no'")
        object.__setattr__(self, "support", tuple(self.support))
        if self.hard is None:
            object.__setattr__(self, "hard", self.type in ("afv", "aircraft"))
        if self.infantry is None:
            object.__setattr__(self, "infantry", self.type in ("infantry", "engineer"))
        if self.leadership_reduced is None:
            object.__setattr__(self, "leadership_reduced", self.leadership)
        _need(self.to_hit, "to_hit", 1, 7)
        _need(self.assault_to_hit, "assault_to_hit", 1, 7)
        _need(self.save, "save", 1, 7)
        _need(self.morale, "morale", 0, 13)
        if self.support and not self.infantry:
            raise ValueError("support weapons can only be assigned to an infantry platoon")

    @property
    def is_hq(self) -> bool:
        return self.type == "hq"


@dataclass(frozen=True)
class Hex:
    """A hex: terrain, defensive bonus, improved position and its stack of units.

    ``defence`` is the terrain's infantry Defensive Bonus (dice saving on 5+); the rule text
    has no terrain chart, so it is an input. ``defence_hard`` is the bonus for hard targets
    (default: ``defence``), capped at 2 with the armor dice.
    """

    name: str
    terrain: str = "open"
    defence: int = 0
    defence_hard: int | None = None
    improved_position: bool = False
    units: tuple[Unit, ...] = ()

    def __post_init__(self) -> None:
        if self.terrain not in TERRAINS:
            raise ValueError(f"terrain must be one of {', '.join(TERRAINS)}")
        object.__setattr__(self, "units", tuple(self.units))
        if self.defence_hard is None:
            object.__setattr__(self, "defence_hard", self.defence)
        if sum(u.is_hq for u in self.units) > 1:
            raise ValueError("no more than 1 HQ/sHQ per hex")
        if any(u.is_hq for u in self.units) and not any(
            u.type not in ("hq", "aircraft") for u in self.units
        ):
            # 1.3.2: an (s)HQ "must remain/move with 1+ unit of its formation"
            raise ValueError("an (s)HQ must be stacked with 1+ unit of its formation")


@dataclass(frozen=True)
class Step:
    """One thing that happens, in order (see docs/hex-platoon.md for each kind's keys).

    ``kind`` is one of :data:`STEP_KINDS`. Unit and hex references are names.
    """

    kind: str
    label: str = ""
    firer: str = ""  # fire, mortar
    target: str = ""  # fire: a unit; mortar, air-strike: a hex
    band: str = "normal"  # fire, mortar
    distance: int | None = None
    hq: str = ""  # fire, mortar: (s)HQ in the firer's hex lending its leadership
    opportunity: bool = False  # fire: opportunity fire at the stack of the last move
    spotter: str = ""  # mortar (artillery mission), artillery: calling (s)HQ / recon unit
    hexes: tuple[str, ...] = ()  # artillery: impact hex and its neighbours (<= 7)
    firepower: int = 0  # artillery, air-strike (default: the aircraft's he)
    to_hit: int = 0  # artillery
    stack: str = ""  # move, command, rally: a hex
    mines: bool = False  # move
    units: tuple[str, ...] = ()  # clear-mines, rally
    attacker: str = ""  # assault, overrun: hex of the moving stack
    defender: str = ""  # assault, overrun: hex attacked
    attacker_hq_unit: str = ""  # assault: unit receiving the attacking (s)HQ's leadership
    defender_hq_unit: str = ""  # assault: unit receiving the defending (s)HQ's leadership
    can_retreat: bool = True  # assault: the defender has a legal retreat hex
    adjacent_at_start: bool = True  # assault: infantry started adjacent to armour in the open
    aircraft: str = ""  # air-strike
    aa: tuple[str, ...] = ()  # air-strike: AA units firing at the aircraft
    adjacent: str = ""  # air-strike: hex the defender picks for a strike gone astray
    morale: int | None = None  # command: formation morale (default: the stack's)

    def __post_init__(self) -> None:
        if self.kind not in STEP_KINDS:
            raise ValueError(f"kind must be one of {', '.join(STEP_KINDS)}")
        if self.band not in BANDS:
            raise ValueError(f"band must be one of {', '.join(BANDS)}")
        object.__setattr__(self, "hexes", tuple(self.hexes))
        object.__setattr__(self, "units", tuple(self.units))
        object.__setattr__(self, "aa", tuple(self.aa))
        if len(self.hexes) > 7:
            raise ValueError("an artillery mission strikes at most 7 hexes")


EXTENDED = ("text-priority", "best-choice")
HQ_BONUS = ("augmented-by-rating", "augmented-one-die", "added")
CONCEALED_SCOPE = ("direct-fire", "all-fire")
AUGMENT = ("stack", "once")
EXCESS = ("lost", "passed-on")
ASSAULT_RESULT = ("fewer-hits-scored", "literal")
MINE_ROLL = ("each-die", "sum")
CLEAR_ROLL = ("any-die", "sum")
AIR_RETURN = ("count-hits", "zero-hits")
AIR_CONCEALED = ("all-units", "any-unit")
IP_TIMING = ("before-saves", "after-saves")
HQ_AGAIN = ("eliminated", "stays-reduced")
CITY_BONUS = ("vs-armour-only", "always")
HQ_ASSAULT = ("as-fire", "added")
MOVE_OPS = ("after-movement", "on-entering")
HIT_LADDER = ("each-hit", "one-step-per-attack")
AA_VS_HARD = ("ap-else-blue", "blue")
ART_HARD_IGNORE = ("per-hard-target", "per-attack")
ART_SOFT_SCOPE = ("per-soft-unit", "per-hex")
OPS_BARS = ("every-action", "fire")


@dataclass(frozen=True)
class Rules:
    """Every reading of the rule text that a player may change (docs/hex-platoon.md).

    The first choice of every option is the default. Additional Rules (spartans.org.uk)
    are on by default, except ``armor_bonus_cover_5plus`` (the text itself doubts it).
    """

    extended_range: str = "text-priority"
    hq_bonus: str = "augmented-by-rating"  # Additional Rule on: augmented, one die per point
    augment: str = "stack"
    concealed_infantry_not_reduced: bool = True  # Additional Rule
    concealed_infantry_scope: str = "direct-fire"
    concealment_in_cap: bool = True
    concealment_lost_after_fire: bool = False
    armor_bonus_cover_5plus: bool = False  # Additional Rule "Armor Bonus for cover ????"
    artillery_extra_die: bool = True  # Additional Rule (mortars and artillery)
    artillery_ignore_first_hard_hit: bool = True  # Additional Rule
    # Additional Rule "Soft target in hex with Hard Target get 1 extra defence dice": on top of
    # 6.1/11.2's "+1 if there is at least 1 Hard Target"; False: read as a restatement of it
    artillery_soft_extra_defence: bool = True
    # ... one die for each soft target of the hex (default) or one for the hex
    artillery_soft_extra_scope: str = "per-soft-unit"
    infantry_assault_armour_adjacent: bool = True  # Additional Rule
    excess_hits: str = "lost"
    assault_result: str = "fewer-hits-scored"
    mine_roll: str = "each-die"
    clear_roll: str = "any-die"
    air_failed_strike_return: str = "count-hits"
    disrupted_aircraft_strikes: bool = False
    air_concealed: str = "all-units"
    improved_position: str = "before-saves"
    hq_reduced_again: str = "eliminated"
    mortar_mission_roll: bool = True
    city_assault_bonus: str = "vs-armour-only"
    hq_assault_bonus: str = "as-fire"  # the Additional Rule names no exception for assault
    hit_ladder: str = "each-hit"  # every hit after the disrupting one is a step down
    move_ops_complete: str = "after-movement"  # the marker comes when the movement is over
    mines_stop_movement: bool = True  # a unit disrupted/reduced by mines stops its stack
    mines_improved_position: bool = True  # an improved position nullifies the first mines hit
    overrun_defender_augmented: bool = True  # a defender's "+" counts in an overrun
    aa_vs_hard: str = "ap-else-blue"  # AA at a hard target: AP if it has one, else blue
    artillery_hard_ignore: str = "per-hard-target"  # each hard target ignores its first hit
    ops_complete_bars: str = "every-action"  # a marked unit no longer moves, assaults, clears

    def __post_init__(self) -> None:
        for key, options in (
            ("extended_range", EXTENDED),
            ("hq_bonus", HQ_BONUS),
            ("augment", AUGMENT),
            ("concealed_infantry_scope", CONCEALED_SCOPE),
            ("excess_hits", EXCESS),
            ("assault_result", ASSAULT_RESULT),
            ("mine_roll", MINE_ROLL),
            ("clear_roll", CLEAR_ROLL),
            ("air_failed_strike_return", AIR_RETURN),
            ("air_concealed", AIR_CONCEALED),
            ("improved_position", IP_TIMING),
            ("hq_reduced_again", HQ_AGAIN),
            ("city_assault_bonus", CITY_BONUS),
            ("hq_assault_bonus", HQ_ASSAULT),
            ("hit_ladder", HIT_LADDER),
            ("move_ops_complete", MOVE_OPS),
            ("aa_vs_hard", AA_VS_HARD),
            ("artillery_hard_ignore", ART_HARD_IGNORE),
            ("artillery_soft_extra_scope", ART_SOFT_SCOPE),
            ("ops_complete_bars", OPS_BARS),
        ):
            if getattr(self, key) not in options:
                raise ValueError(f"{key} must be one of {', '.join(options)}")


#: option lists by Rules field (the reader offers them as choices)
RULE_CHOICES = {
    "extended_range": EXTENDED,
    "hq_bonus": HQ_BONUS,
    "augment": AUGMENT,
    "concealed_infantry_scope": CONCEALED_SCOPE,
    "excess_hits": EXCESS,
    "assault_result": ASSAULT_RESULT,
    "mine_roll": MINE_ROLL,
    "clear_roll": CLEAR_ROLL,
    "air_failed_strike_return": AIR_RETURN,
    "air_concealed": AIR_CONCEALED,
    "improved_position": IP_TIMING,
    "hq_reduced_again": HQ_AGAIN,
    "city_assault_bonus": CITY_BONUS,
    "hq_assault_bonus": HQ_ASSAULT,
    "hit_ladder": HIT_LADDER,
    "move_ops_complete": MOVE_OPS,
    "aa_vs_hard": AA_VS_HARD,
    "artillery_hard_ignore": ART_HARD_IGNORE,
    "artillery_soft_extra_scope": ART_SOFT_SCOPE,
    "ops_complete_bars": OPS_BARS,
}
