"""Generic scenario → kernel arrays, statistics, headlines and the :class:`Job`.

Every rule that can be decided per die face is turned here into lookup tables indexed by the
natural roll 1..6 (index 0 unused): 0 fail, 1 success, 2 critical; the kernel only reads them.
Damage modifiers become maps from the rolled damage to the damage inflicted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab.engine import Job
from oddslab.outcome import Headline, Stat
from oddslab.rulesets.generic import layout as K
from oddslab.rulesets.generic.model import (
    Rules,
    Weapon,
    wound_threshold,
)

__all__ = [
    "Derived",
    "derive",
    "arrays",
    "stats",
    "headlines",
    "compile_job",
    "needs_extras",
    "STAT_NAMES",
]

#: every statistic the kernel can histogram, in kernel (``S_*``) order
STAT_NAMES = (
    "attacks",
    "hits",
    "wounds",
    "unsaved",
    "mortal_wounds",
    "damage",
    "models_slain",
    "destroyed",
    "damage_dealt",
    "wounds_remaining",
    "attacker_models_lost_to_hazards",
    "attacker_wounds_lost",
)

if TYPE_CHECKING:  # the scenario class imports this module
    from oddslab.rulesets.generic.scenario import GenericScenario
#: attacker keywords whose models take 3 mortal wounds for a Hazardous 1 instead of dying
HAZARD_MORTAL_KEYWORDS = ("character", "monster", "vehicle")

_STAT_TEXT = {
    "attacks": ("attacks made", "attacks made (extra attacks from critical hits included)"),
    "hits": ("hits scored", "successful hits (sustained hits included)"),
    "wounds": ("wounds scored", "successful wounds (lethal and devastating included)"),
    "unsaved": ("unsaved wounds", "wounds not saved (devastating wounds included)"),
    "mortal_wounds": (
        "mortal wounds inflicted",
        "mortal wound damage (mortal wounds on criticals; devastating wounds under the legacy "
        "rule only), after feel-no-pain",
    ),
    "damage": (
        "damage inflicted (overkill included)",
        "damage after feel-no-pain, before allocation (overkill included)",
    ),
    "models_slain": ("target models slain", "target models slain"),
    "destroyed": ("target unit destroyed", "target unit destroyed"),
    "damage_dealt": (
        "wounds lost by the target (overkill removed)",
        "damage actually dealt to the target: wounds it lost (overkill removed)",
    ),
    "wounds_remaining": (
        "wounds remaining on the target",
        "wounds the target unit has left (0 when destroyed)",
    ),
    "attacker_models_lost_to_hazards": (
        "attacker models lost to Hazardous",
        "attacking models destroyed by their Hazardous weapons",
    ),
    "attacker_wounds_lost": (
        "attacker wounds lost to Hazardous",
        "wounds the attacking unit lost to its Hazardous weapons",
    ),
}


def hazard(sc: GenericScenario) -> tuple[int, int, int, bool]:
    """Hazardous: (D6 rolled, attacking models, wounds per model, 3 mortal wounds per 1)."""
    s = sc.situation
    dice = sum(w.models for w in sc.fired if w.hazardous)
    models = s.attacker_models or max(w.models for w in sc.fired) or 1
    mortal = any(k in HAZARD_MORTAL_KEYWORDS for k in s.attacker_keywords)
    return dice, models, s.attacker_wounds, mortal


@dataclass(frozen=True)
class Derived:
    """Everything one weapon's rolls need against the scenario's target (for people too).

    Face tables are indexed by natural roll 1..6 (index 0 unused).
    """

    hit_mod: int  # after the modifier cap
    wound_need: int
    wound_mod: int
    crit_wound: int  # after anti-X
    hit_codes: np.ndarray
    hit_rerolls: np.ndarray
    wound_codes: np.ndarray
    wound_rerolls: np.ndarray
    save: tuple[str, int, str]  # (kind, need, re-roll mode)
    crit_save: tuple[str, int, str]
    save_fail: np.ndarray  # 1 if the natural roll fails
    save_rerolls: np.ndarray
    crit_save_fail: np.ndarray
    crit_save_rerolls: np.ndarray
    crit_split: bool  # critical wounds take their own path (devastating, critical AP/damage...)
    crit_save_own: bool  # ...and, unless devastating / mortal-instead, their own save
    dmg_reroll_below: int  # re-roll a damage roll below this (0 = never)


def _cap(mod: int, rules: Rules) -> int:
    return max(-1, min(1, mod)) if rules.modifier_cap else mod


def critical_wound_on(sc: GenericScenario, w: Weapon) -> int:
    """Critical wounds on this natural roll or more (anti-X against the target's keywords)."""
    crit = w.critical_wound
    for kw, x in w.anti:
        if kw in sc.target.keywords:
            crit = min(crit, x)
    return crit


def damage_reroll_below(w: Weapon) -> int:
    """A damage roll below this is re-rolled (0 = never)."""
    if w.reroll_damage == "ones":
        if w.damage.n > 1:
            return -1  # the whole roll when any of its dice shows 1 (see feed_groups)
        return w.damage.add + 2  # the single die showed 1
    if w.reroll_damage == "below-average":
        return math.ceil(w.damage.mean() - 1e-9)
    return 0


def derive(sc: GenericScenario, w: Weapon) -> Derived:
    t, r = sc.target, sc.rules
    hit_mod = _cap(w.hit_modifier, r)
    wound_mod = _cap(w.wound_modifier, r)
    hit_codes = _codes(w.skill, w.critical_hit, hit_mod, r)
    if w.indirect_fire and not sc.situation.target_visible:
        hit_codes[1:4] = 0  # Indirect Fire at an unseen target: an unmodified 1-3 always fails
    need = w.wound if w.wound is not None else wound_threshold(w.strength, t.toughness)
    crit_wound = critical_wound_on(sc, w)
    wound_codes = _codes(need, crit_wound, wound_mod, r)
    save = sc.save_plan(w)
    crit_save = sc.save_plan(w, critical=True)
    split = bool(
        w.devastating_wounds
        or w.critical_wound_ap
        or w.critical_wound_damage
        or w.critical_wound_mortals.max > 0
    )
    return Derived(
        hit_mod=hit_mod,
        wound_need=need,
        wound_mod=wound_mod,
        crit_wound=crit_wound,
        hit_codes=hit_codes,
        hit_rerolls=_rerolls(w.reroll_hits, hit_codes),
        wound_codes=wound_codes,
        wound_rerolls=_rerolls(w.reroll_wounds, wound_codes),
        save=save,
        crit_save=crit_save,
        save_fail=1 - _save_table(save, t.save_modifier, r),
        save_rerolls=_save_rerolls(save, t.save_modifier, r),
        crit_save_fail=1 - _save_table(crit_save, t.save_modifier, r),
        crit_save_rerolls=_save_rerolls(crit_save, t.save_modifier, r),
        crit_split=split,
        crit_save_own=split
        and not w.devastating_wounds
        and not (w.critical_wound_mortals_instead and w.critical_wound_mortals.max > 0),
        dmg_reroll_below=damage_reroll_below(w),
    )


def damage_maps(sc: GenericScenario, w: Weapon, size: int) -> np.ndarray:
    """``int64[D_NKINDS, size]``: rolled damage → damage inflicted, per kind of packet.

    Order (rules commentary: multiply/divide first, then add/subtract): halve (rounding up),
    add critical extra damage, subtract the target's damage reduction to a minimum of 1.
    """
    t = sc.target
    out = np.zeros((K.D_NKINDS, size), dtype=np.int64)
    v = np.arange(size, dtype=np.int64)
    halved = (v + 1) // 2 if t.halve_damage else v

    def reduce(x: np.ndarray) -> np.ndarray:
        if t.damage_reduction == 0:
            return x
        return np.where(x >= 1, np.maximum(1, x - t.damage_reduction), x)

    out[K.D_NORMAL] = reduce(halved)
    out[K.D_CRIT] = reduce(halved + w.critical_wound_damage)
    if sc.rules.damage_modifiers_on_devastating:
        out[K.D_DEV] = reduce(halved + w.critical_wound_damage)
    else:
        out[K.D_DEV] = v + w.critical_wound_damage
    out[K.D_IDENTITY] = v
    return out


def fnp_tables(sc: GenericScenario) -> tuple[np.ndarray, np.ndarray]:
    """d36 feel-no-pain tables ``int64[2, 72]`` (ordinary damage, mortal wounds) and flags.

    A table entry counts the damage points that get through; ``flags`` is ``int64[4]``:
    (use ordinary, pairs, use mortal, pairs) — see ``kernel._sum_rolls`` for pairs.
    """
    t, r = sc.target, sc.rules
    fnp = np.zeros((2, 72), dtype=np.int64)
    flags = np.zeros(4, dtype=np.int64)

    def through(thr: int | None, d: int) -> int:
        return int(thr is None or d < thr)

    def fill(row: int, thr: int | None) -> None:
        for a in range(6):
            for b in range(6):
                fnp[row, 6 * a + b] = through(thr, a + 1) + through(thr, b + 1)
                fnp[row, 36 + 6 * a + b] = through(thr, a + 1)

    if t.feel_no_pain is not None:
        fill(0, t.feel_no_pain)
        flags[0:2] = 1
    both = t.feel_no_pain is not None and t.feel_no_pain_mortal is not None
    if both and r.stack_feel_no_pain:  # one d36 per point: both dice must fail
        for a in range(6):
            for b in range(6):
                v = through(t.feel_no_pain, a + 1) * through(t.feel_no_pain_mortal, b + 1)
                fnp[1, 6 * a + b] = v
                fnp[1, 36 + 6 * a + b] = v
        flags[2:4] = (1, 0)
    elif t.feel_no_pain is not None or t.feel_no_pain_mortal is not None:
        best = min(x for x in (t.feel_no_pain, t.feel_no_pain_mortal) if x is not None)
        fill(1, best)
        flags[2:4] = 1
    return fnp, flags


def point_through(sc: GenericScenario, mortal: bool) -> float:
    """Probability that one damage point survives feel-no-pain."""
    fnp, flags = fnp_tables(sc)
    row, use = (1, flags[2]) if mortal else (0, flags[0])
    if not use:
        return 1.0
    return float(fnp[row, 36:].mean())  # the one-roll table: 1 where the point gets through


def reported(sc: GenericScenario) -> tuple[str, ...]:
    """The statistics this scenario can produce: ``mortal_wounds`` only with a source of mortal
    wounds (under the current rule a devastating wound's damage is not mortal wounds); ``models_slain`` only if the most damage possible can slay a model, ``destroyed``
    only if it can slay the whole unit."""
    t = sc.target
    mortal = any(
        (w.devastating_wounds and sc.rules.devastating_wounds == "legacy")
        or w.critical_hit_mortals.max > 0
        or w.critical_wound_mortals.max > 0
        for w in sc.fired
    )
    most = damage_bound(sc)
    drop = set() if mortal else {"mortal_wounds"}
    if not hazard(sc)[0]:
        drop |= {"attacker_models_lost_to_hazards", "attacker_wounds_lost"}
    if most < t.models * t.wounds - t.damaged:
        drop.add("destroyed")
    if most < t.wounds - t.damaged:
        drop.add("models_slain")
    return tuple(s for s in STAT_NAMES if s not in drop)


def damage_bound(sc: GenericScenario) -> int:
    """Most damage one trial can inflict (an upper bound: every roll at its best)."""
    return sum(weapon_damage_bound(sc, w) for w in sc.fired)


def weapon_damage_bound(sc: GenericScenario, w: Weapon) -> int:
    """Most damage one fired profile can inflict in a trial (an upper bound)."""
    size = _raw_damage_max(sc) + 1
    per_hit = int(damage_maps(sc, w, size)[: K.D_IDENTITY].max()) + w.critical_wound_mortals.max
    per_roll = (1 + w.sustained_hits.max) * per_hit + w.critical_hit_mortals.max
    return attacks_max(sc, w) * (1 + w.critical_extra_attacks.max) * per_roll


def blast_bonus(sc: GenericScenario, alive: int) -> int:
    """Blast: attacks added per firing model against a unit of ``alive`` models."""
    return alive // 5


def attacks_max(sc: GenericScenario, w: Weapon) -> int:
    """Most attacks the profile can make (Blast counted against the whole unit)."""
    per = w.attacks.max + (blast_bonus(sc, sc.target.models) if w.blast else 0)
    return w.models * per


def _raw_damage_max(sc: GenericScenario) -> int:
    return max(
        max(w.damage.max, w.critical_hit_mortals.max, w.critical_wound_mortals.max)
        for w in sc.fired
    )


def arrays(sc: GenericScenario) -> dict[str, Any]:
    """The kernel's inputs (shapes in ``kernel.run_generic``'s docstring)."""
    t, r = sc.target, sc.rules
    W = len(sc.fired)
    wint = np.zeros((W, K.W_NCOLS), dtype=np.int64)
    faces = np.zeros((W, K.F_NROWS, 7), dtype=np.int64)
    size = _raw_damage_max(sc) + 1
    dmgmap = np.zeros((W, K.D_NKINDS, size), dtype=np.int64)
    dev_mode = K.DEV_CURRENT if r.devastating_wounds == "current" else K.DEV_LEGACY
    for i, w in enumerate(sc.fired):
        d = derive(sc, w)
        wint[i, K.W_MODELS] = w.models
        wint[i, K.W_ATT_N : K.W_ATT_ADD + 1] = w.attacks.as_array()
        wint[i, K.W_SUS_N : K.W_SUS_ADD + 1] = w.sustained_hits.as_array()
        wint[i, K.W_LETHAL] = w.lethal_hits
        wint[i, K.W_DEV] = dev_mode if w.devastating_wounds else 0
        wint[i, K.W_DMG_N : K.W_DMG_ADD + 1] = w.damage.as_array()
        wint[i, K.W_TORRENT] = w.torrent
        wint[i, K.W_XATT_N : K.W_XATT_ADD + 1] = w.critical_extra_attacks.as_array()
        wint[i, K.W_HAS_XATT] = w.critical_extra_attacks.max > 0
        wint[i, K.W_MH_N : K.W_MH_ADD + 1] = w.critical_hit_mortals.as_array()
        wint[i, K.W_HAS_MH] = w.critical_hit_mortals.max > 0
        wint[i, K.W_MH_INSTEAD] = w.critical_hit_mortals_instead and w.critical_hit_mortals.max > 0
        wint[i, K.W_MW_N : K.W_MW_ADD + 1] = w.critical_wound_mortals.as_array()
        wint[i, K.W_HAS_MW] = w.critical_wound_mortals.max > 0
        wint[i, K.W_MW_INSTEAD] = (
            w.critical_wound_mortals_instead and w.critical_wound_mortals.max > 0
        )
        wint[i, K.W_BLAST] = w.blast
        wint[i, K.W_PRECISION] = w.precision
        wint[i, K.W_DMG_AVG] = math.ceil(w.damage.mean() - 1e-9) if w.damage.n else 0
        wint[i, K.W_CAN_SAVE] = bool((d.save_fail[1:] == 0).any())
        wint[i, K.W_CRIT_SPLIT] = d.crit_split
        wint[i, K.W_CRIT_SAVE] = d.crit_save_own
        wint[i, K.W_DMG_REROLL] = d.dmg_reroll_below
        faces[i, K.F_HIT_CODE] = d.hit_codes
        faces[i, K.F_HIT_REROLL] = d.hit_rerolls
        faces[i, K.F_WOUND_CODE] = d.wound_codes
        faces[i, K.F_WOUND_REROLL] = d.wound_rerolls
        faces[i, K.F_SAVE_FAIL] = d.save_fail
        faces[i, K.F_SAVE_REROLL] = d.save_rerolls
        faces[i, K.F_CSAVE_FAIL] = d.crit_save_fail
        faces[i, K.F_CSAVE_REROLL] = d.crit_save_rerolls
        dmgmap[i] = damage_maps(sc, w, size)
    fnp, flags = fnp_tables(sc)
    tint = np.zeros(K.T_NCOLS, dtype=np.int64)
    tint[K.T_MODELS] = t.models
    tint[K.T_WOUNDS] = t.wounds
    tint[K.T_DAMAGED] = t.damaged
    tint[K.T_SPILL] = r.spill == "spill"
    tint[K.T_FNP : K.T_FNPM_PAIR + 1] = flags
    tint[K.T_ONE] = ("none", "hit", "wound", "damage").index(sc.situation.reroll_one)
    tint[K.T_ONE_SAVE] = t.reroll_one == "save"
    tint[K.T_HAZ_DICE : K.T_HAZ_MORTAL + 1] = hazard(sc)
    rows = tint[K.T_ROWS : K.T_ROWS + K.N_STATS]
    rows[:] = -1
    for row, name in enumerate(reported(sc)):
        rows[STAT_NAMES.index(name)] = row
    return {"wint": wint, "faces": faces, "fnp": fnp, "dmgmap": dmgmap, "tint": tint}


def stats(sc: GenericScenario) -> tuple[Stat, ...]:
    """The reported statistics, in the kernel's row order (a unit of identical models; a mixed
    unit's are :func:`.compile_mixed.mixed_stats`)."""
    t = sc.target
    att_max = sum(attacks_max(sc, w) * (1 + w.critical_extra_attacks.max) for w in sc.fired)
    hit_max = sum(
        attacks_max(sc, w) * (1 + w.critical_extra_attacks.max) * (1 + w.sustained_hits.max)
        for w in sc.fired
    )
    dmg_max = damage_bound(sc)
    total = t.models * t.wounds - t.damaged
    bounds = {
        "attacks": att_max,
        "hits": hit_max,
        "wounds": hit_max,
        "unsaved": hit_max,
        "mortal_wounds": dmg_max,
        "damage": dmg_max,
        "models_slain": t.models,
        "destroyed": 1,
        "damage_dealt": total,
        "wounds_remaining": total,
        "attacker_models_lost_to_hazards": hazard(sc)[1],
        "attacker_wounds_lost": hazard(sc)[1] * hazard(sc)[2],
    }
    return tuple(
        Stat(k, bounds[k] + 1, _STAT_TEXT[k][1], flag=(k == "destroyed"), label=_STAT_TEXT[k][0])
        for k in reported(sc)
    )


def headlines(sc: GenericScenario) -> tuple[Headline, ...]:
    """Headline probabilities, only of statistics the scenario reports."""
    t = sc.target
    names = reported(sc)
    heads = []
    if t.models == 1 or "models_slain" not in names:
        left = t.models * t.wounds - t.damaged
        heads.append(Headline("P(target loses at least 1 wound)", "damage_dealt", 1))
        if left > 2:
            half = (left + 1) // 2
            heads.append(Headline(f"P(target loses at least {half} wounds)", "damage_dealt", half))
    else:
        heads.append(Headline("P(at least 1 target model slain)", "models_slain", 1))
        half = (t.models + 1) // 2
        heads.append(Headline(f"P(at least half the target slain, ≥ {half})", "models_slain", half))
    if "destroyed" in names:
        what = "model" if t.models == 1 else "unit"
        heads.append(Headline(f"P(target {what} destroyed)", "destroyed", 1))
    return tuple(heads) + hazard_headlines(sc)


def hazard_headlines(sc: GenericScenario) -> tuple[Headline, ...]:
    """With a Hazardous weapon: the chance it costs the attacker a model."""
    if not hazard(sc)[0]:
        return ()
    stat = "attacker_models_lost_to_hazards"
    return (Headline("P(attacker loses at least 1 model to Hazardous)", stat, 1),)


def needs_extras(sc: GenericScenario) -> bool:
    """The scenario needs the full kernel: Blast, a one-off re-roll, a 2D6 "ones" damage
    re-roll or Hazardous (the lean kernel compiles none of them: see ``kernel.EXTRAS``)."""
    return (
        sc.situation.reroll_one != "none"
        or sc.target.reroll_one != "none"
        or any(w.blast or w.hazardous or damage_reroll_below(w) < 0 for w in sc.fired)
    )


def compile_job(sc: GenericScenario) -> Job:
    from oddslab.rulesets.generic.kernel import run_generic, run_generic_lean

    a = arrays(sc)
    params = (a["wint"], a["faces"], a["fnp"], a["dmgmap"], a["tint"])
    slain = "models_slain" in reported(sc)
    primary = "damage_dealt" if sc.target.models == 1 or not slain else "models_slain"
    return Job(
        sc.name,
        run_generic if needs_extras(sc) else run_generic_lean,
        params,
        stats(sc),
        headlines(sc),
        exact=sc.exact_pmfs,
        exact_joint=sc.exact_joint,
        # the statistics left out because they cannot happen here (``reported``): a study's
        # metric on one of them reads 0, not "not reported"
        meta={
            "ruleset": "generic",
            "description": sc.description,
            "primary": primary,
            "never": [s for s in STAT_NAMES if s not in reported(sc)],
        },  # fmt: skip
        ruleset="generic",
        records=True,
    )


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


def _save_table(save: tuple[str, int, str], modifier: int, r: Rules) -> np.ndarray:
    """Per natural roll: 1 if the save succeeds (before any re-roll)."""
    kind, need, _ = save
    out = np.zeros(7, dtype=np.int64)
    if kind == "none":
        return out
    for d in range(1, 7):
        out[d] = d + modifier >= need and not (d == 1 and r.natural_one_fails)
    return out


def _save_rerolls(save: tuple[str, int, str], modifier: int, r: Rules) -> np.ndarray:
    """Per natural roll: 1 if a failed save is re-rolled."""
    kind, _, mode = save
    ok = _save_table(save, modifier, r)
    out = np.zeros(7, dtype=np.int64)
    if kind == "none":
        return out
    for d in range(1, 7):
        out[d] = (mode == "failed" and not ok[d]) or (mode == "ones" and d == 1 and not ok[d])
    return out
