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
    scenario *equal* to ``sc`` (a reader that renames or combines keys would otherwise lose
    something silently); None when it does not, or when no built-in ruleset owns the class.
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
        same = bool(back == sc)
    except Exception:  # noqa: BLE001 - any failure means "cannot write this one"
        return None
    return data if same else None


def _section(section: Any, obj: Any) -> dict[str, Any]:
    from oddslab.keys import Key

    items = list(section.items)
    if section.variants:
        tag = getattr(obj, section.tag, None)
        items += list(dict(section.variants).get(tag, ()))
    out: dict[str, Any] = {}
    for item in items:
        if item.name == "ruleset" or not hasattr(obj, item.name):
            continue
        v = getattr(obj, item.name)
        if v is None:
            continue
        if isinstance(item, Key):
            out[item.name] = _plain(v)
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


def _plain(v: Any) -> Any:
    from oddslab.dice import DiceExpr

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
