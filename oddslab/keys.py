"""Declarative scenario schemas: every key of a ruleset declared once.

A ruleset lists its keys as :class:`Key` and :class:`Section` declarations (type, allowed
range or choices, default, unit, one line of plain-words help, and whether the key is a rule
switch). Everything else derives from that one declaration:

- reading and validation (:meth:`Schema.read`), through :class:`oddslab._schema.Table`, so
  the messages are the ones every scenario file gets (file, key, problem, did-you-mean);
- the JSON Schema (draft 2020-12) that ``oddslab schema RULESET`` prints for editors
  (:meth:`Schema.json_schema`);
- the key tables of the docs (:meth:`Schema.markdown`), which a test compares with the page.

Example
-------
>>> from oddslab.keys import Key, Schema, Section
>>> schema = Schema(
...     "duel",
...     Section("", (Key("ruleset", "str", "duel", "the game"),
...                  Key("dice", "int", 2, "dice each side rolls", min=1, max=20))),
... )
>>> schema.json_schema()["properties"]["dice"]["maximum"]
20
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from oddslab._limits import MAX_TRIALS, TRIALS_WHAT
from oddslab._schema import _MISSING as _MISSING_T
from oddslab._schema import ScenarioError, Table

__all__ = ["KINDS", "REQUIRED", "Key", "Schema", "Section", "Values", "run_keys"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of a key that must be given.
REQUIRED: Any = _Required()

#: Value kinds a key can have, with the JSON Schema fragment each becomes.
KINDS: dict[str, dict[str, Any]] = {
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    # a dice expression: 3, "D6", "2D6", "D3+1"
    "dice": {
        "anyOf": [
            {"type": "integer", "minimum": 0},
            {"type": "string", "pattern": r"^\s*(\d*[dD]\d+)?\s*([+-]?\s*\d+)?\s*$"},
        ]
    },
    "int_list": {"type": "array", "items": {"type": "integer"}},
    # a string, or an array of strings (a single string stands for a list of one)
    "str_list": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    # a table of rows of integers (a chart)
    "int_matrix": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
    # a key that no longer exists: giving it is an error that says what replaced it
    "removed": {"not": {}},
    # a value of its own shape: the key gives its reader and its JSON Schema (``custom``)
    "custom": {},
    # an integer, or an array of integers
    "int_or_list": {
        "anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]
    },
}


@dataclass(frozen=True)
class Key:
    """One scenario key.

    Parameters
    ----------
    name : str
        The key as written in files.
    kind : str
        One of :data:`KINDS`.
    default : object
        The value when the key is absent, or :data:`REQUIRED`.
    help : str
        One line of plain words (the docs and the web form show it).
    min, max : number, optional
        Allowed range (inclusive) of an ``int``/``float`` (or of each item of an ``int_list``).
    choices : tuple of str, optional
        Allowed values of a ``str``.
    unit : str
        The unit of the value (``"inches"``, ``"dice"``), shown beside it.
    switch : bool
        True for a rule switch: a documented reading of the rule text that a scenario may
        change.
    what : str
        The expected value in words, for messages (``expected <what>``), where the range
        alone says too little (``"a save from 2 (2+) to 7 (none)"``).
    min_len, max_len : int, optional
        Fewest / most items of a list kind (rows of an ``int_matrix``), when given.
    cols : int, optional
        Items in each row of an ``int_matrix``.
    item_what : str
        An ``int_matrix`` row in words, for messages.

    custom : tuple, optional
        For kind ``"custom"`` (a value of a shape of its own, such as "a number, a dice
        expression or a list of probabilities"): ``(reader, json_schema)``, where
        ``reader(table, name)`` returns the validated value or raises the table's error; a
        third item, a :class:`Section`, documents the tables the value may be instead (a
        count or its groups).

    A key of kind ``"removed"`` is one that no longer exists: ``help`` is the message a file
    that still gives it gets.
    """

    name: str
    kind: str
    default: Any = REQUIRED
    help: str = ""
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] | None = None
    unit: str = ""
    switch: bool = False
    what: str = ""
    min_len: int = 0
    max_len: int | None = None
    cols: int | None = None
    item_what: str = ""
    custom: tuple | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"key '{self.name}': unknown kind '{self.kind}'")
        if (self.kind == "custom") != (self.custom is not None):
            raise ValueError(f"key '{self.name}': kind 'custom' goes with custom=(reader, json)")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def read(self, table: Table) -> Any:
        """The key's validated value from ``table`` (its default when absent)."""
        if not self.required and not table.has(self.name):
            table.raw(self.name, None)  # known, absent: the default, unchecked
            if self.kind == "custom" and self.default is not None:
                # the default as written in a file, read like one
                return self.custom[0](
                    Table({self.name: self.default}, table.source, table.path), self.name
                )
            return self.default
        if self.kind == "removed":
            raise table.error(self.name, self.help)
        if self.kind == "int_matrix":
            return self._read_matrix(table)
        if self.kind == "custom":
            return self.custom[0](table, self.name)
        lo = None if self.min is None else int(self.min)
        hi = None if self.max is None else int(self.max)
        kind = self.kind
        if kind == "int_or_list":
            kind = "int_list" if isinstance(table.raw(self.name), list) else "int"
        if kind == "int":
            return table.int(self.name, min=lo, max=hi, what=self.what)
        if kind == "float":
            return table.float(self.name, min=self.min, max=self.max)
        if kind == "bool":
            return table.bool(self.name)
        if kind == "str":
            return table.str(self.name, choices=self.choices)
        if kind == "dice":
            return table.dice(self.name)
        if kind == "str_list":
            value = table.raw(self.name)
            value = [value] if isinstance(value, str) else value
            wrong = f"expected {self.what}" if self.what else ""
            if not isinstance(value, list) or any(not isinstance(x, str) for x in value):
                raise table.error(self.name, wrong or "expected a list of strings")
            for x in value:
                if self.choices is not None and x not in self.choices:
                    raise table.error(
                        self.name, wrong or f"'{x}' is not one of {', '.join(self.choices)}"
                    )
            self._check_len(table, value)
            return tuple(value)
        value = table.int_list(self.name, min=lo, max=hi)
        self._check_len(table, value)
        return value

    def _read_matrix(self, table: Table) -> tuple[tuple[int, ...], ...]:
        raw = table.raw(self.name)
        rows = self.max_len
        if not isinstance(raw, list) or (rows is not None and len(raw) != rows):
            raise table.error(self.name, f"expected {self.what or 'an array of rows'}")
        out = []
        for r, row in enumerate(raw):
            ok = isinstance(row, list) and (self.cols is None or len(row) == self.cols)
            ok = ok and all(
                isinstance(v, int)
                and not isinstance(v, bool)
                and (self.min is None or v >= self.min)
                and (self.max is None or v <= self.max)
                for v in row
            )
            if not ok:
                raise ScenarioError(
                    table.source,
                    f"{table.key(self.name)}[{r}]",
                    f"expected {self.item_what or 'a row of integers'}",
                )
            out.append(tuple(row))
        return tuple(out)

    def _check_len(self, table: Table, value: list) -> None:
        n = len(value)
        if n < self.min_len or (self.max_len is not None and n > self.max_len):
            if self.max_len is None:
                text = f"at least {self.min_len} entr{'y' if self.min_len == 1 else 'ies'}"
            else:
                text = f"{self.min_len} to {self.max_len} entries"
            raise table.error(self.name, f"expected {text}")

    def json_schema(self) -> dict[str, Any]:
        out: dict[str, Any] = copy.deepcopy(
            self.custom[1] if self.kind == "custom" else KINDS[self.kind]
        )
        # where the range and choices apply: the value, or each item of a list
        if self.kind == "int_list":
            targets = [out["items"]]
        elif self.kind == "int_or_list":
            targets = [out["anyOf"][0], out["anyOf"][1]["items"]]
        elif self.kind == "str_list":
            targets = [out["anyOf"][0], out["anyOf"][1]["items"]]
        elif self.kind == "int_matrix":
            targets = [out["items"]["items"]]
            if self.max_len is not None:
                out["minItems"] = out["maxItems"] = self.max_len
            if self.cols is not None:
                out["items"]["minItems"] = out["items"]["maxItems"] = self.cols
        elif self.kind in ("dice", "removed", "custom"):
            targets = []
        else:
            targets = [out]
        for t in targets:
            if self.min is not None:
                t["minimum"] = self.min
            if self.max is not None:
                t["maximum"] = self.max
            if self.choices is not None:
                t["enum"] = list(self.choices)
        lists = [out] if self.kind == "int_list" else []
        if self.kind in ("str_list", "int_or_list"):
            lists = [out["anyOf"][1]]
        for t in lists:
            if self.min_len:
                t["minItems"] = self.min_len
            if self.max_len is not None:
                t["maxItems"] = self.max_len
        desc = self.help + (f" ({self.unit})" if self.unit else "")
        if self.switch:
            desc += " [rule switch]"
        if desc:
            out["description"] = desc
        if not self.required and self.default is not None:
            out["default"] = self.default
        return out


class Values(dict):
    """A section's values (``{key: value}``), with the :class:`~oddslab._schema.Table` they
    were read from, so a reader's cross-key checks report the same file and key path
    (``values.error("supporting", "...")``)."""

    table: Table

    def error(self, name: str, problem: str) -> ScenarioError:
        """A :class:`ScenarioError` for key ``name`` of this section."""
        return self.table.error(name, problem)


@dataclass(frozen=True)
class Section:
    """A table (``[name]``), an array of tables (``[[name]]``), or a table of named tables
    (``[name.NAME]``, e.g. ``[units.rifles]``) of keys.

    Parameters
    ----------
    name : str
        The table's key ("" for a file's root).
    items : tuple of Key or Section
        Its keys and sub-tables, in the order the docs list them.
    help : str
        One line of plain words.
    array : bool
        True for an array of tables.
    mapping : bool
        True for a table of named tables, each with these items.
    required : bool
        True when the table must be present.
    min_len : int
        Fewest entries of an array of tables or of a table of named tables.
    variants : tuple of (str, tuple of Key or Section), optional
        Tables of several kinds: the item named ``tag`` names the kind (a ``str`` key whose
        choices are the variants' names), and each variant adds keys and tables of its own
        (the steps of a scenario: ``kind = "fire"`` takes ``firer`` and ``target``).
    tag : str
        The key naming the kind, with ``variants``.
    """

    name: str
    items: tuple[Key | Section, ...]
    help: str = ""
    array: bool = False
    mapping: bool = False
    required: bool = False
    min_len: int = 0
    variants: tuple[tuple[str, tuple[Key | Section, ...]], ...] = ()
    tag: str = "kind"

    def read(self, table: Table) -> Values:
        """Every key of this section read from ``table`` (then unknown keys are refused).

        Returns :class:`Values` ``{key: value}``: sub-sections nested, an array section a
        list of :class:`Values`, a mapping section a dict ``{name: Values}``. An absent
        optional section gives its defaults, or None when it has a required key.
        """
        out = Values()
        out.table = table
        for item in self.items:
            out[item.name] = item.read(table) if isinstance(item, Key) else item.read_in(table)
        if self.variants:
            for item in dict(self.variants)[out[self.tag]]:
                out[item.name] = item.read(table) if isinstance(item, Key) else item.read_in(table)
        table.finish()
        return out

    def read_in(self, parent: Table) -> Any:
        """This section's value in ``parent`` (absent and optional: empty)."""
        present = parent.has(self.name)
        if self.array:
            if not present and not self.required:
                parent.raw(self.name, None)  # a known key, absent
                return []
            return [
                self.read(t)
                for t in parent.tables(
                    self.name, _MISSING_T if self.required else [], min_len=self.min_len
                )
            ]
        if not present and not self.required:
            parent.raw(self.name, None)
            if self.mapping:
                return {}
            if any(isinstance(i, Key) and i.required for i in self.items):
                return None  # an optional table that, when given, must say something
            return self.read(Table({}, parent.source, parent.key(self.name)))
        tbl = parent.table(self.name)
        if not self.mapping:
            return self.read(tbl)
        if len(tbl.data) < self.min_len:
            raise parent.error(
                self.name,
                f"expected at least {self.min_len} entr{'y' if self.min_len == 1 else 'ies'} "
                f"([{self.name}.NAME] tables)",
            )
        named = {name: self.read(tbl.table(name)) for name in list(tbl.data)}
        tbl.finish()
        return named

    def json_schema(self) -> dict[str, Any]:
        props: dict[str, Any] = {}
        required: list[str] = []
        for item in self.items:
            props[item.name] = item.json_schema()
            if item.required:
                required.append(item.name)
        obj: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
        if required:
            obj["required"] = required
        if self.variants:
            tag = self.tag
            kinds = []
            for kind, keys in self.variants:
                v_props = {**props, tag: {"const": kind}}
                v_props.update({k.name: k.json_schema() for k in keys})
                kinds.append({**obj, "properties": v_props})
            obj = {"type": "object", "oneOf": kinds}
        if self.array:
            out: dict[str, Any] = {"type": "array", "items": obj}
            if self.min_len:
                out["minItems"] = self.min_len
        elif self.mapping:
            out = {"type": "object", "additionalProperties": obj}
            if self.min_len:
                out["minProperties"] = self.min_len
        else:
            out = obj
        if self.help:
            out["description"] = self.help
        return out

    def walk(self, prefix: str = ""):
        """``(dotted path, Key)`` for every key, depth first (``name[]`` for an array,
        ``name.NAME`` for a table of named tables)."""
        for item in self.items:
            yield from _walk_item(item, prefix, "")
        seen: set[str] = set()
        for _kind, items in self.variants:
            for item in items:
                if item.name in seen:
                    continue
                seen.add(item.name)
                users = [k for k, xs in self.variants if any(x.name == item.name for x in xs)]
                yield from _walk_item(item, prefix, f" ({', '.join(users)})")


def _walk_item(item: Key | Section, prefix: str, note: str):
    """``(path + note, Key)`` for ``item`` and what it holds; ``note`` names the kinds of
    table that take it (variants)."""
    path = f"{prefix}.{item.name}" if prefix else item.name
    if isinstance(item, Key):
        yield path + note, item
        if item.kind == "custom" and len(item.custom) > 2:
            for sub, key in item.custom[2].walk(path + "[]"):  # the tables it may hold
                yield sub + note, key
        return
    for sub, key in item.walk(path + ("[]" if item.array else ".NAME" if item.mapping else "")):
        yield sub + note, key


@dataclass(frozen=True)
class Schema:
    """A ruleset's scenario files, declared once.

    Parameters
    ----------
    ruleset : str
        The ruleset's name (``ruleset = "..."`` in files).
    root : Section
        The file's root table (its ``name`` is "").
    title : str
        Plain words for the schema's title.
    """

    ruleset: str
    root: Section
    title: str = ""

    def read(self, table: Table) -> dict[str, Any]:
        """The validated values of a scenario file's root table, as nested dicts.

        Raises
        ------
        ScenarioError
            For the first wrong, missing or unknown key (file, key path, problem).
        """
        return self.root.read(table)

    def read_dict(self, data: dict[str, Any], source: str = "<dict>") -> dict[str, Any]:
        """:meth:`read` for a parsed TOML document."""
        if not isinstance(data, dict):
            raise ScenarioError(source, "", "expected a table")
        return self.read(Table(data, source))

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema (draft 2020-12) of the ruleset's scenario files."""
        body = self.root.json_schema()
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://oddslab.invalid/schema/{self.ruleset}.json",
            "title": self.title or f"oddslab scenario ({self.ruleset})",
            **body,
        }

    def markdown(self) -> str:
        """The docs' key table: one row per key (path, type, default, allowed, help)."""
        from oddslab._keys_table import markdown

        return markdown(self)

    def switches(self) -> tuple[str, ...]:
        """Dotted paths of every key declared as a rule switch."""
        return tuple(path for path, key in self.root.walk() if key.switch)


def run_keys(ruleset: str, default_name: str | None) -> tuple[Key, ...]:
    """The top-level keys every scenario file may have, declared (for a schema's root).

    ``ruleset`` (the game's name), ``name``, ``description``, ``trials`` (1 to
    10,000,000,000) and ``seed`` (>= 0), with the same checks as
    :func:`oddslab.scenario.read_run_options`. ``default_name`` None: the reader names the
    scenario (a game whose kinds of file have names of their own).
    """
    # a file without `ruleset` is read as generic, so every other game's files must say it
    first = ruleset if ruleset == "generic" else REQUIRED
    return (
        Key("ruleset", "str", first, "the game these rules are for", choices=(ruleset,)),
        Key("name", "str", default_name, "shown in tables and plots"),
        Key("description", "str", "", "free text, shown back with the inputs"),
        Key(
            "trials",
            "int",
            None,
            "Monte Carlo trials when the command line gives none",
            1,
            MAX_TRIALS,
            what=TRIALS_WHAT,
        ),  # fmt: skip
        Key("seed", "int", None, "master seed: the same seed gives the same numbers", 0),
    )
