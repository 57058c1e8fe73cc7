"""Armoured Clash: scenario -> kernel arrays and Job; statistics, headlines, exact PMFs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab.engine import Job
from oddslab.outcome import Headline, Stat
from oddslab.rulesets.armoured_clash import kernel as KR
from oddslab.rulesets.armoured_clash import layout as K
from oddslab.rulesets.armoured_clash.model import (
    FACE_KINDS,
    OFFICER_MODES,
    RATINGS,
    SIDES,
    Unit,
    attack_pool_pmf,
    default_deck,
)
from oddslab.rulesets.armoured_clash.validate import close_column, ranged_row

if TYPE_CHECKING:
    from oddslab.rulesets.armoured_clash.scenario import ArmouredClashScenario


_STAT_TEXT = {
    "hits": "hits scored on the focus unit",
    "damage": "damage points inflicted on the focus unit (before DAMAGE LIMIT)",
    "models_destroyed": "models of the focus unit destroyed (not counting a break)",
    "officer_lost": "the focus unit's officer was destroyed",
    "suppressed": "the focus unit ends the sequence suppressed and on the table",
    "fell_back": "the focus unit fell back (failed a test while suppressed)",
    "broke": "the focus unit broke (failed a test at or below its BREAK LIMIT)",
    "annihilated": "the focus unit was annihilated (destroyed, broke or fled)",
    "vp": "VPs scored against the focus unit's side (annihilations)",
    "vp_against": "VPs scored by the focus unit's side",
    "attacker_models_lost": "models lost by the other side",
    "defender_models_lost": "models lost by the focus unit's side",
    "rally_failed": "the focus unit is suppressed and fails its rally test",
    "full_activation": "the focus unit can both move and attack at its next activation",
    "qc_result": "last close quarters combat: 0 none, 1 attacker won, 2 defender won, 3 stalemate",
    "qc_attacker_won": "the attacker won the (last) close quarters combat",
    "qc_defender_won": "the defender won the (last) close quarters combat",
    "qc_stalemate": "the (last) close quarters combat was a stalemate",
    "embarked_lost": "models of the embarked unit destroyed",
    "embarked_suppressed": "the embarked unit ends suppressed",
    "embarked_annihilated": "the embarked unit was annihilated",
}
_STAT_NAMES = tuple(_STAT_TEXT)
_FLAGS = {
    "officer_lost",
    "suppressed",
    "fell_back",
    "broke",
    "annihilated",
    "rally_failed",
    "full_activation",
    "qc_attacker_won",
    "qc_defender_won",
    "qc_stalemate",
    "embarked_suppressed",
    "embarked_annihilated",
}
assert len(_STAT_NAMES) == K.N_STATS


def _rating_index(name: str | None) -> int:
    return -1 if name is None else RATINGS.index(name)


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
        if a.kind == "ranged":
            row[K.A_KIND] = 0
            rng = ranged_row(a, att, tgt)
            assert rng is not None
            row[K.A_COL] = col(rng.dice, att)
            # live penalties: concealed (garrison or situation), attacker suppressed
            row[K.A_STATIC] = (
                int(s.aiming) + int(s.short_range) - int(s.opportunity_fire) - int(s.reforming)
            )
            row[K.A_CONC] = s.concealed
            row[K.A_OPP] = s.opportunity_fire
        else:
            row[K.A_KIND] = 1
            qc = close_column(a, att)
            assert qc is not None
            row[K.A_COL] = col(qc, att)
            overwhelming = att.type == "infantry" and tgt.type in ("armour", "fortification")
            row[K.A_STATIC] = (
                int(s.outflanking) + int(overwhelming) + int(s.supported) - int(s.threatened)
            )
            r_over = tgt.type == "infantry" and att.type in ("armour", "fortification")
            row[K.A_RSTATIC] = int(r_over) + int(s.defender_supported) - int(s.defender_threatened)
            row[K.A_DEFADV] = s.defensive_advantage
            row[K.A_NSEC] = len(s.secondary)
            for j, nm in enumerate(s.secondary):
                row[K.A_SEC0 + j] = idx[nm]
    width = max(len(c) for c in cols)
    DC = np.zeros((len(cols), width + 1), dtype=np.int64)
    for j, c in enumerate(cols):
        DC[j, : len(c)] = c
    R = np.zeros(K.R_NCOLS, dtype=np.int64)
    R[K.R_EMB_ALWAYS] = sc.rules.embarked_tests == "always"
    R[K.R_RALLY] = sc.rules.rally_test
    R[K.R_FOCUS] = idx[sc.focus_unit]
    decks = [tuple(sc.decks.get(side, default_deck())) for side in SIDES]
    deck = np.zeros((2, max(len(d) for d in decks)), dtype=np.int64)
    for j, d in enumerate(decks):
        deck[j, : len(d)] = d
    dn = np.array([len(d) for d in decks], dtype=np.int64)
    return {"AT": AT, "UI": UI, "DC": DC, "R": R, "deck": deck, "dn": dn}


# -- statistics -----------------------------------------------------------------------------
def _has_qc(sc: ArmouredClashScenario) -> bool:
    return any(a.kind == "close" for a in sc.attacks)


def _bounds(sc: ArmouredClashScenario) -> dict[str, int]:
    by = {u.name: u for u in sc.units}
    f = by[sc.focus_unit]
    heroic = sc.die.heroic > 0
    per_die = 4 if heroic else 2  # a heroic strike: 2 hits and an added die worth 2 more
    if sc.die.heroic == 0 and sc.die.strike == 0:
        per_die = 0
    hits = 0
    for a in sc.attacks:
        att = by[a.attacker]
        if a.target == f.name:
            if a.kind == "ranged":
                row = ranged_row(a, att, by[a.target])
                assert row is not None
                hits += per_die * max(row.dice)
            else:
                hits += per_die * max(close_column(a, att) or (0,))
        if a.kind == "close" and a.attacker == f.name:
            for nm in (a.target, *a.situation.secondary):
                hits += per_die * max(by[nm].armaments.melee or (0,))
    own = [u for u in sc.units if u.side == f.side]
    other = [u for u in sc.units if u.side != f.side]
    emb = by[f.carrying] if f.carrying is not None else None
    return {
        "hits": hits,
        "damage": hits,
        "models_destroyed": f.models,
        "vp": sum(u.vp_value for u in own),
        "vp_against": sum(u.vp_value for u in other),
        "attacker_models_lost": sum(u.models for u in other),
        "defender_models_lost": sum(u.models for u in own),
        "qc_result": 3,
        "embarked_lost": emb.models if emb is not None else 0,
    }


def _reported(sc: ArmouredClashScenario) -> list[str]:
    by = {u.name: u for u in sc.units}
    f = by[sc.focus_unit]
    names = [
        "hits",
        "damage",
        "models_destroyed",
        "officer_lost",
        "suppressed",
        "fell_back",
        "broke",
        "annihilated",
        "vp",
        "vp_against",
        "attacker_models_lost",
        "defender_models_lost",
    ]
    if sc.rules.rally_test:
        names += ["rally_failed", "full_activation"]
    if _has_qc(sc):
        names += ["qc_result", "qc_attacker_won", "qc_defender_won", "qc_stalemate"]
    if f.carrying is not None:
        names += ["embarked_lost", "embarked_suppressed", "embarked_annihilated"]
    return names


def stats(sc: ArmouredClashScenario) -> tuple[Stat, ...]:
    bounds = _bounds(sc)
    return tuple(
        Stat(n, (1 if n in _FLAGS else bounds[n]) + 1, _STAT_TEXT[n], flag=n in _FLAGS)
        for n in _reported(sc)
    )


def headlines(sc: ArmouredClashScenario) -> tuple[Headline, ...]:
    by = {u.name: u for u in sc.units}
    f = by[sc.focus_unit]
    heads = [Headline("P(at least 1 model destroyed)", "models_destroyed", 1)]
    if f.type != "aircraft":
        heads.append(Headline("P(suppressed at the end)", "suppressed", 1))
        heads.append(Headline("P(fell back)", "fell_back", 1))
    if f.break_limit is not None:
        heads.append(Headline("P(broke)", "broke", 1))
    heads.append(Headline("P(annihilated)", "annihilated", 1))
    heads.append(Headline("P(officer lost)", "officer_lost", 1))
    if sc.rules.rally_test and f.type != "aircraft":
        heads.append(Headline("P(fails rally test)", "rally_failed", 1))
    if _has_qc(sc):
        heads += [
            Headline("P(attacker wins close quarters)", "qc_attacker_won", 1),
            Headline("P(defender wins close quarters)", "qc_defender_won", 1),
            Headline("P(stalemate)", "qc_stalemate", 1),
        ]
    if f.carrying is not None:
        heads.append(Headline("P(embarked unit annihilated)", "embarked_annihilated", 1))
    return tuple(heads)


def compile_job(sc: ArmouredClashScenario) -> Job:
    a = arrays(sc)
    reported = _reported(sc)
    slots = np.full(K.N_STATS, -1, dtype=np.int64)
    for row, n in enumerate(reported):
        slots[_STAT_NAMES.index(n)] = row
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
        stats(sc),
        headlines(sc),
        exact=exact,
        meta={
            "ruleset": "armoured-clash",
            "description": sc.description,
            "primary": "models_destroyed",
            "focus": sc.focus_unit,
        },
    )


# -- exact ---------------------------------------------------------------------------------
def _exact_ok(sc: ArmouredClashScenario) -> bool:
    if len(sc.attacks) != 1 or sc.attacks[0].kind != "ranged":
        return False
    a = sc.attacks[0]
    by = {u.name: u for u in sc.units}
    return a.target == sc.focus_unit and by[a.attacker].type != "behemoth"


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
        live -= int(tgt.garrisoned or (a.situation.concealed and a.situation.exposed is None))
    d = int(row[K.A_STATIC]) + live
    return 2 if d > 0 else (1 if d == 0 else 0)


def exact_pmfs(sc: ArmouredClashScenario) -> dict[str, np.ndarray]:
    """Exact PMFs of ``hits`` and ``damage`` for a single ranged attack."""
    a = sc.attacks[0]
    by = {u.name: u for u in sc.units}
    att, tgt = by[a.attacker], by[a.target]
    row = ranged_row(a, att, tgt)
    assert row is not None
    m = (att.models + 1) // 2 if att.garrisoned else att.models
    n = row.dice[m - 1]
    hits = attack_pool_pmf(n, static_rating(sc, 0), sc.die, a.situation.extra_rerolls)
    conc = tgt.garrisoned or (a.situation.concealed and a.situation.exposed is None)
    d = tgt.defence + int(tgt.garrisoned) + int(conc and tgt.taking_cover)
    dmg = np.zeros(len(hits) // d + 1)
    np.add.at(dmg, np.arange(len(hits)) // d, hits)
    return {"hits": hits, "damage": dmg}
