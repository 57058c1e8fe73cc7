"""Scenario files: TOML → a ruleset's validated, frozen scenario object.

Every file names its ``ruleset`` (default ``"generic"``); the
:class:`~oddslab.ruleset.Ruleset` registered under that name (:func:`oddslab.ruleset.get`)
reads the rest through :class:`oddslab._schema.Table`, so every problem is reported as one :class:`ScenarioError` naming the file, the key path and what was expected.
"""

from __future__ import annotations

import dataclasses
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


# -- a scenario built in Python, written through its ruleset's declared keys --------------
def schema_dict(sc: Any) -> dict[str, Any] | None:
    """A scenario built in Python written through its ruleset's declared keys, or None.

    Every declared key (:mod:`oddslab.keys`) whose name is an attribute of the object at that
    place is written (dice expressions as text, tuples as lists, nested objects as tables,
    ``None`` left out). The dict is kept only if :func:`oddslab.from_dict` reads it back to a
    scenario *equal* to ``sc``, or one that compiles to the identical job (a reader that
    renames or combines keys would otherwise lose something silently); None when it does
    not, or when no built-in ruleset owns the class.
    """
    from oddslab import ruleset as registry

    module = type(sc).__module__
    owners = [n for n, w in registry.BUILTIN.items() if module.startswith(w.split(":")[0] + ".")]
    if not owners:
        return None
    name = owners[0]
    schema = getattr(registry.get(name), "keys", None)
    if schema is None:
        return None
    data = {"ruleset": name, **_section(schema.root, sc)}
    try:
        back = from_dict(data)
        same = bool(back == sc) or _same_job(back, sc)
    except Exception:  # noqa: BLE001 - any failure means "cannot write this one"
        return None
    return data if same else None


def _same_job(a: Any, b: Any) -> bool:
    """Both compile to the same job: kernel, statistics and every parameter (a scenario that
    differs only in what it records for display, such as how a number was worked out)."""
    import numpy as np

    ja, jb = a.compile(), b.compile()
    if ja.kernel is not jb.kernel or ja.stats != jb.stats or len(ja.params) != len(jb.params):
        return False
    return all(
        np.array_equal(np.asarray(x), np.asarray(y))
        for x, y in zip(ja.params, jb.params, strict=True)
    )


def _section(section: Any, obj: Any) -> dict[str, Any]:
    from oddslab.keys import Key

    items = list(section.items)
    out: dict[str, Any] = {}
    if section.variants:
        found, tag = _attribute(obj, section.tag)
        if not found:  # the kind is the object's class: the variant it has most keys of
            tag = max(section.variants, key=lambda kv: sum(_has(obj, i) for i in kv[1]))[0]
            out[section.tag] = tag
        items += list(dict(section.variants).get(tag, ()))
    for item in items:
        if item.name == "ruleset":
            continue
        found, v = _attribute(obj, item.name)
        if not found and _flat(obj, item):  # a table whose keys the object holds itself
            found, v = True, obj
        if not found or v is None:
            continue
        if isinstance(item, Key):
            value = _plain(v)
            if value != item.default:  # a default is left out (some apply only with others)
                out[item.name] = value
        elif item.array:
            out[item.name] = [_section(item, x) for x in v]
        elif item.mapping:  # a dict, or objects that carry their own name
            pairs = (
                v.items() if isinstance(v, dict) else ((getattr(x, "key", x.name), x) for x in v)
            )
            out[item.name] = {k: _section(item, x) for k, x in pairs}
        else:
            out[item.name] = _section(item, v)
    return out


def _flat(obj: Any, item: Any) -> bool:
    """``item`` is a single table (no key of its own on ``obj``) whose keys ``obj`` has."""
    from oddslab.keys import Section

    if not isinstance(item, Section) or item.array or item.mapping:
        return False
    return any(_attribute(obj, i.name)[0] for i in item.items)


def _has(obj: Any, item: Any) -> int:
    """How many of ``item``'s keys ``obj`` holds (a flat table's, one by one)."""
    if _attribute(obj, item.name)[0]:
        return 1
    return sum(_attribute(obj, i.name)[0] for i in item.items) if _flat(obj, item) else 0


def _attribute(obj: Any, name: str) -> tuple[bool, Any]:
    """``obj.name``, else ``obj[name]`` of a dict, else the attribute of one of the object's
    own dataclass fields (a unit's ``armaments.ranged``, an attack's ``situation.aiming``:
    a file's flat table that the reader groups into parts)."""
    if isinstance(obj, dict):
        return (name in obj), obj.get(name)
    if hasattr(obj, name):
        return True, getattr(obj, name)
    if dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            part = getattr(obj, f.name)
            if dataclasses.is_dataclass(part) and hasattr(part, name):
                return True, getattr(part, name)
    return False, None


def _plain(v: Any) -> Any:
    from oddslab.dice import DiceExpr

    if callable(getattr(v, "file_value", None)):  # a value of a shape of its own
        return v.file_value()
    if isinstance(v, DiceExpr):
        text = str(v)
        return int(text) if text.isdigit() else text
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return {f.name: _plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if hasattr(v, "item") and callable(v.item):  # numpy scalars
        return v.item()
    return v
