"""The pool and roll classes of :mod:`oddslab.pools` (see there; this module imports no parser)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from oddslab.dice import Die
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

__all__ = ["FaceRef", "MAX_DICE", "MAX_FACES", "Pool", "RollSpec", "TestOp", "shift_pmf"]

#: Most original dice in one pool.
MAX_DICE = 200
#: Most faces on one die.
MAX_FACES = 1000

FaceRef = int | str  # a face value, or a symbol on a symbol die
TestOp = Literal["<=", ">="]


def shift_pmf(pmf: np.ndarray, add: int) -> np.ndarray:
    """PMF of ``max(0, X + add)`` from the PMF of ``X`` (``pmf[v] = P(X == v)``)."""
    out = np.zeros(max(0, len(pmf) - 1 + add) + 1)
    np.add.at(out, np.maximum(np.arange(len(pmf)) + add, 0), pmf)
    return out


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
    add : int
        A constant added to the pool's total (``3D6+2``); the total is floored at 0, as in a
        scenario file's dice expressions.
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
    add: int = 0

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

    def raw_max(self) -> int:
        """Largest possible total before the constant ``add``."""
        return pool_max(*self.kernel_args())

    def max_total(self) -> int:
        """Largest possible total (exact, constant included)."""
        return max(0, self.raw_max() + self.add)

    def pmf(self) -> np.ndarray:
        """Exact PMF of the total; shape ``(max_total + 1,)``."""
        raw = pool_pmf(*self.kernel_args())
        return shift_pmf(raw, self.add) if self.add else raw

    @property
    def counts_successes(self) -> bool:
        """True when the pool scores a success count rather than a sum of values."""
        return self.count_at_least is not None or bool(self.count)

    def describe(self) -> dict[str, str]:
        """The pool in plain words, every default filled in (for ``resolved()``)."""
        values = self.die.values
        plain = all(f.symbol is None for f in self.die.faces) and values == tuple(
            range(1, self.die.size + 1)
        )
        faces = ",".join(f.symbol if f.symbol is not None else str(f.value) for f in self.die.faces)
        out = {
            "dice": f"{self.n}D{self.die.size}"
            if plain
            else f"{self.n} dice with faces [{faces}] (equally likely)"
        }
        if self.explode:
            d = self.explode_depth
            depth = (
                f"unlimited (capped at {EXPLODE_CAP} levels)"
                if d == -1
                else ("once (added dice do not explode)" if d == 1 else f"{d} levels")
            )
            out["explode"] = f"on {_ref_text(self.explode)}: one more die each, {depth}"
        else:
            out["explode"] = "no (default)"
        if self.reroll:
            out["re-roll"] = f"dice showing {_ref_text(self.reroll)}, once" + (
                " (a re-rolled die can explode)" if self.reroll_explodes else ""
            )
        else:
            out["re-roll"] = "no (default)"
        out["keep"] = (
            f"the {self.keep} {'highest' if self.keep_highest else 'lowest'}"
            if self.keep
            else "all dice (default)"
        )
        if self.count_at_least is not None:
            rule = f"1 per die whose value{f' {self.modifier:+d}' if self.modifier else ''} is ≥ {self.count_at_least}"
            if self.natural_rules:
                rule += f" (a natural 1 always fails, a natural {max(values)} always succeeds)"
            else:
                rule += " (natural rules off)"
            out["score"] = rule
        elif self.count:
            out["score"] = f"1 per die showing {_ref_text(self.count)}"
        else:
            out["score"] = "sum of the face values"
        if self.add:
            out["constant"] = f"{self.add:+d} to the total (floored at 0)"
        support = np.nonzero(self.pmf() > 0)[0]
        out["possible totals"] = f"{support[0]} to {support[-1]}"
        return out

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
        if self.add:
            s += f"{self.add:+d}"
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
        what_a = "successes" if self.pool.counts_successes else "total"
        if self.vs is None:
            stats = [Stat("total", a, "pool total", label=what_a)]
        else:
            what_b = "successes" if self.vs.counts_successes else "total"
            stats = [
                Stat("total_a", a, "total of the first pool", label=f"first pool's {what_a}"),
                Stat(
                    "total_b",
                    self.vs.max_total() + 1,
                    "total of the opposing pool",
                    label=f"opposing pool's {what_b}",
                ),
                Stat("a_wins", 2, "first pool's total is higher", flag=True, label="A wins"),
                Stat("tie", 2, "totals are equal", flag=True, label="tie"),
                Stat("b_wins", 2, "opposing pool's total is higher", flag=True, label="B wins"),
            ]
        if self.test is not None:
            op, t = self.test
            sign = "≤" if op == "<=" else "≥"
            stats.append(
                Stat("pass", 2, f"total {op} {t}", flag=True, label=f"{what_a} {sign} {t}")
            )
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
            sign = "≤" if self.test[0] == "<=" else "≥"
            what = "successes" if self.pool.counts_successes else "total"
            heads.append(Headline(f"P({what} {sign} {self.test[1]})", "pass"))
        if not heads and (self.pool.count_at_least is not None or self.pool.count):
            heads.append(Headline("P(at least 1 success)", "total", 1))
        return tuple(heads)

    def resolved(self) -> dict[str, dict[str, str]]:
        """The roll in plain words, every default filled in (see ``oddslab show``)."""
        out: dict[str, dict[str, str]] = {}
        out["pool A" if self.vs is not None else "pool"] = self.pool.describe()
        if self.vs is not None:
            out["pool B"] = self.vs.describe()
            out["opposed"] = {"result": "A wins on a higher total, B on a higher total, else a tie"}
        if self.test is not None:
            op, t = self.test
            what = "pool A's total" if self.vs is not None else "the total"
            out["test"] = {"passes when": f"{what} {'≤' if op == '<=' else '≥'} {t}"}
        return out

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
        # the kernel adds pool A's constant to each trial's total (floored at 0) and tests
        # that: a trial's records hold the total the user asked about
        params = (*a, self.vs is not None, *b, int(mode), target, int(self.pool.add))
        primary = "total" if self.vs is None else "total_a"
        kernel = run_pools
        if self.vs is not None and (self.pool.add or self.vs.add):
            kernel = _no_opposed_constants
        return Job(
            name=self.label,
            kernel=kernel,
            params=params,
            stats=self._stats(),
            headlines=self._headlines(),
            exact=self.exact_pmfs,
            meta={"primary": primary, "ruleset": "dice-pools"},
            ruleset="dice-pools",
            records=True,
        )


def _no_opposed_constants(*_args) -> None:
    """Stands in for the kernel of opposed pools with constants: their exact form works."""
    raise ValueError(
        "a constant (+K) on opposed pools has an exact answer only; drop --simulate "
        "(use oddslab.exact)"
    )
