"""The generic pipeline's target unit and the attacker's situation (see ``model``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Target", "Situation", "SAVE_REROLL_MODES"]

#: saving-throw re-roll modes (the target's ``reroll_saves`` / ``reroll_invulnerable``)
SAVE_REROLL_MODES = ("none", "ones", "failed")


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
    keywords : tuple of str
        Keywords for anti-X weapons (``("infantry",)``); compared case-insensitively.
    save_modifier : int
        Added to every saving throw, armour or invulnerable (+1 better, -1 worse; AP is apart).
    reroll_saves : {"none", "ones", "failed"}
        Re-roll saving throws (armour or invulnerable) of 1, or every failed one.
    reroll_invulnerable : {"none", "ones", "failed"}
        Re-rolls for invulnerable saves only (the better of this and ``reroll_saves``).
    ignore_ap : bool
        AP does not worsen this unit's armour save.
    ap_reduction : int
        Each attack's AP is worsened by this (AP -2 becomes AP -1 with 1), to at least 0.
    damage_reduction : int
        Subtract this from the damage of each attack, to a minimum of 1.
    halve_damage : bool
        Halve the damage of each attack, rounding up (applied before any subtraction).
    feel_no_pain_mortal : int or None
        A feel-no-pain (2-6) against mortal wounds only (see ``Rules.stack_feel_no_pain``).
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
    keywords: tuple[str, ...] = ()
    save_modifier: int = 0
    reroll_saves: str = "none"
    reroll_invulnerable: str = "none"
    ignore_ap: bool = False
    ap_reduction: int = 0
    damage_reduction: int = 0
    halve_damage: bool = False
    feel_no_pain_mortal: int | None = None

    def __post_init__(self) -> None:
        kws = (self.keywords,) if isinstance(self.keywords, str) else self.keywords
        object.__setattr__(self, "keywords", tuple(str(k).lower() for k in kws))
        for name in ("reroll_saves", "reroll_invulnerable"):
            if getattr(self, name) not in SAVE_REROLL_MODES:
                raise ValueError(
                    f"Target.{name} must be one of {SAVE_REROLL_MODES}, got {getattr(self, name)!r}"
                )
        if self.reroll_invulnerable != "none" and self.invulnerable is None:
            raise ValueError(
                "Target.reroll_invulnerable needs an invulnerable save (invulnerable = 2..6); "
                "without one the switch would do nothing"
            )
        _check_range(self, "save_modifier", -6, 6)
        _check_range(self, "ap_reduction", 0, 6)
        _check_range(self, "damage_reduction", 0, 20)
        if self.feel_no_pain_mortal is not None:
            _check_range(self, "feel_no_pain_mortal", 2, 6)
        _check_range(self, "models", 1, 1000)
        _check_range(self, "wounds", 1, 100)
        _check_range(self, "toughness", 1, 30)
        _check_range(self, "save", 2, 7)
        _check_range(self, "damaged", 0, self.wounds - 1)
        for name in ("invulnerable", "feel_no_pain"):
            if getattr(self, name) is not None:
                _check_range(self, name, 2, 6)


@dataclass(frozen=True)
class Situation:
    """What the attacker did and can see, for situational weapon keywords.

    Parameters
    ----------
    remained_stationary : bool
        The attacking unit remained stationary this turn (Heavy: +1 to hit).
    charged : bool
        The attacking unit charged this turn (Lance: +1 to wound).
    half_range : bool
        The target is within half range of every weapon (Melta, Rapid Fire); a weapon's own
        ``half_range`` overrides it.
    target_visible : bool
        Some firing model can see the target (Indirect Fire's penalties apply when not).
    """

    remained_stationary: bool = False
    charged: bool = False
    half_range: bool = False
    target_visible: bool = True


def _check_range(obj: Any, name: str, lo: int, hi: int) -> None:
    value = getattr(obj, name)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(
            f"{type(obj).__name__}.{name} must be an integer from {lo} to {hi}, got {value!r}"
        )
