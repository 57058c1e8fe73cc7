"""Scenario → arrays, statistics, headlines, exact PMFs and the ``resolved()`` view.

Statistics are named by whose fate they are: ``<army>_<what>`` for an army and
``<army>_<formation>_<what>`` for a formation, e.g. ``blue_infantry_broken_by_turn_3`` (the
blue infantry formation has been broken at some point by the end of turn 3) or
``red_holds_turn_1`` (red formations that failed their action test in turn 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oddslab._dictform import DictForm
from oddslab.engine import Job
from oddslab.outcome import Headline, Stat
from oddslab.rulesets.formation_actions import chain
from oddslab.rulesets.formation_actions import kernel as K
from oddslab.rulesets.formation_actions import layout as L
from oddslab.rulesets.formation_actions.model import (
    BREAK_CHECKS,
    CHOICES,
    ORDER_POLICIES,
    OUTSIDE_TIMINGS,
    PENALTY_READINGS,
    RETAIN_LIMITS,
    RETAIN_POLICIES,
    WITHDRAWALS,
    Army,
    Formation,
    Rules,
)

__all__ = ["FormationActionsScenario", "RULESET"]

RULESET = "formation-actions"
_CDF_WIDTH = 22


def _pct(faces: int) -> str:
    return f"{faces}/6 = {100 * faces / 6:.1f}%"


def _roll_text(faces: int) -> str:
    return "never" if faces == 0 else f"{_pct(faces)}"


def _activation_order(army: Army, rules: Rules, start: int) -> tuple[list[int], bool]:
    """The army's formations (indices from ``start``) in the order its policy activates
    them when that order can be fixed before the game, and whether it can.

    It can when the order is listed, or when the action test's penalty never changes
    (``action_penalty = "suppressed"``) and ranking the formations by their chance now and by
    their chance with the retaining -1 gives one order (ties: listed order). Otherwise, e.g.
    commands 6 and 7 both pass now on 6 faces but retaining on 5 and 6, the kernel picks at
    each activation from the chances of that test.
    """
    idx = list(range(start, start + len(army.formations)))
    if army.order == "listed":
        return idx, True
    sign = -1 if army.order == "best-first" else 1
    targets = {
        start + i: f.command - rules.penalty(f.suppressed > 0, 0)
        for i, f in enumerate(army.formations)
    }
    now = sorted(idx, key=lambda i: (sign * rules.faces(targets[i]), i))
    retaining = sorted(idx, key=lambda i: (sign * rules.faces(targets[i] - 1), i))
    return now, rules.action_penalty == "suppressed" and now == retaining


@dataclass(frozen=True)
class FormationActionsScenario(DictForm):
    """``turns`` turns of two armies activating formations (see docs/formation-actions.md).

    Parameters
    ----------
    armies : tuple of two Army
    turns : int
        Turns to play (1-20).
    rules : Rules
        Readings of the text (switches).
    primary : str, optional
        Statistic plotted by default (default: the first army's formations passing their
        action test in turn 1).
    """

    armies: tuple[Army, Army]
    turns: int = 1
    rules: Rules = field(default_factory=Rules)
    name: str = "formation actions"
    description: str = ""
    trials: int | None = None
    seed: int | None = None
    primary: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "armies", tuple(self.armies))
        if len(self.armies) != 2:
            raise ValueError("a game needs exactly two armies")
        if self.armies[0].key == self.armies[1].key:
            raise ValueError("the two armies need different keys")
        if not 1 <= self.turns <= 20:
            raise ValueError("turns must be 1-20")
        keys = [a.key for a in self.armies]
        if self.rules.first_turn_tie not in ("reroll", *keys):
            raise ValueError(f"rules.first_turn_tie must be 'reroll' or one of {', '.join(keys)}")
        if self.primary is not None and self.primary not in self.stat_names():
            raise ValueError(f"primary: no statistic {self.primary!r}")

    # -- layout -------------------------------------------------------------------------------
    def formations(self) -> list[tuple[int, Army, Formation]]:
        return [(a, army, f) for a, army in enumerate(self.armies) for f in army.formations]

    def _layout(self) -> tuple[list[Stat], list[int], int, list[int], list[int]]:
        """(reported stats, their slots, number of slots, army stat0, formation stat0)."""
        n = self.turns
        stats: list[Stat] = []
        slots: list[int] = []
        a_stat0: list[int] = []
        f_stat0: list[int] = []
        slot = 0
        for army in self.armies:
            ak, an = army.key, army.name
            nf = len(army.formations)
            a_stat0.append(slot)
            rows = [
                (f"{ak}_won_strategy", n + 1, f"{an}: turns won the strategy roll", False),
                (f"{ak}_withdrawals", n * nf + 1, f"{an}: withdrawals (failed rallies)", False),
            ]
            rows += [
                (f"{ak}_actions_turn_{t}", nf + 1, f"{an}: formations passing in turn {t}", False)
                for t in range(1, n + 1)
            ]
            rows += [
                (f"{ak}_holds_turn_{t}", nf + 1, f"{an}: formations held (failed) in turn {t}", 0)
                for t in range(1, n + 1)
            ]
            rows += [
                (
                    f"{ak}_broken_after_turn_{t}",
                    nf + 1,
                    f"{an}: formations broken after turn {t}",
                    0,
                )
                for t in range(1, n + 1)
            ]
            rows += [
                (f"{ak}_retain_attempts", n * nf + 1, f"{an}: tries to retain the initiative", 0),
                (f"{ak}_retained", n * nf + 1, f"{an}: initiative retained (test passed)", 0),
            ]
            rows += [
                (f"{ak}_won_strategy_turn_{t}", 2, f"{an}: won the strategy roll of turn {t}", 0)
                for t in range(1, n + 1)
            ]
            breakable = any(f.can_break(n) for f in army.formations)
            for i, (name, nb, label, flag) in enumerate(rows):
                if name.endswith(("_retain_attempts", "_retained")) and not army.can_retain:
                    continue  # the army never tries to retain
                if not breakable and ("withdrawals" in name or "_broken_after_" in name):
                    continue  # no formation of the army can break
                stats.append(Stat(name, nb, label, bool(flag), label))
                slots.append(slot + i)
            slot += len(rows)
            for f in army.formations:
                p, fn = f"{ak}_{f.key}", f"{an} {f.name}"
                f_stat0.append(slot)
                top = chain.max_shock(f, n)
                rows = [
                    (f"{p}_actions", n + 1, f"{fn}: action tests passed", False),
                    (f"{p}_holds", n + 1, f"{fn}: action tests failed (Hold)", False),
                    (f"{p}_rallied", n + 1, f"{fn}: rallies from broken", False),
                    (f"{p}_withdrawals", n + 1, f"{fn}: withdrawals", False),
                    (
                        f"{p}_rallied_unbroken",
                        n + 1,
                        f"{fn}: rally tests passed while not broken",
                        False,
                    ),
                ]
                rows += [
                    (f"{p}_shock_after_turn_{t}", top + 1, f"{fn}: Shock after turn {t}", False)
                    for t in range(1, n + 1)
                ]
                rows += [
                    (f"{p}_broken_by_turn_{t}", 2, f"{fn}: broken by turn {t}", t == n)
                    for t in range(1, n + 1)
                ]
                rows += [
                    (
                        f"{p}_action_turn_{t}",
                        3,
                        f"{fn}: turn {t} (0 no action, 1 action, 2 Hold)",
                        False,
                    )
                    for t in range(1, n + 1)
                ]
                # the end state, set once at the game's end (slots FS_SHOCK + 3 * turns and
                # the next; see :mod:`.layout`)
                rows += [
                    (
                        f"{p}_broken_at_end",
                        2,
                        f"{fn}: broken (or out of play) after the last turn",
                        False,
                    ),
                    (f"{p}_out_of_play", 2, f"{fn}: withdrawn from play at the end", False),
                ]
                can_break = f.can_break(n)
                removed = self.rules.withdrawal == "removed"
                for i, (name, nb, label, flag) in enumerate(rows):
                    if not can_break and (
                        i in (2, 3) or "_broken_by_" in name or name.endswith("_at_end")
                    ):
                        continue  # it cannot break: no rallies from broken or withdrawals
                    if name.endswith("_out_of_play") and not (can_break and removed):
                        continue  # only a formation that can withdraw under "removed"
                    stats.append(Stat(name, nb, label, flag, label))
                    slots.append(slot + i)
                slot += len(rows)
        return stats, slots, slot, a_stat0, f_stat0

    def stats(self) -> tuple[Stat, ...]:
        return tuple(self._layout()[0])

    def stat_names(self) -> list[str]:
        return [s.name for s in self._layout()[0]]

    def arrays(self) -> dict[str, Any]:
        """Kernel inputs (see :mod:`.layout` and :mod:`.kernel`): ``G`` (the packed int64 game array), ``cdf``
        float64[F, 22], ``slots`` int64[n_stats] and ``offs`` int64[n_stats + 1]."""
        stats, slots, n_slots, a_stat0, f_stat0 = self._layout()
        forms = self.formations()
        nf = len(forms)
        fo = L.H_SIZE
        ao = fo + nf * L.F_NCOLS
        wo = ao + 2 * L.A_NCOLS
        po = wo + L.W_NROWS * nf
        ro = po + nf
        to = ro + n_slots
        tslots = self.turn_slots()
        G = np.zeros(to + tslots.shape[0], dtype=np.int64)
        cdf = np.ones((nf, _CDF_WIDTH), dtype=np.float64)
        for i, (a, _army, f) in enumerate(forms):
            row = fo + i * L.F_NCOLS
            G[row + L.F_ARMY] = a
            G[row + L.F_COMMAND] = f.command
            G[row + L.F_UNITS] = f.units
            G[row + L.F_SUPP] = f.suppressed > 0
            G[row + L.F_SHOCK0] = f.shock
            G[row + L.F_BROKEN0] = f.starts_broken
            G[row + L.F_THRESH] = f.threshold
            G[row + L.F_NEAR] = f.enemy_within_8
            G[row + L.F_STAT0] = f_stat0[i]
            o = f.outside_shock
            if not o.active:
                G[row + L.F_OS_KIND] = 0
            elif o.dice is not None and o.dice.n > 0:
                G[row + L.F_OS_KIND] = 2
                G[row + L.F_OS_N] = o.dice.n
                G[row + L.F_OS_SIDES] = o.dice.sides
                G[row + L.F_OS_ADD] = o.dice.add
            elif o.table is not None:
                G[row + L.F_OS_KIND] = 3
                c = np.cumsum(o.pmf())
                cdf[i, : len(c)] = c
                cdf[i, len(c) - 1 :] = 1.0
            else:
                G[row + L.F_OS_KIND] = 1
                G[row + L.F_OS_N] = o.max
        start = 0
        r = self.rules
        fixed = []
        for army in self.armies:
            idx, is_fixed = _activation_order(army, r, start)
            G[po + start : po + start + len(idx)] = idx
            fixed.append(is_fixed)
            start += len(army.formations)
        start = 0
        for a, army in enumerate(self.armies):
            row = ao + a * L.A_NCOLS
            G[row + L.A_STRAT] = army.strategy
            G[row + L.A_RETAIN] = RETAIN_POLICIES.index(army.retain) if army.can_retain else 0
            G[row + L.A_MINFACES] = army.retain_min_faces()
            G[row + L.A_ORDER] = ORDER_POLICIES.index(army.order)
            G[row + L.A_CHOOSE] = CHOICES.index(army.choose)
            G[row + L.A_START] = start
            start += len(army.formations)
            G[row + L.A_STOP] = start
            G[row + L.A_STAT0] = a_stat0[a]
            G[row + L.A_FIXED] = fixed[a]
        G[L.R_TURNS] = self.turns
        G[L.R_PENALTY] = PENALTY_READINGS.index(r.action_penalty)
        G[L.R_NAT1] = r.natural_one_passes
        G[L.R_NAT6] = r.natural_six_fails
        G[L.R_RALLY_PEN] = r.rally_action_penalty
        G[L.R_RETAIN_LIMIT] = RETAIN_LIMITS.index(r.retain_limit)
        G[L.R_WITHDRAW] = WITHDRAWALS.index(r.withdrawal)
        G[L.R_BREAK] = BREAK_CHECKS.index(r.break_check)
        G[L.R_OS_TIMING] = OUTSIDE_TIMINGS.index(r.outside_timing)
        G[L.R_BROKEN_CAP] = r.broken_shock == "cap"
        keys = [a.key for a in self.armies]
        G[L.R_FIRST_TIE] = keys.index(r.first_turn_tie) if r.first_turn_tie in keys else -1
        G[L.H_NF] = nf
        G[L.H_FOFF] = fo
        G[L.H_AOFF] = ao
        G[L.H_WOFF] = wo
        G[L.H_ROFF] = ro
        G[L.H_NSLOTS] = n_slots
        G[L.H_POFF] = po
        G[L.H_TOFF] = to
        offs = np.concatenate([[0], np.cumsum([st.nbins for st in stats])]).astype(np.int64)
        # each turn statistic's first bin in the compact histogram; an unreported one (a
        # formation that cannot break is never broken) counts past the end, in bins no
        # statistic reads
        where = {slot: offs[i] for i, slot in enumerate(slots)}
        G[to:] = [where.get(int(s), offs[-1]) for s in tslots]
        return {"G": G, "cdf": cdf, "slots": np.array(slots, dtype=np.int64), "offs": offs}

    def turn_slots(self) -> np.ndarray:
        """The statistics-row slot of each entry of the turn-statistics table
        (``G[H_TOFF:]``, :func:`.layout.turn_slots`)."""
        _, _, _, a_stat0, f_stat0 = self._layout()
        return L.turn_slots(self.turns, f_stat0, a_stat0)

    def _params(self) -> tuple:
        a = self.arrays()
        return (a["G"], a["cdf"], a["slots"], a["offs"])

    # -- job ------------------------------------------------------------------------------------
    def headlines(self) -> tuple[Headline, ...]:
        n = self.turns
        heads = []
        for army in self.armies:
            nf = len(army.formations)
            every = "its formation passes" if nf == 1 else f"all {nf} formations pass"
            heads.append(
                Headline(
                    f"P({army.name}: {every} the turn-1 action test)",
                    f"{army.key}_actions_turn_1",
                    nf,
                )
            )
            if army.can_retain:
                heads.append(
                    Headline(
                        f"P({army.name} retains the initiative at least once)",
                        f"{army.key}_retained",
                        1,
                    )
                )
        for _a, army, f in self.formations():
            if not f.can_break(n):
                continue
            p = f"{army.key}_{f.key}"
            heads.append(
                Headline(
                    f"P({army.name} {f.name} broken by turn {n})", f"{p}_broken_by_turn_{n}", 1
                )
            )
            heads.append(
                Headline(f"P({army.name} {f.name} rallies from broken)", f"{p}_rallied", 1)
            )
        return tuple(heads)

    def curve_index(self) -> list[tuple[str, str, str, str, int]]:
        """(stat, army key, formation key or '', measure, turn) for the turn-by-turn curves."""
        out = []
        for army in self.armies:
            for t in range(1, self.turns + 1):
                for m in ("actions", "holds", "broken_after"):
                    out.append((f"{army.key}_{m}_turn_{t}", army.key, "", m, t))
                out.append((f"{army.key}_won_strategy_turn_{t}", army.key, "", "won_strategy", t))
            for f in army.formations:
                for t in range(1, self.turns + 1):
                    p = f"{army.key}_{f.key}"
                    out.append((f"{p}_action_turn_{t}", army.key, f.key, "p_action", t))
                    out.append((f"{p}_action_turn_{t}", army.key, f.key, "p_hold", t))
                    out.append((f"{p}_shock_after_turn_{t}", army.key, f.key, "shock", t))
                    if f.can_break(self.turns):
                        out.append((f"{p}_broken_by_turn_{t}", army.key, f.key, "broken_by", t))
        return out

    def compile(self) -> Job:
        primary = self.primary or f"{self.armies[0].key}_actions_turn_1"
        names = {a.key: a.name for a in self.armies}
        fnames = {(a.key, f.key): f.name for _i, a, f in self.formations()}
        # the lock-step kernels play the same games as K.run_formation_actions, faster
        from oddslab.rulesets.formation_actions import kernel_block as KB

        params = self._params()
        G = params[0]
        ao = int(G[L.H_AOFF])
        picking = not (G[ao + L.A_FIXED] and G[ao + L.A_NCOLS + L.A_FIXED])
        return Job(
            self.name,
            KB.run_formation_actions_picking if picking else KB.run_formation_actions_block,
            params,
            self.stats(),
            self.headlines(),
            exact=self.exact_pmfs,
            exact_joint=self.exact_joint,
            meta={
                "ruleset": RULESET,
                "description": self.description,
                "primary": primary,
                "turns": self.turns,
                "curves": self.curve_index(),
                "army_names": names,
                "formation_names": fnames,
            },
            ruleset=RULESET,
            records=True,
        )

    def run_with_dice(self, dice: list[int], seed: int = 1) -> dict[str, int]:
        """Play one game using the given D6 results first, in the order rolled.

        Scripted dice feed the strategy rolls (army 0's die, then army 1's), the action tests
        and the rally tests; outside Shock is always drawn from a generator seeded by
        ``seed``, as are the dice after the script runs out. Returns ``{stat: value}`` plus
        ``"dice_used"``.
        """
        a = self.arrays()
        if any(not 1 <= d <= 6 for d in dice):
            raise ValueError("scripted dice must be 1-6")
        script = np.array(list(dice), dtype=np.int64)
        seed_words = np.array([seed, 2, 3, 4], dtype=np.uint64)
        # the turn statistics go to a histogram of one game: give each slot its own bins
        # (as many as the widest statistic has) and read back the one bin counted
        G = a["G"].copy()
        tslots = self.turn_slots()
        width = int(np.diff(a["offs"]).max())
        G[G[L.H_TOFF] :] = tslots * width
        hist = np.zeros(int(G[L.H_NSLOTS]) * width, dtype=np.int64)
        res, used = K.play_scripted(G, a["cdf"], script, seed_words, hist)
        res[tslots] = hist.reshape(-1, width)[tslots].argmax(axis=1)
        out = {s.name: int(res[slot]) for s, slot in zip(self.stats(), a["slots"], strict=True)}
        out["dice_used"] = int(used)
        return out

    # -- exact -----------------------------------------------------------------------------------
    def exact_pmfs(self) -> dict[str, np.ndarray]:
        """Exact PMFs: the strategy-roll statistics always; every statistic of an army that
        cannot retain the initiative (then its formations' chains are independent)."""
        from oddslab.rulesets.formation_actions.exact import game_pmfs

        return game_pmfs(self)

    def exact_joint(self, names: tuple[str, ...]) -> np.ndarray | None:
        """The exact joint probability table of the statistics ``names`` (axis ``k``
        indexed by the value of ``names[k]``), or None where the exact chain cannot give
        it: see :func:`.exact.game_joint`."""
        from oddslab.rulesets.formation_actions.exact import game_joint

        return game_joint(self, tuple(names))

    def end_state(self, army: str, formation: str) -> Any:
        """The exact end state (Shock, broken, ever broken, withdrawn, withdrawals) of one
        formation as a tidy DataFrame: see :func:`.exact.end_state`."""
        from oddslab.rulesets.formation_actions.exact import end_state

        return end_state(self, army, formation)

    # -- resolved -------------------------------------------------------------------------------
    def resolved(self) -> dict[str, dict[str, Any]]:
        """The inputs as read, every default filled in and every test's chance shown."""
        from oddslab.rulesets.formation_actions.resolved import resolved_view

        return resolved_view(self)
