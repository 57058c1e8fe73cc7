"""The keys every ruleset's reader takes, table by table, harvested from the shipped examples
(for tests/test_docs.py and the "Every key, by ruleset" section of docs/scenario-format.md).

Each :class:`oddslab._schema.Table` records the keys its reader asked for (present or not:
defaults are asked for too) and checks the file's keys against them in ``finish()``; reading
every example with ``finish`` wrapped collects them. Tables keyed by names the user chooses
(``[units.NAME]``, ``anti = {infantry = 4}``) are folded to ``NAME`` / left out.
"""

from __future__ import annotations

import collections
import re

from conftest import ROOT

#: tables whose keys are names the user picks
MAPS = ("units", "leaders", "decks", "armies", "formations")


def _norm(path: str) -> str:
    path = re.sub(r"\[\d+\]", "[]", path)
    return re.sub(rf"\b({'|'.join(MAPS)})\.[^.\[]+", r"\1.NAME", path)


def harvest_keys() -> dict[tuple[str, str], set[str]]:
    """``{(ruleset, table path): keys}`` over every shipped example."""
    from oddslab import _schema
    from oddslab.scenario import load, read_toml

    seen: dict[tuple[str, str], set[str]] = collections.defaultdict(set)
    real = _schema.Table.finish
    ruleset = {"now": ""}

    def finish(self):
        path = _norm(self.path)
        last = path.rsplit(".", 1)[-1]
        if last not in MAPS and last != "anti":
            seen[(ruleset["now"], path)].update(self._used)
        return real(self)

    _schema.Table.finish = finish
    try:
        for f in sorted((ROOT / "oddslab" / "examples").glob("*.toml")):
            ruleset["now"] = read_toml(f).get("ruleset", "generic")
            load(f)
    finally:
        _schema.Table.finish = real
    return dict(seen)
