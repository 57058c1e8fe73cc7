"""Boxed tables for the command line, drawn directly when they fit, by rich otherwise.

rich's ``Table`` measures and renders every cell as a renderable: a per-trial statistics
table of 318 rows (a six-turn formation-actions game) took 0.27 s to print, a quarter of the
run. :func:`print_table` draws the same table itself (rich's default look: heavy head box,
one space of padding, the title above on the left, in the console's ``table.title`` and
``table.header`` styles) when every column fits the console at its natural width, and hands
the table to rich otherwise (narrow terminals: rich then shrinks and wraps columns). The
output is the same characters either way (``tests/test_tables.py`` compares the two on
every shipped example at several widths).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["print_table"]

# rich.box.HEAVY_HEAD, the default box of rich.table.Table
_TOP = ("┏", "━", "┳", "┓")
_HEAD = ("┃", "┃", "┃")
_HEAD_RULE = ("┡", "━", "╇", "┩")
_ROW = ("│", "│", "│")
_BOTTOM = ("└", "─", "┴", "┘")


def print_table(
    con,
    title: str,
    columns: Sequence[tuple[str, str]],
    rows: Sequence[Sequence[str]],
    *,
    min_width: int = 0,
) -> None:
    """Print a table of plain-text cells on the rich console ``con``.

    Parameters
    ----------
    con : rich.console.Console
    title : str
        Plain text (no rich markup), printed above the table on the left.
    columns : sequence of (header, justify)
        ``justify`` is ``"left"`` or ``"right"``; it applies to the header too.
    rows : sequence of sequences of str
        Plain-text cells, one per column, without newlines.
    min_width : int
        The table's least width in characters (rich's ``Table(min_width=...)``).
    """
    from rich.cells import cell_len

    widths = _layout(con.width, columns, rows)
    total = None if widths is None else sum(widths) + len(widths) + 1
    if total is None or total < min_width or cell_len(title) > total:
        _with_rich(con, title, columns, rows, min_width)
        return
    _draw(con, title, columns, rows, widths, total)


def _layout(width: int, columns, rows) -> list[int] | None:
    """Each column's width, padding included, as ``rich.table.Table`` sizes it in a console
    ``width`` characters wide; None when rich would have to do more than shrink the widest
    columns and wrap their text (then rich draws the table)."""
    from rich.cells import cell_len
    from rich.table import Table

    if any("\n" in c for row in rows for c in row):
        return None
    natural = [cell_len(h) + 2 for h, _ in columns]  # " cell ": one space each side
    for row in rows:
        for i, cell in enumerate(row):
            n = cell_len(cell) + 2
            if n > natural[i]:
                natural[i] = n
    room = width - len(natural) - 1  # the vertical rules
    if sum(natural) <= room:
        return natural
    # rich's own steps: shrink the widest columns towards the next widest, then all evenly
    from rich._ratio import ratio_reduce

    widths = [min(n, room) for n in natural]  # rich measures within the room there is
    widths = Table._collapse_widths(widths, [True] * len(widths), room)
    if sum(widths) > room:
        widths = ratio_reduce(sum(widths) - room, [1] * len(widths), widths, widths)
    widths = [min(n, w) for n, w in zip(natural, widths, strict=True)]  # rich re-measures
    return widths if min(widths) >= 3 else None


def _draw(con, title, columns, rows, widths, total) -> None:
    from rich.cells import cell_len
    from rich.text import Text

    def lines(cell: str, w: int, justify: str) -> list[str]:
        """The cell's text in a column ``w`` wide (padding included), line by line."""
        inner = w - 2
        gap = inner - cell_len(cell)
        if gap >= 0:
            return [" " * gap + cell if justify == "right" else cell + " " * gap]
        wrapped = Text(cell).wrap(con, inner, justify=justify, overflow="ellipsis")
        return [line.plain for line in wrapped]

    def rule(left: str, bar: str, mid: str, right: str) -> str:
        return left + mid.join(bar * w for w in widths) + right

    def block(row, header: bool = False) -> list[list[str]]:
        """The row as printed lines, each a list of padded cells; as in rich, a short cell
        sits at the top of a body row and at the bottom of the header row."""
        cells = [lines(c, w, j) for c, w, (_, j) in zip(row, widths, columns, strict=True)]
        height = max(len(c) for c in cells)
        out = []
        for k in range(height):
            parts = []
            for c, w in zip(cells, widths, strict=True):
                i = k - (height - len(c)) if header else k
                parts.append(f" {c[i]} " if 0 <= i < len(c) else " " * w)
            out.append(parts)
        return out

    text = Text(no_wrap=True, end="")
    if title:
        text.append(title + " " * (total - cell_len(title)), style="table.title")
        text.append("\n")
    text.append(rule(*_TOP) + "\n")
    for parts in block([h for h, _ in columns], header=True):  # bold cells between plain rules
        text.append(_HEAD[0])
        for i, part in enumerate(parts):
            text.append(part, style="table.header")
            text.append(_HEAD[1] if i < len(parts) - 1 else _HEAD[2])
        text.append("\n")
    text.append(rule(*_HEAD_RULE) + "\n")
    body = [_ROW[0] + _ROW[1].join(parts) + _ROW[2] for row in rows for parts in block(row)]
    text.append("\n".join(body))
    if body:
        text.append("\n")
    text.append(rule(*_BOTTOM))
    con.print(text, soft_wrap=True)


def _with_rich(con, title, columns, rows, min_width) -> None:
    from rich.markup import escape
    from rich.table import Table

    t = Table(
        title=escape(title) if title else None, title_justify="left", min_width=min_width or None
    )
    for header, justify in columns:
        t.add_column(escape(header), justify=justify)
    for row in rows:
        t.add_row(*(escape(c) for c in row))
    con.print(t)
