"""Armoured Clash: scenario -> kernel arrays and the Job; combat-rating counts; exact PMFs.

The statistics, their names and headlines are in :mod:`.statistics`; ``resolved()`` in
:mod:`.resolved`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab.engine import Job
from oddslab.rulesets.armoured_clash import kernel as KR
from oddslab.rulesets.armoured_clash import layout as K
from oddslab.rulesets.armoured_clash import statistics as ST
from oddslab.rulesets.armoured_clash.model import (
    FACE_KINDS,
    OFFICER_MODES,
    RATINGS,
    SIDES,
    Unit,
    attack_pool_pmf,
    default_deck,
)
from oddslab.rulesets.armoured_clash.validate import (
    activation_plan,
    close_column,
    garrisoned_at,
    ranged_row,
)

if TYPE_CHECKING:
    from oddslab.rulesets.armoured_clash.scenario import ArmouredClashScenario

__all__ = [
    "overwhelming",
    "close_static",
    "retaliation_static",
    "units_index",
    "arrays",
    "compile_job",
    "static_rating",
    "exact_pmfs",
]


def _rating_index(name: str | None) -> int:
    return -1 if name is None else RATINGS.index(name)


def overwhelming(attacker: Unit, target: Unit) -> bool:
    """*Overwhelming*: an infantry attacker against armour or a fortification."""
    return attacker.type == "infantry" and target.type in ("armour", "fortification")


def close_static(sc: ArmouredClashScenario, i: int) -> int:
    """The charger's bonuses - penalties known before the combat (suppressed is live)."""
    a = sc.attacks[i]
    s = a.situation
    by = {u.name: u for u in sc.units}
    over = overwhelming(by[a.attacker], by[a.target])
    return int(s.outflanking) + int(over) + int(s.supported_now()) - int(s.threatened_now())


def retaliation_static(sc: ArmouredClashScenario, i: int, name: str) -> int:
    """Bonuses - penalties of unit ``name``'s retaliation in close quarters attack ``i``."""
    a = sc.attacks[i]
    s = a.situation
    by = {u.name: u for u in sc.units}
    over = overwhelming(by[name], by[a.attacker])
    if name == a.target:
        sup, thr = s.retaliation_supported(), s.retaliation_threatened()
    else:
        sup, thr = s.secondary_supported(), s.secondary_threatened()
    return int(over) + int(sup) - int(thr)


# -- arrays for the kernel ------------------------------------------------------------------
def units_index(sc: ArmouredClashScenario) -> dict[str, int]:
    return {u.name: i for i, u in enumerate(sc.units)}


def arrays(sc: ArmouredClashScenario) -> dict[str, Any]:
    """Kernel inputs: ``AT`` int64[A, A_NCOLS], ``UI`` int64[U, U_NCOLS], ``DC`` int64[C, L],
    ``R`` int64[R_NCOLS], ``deck`` int64[2, D], ``dn`` int64[2]."""
    idx = units_index(sc)
    cols: list[tuple[int, ...]] = []

    def col(values: Sequence[int], unit: Unit) -> int:
        # DC[c, m]: dice for m counted models (index 0 = none), or for m damage (behemoth)
        v = tuple(values)
        cols.append(v if unit.type == "behemoth" else (0, *v))
        return len(cols) - 1

    UI = np.zeros((len(sc.units), K.U_NCOLS), dtype=np.int64)
    for i, u in enumerate(sc.units):
        row = UI[i]
        row[K.U_SIDE] = SIDES.index(u.side)
        row[K.U_DEF] = u.defence
        row[K.U_DL] = u.damage_limit
        row[K.U_DISC] = u.discipline
        row[K.U_BREAK] = -1 if u.break_limit is None else u.break_limit
        row[K.U_VP] = u.vp_value
        row[K.U_OFFICER] = OFFICER_MODES.index(u.officer_mode)
        row[K.U_CMDR] = u.commander_nearby
        row[K.U_NOSUPP] = u.type == "aircraft"
        row[K.U_CAP] = u.capacity
        row[K.U_CARRYING] = -1 if u.carrying is None else idx[u.carrying]
        row[K.U_FB_LOSS] = u.fall_back_losses
        row[K.U_FLEES] = u.flees_field
        row[K.U_WD_LOSS] = u.withdraw_losses
        row[K.U_BYDMG] = u.type == "behemoth"
        row[K.U_MODELS] = u.models
        row[K.U_TOKENS] = u.damage
        row[K.U_SUPP] = u.suppressed
        row[K.U_DISO] = u.disordered
        row[K.U_COVER] = u.taking_cover
        row[K.U_GARR] = u.garrisoned
        row[K.U_MELEE] = -1 if u.armaments.melee is None else col(u.armaments.melee, u)
    for u in sc.units:
        if u.carrying is not None:
            UI[idx[u.carrying], K.U_CARRIED] = 1
    plan = activation_plan(sc)
    AT = np.zeros((len(sc.attacks), K.A_NCOLS), dtype=np.int64)
    for i, a in enumerate(sc.attacks):
        s = a.situation
        att, tgt = sc.units[idx[a.attacker]], sc.units[idx[a.target]]
        row = AT[i]
        row[K.A_ATT] = idx[a.attacker]
        row[K.A_TGT] = idx[a.target]
        row[K.A_FORCE] = _rating_index(s.rating)
        row[K.A_RFORCE] = _rating_index(s.defender_rating)
        row[K.A_RR] = sum(1 << FACE_KINDS.index(f) for f in set(s.extra_rerolls))
        row[K.A_RRR] = sum(1 << FACE_KINDS.index(f) for f in set(s.defender_extra_rerolls))
        row[K.A_EXPOSED] = -1 if s.exposed is None else s.exposed
        row[K.A_RRCMD] = s.extra_rerolls_from == "command"
        row[K.A_RRRCMD] = s.defender_extra_rerolls_from == "command"
        active, new, end = plan[i]
        row[K.A_ACTIVE] = idx[active]
        row[K.A_NEWACT] = new
        row[K.A_ENDACT] = end
        if a.kind == "ranged":
            row[K.A_KIND] = 0
            rng = ranged_row(a, att, tgt)
            assert rng is not None
            row[K.A_COL] = col(rng.dice, att)
            # aiming apart (a failed rally test loses it); live: concealed, suppressed
            row[K.A_AIM] = s.aiming
            row[K.A_STATIC] = int(s.short_range) - int(s.opportunity_fire) - int(s.reforming)
            row[K.A_MANOEUVRE] = s.reforming
            row[K.A_CONC] = s.concealed
            row[K.A_OPP] = s.opportunity_fire
        else:
            row[K.A_KIND] = 1
            qc = close_column(a, att)
            assert qc is not None
            row[K.A_COL] = col(qc, att)
            row[K.A_MANOEUVRE] = s.charge
            row[K.A_STATIC] = close_static(sc, i)
            row[K.A_RSTATIC] = retaliation_static(sc, i, a.target)
            row[K.A_DEFADV] = s.defensive_advantage
            row[K.A_NSEC] = len(s.secondary)
            for j, nm in enumerate(s.secondary):
                row[K.A_SEC0 + j] = idx[nm]
                row[K.A_SST0 + j] = retaliation_static(sc, i, nm)
    width = max(len(c) for c in cols)
    DC = np.zeros((len(cols), width + 1), dtype=np.int64)
    for j, c in enumerate(cols):
        DC[j, : len(c)] = c
    R = np.zeros(K.R_NCOLS, dtype=np.int64)
    R[K.R_EMB_ALWAYS] = sc.rules.embarked_tests == "always"
    R[K.R_RALLY] = sc.rules.rally_test
    R[K.R_FOCUS] = idx[sc.focus_unit]
    R[K.R_ACT] = sc.rules.activations
    R[K.R_EXPIRE_ALL] = sc.rules.status_expiry == "all"
    R[K.R_SEC_ALWAYS] = sc.rules.secondary_retaliation == "always"
    R[K.R_NOSTATUS] = sc.rules.cannot_be_suppressed == "no_status"
    R[K.R_MOST_KILLS] = sc.rules.retaliation_annihilates == "most_kills"
    R[K.R_SEC_AFTER] = sc.rules.secondaries_with_advantage == "after_charger"
    R[K.R_GARR_CHARGED] = sc.rules.garrison_exit == "when_charged"
    decks = [tuple(sc.decks.get(side, default_deck())) for side in SIDES]
    deck = np.zeros((2, max(len(d) for d in decks)), dtype=np.int64)
    for j, d in enumerate(decks):
        deck[j, : len(d)] = d
    dn = np.array([len(d) for d in decks], dtype=np.int64)
    return {"AT": AT, "UI": UI, "DC": DC, "R": R, "deck": deck, "dn": dn}


def compile_job(sc: ArmouredClashScenario) -> Job:
    a = arrays(sc)
    reported = ST.reported(sc)
    slots = np.full(K.N_STATS, -1, dtype=np.int64)
    for row, r in enumerate(reported):
        slots[r.index] = row
    die = sc.die
    params = (
        a["AT"],
        a["UI"],
        a["DC"],
        a["R"],
        a["deck"],
        a["dn"],
        die.face_score(),
        die.explode_mask(),
        die.tier_table(),
        die.kinds(),
        slots,
    )
    exact = (lambda: exact_pmfs(sc)) if _exact_ok(sc) else None
    return Job(
        sc.name,
        KR.run_armoured_clash,
        params,
        tuple(r.stat for r in reported),
        ST.headlines(sc),
        exact=exact,
        meta={
            "ruleset": "armoured-clash",
            "description": sc.description,
            "primary": ST.primary(sc),
            "focus": sc.focus_unit,
        },
        ruleset="armoured-clash",
        records=True,
    )


# -- exact ---------------------------------------------------------------------------------
def _exact_ok(sc: ArmouredClashScenario) -> bool:
    if len(sc.attacks) != 1 or sc.attacks[0].kind != "ranged":
        return False
    a = sc.attacks[0]
    s = a.situation
    by = {u.name: u for u in sc.units}
    att = by[a.attacker]
    # a suppressed attacker's rally test (start of its activation) can cancel aim / the attack
    rally = sc.rules.activations and sc.rules.rally_test and att.suppressed
    if rally and (s.aiming or s.reforming):
        return False
    return a.target == sc.focus_unit and att.type != "behemoth"


def static_rating(sc: ArmouredClashScenario, i: int) -> int:
    """Combat rating of attack ``i`` (0-2) from the starting state (ranged or close)."""
    a = sc.attacks[i]
    arr = arrays(sc)
    row = arr["AT"][i]
    if row[K.A_FORCE] >= 0:
        return int(row[K.A_FORCE])
    by = {u.name: u for u in sc.units}
    att, tgt = by[a.attacker], by[a.target]
    live = -int(att.suppressed)
    if a.kind == "ranged":
        garr = garrisoned_at(sc, i, tgt.name)
        live -= int(garr or (a.situation.concealed and a.situation.exposed is None))
    d = int(row[K.A_STATIC]) + live
    if a.kind == "ranged":
        d += int(a.situation.aiming)
    return 2 if d > 0 else (1 if d == 0 else 0)


def exact_pmfs(sc: ArmouredClashScenario) -> dict[str, np.ndarray]:
    """Exact PMFs of the hits and damage on the target of a single ranged attack."""
    a = sc.attacks[0]
    by = {u.name: u for u in sc.units}
    att, tgt = by[a.attacker], by[a.target]
    row = ranged_row(a, att, tgt)
    assert row is not None
    m = (att.models + 1) // 2 if garrisoned_at(sc, 0, att.name) else att.models
    n = row.dice[m - 1]
    hits = attack_pool_pmf(n, static_rating(sc, 0), sc.die, a.situation.extra_rerolls)
    conc = tgt.garrisoned or (a.situation.concealed and a.situation.exposed is None)
    # opportunity fire targets the active unit, which stopped taking cover as it activated
    cover = tgt.taking_cover and not (sc.rules.activations and a.situation.opportunity_fire)
    d = tgt.defence + int(tgt.garrisoned) + int(conc and cover)
    dmg = np.zeros(len(hits) // d + 1)
    np.add.at(dmg, np.arange(len(hits)) // d, hits)
    side = by[a.target].side
    return {f"hits_on_{side}": hits, f"damage_on_{side}": dmg}
