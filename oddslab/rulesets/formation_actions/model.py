"""Formation actions: armies, formations, policies and rule switches (frozen, validated).

Every reading the rule text leaves open is a named switch in :class:`Rules` (defaults are the
most literal reading); every choice a player makes is a policy of the :class:`Army`. The
pages ``docs/formation-actions.md`` explain each of them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from oddslab.dice import DiceExpr

__all__ = [
    "OutsideShock",
    "Formation",
    "Army",
    "Rules",
    "RETAIN_POLICIES",
    "ORDER_POLICIES",
    "CHOICES",
    "PENALTY_READINGS",
    "RETAIN_LIMITS",
    "WITHDRAWALS",
    "BREAK_CHECKS",
    "OUTSIDE_TIMINGS",
    "BROKEN_SHOCKS",
    "KEY_PATTERN",
    "pass_faces",
]

#: when an army tries to retain the initiative after a passed test
RETAIN_POLICIES = ("never", "if-chance", "always")
#: which unactivated formation an army activates next
ORDER_POLICIES = ("listed", "best-first", "worst-first")
#: what the winner of the strategy roll chooses
CHOICES = ("first", "second")
#: what the action test's "-1" is for: the text's sentence (suppressed unit), its table
#: ("Any Shock Points"), one -1 for either, or -1 for each (stacking)
PENALTY_READINGS = ("suppressed", "shock", "either", "both")
#: "the initiative cannot be retained twice": in a row, or more than once per turn
RETAIN_LIMITS = ("in-a-row", "once-per-turn")
#: a broken formation that fails its rally test withdraws and stays broken, or leaves play
WITHDRAWALS = ("stays-broken", "removed")
#: when Shock >= the threshold breaks a formation
BREAK_CHECKS = ("immediate", "end-phase")
#: when outside Shock (hits from enemy fire) lands in each turn
OUTSIDE_TIMINGS = ("before-rally", "start-of-turn")
#: the Shock of a broken formation: at most its number of units, or everything it gains
BROKEN_SHOCKS = ("cap", "accumulate")
#: army and formation keys become statistic names
KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,23}$")


def pass_faces(
    target: int, natural_one_passes: bool = False, natural_six_fails: bool = False
) -> int:
    """Faces of a D6 (out of 6) that pass a test "roll equal to or under ``target``".

    ``target`` is the command rating after modifiers (it may be below 1 or above 6).
    """
    n = 0
    for d in range(1, 7):
        if natural_one_passes and d == 1:
            n += 1
        elif natural_six_fails and d == 6:
            continue
        elif d <= target:
            n += 1
    return n


def _check_key(key: str, what: str) -> None:
    if not KEY_PATTERN.match(key):
        raise ValueError(
            f"{what} key {key!r} must be lower-case letters, digits and '_' (starting with a "
            "letter, at most 24 characters): it names statistics"
        )


@dataclass(frozen=True)
class OutsideShock:
    """Shock a formation gains each turn from outside the action tests (enemy fire, hits).

    Exactly one form: ``fixed`` points every turn, a ``dice`` expression rolled every turn
    (``"D3-1"``, floored at 0), or a ``table`` of probabilities ``P(0), P(1), ...``.
    """

    fixed: int = 0
    dice: DiceExpr | None = None
    table: tuple[float, ...] | None = None

    def file_value(self) -> int | str | list[float]:
        """The value ``outside_shock`` takes in a file (for ``to_dict()``)."""
        if self.table is not None:
            return list(self.table)
        return str(self.dice) if self.dice is not None else self.fixed

    def __post_init__(self) -> None:
        if self.fixed < 0:
            raise ValueError("outside Shock must be >= 0")
        if self.table is not None:
            t = tuple(float(x) for x in self.table)
            object.__setattr__(self, "table", t)
            if not t or any(x < 0 or not math.isfinite(x) for x in t):
                raise ValueError("outside Shock table: probabilities must be >= 0")
            if abs(sum(t) - 1.0) > 1e-9:
                raise ValueError(f"outside Shock table: probabilities sum to {sum(t)}, not 1")
            if len(t) > 21:
                raise ValueError("outside Shock table: at most 21 entries (0..20 Shock)")
        if (self.dice is not None) + (self.table is not None) + (self.fixed > 0) > 1:
            raise ValueError("outside Shock: give one of fixed, dice or table")
        if self.dice is not None and self.dice.max > 20:
            raise ValueError("outside Shock dice: at most 20 Shock per turn")
        if self.fixed > 20:
            raise ValueError("outside Shock: at most 20 per turn")

    @property
    def active(self) -> bool:
        return self.max > 0

    @property
    def max(self) -> int:
        if self.dice is not None:
            return self.dice.max
        if self.table is not None:
            nz = [i for i, x in enumerate(self.table) if x > 0]
            return nz[-1] if nz else 0
        return self.fixed

    def pmf(self) -> np.ndarray:
        """``p[k] = P(k Shock this turn)``; shape ``(max + 1,)``."""
        if self.dice is not None:
            return self.dice.pmf()
        if self.table is not None:
            return np.array(self.table[: self.max + 1], dtype=float)
        p = np.zeros(self.fixed + 1)
        p[self.fixed] = 1.0
        return p

    def describe(self) -> str:
        if self.dice is not None:
            return f"{self.dice} per turn (mean {self.dice.mean():.3g})"
        if self.table is not None:
            parts = ", ".join(f"P({k})={p:g}" for k, p in enumerate(self.table))
            mean = float(np.dot(np.arange(len(self.table)), self.table))
            return f"{parts} per turn (mean {mean:.3g})"
        return f"{self.fixed} per turn" if self.fixed else "none"


@dataclass(frozen=True)
class Formation:
    """One formation of an army.

    Parameters
    ----------
    key : str
        Short identifier used in statistic names (``[a-z][a-z0-9_]*``).
    command : int
        Command rating (0-10): an action test passes on a D6 roll <= it after modifiers.
    units : int
        Units in the formation (1-50); a broken formation that rallies counts as having this
        much Shock before halving it.
    suppressed : int
        Units suppressed (0..units): any suppressed unit gives -1 on action tests (reading
        ``Rules.action_penalty``). Stays for the whole game.
    shock : int
        Shock points at the start of the game.
    broken : bool
        Broken at the start of the game (also when ``shock >= break_at``).
    break_at : int or None
        Shock at which the formation breaks; default ``units``.
    enemy_within_8 : bool
        Enemy units within 8 tiles during the end phase: -1 on rally tests.
    outside_shock : OutsideShock
        Shock gained every turn besides failed tests.
    name : str
        Plain-words name for tables (default: the key with spaces).
    points : float or None
        Points cost (unit libraries); shown, not used by the rules.
    """

    key: str
    command: int = 4
    units: int = 4
    suppressed: int = 0
    shock: int = 0
    broken: bool = False
    break_at: int | None = None
    enemy_within_8: bool = False
    outside_shock: OutsideShock = field(default_factory=OutsideShock)
    name: str = ""
    points: float | None = None

    def __post_init__(self) -> None:
        _check_key(self.key, "formation")
        if not 0 <= self.command <= 10:
            raise ValueError(f"formation {self.key}: command must be 0-10, got {self.command}")
        if not 1 <= self.units <= 50:
            raise ValueError(f"formation {self.key}: units must be 1-50, got {self.units}")
        if not 0 <= self.suppressed <= self.units:
            raise ValueError(f"formation {self.key}: suppressed must be 0..units")
        if not 0 <= self.shock <= 100:
            raise ValueError(f"formation {self.key}: shock must be 0-100")
        if self.break_at is not None and not 1 <= self.break_at <= 100:
            raise ValueError(f"formation {self.key}: break_at must be 1-100")
        if not self.name:
            object.__setattr__(self, "name", self.key.replace("_", " "))

    @property
    def threshold(self) -> int:
        """Shock at which the formation breaks."""
        return self.units if self.break_at is None else self.break_at

    @property
    def starts_broken(self) -> bool:
        return self.broken or self.shock >= self.threshold

    def can_break(self, turns: int) -> bool:
        """Whether the formation can be broken at some point of a ``turns``-turn game (at most
        one failed test and its outside Shock per turn)."""
        top = self.shock + turns * (1 + self.outside_shock.max)
        return self.starts_broken or top >= self.threshold


@dataclass(frozen=True)
class Army:
    """One army: its formations, strategy rating and policies.

    Parameters
    ----------
    key : str
        Short identifier used in statistic names.
    formations : tuple of Formation
    strategy : int
        Strategy rating (0-10), added to the D6 of the strategy roll.
    retain : {"never", "if-chance", "always"}
        When to try to retain the initiative after a passed test: never; when the next
        formation's test (with the -1) passes with probability >= ``retain_chance``; always.
    retain_chance : float
        Threshold for ``"if-chance"`` (0-1).
    order : {"listed", "best-first", "worst-first"}
        Which unactivated formation acts next: the first listed, the one most likely to
        pass (ties: listed order) or the least likely.
    choose : {"first", "second"}
        What the army picks when it wins the strategy roll.
    name : str
        Plain-words name (default: the key).
    """

    key: str
    formations: tuple[Formation, ...]
    strategy: int = 3
    retain: str = "never"
    retain_chance: float = 0.5
    order: str = "listed"
    choose: str = "first"
    name: str = ""

    def __post_init__(self) -> None:
        _check_key(self.key, "army")
        object.__setattr__(self, "formations", tuple(self.formations))
        if not 1 <= len(self.formations) <= 20:
            raise ValueError(f"army {self.key}: needs 1 to 20 formations")
        keys = [f.key for f in self.formations]
        if len(set(keys)) != len(keys):
            raise ValueError(f"army {self.key}: formation keys must be unique")
        if not 0 <= self.strategy <= 10:
            raise ValueError(f"army {self.key}: strategy must be 0-10")
        for value, options, what in (
            (self.retain, RETAIN_POLICIES, "retain"),
            (self.order, ORDER_POLICIES, "order"),
            (self.choose, CHOICES, "choose"),
        ):
            if value not in options:
                raise ValueError(f"army {self.key}: {what} must be one of {', '.join(options)}")
        if not 0.0 <= self.retain_chance <= 1.0:
            raise ValueError(f"army {self.key}: retain_chance must be 0-1")
        if not self.name:
            object.__setattr__(self, "name", self.key.replace("_", " "))

    @property
    def can_retain(self) -> bool:
        """Whether the policy can ever try to retain (needs two formations)."""
        return self.retain != "never" and len(self.formations) > 1

    def retain_min_faces(self) -> int:
        """Passing faces (of 6) the next test needs for ``"if-chance"`` to retain."""
        return math.ceil(self.retain_chance * 6 - 1e-9)


@dataclass(frozen=True)
class Rules:
    """Readings of the rule text that it leaves open (see docs/formation-actions.md).

    Parameters
    ----------
    action_penalty : {"suppressed", "shock", "either", "both"}
        The action test's -1: for a suppressed unit (the text's sentence, default), for any
        Shock points (its table), a single -1 for either, or -1 for each.
    natural_one_passes, natural_six_fails : bool
        A natural 1 always passes / a natural 6 always fails (default off: the text says only
        "roll under or equal to its command rating").
    rally_action_penalty : bool
        The rally test also takes the action test's -1 (default off: the rally section gives
        its own modifiers, and "an action test" names the roll, D6 <= command rating).
    retain_limit : {"in-a-row", "once-per-turn"}
        "The initiative cannot be retained twice": not twice in a row (default), or at most
        once per army per turn.
    withdrawal : {"stays-broken", "removed"}
        A broken formation failing its rally test withdraws and stays broken, rallying again
        next end phase (default), or leaves play.
    break_check : {"immediate", "end-phase"}
        Breaking is checked whenever Shock rises (default) or only at the start of the end
        phase.
    outside_timing : {"before-rally", "start-of-turn"}
        Outside Shock lands after the action phase, before rallying (default), or at the
        start of the turn, before the strategy roll (so it can break a formation before it
        acts).
    first_turn_tie : str
        Who takes a tied strategy roll on turn 1, when there is no "last round": ``"reroll"``
        (default) or an army key.
    broken_shock : {"cap", "accumulate"}
        The Shock of a broken formation is at most its number of units (default: "it counts
        as having as many Shock points as units" when it rallies), or keeps everything it
        gains while broken.
    """

    action_penalty: str = "suppressed"
    natural_one_passes: bool = False
    natural_six_fails: bool = False
    rally_action_penalty: bool = False
    retain_limit: str = "in-a-row"
    withdrawal: str = "stays-broken"
    break_check: str = "immediate"
    outside_timing: str = "before-rally"
    first_turn_tie: str = "reroll"
    broken_shock: str = "cap"

    def __post_init__(self) -> None:
        for value, options, what in (
            (self.action_penalty, PENALTY_READINGS, "action_penalty"),
            (self.retain_limit, RETAIN_LIMITS, "retain_limit"),
            (self.withdrawal, WITHDRAWALS, "withdrawal"),
            (self.break_check, BREAK_CHECKS, "break_check"),
            (self.outside_timing, OUTSIDE_TIMINGS, "outside_timing"),
            (self.broken_shock, BROKEN_SHOCKS, "broken_shock"),
        ):
            if value not in options:
                raise ValueError(f"rules.{what} must be one of {', '.join(options)}")

    def penalty(self, suppressed: bool, shock: int) -> int:
        """The action test's modifier size (0, 1 or 2) for a formation's state."""
        sup = 1 if suppressed else 0
        sh = 1 if shock > 0 else 0
        if self.action_penalty == "suppressed":
            return sup
        if self.action_penalty == "shock":
            return sh
        if self.action_penalty == "either":
            return max(sup, sh)
        return sup + sh

    def faces(self, target: int) -> int:
        """Passing faces of a D6 against a modified command rating ``target``."""
        return pass_faces(target, self.natural_one_passes, self.natural_six_fails)
