"""Exact joint distributions of Vom Kriege statistics, where the exact engine enumerates every
outcome with its probability (a *cell*) and every statistic is a function of the cell:

* a single shooting action: every (hits, flags) cell of the roll (multinomial,
  :func:`.tables.hits_flags_pmf`), the target's fate by :func:`.resolve.resolve_once`;
* the form-square test of a first cavalry charge: success or failure;
* a command roll: every final roll and number of dice rerolled under the policy
  (:meth:`.command.CommandScenario.final_distribution`).

The marginal PMFs (``exact_pmfs``) and the joint tables (``exact_joint``, see
:class:`oddslab.engine.Job`) are sums over the same cells, so they agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.model import range_band
from oddslab.rulesets.vom_kriege.resolve import resolve_once
from oddslab.rulesets.vom_kriege.tables import face_tables, hits_flags_pmf, shooting_dice

if TYPE_CHECKING:
    from oddslab.outcome import Stat
    from oddslab.rulesets.vom_kriege.command import CommandScenario
    from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario

__all__ = ["EXACT_STATS", "Cell", "joint_table", "joint_of", "shot_cells", "command_cells"]

#: the statistics of a single shooting action the exact engine gives (the target's fate)
EXACT_STATS = (
    "attacker_dice_rolled",
    "hits_on_defender",
    "flags_on_defender",
    "defender_hits",
    "defender_retreat_half_moves",
    "defender_retreated",
    "defender_disordered",
    "defender_removed",
    "defender_at_max_hits",
    "defender_broken",
)

#: one outcome: its probability and the value of each statistic the engine knows
Cell = tuple[float, Mapping[str, int]]


def joint_table(cells: Iterable[Cell], names: Sequence[str], sizes: Sequence[int]) -> np.ndarray:
    """``P[v_0, ..., v_{k-1}]``: the probability that statistic ``names[i]`` is ``v_i`` for
    each ``i``, summed over ``cells`` in order. Shape ``sizes`` (each statistic's bins); a
    value beyond its last bin counts in that bin, as the kernels' histograms clamp it."""
    out = np.zeros(tuple(sizes))
    top = [s - 1 for s in sizes]
    for p, values in cells:
        out[tuple(min(values[n], t) for n, t in zip(names, top, strict=True))] += p
    return out


def joint_of(
    names: Sequence[str], stats: Sequence[Stat], known: Iterable[str], cells: Iterable[Cell]
) -> np.ndarray | None:
    """The exact joint table of ``names`` (see :func:`joint_table`), or None when one of
    them is not among the ``known`` statistics (or not a statistic of ``stats``)."""
    names = tuple(names)
    bins = {s.name: s.nbins for s in stats}
    known = set(known)
    if not names or any(n not in known or n not in bins for n in names):
        return None
    return joint_table(cells, names, [bins[n] for n in names])


def shot_cells(sc: VomKriegeScenario) -> list[Cell]:
    """Every (hits, flags) cell of ``sc``'s single shooting action: its multinomial
    probability and :data:`EXACT_STATS` (the target's fate after hits then retreats)."""
    a = sc.actions[0]
    by = {u.name: u for u in sc.units}
    att, tgt = by[a.actor], by[a.target]
    n, _ = shooting_dice(
        att,
        tgt,
        range_band(a.range),
        sc.rules,
        order_bonus=a.order_bonus,
        supports=a.supports,
        enfilade=a.enfilade,
        obscured=a.obscured,
    )
    n = max(n, 0)
    hit, flag, _ = face_tables(sc.dice, sc.rules)
    nf = len(sc.dice.faces)
    ph = hit[0, L.TROOPS.index(tgt.troop)].sum() / nf
    pf = flag.sum() / nf
    joint = hits_flags_pmf(n, ph, pf)
    cells: list[Cell] = []
    for h in range(n + 1):
        for f in range(n + 1 - h):
            fate = resolve_once(tgt, h, f, sc.rules)
            fate.update(hits_on_defender=h, flags_on_defender=f, attacker_dice_rolled=n)
            cells.append((float(joint[h, f]), fate))
    return cells


def square_cells(p: float) -> list[Cell]:
    """The form-square test that succeeds with probability ``p``."""
    return [(1.0 - p, {"defender_formed_square": 0}), (p, {"defender_formed_square": 1})]


def command_cells(sc: CommandScenario) -> list[Cell]:
    """Every (final roll, dice rerolled) outcome of ``sc``'s command roll under its policy,
    with its three statistics."""
    n = len(sc.orders)
    cells: list[Cell] = []
    for (m, used), p in sc.final_distribution().items():
        k = sc._prefix(m)  # type: ignore[arg-type]
        cells.append(
            (p, {"orders_in_sequence": k, "orders_issued": int(k == n), "dice_rerolled": used})
        )
    return cells
