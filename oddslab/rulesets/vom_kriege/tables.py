"""The text's tables in Python: battle-die face tables, fire points, shooting and melee
adjustments with a line-by-line breakdown, and exact hit/flag distributions.

The kernel (:mod:`.kernel`) applies the same tables to the live state of a trial; the tests
check the two agree on every combination of inputs. The breakdowns feed ``resolved()``.
"""

from __future__ import annotations

from math import comb

import numpy as np

from oddslab.rulesets.vom_kriege.layout import (
    ARTILLERY_FIRE_POINTS,
    SYMBOLS,
    TROOPS,
)
from oddslab.rulesets.vom_kriege.model import Dice, Rules, Unit

__all__ = [
    "face_tables",
    "hit_flag_probs",
    "hits_flags_pmf",
    "square_test_probability",
    "artillery_row",
    "shooting_dice",
    "melee_dice",
    "square_test_dice",
    "is_skirmish_target",
]

MODES = ("shooting", "melee", "sabers only")


def face_tables(dice: Dice, rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``HIT[mode, troop, face]`` (0/1), ``FLAG[face]``, ``SYM[face]`` as int64 arrays.

    Mode 0 is shooting (sabers hit unless ``rules.sabers == "melee"``), 1 melee, 2 sabers
    only (cavalry against a square; the attacker's roll against a retiring unit).
    """
    nf = len(dice.faces)
    sym = np.array([SYMBOLS.index(f) for f in dice.faces], dtype=np.int64)
    hit = np.zeros((3, 3, nf), dtype=np.int64)
    for f, s in enumerate(sym):
        for troop in range(3):
            saber = s == SYMBOLS.index("saber")
            hit[0, troop, f] = int(s == troop or (saber and rules.sabers == "both"))
            hit[1, troop, f] = int(s == troop or saber)
            hit[2, troop, f] = int(saber)
    flag = (sym == SYMBOLS.index("flag")).astype(np.int64)
    return hit, flag, sym


def hit_flag_probs(dice: Dice, rules: Rules, mode: int, troop: str) -> tuple[float, float]:
    """P(one die scores a hit), P(one die shows a flag) against a ``troop`` target."""
    hit, flag, _ = face_tables(dice, rules)
    nf = len(dice.faces)
    return float(hit[mode, TROOPS.index(troop)].sum() / nf), float(flag.sum() / nf)


def hits_flags_pmf(n: int, p_hit: float, p_flag: float) -> np.ndarray:
    """Exact joint PMF ``P[hits, flags]`` of ``n`` dice (a hit face never shows a flag).

    Shape ``(n + 1, n + 1)``; the multinomial ``n! / (h! f! o!) p_h^h p_f^f p_o^o``.
    """
    p_o = 1.0 - p_hit - p_flag
    out = np.zeros((n + 1, n + 1))
    for h in range(n + 1):
        for f in range(n + 1 - h):
            o = n - h - f
            out[h, f] = comb(n, h) * comb(n - h, f) * p_hit**h * p_flag**f * p_o**o
    return out


def square_test_dice(hits: int, disordered: bool) -> int:
    """Command dice for the form-square test: 4, −1 with 2+ hits, −1 if disordered."""
    return 4 - (1 if hits >= 2 else 0) - (1 if disordered else 0)


def square_test_probability(n: int, dice: Dice) -> float:
    """P(at least one infantry symbol on ``n`` command dice) = 1 − (1 − p_inf)^n."""
    if n <= 0:
        return 0.0
    return 1.0 - (1.0 - dice.p("infantry")) ** n


def artillery_row(unit: Unit, rules: Rules) -> int:
    """Row of the artillery fire-point table; horse artillery reads as ``rules.horse_artillery``."""
    weight = unit.unit_kind if unit.unit_kind != "horse" else rules.horse_artillery
    return (0 if unit.guns == 8 else 2) + (0 if weight == "heavy" else 1)


def _or_row(items: list[list[tuple[int, str]]], rules: Rules) -> list[tuple[int, str]]:
    """One adjustment row of the pattern "X, or Y or Z | v1 v2": ``items`` holds, per item of
    the row (X; "Y or Z"), the conditions of it that apply, each with the item's value.

    ``or_rows``: ``largest`` (default) counts the row once, its largest penalty; ``stack``
    counts each item once (a condition joined to another by "or" shares its value); ``each``
    counts every condition."""
    on = [it for it in items if it]
    if rules.or_rows == "each":
        return [c for it in on for c in it]
    if rules.or_rows == "stack":
        return [(it[0][0], " or ".join(w for _, w in it)) for it in on]
    if not on:
        return []
    v, why = min(((it[0][0], " or ".join(w for _, w in it)) for it in on), key=lambda x: x[0])
    return [(v, why)]


def _shaken_row(
    shaken: bool, diso: bool, rules: Rules, opened: bool = False
) -> list[tuple[int, str]]:
    """ "Shooter/Unit is shaken, or ... disordered [or in open order] | -1 -2"."""
    second = [(-2, "disordered")] * diso + [(-2, "open order")] * opened
    return _or_row([[(-1, "shaken")] * shaken, second], rules)


def _order_row(order: bool, supports: int, rules: Rules, what: str) -> list[tuple[int, str]]:
    """ "Order bonus, or for each support unit: +1" — two sources sharing one value, each
    adding (``order_support_row = "largest"``: the larger of the two counts)."""
    if rules.order_support_row == "stack" or supports == 0:
        return [(1, "order bonus")] * order + [(1, what)] * supports
    note = " (the order bonus does not add: one row)" if order else ""
    return [(1, what + (note if i == 0 else "")) for i in range(supports)]


def is_skirmish_target(target: Unit, formation: str, rules: Rules) -> bool:
    """Is ``target`` (in ``formation``) "skirmish" for the artillery row? ``rules.
    skirmish_target``: an (sk) unit (default), a unit in open order, or either."""
    sk = target.skirmish
    opened = formation == "open_order"
    return {"sk": sk, "open_order": opened, "either": sk or opened}[rules.skirmish_target]


def shooting_dice(
    shooter: Unit,
    target: Unit,
    band: int,
    rules: Rules,
    *,
    order_bonus: bool = False,
    supports: int = 0,
    enfilade: bool = False,
    obscured: bool = False,
    hits: int | None = None,
    disordered: bool | None = None,
    marker: bool | None = None,
    formation: str | None = None,
    target_formation: str | None = None,
) -> tuple[int, list[str]]:
    """Battle dice for ``shooter`` firing at ``target`` in range band ``band`` (0 = 3").

    State keywords override the units' starting state. Returns ``(dice, breakdown)``;
    ``dice`` is -1 (with the reason) when the unit cannot shoot at that range.
    """
    h = shooter.hits if hits is None else hits
    diso = shooter.disordered if disordered is None else disordered
    mark = shooter.shooting_marker if marker is None else marker
    form = shooter.form if formation is None else formation
    tform = target.form if target_formation is None else target_formation
    terr = shooter.terrain
    if shooter.troop == "cavalry":
        return -1, ["cavalry cannot shoot"]
    if shooter.troop == "artillery":
        if form != "unlimbered":
            return -1, ["limbered artillery cannot shoot"]
        row = artillery_row(shooter, rules)
        base = ARTILLERY_FIRE_POINTS[row][band]
        lines = [f"{base} fire points ({shooter.guns}-gun {shooter.unit_kind} at band {band})"]
    else:
        if form == "march_column":
            return -1, ["infantry in march column cannot shoot"]
        if band == 0:
            if form == "square":
                return 1, ["square fire: 1 die, no adjustments"]
            if terr in ("woods", "bua"):
                base, what = 2, f"infantry in {terr}"
            elif form in ("line", "two_rank_line"):
                base, what = 4, "infantry line"
            else:
                base, what = 2, f"infantry {form.replace('_', ' ')}"
            lines = [f"{base} fire points ({what}, close range)"]
        elif band == 1:
            if not shooter.skirmish:
                return -1, ['beyond 3" only (sk) units shoot (skirmish fire)']
            if form == "square" or terr == "bua":
                return -1, ["infantry in square or a BUA cannot use skirmish fire"]
            if terr == "woods" and form != "open_order":
                return -1, ["infantry in woods skirmishes only in open order"]
            n = 1 if rules.skirmish_dice == "one" else (2 if form == "open_order" else 1)
            return n, [f"skirmish fire: {n} dice, no adjustments"]
        else:
            return -1, ['infantry range is 3" (skirmish fire 6")']
    adj = _order_row(order_bonus, supports, rules, "fire support")
    if shooter.troop == "infantry" and form == "two_rank_line" and band == 0:
        adj.append((1, "2-rank line at close range"))
    art_rows = shooter.troop == "artillery" or rules.artillery_rows == "target"
    shape = tform in ("square", "column", "march_column")
    if art_rows and rules.or_rows == "each":  # every condition of the row adds
        adj += [(1, "target enfiladed")] * enfilade
        adj += [(1, f"target in {tform.replace('_', ' ')}")] * shape
    elif art_rows and (enfilade or shape):
        adj.append((1, "target enfiladed" if enfilade else f"target in {tform.replace('_', ' ')}"))
    tt = target.terrain
    if tt == "woods":
        adj.append((-1, "target in woods"))
    elif tt in ("bua", "fieldworks"):
        if rules.artillery_rows == "target":
            v = {"infantry": -2, "artillery": -1}.get(target.troop, 0)
        else:
            v = -1 if shooter.troop == "artillery" else -2
        if v:
            adj.append((v, f"target occupies {tt}"))
    sk_band = band == 1 or (band == 0 and rules.skirmish_range == "up_to_6")
    if art_rows and sk_band and is_skirmish_target(target, tform, rules):
        adj.append((-1, 'skirmish target at 3-6"'))
    shaken = h == shooter.max_hits - 1
    adj += _shaken_row(shaken, diso, rules)
    halvings = int(mark) + int(obscured)
    total_adj = sum(v for v, _ in adj)
    lines += [f"{v:+d} {why}" for v, why in adj]
    if rules.halving == "before":
        fp = base
        for _ in range(halvings):
            fp = max(fp // 2, 1)
        n = fp + total_adj
    else:
        n = base + total_adj
        for _ in range(halvings):
            if n >= 1 or rules.halving_floor == "always":
                n = max(n // 2, 1)
    if mark:
        lines.append("×½ shooting marker")
    if obscured:
        lines.append("×½ target obscured")
    n = max(n, rules.min_dice, 0)
    return n, lines


def melee_dice(
    unit: Unit,
    opp: Unit | None,
    attacking: bool,
    rules: Rules,
    *,
    order_bonus: bool = False,
    supports: int = 0,
    uphill: bool = False,
    hits: int | None = None,
    disordered: bool | None = None,
    opp_disordered: bool | None = None,
    formation: str | None = None,
    opp_formation: str | None = None,
    opp_terrain: str = "open",
) -> tuple[int, list[str]]:
    """Battle dice of ``unit`` in melee with ``opp`` (step 3); ``(dice, breakdown)``.

    ``opp=None`` is a leader (in ``opp_terrain``): never disordered, no formation, no troop
    type a bonus names."""
    h = unit.hits if hits is None else hits
    diso = unit.disordered if disordered is None else disordered
    form = unit.form if formation is None else formation
    if opp is None:
        odiso, oform, otroop, oterr = False, "line", "leader", opp_terrain
    else:
        odiso = opp.disordered if opp_disordered is None else opp_disordered
        oform = opp.form if opp_formation is None else opp_formation
        otroop, oterr = opp.troop, opp.terrain
    if attacking and unit.troop == "cavalry" and oform == "square":
        return 1, ["cavalry attacking a square: 1 die, no adjustments (only sabers hit)"]
    if form in ("square", "march_column"):
        base, lines = 1, [f"strength 1 ({form.replace('_', ' ')} in melee)"]
    else:
        base, lines = unit.max_hits, [f"strength {unit.max_hits}"]
    adj = _order_row(order_bonus, supports, rules, "melee support")
    if unit.quality == "elite":
        adj.append((1, "elite"))
    elif unit.quality == "conscript":
        adj.append((-1, "conscript"))
    elif unit.quality == "irregular" and not odiso:
        adj.append((-2, "irregular versus non-disordered"))
    if unit.troop == "cavalry" and unit.unit_kind == "heavy":
        adj.append((1, "heavy cavalry"))
    if attacking and unit.troop == "cavalry" and unit.unit_kind == "lancers":
        if otroop == "infantry":
            adj.append((1, "lancers charging infantry"))
    shaken = h == unit.max_hits - 1
    adj += _shaken_row(shaken, bool(diso), rules, form == "open_order")
    w = oterr == "woods"
    b = oterr in ("bua", "fieldworks")
    up = uphill and attacking
    first = [(-1, "into woods")] * w + [(-1, "uphill")] * up
    adj += _or_row([first, [(-2, f"into occupied {oterr}")] * b], rules)
    lines += [f"{v:+d} {why}" for v, why in adj]
    n = max(base + sum(v for v, _ in adj), rules.min_dice, 0)
    return n, lines
