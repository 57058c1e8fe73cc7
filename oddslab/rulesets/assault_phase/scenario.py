"""The assault-phase scenario object: a combat and its run defaults, with the protocol's methods.

It sits above the modules that do the work (:mod:`.compile`, :mod:`.resolved`), which see the
class only in type hints, so no module of the package imports one that imports it back. They
are imported when first needed, so reading a file does not load the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oddslab._dictform import DictForm
from oddslab.rulesets.assault_phase.model import Rules, Side

__all__ = ["AssaultScenario"]


@dataclass(frozen=True)
class AssaultScenario(DictForm):
    """A close combat between ``attacker`` (charging) and ``defender``, plus run defaults."""

    attacker: Side
    defender: Side
    rules: Rules = field(default_factory=Rules)
    name: str = "assault"
    description: str = ""
    trials: int | None = None
    seed: int | None = None

    # -- the work is done in compile.py and resolved.py -------------------------------------
    def resolved(self) -> dict[str, dict[str, Any]]:
        """The combat as read: every group's derived rolls, strike order, charge, switches."""
        from oddslab.rulesets.assault_phase import resolved as R

        return R.resolved(self)

    def arrays(self) -> dict[str, np.ndarray]:
        """Kernel inputs (see :func:`oddslab.rulesets.assault_phase.compile.arrays`)."""
        from oddslab.rulesets.assault_phase import compile as C

        return C.arrays(self)

    def group_stat_names(self) -> list[str]:
        """``"<side>.<unit>.<group>.slain"`` for every group, in kernel order."""
        from oddslab.rulesets.assault_phase import compile as C

        return C.group_stat_names(self)

    def stats(self) -> tuple:
        from oddslab.rulesets.assault_phase import compile as C

        return C.stats(self)

    def headlines(self) -> tuple:
        from oddslab.rulesets.assault_phase import compile as C

        return C.headlines(self)

    def exact_pmfs(self) -> dict[str, np.ndarray]:
        """Exact PMFs of the static statistics (``attacker_charged``); see compile.py."""
        from oddslab.rulesets.assault_phase import compile as C

        return C.exact_pmfs(self)

    def compile(self):
        """The :class:`oddslab.engine.Job` for this combat."""
        from oddslab.rulesets.assault_phase import compile as C

        return C.job(self)

    def run_with_dice(self, dice: list[int], seed: int = 1) -> dict[str, int]:
        """Play one combat with the given D6 results used first, in the order rolled.

        For tests and for replaying worked examples. Returns ``{stat name: value}`` plus
        ``"dice_used"``. Once the list runs out, dice come from a generator seeded by
        ``seed``.
        """
        from oddslab.rulesets.assault_phase import compile as C

        return C.run_with_dice(self, dice, seed)
