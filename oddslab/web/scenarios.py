"""Scenarios from requests: TOML text or its JSON form → a validated scenario object.

Every ``use = "lib.toml:entry"`` a request makes is checked and pointed at a file under the
shipped libraries or the server's ``--library-dir`` (:func:`oddslab.web.security.safe_library_file`)
before the scenario is read, so a request never names a file of its own. A problem is a
:class:`BadInput` with the CLI's one-line message, the key at fault and the line of the TOML
text it is on (for the editor).
"""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

from oddslab._schema import ScenarioError
from oddslab.web.security import PathRefused, safe_library_file

__all__ = [
    "BadInput",
    "display_name",
    "examples_dir",
    "library_roots",
    "list_examples",
    "list_libraries",
    "locate",
    "read_scenario",
    "resolve_library_spec",
    "start_from_entry",
    "to_toml",
]


class BadInput(ValueError):
    """A client mistake: the one-line message (as the CLI prints it), key and line."""

    def __init__(self, message: str, key: str = "", line: int | None = None, status: int = 400):
        super().__init__(message)
        self.message = message
        self.key = key
        self.line = line
        self.status = status

    def body(self) -> dict[str, Any]:
        return {"error": self.message, "key": self.key or None, "line": self.line}


def display_name(source: str) -> str:
    """A scenario's name for messages and results, as the client gave it; never opened (every
    ``use`` in a scenario is pointed at an allowed library before reading, so the name's
    folder is never looked in)."""
    return source.strip() or "scenario.toml"


def examples_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "examples"


def library_roots(library_dir: Path | None) -> list[Path]:
    """Folders a request's library paths are looked up in, in order: the shipped examples
    folder (so ``libraries/generic.toml`` works as in the shipped scenarios), the shipped
    libraries, then ``--library-dir``."""
    roots = [examples_dir(), examples_dir() / "libraries"]
    if library_dir is not None:
        roots.append(Path(library_dir))
    return roots


# -- reading ---------------------------------------------------------------------------------------
def parse_text(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"at line (\d+)", str(exc))
        raise BadInput(
            f"{source}: not valid TOML: {exc}", line=int(m.group(1)) if m else None
        ) from None
    except RecursionError:  # arrays or tables nested thousands deep
        raise BadInput(f"{source}: nested too deeply") from None


def read_scenario(
    toml: str | None,
    data: dict[str, Any] | None,
    source: str,
    library_dir: Path | None,
    replace_target: dict[str, Any] | None = None,
) -> tuple[Any, dict[str, Any]]:
    """The scenario object and the dict it was read from.

    Raises
    ------
    BadInput
        For TOML that does not parse, a refused library path, or any scenario error.
    """
    from oddslab.scenario import from_dict

    if (toml is None) == (data is None):
        raise BadInput("give the scenario as 'toml' (text) or 'scenario' (its JSON form)")
    try:
        parsed = parse_text(toml, source) if toml is not None else copy.deepcopy(data)
        if replace_target is not None:
            key = next((k for k in ("target", "defender") if k in parsed), "target")
            parsed[key] = replace_target
        fixed = _point_uses(parsed, source, library_roots(library_dir))
        return from_dict(fixed, source=source), fixed
    except ScenarioError as exc:
        raise BadInput(str(exc), exc.key, locate(toml, exc.key) if toml else None) from None
    except RecursionError:  # arrays or tables nested thousands deep
        raise BadInput(f"{source}: the scenario is nested too deeply") from None


def _point_uses(node: Any, source: str, roots: list[Path], path: str = "") -> Any:
    """A copy of ``node`` whose every ``use`` names an absolute, allowed library file."""
    if isinstance(node, list):
        return [_point_uses(v, source, roots, f"{path}[{i}]") for i, v in enumerate(node)]
    if not isinstance(node, dict):
        return node
    out = {k: _point_uses(v, source, roots, f"{path}.{k}" if path else k) for k, v in node.items()}
    if "use" in node:
        key = f"{path}.use" if path else "use"
        ref = node["use"]
        if isinstance(ref, str) and ref.startswith("{") and ref.endswith("}"):
            return out  # a matchup template's slot, filled later
        if not isinstance(ref, str) or ":" not in ref:
            raise BadInput(f'{source}: {key}: expected "library.toml:entry", got {ref!r}', key)
        lib, _, entry = ref.rpartition(":")
        try:
            out["use"] = f"{safe_library_file(lib, roots)}:{entry}"
        except PathRefused as exc:
            raise BadInput(f"{source}: {key}: {exc}", key, status=403) from None
    return out


def resolve_library_spec(spec: str, library_dir: Path | None) -> str:
    """``"generic.toml"`` or ``"generic.toml:a,b"`` with the file made absolute and allowed."""
    if not isinstance(spec, str) or not spec.strip():
        raise BadInput("expected a library such as 'generic.toml' or 'generic.toml:entry'")
    lib, sep, entries = spec.partition(":") if not spec.endswith(".toml") else (spec, "", "")
    try:
        path = safe_library_file(lib, library_roots(library_dir))
    except PathRefused as exc:
        raise BadInput(str(exc), status=403) from None
    return f"{path}{sep}{entries}"


# -- where a key is written ------------------------------------------------------------------------
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")


def _norm(path: str) -> str:
    return ".".join(p.strip().strip("\"'") for p in path.split("."))


def locate(text: str | None, key: str) -> int | None:
    """The 1-based line of ``text`` where ``key`` (``attacker.weapons[0].skill``) is written,
    else the line of its closest written parent table, else None."""
    if not text or not key:
        return None
    lines: dict[str, int] = {}
    arrays: dict[str, int] = {}
    current = ""
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.split("#", 1)[0] if '"' not in line else line
        h = _HEADER.match(stripped)
        if h:
            name = _norm(h.group(2))
            if h.group(1) == "[[":
                arrays[name] = arrays.get(name, -1) + 1
                current = f"{name}[{arrays[name]}]"
            else:
                current = name
            current = _indexed(current, arrays)
            lines.setdefault(current, n)
            continue
        k = _KEY.match(stripped)
        if k:
            full = f"{current}.{_norm(k.group(1))}" if current else _norm(k.group(1))
            lines.setdefault(full, n)
    probe = key
    while probe:
        if probe in lines:
            return lines[probe]
        cut = max(probe.rfind("."), probe.rfind("["))
        probe = probe[:cut] if cut > 0 else ""
    return None


def _indexed(name: str, arrays: dict[str, int]) -> str:
    """``attacker.weapons.anti`` inside the 2nd ``[[attacker.weapons]]`` →
    ``attacker.weapons[1].anti``."""
    parts = name.split(".")
    out = []
    for i, p in enumerate(parts):
        out.append(p)
        prefix = ".".join(parts[: i + 1])
        if prefix in arrays and i < len(parts) - 1:
            out[-1] = f"{p}[{arrays[prefix]}]"
    return ".".join(out)


# -- listings ------------------------------------------------------------------------------------
def list_examples() -> list[dict[str, str]]:
    """Every shipped example: file name, ruleset, name, description (its first comment)."""
    out = []
    for p in sorted(examples_dir().glob("*.toml")):
        text = p.read_text(encoding="utf-8")
        data = tomllib.loads(text)
        comment = " ".join(
            line.lstrip("# ").strip() for line in text.splitlines()[:6] if line.startswith("#")
        )
        out.append(
            {
                "file": p.name,
                "ruleset": data.get("ruleset", "generic"),
                "name": data.get("name", p.stem),
                "description": comment,
            }
        )
    return out


def list_libraries(library_dir: Path | None) -> list[dict[str, Any]]:
    """Every library the server may read, with its entries and their points."""
    from oddslab.libraries import load_library

    out = []
    dirs = [("shipped", examples_dir() / "libraries")]
    if library_dir is not None:
        dirs.append(("library-dir", Path(library_dir)))
    seen = set()
    for where, folder in dirs:
        for p in sorted(folder.glob("*.toml")):
            if p.name in seen:
                continue
            seen.add(p.name)
            try:
                lib = load_library(p)
                slots = _slots(lib)
                entries = [
                    {"entry": e.key, "name": e.label, "points": _points(e), "slots": slots[e.key]}
                    for e in lib
                ]
            except ScenarioError as exc:
                out.append({"file": p.name, "where": where, "error": str(exc)})
                continue
            out.append(
                {
                    "file": p.name,
                    "where": where,
                    "ruleset": lib.ruleset,
                    "description": lib.description,
                    "template": lib.template is not None,
                    "entries": entries,
                }
            )
    return out


_SLOTS: dict[tuple[str, float], dict[str, list[str]]] = {}


def _slots(lib) -> dict[str, list[str]]:
    """Which slots of the library's template each entry fits (``attacker``, ``target``):
    one fitting pair is found, then each entry is tried in each slot against it."""
    from oddslab.scenario import from_dict

    stamp = (str(lib.path.resolve()), lib.path.stat().st_mtime)
    if stamp in _SLOTS:
        return _SLOTS[stamp]
    out: dict[str, list[str]] = {e.key: [] for e in lib}
    if lib.template is not None:
        ref = str(lib.path.resolve())

        def fits(a: str, t: str) -> bool:
            tpl = _fill(copy.deepcopy(lib.template), {"{attacker}": a, "{target}": t}, ref)
            try:
                from_dict(tpl, source=str(lib.path))
            except ScenarioError:
                return False
            return True

        keys = list(out)
        pair = next(((a, t) for a in keys for t in keys if fits(a, t)), None)
        if pair is not None:
            for k in keys:
                out[k] += ["attacker"] if fits(k, pair[1]) else []
                out[k] += ["target"] if fits(pair[0], k) else []
    _SLOTS[stamp] = out
    return out


def _points(entry) -> float | None:
    try:
        return entry.points()
    except ScenarioError:
        return None


def start_from_entry(file: str, entry: str, library_dir: Path | None) -> str:
    """TOML text of a scenario built from a library entry: the library's matchup template
    with the entry in the slot it fits and the first entry that fits the other slot."""
    from oddslab.libraries import load_library
    from oddslab.scenario import from_dict

    try:
        path = safe_library_file(file, library_roots(library_dir))
    except PathRefused as exc:
        raise BadInput(str(exc), status=403) from None
    try:
        lib = load_library(path)
        lib[entry]
    except ScenarioError as exc:
        raise BadInput(str(exc)) from None
    if lib.template is None:
        raise BadInput(f"{file}: has no [matchup.template] to build a scenario from")
    ref = f"libraries/{file}" if (examples_dir() / "libraries" / file).exists() else file
    roots = library_roots(library_dir)
    for slot, other in (("{attacker}", "{target}"), ("{target}", "{attacker}")):
        for partner in lib:
            tpl = _fill(copy.deepcopy(lib.template), {slot: entry, other: partner.key}, ref)
            try:
                from_dict(_point_uses(tpl, file, roots), source=file)
            except (ScenarioError, BadInput):
                continue
            tpl.setdefault(
                "name", f"{lib[entry].label} ({'attacker' if slot == '{attacker}' else 'target'})"
            )
            tpl.setdefault("seed", 1)
            return to_toml(tpl)
    raise BadInput(f"{file}: units.{entry}: fits no slot of the library's template")


def _fill(node: Any, names: dict[str, str], ref: str) -> Any:
    if isinstance(node, dict):
        return {k: _fill(v, names, ref) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, names, ref) for v in node]
    if isinstance(node, str) and node in names:
        return f"{ref}:{names[node]}"
    return node


# -- writing TOML --------------------------------------------------------------------------------
def _scalar(v: Any) -> str:
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_k(k)} = {_scalar(x)}" for k, x in v.items()) + " }"
    raise BadInput(f"cannot write {v!r} as TOML")


def _k(key: str) -> str:
    import json

    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def to_toml(data: dict[str, Any]) -> str:
    """TOML text of a scenario dict (scalars first, then tables and arrays of tables)."""
    out: list[str] = []
    try:
        _write(data, "", out)
    except RecursionError:
        raise BadInput("the scenario is nested too deeply") from None
    return "\n".join(out).lstrip("\n") + "\n"


def _write(table: dict[str, Any], path: str, out: list[str]) -> None:
    for k, v in table.items():
        if not isinstance(v, dict) and not _is_table_array(v):
            out.append(f"{_k(k)} = {_scalar(v)}")
    for k, v in table.items():
        sub = f"{path}.{_k(k)}" if path else _k(k)
        if isinstance(v, dict):
            out.append("")
            out.append(f"[{sub}]")
            _write(v, sub, out)
        elif _is_table_array(v):
            for item in v:
                out.append("")
                out.append(f"[[{sub}]]")
                _write(item, sub, out)
