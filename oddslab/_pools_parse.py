"""The text grammar of ``oddslab roll`` (see ``docs/dice-pools.md``); re-exported as
:func:`oddslab.pools.parse_roll`."""

from __future__ import annotations

import re

from oddslab._pools_model import MAX_FACES, FaceRef, Pool, RollSpec
from oddslab.dice import Die, Face

__all__ = ["parse_roll"]

# -- the text grammar --------------------------------------------------------------------------
_DIE = re.compile(r"^(\d*)d(\d+)([+-]\d+)?$")
_CUSTOM = re.compile(r"^(\d*)d\[([^\]]*)\]([+-]\d+)?$")
_INT = re.compile(r"^\d+$")
_PLUS = re.compile(r"^(\d+)\+$")
_NAME = re.compile(r"^[a-z_][a-z0-9_\-]*$")
_CLAUSES = "explode, reroll, keep, drop, count"
_AFTER = f"{_CLAUSES}, 'vs', '<= N' or '>= N'"


class _Words:
    """Whitespace-separated words with positions, for error messages that point at a word."""

    def __init__(self, text: str) -> None:
        self.text = text
        t = text.strip().lower()
        t = re.sub(r"(<=|>=)", r" \1 ", t)
        t = re.sub(r"\s*,\s*", ",", t)
        t = re.sub(r"\[\s*", "[", t)
        t = re.sub(r"\s*\]", "]", t)
        t = re.sub(r"(d\d+|\])\s*([+-])\s*(\d+)\b", r"\1\2\3", t)  # "3D6 + 2" -> "3d6+2"
        self.words = t.split()
        self.i = 0

    def peek(self) -> str | None:
        return self.words[self.i] if self.i < len(self.words) else None

    def next(self, expected: str) -> str:
        w = self.peek()
        if w is None:
            raise self.error(expected, at_end=True)
        self.i += 1
        return w

    def error(self, expected: str, at_end: bool = False, word: int | None = None) -> ValueError:
        if at_end:
            return ValueError(f"dice pool '{self.text}': ends too early; expected {expected}")
        i = self.i if word is None else word
        return ValueError(
            f"dice pool '{self.text}': word {i + 1} '{self.words[i]}' is not understood; "
            f"expected {expected}"
        )

    def fail_last(self, expected: str) -> ValueError:
        return self.error(expected, word=self.i - 1)


def _parse_int(w: _Words, expected: str) -> int:
    word = w.next(expected)
    if not _INT.match(word):
        raise w.fail_last(expected)
    return int(word)


def _parse_faces(w: _Words, die: Die, what: str) -> tuple[FaceRef, ...]:
    """``6``, ``5,6``, ``5+`` (every value >= 5) or symbols ``crit,hit``."""
    expected = f"the faces to {what}: a value (6), a list (1,2) or 'N+' (5+)"
    word = w.next(expected)
    m = _PLUS.match(word)
    if m:
        lo = int(m.group(1))
        refs = tuple(
            sorted(
                {
                    v
                    for f, v in zip(die.faces, die.values, strict=True)
                    if f.symbol is None and v >= lo
                }
            )
        )
        if not refs:
            raise w.fail_last(f"{expected}; no face of this die is {lo} or more")
        return refs
    out: list[FaceRef] = []
    for part in word.split(","):
        if _INT.match(part):
            out.append(int(part))
        elif _NAME.match(part) and any(f.symbol == part for f in die.faces):
            out.append(part)
        else:
            raise w.fail_last(expected)
    for r in out:
        if not any(
            (f.symbol == r) if isinstance(r, str) else (f.symbol is None and v == r)
            for f, v in zip(die.faces, die.values, strict=True)
        ):
            shown = ",".join(f.symbol or str(f.value) for f in die.faces)
            raise w.fail_last(f"{expected}; this die has no face {r} (its faces: {shown})")
    return tuple(out)


def _parse_faces_text(text: str, w: _Words, die: Die, what: str) -> tuple[FaceRef, ...]:
    sub = _Words(text)
    sub.text = w.text
    return _parse_faces(sub, die, what)


def _parse_die(w: _Words) -> tuple[int, Die, int]:
    expected = "dice such as 4D6, D10, 3D6+2 or 6d[0,0,1,1,1,2]"
    word = w.next(expected)
    m = _DIE.match(word)
    if m:
        n = int(m.group(1)) if m.group(1) else 1
        sides = int(m.group(2))
        if not 1 <= sides <= MAX_FACES:
            raise w.fail_last(f"a die with 1 to {MAX_FACES} sides")
        return n, Die.numeric(sides), int(m.group(3) or 0)
    m = _CUSTOM.match(word)
    if m:
        n = int(m.group(1)) if m.group(1) else 1
        faces = []
        for part in m.group(2).split(","):
            if _INT.match(part):
                faces.append(Face(int(part)))
            elif _NAME.match(part):
                faces.append(Face(0, part))
            else:
                raise w.fail_last(
                    "custom faces as non-negative numbers or names, e.g. d[0,0,1,1,1,2]"
                )
        return n, Die(tuple(faces)), int(m.group(3) or 0)
    raise w.fail_last(expected)


def _parse_pool(w: _Words) -> Pool:
    start = w.i
    n, die, add = _parse_die(w)
    opts: dict = {"add": add} if add else {}
    seen: set[str] = set()
    while True:
        word = w.peek()
        if word is None or word in ("vs", "<=", ">="):
            break
        w.i += 1
        kind = {"drop": "keep"}.get(word, word)
        if kind in seen:
            raise w.fail_last(f"each of {_CLAUSES} at most once per pool")
        seen.add(kind)
        if word == "explode":
            opts["explode"] = _parse_faces(w, die, "explode")
            nxt = w.peek()
            if nxt == "depth":
                w.i += 1
                opts["explode_depth"] = _parse_int(w, "an explosion depth (a whole number)")
            elif nxt == "unlimited":
                w.i += 1
                opts["explode_depth"] = -1
            elif nxt == "once":
                w.i += 1
                opts["explode_depth"] = 1
        elif word == "reroll":
            nxt = w.peek()
            if nxt == "failed":  # as in scenario files: every die that scores nothing
                w.i += 1
                opts["reroll"] = "failed"
            elif nxt == "ones":
                w.i += 1
                opts["reroll"] = _parse_faces_text("1", w, die, "re-roll")
            else:
                opts["reroll"] = _parse_faces(w, die, "re-roll")
            if w.peek() in ("exploding", "explodes"):
                w.i += 1
                opts["reroll_explodes"] = True
        elif word in ("keep", "drop"):
            k = _parse_int(w, f"how many dice to {word} (a whole number)")
            side = w.peek()
            lowest = False
            if side in ("highest", "lowest"):
                w.i += 1
                lowest = side == "lowest"
            if word == "keep":
                keep, highest = k, not lowest
            else:  # drop k lowest == keep n-k highest (drop defaults to the lowest)
                drop_highest = side == "highest"
                keep, highest = n - k, not drop_highest
                if k >= n:
                    raise w.fail_last(f"fewer dice to drop than the {n} rolled")
            if not 1 <= keep <= n:
                raise w.error(
                    f"a number of dice to keep from 1 to {n}",
                    word=w.i - 1 - (side in ("highest", "lowest")),
                )
            opts["keep"] = keep
            opts["keep_highest"] = highest
        elif word == "count":
            nxt = w.peek()
            m = _PLUS.match(nxt or "")
            if m:
                w.i += 1
                opts["count_at_least"] = int(m.group(1))
                if w.peek() == "mod":
                    w.i += 1
                    word_mod = w.next("a modifier such as -1 or +2")
                    if not re.fullmatch(r"[+-]?\d+", word_mod):
                        raise w.fail_last("a modifier such as -1 or +2")
                    opts["modifier"] = int(word_mod)
                if w.peek() == "natural":
                    w.i += 1
                    if w.next("'on' or 'off' after 'natural'") not in ("on", "off"):
                        raise w.fail_last("'on' or 'off' after 'natural'")
                    opts["natural_rules"] = w.words[w.i - 1] == "on"
            else:
                opts["count"] = _parse_faces(w, die, "count")
        else:
            raise w.fail_last(_AFTER)
    try:
        if opts.get("reroll") == "failed":
            scoring = Pool(n=n, die=die, **{**opts, "reroll": ()})
            if not scoring.counts_successes:
                raise ValueError(
                    "'reroll failed' needs a count (count 4+ or count FACES) to say what fails"
                )
            opts["reroll"] = tuple(
                dict.fromkeys(
                    f.symbol if f.symbol is not None else f.value
                    for f, sc in zip(die.faces, scoring.face_score, strict=True)
                    if sc == 0
                )
            )
            if not opts["reroll"]:
                raise ValueError("'reroll failed': no face of this die fails the count")
        return Pool(n=n, die=die, **opts)
    except ValueError as exc:
        pool_text = " ".join(w.words[start : w.i])
        raise ValueError(f"dice pool '{w.text}': '{pool_text}': {exc}") from None


def parse_roll(text: str) -> RollSpec:
    """Parse the ``oddslab roll`` grammar (see ``docs/dice-pools.md``).

    ``roll := pool ["vs" pool] [("<=" | ">=") N]``; a pool is dice (``4D6``, ``D10``,
    ``6d[0,0,1,1,1,2]``) followed by any of ``explode F [depth N | once | unlimited]``,
    ``reroll F [exploding]``, ``keep N [highest|lowest]``, ``drop N [lowest|highest]``,
    ``count N+`` / ``count F``; faces ``F`` are ``6``, ``1,2`` or ``5+``. Case-insensitive.

    Examples
    --------
    >>> parse_roll("10D6 count 4+ reroll 1").pool.reroll
    (1,)
    >>> parse_roll("4D6 drop 1 lowest").pool.keep
    3

    Raises
    ------
    ValueError
        Naming the word that is wrong and what was expected there.
    """
    w = _Words(text)
    if not w.words:
        raise ValueError("empty dice pool; expected something like '4D6 explode 6'")
    pool = _parse_pool(w)
    vs = None
    test = None
    if w.peek() == "vs":
        w.i += 1
        vs = _parse_pool(w)
    if w.peek() in ("<=", ">="):
        op = w.next("")
        target = _parse_int(w, f"a whole-number target after '{op}'")
        test = (op, target)
    if w.peek() is not None:
        raise w.error("the end of the expression" if test else _AFTER)
    return RollSpec(pool=pool, vs=vs, test=test, name=" ".join(text.split()))
