"""Table layouts shared by the hex platoon compiler and kernels (plain Python constants).

Column indices of the unit (``U_*``), hex (``H_*``), step (``S_*``), member (``M_*``),
rule (``R_*``), work (``W_*``), statistic programme (``O_*``, ``OK_*``) and fast-path
(``F_*``) tables; step kinds ``K_*``. Importing this module compiles nothing.
"""

from __future__ import annotations

# -- unit columns ----------------------------------------------------------------------------
U_HEX = 0
U_HARD = 1
U_INF = 2  # infantry (concealment in cultivated, concealed-infantry rule, assault modifiers)
U_HQ = 3
U_LEAD0 = 4  # leadership on the full side
U_LEAD1 = 5  # leadership on the reduced side
U_MORALE = 6
U_ARMOR = 7
U_SAVE = 8
U_SIDE0 = 9  # 0 full, 1 reduced
U_DIS0 = 10
U_OPS0 = 11
U_OOC0 = 12
U_CONC = 13  # concealed by terrain and the listed conditions (needs no Ops Complete too)
U_NCOLS = 14

# -- hex columns -----------------------------------------------------------------------------
H_DB = 0  # infantry defensive bonus of the terrain (dice)
H_DBH = 1  # defensive bonus for hard targets
H_IP = 2  # improved position
H_FIRST = 3  # first index of the hex's non-HQ units in ``hexu``
H_COUNT = 4  # how many
H_HQ = 5  # unit index of the hex's (s)HQ, -1 none
H_NCOLS = 6

# -- step kinds and columns ------------------------------------------------------------------
K_FIRE = 0
K_MORTAR = 1
K_ARTILLERY = 2
K_MOVE = 3
K_CLEAR = 4
K_RALLY = 5
K_COMMAND = 6
K_ASSAULT = 7
K_OVERRUN = 8
K_AIR = 9

S_KIND = 0
S_UNIT = 1  # firer, mortar, aircraft
S_TARGET = 2  # target unit (fire); target / defender / moving / command hex otherwise
S_HEX2 = 3  # attacker hex (assault, overrun); adjacent hex of an air strike (-1 none)
S_DICE = 4  # firepower dice after range and support weapons
S_AUG = 5  # augmentation dice (each: one more die, the lowest ignored)
S_TH = 6  # To Hit number
S_HQ = 7  # HQ lending its leadership (-1 none)
S_DIRECT = 8  # direct fire (ranged / opportunity)
S_OPP = 9  # opportunity fire: index of the move step it answers (-1: ordinary fire)
S_FLAG = 10  # move: mines; assault: defender can retreat; mortar: mission roll; command: morale
S_NMEM = 11
S_SPOT = 12  # mortar fire observed by this (s)HQ / recon unit (-1: own line of sight)
S_MARK = 13  # hex whose moving stack gets its Ops Complete marker before this step (-1 none)
S_CONT = 14  # hex whose stack this step may continue to move (move, assault, overrun; -1 none)
S_NCOLS = 15

M_UNIT = 0  # unit (or hex for artillery)
M_DICE = 1
M_AUG = 2
M_TH = 3  # To Hit for a good-order unit
M_HQ = 4  # this member receives its side's HQ leadership
M_SIDE = 5  # assault / overrun: 0 attacker, 1 defender
M_DICE_DIS = 6  # dice of a disrupted defender (no good-order modifiers)
M_NCOLS = 7

# -- rule switches ---------------------------------------------------------------------------
R_EXCESS_PASS = 0  # hits beyond elimination pass to the other units of the stack
R_CONC_INF = 1  # concealed infantry may not be reduced (Additional Rules)
R_CONC_ALL = 2  # ... by any fire (mortars, artillery, air), not only direct fire
R_CONC_OUTSIDE_CAP = 3  # the concealment die is added on top of the hard-target cap of 2
R_CONC_LOST = 4  # a target loses concealment once it has been fired at
R_COVER5 = 5  # hard targets' defensive-bonus dice save on 5+ (Armor Bonus for cover)
R_ART_EXTRA_DIE = 6  # mortars/artillery: +1 attack die with more than one target in the hex
R_ART_HARD_IGNORE = 7  # mortars/artillery: a hard target ignores its first hit
R_ART_SOFT_EXTRA = 8  # mortars/artillery, soft with hard in the hex: 0 no extra defence die,
# 1 one for the hex, 2 one per (living) soft target
R_ASSAULT_LITERAL = 9  # attacker retreats when it *receives* fewer hits than the defender
R_MINES_SUM = 10  # mines: one hit if the 2D6 sum is >= 5 (else each die >= 5 is a hit)
R_CLEAR_SUM = 11  # clearing: the sum of the dice is even (else any die even)
R_AIR_FAIL_ZERO = 12  # hits of a strike gone astray do not count for the return roll
R_DIS_AIR_STRIKES = 13  # a disrupted aircraft still makes its strike
R_AIR_CONC_ANY = 14  # strike save +1 if any unit in the hex is concealed (else all)
R_HQ_AGAIN_STAYS = 15  # a reduced (s)HQ reduced again stays reduced (else eliminated)
R_IP_AFTER_SAVES = 16  # improved position nullifies the first unsaved hit
# 0 leadership added to firepower, 1 augmented by the rating, 2 by one die, 3 one augmentation
# die in all (augment = "once": the counter's +, a + weapon and the leadership together)
R_HQ_MODE = 17
R_MORTAR_MISSION_ROLL = 18  # observed mortar fire rolls the mission failure 1D6
R_HQ_ASSAULT_MODE = 19  # as R_HQ_MODE, for the Assault factor
R_HIT_PER_ATTACK = 20  # one step down per attack beyond the disruption (else one per hit)
R_MOVE_OPS_ON_ENTER = 21  # a moving stack is marked Ops Complete as it enters each hex
R_MINES_NO_STOP = 22  # units disrupted or reduced by mines do not stop their stack
R_MINES_NO_IP = 23  # an improved position does not nullify the first mines hit
R_ART_HARD_PER_ATTACK = 24  # ... one hit per attack on the hex, not one per hard target
R_OPS_FIRE_ONLY = 25  # an Ops Complete marker bars fire only, not moving, assaulting, clearing
R_NCOLS = 26

# -- work rows (per unit) and record fields ---------------------------------------------------
# hs[h], per hex: bit HS_STOPPED the stack there was stopped (moves no further, no assault);
# bit HS_MOVED it has moved and still waits for its Ops Complete marker
HS_STOPPED = 1
HS_MOVED = 2
W_SIDE = 0  # 0 full, 1 reduced, 2 eliminated
W_DIS = 1
W_OPS = 2
W_OOC = 3
W_CLOST = 4  # concealment lost
W_HIT = 5  # worsened in the current step
W_KILL = 6  # eliminated in the current step
W_GONE = 7  # AFV that retreated from an overrun
W_STEP = 8  # stepped down (reduced or eliminated) by the current attack
W_MV = 9  # its Ops Complete marker came from the movement it is in the middle of
W_NROWS = 10

NREC = 16

# -- statistic programme ----------------------------------------------------------------------
O_KIND = 0
O_A = 1
O_B = 2
O_MAX = 3  # largest bin
O_NCOLS = 4
OK_STATE = 0  # unit a: 0 good order, 1 disrupted, 2 reduced, 3 eliminated
OK_REC = 1  # rec[a, b]
OK_HEX_GE = 2  # non-HQ units of hex a at state >= b
OK_STATE_GE = 3  # unit a at state >= b (0/1)
OK_STATE_DETAIL = 4  # unit a: 0 good order, 1 disrupted, 2 reduced, 3 reduced and disrupted,
# 4 eliminated

# -- fast path: a scenario that is one static fire attack ------------------------------------
F_ON = 0  # 1: use the fast path
F_DICE = 1  # firepower dice (HQ leadership folded in)
F_ALL = 2  # dice rolled (firepower + augmentation)
F_TH = 3  # To Hit
F_SAVE_N = 4  # save dice at F_SAVE_NEED+ (soft: defensive bonus; hard: armor [+ bonus])
F_SAVE_NEED = 5
F_COVER_N = 6  # hard targets under "Armor Bonus for cover": bonus dice at 5+
F_IP_BEFORE = 7  # improved position: first hit nullified before saves
F_IP_AFTER = 8  # ... or the first unsaved hit
F_TAB = 9  # target state after u unsaved hits: fast[F_TAB + u] = state + 8 * detailed state
F_BLOCK = 256  # words drawn per refill (1024 d36 values)
F_STREAMS = 16


# -- numba signatures (one per kernel function: fixed dtypes, no literal specialisations) ------
U1 = "uint64[::1]"
U2 = "uint64[:, ::1]"
I1 = "int64[::1]"
I2 = "int64[:, ::1]"
I3 = "int64[:, :, ::1]"
R2 = "int32[:, ::1]"  # a chunk's per-trial records (oddslab._kernels.chunks)
INT = "int64"
BOOL = "boolean"


def sig(ret: str, *args: str) -> str:
    """A numba signature string ``ret(arg, ...)``."""
    return f"{ret}({', '.join(args)})"
