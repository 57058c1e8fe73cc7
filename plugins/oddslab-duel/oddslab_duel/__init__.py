"""Duel: a small opposed-roll game with a morale test, as an oddslab ruleset plugin.

The rules (invented for this template):

1. The attacker rolls ``attack_dice`` D6; each die showing ``attack_skill`` or more is a hit.
2. The defender rolls ``defence_dice`` D6; each die showing ``defence_skill`` or more blocks
   one hit.
3. Each unblocked hit takes one wound from the defender; with ``wounds`` gone it is slain.
4. A defender that survives with at least one wound lost (rule switch
   ``rules.morale_test = "wounded"``; ``"always"`` tests every survivor) rolls 2D6 and adds
   the wounds it lost: above ``morale`` it flees.

Everything a ruleset needs is here: the keys declared once (:data:`SCHEMA`), the scenario
object, the kernel, the exact answer and the :data:`RULESET` object registered in the
``oddslab.rulesets`` entry-point group. ``docs/adding-a-ruleset.md`` in oddslab explains
each part.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from oddslab.plugin import (
    BasicRuleset,
    ChunkKernel,
    Headline,
    Job,
    Key,
    Schema,
    Section,
    Stat,
    d6,
    jit_noalloc,
    run_keys,
    seed_state,
)

__all__ = ["RULESET", "SCHEMA", "DuelScenario", "exact_pmfs", "from_table"]

MORALE_TESTS = ("wounded", "always")

#: Every key of a duel scenario, declared once: reading, validation, JSON Schema and the
#: docs' key table all come from here.
SCHEMA = Schema(
    "duel",
    Section(
        "",
        (
            *run_keys("duel", "duel"),
            Section(
                "attacker",
                (
                    Key("attack_dice", "int", 3, "dice the attacker rolls", 1, 40, unit="dice"),
                    Key("attack_skill", "int", 4, "a die this high or more hits", 2, 6),
                ),
                "the side that strikes",
                required=True,
            ),
            Section(
                "defender",
                (
                    Key("defence_dice", "int", 2, "dice the defender rolls", 0, 40, unit="dice"),
                    Key("defence_skill", "int", 5, "a die this high or more blocks a hit", 2, 6),
                    Key("wounds", "int", 3, "wounds the defender can lose", 1, 40),
                    Key("morale", "int", 7, "2D6 plus wounds lost above this: it flees", 2, 12),
                ),
                "the side that is struck",
                required=True,
            ),
            Section(
                "rules",
                (
                    Key(
                        "morale_test",
                        "str",
                        "wounded",
                        "who tests morale: survivors that lost a wound, or every survivor",
                        choices=MORALE_TESTS,
                        switch=True,
                    ),
                ),
                "rule switches",
            ),
        ),
    ),
    title="oddslab scenario (duel plugin)",
)


@dataclass(frozen=True)
class DuelScenario:
    """One exchange of blows (see the module docstring for the rules)."""

    attack_dice: int = 3
    attack_skill: int = 4
    defence_dice: int = 2
    defence_skill: int = 5
    wounds: int = 3
    morale: int = 7
    morale_test: str = "wounded"
    name: str = "duel"
    description: str = ""
    trials: int | None = None
    seed: int | None = None

    def stats(self) -> tuple[Stat, ...]:
        """The statistics, named and labelled by whose fate they are."""
        flags = (
            ("defender_slain", "the defender is slain"),
            ("defender_fled", "the defender survives and flees"),
            ("defender_out_of_action", "the defender is slain or flees"),
        )
        lost = Stat("defender_wounds_lost", self.wounds + 1, "wounds the defender lost")
        return (lost, *(Stat(n, 2, d, flag=True, label=n.replace("_", " ")) for n, d in flags))

    def compile(self) -> Job:
        """The engine's job: the kernel, its scalar parameters, statistics, exact answer."""
        ints = (self.attack_dice, self.attack_skill, self.defence_dice, self.defence_skill)
        ints += (self.wounds, self.morale, MORALE_TESTS.index(self.morale_test))
        params = tuple(np.int64(x) for x in ints)
        return Job(
            name=self.name,
            kernel=run_duel,
            params=params,
            stats=self.stats(),
            headlines=(
                Headline("P(defender slain)", "defender_slain"),
                Headline("P(defender flees)", "defender_fled"),
                Headline("P(defender out of action)", "defender_out_of_action"),
            ),
            exact=lambda: exact_pmfs(self),
            meta={"primary": "defender_wounds_lost"},
            ruleset="duel",
            records=True,
        )

    def resolved(self) -> dict[str, dict[str, Any]]:
        """The inputs as read, in plain words (``oddslab show``)."""
        return {
            "attacker": {"dice": self.attack_dice, "hits on": f"{self.attack_skill}+"},
            "defender": {
                "dice": self.defence_dice,
                "blocks on": f"{self.defence_skill}+",
                "wounds": self.wounds,
                "flees when": f"2D6 + wounds lost > {self.morale}",
            },
            "rules": {"morale test": self.morale_test},
        }

    def to_dict(self) -> dict[str, Any]:
        """The scenario as a file's table (``from_dict(sc.to_dict())`` gives it back)."""
        d = asdict(self)
        top = {k: d[k] for k in ("name", "description", "trials", "seed") if d[k] is not None}
        return {
            "ruleset": "duel",
            **top,
            "attacker": {k: d[k] for k in ("attack_dice", "attack_skill")},
            "defender": {k: d[k] for k in ("defence_dice", "defence_skill", "wounds", "morale")},
            "rules": {"morale_test": self.morale_test},
        }


def from_table(root: Any) -> DuelScenario:
    """The scenario from a file's root table, read and validated through :data:`SCHEMA`."""
    v = SCHEMA.read(root)
    return DuelScenario(
        **v["attacker"],
        **v["defender"],
        morale_test=v["rules"]["morale_test"],
        **{k: v[k] for k in ("name", "description", "trials", "seed")},
    )


# -- the kernel: one serial chunk of trials, fanned out to threads by ChunkKernel ----------
@jit_noalloc
def duel_chunk(st, n, out, rec, a_dice, a_skill, d_dice, d_skill, wounds, morale, always):
    """``n`` duels from the generator ``st``; adds 1 to ``out[s, value]`` per statistic and,
    when ``rec`` (int32[r, 4]) is not empty, writes the same values to ``rec[t, s]``."""
    keep = rec.shape[0] > 0
    for t in range(n):
        hits = 0
        for _i in range(a_dice):
            if d6(st) >= a_skill:
                hits += 1
        blocks = 0
        for _i in range(d_dice):
            if d6(st) >= d_skill:
                blocks += 1
        lost = min(max(hits - blocks, 0), wounds)
        slain = 1 if lost == wounds else 0
        fled = 0
        if slain == 0 and (lost > 0 or always == 1):
            if d6(st) + d6(st) + lost > morale:
                fled = 1
        out[0, lost] += 1
        out[1, slain] += 1
        out[2, fled] += 1
        out[3, slain | fled] += 1
        if keep:  # per-trial records: the values just histogrammed, in the same order
            rec[t, 0] = lost
            rec[t, 1] = slain
            rec[t, 2] = fled
            rec[t, 3] = slain | fled


def _prologue(seed, n, out, rec, *params):
    return (seed_state(seed), n, out, rec, *params)


#: The engine's kernel: ``run_duel(seeds, ntrials, out, rec, *params)`` over a batch of
#: chunks; ``records=True`` (and the job's) lets events, joints and records ask of a trial.
run_duel = ChunkKernel(duel_chunk, "run_duel", prologue=_prologue, records=True)


# -- the exact answer, by enumeration of the rules (not from the kernel's tables) -----------
def _binomial(n: int, p: float) -> np.ndarray:
    return np.array([comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)])


def exact_pmfs(sc: DuelScenario) -> dict[str, np.ndarray]:
    """Every statistic's exact PMF (``pmf[v] = P(stat == v)``)."""
    hits = _binomial(sc.attack_dice, (7 - sc.attack_skill) / 6)
    blocks = _binomial(sc.defence_dice, (7 - sc.defence_skill) / 6)
    lost = np.zeros(sc.wounds + 1)
    for h, ph in enumerate(hits):
        for b, pb in enumerate(blocks):
            lost[min(max(h - b, 0), sc.wounds)] += ph * pb
    two_d6 = {t: min(t - 1, 13 - t) / 36 for t in range(2, 13)}  # P(2D6 == t)
    flee = 0.0
    for w in range(sc.wounds):  # survivors
        if w > 0 or sc.morale_test == "always":
            flee += lost[w] * sum(p for t, p in two_d6.items() if t + w > sc.morale)
    slain = lost[sc.wounds]
    return {
        "defender_wounds_lost": lost,
        "defender_slain": np.array([1 - slain, slain]),
        "defender_fled": np.array([1 - flee, flee]),
        "defender_out_of_action": np.array([1 - slain - flee, slain + flee]),
    }


#: The ruleset object (the oddslab.ruleset.Ruleset protocol).
RULESET = BasicRuleset(
    name="duel",
    title="Duel (plugin template)",
    doc="https://example.invalid/oddslab-duel",
    reader=from_table,
    rules=None,
    warmup=({"ruleset": "duel", "attacker": {}, "defender": {}},),
    examples_dir=Path(__file__).resolve().parent / "examples",
    keys=SCHEMA,
)
