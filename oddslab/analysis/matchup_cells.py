"""A matchup's pairs: validated once, kept as a fit map, made into cells when they run.

Every attacker × target pair is validated before anything runs (:func:`validate_pairs`), and
what is kept of it is one number: -1 (the pair fits) or the index of the reason it does not.
That map (``int32[attackers, targets]``, 4 bytes a pair) is all a big matchup keeps per pair:
:class:`MatchupCells` makes each fitting pair's cell (row-major) when it is read, its
scenario built when it is sent to run, and :class:`Unfit` answers which pairs were not run
and why. A small matchup (up to :data:`~oddslab.analysis.cells.KEEP_VALIDATED` pairs) also
keeps each pair's validated scenario, so nothing is read twice.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab.analysis.cells import Cell, cell_seed

if TYPE_CHECKING:
    from oddslab.libraries import LibraryEntry

__all__ = [
    "MatchupCells",
    "Unfit",
    "validate_pairs",
    "pair_scenario",
    "fill",
    "read_template",
    "slot_overrides",
    "template_mentions",
]

#: Placeholders of a matchup template.
SLOTS = ("{attacker}", "{target}")


def fill(node: Any, refs: dict[str, str]) -> Any:
    """The template with each placeholder string of ``refs`` replaced."""
    if isinstance(node, dict):
        return {k: fill(v, refs) for k, v in node.items()}
    if isinstance(node, list):
        return [fill(v, refs) for v in node]
    if isinstance(node, str) and node in refs:
        return refs[node]
    return node


def pair_scenario(
    template: dict[str, Any], attacker: str, target: str, where: str, base: Path
) -> dict[str, Any]:
    """The scenario of one pair: the template filled with the two entries' absolute
    references (``/path/lib.toml:key``), library uses expanded."""
    from oddslab.libraries import expand_uses

    filled = fill(copy.deepcopy(template), {SLOTS[0]: attacker, SLOTS[1]: target})
    return copy.deepcopy(expand_uses(filled, where, base))


def _where(source: str, attacker: str, target: str) -> str:
    return f"{source} [{attacker} vs {target}]"


def validate_pairs(
    template: dict[str, Any], source: str, base: Path, refs: tuple[list[str], list[str]],
    names: tuple[list[str], list[str]], seed: int, keep: bool,
) -> tuple[np.ndarray, list[str], dict[tuple[int, int], Cell]]:  # fmt: skip
    """Validate every pair once.

    Returns
    -------
    why : int32 array [attackers, targets]
        -1 where the pair fits, else the index of its reason in ``reasons``.
    reasons : list of str
        Each distinct reason once (``"key: problem"``).
    cells : dict
        ``(i, j)`` → its :class:`Cell` with the validated scenario, when ``keep`` (else empty).
    """
    from oddslab._schema import ScenarioError
    from oddslab.scenario import from_dict

    why = np.full((len(refs[0]), len(refs[1])), -1, dtype=np.int32)
    index: dict[str, int] = {}
    cells: dict[tuple[int, int], Cell] = {}
    for i, a in enumerate(refs[0]):
        for j, t in enumerate(refs[1]):
            where = _where(source, names[0][i], names[1][j])
            try:
                data = pair_scenario(template, a, t, where, base)
                sc = from_dict(data, source=where)
            except ScenarioError as exc:
                reason = f"{exc.key}: {exc.problem}" if exc.key else exc.problem
                why[i, j] = index.setdefault(reason, len(index))
                continue
            if keep:
                values = {"attacker": names[0][i], "target": names[1][j]}
                cells[(i, j)] = Cell(values, data, cell_seed(seed, values), where, sc)
    return why, list(index), cells


def pair_error(template: dict[str, Any], source: str, base: Path, attacker: str, target: str,
               names: tuple[str, str]) -> Exception:  # fmt: skip
    """The ScenarioError of a pair that does not fit (validated again: only its reason was
    kept)."""
    from oddslab.scenario import from_dict

    where = _where(source, *names)
    try:
        from_dict(pair_scenario(template, attacker, target, where, base), source=where)
    except Exception as exc:  # noqa: BLE001 - handed back to be raised
        return exc
    return RuntimeError(f"{where}: expected a validation error")  # pragma: no cover


class MatchupCells(Sequence):
    """The cells of a matchup's fitting pairs, row-major (attacker slowest), made when read.

    Parameters
    ----------
    template : dict
        The matchup template.
    source : str
        The template's name in messages.
    base : Path
        The folder relative ``use`` paths of the template are read from.
    refs, names : (list of str, list of str)
        The kept attackers' and targets' absolute references and names.
    fits : bool array [attackers, targets]
        Which pairs fit (and run).
    seed : int
        The study's seed.
    """

    def __init__(self, template: dict[str, Any], source: str, base: Path,
                 refs: tuple[list[str], list[str]], names: tuple[list[str], list[str]],
                 fits: np.ndarray, seed: int) -> None:  # fmt: skip
        self.template, self.source, self.base = template, source, base
        self.refs, self.names, self.fits, self.seed = refs, names, fits, int(seed)
        self._ends = np.cumsum(fits.sum(axis=1)) if fits.size else np.zeros(0, dtype=np.int64)

    def __len__(self) -> int:
        return int(self._ends[-1]) if len(self._ends) else 0

    def pair(self, i: int) -> tuple[int, int]:
        """(row, column) of cell ``i``."""
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"cell {i} of {n}")
        r = int(np.searchsorted(self._ends, i, side="right"))
        start = int(self._ends[r - 1]) if r else 0
        return r, int(np.flatnonzero(self.fits[r])[i - start])

    def iter_pairs(self) -> Iterator[tuple[int, int]]:
        for r in range(self.fits.shape[0]):
            for c in np.flatnonzero(self.fits[r]):
                yield r, int(c)

    def values(self, i: int) -> dict[str, Any]:
        r, c = self.pair(i)
        return {"attacker": self.names[0][r], "target": self.names[1][c]}

    def iter_values(self) -> Iterator[dict[str, Any]]:
        for r, c in self.iter_pairs():
            yield {"attacker": self.names[0][r], "target": self.names[1][c]}

    def cell(self, r: int, c: int) -> Cell:
        """The cell of row ``r``, column ``c`` (its scenario is built when it runs)."""
        values = {"attacker": self.names[0][r], "target": self.names[1][c]}
        where = _where(self.source, values["attacker"], values["target"])
        build = functools.partial(pair_scenario, self.template, self.refs[0][r], self.refs[1][c],
                                  where, self.base)  # fmt: skip
        return Cell(values, build, cell_seed(self.seed, values), where)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return self.cell(*self.pair(i))

    def __iter__(self) -> Iterator[Cell]:
        for r, c in self.iter_pairs():
            yield self.cell(r, c)


class Unfit(Mapping):
    """``(attacker name, target name)`` → why that pair was not run, read off the fit map.

    Parameters
    ----------
    why : int32 array [attackers, targets]
        :func:`validate_pairs`'s map, restricted to the kept rows and columns.
    reasons : list of str
    names : (list of str, list of str)
        The kept attackers' and targets' names.
    """

    def __init__(self, why: np.ndarray, reasons: list[str],
                 names: tuple[Sequence[str], Sequence[str]]) -> None:  # fmt: skip
        self.why, self.reasons, self.names = why, reasons, names
        self._rows = {n: i for i, n in enumerate(names[0])}
        self._cols = {n: j for j, n in enumerate(names[1])}

    def __getitem__(self, key: tuple[str, str]) -> str:
        try:
            w = self.why[self._rows[key[0]], self._cols[key[1]]]
        except (KeyError, TypeError, IndexError):
            raise KeyError(key) from None
        if w < 0:
            raise KeyError(key)
        return self.reasons[int(w)]

    def __len__(self) -> int:
        return int(np.count_nonzero(self.why >= 0))

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for i, j in np.argwhere(self.why >= 0):  # row-major
            yield self.names[0][i], self.names[1][j]

    def __repr__(self) -> str:
        return f"Unfit({dict(self)!r})"


def slot_overrides(template: Any, slot: str) -> dict[str, Any]:
    """The other keys of the template table that says ``use = slot`` (for pricing)."""
    if isinstance(template, dict):
        if template.get("use") == slot:
            return {k: v for k, v in template.items() if k != "use"}
        for v in template.values():
            found = slot_overrides(v, slot)
            if found:
                return found
    elif isinstance(template, list):
        for v in template:
            found = slot_overrides(v, slot)
            if found:
                return found
    return {}


def template_mentions(node: Any, slot: str) -> bool:
    """Whether the template says ``use = slot`` somewhere."""
    if isinstance(node, dict):
        return any(template_mentions(v, slot) for v in node.values())
    if isinstance(node, list):
        return any(template_mentions(v, slot) for v in node)
    return node == slot


def read_template(
    template: Mapping[str, Any] | str | Path | None, first: LibraryEntry
) -> tuple[dict[str, Any], str, Path]:
    """(the template, its name in messages, the folder its ``use`` paths are read from):
    ``template`` as a dict or a file (a scenario, or a library's ``[matchup.template]``),
    else the ``[matchup.template]`` of the first attacker's library."""
    from oddslab._schema import ScenarioError
    from oddslab.libraries import load_library

    if template is None:
        lib = load_library(first.library)
        if lib.template is None:
            raise ScenarioError(
                str(lib.path), "matchup.template", "this library has no [matchup.template]"
            )
        return copy.deepcopy(lib.template), f"{lib.path}:matchup.template", lib.path.parent
    if isinstance(template, Mapping):
        return copy.deepcopy(dict(template)), "<template>", Path.cwd()
    from oddslab.analysis.sweep import read_scenario_dict

    data, source = read_scenario_dict(template)
    if isinstance(data.get("matchup"), dict) and "template" in data["matchup"]:
        data = data["matchup"]["template"]
    return data, source, Path(source).parent
