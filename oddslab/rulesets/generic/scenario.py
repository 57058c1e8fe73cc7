"""The generic scenario object: weapons firing in sequence at one target, with the protocol's
methods (compile, resolved, exact).

It sits above the modules that do the work (:mod:`.compile`, :mod:`.exact`, :mod:`.chain`,
:mod:`.resolved`), which see the class only in type hints and are imported when first
needed, so no module of the package imports one that imports it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab._dictform import DictForm
from oddslab.rulesets.generic.model import Rules, Situation, Weapon, save_success_table
from oddslab.rulesets.generic.target import Target

if TYPE_CHECKING:
    from oddslab.engine import Job
    from oddslab.outcome import Headline, Stat

__all__ = ["GenericScenario"]


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

    # a mixed unit (groups of models) has a compile step and a kernel of its own, so the
    # simple path compiles no more than it did before mixed units
    def stats(self) -> tuple[Stat, ...]:
        """The histogrammed statistics, in kernel order."""
        if self.mixed:
            from oddslab.rulesets.generic.compile_mixed import mixed_stats

            return mixed_stats(self)
        from oddslab.rulesets.generic.compile import stats

        return stats(self)

    def headlines(self) -> tuple[Headline, ...]:
        if self.mixed:
            from oddslab.rulesets.generic.compile_mixed import mixed_headlines

            return mixed_headlines(self)
        from oddslab.rulesets.generic.compile import headlines

        return headlines(self)

    def compile(self) -> Job:
        """The :class:`~oddslab.engine.Job` for this scenario."""
        if self.mixed:
            from oddslab.rulesets.generic.compile_mixed import compile_mixed

            return compile_mixed(self)
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

    def exact_joint(self, names: tuple[str, ...]) -> np.ndarray | None:
        """Exact joint table of ``names`` or None (see
        :func:`oddslab.rulesets.generic.exact.exact_joint`)."""
        from oddslab.rulesets.generic.exact import exact_joint

        return exact_joint(self, names)


def _check_partners(sc: GenericScenario) -> None:
    """Rule switches that need a partner elsewhere in the scenario, or they do nothing."""
    t, r = sc.target, sc.rules
    if not t.groups and r.allocation != "listed":
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


def write_dict(sc: GenericScenario) -> dict[str, Any]:
    """The scenario as the dict :func:`from_table` reads (every key written, ``None`` left
    out): the inverse of reading, for scenarios built in Python."""
    import dataclasses

    from oddslab.dice import DiceExpr

    def plain(v: Any) -> Any:
        if isinstance(v, DiceExpr):
            text = str(v)
            return int(text) if text.isdigit() else text
        if isinstance(v, tuple):
            return [plain(x) for x in v]
        return v

    def table(obj: Any) -> dict[str, Any]:
        out = {}
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            if v is None:
                continue
            out[f.name] = dict(v) if f.name == "anti" else plain(v)
        return out

    data: dict[str, Any] = {"ruleset": "generic", "name": sc.name}
    if sc.description:
        data["description"] = sc.description
    for key in ("trials", "seed"):
        if getattr(sc, key) is not None:
            data[key] = getattr(sc, key)
    sit = sc.situation
    attacker = {"weapons": [table(w) for w in sc.weapons]}
    for key in ("remained_stationary", "charged", "half_range", "reroll_one"):
        attacker[key] = getattr(sit, key)
    if sit.attacker_models is not None:
        attacker["models"] = sit.attacker_models
    attacker["wounds"] = sit.attacker_wounds
    attacker["keywords"] = list(sit.attacker_keywords)
    target = table(sc.target)
    groups = target.pop("groups", None)
    if groups:  # a mixed unit: `models` holds its groups
        target["models"] = [table(g) for g in sc.target.groups]
    target["target_visible"] = sit.target_visible
    data["attacker"] = attacker
    data["target"] = target
    data["rules"] = table(sc.rules)
    return data
