"""The written form of a metric: whether ``P(...)`` holds a condition written inline, and
what is wrong with a ``P(...)`` or ``mean(...)`` that is malformed (read by
:func:`oddslab.analysis.metrics.parse_metric` before any cell runs).
"""

from __future__ import annotations

import ast
import re

__all__ = ["is_condition", "malformed"]


#: An ASCII comparison (or a misspelt one) at the top level of ``P(...)``.
_OPERATOR = re.compile(r"=>|=<|>=|<=|==|!=|[<>=!]")


def malformed(text: str) -> str:
    """Why ``text`` is not a metric when it is a ``P(...)`` or ``mean(...)`` gone wrong (a
    bracket without its pair, text after the closing bracket, nothing inside, a comparison
    with a side missing or misspelt), else ``""``. Positions count characters of ``text`` from 1.

    A headline label may hold brackets and even ``=`` inside its own brackets ("P(artillery
    mission failed (1D6 = 1))"), so only comparisons outside inner brackets are read.
    """
    depth, opened, close = 0, [], -1
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
            opened.append(i)
        elif ch == ")":
            if depth == 0:
                return f"')' at character {i + 1} has no '('"
            depth -= 1
            opened.pop()
            if depth == 0 and close < 0:
                close = i
    if opened:
        return f"'(' at character {opened[-1] + 1} has no ')'"
    head = text[: text.find("(")].strip().lower() if "(" in text else ""
    if close < 0 or head not in ("p", "mean"):
        return ""
    rest = text[close + 1 :].strip()
    if rest:
        return f"'{rest}' after the ')' at character {close + 1}: give one metric"
    inner = text[text.find("(") + 1 : close].strip()
    if not inner:
        what = "mean" if head == "mean" else "P"
        return f"nothing inside {what}(): name a statistic or a condition"
    if head == "mean":
        return (
            "mean(...) takes one statistic name, e.g. mean(models_slain) "
            "(a condition goes in P(...))"
        )
    top = re.sub(r"\([^()]*\)", "", inner)  # a label's own brackets (one level) are words
    ops = list(_OPERATOR.finditer(top))
    if not ops or is_condition(inner):
        return ""
    first, last = ops[0], ops[-1]
    if not top[last.end() :].strip():
        return f"a number is missing after {last.group()}"
    if not top[: first.start()].strip():
        return f"a statistic is missing before {first.group()}"
    bad = next((o.group() for o in ops if o.group() in ("=>", "=<", "!")), None)
    if bad:
        return f"'{bad}' is not a comparison (use >=, >, <=, <, ==, =, !=)"
    return ""  # words around a comparison may be a headline's label: resolved per cell


def is_condition(text: str) -> bool:
    """Whether ``P(text)`` is an event written inline (``a >= 1 and b == 0``, ``a | b``)
    rather than a headline label in words or a bare statistic name: it reads as an
    expression with an operator."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False
    return not isinstance(tree, ast.Name | ast.Constant)
