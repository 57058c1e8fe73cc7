"""Array layouts shared by the Armoured Clash compiler and its numba kernel.

Plain integer constants (no numba here): the column of every value in the unit table
``UI`` / packed table ``W``, the attack table ``AT``, the rule switches ``R``, the
per-trial result vector ``res`` and the packed face table ``FT``. ``compile.py`` writes these
arrays and ``kernel.py`` / ``casualties.py`` read them.
"""

from __future__ import annotations

# -- unit table W[u, :] -----------------------------------------------------------------------
U_SIDE = 0  # 0 or 1: whose C&C deck it draws from, who scores its VPs (the other side)
U_DEF = 1  # DEFENCE
U_DL = 2  # DAMAGE LIMIT
U_DISC = 3  # DISCIPLINE
U_BREAK = 4  # BREAK LIMIT, -1 = cannot break
U_VP = 5  # VP rating at its reinforcement level
U_OFFICER = 6  # 0 officer dies with the first casualty, 1 last, 2 a random model
U_CMDR = 7  # 1 = within 6" of a friendly commander: cannot become disordered
U_NOSUPP = 8  # 1 = cannot be suppressed (aircraft): no suppression tests
U_CAP = 9  # transport capacity per model (0 = not a transport)
U_CARRYING = 10  # index of the embarked unit, -1 none
U_CARRIED = 11  # 1 = this unit is embarked on a transport
U_FB_LOSS = 12  # models removed when it falls back (blocked), >= 0
U_FLEES = 13  # 1 = falling back takes it off its own edge: annihilated
U_WD_LOSS = 14  # models destroyed when it withdraws from a close quarters combat
U_BYDMG = 15  # 1 = dice columns indexed by damage tokens (behemoth)
U_MODELS = 16  # models at the start of the sequence
U_TOKENS = 17  # damage tokens at the start
U_SUPP = 18  # statuses at the start
U_DISO = 19
U_COVER = 20
U_GARR = 21
U_MELEE = 22  # dice column of its retaliation (melee) attack, -1 = no MELEE score
U_NCOLS = 23

# -- per-trial state W[u, S_*] -----------------------------------------------------------------
# The state columns follow the static ones in the same packed array W (one array per chunk,
# so helpers take one table instead of three; see run_chunk).
S_M = U_NCOLS + 0  # models
S_T = U_NCOLS + 1  # damage tokens
S_SUPP = U_NCOLS + 2
S_DISO = U_NCOLS + 3
S_COVER = U_NCOLS + 4
S_GARR = U_NCOLS + 5
S_GONE = U_NCOLS + 6  # annihilated / broken / fled
S_OFFL = U_NCOLS + 7  # officer lost at least once
S_FB = U_NCOLS + 8  # fell back at least once
S_BRK = U_NCOLS + 9  # broke
S_LOST = U_NCOLS + 10  # models destroyed (damage, withdrawal, falling back, transport capacity)
S_HITS = U_NCOLS + 11  # hits taken
S_DMG = U_NCOLS + 12  # damage points taken
S_START = U_NCOLS + 13  # models at the start of the current attack
W_NCOLS = U_NCOLS + 14

# -- per-side rows W[nu + side, X_*] after the nu unit rows --------------------------------------
X_VP = 0  # victory points scored by the side
X_PTR = 1  # cards drawn from its C&C deck
X_DN = 2  # cards in its C&C deck

# -- attack table AT[a, :] ---------------------------------------------------------------------
A_KIND = 0  # 0 ranged, 1 close quarters
A_ATT = 1
A_TGT = 2
A_COL = 3  # attacker's dice column
A_STATIC = 4  # bonuses - penalties known in advance (suppressed/concealed are added live)
A_CONC = 5  # situation says concealed (before prioritising exposed models)
A_EXPOSED = 6  # prioritise exposed models: how many are exposed; -1 = not prioritising
A_OPP = 7  # opportunity fire: the target cannot be suppressed
A_DEFADV = 8  # defensive advantage (charged through difficult terrain)
A_RSTATIC = 9  # retaliation: bonuses - penalties known in advance
A_FORCE = 10  # forced combat rating 0/1/2, -1 = computed
A_RFORCE = 11
A_RR = 12  # bitmask of extra re-rollable face kinds (special rule / command), attacker
A_RRR = 13  # same for the retaliating units
A_NSEC = 14  # secondary combatants
A_SEC0 = 15  # ... A_SEC0 + MAX_SEC - 1
MAX_SEC = 4
A_NCOLS = A_SEC0 + MAX_SEC

# -- rule switches R[:] -----------------------------------------------------------------------
R_EMB_ALWAYS = 0  # 1: the embarked unit tests whenever its transport tests; 0: only on a fail
R_RALLY = 1  # 1: the focus unit takes a rally test at the end if suppressed
R_FOCUS = 2  # index of the unit the statistics describe
R_NCOLS = 3

# -- statistics res[:] ---------------------------------------------------------------------------
ST_HITS = 0
ST_DMG = 1
ST_DESTROYED = 2
ST_OFFICER = 3
ST_SUPP = 4
ST_FB = 5
ST_BROKE = 6
ST_ANNIH = 7
ST_VP = 8
ST_VP_AGAINST = 9
ST_ATT_LOST = 10
ST_DEF_LOST = 11
ST_RALLY_FAILED = 12
ST_FULL = 13
ST_QC = 14  # 0 no close quarters, 1 attacker won, 2 defender won, 3 stalemate (last one)
ST_QC_ATT = 15
ST_QC_DEF = 16
ST_QC_STALE = 17
ST_EMB_LOST = 18
ST_EMB_SUPP = 19
ST_EMB_ANNIH = 20
N_STATS = 21

# face kinds
HEROIC = 0
STRIKE = 1
GLANCING = 2
MISS = 3
BLANK = 4

# -- packed face table FT[r, f] --------------------------------------------------------------------
F_SCORE = 0  # hits scored by face f
F_EXPL = 1  # 1 = the face adds one die (original dice only)
F_KIND = 2  # face kind (HEROIC .. BLANK)
F_RR0 = 3  # 1 = re-rolled at combat rating 0; F_RR0 + 1, F_RR0 + 2 for ratings 1, 2
F_RM = 6  # scratch: the re-roll mask of the pool being rolled (written per pool)
F_NROWS = 7
