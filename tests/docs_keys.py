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


PAGES = {
    "generic": "generic.md",
    "armoured-clash": "armoured-clash.md",
    "assault-phase": "assault-phase.md",
    "vom-kriege": "vom-kriege.md",
    "hex-platoon": "hex-platoon.md",
    "formation-actions": "formation-actions.md",
}
HEADING = "## Every key, by ruleset"


def every_key_section() -> str:
    """The "Every key, by ruleset" section of docs/scenario-format.md, from the readers."""
    seen = harvest_keys()
    out = [
        HEADING,
        "",
        "Each table a ruleset reads and every key it takes (tested against the readers: "
        "`tests/test_docs.py`). `NAME` stands for a name you choose, `[]` for an entry of an "
        "array of tables. Types, defaults and meanings are on the ruleset's page.",
        "",
    ]
    for rs, page in PAGES.items():
        out += [f"### `{rs}` ([{page}]({page}))", "", "| table | keys |", "|---|---|"]
        for path, keys in sorted((p, k) for (r, p), k in seen.items() if r == rs):
            where = f"`{path}`" if path else "top level"
            out.append(f"| {where} | {', '.join(f'`{k}`' for k in sorted(keys))} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":  # python tests/docs_keys.py: rewrite the section
    doc = ROOT / "docs" / "scenario-format.md"
    head = doc.read_text(encoding="utf-8").split("\n" + HEADING)[0].rstrip("\n")
    doc.write_text(head + "\n\n" + every_key_section(), encoding="utf-8")
