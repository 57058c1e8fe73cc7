"""Unit libraries: named profiles with their points, used from any scenario table.

A library is a TOML file::

    ruleset = "generic"
    description = "Invented units (no copyrighted data)"

    [units.intercessors]          # one entry per unit
    points = 90                   # per unit, and/or
    points_per_model = 18         # per model (needs a ``models`` key in the entry)
    name = "Intercessor squad"    # ...then the ruleset's own keys of that profile
    [[units.intercessors.weapons]]
    ...

    [matchup.template]            # a scenario skeleton for ``oddslab matchup``
    [matchup.template.attacker]
    use = "{attacker}"
    [matchup.template.target]
    use = "{target}"

Any table of a scenario (or of a library entry) may say ``use = "path.toml:entry"``: the
entry's keys are merged *under* the table's own keys (a key written in the table replaces the
entry's value for that key as a whole), the points keys are dropped, and entries may themselves
``use`` other entries. Paths are relative to the file that contains the ``use``. A missing
file, entry, a cycle or a malformed reference is one :class:`ScenarioError` naming the file and
key.

An entry may stand for several tables of a scenario (a unit that shoots and is shot at): its
``[units.<name>.roles.<table>]`` tables (``roles.attacker``, ``roles.target``) hold the keys
for a table of that name, merged over the entry's other keys; used in a table of another
name, the entry is an error naming the roles it has. ``weapons = ["bolt rifle"]`` (names, not
tables) in the using table picks those of the entry's weapons; ``default_weapons`` in the
entry is the pick when the using table names none. ``not_modelled`` (what an importer could not
read) is kept for ``oddslab show`` and never reaches the ruleset.
"""

from __future__ import annotations

import copy
import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oddslab._entry_names import (
    _ident,
    _name,  # noqa: F401  (the analysis layer imports it here)
    entry_labels,
    entry_names,
    resolved,
)
from oddslab._entry_roles import _is_name_list, select_weapons
from oddslab._schema import ScenarioError

__all__ = [
    "POINTS_KEYS",
    "Library",
    "LibraryEntry",
    "entry_notes",
    "expand_uses",
    "load_library",
    "library_dir",
    "library_from_dict",
    "shipped_libraries",
    "resolve_entries",
    "select_weapons",
    "entry_names",
    "entry_labels",
]

#: Keys of a library entry that price it; stripped when the entry is used in a scenario.
POINTS_KEYS = ("points", "points_per_model")
#: Keys of a library entry read by the library code itself, never passed to a ruleset.
ROLES_KEY, DEFAULT_WEAPONS_KEY, NOTES_KEY = "roles", "default_weapons", "not_modelled"


@dataclass(frozen=True)
class LibraryEntry:
    """One named profile of a library.

    Attributes
    ----------
    library : Path
        The library file.
    key : str
        The entry's name (``[units.<key>]``).
    data : dict
        The entry's table as written (``use`` not yet expanded, points keys included).
    """

    library: Path
    key: str
    data: dict[str, Any]

    @property
    def ref(self) -> str:
        """``"path.toml:key"`` as a scenario would write it."""
        return f"{self.library}:{self.key}"

    @property
    def label(self) -> str:
        """A short name for tables: the entry's ``name`` if it has one, else its key in plain
        words (``rifle_platoon`` → ``rifle platoon``: no snake_case is shown to people)."""
        name = self.data.get("name")
        if isinstance(name, str) and name:
            return name
        return " ".join(self.key.replace("_", " ").replace("-", " ").split()) or self.key

    def profile(self) -> dict[str, Any]:
        """The ruleset keys of the entry, ``use`` expanded and points keys dropped."""
        return _expand_entry(self, ())

    def points(self, overrides: dict[str, Any] | None = None) -> float | None:
        """Points of the unit: ``points + points_per_model * models``, or None if unpriced.

        ``models`` is read from the expanded entry with ``overrides`` on top (so a scenario
        that says ``use = ...`` and ``models = 10`` is priced for ten models).
        """
        flat = _expand_entry(self, (), keep_points=True)
        if overrides:
            flat.update({k: v for k, v in overrides.items() if k != "use"})
        return entry_points(flat, str(self.library), f"units.{self.key}")


@dataclass
class Library:
    """A parsed library file: its ruleset, entries and matchup template."""

    path: Path
    ruleset: str
    description: str
    entries: dict[str, LibraryEntry]
    template: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> LibraryEntry:
        try:
            return self.entries[key]
        except KeyError:
            raise _missing_entry(self.path, key, self.entries) from None

    def __iter__(self):
        return iter(self.entries.values())

    def __len__(self) -> int:
        return len(self.entries)


def entry_points(flat: dict[str, Any], source: str, key: str) -> float | None:
    """``points + points_per_model * models`` of an expanded entry (None when unpriced)."""
    total = 0.0
    priced = False
    if "points" in flat:
        total += _number(flat["points"], source, f"{key}.points")
        priced = True
    if "points_per_model" in flat:
        ppm = _number(flat["points_per_model"], source, f"{key}.points_per_model")
        models = flat.get("models")
        if isinstance(models, bool) or not isinstance(models, int):
            raise ScenarioError(
                source,
                f"{key}.points_per_model",
                "a unit bought by the model needs an integer 'models' key in the entry",
            )
        total += ppm * models
        priced = True
    return total if priced else None


def _number(value: Any, source: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ScenarioError(source, key, f"expected a number of points >= 0, got {value!r}")
    return float(value)


# -- loading ---------------------------------------------------------------------------------
_CACHE: dict[tuple[str, float], Library] = {}


def library_dir() -> Path:
    """The folder of the libraries shipped with oddslab (``oddslab/examples/libraries``)."""
    return Path(__file__).resolve().parent.parent / "examples" / "libraries"


def shipped_libraries() -> list[Path]:
    """Every library file shipped with oddslab, sorted by name."""
    return sorted(library_dir().glob("*.toml"))


def load_library(path: str | Path, *, source: str = "", key: str = "") -> Library:
    """Read a library file (cached by path and modification time).

    Parameters
    ----------
    path : str or Path
        The library file.
    source, key : str
        Where the library was referenced from, for the error if it cannot be read.
    """
    path = Path(path)
    try:
        where_to = resolved(path)
        stamp = where_to.stat().st_mtime
    except OSError:
        where = (source, key) if source else (str(path), "")
        raise ScenarioError(where[0], where[1], f"library file '{path}' not found") from None
    cached = _CACHE.get((str(where_to), stamp))
    if cached is not None:
        return cached
    try:
        data = tomllib.loads(where_to.read_text(encoding="utf-8"))
    except IsADirectoryError:
        raise ScenarioError(str(path), "", "is a folder, not a library file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(str(path), "", f"cannot read library ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(str(path), "", f"not valid TOML: {exc}") from None
    lib = _parse_library(path, data)
    _CACHE[(str(where_to), stamp)] = lib
    return lib


def library_from_dict(path: str | Path, data: dict[str, Any]) -> Library:
    """A :class:`Library` from a library file's parsed TOML (``path``: where it is, or will be,
    for relative ``use`` paths and messages); checked as :func:`load_library` checks a file."""
    return _parse_library(Path(path), data)


def _parse_library(path: Path, data: dict[str, Any]) -> Library:
    src = str(path)
    ruleset = data.get("ruleset", "generic")
    if not isinstance(ruleset, str):
        raise ScenarioError(src, "ruleset", f"expected a string, got {ruleset!r}")
    description = data.get("description", "")
    units = data.get("units")
    if not isinstance(units, dict) or not units:
        raise ScenarioError(src, "units", "a library needs at least one [units.<name>] table")
    entries = {}
    for key, value in units.items():
        if not isinstance(value, dict):
            raise ScenarioError(src, f"units.{key}", "expected a table ([units.<name>])")
        entries[key] = LibraryEntry(path, key, value)
    template = None
    matchup = data.get("matchup")
    if matchup is not None:
        if not isinstance(matchup, dict) or not isinstance(matchup.get("template"), dict):
            raise ScenarioError(src, "matchup", "expected a [matchup.template] table")
        template = matchup["template"]
        unknown = set(matchup) - {"template"}
        if unknown:
            raise ScenarioError(src, f"matchup.{sorted(unknown)[0]}", "unknown key")
    extra = {k: v for k, v in data.items() if k not in ("ruleset", "description", "units")}
    lib = Library(path, ruleset, str(description), entries, template, extra)
    for entry in entries.values():  # points keys are checked up front, so errors are early
        for pk in POINTS_KEYS:
            if pk in entry.data:
                _number(entry.data[pk], src, f"units.{entry.key}.{pk}")
    return lib


def _missing_entry(path: Path, key: str, entries: dict[str, Any]) -> ScenarioError:
    import difflib

    close = difflib.get_close_matches(key, list(entries), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return ScenarioError(
        str(path), f"units.{key}", f"no such entry{hint} (entries: {', '.join(entries)})"
    )


#: ``role`` of an expansion not made for one table (``LibraryEntry.profile``, ``.points``).
_ANY_ROLE = object()


# -- use = "path.toml:entry" -------------------------------------------------------------------
def parse_ref(ref: Any, base: Path, source: str, key: str) -> tuple[Path, str]:
    """Split ``"path.toml:entry"`` into (library path relative to ``base``, entry name)."""
    if not isinstance(ref, str):
        raise ScenarioError(source, key, f'expected "library.toml:entry", got {ref!r}')
    path_text, sep, entry = ref.rpartition(":")
    if not sep or not path_text or not entry:
        raise ScenarioError(source, key, f'expected "library.toml:entry", got {ref!r}')
    path = Path(path_text).expanduser()
    if not path.is_absolute():
        path = base / path
    return path, entry


def expand_uses(data: dict[str, Any], source: str = "<dict>", base: Path | None = None) -> Any:
    """A copy of ``data`` with every ``use = "lib.toml:entry"`` table expanded.

    Parameters
    ----------
    data : dict
        A parsed scenario (what ``tomllib`` gives).
    source : str
        The scenario's file name: ``use`` paths are relative to its folder (the current
        folder for ``"<dict>"``), and errors name it.
    base : Path, optional
        Folder for relative paths, instead of the source's folder.

    Returns
    -------
    dict
        ``data`` itself when it has no ``use`` anywhere, else an expanded deep copy.
    """
    if not _has_use(data):
        return data
    if base is None:
        base = Path(source).parent if source and not source.startswith("<") else Path.cwd()
    ruleset = data.get("ruleset", "generic") if isinstance(data, dict) else None
    return _expand(data, base, source, "", (), ruleset if isinstance(ruleset, str) else None)


def _has_use(node: Any) -> bool:
    if isinstance(node, dict):
        return "use" in node or any(_has_use(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_use(v) for v in node)
    return False


def _expand(
    node: Any, base: Path, source: str, path: str, stack: tuple[str, ...], ruleset: str | None
) -> Any:
    if isinstance(node, list):
        return [
            _expand(v, base, source, f"{path}[{i}]", stack, ruleset) for i, v in enumerate(node)
        ]
    if not isinstance(node, dict):
        return node
    own = {
        k: _expand(v, base, source, f"{path}.{k}" if path else k, stack, ruleset)
        for k, v in node.items()
        if k != "use"
    }
    if "use" not in node:
        return own
    key = f"{path}.use" if path else "use"
    lib_path, name = parse_ref(node["use"], base, source, key)
    lib = load_library(lib_path, source=source, key=key)
    if ruleset is not None and lib.ruleset != ruleset:
        raise ScenarioError(
            source,
            key,
            f"{lib.path} is a library for the '{lib.ruleset}' ruleset, not '{ruleset}'",
        )
    if name not in lib.entries:
        err = _missing_entry(lib.path, name, lib.entries)
        raise ScenarioError(source, key, f"{lib.path}: {err.key}: {err.problem}")
    role = path.rsplit(".", 1)[-1] if path and not path.endswith("]") else None
    merged = _expand_entry(lib.entries[name], stack, ruleset, role=role)
    default = merged.pop(DEFAULT_WEAPONS_KEY, None)
    if _is_name_list(own.get("weapons")):
        own["weapons"] = select_weapons(
            merged.get("weapons"), own["weapons"], source, f"{path}.weapons"
        )
    elif default is not None and "weapons" not in own:
        if stack:  # an entry using an entry: the pick is made where the outer one is used
            merged[DEFAULT_WEAPONS_KEY] = default
        elif _is_name_list(default):
            where = f"{path}.use ({name}.{DEFAULT_WEAPONS_KEY})"
            own["weapons"] = select_weapons(merged.get("weapons"), default, source, where)
    merged.update(own)
    return merged


def _expand_entry(
    entry: LibraryEntry,
    stack: tuple[str, ...],
    ruleset: str | None = None,
    *,
    keep_points: bool = False,
    role: str | None | object = _ANY_ROLE,
) -> dict[str, Any]:
    ident = f"{resolved(entry.library)}:{entry.key}"
    if ident in stack:
        chain = " -> ".join(s.rsplit("/", 1)[-1] for s in (*stack, ident))
        raise ScenarioError(str(entry.library), f"units.{entry.key}.use", f"cycle of uses: {chain}")
    body = _expand(
        copy.deepcopy(entry.data),
        entry.library.parent,
        str(entry.library),
        f"units.{entry.key}",
        (*stack, ident),
        ruleset,
    )
    if not keep_points:
        for pk in POINTS_KEYS:
            body.pop(pk, None)
    body.pop(NOTES_KEY, None)
    roles = body.get(ROLES_KEY)
    if roles is None or role is _ANY_ROLE:  # profile() and points() see the whole entry
        return body
    del body[ROLES_KEY]
    where = f"units.{entry.key}.{ROLES_KEY}"
    if not isinstance(roles, dict) or not all(isinstance(v, dict) for v in roles.values()):
        raise ScenarioError(str(entry.library), where, "expected tables [roles.<table name>]")
    if role not in roles:
        used = f"in a table named '{role}'" if role else "here"
        raise ScenarioError(
            str(entry.library),
            where,
            f"cannot be used {used}: it stands for a table named {' or '.join(roles)}",
        )
    body.update(roles[role])
    return body


# -- selecting entries (for matchups and points) -------------------------------------------------
def resolve_entries(
    spec: str | Path | LibraryEntry, base: Path | None = None
) -> list[LibraryEntry]:
    """Library entries named by ``spec``.

    ``spec`` is a library file (every entry), ``"lib.toml:entry"``, ``"lib.toml:a,b,c"`` or a
    glob such as ``"lib.toml:*squad*"``; an item of a list may name its own library
    (``"lib.toml:a,other.toml:b"``; an item without one is of the library before it). A
    :class:`LibraryEntry` is returned as is.

    Raises
    ------
    ValueError
        An entry picked twice: named twice (in any spelling of its library's path), or
        named and matched by a glob, or matched by two globs.
    """
    if isinstance(spec, LibraryEntry):
        return [spec]
    text = str(spec)
    base = base or Path.cwd()
    if text.endswith(".toml") or ":" not in text or Path(text).exists():
        path = Path(text) if Path(text).is_absolute() else base / text
        return list(load_library(path).entries.values())
    out: list[LibraryEntry] = []
    given: dict[str, str] = {}
    for path, name in _ref_items(text, base):
        lib = load_library(path, source=text)
        if any(c in name for c in "*?["):
            hits = [e for k, e in lib.entries.items() if fnmatch.fnmatchcase(k, name)]
            if not hits:
                raise ScenarioError(str(lib.path), "units", f"no entry matches '{name}'")
        else:
            hits = [lib[name]]
        for e in hits:
            if _ident(e) in given:
                raise ValueError(
                    f"{text}: {e.library.name}:{e.key} is picked twice ('{given[_ident(e)]}' "
                    f"and '{name}'): give each entry once"
                )
            given[_ident(e)] = name
            out.append(e)
    return out


def _ref_items(text: str, base: Path) -> list[tuple[Path, str]]:
    """(library path, entry name or glob) of each item of ``"lib.toml:a,b"`` or
    ``"lib.toml:a,other.toml:b"``. A path holding a comma is read whole first (as before
    items could name their own library)."""
    path, names = parse_ref(text, base, text, "")
    if path.exists() or "," not in text:
        return [(path, n.strip()) for n in names.split(",")]
    items: list[tuple[Path, str]] = []
    lib: Path | None = None
    for item in text.split(","):
        if ":" in item:
            lib, name = parse_ref(item.strip(), base, text, "")
        elif lib is None:
            raise ScenarioError(text, "", f"'{item}': expected \"library.toml:entry\"")
        else:
            name = item
        items.append((lib, name.strip()))
    return items


def entry_notes(path: str | Path) -> dict[str, str]:
    """``{table: "entry: note; note"}`` for every ``use`` of an entry with ``not_modelled``.

    Read from the scenario file as written; a reference that cannot be read is skipped here
    (loading the scenario reports it).
    """
    from oddslab._schema import read_toml

    path = Path(path)
    out: dict[str, str] = {}

    def walk(node: Any, where: str) -> None:
        if isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}[{i}]")
            return
        if not isinstance(node, dict):
            return
        if isinstance(node.get("use"), str):
            try:
                lib_path, name = parse_ref(node["use"], path.parent, str(path), where)
                entry = load_library(lib_path).entries.get(name)
            except ScenarioError:
                entry = None
            notes = entry.data.get(NOTES_KEY) if entry is not None else None
            if isinstance(notes, list) and notes:
                ref = f"{entry.library.name}:{entry.key}"
                out[where or "(file)"] = f"{ref}: " + "; ".join(str(n) for n in notes)
        for k, v in node.items():
            walk(v, f"{where}.{k}" if where else k)

    try:
        walk(read_toml(path), "")
    except ScenarioError:
        return {}
    return out
