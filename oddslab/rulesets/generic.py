"""The generic d6 attack pipeline ("mathhammer"): hit, wound, save, damage, feel-no-pain.

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
from typing import Any

import numpy as np

from oddslab._kernels import generic as K
from oddslab._schema import ScenarioError, Table
from oddslab.dice import DiceExpr
from oddslab.engine import Job
from oddslab.outcome import Headline, Stat

__all__ = [
    "Weapon",
    "Target",
    "Rules",
    "GenericScenario",
    "wound_threshold",
    "from_table",
    "REROLL_MODES",
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


_STAT_TEXT = {
    "attacks": "attacks made",
    "hits": "successful hits (sustained hits included)",
    "wounds": "successful wounds (lethal and devastating included)",
    "unsaved": "wounds not saved (devastating wounds included)",
    "mortal_wounds": "mortal wound damage from devastating wounds, after feel-no-pain",
    "damage": "damage after feel-no-pain, before allocation (overkill included)",
    "models_slain": "models slain",
    "destroyed": "target unit destroyed",
}


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

    # -- arrays for the kernel ----------------------------------------------------------------
    def arrays(self) -> dict[str, Any]:
        """The kernel's inputs: ``wint`` int64[W, 13], ``faces`` int64[W, 5, 7], ``fnp_fail``."""
        t, r = self.target, self.rules
        W = len(self.weapons)
        wint = np.zeros((W, K.W_NCOLS), dtype=np.int64)
        faces = np.zeros((W, K.F_NROWS, 7), dtype=np.int64)
        for i, w in enumerate(self.weapons):
            wint[i, K.W_MODELS] = w.models
            wint[i, K.W_ATT_N : K.W_ATT_ADD + 1] = w.attacks.as_array()
            wint[i, K.W_SUS_N : K.W_SUS_ADD + 1] = w.sustained_hits.as_array()
            wint[i, K.W_LETHAL] = w.lethal_hits
            wint[i, K.W_DEV] = w.devastating_wounds
            wint[i, K.W_DMG_N : K.W_DMG_ADD + 1] = w.damage.as_array()
            wint[i, K.W_TORRENT] = w.torrent
            faces[i, K.F_HIT_CODE] = _codes(w.skill, w.critical_hit, w.hit_modifier, r)
            faces[i, K.F_HIT_REROLL] = _rerolls(w.reroll_hits, faces[i, K.F_HIT_CODE])
            need = w.wound if w.wound is not None else wound_threshold(w.strength, t.toughness)
            faces[i, K.F_WOUND_CODE] = _codes(need, w.critical_wound, w.wound_modifier, r)
            faces[i, K.F_WOUND_REROLL] = _rerolls(w.reroll_wounds, faces[i, K.F_WOUND_CODE])
            faces[i, K.F_SAVE_FAIL] = 1 - _save_table(self.save_needed(w), r)
        fnp_fail = np.zeros(7, dtype=np.int64)
        if t.feel_no_pain is not None:
            fnp_fail[1 : t.feel_no_pain] = 1
        return {"wint": wint, "faces": faces, "fnp_fail": fnp_fail}

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

    def stats(self) -> tuple[Stat, ...]:
        att_max = sum(w.models * w.attacks.max for w in self.weapons)
        hit_max = sum(w.models * w.attacks.max * (1 + w.sustained_hits.max) for w in self.weapons)
        dmg_max = sum(
            w.models * w.attacks.max * (1 + w.sustained_hits.max) * w.damage.max
            for w in self.weapons
        )
        bounds = {
            "attacks": att_max,
            "hits": hit_max,
            "wounds": hit_max,
            "unsaved": hit_max,
            "mortal_wounds": dmg_max,
            "damage": dmg_max,
            "models_slain": self.target.models,
            "destroyed": 1,
        }
        return tuple(
            Stat(k, v + 1, _STAT_TEXT[k], flag=(k == "destroyed")) for k, v in bounds.items()
        )

    def headlines(self) -> tuple[Headline, ...]:
        t = self.target
        heads = [Headline("P(at least 1 model slain)", "models_slain", 1)]
        if t.models > 1:
            half = (t.models + 1) // 2
            heads.append(Headline(f"P(at least half slain, >= {half})", "models_slain", half))
        heads.append(Headline("P(unit destroyed)", "destroyed", 1))
        return tuple(heads)

    def compile(self) -> Job:
        a = self.arrays()
        t = self.target
        params = (
            a["wint"],
            a["faces"],
            a["fnp_fail"],
            t.feel_no_pain is not None,
            t.models,
            t.wounds,
            t.damaged,
            self.rules.spill == "spill",
        )
        return Job(
            self.name,
            K.run_generic,
            params,
            self.stats(),
            self.headlines(),
            exact=self.exact_pmfs,
            meta={"ruleset": "generic", "description": self.description},
        )

    # -- exact --------------------------------------------------------------------------------
    def exact_pmfs(self) -> dict[str, np.ndarray]:
        """Exact PMFs of the static statistics (all but models_slain and destroyed).

        Every attack is independent of the others, so each statistic is a compound sum: the
        number of attacks, and per attack a mixture over miss / hit / critical hit of sums
        over the hits it makes. Allocation (and so models_slain) depends on the order damage
        arrives in, which is left to the simulation.
        """
        from oddslab.exact import compound, convolve_n

        a = self.arrays()
        fnp_q = float(a["fnp_fail"][1:].mean()) if self.target.feel_no_pain is not None else 1.0
        totals: dict[str, np.ndarray] = {}
        for i, w in enumerate(self.weapons):
            faces = a["faces"][i]
            if w.torrent:
                ph = np.array([0.0, 1.0, 0.0])
            else:
                ph = _code_probs(faces[K.F_HIT_CODE], faces[K.F_HIT_REROLL])
            pw = _code_probs(faces[K.F_WOUND_CODE], faces[K.F_WOUND_REROLL])
            pf = float(faces[K.F_SAVE_FAIL][1:].mean())
            dmg = _thin(w.damage.pmf(), fnp_q)
            sus = w.sustained_hits.pmf()
            p_dev = pw[2] if w.devastating_wounds else 0.0
            p_wound = pw[1] + pw[2] - p_dev
            p_unsaved_dmg = p_wound * pf + p_dev
            delta0, delta1 = np.array([1.0]), np.array([0.0, 1.0])
            # per hit that rolls to wound (H) and per automatic wound from lethal hits (L)
            per_h = {
                "wounds": np.array([1 - pw[1] - pw[2], pw[1] + pw[2]]),
                "unsaved": np.array([1 - p_unsaved_dmg, p_unsaved_dmg]),
                "mortal_wounds": _mix([(1 - p_dev, delta0), (p_dev, dmg)]),
                "damage": _mix([(1 - p_unsaved_dmg, delta0), (p_unsaved_dmg, dmg)]),
            }
            per_l = {
                "wounds": delta1,
                "unsaved": np.array([1 - pf, pf]),
                "mortal_wounds": delta0,
                "damage": _mix([(1 - pf, delta0), (pf, dmg)]),
            }
            crit_hits = np.convolve(delta1, sus)  # a critical hit plus its sustained hits
            per_attack = {
                "attacks": delta1,
                "hits": _mix([(ph[0], delta0), (ph[1], delta1), (ph[2], crit_hits)]),
            }
            for stat, h in per_h.items():
                if w.lethal_hits:
                    crit = np.convolve(per_l[stat], compound(sus, h))
                else:
                    crit = compound(crit_hits, h)
                per_attack[stat] = _mix([(ph[0], delta0), (ph[1], h), (ph[2], crit)])
            n_attacks = convolve_n(w.attacks.pmf(), w.models)
            for stat, per in per_attack.items():
                pmf = compound(n_attacks, per)
                totals[stat] = pmf if stat not in totals else np.convolve(totals[stat], pmf)
        return totals


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


def _code_probs(codes: np.ndarray, rerolls: np.ndarray) -> np.ndarray:
    """P(final code = 0, 1, 2) for one d6 roll with at most one re-roll; shape (3,)."""
    first = np.zeros(3)
    again = 0.0
    for d in range(1, 7):
        if rerolls[d]:
            again += 1 / 6
        else:
            first[codes[d]] += 1 / 6
    once = np.bincount(codes[1:], minlength=3)[:3] / 6
    return first + again * once


def _mix(parts: list[tuple[float, np.ndarray]]) -> np.ndarray:
    """Mixture of PMFs with the given weights."""
    out = np.zeros(max(len(p) for _, p in parts))
    for weight, pmf in parts:
        out[: len(pmf)] += weight * pmf
    return out


def _thin(pmf: np.ndarray, q: float) -> np.ndarray:
    """Each of a random number of points survives with probability ``q``."""
    if q >= 1.0:
        return pmf
    from oddslab.exact import binomial_thin

    return binomial_thin(pmf, q)


def _codes(need: int, crit: int, mod: int, r: Rules) -> np.ndarray:
    """Per natural roll 1..6: 0 fail, 1 success, 2 critical (index 0 unused)."""
    out = np.zeros(7, dtype=np.int64)
    for d in range(1, 7):
        if d >= crit:  # a critical succeeds whatever the modifiers, unless switched off
            out[d] = 2 if (r.natural_six_succeeds or d + mod >= need) else 0
        elif d == 1 and r.natural_one_fails:
            out[d] = 0
        elif d == 6 and r.natural_six_succeeds:
            out[d] = 1
        else:
            out[d] = 1 if d + mod >= need else 0
    return out


def _rerolls(mode: str | tuple[int, ...], codes: np.ndarray) -> np.ndarray:
    out = np.zeros(7, dtype=np.int64)
    for d in range(1, 7):
        if isinstance(mode, tuple):
            out[d] = d in mode
        elif mode == "ones":
            out[d] = d == 1 and codes[d] == 0
        elif mode == "failed":
            out[d] = codes[d] == 0
        elif mode in ("non-critical", "all"):
            out[d] = codes[d] != 2
    return out


def _save_table(need: int, r: Rules) -> np.ndarray:
    """Per natural roll: 1 if the save succeeds."""
    out = np.zeros(7, dtype=np.int64)
    for d in range(1, 7):
        out[d] = need <= 6 and d >= need and not (d == 1 and r.natural_one_fails)
    return out


# -- scenario files ------------------------------------------------------------------------------


def _reroll(tbl: Table, key: str) -> str | tuple[int, ...]:
    raw = tbl.raw(key, "none")
    if isinstance(raw, list):
        return tuple(tbl.int_list(key, min=1, max=6))
    return tbl.str(key, "none", choices=REROLL_MODES)


def _read_weapon(tbl: Table, index: int) -> Weapon:
    w = Weapon(
        name=tbl.str("name", f"weapon {index + 1}"),
        models=tbl.int("models", 1, min=1, max=1000),
        attacks=tbl.dice("attacks"),
        skill=tbl.int("skill", 4, min=2, max=6, what="a hit roll from 2 (2+) to 6 (6+)"),
        hit_modifier=tbl.int("hit_modifier", 0, min=-6, max=6),
        reroll_hits=_reroll(tbl, "reroll_hits"),
        critical_hit=tbl.int("critical_hit", 6, min=2, max=6),
        sustained_hits=tbl.dice("sustained_hits", 0),
        lethal_hits=tbl.bool("lethal_hits", False),
        torrent=tbl.bool("torrent", False),
        strength=tbl.int("strength", 4, min=1, max=30),
        wound=tbl.int(
            "wound", None, min=2, max=7, what="a wound roll from 2 (2+) to 7 (criticals only)"
        ),
        wound_modifier=tbl.int("wound_modifier", 0, min=-6, max=6),
        reroll_wounds=_reroll(tbl, "reroll_wounds"),
        critical_wound=tbl.int("critical_wound", 6, min=2, max=6),
        devastating_wounds=tbl.bool("devastating_wounds", False),
        ap=tbl.int("ap", 0, min=0, max=6, what="AP as a positive number (AP -2 is 2) from 0 to 6"),
        damage=tbl.dice("damage", 1),
    )
    tbl.finish()
    return w


def _read_target(tbl: Table) -> Target:
    kw = {
        "name": tbl.str("name", "target"),
        "models": tbl.int("models", min=1, max=1000),
        "wounds": tbl.int("wounds", 1, min=1, max=100),
        "toughness": tbl.int("toughness", 4, min=1, max=30),
        "save": tbl.int("save", 7, min=2, max=7, what="a save from 2 (2+) to 7 (no save)"),
        "invulnerable": tbl.int("invulnerable", None, min=2, max=6),
        "feel_no_pain": tbl.int("feel_no_pain", None, min=2, max=6),
        "damaged": tbl.int("damaged", 0, min=0, max=99),
        "cover": tbl.bool("cover", False),
    }
    if kw["damaged"] >= kw["wounds"]:
        raise tbl.error(
            "damaged", f"must be less than wounds ({kw['wounds']}), got {kw['damaged']}"
        )
    tbl.finish()
    return Target(**kw)


def _read_rules(tbl: Table) -> Rules:
    r = Rules(
        spill=tbl.str("spill", "none", choices=SPILL_MODES),
        natural_one_fails=tbl.bool("natural_one_fails", True),
        natural_six_succeeds=tbl.bool("natural_six_succeeds", True),
        cover_limit=tbl.bool("cover_limit", True),
    )
    tbl.finish()
    return r


def from_table(root: Table) -> GenericScenario:
    """Build a :class:`GenericScenario` from a scenario file's root table."""
    from oddslab.scenario import read_run_options

    run = read_run_options(root, "generic attack")
    attacker = root.table("attacker")
    attacker.str("name", "attacker")
    weapons = tuple(_read_weapon(t, i) for i, t in enumerate(attacker.tables("weapons", min_len=1)))
    attacker.finish()
    target = _read_target(root.table("target"))
    rules = _read_rules(root.table("rules", {}))
    root.finish()
    try:
        return GenericScenario(weapons, target, rules, **run)
    except ValueError as exc:  # pragma: no cover - guarded by the readers above
        raise ScenarioError(root.source, "", str(exc)) from None
