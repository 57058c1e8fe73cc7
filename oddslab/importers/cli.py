"""``oddslab import ROSTER -o LIB.toml``: a roster from BattleScribe / New Recruit → a library.

:func:`register` adds the command to the ``oddslab`` typer app; the importer is imported
inside the command. A bad roster is one line on stderr naming the file and the unit / weapon,
exit code 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register", "summary_lines"]


def summary_lines(lib, roster) -> list[str]:
    """What the import read (entries, units, points) and what it could not model."""
    kinds: dict[str, dict[str, None]] = {"abilities": {}, "weapon keywords": {}, "other": {}}
    for e in lib:
        for note in e.data.get("not_modelled", []):
            text = str(note)
            for u in roster.units:  # a joined unit's notes start with the unit's name
                text = text.removeprefix(f"{u.name}: ")
            if text.startswith(("ability: ", "rule: ")):
                kinds["abilities"][text.split(": ", 1)[1]] = None
            elif text.startswith("keyword "):
                kinds["weapon keywords"][text[8:].split(" (")[0]] = None
            else:
                kinds["other"][text] = None
    points = f"{sum(u.points for u in roster.units):g}"
    lines = [f"{len(lib)} entries for {len(roster.units)} units ({points} points) in {lib.path}"]
    for kind, items in kinds.items():
        if items:
            lines.append(f"{len(items)} {kind} not modelled: {', '.join(items)}")
    if roster.notes:
        lines.append("army-wide, not modelled: " + "; ".join(roster.notes))
    joined = {e.data.get("name") for e in lib}
    hints = [h for h in roster.leaders() if " + ".join(h.split(":")[::-1]) not in joined]
    if hints:
        lines.append("leaders that can join a unit: " + " ".join(f'--attach "{h}"' for h in hints))
    return lines


def register(app: typer.Typer) -> None:
    """Add ``oddslab import`` to ``app``."""

    @app.command(name="import")
    def import_roster_cmd(
        roster: Annotated[
            Path,
            typer.Argument(metavar="ROSTER", help="A .ros, .rosz or New Recruit .json roster."),
        ],
        out: Annotated[
            Path, typer.Option("--out", "-o", metavar="LIB.toml", help="The library file to write.")
        ],
        attach: Annotated[
            list[str] | None,
            typer.Option(
                "--attach",
                metavar="LEADER:BODYGUARD",
                help='Also join a leader to its bodyguard as one mixed unit, e.g. "Captain:Intercessor Squad" (repeatable).',
            ),
        ] = None,
    ) -> None:
        """Import an army list into a unit library for the generic ruleset: one entry per unit
        with its points, models and weapons (see docs/import.md)."""
        from oddslab._schema import ScenarioError
        from oddslab.importers import MAX_BYTES, _import

        try:
            lib, data = _import(roster, out, attach or (), MAX_BYTES)
        except ScenarioError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=2) from None
        for line in summary_lines(lib, data):
            typer.echo(line)
