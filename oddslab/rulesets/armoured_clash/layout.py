"""Array layouts shared by the Armoured Clash compiler and its numba kernel.

Plain integer constants (no numba here): the column of every value in the unit table
``UI`` / packed table ``W``, the attack table ``AT``, the rule switches ``R``, the
per-trial result vector ``res`` and the packed face table ``FT``. ``compile.py`` writes these
arrays and ``kernel.py`` / ``strikes.py`` / ``casualties.py`` read them.
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
U_NOSUPP = 8  # 1 = cannot be suppressed (aircraft): no test, or no status (R_NOSTATUS)
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
# so helpers take one table instead of three; see _prologue in kernel.py).
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
S_HELD = U_NCOLS + 14  # statuses at the start of its activation: 1 suppressed | 2 disordered
S_RFAIL = U_NCOLS + 15  # 1: failed its rally test this activation
W_NCOLS = U_NCOLS + 16

# -- per-side rows W[nu + side, X_*] after the nu unit rows --------------------------------------
X_VP = 0  # victory points scored by the side
X_PTR = 1  # cards drawn from its C&C deck
X_DN = 2  # cards in its C&C deck

# -- attack table AT[a, :] ---------------------------------------------------------------------
A_KIND = 0  # 0 ranged, 1 close quarters
A_ATT = 1
A_TGT = 2
A_COL = 3  # attacker's dice column
A_STATIC = 4  # bonuses - penalties known in advance, without aiming (live: suppressed, concealed)
A_CONC = 5  # situation says concealed (before prioritising exposed models)
A_EXPOSED = 6  # prioritise exposed models: how many are exposed; -1 = not prioritising
A_OPP = 7  # opportunity fire: the target cannot be suppressed (no test, or R_NOSTATUS)
A_DEFADV = 8  # defensive advantage (charged through difficult terrain)
A_RSTATIC = 9  # the charge target's retaliation: bonuses - penalties known in advance
A_FORCE = 10  # forced combat rating 0/1/2, -1 = computed
A_RFORCE = 11
A_RR = 12  # bitmask of extra re-rollable face kinds (special rule / command), attacker
A_RRR = 13  # same for the retaliating units
A_RRCMD = 14  # 1: the attacker's extra re-rolls come from a command (none while disordered)
A_RRRCMD = 15  # 1: the retaliation's extra re-rolls come from a command (charge target only)
A_ACTIVE = 16  # the unit whose activation this step belongs to
A_NEWACT = 17  # 1: this step starts that unit's activation
A_ENDACT = 18  # 1: that unit's activation ends after this step
A_AIM = 19  # 1: aiming bonus (an aim manoeuvre: lost with a failed rally test)
A_MANOEUVRE = (
    20  # 1: the attack needs a manoeuvre (charge, disembark, exit): none after a failed rally
)
A_NSEC = 21  # secondary combatants
A_SEC0 = 22  # ... A_SEC0 + MAX_SEC - 1: their unit indices
MAX_SEC = 4
A_SST0 = A_SEC0 + MAX_SEC  # ... each secondary's retaliation: bonuses - penalties in advance
A_NCOLS = A_SST0 + MAX_SEC

# -- rule switches R[:] -----------------------------------------------------------------------
R_EMB_ALWAYS = 0  # 1: the embarked unit tests whenever its transport tests; 0: only on a fail
R_RALLY = 1  # 1: rally tests (suppressed units at activation; the focus unit after the end)
R_FOCUS = 2  # index of the unit the statistics describe
R_ACT = 3  # 1: activations modelled (statuses expire, rally tests in the sequence)
R_EXPIRE_ALL = 4  # 1: statuses gained during an activation are also lost at its end
R_SEC_ALWAYS = 5  # 1: secondary combatants retaliate even when the target has no MELEE score
R_NOSTATUS = 6  # 1: opportunity fire's target / aircraft test, a failure gives no suppressed
R_MOST_KILLS = 7  # 1: a strike after the first that annihilates still goes to step 4 (kills)
R_SEC_AFTER = 8  # 1: under a defensive advantage the secondaries strike after the charger
R_GARR_CHARGED = 9  # 1: only a charged garrison exits on losing (an attacking one withdraws)
R_NCOLS = 10

# -- statistics res[:] (the focus unit's side S, the other side O) -----------------------------
ST_HITS = 0  # hits on the focus unit
ST_DMG = 1  # damage points on the focus unit
ST_LOST = 2  # focus models lost
ST_OFFICER = 3
ST_SUPP = 4
ST_FB = 5
ST_BROKE = 6
ST_ANNIH = 7
ST_VP_O = 8  # VPs scored by the other side
ST_VP_S = 9  # VPs scored by the focus unit's side
ST_LOST_O = 10  # models lost by the other side
ST_LOST_S = 11  # models lost by the focus unit's side (all its units)
ST_RALLY_FAILED = 12
ST_FULL = 13
ST_QC_ATT = 14  # the attacker side won the last close quarters combat
ST_QC_DEF = 15  # the defender side won it
ST_QC_STALE = 16
ST_EMB_LOST = 17
ST_EMB_SUPP = 18
ST_EMB_ANNIH = 19
N_STATS = 20

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
