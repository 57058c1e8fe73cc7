"""Events: conditions on a trial's statistics, such as ``"defender_models_lost >= 5 and
attacker_models_lost == 0"``, parsed once and evaluated on whole columns of trials.

Grammar
-------
An event is a condition on statistics (by name, see ``oddslab schema`` or an outcome's
``stat_names``) and numbers, written as in Python:

- comparisons ``== != < <= > >=`` (chained too: ``2 <= models_slain <= 4``);
- ``and``, ``or``, ``not`` and parentheses;
- ``+ - *`` of statistics and numbers (``damage_dealt - damage_taken >= 3``);
- a statistic alone is true when it is not 0 (``destroyed``, ``not broken``).

A statistic whose name is not a plain word (``1st_platoon_state``, ``attacker.Tactical
Squad.Marines.models_lost``) is read as written, or in backticks.
``"name = condition"`` names an event (``"clean win = defender_destroyed and not
attacker_destroyed"``; the name is what tables and ``--metric "P(clean win)"`` show).
``"A | B"`` is a conditional event: P(A given B), reported with the number of trials in which
B happened. Anything else (calls, attributes, ``/``, strings) is refused with a message that
says what is allowed; an unknown statistic gets a did-you-mean.

Evaluation is vectorised: :meth:`Event.masks` takes one integer array per statistic (the
trials of a chunk, or every value of a histogram) and returns boolean arrays, never a Python
loop over trials.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "EventError",
    "Event",
    "parse_event",
    "parse_events",
    "check_stat_names",
    "check_joint",
    "statistics_section",
    "STATISTICS_SECTION",
]

#: The section of ``oddslab show`` (and the web app's) that lists a scenario's statistics.
STATISTICS_SECTION = "statistics (names for --stat, --event, --joint)"


class EventError(ValueError):
    """An event that cannot be read; the message names the event and the problem."""


#: ``name = condition``: a name of letters, digits, spaces, ``_`` and ``-`` before a lone ``=``
_NAMED = re.compile(r"^\s*([A-Za-z][\w \-]*?)\s*=(?!=)(.*)$", re.S)

_COMPARE = {
    ast.Eq: np.equal,
    ast.NotEq: np.not_equal,
    ast.Lt: np.less,
    ast.LtE: np.less_equal,
    ast.Gt: np.greater,
    ast.GtE: np.greater_equal,
}
_ARITH = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply}
_ALLOWED = "statistics, numbers, + - *, comparisons (== != < <= > >=), and, or, not, ( )"


def _did_you_mean(name: str, names: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, list(names), n=3, cutoff=0.6)
    if close:
        return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
    shown = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
    return f"the statistics are: {shown}"


def check_stat_names(names: Iterable[str], known: Sequence[str], what: str) -> tuple[str, ...]:
    """``names`` as a tuple, each checked against ``known`` (ValueError with a did-you-mean,
    prefixed by ``what``, e.g. ``"--joint"``)."""
    out = []
    for n in names:
        n = n.strip()
        if n not in known:
            raise EventError(f"{what}: no statistic '{n}'; {_did_you_mean(n, known)}")
        out.append(n)
    return tuple(out)


def check_joint(names: Iterable[str] | str, known: Sequence[str], what: str) -> tuple[str, ...]:
    """A joint's statistics (names, or ``"a,b"``) as a tuple: each known (did-you-mean),
    two or more, all different; an :class:`EventError` prefixed by ``what`` otherwise."""
    if isinstance(names, str):
        names = [x for x in names.split(",") if x.strip()]
    js = check_stat_names(names, known, what)
    if len(js) < 2 or len(set(js)) != len(js):
        raise EventError(f"{what}: give two or more different statistics, e.g. a,b")
    return js


def _split_given(text: str, where: str) -> tuple[str, str | None]:
    """``"A | B"`` → ``("A", "B")`` at the top level (outside parentheses)."""
    depth, cuts = 0, []
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            cuts.append(i)
    if not cuts:
        return text, None
    if len(cuts) > 1:
        raise EventError(
            f"{where}: '|' (given) may appear once, at the top level: 'A | B' is P(A given B)"
        )
    i = cuts[0]
    return text[:i], text[i + 1 :]


class _Checker:
    """Walks a parsed condition: allowed nodes only, names known; collects the names and
    says whether each node is a condition (``bool``) or a number."""

    def __init__(self, known: Sequence[str], where: str) -> None:
        self.known, self.where, self.used = known, where, []

    def fail(self, problem: str) -> EventError:
        return EventError(f"{self.where}: {problem}")

    def kind(self, node: ast.AST) -> str:
        if isinstance(node, ast.BoolOp):
            for v in node.values:
                self.kind(v)
            return "bool"
        if isinstance(node, ast.UnaryOp):
            inner = self.kind(node.operand)
            if isinstance(node.op, ast.Not):
                return "bool"
            if isinstance(node.op, ast.USub | ast.UAdd) and inner == "number":
                return "number"
            raise self.fail("'-' applies to numbers and statistics, not to conditions")
        if isinstance(node, ast.Compare):
            for v in (node.left, *node.comparators):
                if self.kind(v) != "number":
                    raise self.fail("compare numbers and statistics, not conditions")
            if not all(type(op) in _COMPARE for op in node.ops):
                raise self.fail(f"only == != < <= > >= compare; allowed: {_ALLOWED}")
            return "bool"
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _ARITH:
                sym = {ast.Div: "/", ast.BitOr: "|", ast.BitAnd: "&", ast.Mod: "%"}.get(
                    type(node.op), type(node.op).__name__
                )
                extra = " ('|' means 'given' only at the top level)" if sym == "|" else ""
                raise self.fail(f"'{sym}' is not allowed{extra}; allowed: {_ALLOWED}")
            if self.kind(node.left) != "number" or self.kind(node.right) != "number":
                raise self.fail("+ - * apply to numbers and statistics, not to conditions")
            return "number"
        if isinstance(node, ast.Name):
            if node.id not in self.known:
                raise self.fail(f"no statistic '{node.id}'; {_did_you_mean(node.id, self.known)}")
            if node.id not in self.used:
                self.used.append(node.id)
            return "number"
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return "bool"
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return "number"
        shown = ast.unparse(node) if hasattr(ast, "unparse") else type(node).__name__
        raise self.fail(f"'{shown}' is not allowed; allowed: {_ALLOWED}")


def _reserved(name: str) -> bool:
    """A statistic named like a Python keyword (dice pools' ``pass``), read as a name."""
    import keyword

    return keyword.iskeyword(name) and name not in ("and", "or", "not", "True", "False")


def _protect(src: str, known: Sequence[str], where: str) -> tuple[str, dict[str, str]]:
    """Stand-ins for names Python cannot read (``1st_platoon_state``, ``attacker.Tactical
    Squad.Marines.models_lost``): each written in backticks, or as it is, becomes a plain
    identifier; returns the text and ``{stand-in: name}``."""
    names: dict[str, str] = {}

    def stand_in(name: str) -> str:
        key = f"__stat{len(names)}"
        names[key] = name
        return key

    def quoted(m: re.Match) -> str:
        name = m.group(1)
        if name not in known:
            raise EventError(f"{where}: no statistic '{name}'; {_did_you_mean(name, known)}")
        return stand_in(name)

    src = re.sub(r"`([^`]*)`", quoted, src)
    odd = sorted((n for n in known if not n.isidentifier() or _reserved(n)), key=len, reverse=True)
    for name in odd:  # longest first: a name inside a longer one is not cut out of it
        pattern = r"(?<![\w.`])" + re.escape(name) + r"(?![\w`])"
        if re.search(pattern, src):
            key = stand_in(name)
            src = re.sub(pattern, key, src)
    return src, names


def _parse_condition(text: str, known: Sequence[str], where: str) -> tuple[ast.AST, list[str]]:
    src = text.strip()
    if not src:
        raise EventError(f"{where}: empty condition")
    src, stand_ins = _protect(src, known, where)
    if re.search(r"(?<![<>=!])=(?!=)", src):
        raise EventError(f"{where}: use '==' to compare ('=' only names an event: 'name = ...')")
    try:
        tree = ast.parse(src, mode="eval").body
    except SyntaxError as exc:
        for word in re.findall(r"(?<![\w.`])\d*[A-Za-z_][\w.]*", text):
            if word not in known and word not in ("and", "or", "not", "True", "False"):
                raise EventError(
                    f"{where}: no statistic '{word}'; {_did_you_mean(word, known)}"
                ) from None
        raise EventError(
            f"{where}: cannot read '{text.strip()}' ({exc.msg}; write a statistic whose name "
            "is not a plain word in backticks, e.g. `1st_platoon_state`)"
        ) from None
    for node in ast.walk(tree):  # the stand-ins back to the statistics' names
        if isinstance(node, ast.Name) and node.id in stand_ins:
            node.id = stand_ins[node.id]
    checker = _Checker(known, where)
    kind = checker.kind(tree)
    if kind != "bool" and not isinstance(tree, ast.Name):
        raise EventError(
            f"{where}: '{src}' is a number, not a condition; compare it, e.g. '{src} >= 1'"
        )
    return tree, checker.used


def _evaluate(node: ast.AST, cols: Mapping[str, np.ndarray]) -> object:
    """Numpy evaluation of a checked node: an array (or a scalar for constants)."""
    if isinstance(node, ast.Name):
        return cols[node.id]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BoolOp):
        vals = [_truth(_evaluate(v, cols)) for v in node.values]
        f = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        acc = vals[0]
        for v in vals[1:]:
            acc = f(acc, v)
        return acc
    if isinstance(node, ast.UnaryOp):
        v = _evaluate(node.operand, cols)
        if isinstance(node.op, ast.Not):
            return np.logical_not(_truth(v))
        return np.negative(v) if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        return _ARITH[type(node.op)](_wide(_evaluate(node.left, cols)), _evaluate(node.right, cols))
    if isinstance(node, ast.Compare):
        left, acc = _evaluate(node.left, cols), True
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _evaluate(right_node, cols)
            acc = np.logical_and(acc, _COMPARE[type(op)](left, right))
            left = right
        return acc
    raise AssertionError(f"unchecked node {node!r}")  # pragma: no cover - _Checker refused it


def _wide(v: object) -> object:
    # int32 records: sums and products of statistics in int64 so they cannot wrap
    return v.astype(np.int64) if isinstance(v, np.ndarray) and v.dtype == np.int32 else v


def _truth(v: object) -> object:
    if isinstance(v, np.ndarray) and v.dtype != np.bool_:
        return v != 0
    return v


@dataclass(frozen=True)
class Event:
    """A parsed event.

    Attributes
    ----------
    label : str
        The event's name (``"clean win"``), or its text when unnamed.
    text : str
        The condition as written (``"A | B"`` for a conditional event).
    stats : tuple of str
        Statistics the event reads, in order of first use (condition and given).
    """

    label: str
    text: str
    stats: tuple[str, ...]
    _cond: ast.AST
    _given: ast.AST | None

    @property
    def conditional(self) -> bool:
        """True for ``"A | B"`` (P(A given B))."""
        return self._given is not None

    def masks(self, cols: Mapping[str, np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray | None]:
        """``(A and B, B)`` as boolean arrays of length ``n`` over the trials (or values)
        whose statistics are ``cols[name]`` (integer arrays of length ``n``); ``B`` is None
        for an unconditional event."""
        a = np.broadcast_to(_truth(_evaluate(self._cond, cols)), (n,))
        if self._given is None:
            return a, None
        b = np.broadcast_to(_truth(_evaluate(self._given, cols)), (n,))
        return a & b, b


def parse_event(text: str, stat_names: Sequence[str]) -> Event:
    """Read one event (see the module docstring) against the statistics ``stat_names``.

    Raises
    ------
    EventError
        Naming the event and the problem (an unknown statistic gets a did-you-mean).
    """
    if not isinstance(text, str):
        raise EventError(f"event {text!r}: expected text such as 'models_slain >= 5'")
    label, body = None, text
    where = f"event '{text.strip()}'"
    m = _NAMED.match(text)
    if m:
        label, body = m.group(1).strip(), m.group(2)
        if label in stat_names:  # "models_slain = 5" is a typo for ==, not a name
            raise EventError(
                f"{where}: '=' names an event and '{label}' is a statistic; to compare, "
                f"write '{label} == {body.strip()}'"
            )
    cond_text, given_text = _split_given(body, where)
    cond, used = _parse_condition(cond_text, stat_names, where)
    given, used_b = None, []
    if given_text is not None:
        given, used_b = _parse_condition(given_text, stat_names, where + " (after '|')")
    stats = tuple(dict.fromkeys([*used, *used_b]))
    clean = " ".join(body.split())
    return Event(label or clean, clean, stats, cond, given)


def parse_events(texts: Iterable[str], stat_names: Sequence[str]) -> list[Event]:
    """Every event of ``texts``; two events with one label is an error naming it."""
    events: list[Event] = []
    seen: dict[str, str] = {}
    for t in texts:
        e = parse_event(t, stat_names)
        if e.label in seen:
            raise EventError(
                f"two events are called '{e.label}' ('{seen[e.label]}' and '{t.strip()}')"
            )
        seen[e.label] = t.strip()
        events.append(e)
    return events


def statistics_section(scenario: object) -> dict[str, dict[str, str]]:
    """``{STATISTICS_SECTION: {name: plain-words label}}`` of a scenario's statistics (what
    ``--stat``, ``--event`` and ``--joint`` take), for ``oddslab show``."""
    stats = scenario.compile().stats  # type: ignore[attr-defined]
    return {STATISTICS_SECTION: {s.name: s.title for s in stats}}
