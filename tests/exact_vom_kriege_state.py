"""The trial state of the pure-Python Vom Kriege reference as tests/exact_vom_kriege.py keeps
it: the *rules state* (a tuple of every field a rule reads), the statistics-only counts beside
it (their distributions, moved by an action's increments), and unit and leader dicts that note
every field read and written while a trial is played."""

from __future__ import annotations

from collections import Counter
from itertools import chain, islice
from operator import itemgetter

import naive_vom_kriege as naive

#: what the reference keeps only for the statistics (``Trial.stats`` reads them; no rule
#: does: the retreats a melee counts are compared with their count at its start only):
#: counts a trial only adds to, and marks it only sets
_ADDED = ("hits_rolled", "flags_rolled", "bb_hits", "df_hits", "hm", "retreats")
_SET = ("squared", "fellback", "meleed")
_LEADER_ADDED = ("rolled",)


class Log:
    """The fields (``(kind, name, field)``, ``kind`` "u" for a unit, "l" for a leader) read
    and written while a trial is played."""

    def __init__(self):
        self.reads: set[tuple] = set()
        self.writes: set[tuple] = set()


class Seen(dict):
    """A unit's or leader's dict that notes in ``log`` every field read (but its ``spec``, the
    same in every state) and written."""

    __slots__ = ("log", "at")

    def __getitem__(self, k):
        if k != "spec":
            self.log.reads.add((*self.at, k))
        return dict.__getitem__(self, k)

    def __setitem__(self, k, v):
        self.log.writes.add((*self.at, k))
        dict.__setitem__(self, k, v)

    def _unnoted(self, *args, **kwargs):
        raise TypeError("a unit or leader dict read other than by d[field]: not noted")

    # the reference reads its dicts by subscript only; any other way would go unnoted
    get = __contains__ = __iter__ = keys = values = items = copy = _unnoted
    pop = popitem = setdefault = update = __delitem__ = _unnoted


class Layout:
    """Where the reference's trial state goes: the *rules state*, a tuple of every field a
    rule reads (``rules``: its slots, ``(kind, name, field)``), and the statistics-only
    counts and marks (``counts``: their slots; ``("dice", side, None)`` and ``("followed",
    None, None)`` too), all 0 at the start of an action in a rules state."""

    def __init__(self, start: naive.Trial):
        self.specs = {("u", n): d["spec"] for n, d in start.u.items()}
        self.specs |= {("l", n): d["spec"] for n, d in start.ldr.items()}
        self.fields: dict[tuple, list[tuple[str, int | None]]] = {}
        self.rules: list[tuple] = []
        self.counts: list[tuple] = []
        for kind, dicts, added in (("u", start.u, _ADDED + _SET), ("l", start.ldr, _LEADER_ADDED)):
            for n, d in dicts.items():
                assert next(iter(d)) == "spec", "the reference's unit and leader dicts changed"
                slots = []
                for f in islice(d, 1, None):
                    if f in added:
                        assert not d[f], "a statistics-only count starts above 0"
                        self.counts.append((kind, n, f))
                        slots.append((f, None))
                    else:
                        slots.append((f, len(self.rules)))
                        self.rules.append((kind, n, f))
                self.fields[(kind, n)] = slots
        self.counts += [("dice", "attacker", None), ("dice", "defender", None)]
        self.counts.append(("followed", None, None))
        self.slot = {s: i for i, s in enumerate(self.rules)}
        # the values of every dict, one after another (units, then leaders), as ``flat``
        # gives them: where each rules slot and each count sits there, and how ``load``
        # builds each dict from the rules state (index len(rules): a count's 0)
        at: dict[tuple, int] = {}
        self.build: list[tuple] = []
        for (kind, n), slots in self.fields.items():
            base = len(at) + len(self.build)
            for j, (f, _) in enumerate(slots):
                at[(kind, n, f)] = base + 1 + j
            src = itemgetter(*(len(self.rules) if i is None else i for _, i in slots))
            self.build.append((kind, n, ("spec", *(f for f, _ in slots)), src))
        self._rules_at = itemgetter(*(at[s] for s in self.rules))
        self.count_at = {c: at[c] for c in self.counts if c in at}
        self.start = self.rules_of(start)

    @staticmethod
    def flat(t: naive.Trial) -> tuple:
        """Every value of every unit and leader dict of ``t`` (read unnoted)."""
        return tuple(chain.from_iterable(map(dict.values, chain(t.u.values(), t.ldr.values()))))

    def rules_of(self, t: naive.Trial, flat: tuple | None = None) -> tuple:
        return self._rules_at(self.flat(t) if flat is None else flat)

    @staticmethod
    def _dict(t: naive.Trial, kind: str, name: str) -> dict:
        return (t.u if kind == "u" else t.ldr)[name]

    def load(self, t: naive.Trial, rules: tuple, log: Log | None = None) -> None:
        """Put the rules state ``rules`` (counts at 0) into trial ``t``; with ``log``, in
        dicts that note what is read and written."""
        ext = (*rules, 0)
        t.u, t.ldr = {}, {}
        for kind, n, keys, src in self.build:
            values = zip(keys, (self.specs[(kind, n)], *src(ext)), strict=True)
            if log:
                d = Seen(values)  # filled by dict's own update: nothing noted
                d.log, d.at = log, (kind, n)
            else:
                d = dict(values)
            (t.u if kind == "u" else t.ldr)[n] = d
        t.dice = Counter()
        t.followed = False

    def count(self, t: naive.Trial, c: tuple):
        kind, n, f = c
        if kind == "dice":
            return t.dice[n]
        if kind == "followed":
            return t.followed
        return dict.__getitem__(self._dict(t, kind, n), f)

    def set_count(self, t: naive.Trial, c: tuple, v) -> None:
        kind, n, f = c
        if kind == "dice":
            t.dice[n] = v
        elif kind == "followed":
            t.followed = v
        else:
            dict.__setitem__(self._dict(t, kind, n), f, v)


def is_mark(c: tuple) -> bool:
    return c[0] == "followed" or c[2] in _SET


def add(acc: dict, k, p: float) -> None:
    acc[k] = acc.get(k, 0.0) + p


def merge_into(into: dict, key, rules: tuple, p: float, counts: dict) -> None:
    """Add the state ``rules`` (probability ``p``, its counts' distributions ``counts``) to
    ``into`` at ``key`` (the first state there stands for them all)."""
    e = into.get(key)
    if e is None:
        into[key] = [p, counts, rules]
        return
    e[0] += p
    for c, m in counts.items():
        acc = e[1][c]
        for v, pv in m.items():
            acc[v] = acc.get(v, 0.0) + pv


def step(counts: dict, deltas: dict, mark: bool) -> dict:
    """The distribution of a count (``counts``, jointly with a rules state) after an action
    that adds ``deltas`` to it (its distribution, jointly with the state reached), or of a
    mark or-ed with ``deltas``."""
    if len(deltas) == 1:  # most counts: nothing, or one value, added
        ((dv, qd),) = deltas.items()
        if mark and dv:
            return {dv: sum(counts.values()) * qd}
        if mark or dv == 0:
            return {v: pv * qd for v, pv in counts.items()}
        return {v + dv: pv * qd for v, pv in counts.items()}
    out: dict = {}
    for v, pv in counts.items():
        for dv, qd in deltas.items():
            add(out, (v or dv) if mark else v + dv, pv * qd)
    return out
