"""Layout of the packed game array ``G`` of formation actions (plain Python constants).

Everything a game needs lives in one packed ``int64`` array ``G`` built by :mod:`.compile`
and read by :mod:`.kernel` (one array instead of several because every array argument of a
call costs reference counting; the game is one function over ``G`` and the generator state):

``G[0:H_SIZE]``
    rule switches ``R_*`` and the offsets ``H_*`` of the sections below.
``G[H_FOFF ...]``
    one row of ``F_NCOLS`` per formation (army 0's formations first, then army 1's).
``G[H_AOFF ...]``
    one row of ``A_NCOLS`` per army.
``G[H_POFF ...]``
    one formation index per formation: each army's formations in activation order when
    that order is fixed (``A_FIXED``: listed, or best/worst-first when chances never
    change, i.e. the action test's -1 does not depend on Shock, and the retaining test's
    -1 does not reorder them).
``G[H_WOFF ...]``
    per-trial state: the Shock of each formation.
``G[H_ROFF ...]``
    the per-trial statistics row (layout in :mod:`.compile`).
``G[H_TOFF ...]``
    where each turn's statistics go in the histogram: for turn ``t``, a block of
    ``3 * nf + 4 * 2`` bin offsets (:func:`turn_block`), ``T_*`` per formation then ``TA_*`` per
    army. The game adds 1 at ``offset + value`` as soon as the turn ends instead of keeping
    the value in the row for :func:`~.kernel.run_games` to histogram: these are most of the
    statistics (264 of 342 in the retain example), and the round trip through the row cost
    more than the rest of a turn's bookkeeping.

numba reads these as compile-time constants. Its own cache keys a compiled kernel on the
kernel's file alone, but oddslab caches under a digest of every source file
(:func:`oddslab._jit.cache_dir`), so a change here recompiles the kernels that read it.
"""

from __future__ import annotations

# header: rule switches
R_TURNS = 0
R_PENALTY = 1  # 0 suppressed, 1 shock, 2 either, 3 both
R_NAT1 = 2
R_NAT6 = 3
R_RALLY_PEN = 4
R_RETAIN_LIMIT = 5  # 0 in-a-row, 1 once-per-turn
R_WITHDRAW = 6  # 0 stays-broken, 1 removed
R_BREAK = 7  # 0 immediate, 1 end-phase
R_OS_TIMING = 8  # 0 before-rally, 1 start-of-turn
R_FIRST_TIE = 9  # -1 reroll, else the army index
# header: layout
H_NF = 10
H_FOFF = 11
H_AOFF = 12
H_WOFF = 13
H_ROFF = 14
H_NSLOTS = 15
H_POFF = 16  # activation order: formation indices, each army's block sorted by its policy
H_TOFF = 17  # histogram offsets of the turn statistics
R_BROKEN_CAP = 18  # 1: a broken formation's Shock is at most its units (broken_shock "cap")
H_SIZE = 19

# formation columns
F_ARMY = 0
F_COMMAND = 1
F_UNITS = 2
F_SUPP = 3
F_SHOCK0 = 4
F_BROKEN0 = 5
F_THRESH = 6
F_NEAR = 7
F_OS_KIND = 8  # 0 none, 1 fixed, 2 dice, 3 table
F_OS_N = 9  # fixed value, or number of dice
F_OS_SIDES = 10
F_OS_ADD = 11
F_STAT0 = 12
F_NCOLS = 13
# formation statistic offsets (then N shock_after_turn, N broken_by_turn, N action_turn,
# broken_at_end, out_of_play)
FS_ACTIONS = 0
FS_HOLDS = 1
FS_RALLIED = 2  # rallies from broken
FS_WITHDRAWALS = 3
FS_RALLIED_UNBROKEN = 4  # rally tests passed while not broken (Shock removed)
FS_SHOCK = 5
# after the 3 * turns turn slots: the end state, set once when the game ends (FS_SHOCK +
# 3 * turns + FE_*): broken (or out of play) after the last turn's rallies, and out of play
FE_BROKEN = 0
FE_OUT = 1

# army columns
A_STRAT = 0
A_RETAIN = 1  # 0 never, 1 if-chance, 2 always
A_MINFACES = 2
A_ORDER = 3  # 0 listed, 1 best-first, 2 worst-first
A_CHOOSE = 4  # 0 first, 1 second
A_START = 5  # first formation row
A_STOP = 6
A_STAT0 = 7
A_FIXED = 8  # 1: the activation order is fixed (G[H_POFF ...]); 0: chosen at each activation
A_NCOLS = 9
# army statistic offsets: won, withdrawals, N actions_turn, N holds_turn, N broken_after_turn,
# retain_attempts, retained, N won_strategy_turn
AS_WON = 0
AS_WITHDRAWALS = 1
AS_TURNS = 2

# per-trial state rows (flags are bit masks in registers, see play_game)
W_SHOCK = 0
W_NROWS = 1

# turn statistics: offsets in a turn's block of G[H_TOFF ...], per formation (3 each) then
# per army (4 each)
T_SHOCK = 0  # Shock after the turn
T_BROKEN = 1  # broken by the turn (ever)
T_ACTION = 2  # 0 no action, 1 action, 2 Hold
T_NCOLS = 3
TA_ACTIONS = 0
TA_HOLDS = 1
TA_BROKEN = 2  # broken (or gone) after the turn
TA_WON = 3  # won the turn's strategy roll
TA_NCOLS = 4


def turn_block(nf: int) -> int:
    """Entries of one turn's block of the turn-statistics table (``nf`` formations)."""
    return T_NCOLS * nf + TA_NCOLS * 2


def turn_slots(nt: int, f_stat0, a_stat0):
    """The statistics-row slot of each entry of the turn-statistics table of an ``nt``-turn
    game whose formations' and armies' statistics start at slots ``f_stat0`` and ``a_stat0``:
    int64[nt * turn_block(len(f_stat0))]."""
    import numpy as np

    nf = len(f_stat0)
    out = np.empty((nt, turn_block(nf)), dtype=np.int64)
    t = np.arange(nt)
    for i, s0 in enumerate(f_stat0):
        s = s0 + FS_SHOCK + t
        col = T_NCOLS * i
        out[:, col + T_SHOCK] = s
        out[:, col + T_BROKEN] = s + nt
        out[:, col + T_ACTION] = s + 2 * nt
    for a, s0 in enumerate(a_stat0):
        s = s0 + AS_TURNS + t
        col = T_NCOLS * nf + TA_NCOLS * a
        out[:, col + TA_ACTIONS] = s
        out[:, col + TA_HOLDS] = s + nt
        out[:, col + TA_BROKEN] = s + 2 * nt
        out[:, col + TA_WON] = s + 3 * nt + 2
    return out.reshape(-1)
