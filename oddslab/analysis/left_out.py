"""Entries a matchup leaves out, and why, in plain words.

An entry that came with a whole library or a glob (``lib.toml``, ``lib.toml:*squad*``) and
fits no pair of its side is left out of that side: a library of attackers and targets given
as the targets keeps its target profiles. Its note says why in a few words ("not a target
profile: it has attacker keys (attacks, skill, strength)"), never the full validation error,
which is kept for an entry named one by one (that one must fit: it is an error). A glob that
keeps no entry of its side is an error too (:func:`check_globs`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from oddslab.analysis.matchup_cells import pair_scenario
from oddslab.libraries import _ident

__all__ = ["Side", "explain_left_out", "check_globs", "left_out_notes"]

#: The two sides of a matchup, in the order of its fit map's axes.
SIDES = ("attacker", "target")
#: At most this many left-out entries of one side and reason get a note each; more, one line.
MOST = 3


@dataclass(frozen=True)
class Side:
    """One side of a matchup: its selection (``Selection``), the indices kept, each entry's
    name in tables and absolute reference (``/path/lib.toml:key``)."""

    selection: Any
    kept: list[int]
    names: list[str]
    refs: list[str]


def _a(word: str) -> str:
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def _few(keys: Sequence[str], most: int = 4) -> str:
    shown = ", ".join(keys[:most])
    return shown + (", ..." if len(keys) > most else "")


def _fits(tpl: dict[str, Any], source: str, base: Path, attacker: str, target: str) -> bool:
    from oddslab._schema import ScenarioError
    from oddslab.scenario import from_dict

    try:
        from_dict(pair_scenario(tpl, attacker, target, source, base), source=source)
    except ScenarioError:
        return False
    return True


def _short(reason: str) -> str:
    """A validation reason without its list of known keys (20 names of the other slot)."""
    return re.sub(r" \(known keys here: [^)]*\)", "", reason)


def _split(reason: str) -> tuple[str, str]:
    """(key path, problem) of a reason ``"key: problem"`` (key "" when it names none)."""
    key, sep, problem = reason.partition(": ")
    return (key, problem) if sep and re.fullmatch(r"[\w\[\].-]+", key) else ("", reason)


def _structural(problem: str) -> bool:
    """The entry has the wrong keys for the slot (an attacker profile given as a target),
    rather than breaking a rule of the game."""
    return problem.startswith(("unknown key", "required key is missing", "expected a table")) or (
        "cannot be used in a table named" in problem
    )


def explain_left_out(
    sides: tuple[Side, Side], why: np.ndarray, reasons: list[str], tpl: dict[str, Any],
    source: str, base: Path,
) -> list[tuple[str, str, str]]:  # fmt: skip
    """(entry name, side, reason in plain words) of every entry left out of its side, sorted.

    An entry that fits the other side's slot (it is kept there, or it fits it against an entry
    kept on its own side) is "not a <side> profile" and the note names its keys that no kept
    entry of its side has; another says which key of the slot it breaks (without the list of
    known keys).
    """
    out = []
    for k, side in enumerate(sides):
        other = sides[1 - k]
        kept_other = {_ident(other.selection.entries[i]) for i in other.kept}
        own_keys = set().union(*(side.selection.entries[i].profile() for i in side.kept))
        for i in sorted(set(range(len(side.names))) - set(side.kept)):
            e = side.selection.entries[i]
            line = why[i] if k == 0 else why[:, i]
            bad = np.flatnonzero(line >= 0)
            reason = reasons[int(line[bad[0]])] if len(bad) else "it fits no pair"
            fits_other = _ident(e) in kept_other
            if not fits_other and side.kept:  # tried once in the other slot
                pair = [side.refs[side.kept[0]]]
                pair.insert(1 - k, side.refs[i])
                fits_other = _fits(tpl, source, base, *pair)
            key, problem = _split(reason)
            if not _structural(problem):  # a rule of the game: its own words say why
                text = f"cannot be {_a(SIDES[k])}: {problem}" + (f" ({key})" if key else "")
            elif fits_other:
                keys = [key for key in e.profile() if key not in own_keys]
                has = f"it has {SIDES[1 - k]} keys ({_few(keys)})" if keys else (
                    f"{_a(SIDES[1 - k])} profile")  # fmt: skip
                text = f"not {_a(SIDES[k])} profile: {has}"
            else:
                text = f"not {_a(SIDES[k])} profile: {_short(reason)}"
            out.append((side.names[i], SIDES[k], text))
    return sorted(out)


def check_globs(
    sides: tuple[Side, Side], left_out: list[tuple[str, str, str]], fits: np.ndarray,
    tpl: dict[str, Any], source: str, base: Path,
) -> None:  # fmt: skip
    """Raise for a glob that keeps no entry of its side (its first entry's reason given),
    unless an entry named one by one on the other side is at fault: it fits nothing, and no
    entry of the glob's library either (then the matchup raises that entry's own error)."""
    from oddslab._schema import ScenarioError

    whys = {(n, s): w for n, s, w in left_out}
    for k, side in enumerate(sides):
        globs = side.selection.globs or ("",) * len(side.names)
        kept = set(side.kept)
        for g in dict.fromkeys(g for g in globs if g):
            picked = [i for i, gi in enumerate(globs) if gi == g]
            if kept.intersection(picked) or _named_at_fault(sides, k, fits, picked[0], tpl,
                                                            source, base):  # fmt: skip
                continue
            n = side.names[picked[0]]
            raise ScenarioError(
                g, "", f"no entry it picks fits the {SIDES[k]} slot of the matchup "
                f"template ({n}: {whys.get((n, SIDES[k]), 'fits no pair')})",
            )  # fmt: skip


def _named_at_fault(sides: tuple[Side, Side], k: int, fits: np.ndarray, first: int,
                    tpl: dict[str, Any], source: str, base: Path) -> bool:  # fmt: skip
    """A named entry of the other side fits no pair, nor any entry of the library of side
    ``k``'s entry ``first`` in side ``k``'s slot."""
    from oddslab.libraries import load_library, resolved

    other = sides[1 - k]
    lines = fits if k == 1 else fits.T
    bad = [i for i in other.kept if other.selection.named[i] and not lines[i].any()]
    if not bad:
        return False
    lib = load_library(sides[k].selection.entries[first].library)
    refs = [f"{resolved(lib.path)}:{key}" for key in lib.entries]
    for i in bad:
        pairs = ((other.refs[i], r) if k == 1 else (r, other.refs[i]) for r in refs)
        if not any(_fits(tpl, source, base, *p) for p in pairs):
            return True
    return False


def left_out_notes(left_out: list[tuple[str, str, str]], most: int = MOST) -> list[str]:
    """The printed notes: one line per left-out entry, or one line for the entries of one
    side left out for the same kind of reason when there are more than ``most`` of them."""
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for name, side, why in left_out:
        head, _, detail = why.partition(": ")
        groups.setdefault((side, head), []).append((name, detail))
    notes = []
    for (side, head), items in groups.items():
        if len(items) > most:
            names = _names([n for n, _ in items])
            notes.append(f"left out {len(items)} entries as {side}s ({head}): {names}")
        else:
            notes += [f"left out {n} ({side}): {head}: {d}" if d else
                      f"left out {n} ({side}): {head}" for n, d in items]  # fmt: skip
    return notes


def _names(names: list[str], width: int = 90) -> str:
    """``lib.toml:a,b,c`` (the spec syntax) for entries of one library, as many as fit in
    about ``width`` characters, then "and N more"."""
    libs: dict[str, list[str]] = {}
    shown = 0
    for n in names:
        lib, _, key = n.rpartition(":")
        if shown and sum(len(k) + 1 for ks in libs.values() for k in ks) + len(key) > width:
            break
        libs.setdefault(lib, []).append(key)
        shown += 1
    text = ", ".join(f"{lib}:{','.join(keys)}" for lib, keys in libs.items())
    return text + (f" and {len(names) - shown} more" if len(names) > shown else "")
