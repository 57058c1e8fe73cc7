"""Array layouts shared by the assault-phase compiler and kernels (plain Python constants).

The ruleset flattens a combat into integer tables (see :mod:`.compile`):

* ``gi[g, G_*]`` one row per *model group* (models sharing a profile), with the attack
  profile already resolved for models in base contact (``*_C`` columns: special weapons on)
  and for supporting models (``*_S`` columns: one attack, no special attack forms);
* ``ui[u, U_*]`` one row per unit (side, fast, cover, grenades, charge distance, ...);
* ``ei[e, E_*]`` one row per *target entity*: the non-independent body of a unit, or one
  independent character (who takes wounds separately);
* ``rules[R_*]`` the rule switches; ``hit_tab[ws_att, ws_def]`` and ``wound_tab[s, t]``
  the to-hit and to-wound charts (need on a D6; 7 = impossible);
* ``wk[W_*, i]`` the per-trial work array; ``res[S_*]`` the per-trial statistics (per-group
  slain counts follow at ``S_NFIXED + g``).
"""

from __future__ import annotations

# -- group columns --------------------------------------------------------------------------
G_SIDE = 0  # 0 attacker, 1 defender
G_UNIT = 1
G_ENT = 2  # entity this group belongs to (takes wounds as)
G_AIM = 3  # enemy entity this group attacks
G_COUNT = 4
G_CONTACT = 5  # models in base contact at the start of the combat
G_SUPPORT = 6  # models within 2" of an engaged friend
G_WS = 7
G_T = 8
G_W = 9
G_LD = 10
G_SV = 11  # armour save needed (7 = none)
G_INV = 12  # invulnerable save needed (7 = none)
G_A_C = 13  # attacks per model in contact (profile A + two-weapon bonus)
G_S_C = 14  # strength in contact (power fist: doubled, max 10)
G_I_C = 15  # initiative step in contact (power fist: 1)
G_NOARM_C = 16  # contact attacks ignore armour (power/fist/claws/force/monstrous)
G_HEAVY_C = 17  # heavy close combat weapon: armour capped at 4+
G_REND_C = 18  # rending: to-hit 6 wounds automatically, no armour save
G_POISON_C = 19  # poisoned: fixed wound roll (0 = no)
G_CLAW_C = 20  # lightning claws: re-roll failed wounds
G_FORCE_C = 21  # force weapon: psychic test slays a wounded model
G_A_PROF = 22  # profile attacks (sweeping advance)
G_S = 23  # profile strength (supporting attacks)
G_I = 24  # profile initiative (supporting attacks)
G_NOARM_S = 25  # supporting attacks ignore armour (monstrous creature only)
G_FIST = 26  # power fist or claw in contact (strikes at I1 even from cover)
G_NAIMS = 27  # enemy entities this group's hits are split between (1 unless an IC splits)
G_AIMS = 28  # G_AIMS + k: k-th entity of the split (k < MAX_SPLIT); G_AIMS + 0 == G_AIM
G_WTS = G_AIMS + 4  # G_WTS + k: hits dealt to the k-th entity per round of the split
G_NCOLS = G_WTS + 4
MAX_SPLIT = 4

# -- unit columns ---------------------------------------------------------------------------
U_SIDE = 0
U_FAST = 1  # 3D6 fall back and sweeping advance
U_COVER = 2  # defender in or behind cover (strikes first when charged)
U_GRENADES = 3  # 0 none, 1 frag, 2 plasma
U_FIRED = 4  # fired this turn: no +1 charge attack
U_CHARGE_DIST = 5  # inches through difficult terrain (0 = no terrain test)
U_FALLING_BACK = 6  # assaulted while falling back: regroup or be destroyed
U_TRAPPED = 7  # destroyed if it has to fall back
U_NCOLS = 8

# -- entity columns -------------------------------------------------------------------------
E_UNIT = 0
E_SIDE = 1
E_NCOLS = 2

# -- rule switches --------------------------------------------------------------------------
R_MAX_TURNS = 0
R_DOUBLE_ONE = 1  # double one always passes Ld tests
R_HALF_PENALTY = 2  # -1 Ld below half strength (morale only)
R_LD_MODE = 3  # 0 highest Ld in the unit (leader's), 1 majority Ld
R_REACH = 4  # 0 engaged models only (contact + 2"), 1 whole unit
R_TIE_SAVE = 5  # equal numbers: 0 better save used, 1 worse
R_TIE_T = 6  # equal numbers: 0 higher T used, 1 lower
R_FIST_LAST = 7  # 1: fists strike at I1 even when the unit strikes first
R_SWEEP_SUPPORT = 8  # 1: supporting models make profile attacks in a sweep, 0: one attack
R_PILE_IN = 9  # 1: after the first turn every survivor is in base contact
R_MAJORITY = 10  # 0 most common value, 1 more than half (else the lowest / worst)
R_FRAG = 11  # frag grenades strike with the cover step: 0 when the unit a group attacks is
#              in cover, 1 when any defending unit in the combat is
R_PLASMA = 12  # cover first strike lost: 0 against each charging unit with plasma grenades,
#                1 only if every charging unit has them
R_NCOLS = 13

# rows of the per-trial work array ``wk[row, index]``
W_ALIVE = 0
W_CON = 1
W_SUP = 2
W_DMG = 3
W_IN_COMBAT = 4
W_FLED = 5
W_FB = 6
W_PRIO_C = 7
W_PRIO_S = 8
W_CHARGE_BONUS = 9
W_MWS = 10
W_MT = 11
W_FORCE_PEND = 12
W_SWEEPER = 13
W_TRACK = 14
W_TURN_INF = 15
W_HIT_E = 16  # models of each entity that can be hit, at the start of a step
W_SPLIT_A = 17  # an independent character's split: rending hits dealt to each aim
W_SPLIT_H = 18  # ... and other hits dealt to each aim
W_MIXED = 19  # an entity's living models have more than one WS or T (this step)
W_PEND = 20  # W_PEND + k: wounds on each entity this step by save kind k (0 no armour, 1 heavy, 2 normal)
W_ABSENT = 23  # 1: the unit never joined the fight (its charge failed, it failed to regroup)
W_NROWS = 24

COVER_STEP = 11  # strikes before any Initiative value (1..10)

# -- the constant tables packed into one int64 vector ``cx`` per chunk (see
# ``kernel._chunk_arrays``): one array argument instead of four in every call of the step
CX_NENT = 0  # number of target entities E
CX_RULES = 1  # cx[CX_RULES + R_*] == rules[R_*]
CX_HIT = CX_RULES + R_NCOLS  # cx[CX_HIT + 11 * ws_att + ws_def] == hit_tab[ws_att, ws_def]
CX_WOUND = CX_HIT + 121  # cx[CX_WOUND + 11 * s + t] == wound_tab[s, t]
CX_ENT = CX_WOUND + 121  # cx[CX_ENT + E_NCOLS * e + E_*] == ei[e, E_*]

# -- per-trial statistics (res layout); per-group slain counts follow at S_NFIXED + g ------
S_CHARGE = 0
S_WIN_ATT = 1  # first-round assault result
S_WIN_DEF = 2
S_DRAW = 3
S_LOSER_FAILED = 4  # a loser of the first round failed its morale check
S_REGROUP_FAILED = 5
S_TURNS = 6  # turn the combat ended in; max_turns + 1 = unresolved; 0 = no combat
S_FIGHT_ATT = 7  # defenders all gone (fled or destroyed), attackers remain
S_FIGHT_DEF = 8
# per side: base + side
S_ATTACKS = 9
S_HITS = 11
S_WOUNDS = 13
S_UNSAVED = 15
S_INFLICTED = 17
S_SLAIN = 19  # models slain by this side
S_FELL_BACK = 21  # a unit of this side fell back
S_SWEPT = 23  # a unit of this side was caught by a sweeping advance
S_DESTROYED = 25  # every unit of this side destroyed
S_NFIXED = 27
