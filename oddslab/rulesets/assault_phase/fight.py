"""Numba kernels shared by an assault step: dice, majorities, target choice, saves.

Every die goes through :func:`d6` or :func:`roll_count`, which read from ``script`` while
scripted dice remain (``script[0]`` is the read position, dice from ``script[1]``) so tests
can replay the worked examples of the rule text die by die. Production runs pass ``None``:
numba then compiles the kernel without the scripted branches (about 0.1 s less compile and a
few percent faster than with an empty script); the tests' scripted runs compile a variant of
their own. Array layouts: :mod:`oddslab.rulesets.assault_phase.layout`.
"""

from __future__ import annotations

from oddslab._jit import jit_inner
from oddslab._kernels.rng import count_d6, randint
from oddslab.rulesets.assault_phase.layout import (
    CX_ENT,
    CX_NENT,
    CX_RULES,
    E_NCOLS,
    E_SIDE,
    E_UNIT,
    G_AIM,
    G_ENT,
    G_INV,
    G_SIDE,
    G_SV,
    G_T,
    G_UNIT,
    G_W,
    G_WS,
    R_MAJORITY,
    R_REACH,
    R_TIE_SAVE,
    S_NFIXED,
    W_ABSENT,
    W_ALIVE,
    W_CON,
    W_DMG,
    W_HIT_E,
    W_IN_COMBAT,
    W_MIXED,
    W_MT,
    W_MWS,
    W_SUP,
    W_TRACK,
)


@jit_inner
def d6(st, script):
    """One D6: the next scripted die while any remain (``script`` an array), else a random
    one (always, when ``script`` is None).

    Same draw as ``rng.roll(st, 6)``.
    """
    if script is not None:
        pos = script[0]
        if pos < script.shape[0]:
            script[0] = pos + 1
            return script[pos]
    return randint(st, 6) + 1


@jit_inner(ints="ge six")
def roll_count(st, script, n, need):
    """Roll ``n`` D6; return (how many are >= ``need``, how many are 6).

    Draws exactly the dice ``n`` calls of :func:`d6` would (scripted dice first).
    """
    if script is not None and script[0] < script.shape[0]:
        ge = 0
        six = 0
        for _ in range(n):
            d = d6(st, script)
            ge += d >= need
            six += d == 6
        return ge, six
    return count_d6(st, n, need)


@jit_inner
def ld_test(st, script, ld, double_one):
    """2D6 <= ld passes (optionally a double one always passes)."""
    a = d6(st, script)
    b = d6(st, script)
    return a + b <= ld or (double_one and a == 1 and b == 1)


@jit_inner
def hittable(g, wk, reach_unit):
    """Models of group ``g`` that may take casualties (the danger zone)."""
    if reach_unit:
        return wk[W_ALIVE, g]
    return wk[W_CON, g] + wk[W_SUP, g]


@jit_inner
def remove_model(g, wk, reach_unit):
    """Remove one casualty from ``g``: models out of reach, then supporting, then contact."""
    wk[W_ALIVE, g] -= 1
    out_of_reach = wk[W_ALIVE, g] + 1 - wk[W_CON, g] - wk[W_SUP, g]
    if reach_unit and out_of_reach > 0:
        return
    if wk[W_SUP, g] > 0:
        wk[W_SUP, g] -= 1
    elif wk[W_CON, g] > 0:
        wk[W_CON, g] -= 1


@jit_inner
def remove_models(g, k, wk, reach_unit):
    """Remove ``k`` casualties from ``g`` at once: the same as ``k`` calls of
    :func:`remove_model` (out of reach first, then supporting, then contact)."""
    n = k
    if reach_unit:
        out_of_reach = wk[W_ALIVE, g] - wk[W_CON, g] - wk[W_SUP, g]
        if out_of_reach > 0:
            n -= out_of_reach if out_of_reach < n else n
    wk[W_ALIVE, g] -= k
    d = wk[W_SUP, g] if wk[W_SUP, g] < n else n
    wk[W_SUP, g] -= d
    n -= d
    d = wk[W_CON, g] if wk[W_CON, g] < n else n
    wk[W_CON, g] -= d


@jit_inner(ints="best_n best_v c kinds low total", flags="first tied")
def _group_majority(gi, wk, e, col, tie_high, tie_lowest, strict):
    """The majority of column ``col`` (WS or T) over entity ``e``'s models still in combat.

    ``strict == 0``: the value most models have; equal counts: the highest if ``tie_high``
    else the lowest of the tied values, or with ``tie_lowest`` the lowest value of all (WS:
    "If there is no majority Weapon Skill type use the lowest Weapon Skill in the unit").
    ``strict == 1``: a value more than half the models have; exactly two values at half
    each: the tie rule; otherwise the lowest value. -1 if nobody is left.
    """
    G = gi.shape[0]
    total = 0
    kinds = 0
    best_n = 0
    best_v = -1
    low = 11
    tied = False  # another value has as many models as best_v
    for g in range(G):
        n = wk[W_ALIVE, g]
        if gi[g, G_ENT] != e or n == 0 or wk[W_IN_COMBAT, gi[g, G_UNIT]] == 0:
            continue
        v = gi[g, col]
        total += n
        low = v if v < low else low
        c = 0
        first = True
        for h in range(G):
            if gi[h, G_ENT] == e and gi[h, col] == v and wk[W_IN_COMBAT, gi[h, G_UNIT]] != 0:
                c += wk[W_ALIVE, h]
                if h < g and wk[W_ALIVE, h] > 0:
                    first = False
        kinds += first
        if c > best_n:
            tied = False
        elif c == best_n and v != best_v:
            tied = True
        if c > best_n or (c == best_n and (v > best_v if tie_high else v < best_v)):
            best_n = c
            best_v = v
    if tied and tie_lowest:
        return low  # no majority type: the lowest value (under both readings)
    if strict == 0 or best_v < 0 or 2 * best_n > total or (2 * best_n == total and kinds == 2):
        # most common; or more than half; or two values at half each (the tie rule)
        return best_v
    return low  # no majority: the lowest value


@jit_inner
def majorities(gi, wk, tie_t_low, strict, reach_unit, n_ent):
    """Majority WS and T of every entity, and how many of its models can be hit.

    Counts models of units still in the combat (the living ones, at this step). WS ties:
    the lowest WS of all those models ("If there is no majority Weapon Skill type use the
    lowest"); T ties per ``tie_t_low`` (the owner's choice among the tied values);
    ``strict`` selects the reading of "majority" (see :func:`_group_majority`).
    ``wk[W_MWS, e]``/``wk[W_MT, e]`` get -1 if nobody is alive; ``wk[W_HIT_E, e]`` gets the
    models in the danger zone (as :func:`hittable`), for ``e < n_ent``.
    """
    # typed (not literal) constants: a literal argument compiles another specialisation
    no = strict < 0
    yes = strict >= 0
    for e in range(n_ent):
        wk[W_HIT_E, e] = 0
        wk[W_MWS, e] = -1
        wk[W_MT, e] = -1
        wk[W_MIXED, e] = 0
    # one pass: the danger zone, and whether each entity's living models share one WS and one
    # T (the usual case: then that value is the majority under every reading and tie rule)
    for g in range(gi.shape[0]):
        if wk[W_ALIVE, g] == 0 or wk[W_IN_COMBAT, gi[g, G_UNIT]] == 0:
            continue
        e = gi[g, G_ENT]
        wk[W_HIT_E, e] += hittable(g, wk, reach_unit)
        ws = gi[g, G_WS]
        t = gi[g, G_T]
        if wk[W_MWS, e] < 0:
            wk[W_MWS, e] = ws
            wk[W_MT, e] = t
        elif wk[W_MWS, e] != ws or wk[W_MT, e] != t:
            wk[W_MIXED, e] = 1
    for e in range(n_ent):
        if wk[W_MIXED, e] != 0:  # mixed values: count them
            wk[W_MWS, e] = _group_majority(gi, wk, e, G_WS + 0 * n_ent, no, yes, strict)
            wk[W_MT, e] = _group_majority(gi, wk, e, G_T + 0 * n_ent, not tie_t_low, no, strict)


@jit_inner(
    ints="best_inv best_n best_sv kinds n one_inv one_sv total worst_inv worst_n worst_sv",
    flags="first mixed",
)
def _save_majority(gi, ent, wk, reach_unit, tie_worse, strict):
    """The save type (armour, invulnerable) of the majority of ``ent``'s models in reach.

    Returns (models of that type in reach, armour, invulnerable); (0, 0, 0) if nobody is in
    reach. Equal counts: the better save unless ``tie_worse``. ``strict``: a type needs more
    than half the models (two halves: the tie rule), otherwise the worst save is used.
    """
    G = gi.shape[0]
    # the usual case first: every model in reach has one save type (then it is the majority
    # under every reading and tie rule); otherwise count the types below
    total = 0
    one_sv = -1
    one_inv = -1
    mixed = False
    for g in range(G):
        if gi[g, G_ENT] != ent:
            continue
        here = hittable(g, wk, reach_unit)
        if here == 0:
            continue
        total += here
        if one_sv < 0:
            one_sv = gi[g, G_SV]
            one_inv = gi[g, G_INV]
        elif gi[g, G_SV] != one_sv or gi[g, G_INV] != one_inv:
            mixed = True
    if total == 0:
        return 0, 0, 0
    if not mixed:
        return total, one_sv, one_inv
    best_n = 0
    best_sv = 0
    best_inv = 0
    total = 0
    kinds = 0
    worst_n = 0
    worst_sv = 0
    worst_inv = 0
    for g in range(G):
        if gi[g, G_ENT] != ent:
            continue
        here = hittable(g, wk, reach_unit)
        if here == 0:
            continue
        total += here
        sv = gi[g, G_SV]
        inv = gi[g, G_INV]
        n = 0
        first = True
        for h in range(G):
            if gi[h, G_ENT] == ent and gi[h, G_SV] == sv and gi[h, G_INV] == inv:
                n += hittable(h, wk, reach_unit)
                if h < g and hittable(h, wk, reach_unit) > 0:
                    first = False
        kinds += first
        better = sv < best_sv or (sv == best_sv and inv < best_inv)
        if n > best_n or (n == best_n and better != tie_worse):
            best_n = n
            best_sv = sv
            best_inv = inv
        if worst_n == 0 or sv > worst_sv or (sv == worst_sv and inv > worst_inv):
            worst_n = n
            worst_sv = sv
            worst_inv = inv
    if strict != 0 and (2 * best_n < total or (2 * best_n == total and kinds > 2)):
        return worst_n, worst_sv, worst_inv
    return best_n, best_sv, best_inv


@jit_inner(ints="fails inflicted unsaved")
def resolve_saves(st, script, gi, ent, n_noarm, n_heavy, n_normal, wk, cx, res):
    """Majority-save procedure for wounds against entity ``ent``; returns (unsaved, inflicted).

    Repeatedly: find the majority save type (armour, invulnerable) among the models in the
    danger zone, roll one batch of as many saves as there are such models (no-armour
    wounds first, then heavy-weapon wounds, then the rest: special attacks as early as
    possible), and allocate the failures model by model to that save type. Wounds left when
    no model is in reach are discarded. ``wk[W_TRACK, 0]`` receives the group of the last
    model wounded and ``wk[W_TRACK, 1]`` 1 if that model is still alive (for force weapons).
    """
    reach_unit = cx[CX_RULES + R_REACH] != 0
    tie_worse = cx[CX_RULES + R_TIE_SAVE] != 0
    strict = cx[CX_RULES + R_MAJORITY]
    G = gi.shape[0]
    unsaved = 0
    inflicted = 0
    wk[W_TRACK, 0] = -1
    wk[W_TRACK, 1] = 0
    rem = n_noarm + n_heavy + n_normal
    while rem > 0:
        best_n, best_sv, best_inv = _save_majority(gi, ent, wk, reach_unit, tie_worse, strict)
        if best_n == 0:
            break  # nobody left in reach: surplus wounds are discarded
        batch = best_n if best_n < rem else rem
        rem -= batch
        fails = 0
        # the batch: wounds ignoring armour first, then heavy-weapon wounds, then the rest
        k0 = n_noarm if n_noarm < batch else batch
        k1 = n_heavy if n_heavy < batch - k0 else batch - k0
        k2 = batch - k0 - k1
        n_noarm -= k0
        n_heavy -= k1
        n_normal -= k2
        need_heavy = best_sv if best_sv > 4 else 4
        need_heavy = need_heavy if need_heavy < best_inv else best_inv
        need_normal = best_sv if best_sv < best_inv else best_inv
        for kind in range(3):
            k = k0 if kind == 0 else (k1 if kind == 1 else k2)
            need = best_inv if kind == 0 else (need_heavy if kind == 1 else need_normal)
            if k == 0:
                continue
            if need >= 7:  # no save possible: no die rolled
                fails += k
            else:
                saved, _six = roll_count(st, script, k, need)
                fails += k - saved
        unsaved += fails
        for g in range(G):
            if fails == 0:
                break
            if gi[g, G_ENT] != ent or gi[g, G_SV] != best_sv or gi[g, G_INV] != best_inv:
                continue
            w = gi[g, G_W]
            if w == 1 and wk[W_DMG, g] == 0:
                # one-wound models: each failure slays one, so take them all at once
                k = hittable(g, wk, reach_unit)
                k = fails if fails < k else k
                if k > 0:
                    fails -= k
                    inflicted += k
                    res[S_NFIXED + g] += k
                    wk[W_TRACK, 0] = g
                    wk[W_TRACK, 1] = 0
                    remove_models(g, k, wk, reach_unit)
                continue
            while fails > 0 and hittable(g, wk, reach_unit) > 0:
                fails -= 1
                inflicted += 1
                wk[W_DMG, g] += 1
                wk[W_TRACK, 0] = g
                if wk[W_DMG, g] >= w:
                    wk[W_DMG, g] = 0
                    res[S_NFIXED + g] += 1
                    remove_model(g, wk, reach_unit)
                    wk[W_TRACK, 1] = 0
                else:
                    wk[W_TRACK, 1] = 1
    return unsaved, inflicted


@jit_inner
def entity_has_targets(gi, ent, wk, reach_unit):
    """Whether entity ``ent`` has a model that can be hit now (units still in the combat)."""
    for g in range(gi.shape[0]):
        if gi[g, G_ENT] == ent and wk[W_IN_COMBAT, gi[g, G_UNIT]] != 0:
            if hittable(g, wk, reach_unit) > 0:
                return True
    return False


@jit_inner
def pick_target(gi, cx, g, wk, reach_unit, redirect, only_unit, live):
    """Entity group ``g`` attacks: its first aim, else (if ``redirect``, or if the aim's unit
    never joined the fight) another enemy entity.

    Redirection takes the first enemy entity with models in reach, looking only at entities
    of ``only_unit`` when it is >= 0 (sweeping advances). With ``live`` the danger-zone counts
    are recomputed; otherwise ``wk[W_HIT_E]`` from the start of the step is used. Returns -1
    when nobody is available.
    """
    e = gi[g, G_AIM]
    if entity_has_targets(gi, e, wk, reach_unit) if live else wk[W_HIT_E, e] > 0:
        return e
    # a group whose target unit failed its charge or to regroup was never engaged with it:
    # "Models engaged with ... a single unit must attack that unit", so it attacks the others
    if not redirect and wk[W_ABSENT, cx[CX_ENT + E_NCOLS * e + E_UNIT]] == 0:
        return -1
    enemy = 1 - gi[g, G_SIDE]
    for f in range(cx[CX_NENT]):
        if cx[CX_ENT + E_NCOLS * f + E_SIDE] != enemy:
            continue
        if only_unit >= 0 and cx[CX_ENT + E_NCOLS * f + E_UNIT] != only_unit:
            continue
        if entity_has_targets(gi, f, wk, reach_unit) if live else wk[W_HIT_E, f] > 0:
            return f
    return -1
