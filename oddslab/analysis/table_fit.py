"""Tables of a study's results that fit the terminal (``sweep``, ``matchup``, ``points ...``,
``store info``, ``library``): the one place they are laid out for the command line.

The rules, in order of what matters:

- a number is never wrapped, shortened or cut (a number column is at least as wide as its
  widest value; so is a column of ``value ± se`` texts);
- the answer columns (:data:`ANSWERS`) and the first column are never left out;
- a column that says the same thing on every row (``metric``, ``trials``) is said once, in
  the title;
- identifiers (varied keys, entries ``lib.toml:key``, statistics) are printed as typed,
  underscores kept, so they can be copied back into ``--vary`` or a spec; only a table's own
  snake_case column names read as words (``per_100_points`` → ``per 100 points``);
- when every column fits the terminal at its full width, nothing wraps; otherwise text (labels,
  headers) wraps at word and segment boundaries (spaces, and after ``.`` ``:`` ``-`` ``_``
  ``/`` ``,``: ``attacker.weapons.0.`` / ``damage``), never inside a word nor a number
  (``3.09e-08``); a prose column (:data:`_PROSE`: notes) wraps at spaces only; a single word
  wider than its column ends in ``…``; the room goes first to the cells (a header wraps once,
  a cell on every row), the columns that need least to show whole first (a water-fill), so
  short labels stay on one line, then to the headers;
- when even that does not fit: an id column's label column (``attacker_label`` beside
  ``attacker``: derivable from the id) is left out before an id takes more than 2 lines;
  labels are shortened (``…``), then the columns of :data:`DROP_FIRST` are left out (seeds,
  trial counts, intervals, standard errors), then labels are shortened further, then ids may
  take more lines, then other columns are left out from the right (the caller says which in a
  note).

Only rich and pandas are imported, inside the functions.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["fitted_table", "wrap_text", "DROP_FIRST", "ANSWERS"]

#: Columns left out first when a table does not fit the terminal (in this order).
DROP_FIRST = (
    "seed",
    "trials",
    "ci_high",
    "ci_low",
    "per_model_ci_high",
    "per_model_ci_low",
    "candidate_se",
    "reference_se",
    "per_100_points_se",
    "se",
    "points",
)
#: Columns left out with another (an interval's two ends, both sides' errors).
_TOGETHER = {"ci_high": "ci_low", "per_model_ci_high": "per_model_ci_low",
             "candidate_se": "reference_se"}  # fmt: skip
#: Columns that are the answer of a table: never left out, never moved into the title.
ANSWERS = frozenset(
    {"value", "per_100_points", "fair_points", "candidate_value", "reference_value", "note"}
)
#: Number columns that may move into the title when one value fills them (the others are
#: results: a sweep whose value does not change shows it on every row).
_META_NUMBERS = frozenset({"trials", "seed", "points", "attacker_points", "reference_points"})
#: Widest a label's word may stay before seeds and errors are left out, then the least.
_WORD_CAPS = (12, 6)
_BREAKS = ".:-_/,;"
#: Columns of sentences: wrapped at spaces only.
_PROSE = frozenset({"note"})
_NUM = r"[-+−]?(?:\d[\d,]*(?:\.\d*)?(?:e[-+]?\d+)?%?|nan|inf)"
_SNAKE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")
_VALUE = re.compile(rf"(?:{_NUM}(?: ± {_NUM})?|—|)")


#: A number inside a word (``3.09e-08``, ``1.2e+05``, ``−0.5``, ``12.5%``): never cut inside.
_NUM_IN_WORD = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?%?", re.IGNORECASE)


def _segments(word: str) -> list[str]:
    """``word`` cut after each break character (``generic.`` ``toml:`` ``line_`` ``troopers``),
    but never inside a number (``3.785``, ``3.09e-08``, ``2026-11-27``) nor after a leading
    sign."""
    inside = {i for m in _NUM_IN_WORD.finditer(word) for i in range(m.start(), m.end() - 1)}
    out, start = [], 0
    for i in range(1, len(word) - 1):
        if (
            word[i] in _BREAKS
            and i not in inside
            and not (word[i - 1].isdigit() and word[i + 1].isdigit())
        ):
            out.append(word[start : i + 1])
            start = i + 1
    out.append(word[start:])
    return out


def _pieces(word: str, width: int) -> list[str]:
    """``word``'s segments for a line ``width`` wide: an entry ``lib.toml:key`` breaks after
    its ``:`` first (``generic.toml:`` / ``flame_team``), and inside a part only when that
    part is wider than the line."""
    from rich.cells import cell_len

    segs = _segments(word)
    if ":" not in word:
        return segs
    parts, cur = [], ""
    for seg in segs:
        cur += seg
        if seg.endswith(":"):
            parts.append(cur)
            cur = ""
    parts += [cur] if cur else []
    return [x for part in parts
            for x in ([part] if cell_len(part) <= width else _segments(part))]  # fmt: skip


def wrap_text(text: str, width: int, prose: bool = False) -> list[str]:
    """``text`` in lines at most ``width`` characters wide, broken only between words or
    (unless ``prose``: then at spaces only) after a segment's break character; a segment
    wider than ``width`` ends in ``…``."""
    from rich.cells import cell_len

    width = max(width, 1)
    lines: list[str] = []
    cur = ""
    for word in text.split():
        for k, seg in enumerate([word] if prose else _pieces(word, width)):
            if cell_len(seg) > width:
                seg = seg[: max(width - 1, 0)] + "…"
            sep = "" if k else " "
            if not cur:
                cur = seg
            elif cell_len(cur) + len(sep) + cell_len(seg) <= width:
                cur += sep + seg
            else:
                lines.append(cur)
                cur = seg
    lines.append(cur)
    return lines


def _longest_segment(text: str, prose: bool = False) -> int:
    from rich.cells import cell_len

    return max(
        (cell_len(s) for w in text.split() for s in ([w] if prose else _segments(w))), default=1
    )


def _two_lines(values: Any) -> int:
    """The narrowest width at which every text of ``values`` (ids) takes at most two lines."""
    from rich.cells import cell_len

    need = 1
    for v in values:
        w = max(need, _longest_segment(v))
        while w < cell_len(v) and len(wrap_text(v, w)) > 2:
            w += 1
        need = max(need, min(w, cell_len(v)))
    return need


def _water_fill(mins: list[int], naturals: list[int], room: int) -> list[int]:
    """Widths between each column's least and natural width that add up to at most
    ``room``: every column gets up to a common level (the largest that fits), the rest
    goes left to right; columns that need little show whole."""

    def at(level: int) -> list[int]:
        return [max(m, min(n, level)) for m, n in zip(mins, naturals, strict=True)]

    lo, hi = 0, max(naturals, default=0)
    while lo < hi:  # the largest level whose widths fit
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if sum(at(mid)) <= room else (lo, mid - 1)
    widths = at(lo)
    spare = room - sum(widths)
    for i, n in enumerate(naturals):
        if spare <= 0:
            break
        extra = min(spare, n - widths[i])
        if extra > 0:
            widths[i] += extra
            spare -= extra
    return widths


def _plain(name: Any, names: frozenset) -> str:
    """A column's header: a table's own snake_case column in plain words (``per_100_points``
    → ``per 100 points``); an identifier (a varied key, a library entry, a statistic: any
    of ``names``, or any name with other characters) exactly as typed, so it can be copied
    back into ``--vary`` or a library spec."""
    text = str(name)
    return text if text in names or not _SNAKE.fullmatch(text) else text.replace("_", " ")


def fitted_table(
    df: Any, title: str, width: int, floats: str = "{:.4g}", names: Any = ()
) -> tuple[Any, list]:
    """``df`` as a rich renderable (the title, then the table) at most ``width`` characters
    wide, laid out by the rules of this module; returns (renderable, names left out).

    Parameters
    ----------
    df : pandas.DataFrame
        The table; float cells are formatted with ``floats``.
    title : str
        Plain text above the table (wrapped like labels); columns of one value are added.
    width : int
        The terminal's width in characters.
    names : iterable of str
        Columns named by an identifier (varied keys, entries): their headers keep their
        underscores (see :func:`_plain`).
    """
    from pandas.api.types import is_bool_dtype, is_numeric_dtype
    from rich.cells import cell_len
    from rich.console import Group
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    names = frozenset(map(str, names))
    text = {c: [floats.format(v) if isinstance(v, float) else str(v) for v in df[c]] for c in df}
    numeric = {c: is_numeric_dtype(df[c]) and not is_bool_dtype(df[c]) for c in df}
    # a column of numbers as text ("2.083 ± 0.03", "—") never wraps either
    whole = {c: numeric[c] or all(_VALUE.fullmatch(v) for v in text[c]) for c in df}
    cols = list(df.columns)

    said: list[str] = []  # columns of one value, said once in the title
    if len(df) >= 2:
        for c in cols[1:]:
            one = set(text[c])
            if len(one) != 1 or c in ANSWERS or (whole[c] and str(c) not in _META_NUMBERS):
                continue
            (value,) = one
            said_already = re.search(rf"(?:^|\s){re.escape(value)}(?:$|[\s,])", title)
            if not said_already and not (c == "trials" and value == "0"):  # 0: exact
                said.append(f"{_plain(c, names)}: {value}")
            cols.remove(c)
    if said:
        extra = ", ".join(said)
        title = f"{title}{', ' if ' — ' in title else ' — '}{extra}" if title else extra

    header = {c: _plain(c, names) for c in cols}

    # measured once per column (a label repeats on many rows): its widest text, its
    # header's longest segment and its cells' longest
    widest = {c: max((cell_len(v) for v in set(text[c])), default=0) for c in cols}
    natural = {c: max(cell_len(header[c]), widest[c]) for c in cols}
    head_word = {c: _longest_segment(header[c]) for c in cols}
    prose = {c: str(c) in _PROSE for c in cols}  # wrapped at spaces only
    cell_word = {c: max((_longest_segment(v, prose[c]) for v in set(text[c])), default=1)
                 for c in cols}  # fmt: skip
    # an id column with its label column (``attacker``, ``attacker_label``): at a narrow
    # width the label (derivable from the id) is left out before an id takes over 2 lines
    labels = [f"{c}_label" for c in cols if f"{c}_label" in cols and not whole[c]]
    two = {c[: -len("_label")]: _two_lines(set(text[c[: -len("_label")]])) for c in labels}

    def least(c, cap: int | None) -> int:
        """The narrowest column ``c`` may get: its widest number, or its longest word
        (``cap`` at most: longer words are shortened)."""
        if whole[c]:
            return max(head_word[c], widest[c])
        word = max(head_word[c], cell_word[c])
        shortest = min(natural[c], word if cap is None else min(word, cap))
        return max(shortest, two[c]) if c in two and ids_whole else shortest

    def fits(shown: list, cap: int | None) -> bool:
        return sum(least(c, cap) + 3 for c in shown) + 1 <= width  # padding 2, a rule 1

    dropped: list[str] = []
    cap: int | None = None
    ids_whole = True  # ids in at most 2 lines
    steps: list[tuple[str, Any]] = [("drop", c) for c in labels]
    steps += [("cap", _WORD_CAPS[0])]
    steps += [("drop", c) for c in DROP_FIRST if c in cols]
    steps += [("cap", k) for k in range(_WORD_CAPS[0] - 1, _WORD_CAPS[1] - 1, -1)]
    steps += [("ids", None)] if two else []
    protected = {cols[0], *ANSWERS} if cols else set()
    steps += [("drop", c) for c in reversed(cols) if c not in protected and c not in DROP_FIRST]
    for what, arg in steps:
        if fits(cols, cap):
            break
        if what == "cap":
            cap = arg
        elif what == "ids":
            ids_whole = False
        else:
            for c in (arg, _TOGETHER.get(arg)):
                if c in cols and c != cols[0]:
                    cols.remove(c)
                    dropped.append(str(c))

    room = max(width - 3 * len(cols) - 1, 0)

    wrapped: dict[tuple[str, int, bool], list[str]] = {}

    def wrap(v: str, w: int, c: Any = None) -> list[str]:
        if cell_len(v) <= w:
            return [v]
        p = c is not None and prose[c]
        if (v, w, p) not in wrapped:
            wrapped[(v, w, p)] = wrap_text(v, w, p)
        return wrapped[(v, w, p)]

    def badness(widths: list[int]) -> int:
        """The lines wrapping adds and, three times over, the words shortened."""
        bad = 0
        for i in range(-1, len(df)):
            cells = [wrap(header[c], w) if i < 0 else wrap(text[c][i], w, c)
                     for c, w in zip(cols, widths, strict=True)]  # fmt: skip
            bad += max((len(x) for x in cells), default=1) - 1
            bad += 3 * sum(any(line.endswith("…") for line in x) for x in cells)
        return bad

    def layout(cap: int | None) -> list[int]:
        """The room goes first to the cells (a header may wrap: once, a cell on every row),
        then to the headers."""
        mins = [least(c, cap) for c in cols]
        cells = [max(m, min(natural[c], max(widest[c], head_word[c])))
                 for m, c in zip(mins, cols, strict=True)]  # fmt: skip
        widths = _water_fill(mins, cells, room)
        return _water_fill(widths, [natural[c] for c in cols], room)

    widths = layout(cap)
    if cap is None and sum(natural[c] for c in cols) > room:
        # a long word (a digest, a path) may squeeze every other column of its table into
        # wrapping: shortening it can be the lesser evil (the fewest lines, a word counting 3)
        tried = dict.fromkeys(tuple(layout(k)) for k in (None, 24, 16, _WORD_CAPS[0]))
        widths = list(min(tried, key=badness))  # the first of equals: the least shortened
    heads = ["\n".join(wrap(header[c], w)) for c, w in zip(cols, widths, strict=True)]
    body = [["\n".join(wrap(text[c][i], w, c)) for c, w in zip(cols, widths, strict=True)]
            for i in range(len(df))]  # fmt: skip
    t = Table(title=None)
    for c, w, h in zip(cols, widths, heads, strict=True):
        justify = "right" if whole[c] else "left"
        t.add_column(escape(h), justify=justify, width=w, no_wrap=True, overflow="ellipsis")
    for row in body:
        t.add_row(*(escape(x) for x in row))
    parts: list[Any] = []
    if title:
        parts.append(Text("\n".join(wrap_text(title, width)), style="table.title"))
    parts.append(t)
    return Group(*parts), dropped
