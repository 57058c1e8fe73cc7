"""Dice pools: exploding dice, a re-roll tier, keep/drop, success counting, opposed rolls, tests.

A :class:`Pool` is ``n`` dice of one :class:`~oddslab.dice.Die` with its options; a
:class:`RollSpec` is a pool, optionally opposed by a second pool (``vs``) and optionally tested
against a target (``<= T`` / ``>= T``). ``RollSpec.compile()`` gives an engine
:class:`~oddslab.engine.Job` (Monte Carlo kernel :func:`oddslab._kernels.pools.run_pools`,
exact form from :func:`oddslab.exact.pool_pmf`), so both ``oddslab.simulate(spec)`` and
``oddslab.exact(spec)`` work. :func:`parse_roll` reads the text grammar of ``oddslab roll``
documented in ``docs/dice-pools.md``.

Order of steps in a pool: roll → explosions → re-rolls → keep/drop → score sum. See
:mod:`oddslab._kernels.pools` for the exact semantics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from oddslab.dice import Die, Face
from oddslab.engine import Job
from oddslab.exact import (
    EXPLODE_CAP,
    MAX_TOTAL,
    opposed_probs,
    pool_max,
    pool_pmf,
    threshold_prob,
)
from oddslab.outcome import Headline, Stat

__all__ = ["Pool", "RollSpec", "parse_roll", "MAX_DICE"]

#: Most original dice in one pool.
MAX_DICE = 200
#: Most faces on one die.
MAX_FACES = 1000

FaceRef = int | str  # a face value, or a symbol on a symbol die
TestOp = Literal["<=", ">="]


def _d6() -> Die:
    return Die.numeric(6)


def _ref_text(refs: tuple[FaceRef, ...]) -> str:
    return ",".join(str(r) for r in refs)


@dataclass(frozen=True)
class Pool:
    """``n`` dice of ``die`` with explosions, one re-roll tier, keep/drop and a scoring rule.

    Faces are named by their value (``6``) or, on a symbol die, by their symbol
    (``"crit"``); a name matches every face that shows it.

    Parameters
    ----------
    n : int
        Original dice, 1..:data:`MAX_DICE`.
    die : Die
        Equally likely faces (default d6). Numeric values must be non-negative.
    explode : tuple of face values/symbols
        A die whose initial roll shows one of these adds one die.
    explode_depth : int
        Levels of explosion: 1 (default) = only the original dice explode, N levels,
        -1 = unlimited (capped at 100 levels). Ignored when ``explode`` is empty.
    reroll : tuple of face values/symbols
        Dice showing these are re-rolled once (the second result stands).
    reroll_explodes : bool
        Whether a re-rolled result can explode (default False).
    keep : int
        Keep this many chains (0 = all); ``keep_highest`` picks highest or lowest.
    count_at_least : int, optional
        Score 1 per die whose value is >= this (a success count) instead of summing values.
    count : tuple of face values/symbols
        Score 1 per die showing one of these (a success/symbol count).
    modifier : int
        Added to each die's value before it is compared with ``count_at_least``.
    natural_rules : bool
        With ``count_at_least``: a natural 1 always fails and the die's highest face always
        succeeds, whatever the modifier (default True, the usual d6 convention).
    """

    n: int
    die: Die = field(default_factory=_d6)
    explode: tuple[FaceRef, ...] = ()
    explode_depth: int = 1
    reroll: tuple[FaceRef, ...] = ()
    reroll_explodes: bool = False
    keep: int = 0
    keep_highest: bool = True
    count_at_least: int | None = None
    count: tuple[FaceRef, ...] = ()
    modifier: int = 0
    natural_rules: bool = True

    def __post_init__(self) -> None:
        if self.modifier and self.count_at_least is None:
            raise ValueError("a modifier needs a threshold to modify ('count N+ mod K')")
        if not 1 <= self.n <= MAX_DICE:
            raise ValueError(f"a pool needs 1 to {MAX_DICE} dice, got {self.n}")
        if not 1 <= self.die.size <= MAX_FACES:
            raise ValueError(f"a die needs 1 to {MAX_FACES} faces, got {self.die.size}")
        if not -1 <= self.explode_depth <= EXPLODE_CAP:
            raise ValueError(
                f"explode depth must be -1 (unlimited) or 0..{EXPLODE_CAP}, got {self.explode_depth}"
            )
        if not 0 <= self.keep <= self.n:
            raise ValueError(f"cannot keep {self.keep} of {self.n} dice")
        if self.count_at_least is not None and self.count:
            raise ValueError("count either faces at least a value or listed faces, not both")
        for what, refs in (
            ("explode", self.explode),
            ("reroll", self.reroll),
            ("count", self.count),
        ):
            for r in refs:
                if not self._mask((r,)).any():
                    raise ValueError(f"{what} {r}: no face of this die shows {r!r}")
        scored = self.count_at_least is not None or self.count
        if not scored:
            if any(f.symbol is not None for f in self.die.faces) and all(
                v == 0 for v in self.die.values
            ):
                raise ValueError("a symbol die needs 'count SYMBOL,...' to say what is scored")
            if min(self.die.values) < 0:
                raise ValueError("face values must be non-negative")
        top = self.max_total()
        if top > MAX_TOTAL:
            raise ValueError(
                f"this pool can total up to {top}, above the limit of {MAX_TOTAL}; "
                "use fewer dice or a lower explosion depth"
            )

    # -- arrays for kernels and exact code ----------------------------------------------------
    def _mask(self, refs: tuple[FaceRef, ...]) -> np.ndarray:
        out = np.zeros(self.die.size, dtype=np.uint8)
        for i, f in enumerate(self.die.faces):
            for r in refs:
                if (isinstance(r, str) and f.symbol == r) or (
                    not isinstance(r, str) and f.symbol is None and f.value == r
                ):
                    out[i] = 1
        return out

    @property
    def face_score(self) -> np.ndarray:
        """int64[k]: what each face scores (its value, or 0/1 for a success count)."""
        values = np.array(self.die.values, dtype=np.int64)
        if self.count_at_least is not None:
            ok = values + self.modifier >= self.count_at_least
            if self.natural_rules:
                ok = (ok & (values != 1)) | (values == values.max())
            return ok.astype(np.int64)
        if self.count:
            return self._mask(self.count).astype(np.int64)
        return values

    @property
    def depth(self) -> int:
        """Explosion depth as the kernel takes it (0 when nothing explodes)."""
        return self.explode_depth if self.explode else 0

    def kernel_args(self) -> tuple:
        """``(n_dice, face_score, explode_mask, explode_depth, reroll_mask, reroll_explodes,
        keep_n, keep_highest)`` — the arguments of ``roll_pool`` (without ``st``/``scratch``)
        and of :func:`oddslab.exact.pool_pmf`."""
        return (
            int(self.n),
            self.face_score,
            self._mask(self.explode),
            int(self.depth),
            self._mask(self.reroll),
            bool(self.reroll_explodes),
            int(self.keep),
            bool(self.keep_highest),
        )

    def max_total(self) -> int:
        """Largest possible total (exact)."""
        return pool_max(*self.kernel_args())

    def pmf(self) -> np.ndarray:
        """Exact PMF of the total; shape ``(max_total + 1,)``."""
        return pool_pmf(*self.kernel_args())

    def __str__(self) -> str:
        values = self.die.values
        if all(f.symbol is None for f in self.die.faces) and values == tuple(
            range(1, self.die.size + 1)
        ):
            s = f"{self.n}D{self.die.size}"
        else:
            faces = ",".join(
                f.symbol if f.symbol is not None else str(f.value) for f in self.die.faces
            )
            s = f"{self.n}d[{faces}]"
        if self.count_at_least is not None:
            s += f" count {self.count_at_least}+"
            if self.modifier:
                s += f" mod {self.modifier:+d}"
            if not self.natural_rules:
                s += " natural off"
        elif self.count:
            s += f" count {_ref_text(self.count)}"
        if self.explode:
            d = self.explode_depth
            s += f" explode {_ref_text(self.explode)}"
            s += " unlimited" if d == -1 else ("" if d == 1 else f" depth {d}")
        if self.reroll:
            s += f" reroll {_ref_text(self.reroll)}" + (
                " exploding" if self.reroll_explodes else ""
            )
        if self.keep:
            s += f" keep {self.keep} {'highest' if self.keep_highest else 'lowest'}"
        return s


@dataclass(frozen=True)
class RollSpec:
    """A pool, optionally opposed by another (``vs``) and/or tested against a target.

    Statistics: ``total`` (or ``total_a`` and ``total_b`` plus flags ``a_wins``, ``tie``,
    ``b_wins`` when opposed) and, with a test, the flag ``pass`` for ``total <= target`` /
    ``total >= target`` (pool A's total).
    """

    pool: Pool
    vs: Pool | None = None
    test: tuple[TestOp, int] | None = None
    name: str = ""
    trials: int | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.test is not None and self.test[0] not in ("<=", ">="):
            raise ValueError(f"test must be '<=' or '>=', got {self.test[0]!r}")

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        s = str(self.pool)
        if self.vs is not None:
            s += f" vs {self.vs}"
        if self.test is not None:
            s += f" {self.test[0]} {self.test[1]}"
        return s

    def _stats(self) -> tuple[Stat, ...]:
        a = self.pool.max_total() + 1
        if self.vs is None:
            stats = [Stat("total", a, "pool total")]
        else:
            stats = [
                Stat("total_a", a, "total of the first pool"),
                Stat("total_b", self.vs.max_total() + 1, "total of the opposing pool"),
                Stat("a_wins", 2, "first pool's total is higher", flag=True),
                Stat("tie", 2, "totals are equal", flag=True),
                Stat("b_wins", 2, "opposing pool's total is higher", flag=True),
            ]
        if self.test is not None:
            op, t = self.test
            stats.append(Stat("pass", 2, f"total {op} {t}", flag=True))
        return tuple(stats)

    def _headlines(self) -> tuple[Headline, ...]:
        heads = []
        if self.vs is not None:
            heads += [
                Headline("P(A wins)", "a_wins"),
                Headline("P(tie)", "tie"),
                Headline("P(B wins)", "b_wins"),
            ]
        if self.test is not None:
            heads.append(Headline(f"P(total {self.test[0]} {self.test[1]})", "pass"))
        if not heads and (self.pool.count_at_least is not None or self.pool.count):
            heads.append(Headline("P(at least 1 success)", "total", 1))
        return tuple(heads)

    def exact_pmfs(self) -> dict[str, np.ndarray]:
        """Exact ``{stat: pmf}`` for every statistic."""
        pa = self.pool.pmf()
        out: dict[str, np.ndarray] = {}
        if self.vs is None:
            out["total"] = pa
        else:
            pb = self.vs.pmf()
            win, tie, lose = opposed_probs(pa, pb)
            out.update(
                total_a=pa,
                total_b=pb,
                a_wins=np.array([1.0 - win, win]),
                tie=np.array([1.0 - tie, tie]),
                b_wins=np.array([1.0 - lose, lose]),
            )
        if self.test is not None:
            p = threshold_prob(pa, self.test[1], self.test[0])
            out["pass"] = np.array([1.0 - p, p])
        return out

    def compile(self) -> Job:
        """The engine job: kernel ``run_pools`` with this spec's arrays, exact form attached."""
        from oddslab._kernels.pools import TEST_GE, TEST_LE, TEST_NONE, run_pools

        a = self.pool.kernel_args()
        b = self.vs.kernel_args() if self.vs is not None else a
        mode = TEST_NONE if self.test is None else (TEST_LE if self.test[0] == "<=" else TEST_GE)
        target = int(self.test[1]) if self.test is not None else 0
        params = (*a, self.vs is not None, *b, int(mode), target)
        primary = "total" if self.vs is None else "total_a"
        return Job(
            name=self.label,
            kernel=run_pools,
            params=params,
            stats=self._stats(),
            headlines=self._headlines(),
            exact=self.exact_pmfs,
            meta={"primary": primary, "ruleset": "pools"},
        )


# -- the text grammar --------------------------------------------------------------------------
_DIE = re.compile(r"^(\d*)d(\d+)$")
_CUSTOM = re.compile(r"^(\d*)d\[([^\]]*)\]$")
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


def _parse_die(w: _Words) -> tuple[int, Die]:
    expected = "dice such as 4D6, D10 or 6d[0,0,1,1,1,2]"
    word = w.next(expected)
    m = _DIE.match(word)
    if m:
        n = int(m.group(1)) if m.group(1) else 1
        sides = int(m.group(2))
        if not 1 <= sides <= MAX_FACES:
            raise w.fail_last(f"a die with 1 to {MAX_FACES} sides")
        return n, Die.numeric(sides)
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
        return n, Die(tuple(faces))
    raise w.fail_last(expected)


def _parse_pool(w: _Words) -> Pool:
    start = w.i
    n, die = _parse_die(w)
    opts: dict = {}
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
