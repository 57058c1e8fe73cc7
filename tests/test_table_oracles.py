"""Independent oracles for each ruleset's compiled tables.

The exact engines and the kernels are built from the same compiled tables (the generic
ruleset's ``derive`` / ``damage_maps``, the other rulesets' ``compile`` arrays), so a mistake
in a table moves both sides of a kernel-vs-exact test. Here each table is checked against a
direct enumeration written from the rule text in this file (no import from ``compile``),
over a grid of inputs, to 1e-12: a table built with ``>`` where the rule says ``>=`` fails.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np
import pytest

from oddslab import GenericScenario, Rules, Target, Weapon

TOL = 1e-12


def _binomial(n: int, p: F) -> np.ndarray:
    """PMF of the number of successes in ``n`` independent trials at ``p`` (exact, then float)."""
    from math import comb

    return np.array([float(comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)])


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    n = max(len(a), len(b))
    return bool(np.all(np.abs(np.pad(a, (0, n - len(a))) - np.pad(b, (0, n - len(b)))) < TOL))


# -- generic: hit, wound and save rolls from the rule text -------------------------------------


def _generic_roll(need: int, mod: int, cap: bool, nat1_fails: bool, nat6_succeeds: bool) -> F:
    """P(a hit or wound roll succeeds): natural roll + modifier (net, capped at +-1 when
    ``cap``) >= need; a natural 1 always fails and a natural 6 (the critical) always
    succeeds when those rules are on."""
    if cap:
        mod = max(-1, min(1, mod))
    ok = 0
    for d in range(1, 7):
        if d == 6 and nat6_succeeds:
            ok += 1
        elif d == 1 and nat1_fails:
            continue
        elif d + mod >= need:
            ok += 1
    return F(ok, 6)


def _generic_wound_need(s: int, t: int) -> int:
    """S at least double T: 2+; S above T: 3+; equal: 4+; below: 5+; at most half: 6+."""
    if s >= 2 * t:
        return 2
    if s > t:
        return 3
    if s == t:
        return 4
    return 6 if 2 * s <= t else 5


def _generic_save(save: int, ap: int, cover: bool, cover_limit: bool, inv: int | None) -> F:
    """P(save): armour save on (save + AP), cover improving it by 1 except for a 3+ or better
    save against AP 0 (with the cover limit), an invulnerable save unaffected by AP and cover,
    the better of the two taken; a save roll needs at least 2 (a natural 1 fails)."""
    best = 0
    if save <= 6:
        need = save + ap - (1 if cover and not (cover_limit and save <= 3 and ap == 0) else 0)
        best = max(best, sum(1 for d in range(2, 7) if d >= need))
    if inv is not None:
        best = max(best, sum(1 for d in range(2, 7) if d >= inv))
    return F(best, 6)


N_ATT = 4


def _generic_grid():
    rules = [Rules(), Rules(modifier_cap=False, natural_one_fails=False)]
    rules.append(Rules(natural_six_succeeds=False, cover_limit=False))
    for skill, hit_mod, r in itertools.product(range(2, 7), (-2, -1, 0, 1, 2), rules):
        yield "hit", (skill, hit_mod, r)
    for (s, t), wmod, r in itertools.product(
        [(8, 4), (5, 4), (4, 4), (3, 4), (2, 4), (3, 7)], (-1, 0, 2), rules
    ):
        yield "wound", (s, t, wmod, r)
    for save, ap, cover, inv, r in itertools.product(
        (2, 3, 4, 5, 6, 7), (0, 1, 2, 4), (False, True), (None, 4, 6), rules
    ):
        yield "save", (save, ap, cover, inv, r)


def _generic_case(kind, args):
    """(scenario, statistic, oracle PMF) for one grid point; the other rolls always pass."""
    if kind == "hit":
        skill, hit_mod, r = args
        w = Weapon(attacks=N_ATT, skill=skill, hit_modifier=hit_mod, strength=8)
        p = _generic_roll(
            skill, hit_mod, r.modifier_cap, r.natural_one_fails, r.natural_six_succeeds
        )
        return GenericScenario((w,), Target(models=9, toughness=1), rules=r), "hits", p
    if kind == "wound":
        s, t, wmod, r = args
        w = Weapon(attacks=N_ATT, torrent=True, strength=s, wound_modifier=wmod)
        need = _generic_wound_need(s, t)
        p = _generic_roll(need, wmod, r.modifier_cap, r.natural_one_fails, r.natural_six_succeeds)
        return GenericScenario((w,), Target(models=9, toughness=t), rules=r), "wounds", p
    save, ap, cover, inv, r = args
    w = Weapon(attacks=N_ATT, torrent=True, strength=8, ap=ap)
    tgt = Target(models=9, toughness=1, save=save, cover=cover, invulnerable=inv)
    p_wound = _generic_roll(2, 0, r.modifier_cap, r.natural_one_fails, r.natural_six_succeeds)
    p = p_wound * (1 - _generic_save(save, ap, cover, r.cover_limit, inv))
    return GenericScenario((w,), tgt, rules=r), "unsaved", p


def test_generic_tables_against_the_rule_text():
    """Hit, wound and save probabilities of every grid point: the exact engine (built from
    ``derive``) against binomials of the probabilities enumerated above."""
    bad = []
    for kind, args in _generic_grid():
        sc, stat, p = _generic_case(kind, args)
        got = sc.exact_pmfs()[stat]
        if not _close(got, _binomial(N_ATT, p)):
            bad.append((kind, args, stat, float(p), got.round(4).tolist()))
    assert not bad, f"{len(bad)} grid points differ; first: {bad[:3]}"


@pytest.mark.parametrize("kind", ["hit", "wound", "save"])
def test_generic_grid_reaches_every_outcome(kind):
    """The grid is not degenerate: its probabilities span impossible to certain."""
    ps = {float(_generic_case(k, a)[2]) for k, a in _generic_grid() if k == kind}
    assert len(ps) >= 4 and (kind == "save" or max(ps) > 0.8)


# -- assault phase: the WS and S v T charts ----------------------------------------------------


def test_assault_phase_charts_against_the_text():
    """To hit: 3+ if WS is higher than the target's, 5+ if the target's is more than twice
    it, else 4+. To wound: 2+ at S >= T+2, 3+ at T+1, 4+ at T, 5+ at T-1, 6+ at T-2 or T-3,
    impossible (7) at S <= T-4 (docs/assault-phase.md)."""
    from oddslab.rulesets.assault_phase import Rules as APRules

    hit, wound = APRules().hit_table(), APRules().wound_table()
    for a, d in itertools.product(range(1, 11), repeat=2):
        want = 3 if a > d else (5 if d > 2 * a else 4)
        assert hit[a, d] == want, ("to hit", a, d)
    for s, t in itertools.product(range(1, 11), repeat=2):
        diff = s - t
        want = {2: 2, 1: 3, 0: 4, -1: 5, -2: 6, -3: 6}.get(diff, 2 if diff > 2 else 7)
        assert wound[s, t] == want, ("to wound", s, t)


# -- formation actions: the action test ----------------------------------------------------------


@pytest.mark.parametrize("nat1, nat6", [(False, False), (True, False), (False, True), (True, True)])
def test_formation_actions_pass_faces_against_the_text(nat1, nat6):
    """ "Roll equal to or under" the rating: faces 1..min(6, rating) pass; a natural 1 passes
    and a natural 6 fails when those switches are on."""
    from oddslab.rulesets.formation_actions.model import pass_faces

    for target in range(-2, 10):
        want = sum(
            1 for d in range(1, 7) if (d == 1 and nat1) or (d <= target and not (d == 6 and nat6))
        )
        assert pass_faces(target, nat1, nat6) == want, target


# -- Vom Kriege: the battle die's hit table ------------------------------------------------------


@pytest.mark.parametrize("sabers", ["both", "melee"])
def test_vom_kriege_face_tables_against_the_text(sabers):
    """ "1 hit for each troop symbol rolled that matches the target unit"; a saber hits in
    melee (and in shooting unless ``sabers = "melee"``); a flag is a retreat, not a hit; in
    the sabers-only mode (cavalry at a square) only sabers hit."""
    from oddslab.rulesets.vom_kriege.model import Dice
    from oddslab.rulesets.vom_kriege.model import Rules as VKRules
    from oddslab.rulesets.vom_kriege.tables import face_tables

    faces = ("infantry", "infantry", "cavalry", "artillery", "saber", "flag", "blank")
    hit, flag, _ = face_tables(Dice(faces), VKRules(sabers=sabers))
    for f, face in enumerate(faces):
        assert flag[f] == (face == "flag")
        for t, troop in enumerate(("infantry", "cavalry", "artillery")):
            shoot = face == troop or (face == "saber" and sabers == "both")
            assert hit[0, t, f] == shoot, ("shooting", face, troop)
            assert hit[1, t, f] == (face == troop or face == "saber"), ("melee", face, troop)
            assert hit[2, t, f] == (face == "saber"), ("sabers only", face, troop)


# -- armoured clash: the attack pool -------------------------------------------------------------

_AC_FACES = ("heroic", "strike", "strike", "glancing", "miss", "blank")
_AC_REROLL = {0: (), 1: ("glancing",), 2: ("glancing", "miss")}


def _ac_die(rating: int, explode: bool) -> dict[int, F]:
    """One attack die from the text: a heroic strike scores 2 and adds one die (an added die
    or a re-rolled one adds none); a strike 1; glancing (neutral) and miss (improved) faces
    are re-rolled once."""
    out: dict[int, F] = {}

    def add(h: int, p: F) -> None:
        out[h] = out.get(h, 0) + p

    for face in _AC_FACES:
        p = F(1, 6)
        if face in _AC_REROLL[rating]:
            for again in _AC_FACES:  # a re-rolled heroic strike adds no die
                add({"heroic": 2, "strike": 1}.get(again, 0), p / 6)
        elif face == "heroic" and explode:
            for h, q in _ac_die(rating, False).items():
                add(2 + h, p * q)
        else:
            add({"heroic": 2, "strike": 1}.get(face, 0), p)
    return out


@pytest.mark.parametrize("rating", ["weakened", "neutral", "improved"])
def test_armoured_clash_pool_against_the_text(rating):
    from oddslab.rulesets.armoured_clash import attack_pool_pmf

    one = _ac_die(("weakened", "neutral", "improved").index(rating), True)
    die = np.zeros(max(one) + 1)
    for h, p in one.items():
        die[h] = float(p)
    pool = np.array([1.0])
    for n in range(1, 5):
        pool = np.convolve(pool, die)
        assert _close(attack_pool_pmf(n, rating), pool), (rating, n)


# -- hex platoon: what a firing unit rolls ------------------------------------------------------


def _hex_fire(fp: int, plus: bool, th: int, band: str) -> tuple[int, int, int] | None:
    """6.1: firepower dice (one augmentation die for a ``+``) at To Hit; reduced range -1 To
    Hit; extended range +1 To Hit if the unmodified To Hit is below 6, else -1 firepower if
    the firepower is above 1, else no fire."""
    if band == "reduced":
        return fp, int(plus), th - 1
    if band == "extended":
        if th < 6:
            return fp, int(plus), th + 1
        return (fp - 1, int(plus), th) if fp > 1 else None
    return fp, int(plus), th


@pytest.mark.parametrize("band", ["normal", "reduced", "extended"])
def test_hex_platoon_fire_numbers_against_the_text(band):
    from oddslab.rulesets.hex_platoon.firepower import fire_numbers
    from oddslab.rulesets.hex_platoon.model import Rules as HPRules
    from oddslab.rulesets.hex_platoon.model import Unit as HPUnit

    for he, ap, plus, th, hard in itertools.product(
        (1, 2, 4), (0, 1, 3), (False, True), (2, 4, 5, 6), (False, True)
    ):
        fp = ap if hard else he
        if fp == 0:
            continue
        u = HPUnit("u", he=he, ap=ap, he_plus=plus, ap_plus=plus, range=6, to_hit=th)
        want = _hex_fire(fp, plus, th, band)
        if want is None:
            with pytest.raises(ValueError):
                fire_numbers(u, hard, band, None, HPRules())
            continue
        fn = fire_numbers(u, hard, band, None, HPRules())
        assert (fn.dice, fn.aug, fn.to_hit) == want, (he, ap, plus, th, hard, band)


# -- generic: damage modifiers and feel-no-pain from the rule text -------------------------------


def _dice(expr: str | int) -> dict[int, F]:
    """PMF of a damage characteristic: a number, or ``[n]D3``/``[n]D6`` plus a constant, a D3
    being a D6 halved rounding up (1-2: 1, 3-4: 2, 5-6: 3)."""
    if isinstance(expr, int):
        return {expr: F(1)}
    head, _, add = expr.partition("+")
    n, _, sides = head.partition("D")
    pmf = {int(add or 0): F(1)}
    for _ in range(int(n or 1)):
        step: dict[int, F] = {}
        for v, p in pmf.items():
            for d in range(1, 7):
                face = (d + 1) // 2 if sides == "3" else d
                step[v + face] = step.get(v + face, 0) + p / 6
        pmf = step
    return pmf


def _damage_text(rolled: int, halve: bool, extra: int, reduction: int, modified: bool) -> int:
    """Damage a wound inflicts: halve (rounding up), then add the critical wound's extra damage,
    then subtract the damage reduction to a minimum of 1 (a 0 stays 0); without ``modified``
    (a devastating wound when ``damage_modifiers_on_devastating`` is off) only the extra."""
    if not modified:
        return rolled + extra
    v = -(-rolled // 2) if halve else rolled
    v += extra
    return max(1, v - reduction) if v >= 1 else v


def _pmf_array(pmf: dict[int, F]) -> np.ndarray:
    out = np.zeros(max(pmf) + 1)
    for v, p in pmf.items():
        out[v] += float(p)
    return out


def _generic_damage_grid():
    for dmg, halve, extra, red, dev, on_dev in itertools.product(
        ("D6", "D3+1", 3, "2D3"), (False, True), (0, 2), (0, 1, 3), (False, True), (True, False)
    ):
        if not on_dev and not dev:
            continue  # the switch matters only for devastating wounds
        yield dmg, halve, extra, red, dev, on_dev


def test_generic_damage_maps_against_the_rule_text():
    """The damage one attack inflicts (exact engine, built from ``damage_maps``) against the
    text: a torrent attack wounding on 2+ (a 6 is a critical wound, devastating when the weapon
    is), no save, one model with wounds to spare, so ``damage`` is the modified damage of the
    attack: rolled damage halved (rounding up), + critical extra, - reduction (minimum 1)."""
    bad = []
    for dmg, halve, extra, red, dev, on_dev in _generic_damage_grid():
        w = Weapon(
            attacks=1, torrent=True, strength=8, damage=dmg, critical_wound_damage=extra,
            devastating_wounds=dev,
        )  # fmt: skip
        t = Target(models=1, wounds=40, toughness=1, save=7, halve_damage=halve,
                   damage_reduction=red)  # fmt: skip
        sc = GenericScenario((w,), t, rules=Rules(damage_modifiers_on_devastating=on_dev))
        want: dict[int, F] = {0: F(1, 6)}  # the wound roll's natural 1
        for rolled, p in _dice(dmg).items():
            for crit, q in ((False, F(4, 6)), (True, F(1, 6))):
                modified = on_dev or not (crit and dev)
                v = _damage_text(rolled, halve, extra if crit else 0, red, modified)
                want[v] = want.get(v, 0) + p * q
        got = sc.exact_pmfs()["damage"]
        if not _close(got, _pmf_array(want)):
            bad.append(((dmg, halve, extra, red, dev, on_dev), got.round(4).tolist()))
    assert not bad, f"{len(bad)} grid points differ; first: {bad[:3]}"


def test_generic_damage_maps_table_against_the_rule_text():
    """``damage_maps`` itself, entry by entry: rolled damage -> inflicted, per kind of packet
    (ordinary, critical, devastating, mortal wounds unmodified)."""
    from oddslab.rulesets.generic import compile as gc
    from oddslab.rulesets.generic import kernel as gk

    for _, halve, extra, red, _, on_dev in _generic_damage_grid():
        w = Weapon(critical_wound_damage=extra, devastating_wounds=True)
        t = Target(halve_damage=halve, damage_reduction=red)
        sc = GenericScenario((w,), t, rules=Rules(damage_modifiers_on_devastating=on_dev))
        maps = gc.damage_maps(sc, w, 13)
        for v in range(13):
            case = (halve, extra, red, on_dev, v)
            assert maps[gk.D_NORMAL, v] == _damage_text(v, halve, 0, red, True), case
            assert maps[gk.D_CRIT, v] == _damage_text(v, halve, extra, red, True), case
            assert maps[gk.D_DEV, v] == _damage_text(v, halve, extra, red, on_dev), case
            assert maps[gk.D_IDENTITY, v] == v, case


def _through(fnp: int | None) -> F:
    """P(a damage point gets through a feel-no-pain of ``fnp``+): ignored on fnp or more."""
    return F(1) if fnp is None else F(min(6, fnp - 1), 6)


def _binomial_f(n: int, p: F) -> dict[int, F]:
    from math import comb

    return {k: comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


def _convolve(a: dict[int, F], b: dict[int, F]) -> dict[int, F]:
    out: dict[int, F] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0) + p * q
    return out


@pytest.mark.parametrize("stack", [False, True])
def test_generic_feel_no_pain_against_the_rule_text(stack):
    """Each damage point is rolled for: ignored on ``feel_no_pain``+; a mortal wound's point
    uses the better of ``feel_no_pain`` and ``feel_no_pain_mortal`` (both rolled, ignored if
    either succeeds, with ``stack_feel_no_pain``). Two weapons: a torrent one dealing 2 per
    wound (wounds on 2+) and one whose critical hits (every hit, on 2+) deal 2 mortal wounds
    instead of a wound roll; ``mortal_wounds`` and ``damage`` from the exact engine (built
    from ``fnp_tables``) against binomials of the per-point probabilities."""
    bad = []
    for fnp, fnp_m in itertools.product((None, 2, 4, 5, 6), (None, 3, 5)):
        if stack and (fnp is None or fnp_m is None):
            continue  # the switch says how two feel-no-pains combine: both are needed
        ordinary = Weapon("o", attacks=1, torrent=True, strength=8, damage=2)
        mortal = Weapon("m", attacks=1, skill=2, critical_hit=2, critical_hit_mortals=2,
                        critical_hit_mortals_instead=True)  # fmt: skip
        t = Target(models=1, wounds=40, toughness=1, save=7, feel_no_pain=fnp,
                   feel_no_pain_mortal=fnp_m)  # fmt: skip
        sc = GenericScenario((ordinary, mortal), t, rules=Rules(stack_feel_no_pain=stack))
        q_o = _through(fnp)
        if stack:
            q_m = _through(fnp) * _through(fnp_m)  # both rolled: through only if both fail
        else:
            q_m = min(_through(fnp), _through(fnp_m))  # the better feel-no-pain of the two
        mortals = {0: F(1, 6)}
        for k, p in _binomial_f(2, q_m).items():
            mortals[k] = mortals.get(k, 0) + F(5, 6) * p
        ordinary_pts = {0: F(1, 6)}
        for k, p in _binomial_f(2, q_o).items():
            ordinary_pts[k] = ordinary_pts.get(k, 0) + F(5, 6) * p
        got = sc.exact_pmfs()
        for stat, want in (
            ("mortal_wounds", mortals),
            ("damage", _convolve(mortals, ordinary_pts)),
        ):
            if not _close(got[stat], _pmf_array(want)):
                bad.append((fnp, fnp_m, stat, got[stat].round(4).tolist()))
    assert not bad, f"{len(bad)} cases differ; first: {bad[:3]}"
