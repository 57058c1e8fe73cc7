"""Scenario files: TOML → a ruleset's validated, frozen scenario object.

Every file names its ``ruleset`` (default ``"generic"``); the
:class:`~oddslab.ruleset.Ruleset` registered under that name (:func:`oddslab.ruleset.get`)
reads the rest through :class:`oddslab._schema.Table`, so every problem is reported as one :class:`ScenarioError` naming the file, the key path and what was expected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oddslab import ruleset as _registry
from oddslab._limits import MAX_TRIALS, TRIALS_WHAT
from oddslab._schema import ScenarioError, Table
from oddslab._schema import read_toml as _read_toml
from oddslab.ruleset import BUILTIN, RulesetError

__all__ = [
    "RULESETS",
    "ScenarioError",
    "load",
    "read_toml",
    "from_dict",
    "read_run_options",
    "shipped_example",
    "scenario_dict",
]

#: Built-in ruleset name in files -> the module of its package. Front ends find rulesets
#: through :mod:`oddslab.ruleset` (built-ins and plugins alike); this map stays for the code
#: and tests that name a built-in package directly.
RULESETS: dict[str, str] = {name: value.partition(":")[0] for name, value in BUILTIN.items()}


def load(path: str | Path) -> Any:
    """Read and validate a scenario file.

    Raises
    ------
    ScenarioError
        If the file is missing, is not TOML, or any key is wrong.
    """
    return from_dict(read_toml(path), source=str(path))


def read_toml(path: str | Path) -> dict[str, Any]:
    """The parsed TOML of a scenario file (:func:`oddslab._schema.read_toml`), or one
    :class:`ScenarioError` naming the file; a shipped example's bare name finds it
    (:func:`shipped_example`), a missing ``examples/...`` path says where the examples are,
    and an empty file says so.
    """
    path = shipped_example(path)
    try:
        data = _read_toml(path)
    except ScenarioError as exc:
        if exc.problem != "file not found":
            raise
        raise ScenarioError(exc.source, exc.key, exc.problem + _examples_hint(path)) from None
    if not data:
        raise ScenarioError(
            str(path), "", "the file is empty (no keys; see docs/scenario-format.md)"
        )
    return data


def examples_dir() -> Path:
    """The shipped examples (``oddslab.examples_dir()``; here too, so this module does not
    import the package's ``__init__``, which imports it)."""
    return Path(__file__).resolve().parent / "examples"


def shipped_example(path: str | Path) -> Path:
    """``path``, or the shipped example it names when it is a bare name that is no file here.

    ``generic-intercessors-vs-guardsmen`` (or with ``.toml``) finds
    ``oddslab.examples_dir() / "generic-intercessors-vs-guardsmen.toml"`` from any folder,
    so the README's commands work where the package is installed, not only in a checkout.
    """
    path = Path(path)
    if path.exists() or len(path.parts) != 1:
        return path
    name = path.name if path.suffix == ".toml" else f"{path.name}.toml"
    found = examples_dir() / name
    return found if found.is_file() else path


def _examples_hint(path: Path) -> str:
    """What to do when a missing file looks like one of the shipped examples."""
    parts = path.parts
    if not parts or (parts[0] != "examples" and len(parts) != 1):
        return ""
    shipped = (examples_dir() / f"{path.stem}.toml").is_file()
    if not shipped and parts[0] != "examples":
        return ""
    name = f"the bare name, as in `oddslab simulate {path.stem}`" if shipped else (
        "an example's bare name (`oddslab examples` lists them)"
    )  # fmt: skip
    return (
        f" (the shipped examples are in {examples_dir()}: give {name}, or copy them here "
        "with `oddslab examples --copy examples`)"
    )


def from_dict(data: dict[str, Any], source: str = "<dict>") -> Any:
    """Validate a scenario given as a dict (the parsed TOML)."""
    from oddslab.libraries import expand_uses  # use = "lib.toml:entry" (issue 14)

    root = Table(expand_uses(data, source), source)
    if not root.has("ruleset"):
        # A misspelt `ruleset` must not fall back to generic and fail on generic's keys.
        typo = root.typo_for("ruleset", of_type=str)
        if typo is not None:
            raise typo
    name = root.str("ruleset", "generic")
    if name not in BUILTIN and name not in _registry.names():
        # plugins are looked for only when the name is not a built-in one (a warm start
        # scans no installed distributions for the scenarios of the six built-in games)
        root.str("ruleset", choices=_registry.names())  # the message with did-you-mean
    try:
        game = _registry.get(name)
    except RulesetError as exc:
        raise root.error("ruleset", str(exc)) from None
    except ModuleNotFoundError:
        raise root.error("ruleset", f"'{name}' is not available in this version") from None
    kept = root.data
    sc = game.read(root)
    _keep_source(sc, kept)
    return sc


def _keep_source(sc: Any, data: dict[str, Any]) -> None:
    """Remember the (expanded) dict a scenario was read from, for ``to_dict()``: a copy, so a
    caller that edits its dict afterwards does not change the scenario's."""
    import copy

    try:
        object.__setattr__(sc, "_source_dict", copy.deepcopy(data))
    except (AttributeError, TypeError):  # an object without a __dict__: no kept source
        pass


def scenario_dict(sc: Any) -> dict[str, Any]:
    """A scenario object as a dict that :func:`from_dict` reads back to an equal scenario.

    A scenario read by :func:`from_dict` / :func:`load` gives the dict it was read from (library
    uses expanded); one built in Python gives what its ruleset's ``write_dict`` writes (the
    generic ruleset writes every key).

    Raises
    ------
    TypeError
        A scenario built in Python whose ruleset cannot write it yet.
    """
    import copy

    kept = getattr(sc, "__dict__", {}).get("_source_dict")
    if kept is not None:
        return copy.deepcopy(kept)
    writer = getattr(type(sc), "write_dict", None)
    if writer is not None:
        return writer(sc)
    from oddslab._dictform import schema_dict

    data = schema_dict(sc)  # through the declared keys, checked by reading it back
    if data is not None:
        return data
    raise TypeError(
        f"a {type(sc).__name__} built in Python cannot be written as a dict yet; read it "
        "with oddslab.from_dict(...) or oddslab.load(...), or pass the dict itself"
    )


def read_run_options(root: Table, default_name: str) -> dict[str, Any]:
    """The keys every scenario file may have at its top level.

    ``name`` (str), ``description`` (str), ``trials`` (int from 1 to
    :data:`oddslab.engine.MAX_TRIALS`), ``seed`` (int >= 0).
    """
    return {
        "name": root.str("name", default_name),
        "description": root.str("description", ""),
        "trials": root.int("trials", None, min=1, max=MAX_TRIALS, what=TRIALS_WHAT),
        "seed": root.int("seed", None, min=0),
    }
