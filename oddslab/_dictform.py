"""The one way every ruleset's scenario becomes a dict again (``to_dict``)."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["DictForm", "schema_dict"]


class DictForm:
    """Gives a scenario class ``to_dict()``: the scenario as a dict that
    :func:`oddslab.from_dict` reads back to an equal scenario (see
    :func:`oddslab.scenario.scenario_dict`). No fields, so dataclasses stay as they are."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """This scenario as a dict that :func:`oddslab.from_dict` reads back."""
        from oddslab.scenario import scenario_dict

        return scenario_dict(self)


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
        from oddslab.scenario import from_dict

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
