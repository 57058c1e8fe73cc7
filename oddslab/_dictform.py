"""The one way every ruleset's scenario becomes a dict again (``to_dict``)."""

from __future__ import annotations

from typing import Any

__all__ = ["DictForm"]


class DictForm:
    """Gives a scenario class ``to_dict()``: the scenario as a dict that
    :func:`oddslab.from_dict` reads back to an equal scenario (see
    :func:`oddslab.scenario.scenario_dict`). No fields, so dataclasses stay as they are."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """This scenario as a dict that :func:`oddslab.from_dict` reads back."""
        from oddslab.scenario import scenario_dict

        return scenario_dict(self)
