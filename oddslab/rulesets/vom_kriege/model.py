"""Vom Kriege scenario model: units, leaders, actions and the rule switches (frozen, validated).

Every class checks itself in ``__post_init__`` (``problems()`` lists ``(key, text)`` pairs so
the reader can name the scenario file's key). Names and codes are in :mod:`.layout`.
"""

from __future__ import annotations

from dataclasses import dataclass

from oddslab.rulesets.vom_kriege.layout import (
    BAND_LIMITS,
    DEFAULT_FACES,
    FORMATIONS,
    HALVING_FLOOR_READINGS,
    KINDS,
    OR_ROWS_READINGS,
    QUALITIES,
    REACTIONS,
    SIDES,
    SK_RANGE_READINGS,
    SK_TARGET_READINGS,
    SQ_BB_READINGS,
    SYMBOLS,
    TERRAINS,
    TROOPS,
)

__all__ = ["Unit", "Leader", "Battery", "Action", "Rules", "Dice", "range_band", "ROUGH"]

#: rough terrain (no squares; cavalry charging into it is disordered)
ROUGH = ("woods", "bua", "fieldworks", "rough")


def _raise(problems: list[tuple[str, str]]) -> None:
    if problems:
        key, text = problems[0]
        raise ValueError(f"{key}: {text}" if key else text)


def range_band(inches: float) -> int:
    """Range band index: 0 for up to 3", 1 up to 6", 2 up to 12", 3 up to 18", 4 up to 24"."""
    for i, lim in enumerate(BAND_LIMITS):
        if inches <= lim:
            return i
    raise ValueError(f'range {inches}" is beyond the longest band (24")')


@dataclass(frozen=True)
class Dice:
    """The six-sided command and battle die: one symbol per face (``SYMBOLS``).

    The default is the text's die: infantry ×2, cavalry, artillery, saber, flag. Any number
    of faces (2-20) may be given; ``blank`` faces score nothing.
    """

    faces: tuple[str, ...] = DEFAULT_FACES

    def __post_init__(self) -> None:
        _raise(self.problems())

    def problems(self) -> list[tuple[str, str]]:
        if not 2 <= len(self.faces) <= 20:
            return [("faces", f"expected 2 to 20 faces, got {len(self.faces)}")]
        for f in self.faces:
            if f not in SYMBOLS:
                return [("faces", f"'{f}' is not one of {', '.join(SYMBOLS)}")]
        return []

    def p(self, symbol: str) -> float:
        """Probability that one die shows ``symbol``."""
        return self.faces.count(symbol) / len(self.faces)


@dataclass(frozen=True)
class Unit:
    """One unit and its state at the start of the scenario.

    ``strength`` (maximum hits) defaults to 4 for infantry and cavalry, 3 for artillery, +1
    for elite and -1 for conscript units. ``hits`` already taken run from 0 to ``strength``
    (at ``strength`` the unit is at maximum hits: routing). ``formation`` defaults to line
    (infantry, cavalry) or unlimbered (artillery).
    """

    name: str
    side: str
    troop: str
    kind: str = ""
    quality: str = "regular"
    skirmish: bool = False
    guns: int = 6
    strength: int | None = None
    hits: int = 0
    disordered: bool = False
    formation: str | None = None
    terrain: str = "open"
    shooting_marker: bool = False
    leader: str | None = None
    retreat_blocked: bool = False

    def __post_init__(self) -> None:
        _raise(self.problems())

    @property
    def unit_kind(self) -> str:
        return self.kind or KINDS.get(self.troop, ("",))[0]

    @property
    def max_hits(self) -> int:
        if self.strength is not None:
            return self.strength
        base = 3 if self.troop == "artillery" else 4
        return base + (1 if self.quality == "elite" else -1 if self.quality == "conscript" else 0)

    @property
    def form(self) -> str:
        if self.formation is not None:
            return self.formation
        return "unlimbered" if self.troop == "artillery" else "line"

    def problems(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if self.side not in SIDES:
            out.append(("side", f"expected one of {', '.join(SIDES)}, got '{self.side}'"))
        if self.troop not in TROOPS:
            out.append(("troop", f"expected one of {', '.join(TROOPS)}, got '{self.troop}'"))
            return out
        kinds = KINDS[self.troop]
        if self.kind and self.kind not in kinds:
            out.append(("kind", f"{self.troop} may be {', '.join(kinds)}, got '{self.kind}'"))
        if self.quality not in QUALITIES:
            out.append(("quality", f"expected one of {', '.join(QUALITIES)}"))
        if self.guns not in (6, 8):
            out.append(("guns", f"expected 6 or 8, got {self.guns}"))
        if self.strength is not None and not 1 <= self.strength <= 10:
            out.append(("strength", f"expected 1 to 10, got {self.strength}"))
        if not 0 <= self.hits <= self.max_hits:
            out.append(("hits", f"expected 0 to {self.max_hits} (the unit's strength)"))
        if self.terrain not in TERRAINS:
            out.append(("terrain", f"expected one of {', '.join(TERRAINS)}"))
        f = self.form
        allowed = {
            "infantry": ("line", "two_rank_line", "column", "march_column", "open_order", "square"),
            "cavalry": ("line", "column", "march_column"),
            "artillery": ("limbered", "unlimbered"),
        }[self.troop]
        if f not in FORMATIONS or f not in allowed:
            out.append(("formation", f"{self.troop} may be in {', '.join(allowed)}, got '{f}'"))
        elif f == "open_order" and self.unit_kind != "light":
            out.append(("formation", "only light infantry can form open order"))
        elif f == "square" and self.terrain in ROUGH:
            out.append(("formation", "infantry in rough terrain cannot be in square"))
        if self.skirmish and self.troop != "infantry":
            out.append(("skirmish", "only infantry can be (sk)irmish units"))
        return out


@dataclass(frozen=True)
class Leader:
    """A command (division) leader or the army leader, with the hits it has taken (0-2).

    ``units`` is how many units its command has in all (default: the scenario's units that
    name it); when the leader falls, the whole command is removed. ``with_unit`` names a unit
    of its side it stands with: an enemy contacting that unit in melee contacts the leader
    too, who must retire (a melee ``Action`` may also target the leader alone).
    """

    name: str
    side: str
    quality: int = 1
    hits: int = 0
    units: int | None = None
    army: bool = False
    with_unit: str | None = None

    def __post_init__(self) -> None:
        _raise(self.problems())

    def problems(self) -> list[tuple[str, str]]:
        out = []
        if self.side not in SIDES:
            out.append(("side", f"expected one of {', '.join(SIDES)}, got '{self.side}'"))
        if not 0 <= self.quality <= 3:
            out.append(("quality", "expected 0 to 3 (L0-L3)"))
        if not 0 <= self.hits <= 2:
            out.append(("hits", "expected 0 to 2 (a leader with 3 hits is removed)"))
        if self.units is not None and not 0 <= self.units <= 100:
            out.append(("units", "expected 0 to 100"))
        return out


@dataclass(frozen=True)
class Battery:
    """An artillery unit that fires defensively at the charger, at ``range`` inches."""

    unit: str
    range: float = 3.0


@dataclass(frozen=True)
class Action:
    """One shooting or melee action of the sequence (the active player's units).

    Shooting uses ``range`` (inches), ``order_bonus``, ``supports`` (fire-support units),
    ``enfilade`` and ``obscured``. A melee uses ``order_bonus``, ``supports`` (melee
    supports), ``reaction`` (the defender's: none, defensive_fire, retire, counter_charge,
    form_square or auto), ``batteries`` (artillery joining the defensive fire), ``flank``
    (the defender does not face the attacker: no battle back), ``uphill`` (the defender is
    uphill), ``through_rough`` (a cavalry charge through rough terrain), ``defender_supports``
    (used only by the ``battle_back_supports`` switch) and the cavalry follow-up:
    ``follow_up`` (the second target), ``follow_up_reaction``, ``follow_up_supports``,
    ``follow_up_flank``.
    """

    kind: str
    actor: str
    target: str
    range: float = 3.0
    order_bonus: bool = False
    supports: int = 0
    enfilade: bool = False
    obscured: bool = False
    reaction: str = "auto"
    batteries: tuple[Battery, ...] = ()
    flank: bool = False
    uphill: bool = False
    through_rough: bool = False
    defender_supports: int = 0
    follow_up: str | None = None
    follow_up_reaction: str = "auto"
    follow_up_supports: int = 0
    follow_up_flank: bool = False

    def __post_init__(self) -> None:
        _raise(self.problems())

    def problems(self) -> list[tuple[str, str]]:
        out = []
        if self.kind not in ("shoot", "melee"):
            out.append(("kind", f"expected shoot or melee, got '{self.kind}'"))
        for key in ("reaction", "follow_up_reaction"):
            if getattr(self, key) not in REACTIONS:
                out.append((key, f"expected one of {', '.join(REACTIONS)}"))
        if not 0 < self.range <= 24:
            out.append(("range", "expected a range in inches above 0 and up to 24"))
        for key in ("supports", "defender_supports", "follow_up_supports"):
            if not 0 <= getattr(self, key) <= 6:
                out.append((key, "expected 0 to 6 units"))
        if len(self.batteries) > 4:
            out.append(("batteries", "at most 4 batteries may join the defensive fire"))
        if self.kind == "shoot" and (self.follow_up or self.batteries):
            out.append(("follow_up", "only a melee has a follow-up or defensive batteries"))
        return out


@dataclass(frozen=True)
class Rules:
    """Readings of the text the scenario may switch (defaults: docs/vom-kriege.md)."""

    sabers: str = "both"
    or_rows: str = "largest"
    artillery_rows: str = "shooter"
    horse_artillery: str = "light"
    halving: str = "after"
    halving_floor: str = "always"
    min_dice: int = 0
    same_roll_at_max: str = "remove"
    defensive_fire_flags: str = "retreat"
    dice_state: str = "at_roll"
    battle_back_supports: bool = False
    square_may_fire: bool = False
    counter_charge: str = "defender_first"
    retire_vs_cavalry: bool = False
    disordered_follow_up: bool = False
    skirmish_dice: str = "table"
    square_battle_back: str = "at_least_half"
    rough_charge: str = "disordered"
    skirmish_target: str = "sk"
    skirmish_range: str = "up_to_6"
    order_support_row: str = "stack"
    retire_follow_up: str = "any"
    retiring_cavalry_disordered: bool = True
    blocked_retreat_disorders: bool = False
    cavalry_square_flags: str = "hit"
    cavalry_square_sabers: str = "always"
    leader_with_unit: str = "rolled"

    CHOICES = {
        "sabers": ("both", "melee"),
        "or_rows": OR_ROWS_READINGS,
        "artillery_rows": ("shooter", "target"),
        "horse_artillery": ("light", "heavy"),
        "halving": ("after", "before"),
        "halving_floor": HALVING_FLOOR_READINGS,
        "same_roll_at_max": ("remove", "absorb"),
        "defensive_fire_flags": ("retreat", "ignore"),
        "dice_state": ("at_roll", "before_melee"),
        "counter_charge": ("defender_first", "simultaneous"),
        "skirmish_dice": ("table", "one"),
        "square_battle_back": SQ_BB_READINGS,
        "rough_charge": ("disordered", "stopped"),
        "skirmish_target": SK_TARGET_READINGS,
        "skirmish_range": SK_RANGE_READINGS,
        "order_support_row": ("stack", "largest"),
        "retire_follow_up": ("any", "cavalry"),
        "cavalry_square_flags": ("hit", "ignore"),
        "cavalry_square_sabers": ("always", "attacking"),
        "leader_with_unit": ("rolled", "retires"),
    }
    #: the yes/no switches
    FLAGS = (
        "battle_back_supports",
        "square_may_fire",
        "retire_vs_cavalry",
        "disordered_follow_up",
        "retiring_cavalry_disordered",
        "blocked_retreat_disorders",
    )

    def __post_init__(self) -> None:
        _raise(self.problems())

    def problems(self) -> list[tuple[str, str]]:
        for key, options in self.CHOICES.items():
            if getattr(self, key) not in options:
                return [(key, f"expected one of {', '.join(options)}")]
        if self.min_dice not in (0, 1):
            return [("min_dice", "expected 0 or 1")]
        return []
