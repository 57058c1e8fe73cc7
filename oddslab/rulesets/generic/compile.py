"""Generic scenario → kernel arrays, statistics, headlines and the :class:`Job`.

Every rule that can be decided per die face is turned here into lookup tables indexed by the
natural roll 1..6 (index 0 unused): 0 fail, 1 success, 2 critical; the kernel only reads them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from oddslab.engine import Job
from oddslab.outcome import Headline, Stat
from oddslab.rulesets.generic import kernel as K
from oddslab.rulesets.generic.model import GenericScenario, Rules, wound_threshold

__all__ = ["arrays", "stats", "headlines", "compile_job"]

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


def arrays(sc: GenericScenario) -> dict[str, Any]:
    """The kernel's inputs: ``wint`` int64[W, 13], ``faces`` int64[W, 5, 7], ``fnp_fail``."""
    t, r = sc.target, sc.rules
    W = len(sc.weapons)
    wint = np.zeros((W, K.W_NCOLS), dtype=np.int64)
    faces = np.zeros((W, K.F_NROWS, 7), dtype=np.int64)
    for i, w in enumerate(sc.weapons):
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
        faces[i, K.F_SAVE_FAIL] = 1 - _save_table(sc.save_needed(w), r)
    fnp_fail = np.zeros(7, dtype=np.int64)
    if t.feel_no_pain is not None:
        fnp_fail[1 : t.feel_no_pain] = 1
    return {"wint": wint, "faces": faces, "fnp_fail": fnp_fail}


def stats(sc: GenericScenario) -> tuple[Stat, ...]:
    att_max = sum(w.models * w.attacks.max for w in sc.weapons)
    hit_max = sum(w.models * w.attacks.max * (1 + w.sustained_hits.max) for w in sc.weapons)
    dmg_max = sum(
        w.models * w.attacks.max * (1 + w.sustained_hits.max) * w.damage.max for w in sc.weapons
    )
    bounds = {
        "attacks": att_max,
        "hits": hit_max,
        "wounds": hit_max,
        "unsaved": hit_max,
        "mortal_wounds": dmg_max,
        "damage": dmg_max,
        "models_slain": sc.target.models,
        "destroyed": 1,
    }
    return tuple(Stat(k, v + 1, _STAT_TEXT[k], flag=(k == "destroyed")) for k, v in bounds.items())


def headlines(sc: GenericScenario) -> tuple[Headline, ...]:
    t = sc.target
    heads = [Headline("P(at least 1 model slain)", "models_slain", 1)]
    if t.models > 1:
        half = (t.models + 1) // 2
        heads.append(Headline(f"P(at least half slain, >= {half})", "models_slain", half))
    heads.append(Headline("P(unit destroyed)", "destroyed", 1))
    return tuple(heads)


def compile_job(sc: GenericScenario) -> Job:
    a = arrays(sc)
    t = sc.target
    params = (
        a["wint"],
        a["faces"],
        a["fnp_fail"],
        t.feel_no_pain is not None,
        t.models,
        t.wounds,
        t.damaged,
        sc.rules.spill == "spill",
    )
    return Job(
        sc.name,
        K.run_generic,
        params,
        stats(sc),
        headlines(sc),
        exact=sc.exact_pmfs,
        meta={"ruleset": "generic", "description": sc.description},
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


def _save_table(need: int, r: Rules) -> np.ndarray:
    """Per natural roll: 1 if the save succeeds."""
    out = np.zeros(7, dtype=np.int64)
    for d in range(1, 7):
        out[d] = need <= 6 and d >= need and not (d == 1 and r.natural_one_fails)
    return out
