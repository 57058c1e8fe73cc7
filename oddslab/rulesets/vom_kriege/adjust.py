"""Numba: battle dice for one shooting or melee roll, from the live state of a trial.

The same tables as :mod:`.tables` (which adds the plain-words breakdown); the tests check
the two agree on every combination of inputs.
"""

from __future__ import annotations

from oddslab._jit import jit_inner, jit_noalloc
from oddslab.rulesets.vom_kriege import layout as L


@jit_noalloc
def order_support(T, order, supp):
    """The row "Order bonus, or for each support unit: +1": two sources, each adding (+1 for
    the order bonus and +1 for each support) unless the switch counts only the larger."""
    if T[0, L.R_ORDER_STACK] == 1:
        return order + supp
    return max(order, supp)


@jit_noalloc
def skirmish_target(T, W, t):
    """1 if ``t`` is a skirmish target for the artillery row (switch: an (sk) unit, a unit
    in open order, or either)."""
    sk = T[1 + t, L.U_SK] == 1
    opened = W[t, L.S_FORM] == L.F_OPEN
    how = T[0, L.R_SK_TARGET]
    if how == 0:
        return 1 if sk else 0
    if how == 1:
        return 1 if opened else 0
    return 1 if (sk or opened) else 0


@jit_noalloc
def shoot_dice(T, W, u, t, band, order, supp, enfilade, obscured):
    """Battle dice for ``u`` shooting ``t`` at range band ``band``; (dice, marker).

    ``dice`` is -1 when ``u`` cannot shoot at that range. ``marker`` is 0 for skirmish fire
    (no shooting marker), else 1. Square and skirmish fire take no adjustments.
    """
    troop = T[1 + u, L.U_TROOP]
    form = W[u, L.S_FORM]
    terr = T[1 + u, L.U_TERR]
    if troop == L.CAV:
        return -1, 0
    if troop == L.ART:
        if form != L.F_UNLIMBERED:
            return -1, 0
        base = T[T[0, L.R_OFP] + T[1 + u, L.U_ARTROW], band]
    else:
        if form == L.F_MARCH:
            return -1, 0
        if band == 0:
            if form == L.F_SQUARE:
                return 1, 1
            if terr == L.T_WOODS or terr == L.T_BUA:
                base = 2
            elif form == L.F_LINE or form == L.F_2RANK:
                base = 4
            else:
                base = 2
        elif band == 1:
            if T[1 + u, L.U_SK] == 0 or form == L.F_SQUARE or terr == L.T_BUA:
                return -1, 0
            if terr == L.T_WOODS and form != L.F_OPEN:
                return -1, 0
            if T[0, L.R_SK_ONE] == 1:
                return 1, 0
            return (2 if form == L.F_OPEN else 1), 0
        else:
            return -1, 0
    stack = T[0, L.R_OR_ROWS]
    adj = order_support(T, order, supp)
    if troop == L.INF and form == L.F_2RANK and band == 0:
        adj += 1
    art_rows = troop == L.ART or T[0, L.R_ART_TARGET] == 1
    tf = W[t, L.S_FORM]
    tt = T[1 + t, L.U_TERR]
    shape = 1 if (tf == L.F_SQUARE or tf == L.F_COLUMN or tf == L.F_MARCH) else 0
    if art_rows and stack == 2:
        adj += enfilade + shape  # every condition of "enfiladed, square, or column" adds
    elif art_rows and (enfilade == 1 or shape == 1):
        adj += 1
    if tt == L.T_WOODS:
        adj -= 1
    elif tt == L.T_BUA or tt == L.T_FIELDWORKS:
        if T[0, L.R_ART_TARGET] == 1:
            ttroop = T[1 + t, L.U_TROOP]
            adj -= 2 if ttroop == L.INF else (1 if ttroop == L.ART else 0)
        else:
            adj -= 1 if troop == L.ART else 2
    # "at 3"-6" range": the 3" and 6" columns (switch: the 6" column only)
    sk_band = band == 1 or (band == 0 and T[0, L.R_SK_CLOSE] == 1)
    if art_rows and sk_band and skirmish_target(T, W, t):
        adj -= 1
    shaken = 1 if W[u, L.S_HITS] == T[1 + u, L.U_STR] - 1 else 0
    diso = W[u, L.S_DISO]
    if stack >= 1:
        adj -= shaken + 2 * diso
    elif diso == 1:
        adj -= 2
    elif shaken == 1:
        adj -= 1
    halvings = W[u, L.S_MARK] + obscured
    if T[0, L.R_HALVE_BEFORE] == 1:
        fp = base
        for _ in range(halvings):
            fp = max(fp // 2, 1)
        n = fp + adj
    else:
        n = base + adj
        for _ in range(halvings):
            # "round down but no less than 1" (switch: a count at 0 or below stays)
            if n >= 1 or T[0, L.R_HALF_FLOOR] == 1:
                n = max(n // 2, 1)
    n = max(n, T[0, L.R_MIN_DICE])
    return max(n, 0), 1


@jit_noalloc
def melee_dice(T, W, u, opp, attacking, order, supp, uphill, hits, diso, opp_diso):
    """Battle dice for ``u`` in melee against ``opp`` (step 3), from the state ``hits``/``diso``.

    ``attacking`` is 1 for the unit making the attack (lancers' charge, terrain and uphill
    apply), 0 for a battle back.
    """
    return melee_dice_vs(
        T,
        W,
        u,
        T[1 + opp, L.U_TROOP],
        W[opp, L.S_FORM],
        T[1 + opp, L.U_TERR],
        attacking,
        order,
        supp,
        uphill,
        hits,
        diso,
        opp_diso,
    )


@jit_inner
def melee_dice_vs(T, W, u, otroop, oform, oterr, attacking, order, supp, uphill, hits, diso, odiso):
    """:func:`melee_dice` against an opponent of troop ``otroop`` (``L.LEADER`` for a leader),
    formation ``oform`` and terrain ``oterr``, ``odiso`` 1 if it is disordered."""
    troop = T[1 + u, L.U_TROOP]
    form = W[u, L.S_FORM]
    if attacking == 1 and troop == L.CAV and oform == L.F_SQUARE:
        return 1
    base = 1 if (form == L.F_SQUARE or form == L.F_MARCH) else T[1 + u, L.U_STR]
    adj = order_support(T, order, supp)
    q = T[1 + u, L.U_QUAL]
    if q == L.Q_ELITE:
        adj += 1
    elif q == L.Q_CONSCRIPT:
        adj -= 1
    elif q == L.Q_IRREGULAR and odiso == 0:
        adj -= 2
    if troop == L.CAV and T[1 + u, L.U_KIND] == L.K_HEAVY_CAV:
        adj += 1
    if attacking == 1 and troop == L.CAV and T[1 + u, L.U_KIND] == L.K_LANCERS and otroop == L.INF:
        adj += 1
    # "X, or Y or Z | -1 -2": items X and "Y or Z" (one value each); switch or_rows
    stack = T[0, L.R_OR_ROWS]
    shaken = 1 if hits == T[1 + u, L.U_STR] - 1 else 0
    opened = 1 if form == L.F_OPEN else 0
    dis_open = 1 if (diso == 1 or opened == 1) else 0
    if stack == 2:
        adj -= shaken + 2 * diso + 2 * opened
    elif stack == 1:
        adj -= shaken + 2 * dis_open
    elif dis_open == 1:
        adj -= 2
    elif shaken == 1:
        adj -= 1
    w = 1 if oterr == L.T_WOODS else 0
    b = 1 if (oterr == L.T_BUA or oterr == L.T_FIELDWORKS) else 0
    up = uphill if attacking == 1 else 0
    if stack == 2:
        adj -= w + up + 2 * b
    elif stack == 1:
        adj -= (1 if (w == 1 or up == 1) else 0) + 2 * b
    elif b == 1:
        adj -= 2
    elif w == 1 or up == 1:
        adj -= 1
    n = max(base + adj, T[0, L.R_MIN_DICE])
    return max(n, 0)
