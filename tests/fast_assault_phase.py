"""Fast independent reference for the assault phase: numpy, vectorised across trials.

Written from the rule text (/work/shared/rules/assault-phase.txt) and the readings of
docs/assault-phase.md, not from the kernel, its compile tables or the pure-Python reference
(tests/naive_assault_phase.py), for combats of one unit a side, every model in base contact,
for up to ``max_turns`` turns:

- charge bonus: +1 attack for the charging side's models in base contact unless their unit
  fired; +1 for two weapons;
- Initiative steps from 10 down to 1, every blow of a step simultaneous (rolled against the
  state at the start of the step), casualties removed at the end of the step; a power fist
  strikes at Initiative 1, doubles Strength (at most 10) and allows no armour save, a power
  weapon allows no armour save (the invulnerable save is still taken);
- to hit by the WS chart against the enemy unit's majority WS (no majority type: the lowest
  WS of its living models), to wound by the S v T chart against its majority Toughness
  (equal numbers: ``tie_toughness``), both under ``Rules.majority``; charts overridable;
- saves: one armour save and one invulnerable save per unit (the majority-save procedure
  then saves every wound with them), the better allowed one taken; a wound on a unit with
  nobody left is discarded; one-wound models removed in the order their groups are listed;
- the assault result (wounds inflicted; a side wiped out loses; equal: a draw), the loser's
  Leadership test (2D6 above the highest Ld of its living models fails; ``double_one_passes``
  and ``below_half_penalty``), a trapped unit that fails is destroyed, otherwise it falls
  back 2D6 (3D6 fast) and a winner rolling more on 2D6 (3D6 fast) sweeps: its models strike
  once more with their profile Attacks (special weapons, no bonus), every attack hitting;
- further turns while neither side fell back or was destroyed: no charge bonus, the assault
  result of the wounds inflicted in that turn, morale again (every model is in base contact
  already, so piling in changes nothing); the first turn's result, the fight won (the enemy
  fled or was destroyed and own models remain) and the turn the combat ended are reported.

The combat is played with counts: the number of successes of ``k`` independent dice each
succeeding with probability ``p`` is drawn as one ``Binomial(k, p)`` per trial, which is the
same distribution as rolling the dice. Anything outside this shape raises
``NotImplementedError`` naming the feature. About 1.5 us per trial for the benchmark combat
(one turn), 1.5-4 us for three turns (noisy: shared machine).
"""

from __future__ import annotations

import numpy as np

from oddslab.rulesets.assault_phase import AssaultScenario, Rules

__all__ = ["simulate", "supported"]

BLOCK = 25_000
SIDES = ("attacker", "defender")
_DEFAULT_RULES = Rules()
#: rule switches this reference reads; the others must stay at their defaults
_READS = (
    "max_turns",
    "pile_in",  # every model is in base contact from the start: piling in changes nothing
    "double_one_passes",
    "below_half_penalty",
    "tie_toughness",
    "majority",
    "to_hit_chart",
    "to_wound_chart",
)


def supported(sc: AssaultScenario) -> None:
    """Raise ``NotImplementedError`` naming the first feature of ``sc`` this reference lacks."""

    def no(what: str) -> None:
        raise NotImplementedError(f"fast assault reference: {what}")

    for side in (sc.attacker, sc.defender):
        if len(side.units) != 1:
            no("one unit a side only")
        unit = side.units[0]
        if unit.grenades != "none" or unit.in_cover or unit.falling_back:
            no("grenades, cover and falling back are not modelled")
        if unit.difficult_terrain_distance:
            no("charges through difficult terrain are not modelled")
        saves = {(g.save, g.invulnerable) for g in unit.groups}
        if len(saves) != 1:
            no("one armour and invulnerable save per unit only")
        for g in unit.groups:
            if g.w != 1:
                no("one-wound models only")
            if g.weapon not in ("none", "power-fist", "power-weapon"):
                no(f"weapon {g.weapon!r}")
            if g.rending or g.poisoned or g.heavy or g.monstrous or g.independent:
                no("rending, poisoned, heavy, monstrous and independent characters")
            if g.in_contact != g.count or g.supporting or g.targets:
                no("every model in base contact, no target")
    if sc.defender.units[0].fired:
        no("a defending unit that fired")
    for field in Rules.__dataclass_fields__:
        if field not in _READS and getattr(sc.rules, field) != getattr(_DEFAULT_RULES, field):
            no(f"rule switch {field} = {getattr(sc.rules, field)!r}")


def _to_hit(ws: int, target_ws: int) -> int:
    """The standard chart (docs/assault-phase.md; the text's chart is a missing picture):
    3+ against a lower WS, 5+ against a WS more than twice the attacker's, else 4+."""
    return 3 if target_ws < ws else 5 if target_ws > 2 * ws else 4


def _to_wound(s: int, t: int) -> int:
    """S v T: 2+ at S >= T+2, 3+, 4+, 5+ at T+1, T, T-1, 6+ at T-2 and T-3, else never."""
    return {1: 3, 0: 4, -1: 5, -2: 6, -3: 6}.get(s - t, 2 if s - t >= 2 else 7)


def _chart(rules: Rules, name: str) -> np.ndarray:
    """Roll needed, ``[row value][column value]`` (1-based; 7 = impossible)."""
    override = getattr(rules, name)
    plain = _to_hit if name == "to_hit_chart" else _to_wound
    tab = np.full((11, 11), 7, dtype=np.int64)
    for a in range(1, 11):
        for d in range(1, 11):
            tab[a, d] = override[a - 1][d - 1] if override else plain(a, d)
    return tab


def _p_roll(need: np.ndarray) -> np.ndarray:
    """P(a D6 rolls ``need`` or more); 7 and above: never."""
    return np.clip(7 - need, 0, 6) / 6.0


def _majority(alive: list[np.ndarray], values: list[int], kind: str, rules: Rules) -> np.ndarray:
    """Per trial, the majority ``kind`` ("ws" or "t") of the living models.

    ``alive``: one int64[n] array of living models per group; ``values``: the groups' values.
    A unit whose groups share one value has it whatever the reading.
    """
    distinct = sorted(set(values))
    if len(distinct) == 1:
        return np.full(len(alive[0]), distinct[0])
    cnt = np.zeros((len(alive[0]), len(distinct)), dtype=np.int64)
    for a, v in zip(alive, values, strict=True):
        cnt[:, distinct.index(v)] += a
    vals = np.array(distinct)
    total = cnt.sum(axis=1)
    lowest = np.where(cnt > 0, vals, 10).min(axis=1)  # 10: nobody left (no attack follows)
    top = cnt.max(axis=1)
    tied = cnt == top[:, None]
    if kind == "t":  # equal numbers: the owner chooses
        pick = np.where(tied, vals, 0).max(axis=1)
        if rules.tie_toughness == "lower":
            pick = np.where(tied, vals, 10).min(axis=1)
    else:  # "If there is no majority Weapon Skill type use the lowest Weapon Skill"
        pick = lowest
    plural = vals[np.argmax(cnt, axis=1)]
    if rules.majority == "most-common":
        return np.where(tied.sum(axis=1) == 1, plural, pick)
    # more than half the models; exactly two values at half each: the tie rules
    halves = (tied.sum(axis=1) == 2) & (2 * top == total)
    return np.where(2 * top > total, plural, np.where(halves, pick, lowest))


class _Combat:
    """One block of trials: living models per group, and the statistics so far."""

    def __init__(self, sc: AssaultScenario, rng: np.random.Generator, n: int) -> None:
        self.sc, self.rng, self.n = sc, rng, n
        self.units = [sc.attacker.units[0], sc.defender.units[0]]
        self.groups = [u.groups for u in self.units]
        #: living models, one int64[n] array per group of each side
        self.alive = [[np.full(n, g.count) for g in gs] for gs in self.groups]
        self.start = [sum(g.count for g in gs) for gs in self.groups]
        self.hit_tab = _chart(sc.rules, "to_hit_chart")
        self.wound_tab = _chart(sc.rules, "to_wound_chart")
        z = np.zeros(n, dtype=np.int64)
        self.stat = {}
        for side in SIDES:
            for key in ("attacks_made", "wounds_lost", "fell_back", "swept", "destroyed"):
                self.stat[f"{side}_{key}"] = z.copy()
            for key in ("hits_on", "wounds_on", "unsaved_wounds_on"):
                self.stat[f"{key}_{side}"] = z.copy()
        for key in ("attacker_won_assault", "defender_won_assault", "assault_drawn"):
            self.stat[key] = z.copy()

    def values(self, side: int, attr: str) -> list[int]:
        return [getattr(g, attr) for g in self.groups[side]]

    def left(self, side: int) -> np.ndarray:
        """Living models of ``side``, per trial."""
        return sum(self.alive[side][1:], self.alive[side][0].copy())

    def strike(self, side: int, g: int, attacks: np.ndarray, auto_hit: bool) -> np.ndarray:
        """Unsaved wounds (before the cap at the models left) of ``attacks`` by group ``g``."""
        grp, enemy = self.groups[side][g], 1 - side
        alive = self.alive[enemy]
        e_ws = _majority(alive, self.values(enemy, "ws"), "ws", self.sc.rules)
        e_t = _majority(alive, self.values(enemy, "t"), "t", self.sc.rules)
        if auto_hit:
            hits = attacks
        else:
            hits = self.rng.binomial(attacks, _p_roll(self.hit_tab[grp.ws, e_ws]))
        fist = grp.weapon == "power-fist"
        s = min(2 * grp.s, 10) if fist else grp.s
        wounds = self.rng.binomial(hits, _p_roll(self.wound_tab[s, e_t]))
        target = self.groups[enemy][0]
        armour = 7 if grp.weapon in ("power-fist", "power-weapon") else target.save
        save = min(armour, target.invulnerable)
        unsaved = self.rng.binomial(wounds, 1.0 - _p_roll(np.array(save)))
        name = SIDES[enemy]
        self.stat[f"{SIDES[side]}_attacks_made"] += attacks
        self.stat[f"hits_on_{name}"] += hits
        self.stat[f"wounds_on_{name}"] += wounds
        return unsaved

    def remove(self, side: int, unsaved: np.ndarray) -> np.ndarray:
        """Slay up to ``unsaved`` one-wound models of ``side``, groups in listed order."""
        slain = np.minimum(unsaved, self.left(side))
        left = slain.copy()
        for alive in self.alive[side]:
            k = np.minimum(left, alive)
            alive -= k
            left -= k
        name = SIDES[side]
        self.stat[f"{name}_wounds_lost"] += slain
        self.stat[f"unsaved_wounds_on_{name}"] += slain
        return slain

    def fight(self, turn: int, active: np.ndarray) -> None:
        """One turn's Initiative steps in the trials still ``active``; the charge bonus in the
        first turn only."""
        bonus = turn == 1 and not self.units[0].fired
        for step in range(10, 0, -1):
            unsaved: list[np.ndarray | None] = [None, None]
            for side in (0, 1):
                strikers = [
                    g
                    for g, grp in enumerate(self.groups[side])
                    if (1 if grp.weapon == "power-fist" else grp.i) == step
                ]
                if not strikers:
                    continue
                fights = active & (self.left(1 - side) > 0)
                unsaved[side] = np.zeros(self.n, dtype=np.int64)
                for g in strikers:
                    grp = self.groups[side][g]
                    per = grp.a + grp.two_weapons + (side == 0 and bonus)
                    attacks = np.where(fights, self.alive[side][g] * per, 0)
                    unsaved[side] += self.strike(side, g, attacks, auto_hit=False)
            for side in (0, 1):  # simultaneous: casualties at the end of the step
                if unsaved[side] is not None:
                    self.remove(1 - side, unsaved[side])

    def leadership(self, side: int) -> np.ndarray:
        ld = np.zeros(self.n, dtype=np.int64)
        for alive, value in zip(self.alive[side], self.values(side, "ld"), strict=True):
            ld = np.maximum(ld, np.where(alive > 0, value, 0))
        if self.sc.rules.below_half_penalty:
            ld = ld - (2 * self.left(side) < self.start[side])
        return ld

    def d6s(self, dice: int) -> np.ndarray:
        """Sum of ``dice`` D6, per trial."""
        total = self.rng.integers(1, 7, size=self.n)
        for _ in range(dice - 1):
            total += self.rng.integers(1, 7, size=self.n)
        return total

    def result(self, turn: int, active: np.ndarray, lost_before: list[np.ndarray]) -> None:
        """The assault result of this turn (wounds inflicted in it), morale, fall back and
        sweeping advance, in the ``active`` trials."""
        left = [self.left(side) for side in (0, 1)]
        by_att = self.stat["defender_wounds_lost"] - lost_before[1]
        by_def = self.stat["attacker_wounds_lost"] - lost_before[0]
        wiped = (left[0] == 0) | (left[1] == 0)
        att_wins = active & np.where(wiped, left[0] > 0, by_att > by_def)
        def_wins = active & np.where(wiped, left[1] > 0, by_def > by_att)
        if turn == 1:
            self.stat["attacker_won_assault"] += att_wins
            self.stat["defender_won_assault"] += def_wins
            self.stat["assault_drawn"] += active & ~(att_wins | def_wins)
        for loser, lost in ((1, att_wins), (0, def_wins)):
            winner, name = 1 - loser, SIDES[loser]
            roll = self.d6s(2)
            fails = roll > self.leadership(loser)
            if self.sc.rules.double_one_passes:
                fails &= roll != 2
            fails &= lost & (left[loser] > 0)
            if self.units[loser].trapped:
                self.stat[f"{name}_destroyed"] += fails
                continue
            self.stat[f"{name}_fell_back"] += fails
            fall = self.d6s(3 if self.units[loser].fast else 2)
            chase = self.d6s(3 if self.units[winner].fast else 2)
            caught = fails & (chase > fall)
            self.stat[f"{name}_swept"] += caught
            if caught.any():
                unsaved = np.zeros(self.n, dtype=np.int64)
                for g, grp in enumerate(self.groups[winner]):
                    attacks = np.where(caught, self.alive[winner][g] * grp.a, 0)
                    unsaved += self.strike(winner, g, attacks, auto_hit=True)
                self.remove(loser, unsaved)

    def play(self) -> None:
        """Turns while both sides are in the combat, up to ``max_turns``."""
        turns = self.sc.rules.max_turns
        active = np.ones(self.n, dtype=bool)
        ended = np.full(self.n, turns + 1, dtype=np.int64)
        for turn in range(1, turns + 1):
            lost_before = [self.stat[f"{name}_wounds_lost"].copy() for name in SIDES]
            self.fight(turn, active)
            self.result(turn, active, lost_before)
            over = np.zeros(self.n, dtype=bool)
            for side, name in enumerate(SIDES):
                over |= (self.left(side) == 0) | (self.stat[f"{name}_fell_back"] > 0)
                over |= self.stat[f"{name}_destroyed"] > 0
            ended = np.where(active & over, turn, ended)
            active &= ~over
        if turns > 1:
            self.stat["combat_ended_turn"] = ended
        for side, name in enumerate(SIDES):
            self.stat[f"{name}_destroyed"] |= self.left(side) == 0
        for side, name in enumerate(SIDES):  # the enemy fled or was destroyed, own models left
            enemy = SIDES[1 - side]
            gone = (self.stat[f"{enemy}_fell_back"] | self.stat[f"{enemy}_destroyed"]) > 0
            self.stat[f"{name}_won_fight"] = gone & (self.left(side) > 0)

    def statistics(self) -> dict[str, np.ndarray]:
        out = dict(self.stat)
        for side, name in enumerate(SIDES):
            out[f"{name}_models_lost"] = self.start[side] - self.left(side)
            for g, grp in enumerate(self.groups[side]):
                unit = self.units[side].name
                out[f"{name}.{unit}.{grp.name}.models_lost"] = grp.count - self.alive[side][g]
        return out


def simulate(sc: AssaultScenario, trials: int, seed: int) -> dict[str, np.ndarray]:
    """Histograms (``{statistic: int64 counts by value}``) of ``trials`` combats, drawn from
    ``np.random.default_rng(seed)`` in blocks of ``BLOCK`` trials (memory flat in trials)."""
    supported(sc)
    rng = np.random.default_rng(seed)
    hist: dict[str, np.ndarray] = {}
    for start in range(0, trials, BLOCK):
        combat = _Combat(sc, rng, min(BLOCK, trials - start))
        combat.play()
        for name, v in combat.statistics().items():
            h = np.bincount(np.asarray(v, dtype=np.int64))
            t = hist.get(name, np.zeros(0, dtype=np.int64))
            size = max(len(t), len(h))
            hist[name] = np.pad(t, (0, size - len(t))) + np.pad(h, (0, size - len(h)))
    return hist
