"""The Armoured Clash scenario: units, a sequence of attacks, the rules and run defaults."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oddslab._dictform import DictForm
from oddslab.engine import Job
from oddslab.outcome import Headline, Stat
from oddslab.rulesets.armoured_clash import compile as C
from oddslab.rulesets.armoured_clash import statistics as ST
from oddslab.rulesets.armoured_clash import validate as V
from oddslab.rulesets.armoured_clash.model import (
    Attack,
    AttackDie,
    RangedAttack,
    Rules,
    Unit,
)

__all__ = ["ArmouredClashScenario"]


@dataclass(frozen=True)
class ArmouredClashScenario(DictForm):
    """Units, a sequence of attacks and the rule options, plus run defaults.

    Parameters
    ----------
    units : sequence of Unit
    attacks : sequence of Attack
        Resolved in order in every trial; unit state and decks carry over.
    die : AttackDie
    decks : mapping side -> sequence of int
        C&C card values per side (default :func:`default_deck` for both).
    rules : Rules
    focus : str or None
        Unit the statistics describe (default: the first attack's target).
    """

    units: Sequence[Unit]
    attacks: Sequence[Attack]
    die: AttackDie = field(default_factory=AttackDie)
    decks: Mapping[str, Sequence[int]] = field(default_factory=dict)
    rules: Rules = field(default_factory=Rules)
    focus: str | None = None
    name: str = "armoured clash"
    description: str = ""
    trials: int | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "units", tuple(self.units))
        object.__setattr__(self, "attacks", tuple(self.attacks))
        object.__setattr__(self, "decks", dict(self.decks))
        problems = self.problems()
        if problems:
            key, text = problems[0]
            raise ValueError(f"{key}: {text}")

    def problems(self) -> list[tuple[str, str]]:
        """Every inconsistency as ``(key path, problem)``; empty when the scenario can run."""
        return V.problems(self)

    @staticmethod
    def _row(a: Attack, att: Unit, tgt: Unit) -> RangedAttack | None:
        return V.ranged_row(a, att, tgt)

    @staticmethod
    def _qc_col(a: Attack, att: Unit) -> Sequence[int] | None:
        return V.close_column(a, att)

    @property
    def focus_unit(self) -> str:
        """The unit the statistics describe (``focus``, else the first attack's target)."""
        return self.focus if self.focus is not None else self.attacks[0].target

    def arrays(self) -> dict[str, Any]:
        """Kernel inputs (see :func:`oddslab.rulesets.armoured_clash.compile.arrays`)."""
        return C.arrays(self)

    def stats(self) -> tuple[Stat, ...]:
        return ST.stats(self)

    def headlines(self) -> tuple[Headline, ...]:
        return ST.headlines(self)

    def compile(self) -> Job:
        """The :class:`oddslab.engine.Job` of this scenario."""
        return C.compile_job(self)

    def static_rating(self, i: int) -> int:
        """Combat rating of attack ``i`` (0-2) from the starting state (ranged or close)."""
        return C.static_rating(self, i)

    def exact_pmfs(self) -> dict[str, np.ndarray]:
        """Exact PMFs of ``hits`` and ``damage`` for a single ranged attack."""
        return C.exact_pmfs(self)

    def resolved(self) -> dict[str, dict[str, Any]]:
        """The inputs as the program read them, in plain words, for a person to check."""
        from oddslab.rulesets.armoured_clash.resolved import resolved

        return resolved(self)
