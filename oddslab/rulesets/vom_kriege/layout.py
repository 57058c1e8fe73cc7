"""Integer codes and array column layouts shared by the Vom Kriege model and kernel.

Everything a kernel needs is flattened into ``int64`` tables whose columns are named here, so
the Python side (:mod:`.compile`) and the numba side (:mod:`.kernel`) cannot drift apart.
"""

from __future__ import annotations

# -- names <-> codes -------------------------------------------------------------------------
TROOPS = ("infantry", "cavalry", "artillery")
KINDS = {
    "infantry": ("line", "light"),
    "cavalry": ("light", "heavy", "lancers"),
    "artillery": ("heavy", "light", "horse"),
}
QUALITIES = ("elite", "regular", "conscript", "irregular")
FORMATIONS = (
    "line",
    "two_rank_line",
    "column",
    "march_column",
    "open_order",
    "square",
    "limbered",
    "unlimbered",
)
TERRAINS = ("open", "woods", "bua", "fieldworks", "rough")
SYMBOLS = ("infantry", "cavalry", "artillery", "saber", "flag", "blank")
DEFAULT_FACES = ("infantry", "infantry", "cavalry", "artillery", "saber", "flag")
REACTIONS = ("none", "defensive_fire", "retire", "counter_charge", "form_square", "auto")
SIDES = ("attacker", "defender")

INF, CAV, ART = 0, 1, 2
LEADER = 3  # an opponent that is a leader (no troop symbol scores on it: sabers only)
SYM_INF, SYM_CAV, SYM_ART, SYM_SABER, SYM_FLAG, SYM_BLANK = range(6)
F_LINE, F_2RANK, F_COLUMN, F_MARCH, F_OPEN, F_SQUARE, F_LIMBERED, F_UNLIMBERED = range(8)
T_OPEN, T_WOODS, T_BUA, T_FIELDWORKS, T_ROUGH = range(5)
Q_ELITE, Q_REGULAR, Q_CONSCRIPT, Q_IRREGULAR = range(4)
K_HEAVY_CAV = 1
K_LANCERS = 2
R_NONE, R_FIRE, R_RETIRE, R_COUNTER, R_SQUARE, R_AUTO = range(6)

#: artillery fire points by range band (3", 6", 12", 18", 24"); rows 8H, 8L, 6H, 6L
ARTILLERY_FIRE_POINTS = ((5, 4, 3, 2, 1), (4, 3, 3, 2, 1), (4, 3, 3, 2, 1), (3, 2, 2, 1, 1))
ARTILLERY_ROWS = ("8-gun heavy", "8-gun light", "6-gun heavy", "6-gun light")
BAND_LIMITS = (3.0, 6.0, 12.0, 18.0, 24.0)
LEADER_STRENGTH = 3

# -- unit table U[u, :] ----------------------------------------------------------------------
U_SIDE = 0  # 0 attacker, 1 defender
U_TROOP = 1
U_KIND = 2
U_QUAL = 3
U_SK = 4
U_STR = 5  # strength = maximum hits
U_HITS = 6  # starting state ...
U_DISO = 7
U_FORM = 8
U_MARK = 9
U_TERR = 10
U_LEADER = 11  # leader index, -1 none
U_BLOCKED = 12  # retreats are blocked (1 hit instead)
U_ARTROW = 13  # row of ARTILLERY_FIRE_POINTS, -1 not artillery
U_LDR_WITH = 14  # leader standing with the unit (contacted with it in melee), -1 none
U_NCOLS = 15

# -- per-trial unit state S[u, :] ------------------------------------------------------------
S_HITS = 0
S_DISO = 1
S_FORM = 2
S_MARK = 3
S_REMOVED = 4
S_RETREAT_HM = 5  # half moves retreated
S_RETREATS = 6  # retreat events
S_RETIRED = 7
S_SQUARED = 8  # formed square by a test
S_FELLBACK = 9  # retired 3" after a melee
S_HITS_ROLLED = 10
S_FLAGS_ROLLED = 11
S_MELEED = 12  # rolled step-4 melee dice as the attacker
S_BB_HITS = 13  # hits rolled on it by a battle back (step 5)
S_DF_HITS = 14  # hits rolled on it by defensive fire (the target's and the batteries')
S_NCOLS = 15

# -- leaders LD[l, :] and their state LS[l, :] -----------------------------------------------
LD_HITS = 0
LD_ARMY = 1  # index of the side's army leader, -1 none (or this is the army leader)
LD_UNITS = 2  # units in the command
LD_NCOLS = 3
LS_HITS = 0
LS_REMOVED = 1
LS_LOST = 2  # units of the command removed
LS_ROLLED = 3  # hits rolled on it when contacted in melee (sabers)
LS_RETIRED = 4  # retired from a contacting enemy (no longer with its unit)
LS_NCOLS = 5

# -- actions A[a, :] -------------------------------------------------------------------------
A_KIND = 0  # 0 shoot, 1 melee
A_ACTOR = 1
A_TARGET = 2  # unit index; a leader ``l`` (melee only) is ``-1 - l``
A_BAND = 3  # range band 0..4 (shooting)
A_ORDER = 4
A_SUPP = 5
A_ENFILADE = 6
A_OBSCURED = 7
A_FLANK = 8
A_UPHILL = 9
A_ROUGH = 10
A_REACT = 11
A_DSUPP = 12
A_FU = 13
A_FU_REACT = 14
A_FU_SUPP = 15
A_FU_FLANK = 16
A_NART = 17
A_ART = 18  # 4 unit indices
A_ARTB = 22  # 4 range bands
A_NCOLS = 26
MAX_BATTERIES = 4

# -- rules R[:] ------------------------------------------------------------------------------
R_SABER_SHOOT = 0
R_OR_ROWS = 1  # OR_ROWS_READINGS code: 0 the largest item, 1 items add, 2 every condition adds
R_ART_TARGET = 2
R_HALVE_BEFORE = 3
R_MIN_DICE = 4
R_ABSORB = 5
R_DF_IGNORE = 6
R_STATE_BEFORE = 7
R_BB_BONUS = 8
R_SQ_FIRE = 9
R_CC_SIMUL = 10
R_RETIRE_VS_CAV = 11
R_DISO_FOLLOW = 12
R_SK_ONE = 13
R_SQ_BB = 14  # a square's battle back drives cavalry back: SQ_BB_* below
R_ROUGH_STOP = 15  # cavalry disordered by rough terrain before the melee retires 3"
R_SK_TARGET = 16  # who is a skirmish target: SK_TARGET_* below
R_ORDER_STACK = 17  # order bonus and supports both add (else only the larger counts)
R_RETIRE_FU = 18  # any attacker (not only cavalry) may follow up after a retire
R_RETIRE_DISO = 19  # retiring cavalry is disordered (step 7)
R_BLOCKED_DISO = 20  # a blocked retreat also disorders
R_SQ_CAV_FLAGS = 21  # flags rolled by cavalry against a square do nothing (else 1 hit each)
R_NFACES = 22
# row offsets of the packed table T (units start at row 1) and of the state W
R_OLD = 23
R_OA = 24
R_OHIT = 25
R_OFLAG = 26
R_OSYM = 27
R_OFP = 28
R_OF = 29
R_NU = 30
R_NL = 31
R_NA = 32
R_WLS = 33
R_WDC = 34
R_SQ_SABERS = 35  # cavalry battling back against a square hits only with sabers too
R_HALF_FLOOR = 36  # a halved count is at least 1 even from 0 or less (else it stays)
R_SK_CLOSE = 37  # the skirmish-target row also applies in the 3" band (else the 6" only)
R_LDR_ROLL = 38  # the attacker rolls at a leader standing with its target (else it just retires)
R_NCOLS = 39
#: ``square_battle_back`` readings (R_SQ_BB codes, in this order)
SQ_BB_READINGS = ("at_least_half", "half", "extra_half")
#: ``or_rows`` readings (R_OR_ROWS codes, in this order)
OR_ROWS_READINGS = ("largest", "stack", "each")
#: ``halving_floor`` readings: a halved count is never below 1 / only a count above 0 is
#: halved (one at 0 or below stays, so no dice)
HALVING_FLOOR_READINGS = ("always", "positive")
#: ``skirmish_range`` readings: the 3" and 6" columns / the 6" column only (over 3")
SK_RANGE_READINGS = ("up_to_6", "over_3")
#: ``skirmish_target`` readings (R_SK_TARGET codes, in this order)
SK_TARGET_READINGS = ("sk", "open_order", "either")

# -- statistics written by the kernel --------------------------------------------------------
STAT_NAMES = (
    "attacker_dice_rolled",
    "defender_dice_rolled",
    "hits_on_defender",
    "flags_on_defender",
    "hits_on_attacker",
    "flags_on_attacker",
    "defender_hits",
    "attacker_hits",
    "defender_retreat_half_moves",
    "attacker_retreat_half_moves",
    "defender_retreated",
    "defender_disordered",
    "defender_removed",
    "defender_at_max_hits",
    "defender_broken",
    "defender_retired",
    "defender_formed_square",
    "attacker_retreated",
    "attacker_disordered",
    "attacker_removed",
    "attacker_at_max_hits",
    "attacker_fell_back",
    "attacker_reached_melee",
    "attacker_followed_up",
    "hits_on_second_target",
    "second_target_retreated",
    "second_target_removed",
    "defender_leader_hits",
    "defender_leader_removed",
    "defender_command_units_removed",
    "attacker_leader_hits",
    "attacker_leader_removed",
    "attacker_command_units_removed",
    "defender_army_leader_hits",
    "attacker_army_leader_hits",
    "defender_side_units_removed",
    "attacker_side_units_removed",
    "hits_on_defender_leader",
    "defender_leader_retired",
    "hits_on_attacker_by_battle_back",
    "hits_on_attacker_by_defensive_fire",
)
N_STATS = len(STAT_NAMES)
(
    ST_ATT_DICE,
    ST_DEF_DICE,
    ST_HITS_ON_DEF,
    ST_FLAGS_ON_DEF,
    ST_HITS_ON_ATT,
    ST_FLAGS_ON_ATT,
    ST_DEF_HITS,
    ST_ATT_HITS,
    ST_DEF_RETREAT,
    ST_ATT_RETREAT,
    ST_DEF_RETREATED,
    ST_DEF_DISO,
    ST_DEF_REMOVED,
    ST_DEF_ATMAX,
    ST_DEF_BROKEN,
    ST_DEF_RETIRED,
    ST_DEF_SQUARE,
    ST_ATT_RETREATED,
    ST_ATT_DISO,
    ST_ATT_REMOVED,
    ST_ATT_ATMAX,
    ST_ATT_FELLBACK,
    ST_ATT_MELEE,
    ST_FOLLOWED,
    ST_T2_HITS,
    ST_T2_RETREATED,
    ST_T2_REMOVED,
    ST_DEF_LDR_HITS,
    ST_DEF_LDR_REMOVED,
    ST_DEF_CMD_LOST,
    ST_ATT_LDR_HITS,
    ST_ATT_LDR_REMOVED,
    ST_ATT_CMD_LOST,
    ST_DEF_ARMY_HITS,
    ST_ATT_ARMY_HITS,
    ST_DEF_SIDE_REMOVED,
    ST_ATT_SIDE_REMOVED,
    ST_DEF_LDR_ROLLED,
    ST_DEF_LDR_RETIRED,
    ST_ATT_BB_HITS,
    ST_ATT_DF_HITS,
) = range(N_STATS)
# focus indices F[:]: attacker unit, defender unit (-1: the defender is a leader), second
# target (-1), leaders (-1; F_DEF_LDR: the defending leader itself, or the unit's leader)
# and the action whose follow-up is reported (-1)
F_ATT, F_DEF, F_T2, F_DEF_LDR, F_ATT_LDR, F_DEF_ARMY, F_ATT_ARMY, F_FU_ACTION = range(8)
F_NCOLS = 8

#: statistic -> (plain-words label, is a 0/1 flag)
STAT_TEXT: dict[str, tuple[str, bool]] = {
    "attacker_dice_rolled": ("battle dice rolled by the attacking side", False),
    "defender_dice_rolled": ("battle dice rolled by the defending side", False),
    "hits_on_defender": ("hits rolled on the defender", False),
    "flags_on_defender": ("flags rolled on the defender", False),
    "hits_on_attacker": ("hits rolled on the attacker", False),
    "flags_on_attacker": ("flags rolled on the attacker", False),
    "defender_hits": ("defender hit markers at the end", False),
    "attacker_hits": ("attacker hit markers at the end", False),
    "defender_retreat_half_moves": ("defender retreat distance (half moves)", False),
    "attacker_retreat_half_moves": ("attacker retreat distance (half moves)", False),
    "defender_retreated": ("defender retreated", True),
    "defender_disordered": ("defender disordered at the end", True),
    "defender_removed": ("defender removed", True),
    "defender_at_max_hits": ("defender at maximum hits (routing) at the end", True),
    "defender_broken": ("defender removed or at maximum hits", True),
    "defender_retired": ("defender retired before the melee", True),
    "defender_formed_square": ("defender formed square", True),
    "attacker_retreated": ("attacker retreated", True),
    "attacker_disordered": ("attacker disordered at the end", True),
    "attacker_removed": ("attacker removed", True),
    "attacker_at_max_hits": ("attacker at maximum hits (routing) at the end", True),
    "attacker_fell_back": ("attacker fell back 3 inches after the melee", True),
    "attacker_reached_melee": ("attacker's charge reached melee", True),
    "attacker_followed_up": ("attacker made a melee follow-up", True),
    "hits_on_second_target": ("hits rolled on the follow-up target", False),
    "second_target_retreated": ("follow-up target retreated", True),
    "second_target_removed": ("follow-up target removed", True),
    "defender_leader_hits": ("hits on the defender's leader (= command points lost)", False),
    "defender_leader_removed": ("defender's leader removed", True),
    "defender_command_units_removed": ("units removed from the defender's command", False),
    "attacker_leader_hits": ("hits on the attacker's leader (= command points lost)", False),
    "attacker_leader_removed": ("attacker's leader removed", True),
    "attacker_command_units_removed": ("units removed from the attacker's command", False),
    "defender_army_leader_hits": ("hits on the defending army leader", False),
    "attacker_army_leader_hits": ("hits on the attacking army leader", False),
    "defender_side_units_removed": ("defending units removed (all in the scenario)", False),
    "attacker_side_units_removed": ("attacking units removed (all in the scenario)", False),
    "hits_on_defender_leader": (
        "hits rolled on the defender's leader when contacted in melee (sabers only)",
        False,
    ),
    "defender_leader_retired": ("defender's leader retired from a contacting enemy", True),
    "hits_on_attacker_by_battle_back": ("hits rolled on the attacker by battle back", False),
    "hits_on_attacker_by_defensive_fire": (
        "hits rolled on the attacker by defensive fire (the target's and batteries')",
        False,
    ),
}
assert tuple(STAT_TEXT) == STAT_NAMES
