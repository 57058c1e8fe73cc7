"""Helpers for rule-switch tests: the kernel against the naive reference on whole distributions.

A switch test (marked ``@pytest.mark.rule_switch(ruleset, field)``) runs one scenario that
reaches the general kernel with the switch at one value and checks two things:

- the kernel and the naive reference agree on every statistic's whole distribution (a
  two-sample chi-square on the bins either side produced, merged to expected count >= 5; the
  smallest p-value over the statistics, Bonferroni-corrected, must exceed ``P_MIN``);
- for a value other than the default, the kernel's distribution differs from its distribution
  at the default (p < ``P_DIFFER`` on some statistic), so the scenario is one where the switch
  matters and a kernel that ignores the switch (a dropped branch) fails.

Naive runs are slow pure Python: :func:`naive_once` runs each (scenario, rules) once per test
session and keeps the counts, so the default's naive run is shared by every switch of a case.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import pytest
from scipy import stats as sps
from stats import P_MIN, POWER_FLAG, SHIFT, note_power  # noqa: F401 (re-exported)

#: a switch's value must move the kernel's answer at least this clearly
P_DIFFER = 1e-9

_NAIVE: dict[Hashable, dict[str, np.ndarray]] = {}
_KERNEL: dict[Hashable, dict[str, np.ndarray]] = {}


def naive_once(key: Hashable, run: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """``run()`` the first time ``key`` is asked for in this session; its counts after that."""
    if key not in _NAIVE:
        _NAIVE[key] = {k: np.asarray(v, dtype=np.int64) for k, v in run().items()}
    return _NAIVE[key]


def kernel_once(key: Hashable, run: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Like :func:`naive_once` for kernel runs (shared by the agreement and the sensitivity)."""
    if key not in _KERNEL:
        _KERNEL[key] = {k: np.asarray(v, dtype=np.int64) for k, v in run().items()}
    return _KERNEL[key]


def counts_of(values: list[int] | np.ndarray) -> np.ndarray:
    """Histogram (index = value) of per-trial integer values."""
    v = np.asarray(values, dtype=np.int64)
    assert v.min(initial=0) >= 0, "negative statistic"
    return np.bincount(v)


def counter_counts(hist: Mapping[str, Mapping[int, int]]) -> dict[str, np.ndarray]:
    """Histograms of a naive run given as ``{statistic: {value: count}}``."""
    out = {}
    for name, c in hist.items():
        h = np.zeros(max(c) + 1, dtype=np.int64)
        for v, k in c.items():
            h[v] = k
        out[name] = h
    return out


def switch_params(cases: Iterable[tuple], rules: Any) -> Iterator[Any]:
    """``pytest.param(field, value, default, case)`` for every value of every switch and its
    default; ``cases`` holds ``(rule_switch mark, other values, case)`` and the mark names
    the field, so the marker scan of tests/test_rule_switches.py sees the literal names."""
    for mark, values, case in cases:
        field = mark.args[1]
        default = getattr(rules, field)
        for value in [default, *values]:
            yield pytest.param(field, value, default, case, marks=mark, id=f"{field}={value}")


def per_trial_counts(rows: list[dict[str, int]]) -> dict[str, np.ndarray]:
    """Histograms of a naive run given as one ``{statistic: value}`` dict per trial."""
    return {k: counts_of([r[k] for r in rows]) for k in rows[0]}


def homogeneity_p(a: np.ndarray, b: np.ndarray, min_expected: float = 5.0) -> float:
    """p-value that two histograms come from one distribution (two-sample chi-square).

    Adjacent bins are merged until each merged bin's expected count is >= ``min_expected`` in
    both samples; a statistic that fits in one merged bin has p = 1 unless one sample has mass
    where the other has none with an expected count of at least ``min_expected``.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    size = max(len(a), len(b))
    a = np.pad(a, (0, size - len(a)))
    b = np.pad(b, (0, size - len(b)))
    na, nb = a.sum(), b.sum()
    assert na > 0 and nb > 0, "empty histogram"
    fa, fb = na / (na + nb), nb / (na + nb)
    rows_a, rows_b = [], []
    acc_a = acc_b = 0.0
    for x, y in zip(a, b, strict=True):
        acc_a += x
        acc_b += y
        if (acc_a + acc_b) * min(fa, fb) >= min_expected:
            rows_a.append(acc_a)
            rows_b.append(acc_b)
            acc_a = acc_b = 0.0
    if acc_a + acc_b > 0:
        if rows_a:
            rows_a[-1] += acc_a
            rows_b[-1] += acc_b
        else:
            rows_a.append(acc_a)
            rows_b.append(acc_b)
    if len(rows_a) < 2:
        return 1.0
    table = np.array([rows_a, rows_b])
    return float(sps.chi2_contingency(table, correction=False).pvalue)


def assert_agree(kernel: dict[str, np.ndarray], naive: dict[str, np.ndarray], what: str) -> None:
    """Every statistic both runs report has the same distribution in both.

    The kernel reports only what the scenario can produce (and, in some rulesets, only the
    focus side's statistics), the naive references report what they model: the statistics
    in common are compared, and there must be some.
    """
    common = sorted(set(kernel) & set(naive))
    assert common, f"{what}: no statistic in common between the kernel and the naive run"
    ps = {name: homogeneity_p(kernel[name], naive[name]) for name in common}
    worst = min(ps, key=ps.get)
    assert ps[worst] * len(ps) > P_MIN, (
        f"{what}: kernel and naive reference differ on {worst} (p = {ps[worst]:.2e}, "
        f"{len(ps)} statistics)\nkernel {kernel[worst]}\nnaive  {naive[worst]}"
    )


#: the error a strong naive comparison must catch: this much probability (0.5 percentage
#: points) moved from one outcome to a neighbouring one
SHIFT_PP = SHIFT


def planted_shift(counts: np.ndarray, pp: float = SHIFT_PP) -> np.ndarray:
    """``counts`` with a fraction ``pp`` of the trials moved from the most likely outcome to its
    more likely neighbour (the hardest such error to see: the two largest adjacent bins)."""
    c = np.append(np.asarray(counts, dtype=np.int64), 0)  # room for a neighbour above
    top = int(np.argmax(c))
    below = c[top - 1] if top > 0 else -1
    to = top - 1 if below > c[top + 1] else top + 1
    moved = int(round(pp * c.sum()))
    c[top] -= min(moved, c[top])
    c[to] += moved
    return c


def assert_power(
    kernel: dict[str, np.ndarray],
    naive: dict[str, np.ndarray],
    what: str,
    pp: float = SHIFT_PP,
    k: int | None = None,
) -> None:
    """:func:`assert_agree` would fail on these very runs had the kernel moved ``pp`` of the
    probability between two neighbouring outcomes of any one statistic of ``kernel`` (see
    :func:`planted_shift`): the comparison has the power to see a 0.5 pp error. ``k``: the
    number of statistics the comparison corrects for (default: those in common)."""
    common = sorted(set(kernel) & set(naive))
    weak = {}
    for name in common:
        p = homogeneity_p(planted_shift(kernel[name], pp), naive[name]) * (k or len(common))
        if p >= P_MIN:
            weak[name] = p
    assert not weak, (
        f"{what}: a {100 * pp:g} pp error in {sorted(weak)} would pass (Bonferroni p "
        f"{min(weak.values()):.1e} >= {P_MIN:g}): too few trials, "
        f"{int(sum(next(iter(naive.values()))))} naive"
    )
    note_power()


def shifted_on_support(
    counts: np.ndarray, pmf: np.ndarray, pp: float = SHIFT_PP
) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, pmf)`` restricted to the outcomes the PMF can produce (a joint table
    flattened), with ``pp`` of the trials moved from the most likely of them to its more
    likely neighbour among them (as :func:`planted_shift`; a tie in the counts goes to the
    neighbour the PMF makes likelier): an error the comparison must see, not mass on an
    impossible outcome, which any comparison sees."""
    c = np.zeros(max(len(counts), len(pmf)), dtype=np.int64)
    c[: len(counts)] = counts
    p = np.zeros(len(c))
    p[: len(pmf)] = pmf
    on = p > 0
    c, p = c[on], p[on]
    assert len(c) >= 2, "one possible outcome: nothing to move between"
    top = int(np.argmax(c))
    to = max((i for i in (top - 1, top + 1) if 0 <= i < len(c)), key=lambda i: (c[i], p[i]))
    moved = int(round(pp * c.sum()))
    c[top] -= min(moved, c[top])
    c[to] += moved
    return c, p


def assert_exact_power(
    counts: np.ndarray, pmf: np.ndarray, what: str, k: int = 1, pp: float = SHIFT_PP
) -> None:
    """Had ``pp`` (0.5 pp) of ``counts`` (a statistic, or a joint table flattened) moved between
    two neighbouring possible outcomes, ``stats.chisquare_pmf`` against the exact ``pmf``
    (times ``k``, a Bonferroni correction) would have fallen below ``P_MIN``: the comparison
    of these counts with the PMF can see a 0.5 pp error. A PMF with one possible outcome is
    an exact check (any count elsewhere fails the comparison)."""
    from stats import chisquare_pmf

    if np.count_nonzero(np.asarray(pmf) > 0) > 1:
        p = chisquare_pmf(*shifted_on_support(counts, pmf, pp)) * k
        assert p < P_MIN, (
            f"{what}: a {100 * pp:g} pp error would pass against the exact PMF (Bonferroni "
            f"p {p:.1e} >= {P_MIN:g}): too few trials, {int(np.sum(counts))}"
        )
    note_power()


def assert_differs(a: dict[str, np.ndarray], b: dict[str, np.ndarray], what: str) -> None:
    """Some statistic's distribution differs clearly between two kernel runs."""
    ps = {name: homogeneity_p(a[name], b[name]) for name in a if name in b}
    worst = min(ps, key=ps.get)
    assert ps[worst] < P_DIFFER, (
        f"{what}: the switch does not change any statistic here (closest: {worst}, "
        f"p = {ps[worst]:.2e}): the scenario does not reach the switch or the kernel ignores it"
    )


def check_switch(
    field: str,
    value: Any,
    default: Any,
    case: str,
    kernel: Callable[[dict[str, Any]], dict[str, np.ndarray]],
    naive: Callable[[dict[str, Any]], dict[str, np.ndarray]],
    extra_rules: dict[str, Any] | None = None,
    equivalent: bool = False,
) -> None:
    """The kernel agrees with the naive reference at ``field = value`` in scenario ``case``, and
    (``value != default``) answers differently than at the default; with ``equivalent`` (a
    switch shown to change no number, the reason stated where the case is listed) the
    kernel's histograms at both values are bit-identical for the seed instead.

    ``kernel(rules)`` / ``naive(rules)`` build the case with those rule overrides and return
    histograms; both are cached per (case, rules) for the session.
    """
    base = dict(extra_rules or {})
    rules = {**base, field: value}
    key = (case, tuple(sorted(rules.items())))
    k = kernel_once(key, lambda: kernel(rules))
    n = naive_once(key, lambda: naive(rules))
    assert_agree(k, n, f"{case} with {field}={value!r}")
    if value != default:
        rules0 = {**base, field: default}
        key0 = (case, tuple(sorted(rules0.items())))
        k0 = kernel_once(key0, lambda: kernel(rules0))
        if equivalent:
            for name in k0:
                np.testing.assert_array_equal(k[name], k0[name], err_msg=f"{case}: {name}")
        else:
            assert_differs(k, k0, f"{case}: {field}={value!r} against {default!r}")
