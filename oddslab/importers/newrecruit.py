"""New Recruit's JSON export of a roster → the element tree the BattleScribe reader walks.

New Recruit writes the roster schema as JSON: ``{"roster": {"forces": [{"selections": [...]}]}}``
where each list of the XML (``selections``, ``profiles``, ``characteristics``, ``categories``,
``costs``, ``rules``, ``forces``) is a JSON array of objects, attributes are keys (``"number": 1``,
``"typeName": "Ranged Weapons"``), a characteristic's text is ``"$text"`` and a rule's text is
``"description"``. Rebuilding the XML elements from it lets one reader serve both formats.
"""

from __future__ import annotations

import json
from typing import Any
from xml.etree.ElementTree import Element

from oddslab.importers.characteristics import RosterError

__all__ = ["element_from_json"]

#: JSON arrays → the XML element name of their items.
_ITEM = {
    "forces": "force",
    "selections": "selection",
    "profiles": "profile",
    "characteristics": "characteristic",
    "categories": "category",
    "costs": "cost",
    "rules": "rule",
}
_MAX_NESTING = 400  # JSON levels (a selection is about two); deeper is refused


def element_from_json(data: bytes, src: str) -> Element:
    """The ``<roster>`` element of a New Recruit JSON roster."""
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise RosterError(src, "", f"not valid JSON ({exc})") from None
    except RecursionError:
        raise RosterError(src, "", "JSON nested too deeply") from None
    roster = doc.get("roster") if isinstance(doc, dict) else None
    if not isinstance(roster, dict):
        raise RosterError(src, "", 'not a New Recruit roster (no "roster" object)')
    return _element("roster", roster, src, 0)


def _element(tag: str, obj: dict[str, Any], src: str, depth: int) -> Element:
    if depth > _MAX_NESTING:
        raise RosterError(src, "", f"nested more than {_MAX_NESTING} levels deep")
    el = Element(tag)
    for key, value in obj.items():
        if key == "$text":
            el.text = str(value)
        elif key == "description" and tag == "rule":
            child = Element("description")
            child.text = str(value)
            el.append(child)
        elif isinstance(value, list):
            box = Element(key)
            item = _ITEM.get(key, key.removesuffix("s"))
            for v in value:
                if isinstance(v, dict):
                    box.append(_element(item, v, src, depth + 1))
            el.append(box)
        elif isinstance(value, dict):
            el.append(_element(key, value, src, depth + 1))
        elif value is not None:
            el.set(key, str(value).lower() if isinstance(value, bool) else str(value))
    return el
