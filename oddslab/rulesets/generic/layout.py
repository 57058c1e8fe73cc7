"""Array layouts shared by the generic compile step (Python) and the kernel (numba).

``wint[w, W_*]`` per weapon, ``faces[w, F_*, natural roll]`` d6 face tables, ``dmgmap[w, D_*,
rolled damage]``, ``tint[T_*]`` target and switches, statistics ``S_*``, damage packet groups
``grp[g, G_*]``.
"""

# columns of the per-weapon integer table ``wint[w, :]`` (dice expressions take 3: n, sides, add)
W_MODELS = 0
W_ATT_N = 1
W_ATT_SIDES = 2
W_ATT_ADD = 3
W_SUS_N = 4
W_SUS_SIDES = 5
W_SUS_ADD = 6
W_LETHAL = 7
W_DEV = 8  # 0 none, DEV_LEGACY (spill, after the weapon), DEV_CURRENT (no spill, after all)
W_DMG_N = 9
W_DMG_SIDES = 10
W_DMG_ADD = 11
W_TORRENT = 12
W_XATT_N = 13  # extra hit rolls per critical hit (dice expression; 0 = none)
W_XATT_SIDES = 14
W_XATT_ADD = 15
W_MH_N = 16  # mortal wounds per critical hit (dice expression; 0 = none)
W_MH_SIDES = 17
W_MH_ADD = 18
W_MH_INSTEAD = 19  # 1: the critical hit inflicts only the mortal wounds (no wound roll)
W_MW_N = 20  # mortal wounds per critical wound
W_MW_SIDES = 21
W_MW_ADD = 22
W_MW_INSTEAD = 23  # 1: the critical wound inflicts only the mortal wounds (no save)
W_CRIT_SPLIT = 24  # 1: critical wounds are counted apart (high 32 bits) from ordinary wounds
W_CRIT_SAVE = 25  # 1: split critical wounds take their own save (critical AP) and damage map
W_DMG_REROLL = 26  # re-roll a damage roll whose value is below this (0 = never)
W_HAS_XATT = 27
W_HAS_MH = 28
W_HAS_MW = 29
W_BLAST = 30  # 1: +1 attack per model for every 5 models alive in the target when it fires
W_DMG_AVG = 31  # a one-off damage re-roll takes a roll below this (0 = fixed damage)
W_CAN_SAVE = 32  # 1: some natural roll saves against this weapon's ordinary wounds
W_PRECISION = 33  # 1: its attacks go to an attached character while one lives (mixed units)
W_NCOLS = 34

DEV_LEGACY = 1
DEV_CURRENT = 2

# rows of the per-weapon face tables ``faces[w, row, natural roll]``
F_HIT_CODE = 0  # 0 miss, 1 hit, 2 critical hit
F_HIT_REROLL = 1  # 1 if this natural hit roll is re-rolled
F_WOUND_CODE = 2  # 0 fail, 1 wound, 2 critical wound
F_WOUND_REROLL = 3
F_SAVE_FAIL = 4  # 1 if this natural save roll fails
F_SAVE_REROLL = 5  # 1 if this natural save roll is re-rolled
F_CSAVE_FAIL = 6  # the same against a critical wound (critical AP)
F_CSAVE_REROLL = 7
F_NROWS = 8

# damage maps ``dmgmap[w, kind, raw value]`` -> damage inflicted (modifiers applied)
D_NORMAL = 0
D_CRIT = 1
D_DEV = 2
D_IDENTITY = 3  # mortal wounds on criticals: no damage modifiers
D_NKINDS = 4

# the target and run switches ``tint[:]``
T_MODELS = 0
T_WOUNDS = 1
T_DAMAGED = 2
T_SPILL = 3
T_FNP = 4  # feel-no-pain against ordinary damage (0/1)
T_FNP_PAIR = 5  # its d36 table holds two rolls per value (see _sum_rolls)
T_FNPM = 6  # feel-no-pain against mortal wounds
T_FNPM_PAIR = 7
T_ROWS = 8  # T_ROWS + S_*: the row of ``out`` for that statistic, -1 if not reported
T_ONE = T_ROWS + 12  # the attacker's one-off re-roll: ONE_* kind (after the 12 stat rows)
T_ONE_SAVE = T_ROWS + 13  # 1: the defender's one-off re-roll of a failed save
T_HAZ_DICE = T_ROWS + 14  # Hazardous: D6 rolled after the attacks (models firing such weapons)
T_HAZ_MODELS = T_ROWS + 15  # models in the attacking unit
T_HAZ_WOUNDS = T_ROWS + 16  # wounds per attacking model
T_HAZ_MORTAL = T_ROWS + 17  # 1: a 1 inflicts 3 mortal wounds (character, monster, vehicle)
T_NCOLS = T_ROWS + 18

ONE_NONE = 0
ONE_HIT = 1
ONE_WOUND = 2
ONE_DAMAGE = 3

# statistics (index into the rows map)
S_ATTACKS = 0
S_HITS = 1
S_WOUNDS = 2
S_UNSAVED = 3
S_MORTAL = 4
S_DAMAGE = 5
S_SLAIN = 6
S_DESTROYED = 7
S_DEALT = 8
S_REMAINING = 9
S_HAZ_LOST = 10  # attacker_models_lost_to_hazards
S_HAZ_WOUNDS = 11  # attacker_wounds_lost
N_STATS = 12

#: d36 tables per weapon in the chunk's flat table array (hit, wound, save, critical save)
_TABS = 8
_TSIZE = _TABS * 36

#: d36 values (two d6 each) per refill of a chunk's buffer (see :func:`fill_block`)
FACE_BLOCK = 512
#: lock-step xoshiro streams per chunk feeding the buffer (see :func:`fill_block`)
BLOCK_STREAMS = 16
_LOW32 = 0xFFFFFFFF
_HIGH = 1 << 32  # packed counters: low 32 bits count one outcome, high bits another


# columns of a damage packet group ``grp[g, :]`` (see :func:`_feed_groups`)
G_COUNT = 0
G_WEAPON = 1
G_MAP = 2  # D_* kind of damage map
G_N = 3
G_SIDES = 4
G_ADD = 5
G_REROLL = 6  # re-roll a roll below this (-1: the whole roll when any die shows 1)
G_MORTAL = 7  # 1: mortal wounds (mortal feel-no-pain table, counted as mortal wounds)
G_SPILL = 8
G_AVG = 9  # a one-off damage re-roll takes a roll below this (0 = never)
G_NCOLS = 10


# mixed units (``kernel_mixed``): per group ``gint[g, GI_*]``; ``tint`` as above plus:
GI_MODELS = 0
GI_WOUNDS = 1
GI_CHAR = 2  # 1: a character (attached leader)
GI_TOUGH = 3
GI_ROW = 4  # the row of ``out`` for target_<group>_models_lost
GI_DAMAGED = 5  # wounds already lost by one model of the group
GI_NCOLS = 6
T_LEADER_ROW = T_NCOLS  # row of leader_slain (-1: no character)
T_MIXED_NCOLS = T_NCOLS + 1
