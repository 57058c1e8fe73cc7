"""The generic pipeline's target unit and the attacker's situation (see ``model``)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "Target",
    "ModelGroup",
    "Situation",
    "SAVE_REROLL_MODES",
    "ONE_OFF_ATTACKER",
    "ONE_OFF_DEFENDER",
]

#: saving-throw re-roll modes (the target's ``reroll_saves`` / ``reroll_invulnerable``)
SAVE_REROLL_MODES = ("none", "ones", "failed")
#: one-off re-rolls: the attacker's (``Situation.reroll_one``) and the defender's
ONE_OFF_ATTACKER = ("none", "hit", "wound", "damage")
ONE_OFF_DEFENDER = ("none", "save")


@dataclass(frozen=True)
class ModelGroup:
    """One group of identical models in a mixed target unit (``[[target.models]]``).

    Parameters
    ----------
    name : str
        Names the statistic ``target_<name>_models_lost``.
    models : int
        Models in the group (>= 1).
    wounds, save, invulnerable, feel_no_pain : as :class:`Target`
        Per model of this group.
    toughness : int or None
        This group's toughness; None: the unit's. The unit's toughness for wound rolls is the
        highest of its living non-character (bodyguard) models while any lives, else of its
        characters.
    keywords : tuple of str
        This group's keywords (anti-X looks at the keywords of the whole unit).
    character : bool
        A character (an attached leader): not allocated attacks while bodyguard models remain,
        unless the attack has Precision.
    damaged : int
        Wounds already lost by one model of this group (0 to ``wounds - 1``): attacks are
        allocated to it first, as to any model that has lost wounds.
    """

    name: str = "models"
    models: int = 1
    wounds: int = 1
    save: int = 7
    invulnerable: int | None = None
    feel_no_pain: int | None = None
    toughness: int | None = None
    keywords: tuple[str, ...] = ()
    character: bool = False
    damaged: int = 0

    def __post_init__(self) -> None:
        kws = (self.keywords,) if isinstance(self.keywords, str) else self.keywords
        object.__setattr__(self, "keywords", tuple(str(k).lower() for k in kws))
        _check_range(self, "models", 1, 1000)
        _check_range(self, "wounds", 1, 100)
        _check_range(self, "save", 2, 7)
        _check_range(self, "damaged", 0, self.wounds - 1)
        if self.toughness is not None:
            _check_range(self, "toughness", 1, 30)
        for name in ("invulnerable", "feel_no_pain"):
            if getattr(self, name) is not None:
                _check_range(self, name, 2, 6)


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
        Wounds already lost by the first model to be allocated damage (identical models only; a
        mixed unit says it per group: ``ModelGroup.damaged``).
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
    reroll_one : {"none", "save"}
        A one-off re-roll the defender spends on the first failed saving throw a re-roll could
        turn into a success.
    groups : tuple of ModelGroup
        A mixed unit (a sergeant, an attached leader...): its groups of models, in the order the
        defender removes them (``Rules.allocation``); ``models`` is then their total, and the
        unit-level ``wounds``/``save``/... are only the groups' defaults (as read from a file).
        Empty: ``models`` identical models.
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
    reroll_one: str = "none"
    groups: tuple[ModelGroup, ...] = ()

    def __post_init__(self) -> None:
        if self.groups:
            _check_groups(self)
        if self.reroll_one not in ONE_OFF_DEFENDER:
            raise ValueError(
                f"Target.reroll_one must be one of {ONE_OFF_DEFENDER}, got {self.reroll_one!r}"
            )
        kws = (self.keywords,) if isinstance(self.keywords, str) else self.keywords
        object.__setattr__(self, "keywords", tuple(str(k).lower() for k in kws))
        for name in ("reroll_saves", "reroll_invulnerable"):
            if getattr(self, name) not in SAVE_REROLL_MODES:
                raise ValueError(
                    f"Target.{name} must be one of {SAVE_REROLL_MODES}, got {getattr(self, name)!r}"
                )
        has_invulnerable = self.invulnerable is not None or any(
            g.invulnerable is not None for g in self.groups
        )
        if self.reroll_invulnerable != "none" and not has_invulnerable:
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


def _check_groups(t: Target) -> None:
    groups = (t.groups,) if isinstance(t.groups, ModelGroup) else tuple(t.groups)
    if not all(isinstance(g, ModelGroup) for g in groups):
        raise ValueError(f"Target.groups must hold ModelGroup objects, got {t.groups!r}")
    names = [g.name for g in groups]
    if len(set(names)) != len(names):
        raise ValueError(f"Target.groups: each group needs its own name, got {names}")
    if t.damaged:
        raise ValueError(
            "Target.damaged is not read for a unit with groups of models: give the group whose "
            "model has lost wounds its own damaged (ModelGroup.damaged)"
        )
    object.__setattr__(t, "groups", groups)
    object.__setattr__(t, "models", sum(g.models for g in groups))


def group_view(t: Target, g: ModelGroup, toughness: int | None = None) -> Target:
    """A plain :class:`Target` with group ``g``'s models and the unit's other keys: what one
    attack allocated to a model of ``g`` meets (``toughness``: the unit's for the wound roll;
    keywords: the whole unit's)."""
    keywords = tuple(dict.fromkeys([*t.keywords, *(k for h in t.groups for k in h.keywords)]))
    return replace(
        t,
        groups=(),
        models=g.models,
        wounds=g.wounds,
        save=g.save,
        invulnerable=g.invulnerable,
        feel_no_pain=g.feel_no_pain,
        toughness=toughness if toughness is not None else (g.toughness or t.toughness),
        keywords=keywords,
        reroll_invulnerable=t.reroll_invulnerable if g.invulnerable is not None else "none",
    )


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
    attacker_models : int or None
        Models in the attacking unit (Hazardous losses stop there); None: the most models
        firing one profile.
    attacker_wounds : int
        Wounds per attacking model (``attacker_wounds_lost``).
    attacker_keywords : tuple of str
        The attacking unit's keywords: a Character, Monster or Vehicle suffers 3 mortal wounds
        for each Hazardous 1 instead of losing a model.
    reroll_one : {"none", "hit", "wound", "damage"}
        A one-off re-roll (a command re-roll) the attacker spends on the first failed hit /
        wound roll a re-roll could turn into a success, or the first damage roll below the
        average (see ``docs/generic.md``).
    """

    remained_stationary: bool = False
    charged: bool = False
    half_range: bool = False
    target_visible: bool = True
    reroll_one: str = "none"
    attacker_models: int | None = None
    attacker_wounds: int = 1
    attacker_keywords: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        kws = self.attacker_keywords
        kws = (kws,) if isinstance(kws, str) else kws
        object.__setattr__(self, "attacker_keywords", tuple(str(k).lower() for k in kws))
        if self.attacker_models is not None:
            _check_range(self, "attacker_models", 1, 1000)
        _check_range(self, "attacker_wounds", 1, 100)
        if self.reroll_one not in ONE_OFF_ATTACKER:
            raise ValueError(
                f"attacker.reroll_one must be one of {ONE_OFF_ATTACKER}, got {self.reroll_one!r}"
            )


def _check_range(obj: Any, name: str, lo: int, hi: int) -> None:
    value = getattr(obj, name)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(
            f"{type(obj).__name__}.{name} must be an integer from {lo} to {hi}, got {value!r}"
        )
