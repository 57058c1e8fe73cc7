"""Which statistics a hex platoon scenario reports, how the kernel reads them, headlines.

Names say whose fate they are (``hits_on_<unit>``, ``<unit>_state``, ``attacker_retreated``);
labels are plain words. Per-step statistics get a ``_stepN`` suffix when the scenario has
more than one step. Only statistics the scenario can produce are listed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from oddslab.outcome import Headline, Stat

from . import layout as K

if TYPE_CHECKING:  # pragma: no cover
    from .compile import HexPlatoonScenario

__all__ = ["plan", "affects", "state_steps", "FATES", "ACCURACY"]

FATES = (
    "back in the cup after its strike",
    "strikes over after its strike",
    "disrupted, back in the cup",
    "disrupted, leaves the game",
    "shot down",
)
ACCURACY = ("no strike", "astray (adjacent hex)", "firepower −1D", "on target")


def state_steps(sc: HexPlatoonScenario, k: int) -> set[str]:
    """Units whose good order / side step ``k`` can change (hits, rally, HQ checks)."""
    s = sc.steps[k]
    out: set[str] = set()
    hexes: list[str] = []
    if s.kind == "fire":
        out.add(s.target)
        hexes.append(sc.hex_of_name(s.target))
    elif s.kind == "mortar":
        hexes.append(s.target)
    elif s.kind == "artillery":
        hexes += list(s.hexes)
    elif s.kind == "move" and s.mines:
        hexes.append(s.stack)
    elif s.kind == "rally":
        out |= set(sc.step_units(k))
    elif s.kind in ("assault", "overrun"):
        hexes += [s.attacker, s.defender]
    elif s.kind == "air-strike":
        hexes += [s.target] + ([s.adjacent] if s.adjacent else [])
    for h in hexes:
        out |= {u.name for u in sc.stack(h)} if s.kind != "fire" else set()
        hq = sc.hq_of(h)
        if hq is not None:
            out.add(hq.name)
    if s.kind in ("assault", "overrun"):
        # attackers without an Assault factor stay behind (6.3): nothing changes them
        out -= {u.name for u in sc.stack(s.attacker)} - {u.name for u in sc.melee_attackers(k)}
    return out


def affects(sc: HexPlatoonScenario, k: int) -> set[str]:
    """Units any of whose state (incl. Ops Complete, command, concealment) step ``k`` may change."""
    s = sc.steps[k]
    out = state_steps(sc, k)
    if s.kind in ("fire", "mortar"):
        out.add(s.firer)
    if s.kind == "move":
        out |= {u.name for u in sc.hex(s.stack).units}
    if s.kind in ("clear-mines",):
        out |= set(sc.step_units(k))
    if s.kind == "command":
        # a failed check puts the whole hex out of command, its (s)HQ included (4.2)
        out |= {u.name for u in sc.stack(s.stack)}
        hq = sc.hq_of(s.stack)
        if hq is not None:
            out.add(hq.name)
    if s.kind == "air-strike":
        out |= set(s.aa)
    return out


def depends(sc: HexPlatoonScenario, k: int) -> set[str]:
    """Units whose state step ``k`` reads."""
    s = sc.steps[k]
    out = set(state_steps(sc, k))
    for name in (s.firer, s.hq, s.spotter, s.aircraft):
        if name:
            out.add(name)
    out |= set(s.aa)
    if s.kind in ("rally", "clear-mines"):
        for n in sc.step_units(k):
            hq = sc.hq_of(sc.hex_of_name(n))
            if hq is not None:
                out.add(hq.name)
    if s.kind in ("move", "command"):
        out |= {u.name for u in sc.hex(s.stack).units}
    return out


def static_steps(sc: HexPlatoonScenario) -> list[bool]:
    """Step ``k`` is static when no earlier step changes anything it reads."""
    changed: set[str] = set()
    out = []
    for k in range(len(sc.steps)):
        out.append(not (depends(sc, k) & changed) and not sc.steps[k].opportunity)
        changed |= affects(sc, k)
    return out


def plan(sc: HexPlatoonScenario) -> tuple[list[Stat], np.ndarray, list[Headline], str]:
    """(stats, kernel programme ``so`` int64[n, O_NCOLS], headlines, primary stat name)."""
    stats: list[Stat] = []
    prog: list[tuple[int, int, int, int]] = []
    heads: list[Headline] = []
    ui = sc.unit_index()
    hx = sc.hex_index()
    multi = len(sc.steps) > 1

    def add(name, nbins, desc, label, prog_row, flag=False):
        stats.append(Stat(name, nbins, desc, flag, label))
        prog.append((prog_row[0], prog_row[1], prog_row[2], nbins - 1))

    def rec(k, field, name, nbins, label, flag=False):
        suffix = f"_step{k + 1}" if multi else ""
        words = f"step {k + 1}: {label}" if multi else label
        add(name + suffix, nbins, words, words, (K.OK_REC, k, field), flag)
        return name + suffix

    first_primary: str | None = None
    changed_before: set[str] = set()
    for k, s in enumerate(sc.steps):
        later = k > 0
        touched = set(changed_before)
        changed_before |= affects(sc, k)
        if s.kind == "fire":
            fn = sc.step_fire(k)
            top = fn.dice + (sc.unit(s.hq).leadership if s.hq else 0) + 1
            t = sc.unit(s.target)
            rec(k, 0, f"hits_on_{_s(t.name)}", top, f"hits on {t.name} before saves")
            rec(k, 1, f"unsaved_hits_on_{_s(t.name)}", top, f"unsaved hits on {t.name}")
            if s.opportunity or s.firer in touched or (s.hq and s.hq in touched):
                rec(k, 2, f"{_s(s.firer)}_fired", 2, f"{s.firer} fired", True)
            first_primary = first_primary or f"{_s(t.name)}_state"
        elif s.kind == "mortar":
            fn = sc.step_fire(k)
            top = fn.dice + 2 + (sc.unit(s.hq).leadership if s.hq else 0)
            rec(k, 0, f"hits_on_{_s(s.target)}", top, f"hits on hex {s.target} before saves")
            u = rec(k, 1, f"unsaved_hits_on_{_s(s.target)}", top, f"unsaved hits on hex {s.target}")
            if s.spotter and sc.rules.mortar_mission_roll:
                rec(k, 2, "mortar_mission_failed", 2, "mortar mission failed", True)
            if {s.firer, s.hq, s.spotter} & touched or not _can_call(sc, s.spotter):
                rec(k, 3, f"{_s(s.firer)}_fired", 2, f"{s.firer} fired", True)
            first_primary = first_primary or u
        elif s.kind == "artillery":
            if s.spotter and (s.spotter in touched or not _can_call(sc, s.spotter)):
                n = rec(k, 15, f"{_s(s.spotter)}_called_mission", 2, f"{s.spotter} called", True)
                heads.append(Headline(f"P({stats[-1].label} the mission)", n, 1))
            f = rec(k, 0, "mission_failed", 2, "artillery mission failed (1D6 = 1)", True)
            heads.append(Headline(f"P({stats[-1].label})", f, 1))
            for m, h in enumerate(s.hexes):
                rec(
                    k,
                    1 + 2 * m,
                    f"hits_on_{_s(h)}",
                    s.firepower + 2,
                    f"hits on hex {h} before saves",
                )
                rec(
                    k,
                    2 + 2 * m,
                    f"unsaved_hits_on_{_s(h)}",
                    s.firepower + 2,
                    f"unsaved hits on hex {h}",
                )
            first_primary = first_primary or _hex_primary(sc, s.hexes[0]) or f
        elif s.kind == "move":
            if s.mines:
                n = rec(k, 0, f"mine_hits_on_{_s(s.stack)}", 3, f"mine hits on {s.stack}")
                first_primary = first_primary or n
            movers = sc.stack(s.stack)
            if (later and ({u.name for u in movers} & touched)) or any(
                u.out_of_command or _marked(sc, u) for u in movers
            ):
                n = rec(k, 1, f"{_s(s.stack)}_entered_hex", 2, f"{s.stack} entered the hex", True)
                heads.append(Headline(f"P({stats[-1].label})", n, 1))
        elif s.kind == "clear-mines":
            n = rec(k, 0, "minefield_cleared", 2, "minefield cleared", True)
            heads.append(Headline(f"P({stats[-1].label})", n, 1))
            first_primary = first_primary or n
        elif s.kind == "rally":
            units = sc.step_units(k)
            n = rec(
                k, 0, f"units_rallied_{_s(s.stack or units[0])}", len(units) + 1, "units rallied"
            )
            first_primary = first_primary or n
        elif s.kind == "command":
            n = rec(k, 0, f"{_s(s.stack)}_out_of_command", 2, f"{s.stack} out of command", True)
            heads.append(Headline(f"P({stats[-1].label})", n, 1))
            first_primary = first_primary or n
        elif s.kind in ("assault", "overrun"):
            mem = sc.melee_members(k)
            lead = sum(
                u.leadership for u in sc.hex(s.attacker).units + sc.hex(s.defender).units if u.is_hq
            )
            top_a = sum(d + a for (_u, side, d, a, *_r) in mem if side == 0) + lead + 1
            top_d = (
                sum(max(d, dd) + a for (_u, side, d, a, _t, _g, dd, _x) in mem if side == 1)
                + lead
                + 1
            )
            n1 = rec(k, 1, "hits_on_defender", top_a, "hits on the defender")
            rec(k, 2, "hits_on_attacker", top_d, "hits on the attacker")
            unable = any(
                u.disrupted or u.out_of_command or _marked(sc, u) for u in sc.stack(s.attacker)
            )
            if unable or (
                later and ({u.name for u in sc.stack(s.attacker) + sc.stack(s.defender)} & touched)
            ):
                rec(k, 4, f"{s.kind}_made", 2, f"the {s.kind} took place", True)
            if s.kind == "assault":
                for f, nm, lab in (
                    (6, "attacker_took_hex", "attacker takes the hex"),
                    (3, "attacker_retreated", "attacker retreats"),
                    (
                        7 if s.can_retreat else 5,
                        "defender_retreated"
                        if s.can_retreat
                        else "defender_eliminated_unable_to_retreat",
                        "defender retreats"
                        if s.can_retreat
                        else "defender eliminated (no retreat)",
                    ),
                ):
                    n = rec(k, f, nm, 2, lab, True)
                    heads.append(Headline(f"P({stats[-1].label})", n, 1))
            else:
                n_afv = len(sc.stack(s.attacker))
                n = rec(k, 3, "attacker_afvs_forced_back", n_afv + 1, "attacking AFVs forced back")
                heads.append(Headline(f"P({stats[-1].label} ≥ 1)", n, 1))
            first_primary = first_primary or n1
        elif s.kind == "air-strike":
            n = rec(
                k,
                0,
                "hits_on_aircraft",
                sum(sc.unit(a).aa + 1 for a in s.aa) + 1,
                "unsaved hits on the aircraft",
            )
            heads.append(Headline("P(aircraft hit)", n, 1))
            heads.append(Headline("P(aircraft shot down)", n, 2))
            rec(
                k,
                1,
                "aircraft_fate",
                5,
                "aircraft fate (" + "; ".join(f"{i} {t}" for i, t in enumerate(FATES)) + ")",
            )
            n = rec(k, 5, "aircraft_back_in_cup", 2, "aircraft goes back in the cup", True)
            heads.append(Headline(f"P({stats[-1].label})", n, 1))
            rec(
                k,
                2,
                "strike_accuracy",
                4,
                "strike accuracy (" + "; ".join(f"{i} {t}" for i, t in enumerate(ACCURACY)) + ")",
            )
            fp = s.firepower or sc.unit(s.aircraft).he
            rec(k, 3, "hits_by_aircraft", fp + 1, "strike hits before saves")
            u = rec(k, 4, "unsaved_hits_by_aircraft", fp + 1, "unsaved strike hits")
            # where they land: the target hex, or the adjacent hex of a strike gone astray
            rec(
                k,
                6,
                f"unsaved_hits_by_aircraft_on_{_s(s.target)}",
                fp + 1,
                f"unsaved strike hits on the target hex {s.target}",
            )
            if s.adjacent:
                rec(
                    k,
                    7,
                    f"unsaved_hits_by_aircraft_on_{_s(s.adjacent)}",
                    fp + 1,
                    f"unsaved strike hits on {s.adjacent} (strike gone astray)",
                )
            first_primary = first_primary or u
    # final states of every unit some step can change, then stack totals
    changed: list[str] = []
    for k in range(len(sc.steps)):
        for n in sorted(state_steps(sc, k), key=lambda x: ui[x]):
            if n not in changed:
                changed.append(n)
    changed.sort(key=lambda x: ui[x])
    # a unit can end reduced in good order only if it starts so or rallies: hits always
    # disrupt, so otherwise a reduced unit is disrupted and `_state` says it all
    rallying = {n for k, s in enumerate(sc.steps) if s.kind == "rally" for n in sc.step_units(k)}
    for n in changed:
        u = sc.unit(n)
        add(
            f"{_s(n)}_state",
            4,
            f"{n}: final state (0 good order, 1 disrupted, 2 reduced, 3 eliminated)",
            f"{n}: final state",
            (K.OK_STATE, ui[n], 0),
        )
        if u.is_hq:
            heads.append(Headline(f"P({n} reduced or eliminated)", f"{_s(n)}_state", 2))
        elif n in rallying or (u.reduced and not u.disrupted):
            # a reduced unit in good order or disrupted (an (s)HQ is never disrupted)
            add(
                f"{_s(n)}_state_detail",
                5,
                f"{n}: final state (0 good order, 1 disrupted, 2 reduced, 3 reduced and "
                "disrupted, 4 eliminated)",
                f"{n}: final state in detail",
                (K.OK_STATE_DETAIL, ui[n], 0),
            )
        if not u.is_hq:
            heads.append(Headline(f"P({n} disrupted or worse)", f"{_s(n)}_state", 1))
            heads.append(Headline(f"P({n} reduced or eliminated)", f"{_s(n)}_state", 2))
            heads.append(Headline(f"P({n} eliminated)", f"{_s(n)}_state", 3))
    hexes_touched = []
    for n in changed:
        h = sc.hex_of_name(n)
        if h not in hexes_touched and len(sc.stack(h)) >= 2:
            hexes_touched.append(h)
    for h in hexes_touched:
        cnt = len(sc.stack(h)) + 1
        for lvl, word in (
            (1, "disrupted or worse"),
            (2, "reduced or eliminated"),
            (3, "eliminated"),
        ):
            add(
                f"{_s(h)}_units_{word.replace(' ', '_')}",
                cnt,
                f"units in hex {h} {word}",
                f"units in hex {h} {word}",
                (K.OK_HEX_GE, hx[h], lvl),
            )
    names = [st.name for st in stats]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"two statistics would be named {dup!r}; rename a unit or hex")
    primary = sc.primary or first_primary or names[0]
    if primary not in names:
        from .compile import BadInput

        raise BadInput(
            "primary",
            f"'{primary}' is not a statistic of this scenario (known: {', '.join(names)})",
        )
    so = np.array(prog, dtype=np.int64).reshape(-1, K.O_NCOLS)
    return stats, so, heads, primary


def _can_call(sc: HexPlatoonScenario, name: str) -> bool:
    """No caller, or one able to call at the start (:func:`.exact_steps.can_call`)."""
    from .exact_steps import can_call

    return not name or can_call(sc.unit(name))


def _marked(sc: HexPlatoonScenario, u) -> bool:
    """``u`` starts with an Ops Complete marker that keeps it from moving and assaulting."""
    return u.ops_complete and sc.rules.ops_complete_bars == "every-action"


def _s(name: str) -> str:
    from .compile import slug

    return slug(name)


def _hex_primary(sc: HexPlatoonScenario, h: str) -> str | None:
    st = sc.stack(h)
    if len(st) >= 2:
        return f"{_s(h)}_units_disrupted_or_worse"
    if st:
        return f"{_s(st[0].name)}_state"
    return None
