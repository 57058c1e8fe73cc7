"""Axis labels that never overlap and are never alike (heatmaps, category axes, bars).

A name wraps onto lines of :data:`WRAP` characters, breaking only at spaces and after
``. : - _ /`` (never inside a word; a single word wider than a line is cut with "…"), at most
:data:`MAX_LINES` lines; a longer name is cut, keeping its start and its last word. Names
whose cut labels would be one keep the part where they differ, the common start and end
written "…"; when that is still not told apart or too long, they are named by the axis's
letter and their position ("A1", "T3"). Every label that is not the whole name is written in
full in a footnote ("label = full name"). See docs/analysis.md, "How plots keep labels
apart".
"""

from __future__ import annotations

import re

__all__ = ["WRAP", "MAX_LINES", "wrap_label", "distinct_labels", "axis_tag", "one_line",
           "cut_names"]  # fmt: skip

#: Characters per line of a wrapped axis label.
WRAP = 18
#: Lines of a wrapped axis label; a longer name is cut with "…" (its full text goes in a
#: footnote under the plot).
MAX_LINES = 3
#: A label breaks onto a new line at a space or after one of these characters, never inside
#: a word ("armoured_" / "infantry", "dup." / "to").
_BREAK_AFTER = ".:-_/"
_PIECE = re.compile(r"[^.:\-_/]*[.:\-_/]+|[^.:\-_/]+")  # a piece ends after one of them


def _pieces(text: str) -> list[str]:
    """``text`` in the pieces a line may start with: its words, split after ``. : - _ /``
    ("armoured_infantry" → "armoured_", "infantry"), but never inside a library's file name
    ("generic.toml:" stays one piece); a piece after a space starts with one."""
    out: list[str] = []
    for m in re.finditer(r"(\s*)(\S+)", text):
        space, word = m.groups()
        parts = _PIECE.findall(word)
        for i in range(len(parts) - 1, 0, -1):  # a library's file name stays whole:
            if parts[i - 1].endswith(".") and parts[i].startswith("toml"):  # "generic.toml:"
                parts[i - 1 : i + 1] = [parts[i - 1] + parts[i]]
        out += [(" " if space and out else "") + parts[0], *parts[1:]]
    return out


def _lines(text: str) -> tuple[list[str], bool]:
    """``text`` on lines of at most :data:`WRAP` characters, broken only at spaces and after
    ``. : - _ /``; a single piece wider than that is cut with "…" (True when one was)."""
    lines: list[str] = []
    cut = False
    for piece in _pieces(text):
        if lines and len(lines[-1]) + len(piece) <= WRAP:
            lines[-1] += piece
            continue
        piece = piece.lstrip()
        if len(piece) > WRAP:
            piece, cut = piece[: WRAP - 1] + "…", True
        lines.append(piece)
    return lines, cut


def wrap_label(label: str) -> tuple[str, bool]:
    """``label`` on lines of :data:`WRAP` characters, at most :data:`MAX_LINES`; True when
    it was cut. A cut name keeps its beginning and its last word ("Very long name of a … team
    19"): names in a list often differ only at the end; a name of one word keeps its last
    piece ("generic.toml:very_long_… forever")."""
    text = str(label)
    lines, cut = _lines(text)
    if len(lines) <= MAX_LINES:
        return "\n".join(lines) or text, cut
    pieces = _pieces(text)
    words = text.split()
    tail = words[-1] if len(words) > 1 else pieces[-1]
    head = pieces[: -len(_pieces(tail))]
    while head:
        head.pop()
        lines, _ = _lines("".join([*head, " … ", tail]))
        if len(lines) <= MAX_LINES:
            return "\n".join(lines), True
    return "\n".join(_lines(f"… {tail}")[0][:MAX_LINES]), True


def _elide(group: list[list[str]]) -> list[str] | None:
    """Labels for names (as :func:`_pieces`) whose cut labels are one: each keeps the part
    where it differs from the others, the common start and end written "…" ("Extremely
    long-named … rifles 01"), on at most :data:`MAX_LINES` lines uncut; None when no such
    labels are told apart."""
    p = 0
    while all(len(g) > p and g[p] == group[0][p] for g in group):
        p += 1
    s = 0
    while all(len(g) > p + s and g[-1 - s] == group[0][-1 - s] for g in group):
        s += 1
    out = []
    for g in group:
        diff = "".join(g[p : len(g) - s]).strip()
        if not diff:
            return None
        for k in range(p, -1, -1):  # as much of the common start as fits, at least "…"
            head = "".join(g[:k]).strip()
            text = " ".join(x for x in (head, "…" if k < p else "", diff) if x)
            text += " …" if s else ""
            lines, cut = _lines(text)
            if len(lines) <= MAX_LINES and not cut:
                out.append("\n".join(lines))
                break
        else:
            return None
    return out if len(set(out)) == len(out) else None


def distinct_labels(names: list[str], tag: str) -> list[tuple[str, bool]]:
    """A label for each name, wrapped and cut as :func:`wrap_label` does, and never two alike:
    names whose labels would be one keep the part where they differ (:func:`_elide`); when
    that is not enough, they are named by ``tag`` and their position ("A1", "A2", ...: the
    footnote gives them in full). True where the label is not the whole name."""
    out = [wrap_label(n) for n in names]
    for _ in range(2):
        seen: dict[str, list[int]] = {}
        for i, (text, _cut) in enumerate(out):
            seen.setdefault(text, []).append(i)
        clashes = [ix for ix in seen.values() if len(ix) > 1]
        if not clashes:
            return out
        for ix in clashes:
            labels = _elide([_pieces(str(names[i])) for i in ix])
            for n, i in enumerate(ix):
                out[i] = (labels[n], True) if labels else (f"{tag}{i + 1}", True)
    texts = [t for t, _ in out]  # an elided label met another one: number them all
    return [(t, c) if texts.count(t) == 1 else (f"{tag}{i + 1}", True)
            for i, (t, c) in enumerate(out)]  # fmt: skip


def axis_tag(axis_label: str, default: str) -> str:
    """The letter index labels of an axis start with: its label's first ("attacker" → "A")."""
    word = axis_label.strip()[:1].upper()
    return word if word.isalpha() else default


def one_line(label: str) -> str:
    """A wrapped label on one line again (a line broken after "_" joins without a space)."""
    return re.sub(rf"(?<=[{re.escape(_BREAK_AFTER)}])\n", "", label).replace("\n", " ")


def cut_names(names: list[str], labels: list[tuple[str, bool]]) -> list[str]:
    """The footnote's lines "label = full name" for the labels that are not the whole name,
    each once."""
    lines = [f"{one_line(t)} = {n}" for n, (t, cut) in zip(names, labels, strict=True) if cut]
    return list(dict.fromkeys(lines))
