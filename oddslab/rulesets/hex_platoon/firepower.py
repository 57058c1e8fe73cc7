"""What a firing unit rolls (range bands, support weapons, augmentation) and the fast path.

:func:`fire_numbers` turns a counter, its support weapons and the range into dice, augmentation
dice and a To Hit number (rules 6.1, 1.3.4, 11.1); :func:`fast_array` packs a scenario that is
one static fire attack for the fast kernel :func:`.kernel_run.fire_trials`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from . import layout as K
from .model import Rules, Unit

if TYPE_CHECKING:  # pragma: no cover
    from .compile import HexPlatoonScenario

__all__ = ["FireNumbers", "fire_numbers", "fast_array"]


@dataclass(frozen=True)
class FireNumbers:
    """What one unit rolls: ``dice`` at ``to_hit``+, plus ``aug`` augmentation dice."""

    dice: int
    aug: int
    to_hit: int
    band: str
    text: str


def fire_numbers(
    unit: Unit,
    vs_hard: bool,
    band: str,
    distance: int | None,
    rules: Rules,
    key: str = "",
    mortar: bool = False,
) -> FireNumbers:
    """Firepower, augmentation and To Hit of ``unit`` firing (rule 6.1, 1.3.4, 11.1).

    AP against hard targets, HE against soft ones (mortars: HE against both); support
    weapons with firepower against the target add it and their range, or an augmentation
    die; reduced range −1 To Hit; extended range +1 To Hit if the unmodified To Hit is below
    6, else −1 firepower if the unmodified firepower (support weapons included) is above 1
    (``rules.extended_range``: or the better of the two).
    """
    aa_vs_hard = unit.type == "aa" and vs_hard and not mortar
    use_ap = vs_hard and not mortar
    fp = unit.ap if use_ap else unit.he
    plus = unit.ap_plus if use_ap else unit.he_plus
    th = unit.to_hit
    if aa_vs_hard:
        # the text names no firepower for AA at hard targets: AP (6.1) if the counter has
        # one, else its blue firepower (aa_vs_hard = "blue": always the blue firepower)
        blue = rules.aa_vs_hard == "blue" or not unit.ap
        fp, plus = (unit.aa, unit.aa_plus) if blue else (unit.ap, unit.ap_plus)
        th = 6
    dice = fp
    aug = 1 if plus else 0
    rng = unit.range
    parts = [f"{fp} {'AP' if use_ap else 'HE'}{'+' if plus else ''}"]
    for sw in unit.support:
        if sw.augmented:
            aug += 1
            parts.append(f"{sw.name} +")
        else:
            add = sw.ap if use_ap else sw.he
            if add > 0:
                # 1.3.4: a weapon adds "firepower and range to the platoon that employs it
                # when firing"; one with no firepower against this target is not employed,
                # so it lends no range either
                dice += add
                rng += sw.range
                parts.append(f"{sw.name} +{add}")
            else:
                parts.append(f"{sw.name} no {'AP' if use_ap else 'HE'}: not employed")
    if rules.augment == "once":
        aug = min(aug, 1)
    if distance is not None:
        if rng <= 0:
            raise _bad(key + "distance", f"{unit.name} has no range")
        if distance <= rng // 2 and not unit.range_underlined:
            band = "reduced"
        elif distance <= rng:
            band = "normal"
        elif distance <= 2 * rng and not unit.range_underlined and not aa_vs_hard:
            band = "extended"
        else:
            raise _bad(
                key + "distance", f"{distance} hexes is beyond the range of {unit.name} ({rng})"
            )
    if band != "normal" and unit.range_underlined:
        raise _bad(key + "band", f"{unit.name} has an underlined range: no {band} range fire")
    if band == "reduced":
        th -= 1
        parts.append("reduced range −1 To Hit")
    elif band == "extended":
        if aa_vs_hard:
            raise _bad(key + "band", "AA fire at a hard target has no extended range")
        options = []
        if th < 6:
            options.append(("th", th + 1, dice))
        # "unmodified firepower": the dice the attack rolls before the range modifier,
        # support weapons included, the same dice the −1 comes off
        if dice > 1:
            options.append(("fp", th, dice - 1))
        if not options:
            raise _bad(
                key + "band", f"{unit.name} cannot fire at extended range (To Hit 6, firepower 1)"
            )
        if rules.extended_range == "best-choice":
            from .exact import attack_pmf

            def mean(o):
                p = attack_pmf(o[2], aug, o[1])
                return float(np.dot(np.arange(len(p)), p))

            pick = max(options, key=mean)
        else:
            pick = options[0]
        th, dice = pick[1], pick[2]
        parts.append("extended range " + ("+1 To Hit" if pick[0] == "th" else "−1 firepower"))
    text = f"{dice} dice hit on {th}+" + (f", {aug} augmentation" if aug else "")
    text += " (" + ", ".join(parts) + ")"
    return FireNumbers(dice, aug, th, band, text)


def fast_array(sc: HexPlatoonScenario, so: np.ndarray) -> np.ndarray:
    """Parameters of the single-fire-attack fast path (``fast[F_ON] = 0``: not eligible).

    Eligible: the scenario is one ordinary fire step whose firer can fire, at a target
    whose hex has no (s)HQ, reporting exactly hits, unsaved hits and the target's state (and
    its detailed state when listed).
    """
    from .compile import _conceal_base
    from .exact import apply_hits, detail_code, lead_dice, state_code

    off = np.zeros(K.F_TAB + 1, dtype=np.int64)
    if len(sc.steps) != 1 or sc.steps[0].kind != "fire" or sc.steps[0].opportunity:
        return off
    s = sc.steps[0]
    f, t = sc.unit(s.firer), sc.unit(s.target)
    hexo = sc.hex(sc.hex_of_name(t.name))
    if f.disrupted or f.ops_complete or f.out_of_command or sc.hq_of(hexo.name) is not None:
        return off
    ti = sc.unit_index()[t.name]
    expect = [(K.OK_REC, 0, 0), (K.OK_REC, 0, 1), (K.OK_STATE, ti, 0), (K.OK_STATE_DETAIL, ti, 0)]
    if [tuple(int(x) for x in row[:3]) for row in so] not in (expect[:3], expect):
        return off
    fn = sc.step_fire(0)
    lead = 0
    if s.hq:
        hq = sc.unit(s.hq)
        lead = hq.leadership_reduced if hq.reduced else hq.leadership
    dice, aug = lead_dice(fn.dice, fn.aug, lead, int(sc.rules_array()[K.R_HQ_MODE]))
    conc = int(_conceal_base(t, hexo) and not t.ops_complete)
    r = sc.rules
    if t.hard:
        db = hexo.defence_hard
        bonus = min(db, 2) + conc if not r.concealment_in_cap else min(db + conc, 2)
        if r.armor_bonus_cover_5plus:
            sn, need, cn = t.armor, t.save, bonus
        else:
            sn, need, cn = t.armor + bonus, t.save, 0
    else:
        sn, need, cn = hexo.defence + conc, 5, 0
    if dice + aug + sn + cn > 1000:
        return off
    protect = bool(r.concealed_infantry_not_reduced and t.infantry and conc)
    side, dis = (1 if t.reduced else 0), int(t.disrupted)
    fast = np.zeros(K.F_TAB + dice + 1, dtype=np.int64)
    fast[K.F_ON] = 1
    fast[K.F_DICE] = dice
    fast[K.F_ALL] = dice + aug
    fast[K.F_TH] = fn.to_hit
    fast[K.F_SAVE_N] = sn
    fast[K.F_SAVE_NEED] = need
    fast[K.F_COVER_N] = cn
    ip = hexo.improved_position
    fast[K.F_IP_BEFORE] = ip and r.improved_position == "before-saves"
    fast[K.F_IP_AFTER] = ip and r.improved_position == "after-saves"
    for u in range(dice + 1):
        per_attack = r.hit_ladder == "one-step-per-attack"
        after = apply_hits(side, dis, u, protect, per_attack)[:2]
        fast[K.F_TAB + u] = state_code(*after) + 8 * detail_code(*after)
    return fast


def _bad(key: str, problem: str) -> Exception:
    from .compile import BadInput

    return BadInput(key, problem)
