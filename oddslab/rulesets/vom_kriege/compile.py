"""The Vom Kriege combat scenario: validation across units, arrays for the kernel, statistics,
headlines, exact PMFs for a single shooting roll, and ``resolved()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oddslab._dictform import DictForm
from oddslab.engine import Job
from oddslab.outcome import Headline, Stat
from oddslab.rulesets.vom_kriege import kernel as K
from oddslab.rulesets.vom_kriege import kernel_shot as SK
from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.adjust import shoot_dice
from oddslab.rulesets.vom_kriege.exact import (
    EXACT_STATS,
    joint_of,
    joint_table,
    shot_cells,
    square_cells,
)
from oddslab.rulesets.vom_kriege.layout import STAT_TEXT
from oddslab.rulesets.vom_kriege.model import ROUGH, Action, Dice, Leader, Rules, Unit, range_band
from oddslab.rulesets.vom_kriege.packing import fresh_state, pack
from oddslab.rulesets.vom_kriege.record import record
from oddslab.rulesets.vom_kriege.resolve import explain, rules_section
from oddslab.rulesets.vom_kriege.statistics import reported
from oddslab.rulesets.vom_kriege.tables import (
    artillery_row,
    face_tables,
    square_test_dice,
    square_test_probability,
)
from oddslab.rulesets.vom_kriege.validate import scenario_problems

__all__ = ["VomKriegeScenario", "STAT_TEXT"]


@dataclass(frozen=True)
class VomKriegeScenario(DictForm):
    """Shooting and melee actions by the active (attacking) player against defending units.

    Parameters
    ----------
    units, leaders : tuple
        Every unit (both sides) and leader, by unique name.
    actions : tuple of Action
        Resolved in order in every trial; hits, disorder, formations, shooting markers,
        removals and leader hits carry over from one action to the next.
    rules : Rules
        Readings of the text (see docs/vom-kriege.md).
    dice : Dice
        The battle/command die.
    focus_attacker, focus_defender : str, optional
        Whose fate the statistics report (default: the first melee's attacker, else the
        first action's; the first action's target).
    """

    units: tuple[Unit, ...]
    actions: tuple[Action, ...]
    leaders: tuple[Leader, ...] = ()
    rules: Rules = field(default_factory=Rules)
    dice: Dice = field(default_factory=Dice)
    focus_attacker: str | None = None
    focus_defender: str | None = None
    name: str = "vom kriege"
    description: str = ""
    trials: int | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            key, text = problems[0]
            raise ValueError(f"{key}: {text}")

    # -- validation ------------------------------------------------------------------------
    def problems(self) -> list[tuple[str, str]]:
        """``(key path, problem)`` for every cross-reference the text forbids
        (:func:`.validate.scenario_problems`)."""
        return scenario_problems(self)

    # -- arrays ----------------------------------------------------------------------------
    @property
    def _focus(self) -> tuple[str, str]:
        melee = [a for a in self.actions if a.kind == "melee"]
        att = self.focus_attacker or (melee[0].actor if melee else self.actions[0].actor)
        dfd = self.focus_defender or self.actions[0].target
        return att, dfd

    def _fu_action(self) -> int:
        att, _ = self._focus
        for i, a in enumerate(self.actions):
            if a.kind == "melee" and a.actor == att and a.follow_up is not None:
                return i
        return -1

    def arrays(self) -> dict[str, np.ndarray]:
        """The kernel's tables (see :mod:`.layout` for the columns)."""
        names = [u.name for u in self.units]
        lnames = [ld.name for ld in self.leaders]
        U = np.zeros((len(self.units), L.U_NCOLS), dtype=np.int64)
        for i, u in enumerate(self.units):
            U[i, L.U_SIDE] = L.SIDES.index(u.side)
            U[i, L.U_TROOP] = L.TROOPS.index(u.troop)
            U[i, L.U_KIND] = L.KINDS[u.troop].index(u.unit_kind)
            U[i, L.U_QUAL] = L.QUALITIES.index(u.quality)
            U[i, L.U_SK] = int(u.skirmish)
            U[i, L.U_STR] = u.max_hits
            U[i, L.U_HITS] = u.hits
            U[i, L.U_DISO] = int(u.disordered)
            U[i, L.U_FORM] = L.FORMATIONS.index(u.form)
            U[i, L.U_MARK] = int(u.shooting_marker)
            U[i, L.U_TERR] = L.TERRAINS.index(u.terrain)
            U[i, L.U_LEADER] = lnames.index(u.leader) if u.leader else -1
            U[i, L.U_BLOCKED] = int(u.retreat_blocked)
            U[i, L.U_ARTROW] = artillery_row(u, self.rules) if u.troop == "artillery" else -1
            with_it = [j for j, ld in enumerate(self.leaders) if ld.with_unit == u.name]
            U[i, L.U_LDR_WITH] = with_it[0] if with_it else -1
        LD = np.zeros((max(len(self.leaders), 1), L.LD_NCOLS), dtype=np.int64)
        LD[:, L.LD_ARMY] = -1
        LD[:, L.LD_HITS] = 0 if self.leaders else L.LEADER_STRENGTH  # padding row: inert
        for i, ld in enumerate(self.leaders):
            LD[i, L.LD_HITS] = ld.hits
            army = [j for j, x in enumerate(self.leaders) if x.army and x.side == ld.side]
            LD[i, L.LD_ARMY] = army[0] if (army and not ld.army) else -1
            mine = sum(u.leader == ld.name for u in self.units)
            LD[i, L.LD_UNITS] = ld.units if ld.units is not None else mine
        react = {r: i for i, r in enumerate(L.REACTIONS)}
        A = np.zeros((len(self.actions), L.A_NCOLS), dtype=np.int64)
        for i, a in enumerate(self.actions):
            A[i, L.A_KIND] = 0 if a.kind == "shoot" else 1
            A[i, L.A_ACTOR] = names.index(a.actor)
            # a leader alone is coded -1 - its index
            A[i, L.A_TARGET] = (
                names.index(a.target) if a.target in names else -1 - lnames.index(a.target)
            )
            A[i, L.A_BAND] = range_band(a.range)
            A[i, L.A_ORDER] = int(a.order_bonus)
            A[i, L.A_SUPP] = a.supports
            A[i, L.A_ENFILADE] = int(a.enfilade)
            A[i, L.A_OBSCURED] = int(a.obscured)
            A[i, L.A_FLANK] = int(a.flank)
            A[i, L.A_UPHILL] = int(a.uphill)
            A[i, L.A_ROUGH] = int(a.through_rough)
            A[i, L.A_REACT] = react[a.reaction]
            A[i, L.A_DSUPP] = a.defender_supports
            A[i, L.A_FU] = names.index(a.follow_up) if a.follow_up else -1
            A[i, L.A_FU_REACT] = react[a.follow_up_reaction]
            A[i, L.A_FU_SUPP] = a.follow_up_supports
            A[i, L.A_FU_FLANK] = int(a.follow_up_flank)
            A[i, L.A_NART] = len(a.batteries)
            for k, b in enumerate(a.batteries):
                A[i, L.A_ART + k] = names.index(b.unit)
                A[i, L.A_ARTB + k] = range_band(b.range)
        r = self.rules
        R = np.zeros(L.R_NCOLS, dtype=np.int64)
        R[L.R_SABER_SHOOT] = int(r.sabers == "both")
        R[L.R_OR_ROWS] = L.OR_ROWS_READINGS.index(r.or_rows)
        R[L.R_ART_TARGET] = int(r.artillery_rows == "target")
        R[L.R_HALVE_BEFORE] = int(r.halving == "before")
        R[L.R_HALF_FLOOR] = int(r.halving_floor == "always")
        R[L.R_MIN_DICE] = r.min_dice
        R[L.R_ABSORB] = int(r.same_roll_at_max == "absorb")
        R[L.R_DF_IGNORE] = int(r.defensive_fire_flags == "ignore")
        R[L.R_STATE_BEFORE] = int(r.dice_state == "before_melee")
        R[L.R_BB_BONUS] = int(r.battle_back_supports)
        R[L.R_SQ_FIRE] = int(r.square_may_fire)
        R[L.R_CC_SIMUL] = int(r.counter_charge == "simultaneous")
        R[L.R_RETIRE_VS_CAV] = int(r.retire_vs_cavalry)
        R[L.R_DISO_FOLLOW] = int(r.disordered_follow_up)
        R[L.R_SK_ONE] = int(r.skirmish_dice == "one")
        R[L.R_SQ_BB] = L.SQ_BB_READINGS.index(r.square_battle_back)
        R[L.R_ROUGH_STOP] = int(r.rough_charge == "stopped")
        R[L.R_SK_TARGET] = L.SK_TARGET_READINGS.index(r.skirmish_target)
        R[L.R_SK_CLOSE] = int(r.skirmish_range == "up_to_6")
        R[L.R_ORDER_STACK] = int(r.order_support_row == "stack")
        R[L.R_RETIRE_FU] = int(r.retire_follow_up == "any")
        R[L.R_RETIRE_DISO] = int(r.retiring_cavalry_disordered)
        R[L.R_BLOCKED_DISO] = int(r.blocked_retreat_disorders)
        R[L.R_SQ_CAV_FLAGS] = int(r.cavalry_square_flags == "ignore")
        R[L.R_SQ_SABERS] = int(r.cavalry_square_sabers == "always")
        R[L.R_LDR_ROLL] = int(r.leader_with_unit == "rolled")
        R[L.R_NFACES] = len(self.dice.faces)
        HIT, FLAG, SYM = face_tables(self.dice, r)
        FP = np.array(L.ARTILLERY_FIRE_POINTS, dtype=np.int64)
        att, dfd = self._focus
        by = {u.name: u for u in self.units}
        fa = self._fu_action()
        F = np.full(L.F_NCOLS, -1, dtype=np.int64)
        F[L.F_ATT] = names.index(att)
        F[L.F_DEF] = names.index(dfd) if dfd in by else -1
        F[L.F_T2] = names.index(self.actions[fa].follow_up) if fa >= 0 else -1
        F[L.F_FU_ACTION] = fa
        for col, u in ((L.F_DEF_LDR, by.get(dfd)), (L.F_ATT_LDR, by[att])):
            F[col] = lnames.index(u.leader) if (u and u.leader) else -1
        if dfd not in by:  # the defender is a leader alone
            F[L.F_DEF_LDR] = lnames.index(dfd)
        for col, side in ((L.F_DEF_ARMY, "defender"), (L.F_ATT_ARMY, "attacker")):
            army = [j for j, x in enumerate(self.leaders) if x.army and x.side == side]
            F[col] = army[0] if army else -1
        return dict(U=U, LD=LD, A=A, R=R, HIT=HIT, FLAG=FLAG, SYM=SYM, FP=FP, F=F)

    # -- statistics ------------------------------------------------------------------------
    def _reported(self) -> list[str]:
        return reported(self)

    def _dice_bound(self) -> int:
        top = max(u.max_hits for u in self.units)
        total = 0
        for a in self.actions:
            if a.kind == "shoot":
                total += 8 + a.supports
            else:
                total += 2 * (top + a.supports + a.follow_up_supports + 4)
                total += 8 * (1 + len(a.batteries)) + 2 * (top + a.defender_supports + 3)
        return total

    def stats(self) -> tuple[Stat, ...]:
        bound = self._dice_bound()
        top = max(u.max_hits for u in self.units)
        lead = max([ld.units or 0 for ld in self.leaders] + [len(self.units)])
        bins = {
            "defender_hits": top,
            "attacker_hits": top,
            "defender_retreat_half_moves": bound + 4 * len(self.actions) + 4,
            "attacker_retreat_half_moves": bound + 4 * len(self.actions) + 4,
            "defender_leader_hits": 3,
            "attacker_leader_hits": 3,
            "defender_army_leader_hits": 3,
            "attacker_army_leader_hits": 3,
            "defender_command_units_removed": lead,
            "attacker_command_units_removed": lead,
            "defender_side_units_removed": len(self.units),
            "attacker_side_units_removed": len(self.units),
        }
        out = []
        for n in self._reported():
            label, flag = STAT_TEXT[n]
            nb = 2 if flag else bins.get(n, bound) + 1
            out.append(Stat(n, nb, label, flag=flag, label=label))
        return tuple(out)

    def headlines(self) -> tuple[Headline, ...]:
        rep = set(self._reported())
        wanted = [
            ("P(defender retreats)", "defender_retreated"),
            ("P(defender removed)", "defender_removed"),
            ("P(defender at maximum hits, routing)", "defender_at_max_hits"),
            ("P(defender removed or routing)", "defender_broken"),
            ("P(defender forms square)", "defender_formed_square"),
            ("P(defender retires)", "defender_retired"),
            ("P(attacker's charge reaches melee)", "attacker_reached_melee"),
            ("P(attacker retreats)", "attacker_retreated"),
            ("P(attacker removed)", "attacker_removed"),
            ("P(attacker falls back 3 inches)", "attacker_fell_back"),
            ("P(defender disordered at the end)", "defender_disordered"),
            ("P(attacker disordered at the end)", "attacker_disordered"),
            ("P(attacker at maximum hits, routing)", "attacker_at_max_hits"),
            ("P(attacker makes a follow-up)", "attacker_followed_up"),
            ("P(follow-up target retreats)", "second_target_retreated"),
            ("P(follow-up target removed)", "second_target_removed"),
            ("P(defender's leader retires from a contact)", "defender_leader_retired"),
            ("P(defender's leader removed)", "defender_leader_removed"),
            ("P(attacker's leader removed)", "attacker_leader_removed"),
        ]
        return tuple(Headline(label, s, 1) for label, s in wanted if s in rep)

    def compile(self) -> Job:
        a = self.arrays()
        reported = self._reported()
        slots = np.full(L.N_STATS, -1, dtype=np.int64)
        for row, n in enumerate(reported):
            slots[L.STAT_NAMES.index(n)] = row
        att, dfd = self._focus
        exact = self._exact_ok() or self._square_static()
        if self._exact_ok():  # one roll of a known size: the fast path
            kernel, params = SK.run_single_shot, (*self.single_shot_table(), slots)
        else:
            kernel, params = K.run_vom_kriege, (pack(a), slots)
        return Job(
            self.name,
            kernel,
            params,
            self.stats(),
            self.headlines(),
            exact=self.exact_pmfs if exact else None,
            exact_joint=self.exact_joint if exact else None,
            meta={
                "ruleset": "vom-kriege",
                "description": self.description,
                "primary": (
                    "hits_on_defender"
                    if dfd in {u.name for u in self.units}
                    else "hits_on_defender_leader"
                ),
                "attacker": att,
                "defender": dfd,
            },
            ruleset="vom-kriege",
            records=True,
        )

    def single_shot_table(self) -> tuple[int, int, np.ndarray, np.ndarray]:
        """(dice, faces, CODE, TAB) for :func:`.kernel_shot.run_single_shot`.

        ``TAB[h + (dice + 1) * f]`` holds every statistic after a roll of ``h`` hits and ``f``
        flags, computed by the general kernel's own ``resolve`` and ``record``.
        """
        T = pack(self.arrays())
        W0 = fresh_state(T)
        a0 = int(T[0, L.R_OA])
        u, t = int(T[a0, L.A_ACTOR]), int(T[a0, L.A_TARGET])
        row = T[a0]
        n = 0
        if W0[u, L.S_HITS] < T[1 + u, L.U_STR]:
            n = int(
                shoot_dice(
                    T,
                    W0,
                    u,
                    t,
                    row[L.A_BAND],
                    row[L.A_ORDER],
                    row[L.A_SUPP],
                    row[L.A_ENFILADE],
                    row[L.A_OBSCURED],
                )[0]
            )
        n = max(n, 0)
        hit, flag, _ = face_tables(self.dice, self.rules)
        troop = int(T[1 + t, L.U_TROOP])
        code = (hit[0, troop] + (n + 1) * flag).astype(np.int64)
        top = np.array([s.nbins - 1 for s in self.stats()])
        slots = [L.STAT_NAMES.index(s.name) for s in self.stats()]
        tab = np.zeros(((n + 1) * (n + 1), L.N_STATS), dtype=np.int64)
        res = np.zeros(L.N_STATS, dtype=np.int64)
        for h in range(n + 1):
            for f in range(n + 1 - h):
                W = W0.copy()
                wdc = int(T[0, L.R_WDC])
                W[wdc, 3] = -1
                if n > 0:
                    W[wdc, 0] = n
                    W[t, L.S_HITS_ROLLED] = h
                    W[t, L.S_FLAGS_ROLLED] = f
                    K.resolve(T, W, t, h, f, K.FM_NORMAL)
                record(T, W, res)
                tab[h + (n + 1) * f] = res
                tab[h + (n + 1) * f, slots] = np.minimum(res[slots], top)
        return n, len(self.dice.faces), code, tab

    # -- exact -----------------------------------------------------------------------------
    def _exact_ok(self) -> bool:
        """A single shooting action: one roll of known size, resolved deterministically."""
        return len(self.actions) == 1 and self.actions[0].kind == "shoot"

    def exact_pmfs(self) -> dict[str, np.ndarray]:
        """Exact PMFs of the defender's statistics for a single shooting action.

        Hits and flags are multinomial in the dice; every other statistic of the target is
        a function of (hits, flags) through the same hits-then-retreats rules as the kernel.
        """
        if not self._exact_ok():
            if self._square_static():
                sq = self.square_test()
                assert sq is not None
                return {"defender_formed_square": np.array([1.0 - sq[1], sq[1]])}
            raise NotImplementedError(
                "exact PMFs exist for a single shooting action, or the form-square test of a "
                "first cavalry charge"
            )
        cells = shot_cells(self)
        out = {
            s.name: joint_table(cells, (s.name,), (s.nbins,))
            for s in self.stats()
            if s.name in EXACT_STATS
        }
        out["attacker_dice_rolled"][:] = 0.0
        out["attacker_dice_rolled"][cells[0][1]["attacker_dice_rolled"]] = 1.0  # a known size
        return out

    def exact_joint(self, names: Sequence[str]) -> np.ndarray | None:
        """Exact joint probability table of the statistics ``names`` (axis ``k`` indexed by
        the value of ``names[k]``, as many entries as its bins), or None when the exact
        engine does not give one of them: any of :data:`.exact.EXACT_STATS` for a single
        shooting action, ``defender_formed_square`` for a first cavalry charge's test."""
        if self._exact_ok():
            return joint_of(names, self.stats(), EXACT_STATS, shot_cells(self))
        sq = self.square_test() if self._square_static() else None
        if sq is None:
            return None
        return joint_of(names, self.stats(), ("defender_formed_square",), square_cells(sq[1]))

    # -- for people ------------------------------------------------------------------------
    def resolved(self) -> dict[str, dict[str, Any]]:
        """Inputs as read, defaults filled in and dice counts derived (see ``explain``)."""
        return explain(self) | {"rules": rules_section(self.rules)}

    def _square_static(self) -> bool:
        """The focus defender's only square test is the first action's, from its start."""
        if self.square_test() is None:
            return False
        first = self.actions[0]
        by = {u.name: u for u in self.units}
        _, dfd = self._focus
        if first.target != dfd or by[first.actor].hits >= by[first.actor].max_hits:
            return False
        later = [a for a in self.actions[1:] if dfd in (a.target, a.follow_up)]
        return not later and first.follow_up != dfd

    def square_test(self) -> tuple[int, float] | None:
        """(command dice, P(success)) of the focus defender's form-square test from its
        starting state, when the first action is a cavalry melee on it that may trigger one."""
        by = {u.name: u for u in self.units}
        a = self.actions[0]
        d = by.get(a.target)
        if d is None:  # a leader alone: no square to form
            return None
        if a.kind != "melee" or by[a.actor].troop != "cavalry" or d.troop != "infantry":
            return None
        if a.reaction not in ("form_square", "auto") or d.terrain in ROUGH or d.form == "square":
            return None
        if d.hits >= d.max_hits:
            return None
        n = square_test_dice(d.hits, d.disordered)
        return n, square_test_probability(n, self.dice)
