"""Hex platoon scenario → kernel arrays, statistics, headlines, ``resolved()``.

:class:`HexPlatoonScenario` holds the hexes, the steps and the rule switches. ``compile()``
turns them into the integer tables of :mod:`.kernel`; every number a counter contributes
(firepower after range and support weapons, augmentation dice, To Hit) is worked out here,
once, and shown by ``resolved()``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oddslab._dictform import DictForm
from oddslab.engine import Job
from oddslab.outcome import Headline, Stat

from . import layout as K
from .firepower import FireNumbers, fire_numbers
from .model import (  # noqa: F401 (BadInput, slug, clears_mines: re-exported)
    CONCEALING,
    BadInput,
    Hex,
    Rules,
    Step,
    Unit,
    _conceal_base,
    clears_mines,
    slug,
)

__all__ = ["HexPlatoonScenario", "BadInput", "STATES", "clears_mines", "fire_numbers", "slug"]

#: final state of a unit, by statistic value
STATES = ("good order", "disrupted", "reduced", "eliminated")
KIND_CODE = {
    "fire": K.K_FIRE,
    "mortar": K.K_MORTAR,
    "artillery": K.K_ARTILLERY,
    "move": K.K_MOVE,
    "clear-mines": K.K_CLEAR,
    "rally": K.K_RALLY,
    "command": K.K_COMMAND,
    "assault": K.K_ASSAULT,
    "overrun": K.K_OVERRUN,
    "air-strike": K.K_AIR,
}


@dataclass(frozen=True)
class HexPlatoonScenario(DictForm):
    """Hexes with their stacks, the steps played in order, and the rule switches."""

    hexes: tuple[Hex, ...]
    steps: tuple[Step, ...]
    rules: Rules = field(default_factory=Rules)
    name: str = "hex platoon"
    description: str = ""
    trials: int | None = None
    seed: int | None = None
    primary: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "hexes", tuple(self.hexes))
        object.__setattr__(self, "steps", tuple(self.steps))
        from .validate import check

        check(self)

    # -- indexing ------------------------------------------------------------------------------
    @property
    def units(self) -> list[Unit]:
        return [u for h in self.hexes for u in h.units]

    def unit_index(self) -> dict[str, int]:
        return {u.name: i for i, u in enumerate(self.units)}

    def hex_index(self) -> dict[str, int]:
        return {h.name: i for i, h in enumerate(self.hexes)}

    def hex_of(self) -> dict[str, int]:
        return {u.name: i for i, h in enumerate(self.hexes) for u in h.units}

    def hex_of_name(self, unit_name: str) -> str:
        return next(h.name for h in self.hexes for u in h.units if u.name == unit_name)

    def unit(self, name: str) -> Unit:
        return next(u for u in self.units if u.name == name)

    def hex(self, name: str) -> Hex:
        return next(h for h in self.hexes if h.name == name)

    def stack(self, hex_name: str) -> list[Unit]:
        """Non-HQ, non-aircraft units of a hex (those that take hits)."""
        return [u for u in self.hex(hex_name).units if u.type not in ("hq", "aircraft")]

    def hq_of(self, hex_name: str) -> Unit | None:
        return next((u for u in self.hex(hex_name).units if u.is_hq), None)

    # -- per-step numbers ------------------------------------------------------------------------
    def step_fire(self, k: int) -> FireNumbers:
        s = self.steps[k]
        key = f"steps[{k}]."
        if s.kind == "fire":
            return fire_numbers(
                self.unit(s.firer), self.unit(s.target).hard, s.band, s.distance, self.rules, key
            )
        return fire_numbers(self.unit(s.firer), False, s.band, s.distance, self.rules, key, True)

    def melee_attackers(self, k: int) -> list[Unit]:
        """Units of the attacking stack that go in (assault, overrun): those with an Assault
        factor. 6.3: "units without an Assault factor may not attack or counter-attack during
        assault combat", and "units assault enemy units by moving into their hex": a unit
        that may not attack stays behind, neither rolling nor sharing the defender's hits."""
        return [u for u in self.stack(self.steps[k].attacker) if u.assault is not None]

    def melee_members(self, k: int) -> list[tuple[Unit, int, int, int, int, bool, int, str]]:
        """(unit, side, dice, aug, to_hit, gets HQ, dice if disrupted, text) of an assault/overrun."""
        s = self.steps[k]
        att = self.melee_attackers(k)
        dfd = self.stack(s.defender)
        city = self.hex(s.defender).terrain == "city"
        out = []
        if s.kind == "overrun":
            for u in att:
                d = 3 * (u.assault or 0)
                out.append(
                    (
                        u,
                        0,
                        d,
                        int(u.assault_plus),
                        u.assault_to_hit,
                        False,
                        d,
                        f"3×{u.assault or 0} = {d} dice on {u.assault_to_hit}+",
                    )
                )
            plus = self.rules.overrun_defender_augmented
            for u in dfd:
                d = u.assault or 0
                out.append(
                    (
                        u,
                        1,
                        d,
                        int(u.assault_plus and plus),
                        u.assault_to_hit,
                        False,
                        d,
                        f"{d} dice on {u.assault_to_hit}+"
                        + (" + augmented" if u.assault_plus and plus else "")
                        + " (6+ if disrupted)",
                    )
                )
            return out
        afv_only = [all(u.type == "afv" for u in side) for side in (att, dfd)]
        always = self.rules.city_assault_bonus == "always"
        for side, units, hq_unit in ((0, att, s.attacker_hq_unit), (1, dfd, s.defender_hq_unit)):
            vs_afv = afv_only[1 - side]
            for u in units:
                if u.assault is None or (side == 0 and u.assault_counter_only):
                    out.append((u, side, 0, 0, 7, False, 0, "does not attack"))
                    continue
                base = u.assault
                th = u.assault_to_hit
                notes = []
                go_dice = base
                if u.infantry and vs_afv:
                    th -= 1
                    notes.append("−1 To Hit vs an AFV-only stack")
                if u.infantry and city and (vs_afv or always):
                    go_dice += 1
                    notes.append("+1 in a city")
                dis_dice = base + (1 if (u.infantry and city and always) else 0)
                gets = u.name == hq_unit
                if gets:
                    notes.append("(s)HQ leadership")
                text = f"{go_dice} dice on {th}+" + (" + augmented" if u.assault_plus else "")
                text += (" (" + ", ".join(notes) + ")") if notes else ""
                if side == 1:
                    text += "; disrupted: 6+"
                out.append(
                    (
                        u,
                        side,
                        go_dice,
                        int(u.assault_plus),
                        th,
                        gets,
                        dis_dice if side == 1 else go_dice,
                        text,
                    )
                )
        return out

    # -- arrays ----------------------------------------------------------------------------------
    def arrays(self) -> dict[str, np.ndarray]:
        """Kernel inputs ``ui, hx, hexu, sp, mb, rules`` (int64; layouts in :mod:`.kernel`)."""
        units = self.units
        ui_of = self.unit_index()
        hx_of = self.hex_index()
        r = self.rules
        ui = np.zeros((len(units), K.U_NCOLS), dtype=np.int64)
        hexu: list[int] = []
        hx = np.zeros((len(self.hexes), K.H_NCOLS), dtype=np.int64)
        for h, hexo in enumerate(self.hexes):
            hx[h, K.H_DB] = hexo.defence
            hx[h, K.H_DBH] = hexo.defence_hard
            hx[h, K.H_IP] = hexo.improved_position
            hx[h, K.H_FIRST] = len(hexu)
            hx[h, K.H_HQ] = -1
            for u in hexo.units:
                i = ui_of[u.name]
                row = ui[i]
                row[K.U_HEX] = h
                row[K.U_HARD] = bool(u.hard)
                row[K.U_INF] = bool(u.infantry)
                row[K.U_HQ] = u.is_hq
                row[K.U_LEAD0] = u.leadership
                row[K.U_LEAD1] = u.leadership_reduced
                row[K.U_MORALE] = u.morale
                row[K.U_ARMOR] = u.armor
                row[K.U_SAVE] = u.save
                row[K.U_SIDE0] = u.reduced
                row[K.U_DIS0] = u.disrupted
                row[K.U_OPS0] = u.ops_complete
                row[K.U_OOC0] = u.out_of_command
                row[K.U_CONC] = _conceal_base(u, hexo)
                if u.is_hq:
                    hx[h, K.H_HQ] = i
                elif u.type != "aircraft":
                    hexu.append(i)
            hx[h, K.H_COUNT] = len(hexu) - hx[h, K.H_FIRST]
        n_mem = max([1] + [self._n_members(k) for k in range(len(self.steps))])
        sp = np.zeros((len(self.steps), K.S_NCOLS), dtype=np.int64)
        mb = np.zeros((len(self.steps), n_mem, K.M_NCOLS), dtype=np.int64)
        last_move = -1
        ends = self.movement_ends()
        conts = self.movement_continues()
        for k, s in enumerate(self.steps):
            row = sp[k]
            row[K.S_KIND] = KIND_CODE[s.kind]
            row[K.S_MARK] = ends[k]
            row[K.S_CONT] = conts[k]
            row[K.S_HEX2] = -1
            row[K.S_HQ] = -1
            row[K.S_OPP] = -1
            row[K.S_SPOT] = -1
            if s.kind in ("fire", "mortar"):
                fn = self.step_fire(k)
                row[K.S_UNIT] = ui_of[s.firer]
                row[K.S_TARGET] = ui_of[s.target] if s.kind == "fire" else hx_of[s.target]
                row[K.S_DICE] = fn.dice
                row[K.S_AUG] = fn.aug
                row[K.S_TH] = fn.to_hit
                row[K.S_HQ] = ui_of[s.hq] if s.hq else -1
                row[K.S_DIRECT] = s.kind == "fire"
                row[K.S_OPP] = last_move if s.opportunity else -1
                if s.spotter:
                    row[K.S_SPOT] = ui_of[s.spotter]
                    row[K.S_FLAG] = r.mortar_mission_roll
            elif s.kind == "artillery":
                row[K.S_DICE] = s.firepower
                row[K.S_TH] = s.to_hit
                row[K.S_SPOT] = ui_of[s.spotter] if s.spotter else -1
                for m, name in enumerate(s.hexes):
                    mb[k, m, K.M_UNIT] = hx_of[name]
            elif s.kind == "move":
                last_move = k
                row[K.S_TARGET] = hx_of[s.stack]
                row[K.S_FLAG] = s.mines
            elif s.kind in ("clear-mines", "rally"):
                for m, name in enumerate(self.step_units(k)):
                    u = self.unit(name)
                    mb[k, m, K.M_UNIT] = ui_of[name]
                    mb[k, m, K.M_DICE] = 2 if u.type == "engineer" else 1
            elif s.kind == "command":
                row[K.S_TARGET] = hx_of[s.stack]
                row[K.S_FLAG] = self.command_morale(k)
            elif s.kind in ("assault", "overrun"):
                row[K.S_TARGET] = hx_of[s.defender]
                row[K.S_HEX2] = hx_of[s.attacker]
                row[K.S_FLAG] = s.can_retreat
                for m, (u, side, dice, aug, th, gets, ddis, _t) in enumerate(self.melee_members(k)):
                    mrow = mb[k, m]
                    mrow[K.M_UNIT] = ui_of[u.name]
                    mrow[K.M_DICE] = dice
                    mrow[K.M_AUG] = aug
                    mrow[K.M_TH] = th
                    mrow[K.M_HQ] = gets
                    mrow[K.M_SIDE] = side
                    mrow[K.M_DICE_DIS] = ddis
            elif s.kind == "air-strike":
                air = self.unit(s.aircraft)
                row[K.S_UNIT] = ui_of[s.aircraft]
                row[K.S_TARGET] = hx_of[s.target]
                row[K.S_HEX2] = hx_of[s.adjacent] if s.adjacent else -1
                row[K.S_DICE] = s.firepower or air.he
                row[K.S_TH] = air.to_hit
                for m, name in enumerate(s.aa):
                    u = self.unit(name)
                    mb[k, m, K.M_UNIT] = ui_of[name]
                    mb[k, m, K.M_DICE] = u.aa
                    mb[k, m, K.M_AUG] = int(u.aa_plus)
                    mb[k, m, K.M_TH] = u.to_hit
            row[K.S_NMEM] = self._n_members(k)
        return {
            "ui": ui,
            "hx": hx,
            "hexu": np.array(hexu + [0], dtype=np.int64),
            "sp": sp,
            "mb": mb,
            "rules": self.rules_array(),
        }

    def step_units(self, k: int) -> tuple[str, ...]:
        """Units of a rally or clear-mines step: those named, else the stack's (for
        clearing, only its infantry and engineers: rule 8.2)."""
        s = self.steps[k]
        if s.units:
            return s.units
        stack = self.stack(s.stack)
        if s.kind == "clear-mines":
            stack = [u for u in stack if clears_mines(u)]
        return tuple(u.name for u in stack)

    def movement_ends(self) -> list[int]:
        """Per step: the hex whose moving stack's movement is over just before it (-1 none).

        A stack's movement goes on through its ``move`` steps, the opportunity fire answering
        them and its own assault or overrun; the first other step ends it ("after any
        movement a unit receives an Ops Complete marker").
        """
        out = [-1] * len(self.steps)
        moving = ""
        for k, s in enumerate(self.steps):
            goes_on = (
                (s.kind == "move" and s.stack == moving)
                or (s.kind == "fire" and s.opportunity)
                or (s.kind in ("assault", "overrun") and s.attacker == moving)
            )
            if moving and not goes_on:
                out[k] = self.hex_index()[moving]
                moving = ""
            if s.kind == "move":
                moving = s.stack
        return out

    def movement_continues(self) -> list[int]:
        """Per step: the hex whose stack may be in the middle of its movement (-1 none);
        the kernel forgets every other stack's movement at that step.

        A ``move``, ``assault`` or ``overrun`` step continues the movement of its stack when
        the steps since that stack last moved are its own ``move``, ``assault`` or
        ``overrun`` steps and opportunity fire. The Ops Complete markers the stack got from
        that movement (marked on entering, or by its own overruns: "a Good Order AFV may
        conduct as many overruns as its MF allows") do not stop it; markers from before it
        do (:attr:`Rules.ops_complete_bars`).
        """
        out = [-1] * len(self.steps)
        moving = ""
        for k, s in enumerate(self.steps):
            if s.kind == "fire" and s.opportunity:  # answers the movement, does not end it
                out[k] = self.hex_index()[moving] if moving else -1
                continue
            mover = s.stack if s.kind == "move" else s.attacker
            if s.kind in ("move", "assault", "overrun"):
                if mover == moving:
                    out[k] = self.hex_index()[mover]
                moving = mover
            else:
                moving = ""
        return out

    def command_morale(self, k: int) -> int:
        s = self.steps[k]
        if s.morale is not None:
            return s.morale
        return self.stack(s.stack)[0].morale

    def _n_members(self, k: int) -> int:
        s = self.steps[k]
        if s.kind == "artillery":
            return len(s.hexes)
        if s.kind in ("clear-mines", "rally"):
            return len(self.step_units(k))
        if s.kind in ("assault", "overrun"):
            return len(self.melee_attackers(k)) + len(self.stack(s.defender))
        if s.kind == "air-strike":
            return len(s.aa)
        return 0

    def rules_array(self) -> np.ndarray:
        r = self.rules
        a = np.zeros(K.R_NCOLS, dtype=np.int64)
        a[K.R_EXCESS_PASS] = r.excess_hits == "passed-on"
        a[K.R_CONC_INF] = r.concealed_infantry_not_reduced
        a[K.R_CONC_ALL] = r.concealed_infantry_scope == "all-fire"
        a[K.R_CONC_OUTSIDE_CAP] = not r.concealment_in_cap
        a[K.R_CONC_LOST] = r.concealment_lost_after_fire
        a[K.R_COVER5] = r.armor_bonus_cover_5plus
        a[K.R_ART_EXTRA_DIE] = r.artillery_extra_die
        a[K.R_ART_HARD_IGNORE] = r.artillery_ignore_first_hard_hit
        a[K.R_ART_SOFT_EXTRA] = (
            0
            if not r.artillery_soft_extra_defence
            else (2 if r.artillery_soft_extra_scope == "per-soft-unit" else 1)
        )
        a[K.R_ASSAULT_LITERAL] = r.assault_result == "literal"
        a[K.R_MINES_SUM] = r.mine_roll == "sum"
        a[K.R_CLEAR_SUM] = r.clear_roll == "sum"
        a[K.R_AIR_FAIL_ZERO] = r.air_failed_strike_return == "zero-hits"
        a[K.R_DIS_AIR_STRIKES] = r.disrupted_aircraft_strikes
        a[K.R_AIR_CONC_ANY] = r.air_concealed == "any-unit"
        a[K.R_HQ_AGAIN_STAYS] = r.hq_reduced_again == "stays-reduced"
        a[K.R_IP_AFTER_SAVES] = r.improved_position == "after-saves"
        a[K.R_HQ_MODE] = {"added": 0, "augmented-by-rating": 1, "augmented-one-die": 2}[r.hq_bonus]
        if r.augment == "once" and a[K.R_HQ_MODE] != 0:
            # the leadership is an augmentation too: one augmentation die in all
            a[K.R_HQ_MODE] = 3
        a[K.R_HQ_ASSAULT_MODE] = a[K.R_HQ_MODE] if r.hq_assault_bonus == "as-fire" else 0
        a[K.R_MORTAR_MISSION_ROLL] = r.mortar_mission_roll
        a[K.R_HIT_PER_ATTACK] = r.hit_ladder == "one-step-per-attack"
        a[K.R_MOVE_OPS_ON_ENTER] = r.move_ops_complete == "on-entering"
        a[K.R_MINES_NO_STOP] = not r.mines_stop_movement
        a[K.R_MINES_NO_IP] = not r.mines_improved_position
        a[K.R_ART_HARD_PER_ATTACK] = r.artillery_hard_ignore == "per-attack"
        a[K.R_OPS_FIRE_ONLY] = r.ops_complete_bars == "fire"
        return a

    # -- statistics, headlines, job -----------------------------------------------------------------
    def stat_plan(self) -> tuple[list[Stat], np.ndarray, list[Headline], str]:
        from .statistics import plan

        return plan(self)

    def stats(self) -> tuple[Stat, ...]:
        return tuple(self.stat_plan()[0])

    def fast_array(self, so: np.ndarray) -> np.ndarray:
        """Parameters of the single-fire-attack fast path (see :func:`.firepower.fast_array`)."""
        from .firepower import fast_array

        return fast_array(self, so)

    def compile(self) -> Job:
        stats, so, heads, primary = self.stat_plan()
        fast = self.fast_array(so)
        # importing a kernel module compiles (or loads from the cache) its kernels: only the
        # one this scenario runs
        if fast[K.F_ON]:
            from .kernel_fire import run_hex_fire as kernel

            params: tuple = (fast,)
        else:
            from .kernel_run import run_hex_platoon as kernel

            a = self.arrays()
            params = (a["ui"], a["hx"], a["hexu"], a["sp"], a["mb"], a["rules"], so, fast)
        return Job(
            self.name,
            kernel,
            params,
            tuple(stats),
            tuple(heads),
            exact=self.exact_pmfs,
            meta={"primary": primary, "ruleset": "hex-platoon", "description": self.description},
            ruleset="hex-platoon",
            records=True,
            exact_joint=self.exact_joint,
        )

    def exact_pmfs(self) -> dict[str, np.ndarray]:
        """Exact PMFs of the statistics that depend only on the starting position."""
        from .statistics import scenario_pmfs

        return scenario_pmfs(self)

    def exact_joint(self, names: tuple[str, ...]) -> np.ndarray | None:
        """Exact joint probability table of the statistics ``names`` (axis ``i`` indexed by
        the value of ``names[i]``), or None where the exact engine cannot give it (see
        :mod:`.exact_joint`)."""
        from .exact_joint import exact_joint

        return exact_joint(self, tuple(names))

    def resolved(self) -> dict[str, dict[str, Any]]:
        from .resolve import resolved

        return resolved(self)
