"""Unit orders and the dice they need: which command dice (after pair swaps) issue a set of
orders, under the three readings of what a saber may stand for (``saber_wild``).

The order table: an infantry, cavalry or artillery symbol is a Deploy order for that troop
type ("Infantry may move and shoot"), two of them the doubled order ("move twice, or shoot
with +1"); a saber is an Assault order ("Any unit may move, shoot and melee"), two sabers the
doubled Assault ("Any unit may move twice, or ... shoot with +1, or ... melee with +1"); the
flag is the Rally order. An Assault order allows everything a Deploy order does, so a saber
can order any unit; but the table lists no mixed pair (a troop symbol and a saber), so a
doubled order is two troop symbols or two sabers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

from oddslab.rulesets.vom_kriege.layout import SYMBOLS

__all__ = ["ORDERS", "SABER_READINGS", "Order", "Needs", "requirements", "feasible"]

#: order name -> symbol it needs
ORDERS = {"infantry": 0, "cavalry": 1, "artillery": 2, "assault": 3, "rally": 4}
NSYM = len(SYMBOLS)
SABER = 3
TROOP_SYMBOLS = (0, 1, 2)

#: ``saber_wild`` readings: what a saber (an Assault order) may stand for
SABER_READINGS = ("order", "any_symbol", "assault_only")


@dataclass(frozen=True)
class Order:
    """One unit/group order: ``order`` (infantry, cavalry, artillery, assault, rally),
    ``double`` (two symbols: move twice or +1), and extra dice of any kind: ``far`` (beyond
    12"), ``against_doctrine``, ``disordered`` (remove its disorder)."""

    order: str
    double: bool = False
    far: bool = False
    against_doctrine: bool = False
    disordered: bool = False

    def __post_init__(self) -> None:
        if self.order not in ORDERS:
            raise ValueError(f"order: expected one of {', '.join(ORDERS)}")
        if self.double and self.order == "rally":
            raise ValueError("double: a rally order takes one flag")

    @property
    def symbols(self) -> int:
        return 2 if self.double else 1

    @property
    def any_dice(self) -> int:
        return int(self.far) + int(self.against_doctrine) + int(self.disordered)

    def text(self) -> str:
        extra = [
            w
            for w, on in (
                ('beyond 12"', self.far),
                ("against doctrine", self.against_doctrine),
                ("disordered", self.disordered),
            )
            if on
        ]
        sym = SYMBOLS[ORDERS[self.order]]
        s = f"{self.order}: {self.symbols} × {sym}"
        return s + (f" + {len(extra)} any ({', '.join(extra)})" if extra else "")


@dataclass(frozen=True)
class Needs:
    """What a set of orders needs: ``symbols[s]`` dice of symbol ``s`` (per ``SYMBOLS``),
    ``any_dice`` dice of any kind, and ``doubled[s]`` of the troop-symbol dice (s = 0, 1, 2)
    that belong to doubled orders, two each."""

    symbols: tuple[int, ...]
    any_dice: int
    doubled: tuple[int, int, int]


def requirements(orders: tuple[Order, ...]) -> Needs:
    """The dice ``orders`` need (see :class:`Needs`)."""
    need = [0] * NSYM
    doubled = [0, 0, 0]
    anyd = 0
    for o in orders:
        s = ORDERS[o.order]
        need[s] += o.symbols
        if o.double and s in TROOP_SYMBOLS:
            doubled[s] += 1
        anyd += o.any_dice
    return Needs(tuple(need), anyd, (doubled[0], doubled[1], doubled[2]))


def _fits(counts: tuple[int, ...], need: tuple[int, ...], anyd: int, pairs: bool = True) -> bool:
    """Exact matches first; each missing symbol costs a pair of dice (swapped for it), each
    any-die one die. Optimal for a fixed ``need``: a matching die fills a symbol for one die,
    a swap for two. Without ``pairs`` (no substitution) nothing may be missing."""
    used = sum(min(c, n) for c, n in zip(counts, need, strict=True))
    missing = sum(need) - used
    if missing and not pairs:
        return False
    return 2 * missing + anyd <= sum(counts) - used


@cache
def feasible(
    counts: tuple[int, ...], needs: Needs, sabers: str = "order", pairs: bool = True
) -> bool:
    """Can the dice ``counts`` (per symbol) issue orders needing ``needs``?

    ``pairs`` (the ``pair_substitution`` switch): "Any pairs of command dice can be
    substituted by a single die of the player's choice" (default); ``False`` turns the
    substitution off, so every symbol must be rolled.

    ``sabers`` (the ``saber_wild`` switch) says what a saber stands for:

    * ``"order"`` (the text): a saber is an Assault order, so one saber issues a single
      infantry/cavalry/artillery order and two sabers a doubled one; a troop symbol and a
      saber never make a doubled order together. Every way of turning troop orders into
      Assaults is tried (a handful).
    * ``"any_symbol"``: a spare saber stands in for any one troop symbol, half of a doubled
      order included.
    * ``"assault_only"``: sabers fill Assault orders only.
    """
    need = needs.symbols
    if sabers == "assault_only":
        return _fits(counts, need, needs.any_dice, pairs)
    if sabers == "any_symbol":
        used = [min(c, n) for c, n in zip(counts, need, strict=True)]
        short = sum(need[s] - used[s] for s in TROOP_SYMBOLS)
        w = min(counts[SABER] - used[SABER], short)
        missing = sum(need) - sum(used) - w
        if missing and not pairs:
            return False
        return 2 * missing + needs.any_dice <= sum(counts) - sum(used) - w
    single = [need[s] - 2 * needs.doubled[s] for s in TROOP_SYMBOLS]
    ranges = [range(single[s] + 1) for s in TROOP_SYMBOLS]
    ranges += [range(needs.doubled[s] + 1) for s in TROOP_SYMBOLS]
    for k in itertools.product(*ranges):
        n = list(need)
        for s in TROOP_SYMBOLS:
            moved = k[s] + 2 * k[3 + s]  # single orders, then doubled ones, issued as Assaults
            n[s] -= moved
            n[SABER] += moved
        if _fits(counts, tuple(n), needs.any_dice, pairs):
            return True
    return False
