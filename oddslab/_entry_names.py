"""Names of library entries: their identity (resolved library path and key), their names in
tables and cell values (``file-name.toml:key``, with as many trailing folders as tell two
libraries of one file name apart) and their labels in matrices and plots.

Kept apart from :mod:`oddslab.libraries` (which re-exports these names), which reads and
expands libraries.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from oddslab.libraries import LibraryEntry

__all__ = ["resolved", "entry_names", "entry_labels"]


def resolved(path: Path) -> Path:
    """``path.resolve()``, kept per (path, current folder for a relative one): a study
    resolves the same few library paths for every cell (each resolve is a few system calls
    per folder of the path)."""
    import os

    return _resolve(path, "" if path.is_absolute() else os.getcwd())


@functools.lru_cache(maxsize=1024)
def _resolve(path: Path, cwd: str) -> Path:
    return path.resolve()


def _ident(e: LibraryEntry) -> str:
    """The entry's identity: its library's resolved path and its key."""
    return f"{resolved(e.library)}:{e.key}"


def _name(e: LibraryEntry, names: Mapping[str, str] | None = None) -> str:
    """The entry's name in tables and cell values: ``file-name.toml:key``, or the name
    :func:`entry_names` gave it when two libraries share a file name."""
    if names is not None and _ident(e) in names:
        return names[_ident(e)]
    return f"{e.library.name}:{e.key}"


def entry_labels(entries: list[LibraryEntry], names: Mapping[str, str]) -> dict[str, str]:
    """Labels of entries (identity → label) for matrices and plots that tell entries apart:
    the entry's :attr:`~LibraryEntry.label`, followed by its name in tables (``names``, from
    :func:`entry_names`: ``"Conscripts (a/units.toml:conscripts)"``) when another entry
    has the same label."""
    uniq = {_ident(e): e for e in entries}
    count: dict[str, int] = {}
    for e in uniq.values():
        count[e.label] = count.get(e.label, 0) + 1
    return {
        i: e.label if count[e.label] == 1 else f"{e.label} ({_name(e, names)})"
        for i, e in uniq.items()
    }


def entry_names(entries: list[LibraryEntry]) -> dict[str, str]:
    """Names of entries (identity → name) that never collide.

    ``file-name.toml:key`` as before (so cells keep their seeds); when libraries in different
    folders share a file name, their entries are named by as many trailing folders as tell
    them apart (``a/units.toml:x``, ``b/units.toml:x``).
    """
    paths = {resolved(e.library) for e in entries}
    by_name: dict[str, list[Path]] = {}
    for p in sorted(paths):
        by_name.setdefault(p.name, []).append(p)
    shown: dict[Path, str] = {}
    for name, group in by_name.items():
        if len(group) == 1:
            shown[group[0]] = name
            continue
        for k in range(2, max(len(p.parts) for p in group) + 1):
            tails = ["/".join(p.parts[-k:]) for p in group]
            if len(set(tails)) == len(tails):
                break
        shown.update(zip(group, tails, strict=True))
    return {_ident(e): f"{shown[resolved(e.library)]}:{e.key}" for e in entries}
