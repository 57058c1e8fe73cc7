"""Command dice: "P(I can issue this set of orders)" exactly, with the optimal reroll policy.

A command rolls one command die per CP (CP = min(4, ceil(units / 2)) + bonus markers −
leader hits, clamped to 1-6), may reroll up to its leader's quality (L0-L3) in dice, then may
swap any pair of dice for one die of its choice (``pair_substitution``, default on). An order needs its symbol (infantry, cavalry,
artillery, saber = assault, flag = rally), two of them for the doubled effects, and one extra
die of any kind for a unit beyond 12", a move against national doctrine, or removing disorder
(what a saber may stand for: :mod:`.orders`).

Exact answers enumerate the multisets of the roll (multinomial probabilities) and choose the
reroll that maximises P(all orders) by dynamic programming over kept multisets; Monte Carlo
runs the same decision table (or the simpler stated policy) as a cross-check.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from math import factorial
from typing import Any

import numpy as np

from oddslab._dictform import DictForm
from oddslab.engine import Job
from oddslab.outcome import Headline, Stat
from oddslab.rulesets.vom_kriege.exact import command_cells, joint_of, joint_table
from oddslab.rulesets.vom_kriege.kernel_command import run_command
from oddslab.rulesets.vom_kriege.layout import SYMBOLS
from oddslab.rulesets.vom_kriege.model import Dice
from oddslab.rulesets.vom_kriege.orders import (
    ORDERS,
    SABER_READINGS,
    Order,
    feasible,
    requirements,
)

__all__ = [
    "Order",
    "CommandScenario",
    "command_points",
    "feasible",
    "command_from_values",
    "ORDERS",
]

NSYM = len(SYMBOLS)


def command_points(units: int, bonus: int = 0, leader_hits: int = 0) -> int:
    """CP = min(4, ceil(units / 2)) + bonus markers − leader hits, clamped to 1..6."""
    base = min(4, -(-units // 2))
    return max(1, min(6, base + bonus - leader_hits))


def _multisets(n: int) -> list[tuple[int, ...]]:
    out = []
    for combo in itertools.combinations_with_replacement(range(NSYM), n):
        c = [0] * NSYM
        for s in combo:
            c[s] += 1
        out.append(tuple(c))
    return out


def _prob(counts: tuple[int, ...], p: tuple[float, ...]) -> float:
    n = sum(counts)
    out = float(factorial(n))
    for c, pi in zip(counts, p, strict=True):
        out *= pi**c / factorial(c)
    return out


def _add(a: tuple[int, ...], b: tuple[int, ...], sign: int = 1) -> tuple[int, ...]:
    return tuple(x + sign * y for x, y in zip(a, b, strict=True))


def _subsets(m: tuple[int, ...], k: int) -> list[tuple[int, ...]]:
    ranges = [range(min(c, k) + 1) for c in m]
    return [s for s in itertools.product(*ranges) if sum(s) <= k]


@dataclass(frozen=True)
class CommandScenario(DictForm):
    """A command-dice question: can this roll (after rerolls and swaps) issue these orders?

    Parameters
    ----------
    cp : int
        Command dice rolled (1-6); see :func:`command_points`.
    rerolls : int
        Dice the leader may reroll (its quality, 0-3).
    orders : tuple of Order
    dice : Dice
    saber_wild : str
        What a saber may stand for (:func:`.orders.feasible`): ``"order"`` (default: a saber
        is an Assault order, "any unit may move, shoot and melee", so it issues a single
        infantry/cavalry/artillery order and two sabers a doubled one; no mixed pair),
        ``"any_symbol"`` (a spare saber fills any troop symbol, half of a doubled order
        included) or ``"assault_only"``.
    reroll : str
        ``"together"`` (nominate the dice, reroll them at once: the text) or ``"sequential"``
        (one at a time, seeing each result).
    pair_substitution : bool
        "Any pairs of command dice can be substituted by a single die of the player's
        choice" (default ``True``); ``False`` turns the swap off (what is it worth?).
    policy : str
        Reroll policy of the Monte Carlo run and of the exact answer: ``"optimal"`` (the DP's
        choice) or ``"simple"`` (keep a roll that works; else reroll surplus dice, blanks,
        flags, artillery, cavalry, infantry, sabers in that order).
    cp_inputs : dict
        How ``cp`` was found, for ``resolved()``.
    """

    cp: int
    rerolls: int
    orders: tuple[Order, ...]
    dice: Dice = field(default_factory=Dice)
    saber_wild: str = "order"
    reroll: str = "together"
    policy: str = "optimal"
    pair_substitution: bool = True
    cp_inputs: tuple[tuple[str, Any], ...] = ()
    name: str = "command dice"
    description: str = ""
    trials: int | None = None
    seed: int | None = None

    @property
    def leader_quality(self) -> int:
        """``rerolls`` under its key in files (``command.leader_quality``)."""
        return self.rerolls

    def __post_init__(self) -> None:
        if not 1 <= self.cp <= 6:
            raise ValueError("cp: expected 1 to 6 command dice")
        if not 0 <= self.rerolls <= 3:
            raise ValueError("rerolls: expected 0 to 3 (leader quality L0-L3)")
        if not self.orders:
            raise ValueError("orders: expected at least one order")
        if self.reroll not in ("together", "sequential"):
            raise ValueError("reroll: expected together or sequential")
        if self.policy not in ("optimal", "simple"):
            raise ValueError("policy: expected optimal or simple")
        if self.saber_wild not in SABER_READINGS:
            raise ValueError(f"saber_wild: expected one of {', '.join(SABER_READINGS)}")

    # -- the decision problem ------------------------------------------------------------
    @property
    def _p(self) -> tuple[float, ...]:
        return tuple(self.dice.p(s) for s in SYMBOLS)

    def _feas(self, m: tuple[int, ...], orders: tuple[Order, ...] | None = None) -> bool:
        needs = requirements(self.orders if orders is None else orders)
        return feasible(m, needs, self.saber_wild, self.pair_substitution)

    def _prefix(self, m: tuple[int, ...]) -> int:
        k = 0
        for i in range(1, len(self.orders) + 1):
            if not self._feas(m, self.orders[:i]):
                break
            k = i
        return k

    def _outcomes(self, j: int) -> list[tuple[tuple[int, ...], float]]:
        return [(o, _prob(o, self._p)) for o in _multisets(j) if _prob(o, self._p) > 0]

    def _simple_choice(self, m: tuple[int, ...]) -> tuple[int, ...]:
        if self._feas(m):
            return (0,) * NSYM
        need = requirements(self.orders).symbols
        surplus = [max(c - n, 0) for c, n in zip(m, need, strict=True)]
        pick = [0] * NSYM
        left = self.rerolls
        for s in (5, 4, 2, 1, 0, 3):
            t = min(surplus[s], left)
            pick[s] = t
            left -= t
        return tuple(pick)

    def decisions(self) -> dict[tuple[int, ...], Any]:
        """The reroll choice for every first roll (together: dice per symbol to reroll;
        sequential: a function of (roll, rerolls left) -> symbol or -1)."""
        if self.policy == "simple" or self.reroll == "together":
            return {m: self._choice(m) for m in _multisets(self.cp)}
        return {}

    @cache  # noqa: B019 - scenarios are frozen and few
    def _kept_value(self, kept: tuple[int, ...]) -> float:
        j = self.cp - sum(kept)
        return sum(p for o, p in self._outcomes(j) if self._feas(_add(kept, o)))

    def _choice(self, m: tuple[int, ...]) -> tuple[int, ...]:
        if self.policy == "simple":
            return self._simple_choice(m)
        best = (0,) * NSYM
        best_v = float(self._feas(m))
        for s in _subsets(m, self.rerolls):
            if sum(s) == 0:
                continue
            v = self._kept_value(_add(m, s, -1))
            if v > best_v + 1e-12:
                best, best_v = s, v
        return best

    @cache  # noqa: B019
    def _seq(self, m: tuple[int, ...], r: int) -> tuple[float, int]:
        """(value, symbol to reroll next or -1) with ``r`` sequential rerolls left."""
        best_v, best_s = float(self._feas(m)), -1
        if r == 0 or best_v == 1.0:
            return best_v, -1
        for s in range(NSYM):
            if m[s] == 0:
                continue
            kept = list(m)
            kept[s] -= 1
            v = 0.0
            for o, p in self._outcomes(1):
                v += p * self._seq(_add(tuple(kept), o), r - 1)[0]
            if v > best_v + 1e-12:
                best_v, best_s = v, s
        return best_v, best_s

    def final_distribution(self) -> dict[tuple[int, int], float]:
        """Exact P(final roll, dice rerolled) under the scenario's policy, as
        ``{(final multiset code, rerolled): probability}`` folded to the statistics."""
        out: dict[tuple[tuple[int, ...], int], float] = {}
        p = self._p
        for m in _multisets(self.cp):
            pm = _prob(m, p)
            if pm == 0:
                continue
            if self.reroll == "sequential" and self.policy == "optimal":
                frontier = {(m, 0): pm}
                for r in range(self.rerolls, 0, -1):
                    nxt: dict[tuple[tuple[int, ...], int], float] = {}
                    for (x, used), px in frontier.items():
                        s = self._seq(x, r)[1]
                        if s < 0:
                            nxt[(x, used)] = nxt.get((x, used), 0.0) + px
                            continue
                        kept = list(x)
                        kept[s] -= 1
                        for o, po in self._outcomes(1):
                            key = (_add(tuple(kept), o), used + 1)
                            nxt[key] = nxt.get(key, 0.0) + px * po
                    frontier = nxt
                for key, px in frontier.items():
                    out[key] = out.get(key, 0.0) + px
                continue
            s = self._choice(m)
            kept = _add(m, s, -1)
            for o, po in self._outcomes(sum(s)):
                key = (_add(kept, o), sum(s))
                out[key] = out.get(key, 0.0) + pm * po
        return out  # type: ignore[return-value]

    def probability(self) -> float:
        """Exact P(every order can be issued) under the scenario's reroll policy."""
        return float(self.exact_pmfs()["orders_issued"][1])

    # -- Job -------------------------------------------------------------------------------
    def stats(self) -> tuple[Stat, ...]:
        n = len(self.orders)
        return (
            Stat(
                "orders_in_sequence",
                n + 1,
                "orders issued, in the listed order",
                label="orders issued, in the listed order",
            ),
            Stat(
                "orders_issued",
                2,
                "all the orders can be issued",
                flag=True,
                label="all the orders can be issued",
            ),
            Stat(
                "dice_rerolled",
                self.rerolls + 1,
                "command dice rerolled",
                label="command dice rerolled",
            ),
        )

    def headlines(self) -> tuple[Headline, ...]:
        n = len(self.orders)
        heads = [Headline(f"P(all {n} orders can be issued)", "orders_issued", 1)]
        for k in range(1, n):
            what = "the first order" if k == 1 else f"the first {k} orders"
            heads.append(Headline(f"P({what} can be issued)", "orders_in_sequence", k))
        return tuple(heads)

    def exact_pmfs(self) -> dict[str, np.ndarray]:
        cells = command_cells(self)
        return {s.name: joint_table(cells, (s.name,), (s.nbins,)) for s in self.stats()}

    def exact_joint(self, names: Sequence[str]) -> np.ndarray | None:
        """Exact joint probability table of the statistics ``names`` (axis ``k`` indexed by
        the value of ``names[k]``), from the same final rolls as :meth:`exact_pmfs`; None
        for a name that is not one of the three statistics."""
        return joint_of(names, self.stats(), [s.name for s in self.stats()], command_cells(self))

    def arrays(self) -> dict[str, Any]:
        n = self.cp
        base = n + 1
        size = base**NSYM

        def code(m: tuple[int, ...]) -> int:
            return sum(c * base**i for i, c in enumerate(m))

        feas = np.zeros(size, dtype=np.int64)
        prefix = np.zeros(size, dtype=np.int64)
        for m in _multisets(n):
            feas[code(m)] = int(self._feas(m))
            prefix[code(m)] = self._prefix(m)
        mode = 1 if (self.reroll == "sequential" and self.policy == "optimal") else 0
        cols = NSYM if mode == 0 else self.rerolls + 1  # mode 1: column r = rerolls left
        pol = np.full((size, cols), 0 if mode == 0 else -1, np.int64)
        if mode == 0:
            for m, s in self.decisions().items():
                pol[code(m), :NSYM] = s
        else:
            for m in _multisets(n):
                for r in range(1, self.rerolls + 1):
                    pol[code(m), r] = self._seq(m, r)[1]
        cls = np.array([SYMBOLS.index(f) for f in self.dice.faces], dtype=np.int64)
        return dict(
            ndice=n, nf=len(self.dice.faces), CLS=cls, POL=pol, mode=mode, FEAS=feas, PREFIX=prefix
        )

    def compile(self) -> Job:
        a = self.arrays()
        params = (a["ndice"], a["nf"], a["CLS"], a["POL"], a["mode"], a["FEAS"], a["PREFIX"], NSYM)
        return Job(
            self.name,
            run_command,
            params,
            self.stats(),
            self.headlines(),
            exact=self.exact_pmfs,
            exact_joint=self.exact_joint,
            meta={
                "ruleset": "vom-kriege",
                "description": self.description,
                "primary": "orders_in_sequence",
            },
            ruleset="vom-kriege",
            records=True,
        )

    def resolved(self) -> dict[str, dict[str, Any]]:
        cp = {k: v for k, v in self.cp_inputs}
        cp["command dice rolled"] = self.cp
        cp["rerolls (leader quality)"] = self.rerolls
        needs = requirements(self.orders)
        need, anyd = needs.symbols, needs.any_dice
        orders = {f"order {i + 1}": o.text() for i, o in enumerate(self.orders)}
        orders["dice needed in all"] = ", ".join(
            f"{need[i]} × {SYMBOLS[i]}" for i in range(NSYM) if need[i]
        ) + (f", {anyd} × any" if anyd else "")
        return {
            "command points": cp,
            "orders": orders,
            "dice": {"faces": ", ".join(self.dice.faces)},
            "rules": {
                "a saber stands for": _SABER_TEXT[self.saber_wild]
                + (" (default)" if self.saber_wild == "order" else ""),
                "pairs swapped for a die of choice": (
                    "yes (the text, default)" if self.pair_substitution else "no (switched off)"
                ),
                "rerolls": self.reroll + (" (default)" if self.reroll == "together" else ""),
                "policy": self.policy + (" (default)" if self.policy == "optimal" else ""),
            },
        }


_SABER_TEXT = {
    "order": "an Assault order: one troop order, or a doubled one with two sabers",
    "any_symbol": "any troop symbol, half of a doubled order too",
    "assault_only": "Assault orders only",
}


def command_from_values(c: Any, dice: Dice, run: dict[str, Any]) -> CommandScenario:
    """``kind = "command"``: the scenario from the read ``[command]`` table (its values, as
    :mod:`.schema` declares them), the dice and the run options."""
    units, bonus, lh, cp = c["units"], c["bonus"], c["leader_hits"], c["cp"]
    if cp is None and units is None:
        raise c.error("cp", "give cp (1-6) or units (the command's units, for the base CP)")
    if cp is not None and units is not None:
        raise c.error("cp", "give cp or units, not both")
    inputs: list[tuple[str, Any]] = []
    if cp is None:
        cp = command_points(units, bonus, lh)
        inputs = [
            ("base CP", f"{min(4, -(-units // 2))} ({units} units ÷ 2 rounded up, max 4)"),
            ("bonus markers", bonus),
            ("leader hits", lh),
        ]
    else:
        inputs = [("CP", f"{cp} (given)")]
    orders = []
    for o in c["orders"]:
        if o["double"] and o["order"] == "rally":
            raise o.error("double", "a rally order takes one flag")
        orders.append(Order(**o))
    return CommandScenario(
        cp=cp,
        rerolls=c["leader_quality"],
        orders=tuple(orders),
        dice=dice,
        saber_wild=c["saber_wild"],
        reroll=c["reroll"],
        policy=c["policy"],
        pair_substitution=c["pair_substitution"],
        cp_inputs=tuple(inputs),
        **run,
    )
