"""The ruleset protocol, and finding rulesets (built-in and plugins) by name.

A *ruleset* maps one game's rules onto the engine. Every front end (scenario loading, the
CLI, ``oddslab warmup``, the analysis layer, the web app) reaches a game only through the
object that implements :class:`Ruleset`, found by the name scenario files give in
``ruleset = "..."``.

Rulesets are found through the entry-point group ``oddslab.rulesets`` (the pattern of
pytest's ``pytest11`` and Datasette's plugins): an installed package that declares::

    [project.entry-points."oddslab.rulesets"]
    duel = "oddslab_duel:RULESET"

makes ``ruleset = "duel"`` work in scenario files, with no change to oddslab. The six
built-in rulesets are registered the same way in oddslab's own ``pyproject.toml``
(``tests/test_ruleset.py`` checks that list against :data:`BUILTIN`); their names resolve
without scanning the installed distributions, so a warm CLI start pays nothing for
plugins it does not use. ``docs/adding-a-ruleset.md`` walks through a complete plugin.

The protocol
------------
A ruleset object has:

``name``
    The name scenario files use (``"generic"``, ``"vom-kriege"``); lower case, hyphens.
``title``
    Plain words for people (``"Vom Kriege (Napoleonic)"``).
``doc``
    Where its page is: a path relative to oddslab's ``docs/`` for the built-ins, or a URL.
``rules``
    The frozen dataclass of its rule switches (every reading of an ambiguous rule is a field
    with a documented default), or ``None`` when the game has none.
``read(table)``
    A validated, frozen scenario object from the scenario's root
    :class:`~oddslab._schema.Table` (``ruleset`` already read). Every mistake is one
    :class:`~oddslab._schema.ScenarioError` naming file, key and problem.
``warmup``
    Tiny valid scenarios (dicts, as ``tomllib`` gives them) whose runs compile every kernel
    of the game (``oddslab warmup``).
``examples()``
    The paths of its shipped example scenarios.
``library()``
    The path of its shipped unit library, or ``None``.
``schema()``
    A JSON Schema (draft 2020-12) of its scenario files, or ``None`` when its keys are not
    declared through :mod:`oddslab.keys` yet.
``keys`` (optional)
    The :class:`oddslab.keys.Schema` its keys are declared in, where they are.

The scenario objects ``read`` returns carry the rest of the contract (see
:class:`oddslab.engine.Simulatable`): ``compile()`` gives the engine's
:class:`~oddslab.engine.Job` (kernel, arrays, statistics with plain-words labels and whose
fate they are, headline probabilities, and the exact engine where the game has one);
``resolved()`` gives the inputs as the program read them; ``name``, ``trials``, ``seed``.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "BUILTIN",
    "ENTRY_POINT_GROUP",
    "BasicRuleset",
    "Ruleset",
    "RulesetError",
    "available",
    "get",
    "names",
]

#: The entry-point group rulesets are registered in.
ENTRY_POINT_GROUP = "oddslab.rulesets"

#: The built-in rulesets, in the order they are listed, with their entry-point values.
BUILTIN: dict[str, str] = {
    "generic": "oddslab.rulesets.generic:RULESET",
    "armoured-clash": "oddslab.rulesets.armoured_clash:RULESET",
    "assault-phase": "oddslab.rulesets.assault_phase:RULESET",
    "vom-kriege": "oddslab.rulesets.vom_kriege:RULESET",
    "hex-platoon": "oddslab.rulesets.hex_platoon:RULESET",
    "formation-actions": "oddslab.rulesets.formation_actions:RULESET",
}

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class RulesetError(LookupError):
    """A ruleset name nobody registered, or a plugin that does not load or does not fit."""


@runtime_checkable
class Ruleset(Protocol):
    """What every game offers the engine and the front ends (see the module docstring)."""

    name: str
    title: str
    doc: str
    rules: type | None
    warmup: tuple[dict[str, Any], ...]

    def read(self, table: Any) -> Any: ...

    def examples(self) -> tuple[Path, ...]: ...

    def library(self) -> Path | None: ...

    def schema(self) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class BasicRuleset:
    """A :class:`Ruleset` assembled from a game package's parts (what most games need).

    Parameters
    ----------
    name, title, doc : str
        See :class:`Ruleset`.
    reader : callable
        ``reader(root_table) -> scenario``: the package's ``from_table``.
    rules : type, optional
        The package's ``Rules`` dataclass.
    warmup : tuple of dict
        Warm-up scenarios.
    examples_dir : Path, optional
        Folder of the shipped examples; with ``example_glob`` (a file pattern such as
        ``"generic-*.toml"``) it gives :meth:`examples`.
    example_glob : str
    library_path : Path, optional
        The shipped unit library.
    keys : oddslab.keys.Schema, optional
        The game's keys, declared once (:mod:`oddslab.keys`): :meth:`schema` derives the
        JSON Schema from it, ``oddslab schema --markdown`` the docs' key table.
    """

    name: str
    title: str
    doc: str
    reader: Callable[[Any], Any]
    rules: type | None = None
    warmup: tuple[dict[str, Any], ...] = ()
    examples_dir: Path | None = None
    example_glob: str = "*.toml"
    library_path: Path | None = None
    keys: Any = field(default=None, repr=False)

    def read(self, table: Any) -> Any:
        """A validated scenario object from the scenario's root table."""
        return self.reader(table)

    def examples(self) -> tuple[Path, ...]:
        """The shipped example scenarios, sorted by file name."""
        if self.examples_dir is None:
            return ()
        return tuple(sorted(Path(self.examples_dir).glob(self.example_glob)))

    def library(self) -> Path | None:
        """The shipped unit library, or None."""
        return self.library_path

    def schema(self) -> dict[str, Any] | None:
        """The JSON Schema of the game's scenario files, or None where not declared."""
        return None if self.keys is None else self.keys.json_schema()


def shipped(name: str) -> Path:
    """A path inside oddslab's shipped ``examples/`` folder (for the built-in rulesets)."""
    return Path(__file__).resolve().parent / "examples" / name


def builtin(
    name: str,
    title: str,
    reader: Callable[[Any], Any],
    rules: type | None,
    warmup: tuple[dict[str, Any], ...],
    keys: Any = None,
    example_prefix: str | None = None,
) -> BasicRuleset:
    """A built-in game's :class:`BasicRuleset`: its page is ``docs/<name>.md``, its examples
    ``examples/<prefix>-*.toml`` (prefix: the name) and its library
    ``examples/libraries/<name>.toml``."""
    return BasicRuleset(
        name=name,
        title=title,
        doc=f"{name}.md",
        reader=reader,
        rules=rules,
        warmup=tuple(warmup),
        examples_dir=shipped(""),
        example_glob=f"{example_prefix or name}-*.toml",
        library_path=shipped(f"libraries/{name}.toml"),
        keys=keys,
    )


_LOADED: dict[str, Any] = {}
_PLUGINS: dict[str, Any] | None = None


def _plugins() -> dict[str, Any]:
    """Entry points of the group that are not built-in names, by name (scanned once)."""
    global _PLUGINS
    if _PLUGINS is None:
        from importlib.metadata import entry_points

        found: dict[str, Any] = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name in BUILTIN:
                if ep.value != BUILTIN[ep.name]:
                    raise RulesetError(
                        f"the plugin entry point '{ep.name} = {ep.value}' uses the name of a "
                        "built-in ruleset; give the plugin a name of its own"
                    )
                continue
            found.setdefault(ep.name, ep)
        _PLUGINS = found
    return _PLUGINS


def refresh() -> None:
    """Forget the plugins found so far (after installing one into a running process)."""
    global _PLUGINS
    _PLUGINS = None
    for name in [n for n in _LOADED if n not in BUILTIN]:
        del _LOADED[name]


def names(*, plugins: bool = True) -> tuple[str, ...]:
    """Every ruleset name: the built-in ones in their order, then plugins sorted by name."""
    if not plugins:
        return tuple(BUILTIN)
    return (*BUILTIN, *sorted(_plugins()))


def available() -> dict[str, str]:
    """``{name: "module:attribute"}`` of every ruleset that can be loaded by name."""
    out = dict(BUILTIN)
    out.update({name: ep.value for name, ep in sorted(_plugins().items())})
    return out


def _load_value(value: str) -> Any:
    module, _, attr = value.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def _check(name: str, obj: Any, where: str) -> Any:
    missing = [
        a
        for a in (
            "name",
            "title",
            "doc",
            "rules",
            "warmup",
            "read",
            "examples",
            "library",
            "schema",
        )
        if not hasattr(obj, a)
    ]
    if missing:
        raise RulesetError(
            f"ruleset '{name}' ({where}) does not implement the Ruleset protocol: it has no "
            + ", ".join(missing)
        )
    if obj.name != name:
        raise RulesetError(
            f"ruleset '{name}' ({where}) says its name is '{obj.name}'; the entry point's name "
            "and the object's name must be the same"
        )
    if not _NAME.match(name):
        raise RulesetError(
            f"ruleset name '{name}' ({where}): use lower-case words joined by hyphens"
        )
    return obj


def get(name: str) -> Ruleset:
    """The ruleset registered as ``name``.

    Raises
    ------
    RulesetError
        If no ruleset has that name (with a did-you-mean), or its plugin fails to load or
        does not implement the protocol.
    """
    if name in _LOADED:
        return _LOADED[name]
    if name in BUILTIN:
        obj = _check(name, _load_value(BUILTIN[name]), BUILTIN[name])
    else:
        eps = _plugins()
        if name not in eps:
            options = names()
            close = difflib.get_close_matches(name, options, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise RulesetError(
                f"no ruleset named '{name}' (known: {', '.join(options)}){hint}; a plugin "
                f"registers one in the '{ENTRY_POINT_GROUP}' entry-point group"
            )
        ep = eps[name]
        try:
            loaded = ep.load()
        except Exception as exc:  # a broken plugin must not look like a bad scenario file
            raise RulesetError(
                f"the ruleset plugin '{name}' ({ep.value}) failed to load: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        obj = _check(name, loaded, ep.value)
    _LOADED[name] = obj
    return obj
