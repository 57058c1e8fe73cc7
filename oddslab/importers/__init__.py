"""Rosters from list-building apps → unit libraries (issue 32).

``import_roster("my-list.rosz")`` reads a BattleScribe / New Recruit roster (``.ros`` XML,
``.rosz`` zipped XML, or New Recruit's JSON export) into a generic-ruleset
:class:`~oddslab.libraries.Library`: one entry per unit with its points, model groups,
weapons and what could not be modelled.
``oddslab import ROSTER -o LIB.toml`` does the same from the command line. See docs/import.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from oddslab.importers.battlescribe import (
    MAX_BYTES,
    RosterData,
    parse_roster,
    read_roster_xml,
    roster_element_from_bytes,
)
from oddslab.importers.characteristics import RosterError
from oddslab.importers.library import build_entries, library_text

if TYPE_CHECKING:  # the analysis layer loads only when a roster is imported
    from oddslab.libraries import Library

__all__ = ["MAX_BYTES", "RosterError", "import_roster", "read_roster", "read_roster_bytes"]


def read_roster(path: str | Path, max_bytes: int = MAX_BYTES) -> RosterData:
    """The units of a roster file, as read (before they become library entries).

    Raises
    ------
    RosterError
        One line naming the file and the unit / weapon at fault.
    """
    return parse_roster(read_roster_xml(path, max_bytes), str(path))


def read_roster_bytes(data: bytes, name: str, max_bytes: int = MAX_BYTES) -> RosterData:
    """:func:`read_roster` for an uploaded file's bytes (the web app); ``name`` (the upload's
    file name) names it in errors. The same limits and checks apply."""
    return parse_roster(roster_element_from_bytes(data, name, max_bytes), name)


def import_roster(
    path: str | Path,
    out: str | Path | None = None,
    *,
    attach: list[str] | tuple[str, ...] = (),
    max_bytes: int = MAX_BYTES,
) -> Library:
    """Read a roster into a generic-ruleset unit library.

    Parameters
    ----------
    path : str or Path
        The ``.ros`` / ``.rosz`` file.
    out : str or Path, optional
        Write the library here (TOML, with a comment per entry). Without it the library is
        only in memory, at the roster's path with a ``.toml`` suffix (not written).
    attach : sequence of str
        ``"Leader:Bodyguard"`` (``"A+B:Bodyguard"`` for two leaders): also make an entry of
        the leader(s) joined to the bodyguard unit as one mixed unit.
    max_bytes : int
        The most bytes read from the file (or unzipped from it).

    Returns
    -------
    Library
        Its entries' ``data`` hold ``points``, ``name``, ``not_modelled`` and ``roles``.
    """
    return _import(path, out, attach, max_bytes)[0]


def _import(
    path: str | Path, out: str | Path | None, attach, max_bytes: int
) -> tuple[Library, RosterData]:
    """(library, roster data): :func:`import_roster` and what ``oddslab import`` prints."""
    import tomllib

    from oddslab.libraries import library_from_dict

    roster = read_roster(path, max_bytes)
    text = library_text(roster, build_entries(roster, attach))
    lib_path = Path(path).with_suffix(".toml") if out is None else Path(out)
    if out is not None:
        try:
            lib_path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise RosterError(str(out), "", f"cannot write the library ({exc.strerror})") from None
    return library_from_dict(lib_path, tomllib.loads(text)), roster
