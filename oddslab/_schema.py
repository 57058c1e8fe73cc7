"""Reading validated values out of parsed TOML, with errors that name file and key.

Every ruleset reads its scenario section through :class:`Table`, so every mistake a user
can make (a typo'd key, a wrong type, an impossible value, a missing field) is reported the
same way: ``file: key.path: problem`` as one :class:`ScenarioError`.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

_MISSING: Any = object()


class ScenarioError(ValueError):
    """A scenario that cannot be run, with the file and key path at fault.

    Parameters
    ----------
    source : str
        The file name (or ``"<dict>"`` for scenarios built from Python dicts).
    key : str
        Dotted key path such as ``attacker.weapons[0].skill``; empty for the whole file.
    problem : str
        What is wrong and what was expected.
    """

    def __init__(self, source: str, key: str, problem: str):
        self.source = source
        self.key = key
        self.problem = problem
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.source}: {self.key}" if self.key else self.source
        return f"{where}: {self.problem}"


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


class Table:
    """A TOML table being read; remembers which keys were used so leftovers are typos.

    Parameters
    ----------
    data : dict
        The parsed table.
    source : str
        File name for messages.
    path : str
        Dotted key path of this table ('' for the root).
    """

    def __init__(self, data: dict[str, Any], source: str, path: str = ""):
        if not isinstance(data, dict):
            raise ScenarioError(source, path, f"expected a table, got {_type_name(data)}")
        self.data = data
        self.source = source
        self.path = path
        self._used: set[str] = set()

    # -- plumbing ---------------------------------------------------------------------------
    def key(self, name: str) -> str:
        """Full dotted path of ``name`` in this table."""
        return f"{self.path}.{name}" if self.path else name

    def error(self, name: str, problem: str) -> ScenarioError:
        """A :class:`ScenarioError` for key ``name`` of this table."""
        return ScenarioError(self.source, self.key(name) if name else self.path, problem)

    def has(self, name: str) -> bool:
        return name in self.data

    def _get(self, name: str, default: Any) -> Any:
        self._used.add(name)
        if name in self.data:
            return self.data[name]
        if default is _MISSING:
            raise self.typo_for(name) or self.error(name, "required key is missing")
        return default

    def typo_for(self, name: str, of_type: type | None = None) -> ScenarioError | None:
        """The "unknown key; did you mean ..." error for a key of this table that looks like a
        misspelling of ``name`` (which is absent), or None.

        Called when ``name`` is needed but missing, so a typo (``[targte]``) is reported as
        itself, not as the missing key it caused. ``of_type`` restricts the candidates to keys
        whose value has that type (``rules = {...}`` is no misspelt ``ruleset = "..."``).
        """
        if name in self.data:
            return None
        spare = [
            k
            for k in self.data
            if k not in self._used
            and isinstance(k, str)
            and (of_type is None or isinstance(self.data[k], of_type))
        ]
        close = difflib.get_close_matches(name, spare, n=1, cutoff=0.6)
        if not close:
            lowered = {k.lower().replace("-", "_"): k for k in spare}
            hit = lowered.get(name.lower().replace("-", "_"))
            close = [hit] if hit else []
        if not close:
            return None
        return self.error(
            close[0], f"unknown key; did you mean '{name}'? ('{name}' is needed and missing)"
        )

    def raw(self, name: str, default: Any = _MISSING) -> Any:
        """The value as parsed, unchecked."""
        return self._get(name, default)

    def finish(self) -> None:
        """Raise for the first key that no reader asked for (a typo or an unknown option)."""
        for name in self.data:
            if name not in self._used:
                close = difflib.get_close_matches(name, sorted(self._used), n=1, cutoff=0.6)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                known = ", ".join(sorted(self._used))
                raise self.error(name, f"unknown key{hint} (known keys here: {known})")

    # -- typed readers ----------------------------------------------------------------------
    def int(
        self,
        name: str,
        default: Any = _MISSING,
        *,
        min: int | None = None,
        max: int | None = None,
        what: str = "",
    ) -> int:
        """An integer in ``[min, max]``."""
        value = self._get(name, default)
        if value is default and default is not _MISSING and name not in self.data:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(
                name, f"expected {_range_text(min, max, what)}, got {_type_name(value)} {value!r}"
            )
        if (min is not None and value < min) or (max is not None and value > max):
            raise self.error(name, f"expected {_range_text(min, max, what)}, got {value}")
        return value

    def float(
        self,
        name: str,
        default: Any = _MISSING,
        *,
        min: float | None = None,
        max: float | None = None,
    ) -> float:
        """A number in ``[min, max]`` (integers accepted)."""
        value = self._get(name, default)
        if value is default and name not in self.data:
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(name, f"expected a number, got {_type_name(value)} {value!r}")
        if (min is not None and value < min) or (max is not None and value > max):
            raise self.error(name, f"expected a number from {min} to {max}, got {value}")
        return float(value)

    def bool(self, name: str, default: Any = _MISSING) -> bool:
        """``true`` or ``false``."""
        value = self._get(name, default)
        if not isinstance(value, bool):
            raise self.error(name, f"expected true or false, got {_type_name(value)} {value!r}")
        return value

    def str(
        self, name: str, default: Any = _MISSING, *, choices: Iterable[str] | None = None
    ) -> str:
        """A string, optionally one of ``choices``."""
        value = self._get(name, default)
        if value is default and name not in self.data:
            return value
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, got {_type_name(value)} {value!r}")
        if choices is not None:
            options = list(choices)
            if value not in options:
                close = difflib.get_close_matches(value, options, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise self.error(name, f"expected one of {', '.join(options)}, got '{value}'{hint}")
        return value

    def dice(self, name: str, default: Any = _MISSING, *, min_value: int = 0, max_value: int = 100):
        """A dice expression (``3``, ``"D6"``, ``"2D6"``, ``"D3+1"``) as :class:`DiceExpr`,
        whose values lie in ``min_value..max_value`` (the upper bound keeps a typo such as
        ``1000000`` from sizing histograms beyond memory)."""
        from oddslab.dice import DiceExpr

        value = self._get(name, default)
        if isinstance(value, DiceExpr):
            expr = value
        elif isinstance(value, bool) or not isinstance(value, int | str):
            raise self.error(
                name,
                f'expected a dice expression like 3, "D6" or "D3+1", got {_type_name(value)} {value!r}',
            )
        else:
            try:
                expr = DiceExpr.parse(value)
            except ValueError as exc:
                raise self.error(name, str(exc)) from None
        if expr.min < min_value:
            raise self.error(name, f"'{expr}' can be below {min_value}")
        if expr.max > max_value:
            raise self.error(name, f"'{expr}' can exceed {max_value}, the largest value allowed")
        return expr

    def table(self, name: str, default: Any = _MISSING) -> Table:
        """A sub-table."""
        value = self._get(name, default)
        if not isinstance(value, dict):
            raise self.error(name, f"expected a table, got {_type_name(value)}")
        return Table(value, self.source, self.key(name))

    def tables(self, name: str, default: Any = _MISSING, *, min_len: int = 0) -> list[Table]:
        """An array of tables (``[[name]]`` in TOML)."""
        value = self._get(name, default)
        if not isinstance(value, list):
            raise self.error(
                name, f"expected an array of tables ([[{name}]]), got {_type_name(value)}"
            )
        if len(value) < min_len:
            raise self.error(
                name, f"expected at least {min_len} entr{'y' if min_len == 1 else 'ies'}"
            )
        out = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise ScenarioError(
                    self.source,
                    f"{self.key(name)}[{i}]",
                    f"expected a table, got {_type_name(item)}",
                )
            out.append(Table(item, self.source, f"{self.key(name)}[{i}]"))
        return out

    def int_list(
        self, name: str, default: Any = _MISSING, *, min: int | None = None, max: int | None = None
    ) -> list[int]:
        """An array of integers, each in ``[min, max]``."""
        value = self._get(name, default)
        if value is default and name not in self.data:
            return value
        if not isinstance(value, list):
            raise self.error(name, f"expected an array of integers, got {_type_name(value)}")
        for i, item in enumerate(value):
            if isinstance(item, bool) or not isinstance(item, int):
                raise ScenarioError(
                    self.source,
                    f"{self.key(name)}[{i}]",
                    f"expected an integer, got {_type_name(item)} {item!r}",
                )
            if (min is not None and item < min) or (max is not None and item > max):
                raise ScenarioError(
                    self.source,
                    f"{self.key(name)}[{i}]",
                    f"expected {_range_text(min, max, '')}, got {item}",
                )
        return list(value)


def _range_text(lo: int | None, hi: int | None, what: str) -> str:
    if what:
        return what
    noun = "an integer"
    if lo is not None and hi is not None:
        return f"{noun} from {lo} to {hi}"
    if lo is not None:
        return f"{noun} >= {lo}"
    if hi is not None:
        return f"{noun} <= {hi}"
    return noun


def read_toml(path: str | Path) -> dict[str, Any]:
    """The parsed TOML of a file, or one :class:`ScenarioError` naming the file.

    Raises
    ------
    ScenarioError
        If the file is missing, unreadable or not TOML.
    """
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(source, "", "file not found") from None
    except IsADirectoryError:
        raise ScenarioError(source, "", "is a folder, not a TOML file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(source, "", f"cannot read file ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(source, "", f"not valid TOML: {exc}") from None
    return data
