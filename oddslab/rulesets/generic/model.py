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
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab._dictform import DictForm
from oddslab.dice import DiceExpr
from oddslab.rulesets.generic.target import (
    SAVE_REROLL_MODES,
    ModelGroup,
    Situation,
    Target,
    _check_range,
)

if TYPE_CHECKING:
    from oddslab.engine import Job
    from oddslab.outcome import Headline, Stat

__all__ = [
    "Weapon",
    "Target",
    "Rules",
    "Situation",
    "GenericScenario",
    "wound_threshold",
    "REROLL_MODES",
    "SPILL_MODES",
    "SAVE_REROLL_MODES",
    "DAMAGE_REROLL_MODES",
    "DEVASTATING_RULES",
    "ALLOCATION_POLICIES",
    "ModelGroup",
    "save_success_table",
]

#: re-roll modes; a list of natural rolls (e.g. ``[1, 2]``) is accepted too
REROLL_MODES = ("none", "ones", "failed", "non-critical", "all")
SPILL_MODES = ("none", "spill")
#: damage re-roll modes: a damage roll of 1, or any roll below the expression's average
DAMAGE_REROLL_MODES = ("none", "ones", "below-average")
#: devastating-wounds rule versions (see ``Rules.devastating_wounds``)
DEVASTATING_RULES = ("current", "legacy")
#: who the defender allocates to in a mixed unit (see ``Rules.allocation``)
ALLOCATION_POLICIES = ("listed", "fewest-wounds")


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
        Models firing this profile (0 allowed, e.g. in a sweep); each rolls its own ``attacks``.
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
    reroll_damage : {"none", "ones", "below-average"}
        Re-roll a damage roll once: ``"ones"`` when a die shows 1 (D3, D6, D6+2: the die; 2D6:
        the whole roll when either die shows 1), ``"below-average"`` when the value is below the
        expression's mean (D6: 1-3; D3: 1; 2D6: 2-6).
    critical_extra_attacks : DiceExpr, int or str
        Extra hit rolls made for each critical hit (rolled per critical hit); they can be
        critical hits themselves (sustained, lethal...) but grant no further extra rolls.
    critical_hit_mortals : DiceExpr, int or str
        Mortal wounds inflicted by each critical hit (0 = none), in addition to the normal
        sequence, or instead of its wound roll with ``critical_hit_mortals_instead``.
    critical_hit_mortals_instead : bool
    critical_wound_mortals : DiceExpr, int or str
        Mortal wounds inflicted by each critical wound, in addition to its save and damage,
        or instead of them with ``critical_wound_mortals_instead``.
    critical_wound_mortals_instead : bool
    critical_wound_ap : int
        Extra AP of an attack that scores a critical wound (``1``: AP -1 more).
    critical_wound_damage : int
        Extra damage of an attack that scores a critical wound (added after halving, before
        damage reduction).
    anti : dict[str, int] or tuple of (keyword, X)
        Anti-X: against a target with the keyword, unmodified wound rolls of X+ are critical
        wounds (the lowest applicable X, and never higher than ``critical_wound``).
    keywords : str or sequence of str
        Keywords as a datasheet prints them, ``"Sustained Hits 1, Lethal Hits, Anti-Infantry
        4+"`` (case-insensitive, brackets optional); each sets its own key below (see
        :mod:`oddslab.rulesets.generic.keywords`). Kept as the printed names.
    ignore_keywords : sequence of str
        Keywords to accept and ignore (they change nothing in this attack: Pistol, Assault...).
    range : int or None
        The weapon's range in inches (informational).
    half_range : bool or None
        The target is within half range (Melta, Rapid Fire); None: the attacker's ``half_range``.
    blast : bool
        +1 attack per model for every 5 models in the target unit when the weapon fires.
    melta : int
        +X damage per attack within half range.
    rapid_fire : int
        +X attacks per model within half range.
    heavy : bool
        +1 to hit if the attacker remained stationary.
    lance : bool
        +1 to wound if the attacker charged.
    indirect_fire : bool
        Against a target no firing model can see: -1 to hit, unmodified hit rolls of 1-3 fail,
        the target has cover.
    ignores_cover : bool
        The target gets no cover bonus against this weapon.
    twin_linked : bool
        Re-roll failed wound rolls (``reroll_wounds = "failed"`` unless that key says otherwise).
    extra_attacks : bool
        The weapon is used in addition to the model's other weapons (as every profile here is).
    hazardous : bool
        After the attack, one D6 per model firing it: each 1 costs the attacker a model.
    precision : bool
        Attacks may be allocated to an attached character (mixed target units).
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
    reroll_damage: str = "none"
    critical_extra_attacks: DiceExpr | int | str = 0
    critical_hit_mortals: DiceExpr | int | str = 0
    critical_hit_mortals_instead: bool = False
    critical_wound_mortals: DiceExpr | int | str = 0
    critical_wound_mortals_instead: bool = False
    critical_wound_ap: int = 0
    critical_wound_damage: int = 0
    anti: Any = ()
    keywords: Any = ()
    ignore_keywords: tuple[str, ...] = ()
    range: int | None = None
    half_range: bool | None = None
    blast: bool = False
    melta: int = 0
    rapid_fire: int = 0
    heavy: bool = False
    lance: bool = False
    indirect_fire: bool = False
    ignores_cover: bool = False
    twin_linked: bool = False
    extra_attacks: bool = False
    hazardous: bool = False
    precision: bool = False

    def __post_init__(self) -> None:
        ignore = self.ignore_keywords
        ignore = (ignore,) if isinstance(ignore, str) else ignore
        object.__setattr__(self, "ignore_keywords", tuple(str(k) for k in ignore))
        if isinstance(self.keywords, list):  # as printed, one container: read or built alike
            object.__setattr__(self, "keywords", tuple(self.keywords))
        if self.keywords:
            from oddslab.rulesets.generic.keywords import apply_keywords

            apply_keywords(self, _expr)
        for name in (
            "attacks",
            "sustained_hits",
            "damage",
            "critical_extra_attacks",
            "critical_hit_mortals",
            "critical_wound_mortals",
        ):
            object.__setattr__(self, name, _expr(getattr(self, name)))
        anti = self.anti.items() if isinstance(self.anti, dict) else self.anti
        try:
            anti = tuple(sorted((str(k).lower(), int(x)) for k, x in anti))
        except (TypeError, ValueError):
            raise ValueError(
                f"Weapon.anti must map keywords to X (e.g. {{'infantry': 4}}), got {self.anti!r}"
            ) from None
        object.__setattr__(self, "anti", anti)
        for kw, x in anti:
            if not 2 <= x <= 6:
                raise ValueError(f"Weapon.anti[{kw!r}] must be 2 to 6 (anti-X 4+ is 4), got {x}")
        if self.reroll_damage not in DAMAGE_REROLL_MODES:
            raise ValueError(
                f"Weapon.reroll_damage must be one of {DAMAGE_REROLL_MODES}, "
                f"got {self.reroll_damage!r}"
            )
        if self.reroll_damage == "ones" and self.damage.n == 0:
            raise ValueError(
                "Weapon.reroll_damage = 'ones' needs damage rolled with dice (D3, D6, 2D6...), "
                f"got {self.damage}"
            )
        for mortals in ("critical_hit_mortals", "critical_wound_mortals"):
            if getattr(self, f"{mortals}_instead") and getattr(self, mortals).max == 0:
                raise ValueError(
                    f"Weapon.{mortals}_instead needs {mortals} (the mortal wounds that replace "
                    "the normal sequence); without it the switch would do nothing"
                )
        if self.devastating_wounds and self.critical_wound_mortals_instead:
            raise ValueError(
                "Weapon: devastating_wounds and critical_wound_mortals_instead both replace the "
                "critical wound's normal damage; choose one"
            )
        _check_range(self, "critical_wound_ap", 0, 6)
        _check_range(self, "critical_wound_damage", 0, 20)
        _check_range(self, "melta", 0, 20)
        _check_range(self, "rapid_fire", 0, 20)
        if self.range is not None:
            _check_range(self, "range", 0, 1000)
        for name in ("reroll_hits", "reroll_wounds"):
            v = getattr(self, name)
            if not isinstance(v, str):
                object.__setattr__(self, name, tuple(int(x) for x in v))
        _check_reroll(self.reroll_hits, "reroll_hits")
        _check_reroll(self.reroll_wounds, "reroll_wounds")
        _check_range(self, "models", 0, 1000)
        _check_range(self, "skill", 2, 6)
        _check_range(self, "critical_hit", 2, 6)
        _check_range(self, "critical_wound", 2, 6)
        _check_range(self, "strength", 1, 30)
        _check_range(self, "ap", 0, 6)
        if self.wound is not None:
            _check_range(self, "wound", 2, 7)


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
    devastating_wounds : {"current", "legacy"}
        ``"current"`` (default): a devastating critical wound's damage is inflicted as mortal
        wounds after all the unit's other attacks, one packet per attack that does **not**
        spill over. ``"legacy"``: after each weapon's other damage, spilling over.
    modifier_cap : bool
        Hit and wound roll modifiers are capped at -1 / +1 (net); switched off, the net
        modifier is used as given.
    stack_feel_no_pain : bool
        With both ``feel_no_pain`` and ``feel_no_pain_mortal``, a mortal wound point must pass
        both rolls (off, the default: only the better one is rolled, one per wound lost).
    damage_modifiers_on_devastating : bool
        Damage halving / reduction / re-rolls change the damage of a devastating wound too
        (its mortal wounds equal the attack's modified damage).
    allocation : {"listed", "fewest-wounds"}
        A mixed unit (``Target.groups``): which model the defender allocates an attack to when
        the rules leave the choice (no model has lost wounds): ``"listed"`` (default) removes
        the groups in the order listed, ``"fewest-wounds"`` the group with the fewest wounds
        per model first (ties: listed order).
    """

    spill: str = "none"
    natural_one_fails: bool = True
    natural_six_succeeds: bool = True
    cover_limit: bool = True
    devastating_wounds: str = "current"
    modifier_cap: bool = True
    stack_feel_no_pain: bool = False
    damage_modifiers_on_devastating: bool = True
    allocation: str = "listed"

    def __post_init__(self) -> None:
        if self.allocation not in ALLOCATION_POLICIES:
            raise ValueError(
                f"allocation must be one of {ALLOCATION_POLICIES}, got {self.allocation!r}"
            )
        if self.spill not in SPILL_MODES:
            raise ValueError(f"spill must be one of {SPILL_MODES}, got {self.spill!r}")
        if self.devastating_wounds not in DEVASTATING_RULES:
            raise ValueError(
                f"devastating_wounds must be one of {DEVASTATING_RULES}, "
                f"got {self.devastating_wounds!r}"
            )


@dataclass(frozen=True)
class GenericScenario(DictForm):
    """Weapons firing in sequence at one target, plus run defaults."""

    weapons: tuple[Weapon, ...]
    target: Target
    rules: Rules = field(default_factory=Rules)
    name: str = "generic attack"
    description: str = ""
    trials: int | None = None
    seed: int | None = None
    situation: Situation = field(default_factory=Situation)

    @cached_property
    def fired(self) -> tuple[Weapon, ...]:
        """The weapons as they fire in :attr:`situation` (situational keywords applied; see
        :func:`oddslab.rulesets.generic.keywords.fired`): what the compile step, the kernel
        and the exact engine use."""
        from oddslab.rulesets.generic.keywords import fired

        return tuple(fired(w, self.situation) for w in self.weapons)

    def has_cover(self, weapon: Weapon) -> bool:
        """The target's cover against ``weapon`` (Indirect Fire unseen gives it, Ignores Cover
        takes it away)."""
        if weapon.ignores_cover:
            return False
        return self.target.cover or (weapon.indirect_fire and not self.situation.target_visible)

    def write_dict(self) -> dict[str, Any]:
        """Every key of this scenario as a dict (built from its fields, not a kept source)."""
        from oddslab.rulesets.generic.reading import write_dict

        return write_dict(self)

    def __post_init__(self) -> None:
        if isinstance(self.weapons, Weapon):  # one weapon where a tuple is expected
            object.__setattr__(self, "weapons", (self.weapons,))
        try:
            object.__setattr__(self, "weapons", tuple(self.weapons))
        except TypeError:
            raise ValueError(
                f"weapons must be a Weapon or a sequence of Weapon, got {self.weapons!r}"
            ) from None
        for w in self.weapons:
            if not isinstance(w, Weapon):
                raise ValueError(f"weapons must hold Weapon objects, got {w!r}")
        if not isinstance(self.target, Target):
            raise ValueError(f"target must be a Target, got {self.target!r}")
        if not self.weapons:
            raise ValueError("a scenario needs at least one weapon")
        _check_partners(self)

    def effective_ap(self, weapon: Weapon, critical: bool = False) -> int:
        """AP that worsens the armour save (critical AP added, target's AP rules applied)."""
        t = self.target
        if t.ignore_ap:
            return 0
        ap = weapon.ap + (weapon.critical_wound_ap if critical else 0)
        return max(0, ap - t.ap_reduction)

    def save_plan(self, weapon: Weapon, critical: bool = False) -> tuple[str, int, str]:
        """The saving throw taken against ``weapon``: ``(kind, need, re-roll mode)``.

        ``kind`` is ``"armour"``, ``"invulnerable"`` or ``"none"``; a natural roll ``d``
        saves when ``d + target.save_modifier >= need`` (and a natural 1 fails with
        ``rules.natural_one_fails``). Of armour and invulnerable, the one more likely to
        save (re-rolls counted) is taken; armour on a tie.
        """
        t, r = self.target, self.rules
        options = []
        if t.save <= 6:
            ap = self.effective_ap(weapon, critical)
            armour = t.save + ap
            if self.has_cover(weapon) and not (r.cover_limit and t.save <= 3 and ap == 0):
                armour -= 1
            options.append(("armour", max(armour, 2), t.reroll_saves))
        if t.invulnerable is not None:
            modes = (t.reroll_saves, t.reroll_invulnerable)
            mode = max(modes, key=lambda m: ("none", "ones", "failed").index(m))
            options.append(("invulnerable", t.invulnerable, mode))
        best = ("none", 7, "none")
        best_p = 0.0
        for opt in options:
            p = float(save_success_table(opt[1], t.save_modifier, opt[2], r)[1:].mean())
            if p > best_p + 1e-12:
                best, best_p = opt, p
        return best

    def save_needed(self, weapon: Weapon, critical: bool = False) -> int:
        """Natural roll needed to save against ``weapon`` (2–7; 7 = no save possible)."""
        kind, need, _ = self.save_plan(weapon, critical)
        if kind == "none":
            return 7
        return min(max(need - self.target.save_modifier, 2), 7)

    @property
    def mixed(self) -> bool:
        """The target has groups of models (a mixed unit, an attached leader)."""
        return bool(self.target.groups)

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

    def resolved(self) -> dict[str, dict[str, Any]]:
        """The inputs as read, every default and derived roll shown (for people to check)."""
        from oddslab.rulesets.generic.resolved import resolved

        return resolved(self)

    def exact_pmfs(self) -> dict[str, np.ndarray]:
        """Exact PMFs (see :func:`oddslab.rulesets.generic.exact.exact_pmfs`)."""
        from oddslab.rulesets.generic.exact import exact_pmfs

        return exact_pmfs(self)


def _check_partners(sc: GenericScenario) -> None:
    """Rule switches that need a partner elsewhere in the scenario, or they do nothing."""
    t, r = sc.target, sc.rules
    if t.groups:
        if sc.situation.reroll_one != "none" or t.reroll_one != "none":
            raise ValueError(
                "attacker.reroll_one / target.reroll_one are not supported yet against a unit "
                "with groups of models (target.models)"
            )
    elif r.allocation != "listed":
        raise ValueError(
            "rules.allocation needs a unit with groups of models ([[target.models]]); "
            "without them the switch would do nothing"
        )
    fnp = t.feel_no_pain is not None or any(g.feel_no_pain is not None for g in t.groups)
    if r.stack_feel_no_pain and (not fnp or t.feel_no_pain_mortal is None):
        raise ValueError(
            "rules.stack_feel_no_pain needs both target.feel_no_pain and "
            "target.feel_no_pain_mortal (it says how the two combine)"
        )
    if not r.damage_modifiers_on_devastating and not any(w.devastating_wounds for w in sc.weapons):
        raise ValueError(
            "rules.damage_modifiers_on_devastating = false needs a weapon with "
            "devastating_wounds; without one the switch would do nothing"
        )


def _check_reroll(mode: str | tuple[int, ...], name: str) -> None:
    if isinstance(mode, str):
        if mode not in REROLL_MODES:
            raise ValueError(
                f"Weapon.{name} must be one of {REROLL_MODES} or natural rolls, got {mode!r}"
            )
    elif not all(1 <= d <= 6 for d in mode):
        raise ValueError(f"Weapon.{name}: natural rolls must be 1..6, got {mode}")


def save_success_table(need: int, modifier: int, reroll: str, rules: Rules) -> np.ndarray:
    """P(the save succeeds) per first natural roll 1..6, re-roll included; float[7]."""
    ok = np.zeros(7)
    for d in range(1, 7):
        ok[d] = float(d + modifier >= need and not (d == 1 and rules.natural_one_fails))
    once = ok[1:].mean()
    out = ok.copy()
    for d in range(1, 7):
        if (reroll == "failed" and not ok[d]) or (reroll == "ones" and d == 1 and not ok[d]):
            out[d] = once
    return out
