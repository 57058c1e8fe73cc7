"""A mixed target unit (``Target.groups``) → the mixed kernel's arrays, statistics and job.

Each group is compiled as a plain target of its own (:func:`views`: its wounds, saves,
feel-no-pain and toughness, with the unit's other keys), so the face tables, damage maps and
feel-no-pain tables are the simple path's, stacked per group; the mixed kernel picks the
group's tables for each allocated wound. See ``docs/generic.md`` (mixed units).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab.engine import Job
from oddslab.outcome import Headline, Stat
from oddslab.rulesets.generic import layout as K
from oddslab.rulesets.generic.compile import (
    _STAT_TEXT,
    STAT_NAMES,
    arrays,
    attacks_max,
    damage_bound,
    fnp_tables,
    hazard,
    hazard_headlines,
)
from oddslab.rulesets.generic.target import group_view

if TYPE_CHECKING:  # the scenario class imports this module
    from oddslab.rulesets.generic.scenario import GenericScenario

__all__ = ["views", "mixed_arrays", "mixed_stats", "group_stat", "compile_mixed", "order_of"]


def group_stat(name: str) -> str:
    """``target_<group>_models_lost`` (the group's name in lower case, ``_`` for the rest)."""
    return "target_" + re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") + "_models_lost"


def views(sc: GenericScenario) -> list[GenericScenario]:
    """One plain scenario per group: what an attack allocated to that group's model meets."""
    out = []
    for g in sc.target.groups:
        t = group_view(sc.target, g)
        both = t.feel_no_pain is not None and t.feel_no_pain_mortal is not None
        rules = replace(
            sc.rules, allocation="listed", stack_feel_no_pain=sc.rules.stack_feel_no_pain and both
        )
        out.append(replace(sc, target=t, rules=rules))
    return out


def order_of(sc: GenericScenario) -> np.ndarray:
    """The defender's order of choice among the groups (``Rules.allocation``)."""
    groups = sc.target.groups
    idx = list(range(len(groups)))
    if sc.rules.allocation == "fewest-wounds":
        idx.sort(key=lambda i: groups[i].wounds)
    return np.array(idx, dtype=np.int64)


def _has_mortal(sc: GenericScenario) -> bool:
    return any(
        (w.devastating_wounds and sc.rules.devastating_wounds == "legacy")
        or w.critical_hit_mortals.max > 0
        or w.critical_wound_mortals.max > 0
        for w in sc.fired
    )


def mixed_names(sc: GenericScenario) -> tuple[str, ...]:
    """Every statistic a mixed-unit scenario reports, in kernel row order."""
    haz = ("attacker_models_lost_to_hazards", "attacker_wounds_lost")
    base = [s for s in STAT_NAMES if (s != "mortal_wounds" or _has_mortal(sc))
            and (s not in haz or hazard(sc)[0])]  # fmt: skip
    base += [group_stat(g.name) for g in sc.target.groups]
    if any(g.character for g in sc.target.groups):
        base.append("leader_slain")
    return tuple(base)


def mixed_stats(sc: GenericScenario) -> tuple[Stat, ...]:
    t = sc.target
    att = sum(attacks_max(sc, w) * (1 + w.critical_extra_attacks.max) for w in sc.fired)
    hit = sum(
        attacks_max(sc, w) * (1 + w.critical_extra_attacks.max) * (1 + w.sustained_hits.max)
        for w in sc.fired
    )
    total = sum(g.models * g.wounds - g.damaged for g in t.groups)
    dmg = damage_bound(sc)
    bounds: dict[str, int] = dict(
        attacks=att, hits=hit, wounds=hit, unsaved=hit, mortal_wounds=dmg, damage=dmg,
        models_slain=t.models, destroyed=1, damage_dealt=total, wounds_remaining=total,
        leader_slain=1, attacker_models_lost_to_hazards=hazard(sc)[1],
        attacker_wounds_lost=hazard(sc)[1] * hazard(sc)[2],
    )  # fmt: skip
    text = dict(_STAT_TEXT)
    text["leader_slain"] = ("attached leader slain", "every character model of the unit slain")
    for g in t.groups:
        bounds[group_stat(g.name)] = g.models
        text[group_stat(g.name)] = (f"{g.name} models lost", f"models of the group {g.name} slain")
    return tuple(
        Stat(
            k, bounds[k] + 1, text[k][1], flag=k in ("destroyed", "leader_slain"), label=text[k][0]
        )
        for k in mixed_names(sc)
    )


def mixed_headlines(sc: GenericScenario) -> tuple[Headline, ...]:
    half = (sc.target.models + 1) // 2
    heads = [
        Headline("P(at least 1 target model slain)", "models_slain", 1),
        Headline(f"P(at least half the target slain, ≥ {half})", "models_slain", half),
        Headline("P(target unit destroyed)", "destroyed", 1),
    ]
    if "leader_slain" in mixed_names(sc):
        heads.append(Headline("P(attached leader slain)", "leader_slain", 1))
    return tuple(heads) + hazard_headlines(sc)


def mixed_arrays(sc: GenericScenario) -> dict[str, Any]:
    """The mixed kernel's inputs (shapes in ``kernel_mixed._prologue``)."""
    vs = views(sc)
    per = [arrays(v) for v in vs]
    size = max(p["dmgmap"].shape[2] for p in per)
    dmgmap = np.zeros((len(sc.fired), K.D_NKINDS, size), dtype=np.int64)
    dmgmap[:, :, : per[0]["dmgmap"].shape[2]] = per[0]["dmgmap"]  # unit-level modifiers only
    fnp = np.stack([fnp_tables(v)[0] for v in vs])
    flags = np.stack([fnp_tables(v)[1] for v in vs])
    tint = np.zeros(K.T_MIXED_NCOLS, dtype=np.int64)
    tint[: K.T_NCOLS] = per[0]["tint"]
    names = mixed_names(sc)
    rows = tint[K.T_ROWS : K.T_ROWS + K.N_STATS]
    rows[:] = -1
    for i, s in enumerate(STAT_NAMES):
        if s in names:
            rows[i] = names.index(s)
    tint[K.T_MODELS] = sc.target.models
    tint[K.T_LEADER_ROW] = names.index("leader_slain") if "leader_slain" in names else -1
    gint = np.zeros((len(vs), K.GI_NCOLS), dtype=np.int64)
    for i, (g, v) in enumerate(zip(sc.target.groups, vs, strict=True)):
        gint[i] = (
            g.models,
            g.wounds,
            g.character,
            v.target.toughness,
            names.index(group_stat(g.name)),
            g.damaged,
        )
    return {
        "wint": per[0]["wint"],
        "faces": np.stack([p["faces"] for p in per]),
        "fnp": fnp,
        "fnpflags": flags,
        "dmgmap": dmgmap,
        "tint": tint,
        "gint": gint,
        "order": order_of(sc),
    }


def compile_mixed(sc: GenericScenario) -> Job:
    from oddslab.rulesets.generic.kernel_mixed import run_generic_mixed

    a = mixed_arrays(sc)
    params = tuple(
        a[k] for k in ("wint", "faces", "fnp", "fnpflags", "dmgmap", "tint", "gint", "order")
    )
    return Job(
        sc.name,
        run_generic_mixed,
        params,
        mixed_stats(sc),
        mixed_headlines(sc),
        exact=sc.exact_pmfs,
        exact_joint=sc.exact_joint,
        meta={"ruleset": "generic", "description": sc.description, "primary": "models_slain"},
        ruleset="generic",
        records=True,
    )
