"""Cross-checks of a whole scenario: names resolve, steps are legal under the rules.

Each problem raises :class:`.compile.BadInput` with the key path (``steps[2].target``), so the
TOML reader can report it with the file name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .compile import HexPlatoonScenario

__all__ = ["check"]


def check(sc: HexPlatoonScenario) -> None:
    """Raise :class:`BadInput` for the first problem in ``sc``."""
    from .model import BadInput, clears_mines

    if not sc.hexes:
        raise BadInput("hexes", "expected at least one hex")
    if not sc.steps:
        raise BadInput("steps", "expected at least one step")
    seen_hex: set[str] = set()
    seen_unit: set[str] = set()
    for i, h in enumerate(sc.hexes):
        if h.name in seen_hex:
            raise BadInput(f"hexes[{i}].name", f"hex name '{h.name}' is used twice")
        seen_hex.add(h.name)
        for j, u in enumerate(h.units):
            if u.name in seen_unit:
                raise BadInput(f"hexes[{i}].units[{j}].name", f"unit name '{u.name}' is used twice")
            seen_unit.add(u.name)
            if u.type == "aircraft":
                for flag in ("disrupted", "reduced", "ops_complete", "out_of_command"):
                    if getattr(u, flag):
                        # 11.3: a disrupted aircraft "goes back in the cup during Marker
                        # Removal Phase"; an aircraft strikes as it comes out of the cup
                        raise BadInput(
                            f"hexes[{i}].units[{j}].{flag}",
                            f"{u.name} is an aircraft: it arrives from the cup in good order "
                            "(rule 11.3), so it cannot start disrupted, reduced, ops complete "
                            "or out of command",
                        )
    units = {u.name: u for u in sc.units}
    hex_of = sc.hex_of()
    fired: dict[str, int] = {}
    hq_used: dict[str, int] = {}
    last_move = -1
    opp_done: set[int] = set()
    missions: dict[str, list[int]] = {}
    overruns: dict[tuple[str, str], int] = {}
    struck: dict[str, int] = {}

    def called(k: int, name: str) -> None:
        # 11.2: "a Good Order (s)HQ/Reconnaissance Unit may call up to 2 fire missions";
        # observed mortar fire is conducted "as an artillery mission" (6.1) and counts too
        steps = missions.setdefault(name, [])
        if len(steps) >= 2:
            raise BadInput(
                f"steps[{k}].spotter",
                f"{name} already called 2 fire missions (steps {steps[0] + 1} and "
                f"{steps[1] + 1}); an (s)HQ or recon unit may call up to 2 (rule 11.2)",
            )
        steps.append(k)

    def lend(k: int, key: str, hq: str) -> None:
        # 1.3.2: an (s)HQ adds its leadership "to the firepower/Assault factor of 1 only unit",
        # so fire, mortar, assault and overrun steps share the one loan
        if hq in hq_used:
            raise BadInput(
                f"steps[{k}].{key}",
                f"{hq} already lent its leadership in step {hq_used[hq] + 1} "
                "(to 1 unit only, rule 1.3.2)",
            )
        hq_used[hq] = k

    def unit(k: int, key: str, name: str, types: tuple[str, ...] = ()) -> None:
        if not name:
            raise BadInput(f"steps[{k}].{key}", "required key is missing")
        if name not in units:
            raise BadInput(
                f"steps[{k}].{key}",
                f"'{name}' is not a unit of the scenario (known: {', '.join(sorted(units))})",
            )
        if types and units[name].type not in types:
            raise BadInput(f"steps[{k}].{key}", f"'{name}' must be of type {' or '.join(types)}")

    def hexn(k: int, key: str, name: str, nonempty: bool = False) -> None:
        if not name:
            raise BadInput(f"steps[{k}].{key}", "required key is missing")
        if name not in seen_hex:
            raise BadInput(
                f"steps[{k}].{key}",
                f"'{name}' is not a hex of the scenario (known: {', '.join(sorted(seen_hex))})",
            )
        if nonempty and not sc.stack(name):
            raise BadInput(f"steps[{k}].{key}", f"hex '{name}' holds no units")

    shooters = ("infantry", "engineer", "recon", "afv", "mortar", "aa")
    for k, s in enumerate(sc.steps):
        key = f"steps[{k}]"
        if s.kind in ("fire", "mortar"):
            unit(k, "firer", s.firer, shooters if s.kind == "fire" else ("mortar",))
            if s.firer in fired:
                raise BadInput(
                    f"{key}.firer",
                    f"{s.firer} already fired in step {fired[s.firer] + 1} (Ops Complete)",
                )
            fired[s.firer] = k
            if s.kind == "fire":
                unit(k, "target", s.target)
                t = units[s.target]
                if t.type in ("hq", "aircraft"):
                    raise BadInput(f"{key}.target", "(s)HQs and aircraft are not fired at directly")
                if s.target == s.firer:
                    raise BadInput(f"{key}.target", "a unit cannot fire at itself")
                f = units[s.firer]
                fp = f.ap if t.hard else f.he
                if f.type == "aa" and t.hard:
                    fp = (f.ap if sc.rules.aa_vs_hard == "ap-else-blue" else 0) or f.aa
                if fp <= 0 and not any((w.ap if t.hard else w.he) for w in f.support):
                    raise BadInput(
                        f"{key}.firer",
                        f"{s.firer} has no {'AP' if t.hard else 'HE'} firepower against "
                        f"a {'hard' if t.hard else 'soft'} target",
                    )
            else:
                hexn(k, "target", s.target)
                if units[s.firer].he <= 0:
                    raise BadInput(f"{key}.firer", f"mortar {s.firer} has no firepower (he)")
                if s.spotter:
                    unit(k, "spotter", s.spotter, ("hq", "recon"))
                    called(k, s.spotter)
            if s.hq:
                unit(k, "hq", s.hq, ("hq",))
                if hex_of[s.hq] != hex_of[s.firer]:
                    raise BadInput(f"{key}.hq", f"{s.hq} is not in the hex of {s.firer}")
                lend(k, "hq", s.hq)
            if s.opportunity:
                if s.kind != "fire":
                    raise BadInput(f"{key}.opportunity", "mortars may not opportunity fire")
                if last_move < 0:
                    raise BadInput(f"{key}.opportunity", "no earlier move step to fire at")
                mover = sc.steps[last_move].stack
                if hex_of[s.target] != sc.hex_index()[mover]:
                    raise BadInput(
                        f"{key}.target", f"opportunity fire must target the moving stack ({mover})"
                    )
                went_in = [
                    j
                    for j in range(last_move + 1, k)
                    if sc.steps[j].kind in ("assault", "overrun") and sc.steps[j].attacker == mover
                ]
                if went_in:
                    raise BadInput(
                        f"{key}.opportunity",
                        f"{mover} has made its {sc.steps[went_in[0]].kind} (step {went_in[0] + 1}) "
                        "since the move this fire would answer: no opportunity fire at the "
                        "assault hex (rule 6.2); put the fire right after the move step",
                    )
                if last_move in opp_done:
                    raise BadInput(
                        f"{key}.opportunity", "only 1 unit may opportunity fire per hex entered"
                    )
                opp_done.add(last_move)
            sc.step_fire(k)  # range and band problems
        elif s.kind == "artillery":
            if not 1 <= len(s.hexes) <= 7:
                raise BadInput(f"{key}.hexes", "expected 1 to 7 hexes (impact hex first)")
            if len(set(s.hexes)) != len(s.hexes):
                raise BadInput(f"{key}.hexes", "a hex is listed twice")
            for i, name in enumerate(s.hexes):
                hexn(k, f"hexes[{i}]", name)
            if s.firepower < 1:
                raise BadInput(f"{key}.firepower", "expected the mission firepower (>= 1)")
            if not 1 <= s.to_hit <= 7:
                raise BadInput(f"{key}.to_hit", "expected the mission To Hit (1 to 7)")
            if s.spotter:
                unit(k, "spotter", s.spotter, ("hq", "recon"))
                called(k, s.spotter)
        elif s.kind == "move":
            hexn(k, "stack", s.stack, True)
            last_move = k
        elif s.kind in ("clear-mines", "rally"):
            if not s.units and not s.stack:
                raise BadInput(f"{key}.units", 'give units = [...] or stack = "hex"')
            if s.stack:
                hexn(k, "stack", s.stack, True)
                if s.kind == "clear-mines" and not s.units and not sc.step_units(k):
                    raise BadInput(
                        f"{key}.stack",
                        f"hex '{s.stack}' holds no infantry or engineer unit to clear mines "
                        "(rule 8.2)",
                    )
            for i, name in enumerate(s.units):
                unit(k, f"units[{i}]", name)
                if s.kind == "clear-mines" and not clears_mines(units[name]):
                    raise BadInput(f"{key}.units[{i}]", "only infantry and engineers clear mines")
        elif s.kind == "command":
            hexn(k, "stack", s.stack, True)
        elif s.kind in ("assault", "overrun"):
            hexn(k, "attacker", s.attacker, True)
            hexn(k, "defender", s.defender, True)
            if s.attacker == s.defender:
                raise BadInput(f"{key}.defender", "attacker and defender are the same hex")
            att = sc.stack(s.attacker)
            dfd = sc.stack(s.defender)
            dhex = sc.hex(s.defender)
            if s.kind == "overrun":
                if any(u.type != "afv" for u in att):
                    raise BadInput(f"{key}.attacker", "only AFVs overrun")
                if any(u.hard for u in dfd):
                    raise BadInput(f"{key}.defender", "only soft targets can be overrun")
                if dhex.terrain not in ("open", "hill"):
                    raise BadInput(f"{key}.defender", "overruns only in open or hill terrain")
                # 6.4: "as many overruns as its MF allows, but on different hexes"
                if (s.attacker, s.defender) in overruns:
                    raise BadInput(
                        f"{key}.defender",
                        f"'{s.attacker}' already overran '{s.defender}' in step "
                        f"{overruns[s.attacker, s.defender] + 1}; further overruns must be on "
                        "different hexes (rule 6.4)",
                    )
                overruns[s.attacker, s.defender] = k
            else:
                if not any(u.assault and not u.assault_counter_only for u in att):
                    raise BadInput(
                        f"{key}.attacker",
                        "no unit of the stack may initiate an assault (no Assault factor, or *)",
                    )
                armour_open = dhex.terrain == "open" and any(u.type == "afv" for u in dfd)
                if (
                    sc.rules.infantry_assault_armour_adjacent
                    and armour_open
                    and any(u.infantry for u in sc.melee_attackers(k))
                    and not s.adjacent_at_start
                ):
                    raise BadInput(
                        f"{key}.adjacent_at_start",
                        "infantry may only close assault armour in the open if adjacent to it "
                        "(Additional Rules; rules.infantry_assault_armour_adjacent)",
                    )
                for side_key, hx_name, stack in (
                    ("attacker_hq_unit", s.attacker, att),
                    ("defender_hq_unit", s.defender, dfd),
                ):
                    name = getattr(s, side_key)
                    if name:
                        hq = sc.hq_of(hx_name)
                        if hq is None:
                            raise BadInput(f"{key}.{side_key}", f"hex '{hx_name}' has no (s)HQ")
                        if name not in {u.name for u in stack}:
                            raise BadInput(f"{key}.{side_key}", f"{name} is not in hex '{hx_name}'")
                        lend(k, side_key, hq.name)
        elif s.kind == "air-strike":
            unit(k, "aircraft", s.aircraft, ("aircraft",))
            if s.aircraft in struck:
                # 11.3: after its strike an aircraft goes back to the cup or its strikes are
                # over, and the AA may have shot it down; a scenario does not draw it again
                raise BadInput(
                    f"{key}.aircraft",
                    f"{s.aircraft} already strikes in step {struck[s.aircraft] + 1}: an "
                    "aircraft strikes once (rule 11.3: then it goes back to the cup or its "
                    "strikes are over); give a second sortie its own aircraft unit",
                )
            struck[s.aircraft] = k
            hexn(k, "target", s.target)
            if s.adjacent:
                hexn(k, "adjacent", s.adjacent)
                if s.adjacent == s.target:
                    raise BadInput(
                        f"{key}.adjacent", "the adjacent hex must differ from the target"
                    )
            if (s.firepower or units[s.aircraft].he) < 1:
                raise BadInput(f"{key}.aircraft", "the aircraft has no strike firepower (he)")
            for i, name in enumerate(s.aa):
                unit(k, f"aa[{i}]", name)
                if units[name].aa <= 0:
                    raise BadInput(f"{key}.aa[{i}]", f"{name} has no AA (blue) firepower")
