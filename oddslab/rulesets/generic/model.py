"""The generic pipeline's model: weapon profiles, the target, rule switches, the scenario.

Several weapon profiles fire in sequence at one target unit in one trial. Each profile:
attacks (fixed or a dice expression, per model) × models → hit rolls (skill, modifier,
re-rolls, critical hits with sustained hits and/or lethal hits) → wound rolls (fixed
threshold or Strength vs Toughness, re-rolls, critical wounds with devastating wounds) →
saving throws (armour with AP and cover, or invulnerable, whichever is better) → damage
(fixed or dice) → feel-no-pain per damage point → allocation model by model with the chosen
spill rule. See ``docs/generic.md`` for every rule and default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab.dice import DiceExpr

if TYPE_CHECKING:
    from oddslab.engine import Job
    from oddslab.outcome import Headline, Stat

__all__ = [
    "Weapon",
    "Target",
    "Rules",
    "GenericScenario",
    "wound_threshold",
    "REROLL_MODES",
    "SPILL_MODES",
]

#: re-roll modes; a list of natural rolls (e.g. ``[1, 2]``) is accepted too
REROLL_MODES = ("none", "ones", "failed", "non-critical", "all")
SPILL_MODES = ("none", "spill")


def _expr(value: DiceExpr | int | str) -> DiceExpr:
    return value if isinstance(value, DiceExpr) else DiceExpr.parse(value)


def wound_threshold(strength: int, toughness: int) -> int:
    """Wound roll needed for Strength vs Toughness (2+ … 6+).

    S ≥ 2T: 2+; S > T: 3+; S = T: 4+; S < T: 5+; 2S ≤ T: 6+.
    """
    if strength >= 2 * toughness:
        return 2
    if strength > toughness:
        return 3
    if strength == toughness:
        return 4
    if 2 * strength <= toughness:
        return 6
    return 5


@dataclass(frozen=True)
class Weapon:
    """One weapon profile fired by ``models`` models.

    Parameters
    ----------
    name : str
    models : int
        Models firing this profile; each rolls its own ``attacks``.
    attacks : DiceExpr, int or str
        Attacks per model: ``2``, ``"D6"``, ``"D3+1"``.
    skill : int
        Hit on ``skill``+ (2–6) after ``hit_modifier``. Ignored with ``torrent``.
    hit_modifier : int
        Added to the hit roll (net value; the unmodified roll decides criticals).
    reroll_hits : str or tuple of int
        ``"none"``, ``"ones"`` (re-roll a failed natural 1), ``"failed"``, ``"non-critical"``
        (re-roll every roll that is not a critical hit: fishing for criticals; ``"all"`` is a
        synonym), or the natural rolls to re-roll, e.g. ``(1, 2)``. A die is re-rolled at most
        once.
    critical_hit : int
        Unmodified hit rolls of this or more are critical hits (and always hit).
    sustained_hits : DiceExpr, int or str
        Extra hits scored by each critical hit (0 = none).
    lethal_hits : bool
        Critical hits wound automatically (as ordinary, not critical, wounds).
    torrent : bool
        Every attack hits automatically (no hit roll, so no critical hits).
    strength : int
        Used with the target's toughness unless ``wound`` is given.
    wound : int or None
        Fixed wound roll needed (2–6, or 7 = only criticals wound); overrides S vs T.
    wound_modifier : int
    reroll_wounds : str or tuple of int
        As ``reroll_hits`` (re-roll-all wounds = ``"failed"`` re-rolls, e.g. twin-linked).
    critical_wound : int
        Unmodified wound rolls of this or more are critical wounds (anti-X lowers it).
    devastating_wounds : bool
        A critical wound inflicts mortal wounds equal to the damage instead of a normal wound.
    ap : int
        Armour penetration as a positive number: AP -1 is ``ap = 1`` (worsens the armour save).
    damage : DiceExpr, int or str
        Damage of each unsaved wound.
    """

    name: str = "weapon"
    models: int = 1
    attacks: DiceExpr | int | str = 1
    skill: int = 4
    hit_modifier: int = 0
    reroll_hits: str | tuple[int, ...] = "none"
    critical_hit: int = 6
    sustained_hits: DiceExpr | int | str = 0
    lethal_hits: bool = False
    torrent: bool = False
    strength: int = 4
    wound: int | None = None
    wound_modifier: int = 0
    reroll_wounds: str | tuple[int, ...] = "none"
    critical_wound: int = 6
    devastating_wounds: bool = False
    ap: int = 0
    damage: DiceExpr | int | str = 1

    def __post_init__(self) -> None:
        for name in ("attacks", "sustained_hits", "damage"):
            object.__setattr__(self, name, _expr(getattr(self, name)))
        for name in ("reroll_hits", "reroll_wounds"):
            v = getattr(self, name)
            if not isinstance(v, str):
                object.__setattr__(self, name, tuple(int(x) for x in v))
        _check_reroll(self.reroll_hits, "reroll_hits")
        _check_reroll(self.reroll_wounds, "reroll_wounds")
        _check_range(self, "models", 1, 1000)
        _check_range(self, "skill", 2, 6)
        _check_range(self, "critical_hit", 2, 6)
        _check_range(self, "critical_wound", 2, 6)
        _check_range(self, "strength", 1, 30)
        _check_range(self, "ap", 0, 6)
        if self.wound is not None:
            _check_range(self, "wound", 2, 7)


@dataclass(frozen=True)
class Target:
    """The target unit.

    Parameters
    ----------
    name : str
    models : int
        Models in the unit (≥ 1).
    wounds : int
        Wounds per model.
    toughness : int
    save : int
        Armour save (2–6; 7 = none).
    invulnerable : int or None
        Invulnerable save (2–6), unaffected by AP and cover.
    feel_no_pain : int or None
        Each damage point is ignored on this or more (2–6).
    damaged : int
        Wounds already lost by the first model to be allocated damage.
    cover : bool
        Benefit of cover: +1 to armour saves (see ``Rules.cover_limit``).
    """

    name: str = "target"
    models: int = 1
    wounds: int = 1
    toughness: int = 4
    save: int = 7
    invulnerable: int | None = None
    feel_no_pain: int | None = None
    damaged: int = 0
    cover: bool = False

    def __post_init__(self) -> None:
        _check_range(self, "models", 1, 1000)
        _check_range(self, "wounds", 1, 100)
        _check_range(self, "toughness", 1, 30)
        _check_range(self, "save", 2, 7)
        _check_range(self, "damaged", 0, self.wounds - 1)
        for name in ("invulnerable", "feel_no_pain"):
            if getattr(self, name) is not None:
                _check_range(self, name, 2, 6)


@dataclass(frozen=True)
class Rules:
    """Rule switches (documented defaults follow the common d6 system).

    Parameters
    ----------
    spill : {"none", "spill"}
        ``"none"``: damage beyond what slays a model is lost; ``"spill"``: it carries over to
        the next model. Mortal wounds always spill.
    natural_one_fails : bool
        An unmodified 1 always fails hit, wound and saving rolls.
    natural_six_succeeds : bool
        A critical roll (an unmodified 6, or X+ with ``critical_hit``/``critical_wound``) always
        succeeds. Switched off, a critical roll that misses the modified threshold simply fails
        (and has no critical effect).
    cover_limit : bool
        Cover gives no bonus to a 3+ or better armour save against AP 0.
    """

    spill: str = "none"
    natural_one_fails: bool = True
    natural_six_succeeds: bool = True
    cover_limit: bool = True

    def __post_init__(self) -> None:
        if self.spill not in SPILL_MODES:
            raise ValueError(f"spill must be one of {SPILL_MODES}, got {self.spill!r}")


@dataclass(frozen=True)
class GenericScenario:
    """Weapons firing in sequence at one target, plus run defaults."""

    weapons: tuple[Weapon, ...]
    target: Target
    rules: Rules = field(default_factory=Rules)
    name: str = "generic attack"
    description: str = ""
    trials: int | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "weapons", tuple(self.weapons))
        if not self.weapons:
            raise ValueError("a scenario needs at least one weapon")

    def save_needed(self, weapon: Weapon) -> int:
        """Best save roll needed against ``weapon`` (7 = no save possible)."""
        t = self.target
        armour = t.save + weapon.ap
        if (
            t.cover
            and t.save <= 6
            and not (self.rules.cover_limit and t.save <= 3 and weapon.ap == 0)
        ):
            armour -= 1
        best = armour if t.invulnerable is None else min(armour, t.invulnerable)
        return min(max(best, 2), 7)

    # -- compiled forms (oddslab.rulesets.generic.compile / .exact) ---------------------------
    def arrays(self) -> dict[str, Any]:
        """The kernel's inputs (see :func:`oddslab.rulesets.generic.compile.arrays`)."""
        from oddslab.rulesets.generic.compile import arrays

        return arrays(self)

    def stats(self) -> tuple[Stat, ...]:
        """The histogrammed statistics, in kernel order."""
        from oddslab.rulesets.generic.compile import stats

        return stats(self)

    def headlines(self) -> tuple[Headline, ...]:
        from oddslab.rulesets.generic.compile import headlines

        return headlines(self)

    def compile(self) -> Job:
        """The :class:`~oddslab.engine.Job` for this scenario."""
        from oddslab.rulesets.generic.compile import compile_job

        return compile_job(self)

    def exact_pmfs(self) -> dict[str, np.ndarray]:
        """Exact PMFs (see :func:`oddslab.rulesets.generic.exact.exact_pmfs`)."""
        from oddslab.rulesets.generic.exact import exact_pmfs

        return exact_pmfs(self)


def _check_range(obj: Any, name: str, lo: int, hi: int) -> None:
    value = getattr(obj, name)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(
            f"{type(obj).__name__}.{name} must be an integer from {lo} to {hi}, got {value!r}"
        )


def _check_reroll(mode: str | tuple[int, ...], name: str) -> None:
    if isinstance(mode, str):
        if mode not in REROLL_MODES:
            raise ValueError(
                f"Weapon.{name} must be one of {REROLL_MODES} or natural rolls, got {mode!r}"
            )
    elif not all(1 <= d <= 6 for d in mode):
        raise ValueError(f"Weapon.{name}: natural rolls must be 1..6, got {mode}")
