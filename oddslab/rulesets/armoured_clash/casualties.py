"""Armoured Clash kernel helpers: casualties, damage, C&C draws, suppression tests, activations.

numba only. Every helper works on the packed unit table ``W`` (layout in
:mod:`oddslab.rulesets.armoured_clash.layout`): static columns ``U_*`` then the per-trial
state ``S_*`` of each unit, plus one row per side (``X_*``: VPs, cards drawn, deck size).
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit, jit_inner
from oddslab._kernels.decks import draw_card
from oddslab._kernels.rng import randint
from oddslab.rulesets.armoured_clash.layout import (
    R_EMB_ALWAYS,
    R_EXPIRE_ALL,
    R_NOSTATUS,
    R_RALLY,
    S_BRK,
    S_COVER,
    S_DISO,
    S_DMG,
    S_FB,
    S_GARR,
    S_GONE,
    S_HELD,
    S_LOST,
    S_M,
    S_OFFL,
    S_RFAIL,
    S_START,
    S_SUPP,
    S_T,
    U_BREAK,
    U_CAP,
    U_CARRIED,
    U_CARRYING,
    U_CMDR,
    U_DISC,
    U_DL,
    U_FB_LOSS,
    U_FLEES,
    U_NOSUPP,
    U_OFFICER,
    U_SIDE,
    U_VP,
    X_DN,
    X_PTR,
    X_VP,
)

__all__ = [
    "draw",
    "annihilate",
    "destroy",
    "apply_damage",
    "suppression_test",
    "start_activation",
    "end_activation",
]


@jit(inline="always")
def draw(st, deck, W, nu, side):
    """Draw one card from side ``side``'s C&C deck ``deck[side]`` without replacement.

    ``W[nu + side, X_DN]`` cards, ``W[nu + side, X_PTR]`` drawn so far; when the deck runs out
    (communications breakdown) the discards are shuffled back (see
    :func:`oddslab._kernels.decks.draw_card`). Returns the card's value.
    """
    row = nu + side
    card, p = draw_card(st, deck[side], W[row, X_DN], W[row, X_PTR])
    W[row, X_PTR] = p
    return card


@jit_inner
def annihilate(u, W, nu):
    """Remove unit ``u`` from play (annihilated): the other side scores its VPs."""
    if W[u, S_GONE] != 0:
        return
    W[u, S_GONE] = 1
    W[u, S_M] = 0
    W[u, S_T] = 0
    W[nu + 1 - W[u, U_SIDE], X_VP] += W[u, U_VP]
    c = W[u, U_CARRYING]
    if c >= 0 and W[c, S_GONE] == 0:
        # a transport leaving play takes its passengers with it: all are destroyed
        W[c, S_LOST] += W[c, S_M]
        W[c, S_OFFL] = 1
        W[c, S_M] = 0
        W[c, S_T] = 0
        W[c, S_GONE] = 1
        W[nu + 1 - W[c, U_SIDE], X_VP] += W[c, U_VP]


@jit_inner
def _remove(st, u, k, W, nu, chosen):
    """Destroy ``k`` models of unit ``u`` (no transport follow-up); returns models destroyed.

    ``chosen`` (int64; callers pass ``np.int64(0/1)``, not a literal, so that numba compiles one
    signature instead of one per literal value) = 1 when the unit's general picks the models (passengers over a transport's
    capacity, models removed so that a fall back is possible): the officer is kept unless
    every model goes. Otherwise the unit's officer mode ``U_OFFICER`` decides.
    """
    m = W[u, S_M]
    if k > m:
        k = m
    if k <= 0:
        return 0
    mode = W[u, U_OFFICER]
    lost = False
    if k == m:
        lost = True
    elif chosen != 0:
        lost = False
    elif mode == 0:
        lost = W[u, S_OFFL] == 0  # the officer is the first casualty; its successor stays back
    elif mode == 2:
        lost = randint(st, m) < k  # the officer is a random one of the m models
    if lost:
        W[u, S_OFFL] = 1
        if W[u, U_CMDR] == 0:
            W[u, S_DISO] = 1
    W[u, S_M] = m - k
    W[u, S_LOST] += k
    if m - k == 0:
        annihilate(u, W, nu)
    return k


@jit_inner
def destroy(st, u, k, W, nu, chosen):
    """Destroy ``k`` models of ``u``; a transport's lost capacity destroys passengers too.

    ``chosen``: see :func:`_remove` (applies to ``u``; the passengers over capacity are always
    chosen by their general). Returns the models destroyed, passengers included (they count
    towards close quarters).
    """
    done = _remove(st, u, k, W, nu, chosen)
    c = W[u, U_CARRYING]
    if done > 0 and c >= 0 and W[c, S_GONE] == 0:
        cap = W[u, U_CAP] * W[u, S_M]
        if W[c, S_M] > cap:
            done += _remove(st, c, W[c, S_M] - cap, W, nu, np.int64(1))
    return done


@jit(inline="always")
def apply_damage(st, u, dmg, exposed, W, nu):
    """Add ``dmg`` damage to ``u``; each DAMAGE LIMIT reached destroys a model.

    With ``exposed >= 0`` only that many models can be destroyed; once they are, the rest of
    the damage is discarded. Returns the models destroyed (passengers included).
    """
    if dmg <= 0 or W[u, S_GONE] != 0:
        return 0
    W[u, S_DMG] += dmg
    dl = W[u, U_DL]
    total = W[u, S_T] + dmg
    k = total // dl
    W[u, S_T] = total - k * dl
    if exposed >= 0 and k >= exposed:
        k = exposed
        W[u, S_T] = 0
    if k >= W[u, S_M]:
        W[u, S_T] = 0
    return destroy(st, u, k, W, nu, np.int64(0))


@jit_inner
def _test_one(st, u, W, nu, deck, R, nostatus):
    """One suppression test for ``u``; returns 1 if it failed.

    ``nostatus`` (int64) = 1: the unit "cannot be suppressed" (the target of opportunity
    fire), so a failure does not make it suppressed; falling back and breaking still apply.
    A unit that can never be suppressed (aircraft, ``U_NOSUPP``) takes no test unless
    ``R[R_NOSTATUS]``, and then tests the same way.
    """
    if W[u, S_GONE] != 0:
        return 0
    if W[u, U_NOSUPP] != 0:
        if R[R_NOSTATUS] == 0:
            return 0
        nostatus = 1
    card = draw(st, deck, W, nu, W[u, U_SIDE])
    start = W[u, S_START]
    disc = W[u, U_DISC] - W[u, S_DISO]
    if 2 * (start - W[u, S_M]) >= start:
        disc -= 1
    if card <= disc:
        return 0
    if W[u, U_BREAK] >= 0 and W[u, S_M] <= W[u, U_BREAK]:
        W[u, S_BRK] = 1
        annihilate(u, W, nu)
    elif W[u, S_SUPP] != 0:
        W[u, S_FB] = 1
        if W[u, U_CARRIED] == 0:
            W[u, S_GARR] = 0  # a garrison falls back by exiting the building
            W[u, S_COVER] = 0  # it moves: no longer taking cover
            # its general removes the models that block the way: the officer stays
            destroy(st, u, W[u, U_FB_LOSS], W, nu, np.int64(1))
            if W[u, U_FLEES] != 0:
                annihilate(u, W, nu)
    elif nostatus == 0:
        W[u, S_SUPP] = 1
    return 1


@jit(inline="always")
def suppression_test(st, u, W, nu, deck, R, nostatus):
    """Suppression test for ``u`` and, if it is an occupied transport, for its passengers.

    ``nostatus`` (int64): see :func:`_test_one`; it applies to the passengers too (their
    test is a result of the same attack).
    """
    failed = _test_one(st, u, W, nu, deck, R, nostatus)
    c = W[u, U_CARRYING]
    if c >= 0 and (R[R_EMB_ALWAYS] != 0 or failed != 0):
        _test_one(st, c, W, nu, deck, R, nostatus)


@jit(inline="always")
def start_activation(st, u, W, nu, deck, R):
    """Unit ``u`` starts an activation: it stops taking cover; a suppressed unit rallies.

    Records the statuses it holds now (they expire at the end of this activation) and, when
    it is suppressed and rally tests are on, draws its rally test (a discipline test: card <=
    DISCIPLINE, -1 if disordered); a failure is kept in ``S_RFAIL`` for this activation.
    """
    if W[u, S_GONE] != 0:
        return
    W[u, S_COVER] = 0
    W[u, S_HELD] = W[u, S_SUPP] + 2 * W[u, S_DISO]
    W[u, S_RFAIL] = 0
    if W[u, S_SUPP] != 0 and R[R_RALLY] != 0:
        card = draw(st, deck, W, nu, W[u, U_SIDE])
        if card > W[u, U_DISC] - W[u, S_DISO]:
            W[u, S_RFAIL] = 1


@jit(inline="always")
def end_activation(u, W, R):
    """Unit ``u`` ends its activation: suppressed / disordered held at its start are lost.

    With ``R[R_EXPIRE_ALL]`` the statuses it gained during this activation are lost too.
    """
    if R[R_EXPIRE_ALL] != 0:
        W[u, S_SUPP] = 0
        W[u, S_DISO] = 0
    else:
        if W[u, S_HELD] & 1:
            W[u, S_SUPP] = 0
        if W[u, S_HELD] & 2:
            W[u, S_DISO] = 0
    W[u, S_HELD] = 0
    W[u, S_RFAIL] = 0
