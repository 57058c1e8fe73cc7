"""Dice: dice expressions (``3``, ``D6``, ``2D6``, ``D3+1``, ``2D3``) and custom-faced dice.

A :class:`DiceExpr` is a count or damage value rolled as ``n`` dice of ``sides`` faces plus a
constant (never below 0). A :class:`Die` is a table of faces, each with an optional symbol and
a numeric value, for symbol dice such as a d6 with two "strike" faces.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["DiceExpr", "Die", "Face"]

_EXPR = re.compile(r"^\s*(?:(\d*)\s*[dD]\s*(\d+))?\s*(?:([+-])\s*(\d+))?\s*$")


@dataclass(frozen=True)
class DiceExpr:
    """``n`` dice with ``sides`` faces (1..sides) plus ``add``; floored at 0.

    ``DiceExpr(0, 1, 3)`` is the constant 3. Use :meth:`parse` for text.
    """

    n: int = 0
    sides: int = 6
    add: int = 0

    @classmethod
    def parse(cls, text: str | int) -> DiceExpr:
        """Parse ``3``, ``"D6"``, ``"2D6"``, ``"D3+1"``, ``"2D3-1"`` (case-insensitive).

        Raises
        ------
        ValueError
            If the text is not a dice expression or would need more than 64 dice.
        """
        if isinstance(text, int) and not isinstance(text, bool):
            if text < 0:
                raise ValueError(f"expected a non-negative value, got {text}")
            return cls(0, 1, text)
        if str(text).strip().isdigit():
            return cls(0, 1, int(str(text).strip()))
        m = _EXPR.match(str(text))
        if not m or not str(text).strip() or (m.group(2) is None and m.group(4) is None):
            raise ValueError(
                f"'{text}' is not a dice expression (expected forms: 3, D6, 2D6, D3+1)"
            )
        if m.group(2) is None:
            sign = -1 if m.group(3) == "-" else 1
            if sign < 0:
                raise ValueError(f"'{text}' is negative")
            return cls(0, 1, int(m.group(4)))
        n = int(m.group(1)) if m.group(1) else 1
        sides = int(m.group(2))
        add = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
        if n < 1 or n > 64:
            raise ValueError(f"'{text}': the number of dice must be from 1 to 64")
        if sides < 1 or sides > 1000:
            raise ValueError(f"'{text}': a die must have 1 to 1000 sides")
        return cls(n, sides, add)

    @property
    def min(self) -> int:
        """Smallest value (after the floor at 0)."""
        return max(0, self.n + self.add)

    @property
    def max(self) -> int:
        """Largest value."""
        return max(0, self.n * self.sides + self.add)

    @property
    def is_constant(self) -> bool:
        return self.n == 0

    def pmf(self) -> np.ndarray:
        """Exact distribution: ``p[v] = P(value == v)`` for ``v = 0..max``; shape ``(max+1,)``."""
        dist = np.zeros(1)
        dist[0] = 1.0
        face = np.full(self.sides, 1.0 / self.sides)
        for _ in range(self.n):
            dist = np.convolve(dist, face)
        # dist[i] = P(sum of n dice == n + i)
        out = np.zeros(self.max + 1)
        for i, p in enumerate(dist):
            v = max(0, self.n + i + self.add)
            out[v] += p
        return out

    def mean(self) -> float:
        return float(np.dot(np.arange(self.max + 1), self.pmf()))

    def as_array(self) -> np.ndarray:
        """``int64[3] = (n, sides, add)``, the form kernels take."""
        return np.array([self.n, self.sides, self.add], dtype=np.int64)

    def __str__(self) -> str:
        if self.n == 0:
            return str(self.add)
        base = f"{'' if self.n == 1 else self.n}D{self.sides}"
        if self.add > 0:
            return f"{base}+{self.add}"
        if self.add < 0:
            return f"{base}{self.add}"
        return base


@dataclass(frozen=True)
class Face:
    """One face of a die: a numeric ``value`` and an optional ``symbol``."""

    value: int = 0
    symbol: str | None = None


@dataclass(frozen=True)
class Die:
    """A die as a table of equally likely faces.

    Examples
    --------
    >>> Die.numeric(6).values
    (1, 2, 3, 4, 5, 6)
    >>> Die.symbols({"heroic": 1, "strike": 2, "glancing": 1, "miss": 1, "blank": 1}).size
    6
    """

    faces: tuple[Face, ...]

    @classmethod
    def numeric(cls, sides: int) -> Die:
        """The ordinary ``d{sides}`` with faces 1..sides."""
        if sides < 1:
            raise ValueError("a die needs at least one face")
        return cls(tuple(Face(v) for v in range(1, sides + 1)))

    @classmethod
    def from_values(cls, values: Sequence[int]) -> Die:
        """A die with the given numeric faces, e.g. ``[0, 0, 1, 1, 1, 2]``."""
        if not values:
            raise ValueError("a die needs at least one face")
        return cls(tuple(Face(int(v)) for v in values))

    @classmethod
    def symbols(cls, counts: Mapping[str, int], values: Mapping[str, int] | None = None) -> Die:
        """A symbol die from ``{symbol: number of faces}``; ``values`` gives each symbol a score."""
        faces = []
        for sym, k in counts.items():
            if k < 0:
                raise ValueError(f"face count for '{sym}' is negative")
            faces += [Face((values or {}).get(sym, 0), sym)] * k
        if not faces:
            raise ValueError("a die needs at least one face")
        return cls(tuple(faces))

    @property
    def size(self) -> int:
        return len(self.faces)

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(f.value for f in self.faces)

    def symbol_indices(self, symbol: str) -> np.ndarray:
        """Indices of the faces showing ``symbol``."""
        return np.array([i for i, f in enumerate(self.faces) if f.symbol == symbol], dtype=np.int64)
