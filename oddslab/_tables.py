"""Tables for the command line, drawn directly when they fit, by rich otherwise.

rich's ``Table`` measures and renders every cell as a renderable: a per-trial statistics
table of 318 rows (a six-turn formation-actions game) took 0.27 s to print, a quarter of the
run. :func:`print_table` draws the same table itself (rich's default look: heavy head box,
one space of padding, the title above on the left, in the console's ``table.title`` and
``table.header`` styles) when every column fits the console at its natural width, and hands
the table to rich otherwise (narrow terminals: rich then shrinks and wraps columns).
:func:`print_pairs` does the same for the resolved inputs' borderless key/value columns
(218 lines for that game: 0.03 s through rich, 0.002 s drawn). Both wrap long cells with
rich's own line breaking (:func:`_wrap`) and hand the console finished lines as segments
(:class:`_Drawn`), so no ``Text`` is built, split and stripped per line. The output is the
same characters either way (``tests/test_tables.py`` compares the two on every shipped
example at several widths, and the key/value columns' ANSI styles too).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["print_table", "print_pairs"]

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

    texts = [title, *(h for h, _ in columns), *(c for row in rows for c in row)]
    widths = (
        None if any(t and not t.isprintable() for t in texts) else _layout(con.width, columns, rows)
    )
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
        wrapped = _wrap(cell, inner, justify)
        if wrapped is None:  # a word wider than the column: rich crops it
            wrapped = [
                line.plain
                for line in Text(cell).wrap(con, inner, justify=justify, overflow="ellipsis")
            ]
        return wrapped

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

    out: list[list[tuple[str, str | None]]] = []
    if title:
        out.append([(title + " " * (total - cell_len(title)), "table.title")])
    out.append([(rule(*_TOP), None)])
    for parts in block([h for h, _ in columns], header=True):  # bold cells between plain rules
        line: list[tuple[str, str | None]] = [(_HEAD[0], None)]
        for i, part in enumerate(parts):
            line.append((part, "table.header"))
            line.append((_HEAD[1] if i < len(parts) - 1 else _HEAD[2], None))
        out.append(line)
    out.append([(rule(*_HEAD_RULE), None)])
    out += [
        [(_ROW[0] + _ROW[1].join(parts) + _ROW[2], None)] for row in rows for parts in block(row)
    ]
    out.append([(rule(*_BOTTOM), None)])
    con.print(_Drawn(out), crop=False)


class _Drawn:
    """Lines of ``(text, style name or None)`` pieces for ``Console.print``: rendered as
    rich segments directly, with no ``Text`` to build, split and strip line by line (which
    took half the time of printing a 318-row table). The text must be printable."""

    def __init__(self, lines: list[list[tuple[str, str | None]]]) -> None:
        self.lines = lines

    def __rich_console__(self, console, options):
        from rich.segment import Segment

        styles: dict[str, object] = {}
        for line in self.lines:
            for text, name in line:
                if name is None:
                    yield Segment(text)
                else:
                    if name not in styles:
                        styles[name] = console.get_style(name)
                    yield Segment(text, styles[name])
            yield Segment.line()


def print_pairs(con, title: str, rows: Sequence[tuple[str, str, bool]]) -> None:
    """Print ``(key, value, heading)`` rows as two borderless columns under ``title``: keys
    (dim; bold too for a heading) never wrap, values wrap in the width left.

    The layout of ``rich.table.Table(box=None, show_header=False, pad_edge=False)`` with a
    ``no_wrap`` key column, drawn directly; rich draws it when a value has a word too wide
    for its column, the title is wider than the table, or text is not plain printable.
    """
    from rich.cells import cell_len

    def fallback() -> None:
        _pairs_with_rich(con, title, rows)

    texts = [title, *(k for k, _, _ in rows), *(v for _, v, _ in rows)]
    if not rows or any(t and not t.isprintable() for t in texts):
        fallback()
        return
    kw = max(cell_len(k) for k, _, _ in rows)
    vw = max(cell_len(v) for _, v, _ in rows)
    # one space between the columns on each side (no padding at the table's edges); rich
    # narrows only the value column when the table is wider than the console
    vw = min(vw, con.width - kw - 2)
    total = kw + vw + 2
    if vw < 1 or cell_len(title) > total:
        fallback()
        return
    out: list[list[tuple[str, str | None]]] = []
    if title:
        out.append([(title + " " * (total - cell_len(title)), "table.title")])
    blank = " " * (kw + 1)
    for key, value, heading in rows:
        lines = _wrap(value, vw, "left")
        if lines is None:
            fallback()
            return
        # the key column is dim; rich pads a heading's bold key with dim spaces, then adds
        # the column's padding as a piece of its own (the same ANSI codes as rich's Table)
        fill = " " * (kw - cell_len(key))
        if heading and fill:
            line = [(key, "dim bold"), (fill, "dim")]
        else:
            line = [(key + fill, "dim bold" if heading else "dim")]
        out.append([*line, (" ", "dim"), (" " + lines[0], None)])
        out += [[(blank, "dim"), (" " + line, None)] for line in lines[1:]]
    con.print(_Drawn(out), crop=False)


def _pairs_with_rich(con, title: str, rows: Sequence[tuple[str, str, bool]]) -> None:
    from rich.markup import escape
    from rich.table import Table

    t = Table(
        title=escape(title) if title else None,
        title_justify="left",
        show_header=False,
        box=None,
        pad_edge=False,
    )
    t.add_column("key", style="dim", no_wrap=True)
    t.add_column("value")
    for key, value, heading in rows:
        t.add_row(f"[bold]{escape(key)}[/bold]" if heading else escape(key), escape(value))
    con.print(t)


def _wrap(text: str, width: int, justify: str) -> list[str] | None:
    """``text`` (one line, plain) word-wrapped into lines of exactly ``width`` cells, as
    ``rich.text.Text.wrap`` lays it out (``"left"`` or ``"right"``, overflow ``"ellipsis"``);
    None when a line would need cropping (a word wider than ``width``): then ask rich.

    The same breaks (rich's own ``divide_line``) and the same trimming and padding, without
    building a ``Text`` per cell: a 318-row table wraps every label.
    """
    from rich._wrap import divide_line
    from rich.cells import cell_len

    if width < 1 or not text.isprintable():
        return None
    cuts = divide_line(text, width, fold=False)
    out = []
    for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True):
        line = text[a:b]
        excess = len(line) - width  # rich trims trailing blanks past the width (in characters)
        if excess > 0:
            blanks = len(line) - len(line.rstrip())
            line = line[: len(line) - min(blanks, excess)]
        if justify == "right":
            line = line.rstrip()
        n = cell_len(line)
        if n > width:
            return None
        out.append(" " * (width - n) + line if justify == "right" else line + " " * (width - n))
    return out


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
