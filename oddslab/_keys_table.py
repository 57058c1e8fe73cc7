"""The docs' key tables of declared scenario keys (:meth:`oddslab.keys.Schema.markdown`)."""

from __future__ import annotations

from typing import Any

__all__ = ["KIND_WORDS", "markdown"]

#: The kinds in plain words, for the docs' tables.
KIND_WORDS = {
    "int": "integer",
    "float": "number",
    "bool": "true / false",
    "str": "string",
    "dice": "dice expression",
    "int_list": "array of integers",
    "str_list": "string or array of strings",
    "int_or_list": "integer or array of integers",
    "int_matrix": "array of rows of integers",
    "removed": "(removed)",
}


def markdown(schema: Any) -> str:
    """One row per key of ``schema`` (an :class:`oddslab.keys.Schema`): path, type, default,
    allowed values, help (a variant's key says which kinds take it)."""
    rows = ["| key | type | default | allowed | help |", "|---|---|---|---|---|"]
    for path, key in schema.root.walk():
        path, _, kinds = path.partition(" (")  # a variant's key: which kinds take it
        taken_by = f"*{kinds.rstrip(')')}:* " if kinds else ""
        if key.required:
            default = "required"
        elif key.default is None:
            default = "none"
        else:
            default = f"`{_toml(key.default)}`"
        if key.choices is not None:
            allowed = ", ".join(f"`{c}`" for c in key.choices)
        elif key.min is not None or key.max is not None:
            lo = "" if key.min is None else _num(key.min)
            hi = "" if key.max is None else _num(key.max)
            allowed = f"{lo}–{hi}" if lo and hi else (f"≥ {lo}" if lo else f"≤ {hi}")
        else:
            allowed = ""
        shown = key.unit and key.unit not in key.help
        help_ = key.help + (f" ({key.unit})" if shown else "")
        if key.switch:
            help_ += " *Rule switch.*"
        help_ = taken_by + help_
        kind = key.what if key.kind == "custom" else KIND_WORDS[key.kind]
        rows.append(f"| `{path}` | {kind} | {default} | {allowed} | {help_} |")
    return "\n".join(rows)


def _num(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else str(x)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)
