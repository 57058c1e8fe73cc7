"""Armoured Clash attacks: the situation of one attack and the rule switches.

Frozen dataclasses; no numba here. Every rule, default and assumption is documented in
``docs/armoured-clash.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = [
    "Situation",
    "Attack",
    "Rules",
    "REROLL_SOURCES",
    "EXPIRY",
    "SECONDARY_RETALIATION",
    "CANNOT_BE_SUPPRESSED",
    "RETALIATION_ANNIHILATES",
    "SECONDARIES_WITH_ADVANTAGE",
    "GARRISON_EXIT",
]

#: where extra re-rolls come from (a command cannot be issued to a disordered unit)
REROLL_SOURCES = ("command", "special rule")
EXPIRY = ("held_at_start", "all")
#: when secondary combatants retaliate: alongside the target's retaliation, or always
SECONDARY_RETALIATION = ("with_target", "always")
#: what "cannot be suppressed" (opportunity fire's target, aircraft) removes: the test, or
#: only the suppressed status a failed test gives
CANNOT_BE_SUPPRESSED = ("no_test", "no_status")
#: a strike after the first (a retaliation) that annihilates the unit it strikes: the action
#: ends there, or the combat is resolved by models destroyed all the same (step 4)
RETALIATION_ANNIHILATES = ("action_ends", "most_kills")
#: under a defensive advantage, secondary combatants strike with the target (first) or after
#: the charger
SECONDARIES_WITH_ADVANTAGE = ("with_target", "after_charger")
#: which garrison that loses a close quarters combat exits instead of withdrawing: any, or
#: only one that was charged (the target or a secondary combatant)
GARRISON_EXIT = ("any_loss", "when_charged")


@dataclass(frozen=True)
class Situation:
    """Circumstances of one attack (combat rating bonuses and penalties, options).

    Ranged attacks: ``aiming``, ``short_range`` (bonuses); ``concealed``,
    ``opportunity_fire``, ``reforming`` (penalties; a suppressed attacker is a penalty taken
    from its status, and a garrisoned target always counts as concealed). ``exposed``: the
    attack prioritises exposed models, ``exposed`` of them (the concealed penalty is then
    ignored, only exposed models can be destroyed and damage beyond them is discarded).

    Close quarters: ``outflanking``, ``supported`` (bonuses; *overwhelming* is derived from
    the unit types), ``threatened`` (penalty); ``defensive_advantage`` when the charge crossed
    difficult terrain (storming a garrisoned building gives it anyway);
    ``defender_supported`` / ``defender_threatened`` for the retaliation; ``secondary``:
    names of secondary combatants that retaliate alongside the target. The four flags
    default to None = derived, since the text defines them by the same two facts seen from
    either side (the charger *supported*: a unit of its side other than it within 2" of the
    target, which is the target's retaliation *threatened*; the charger *threatened*: a unit
    of the target's side other than the target within 2" of the charger, which is the
    target's retaliation *supported*). So the charger is supported when
    ``defender_threatened`` is True, and threatened when ``defender_supported`` is True or a
    secondary combatant is in contact; the target's retaliation is threatened when the
    charger is supported, and supported when the charger is threatened or a secondary
    combatant is in contact; a secondary's retaliation is supported (the target is in
    contact with the charger) and threatened only when ``defender_threatened`` says so (the
    charger's support is near the target, not necessarily near it). True / False override
    the derivation (``defender_*`` for every retaliating unit).
    ``charge``: the close quarters attack follows a charge manoeuvre (default True; False for
    a unit already in contact, which attacks without moving).

    ``new_activation``: this step starts a new activation of its active unit (the attacker,
    or the target for opportunity fire). None (default): when the previous step's active
    unit is another unit (or this is the first step).

    ``extra_rerolls`` / ``defender_extra_rerolls``: faces ("glancing", "miss", "blank") a
    special rule or command also lets the attacker / the retaliating units re-roll;
    ``extra_rerolls_from`` / ``defender_extra_rerolls_from``: ``"command"`` (default: cannot
    be issued to a disordered unit, and one general issues one command per activation, so a
    retaliation command helps the charge target only) or ``"special rule"``.
    ``rating`` / ``defender_rating`` force a combat rating instead of counting.
    """

    aiming: bool = False
    short_range: bool = False
    concealed: bool = False
    exposed: int | None = None
    opportunity_fire: bool = False
    reforming: bool = False
    outflanking: bool = False
    supported: bool | None = None
    threatened: bool | None = None
    defensive_advantage: bool = False
    defender_supported: bool | None = None
    defender_threatened: bool | None = None
    secondary: Sequence[str] = ()
    charge: bool = True
    new_activation: bool | None = None
    extra_rerolls: Sequence[str] = ()
    extra_rerolls_from: str = "command"
    defender_extra_rerolls: Sequence[str] = ()
    defender_extra_rerolls_from: str = "command"
    rating: str | None = None
    defender_rating: str | None = None

    def __post_init__(self) -> None:
        for key in ("secondary", "extra_rerolls", "defender_extra_rerolls"):
            object.__setattr__(self, key, tuple(getattr(self, key)))
        for key in ("extra_rerolls_from", "defender_extra_rerolls_from"):
            if getattr(self, key) not in REROLL_SOURCES:
                raise ValueError(f"{key}: expected one of {', '.join(REROLL_SOURCES)}")

    def supported_now(self) -> bool:
        """The charger's *supported* bonus: the override, else the retaliation threatened."""
        return bool(self.defender_threatened) if self.supported is None else self.supported

    def threatened_now(self) -> bool:
        """The charger's *threatened* penalty: the override, else any secondary combatant or
        the retaliation supported."""
        if self.threatened is not None:
            return self.threatened
        return bool(self.secondary) or bool(self.defender_supported)

    def retaliation_supported(self) -> bool:
        """The charge target's *supported* bonus: the override, else the charger threatened
        (a secondary combatant counts even when ``threatened`` is overridden to False)."""
        if self.defender_supported is not None:
            return self.defender_supported
        return self.threatened_now() or bool(self.secondary)

    def retaliation_threatened(self) -> bool:
        """The charge target's *threatened* penalty: the override, else the charger supported."""
        if self.defender_threatened is not None:
            return self.defender_threatened
        return bool(self.supported)

    def secondary_supported(self) -> bool:
        """A secondary's *supported* bonus: the override, else True (the target is in contact)."""
        return True if self.defender_supported is None else self.defender_supported

    def secondary_threatened(self) -> bool:
        """A secondary's *threatened* penalty: the override, else False (not implied)."""
        return bool(self.defender_threatened)


@dataclass(frozen=True)
class Attack:
    """One attack of the sequence.

    Parameters
    ----------
    attacker, target : str
        Unit names.
    kind : {"ranged", "close"}
    weapon : str or None
        Ranged: the row's name (default: the first row that can attack the target's
        category). Close: ``"melee"`` (default) or ``"impact"``.
    situation : Situation
    """

    attacker: str
    target: str
    kind: str = "ranged"
    weapon: str | None = None
    situation: Situation = field(default_factory=Situation)


@dataclass(frozen=True)
class Rules:
    """Rule switches for points the text leaves open.

    Parameters
    ----------
    embarked_tests : {"always", "on_fail"}
        ``"always"``: whenever an occupied transport takes a suppression test its embarked
        unit also tests (the text: "has to take a suppression test"); ``"on_fail"``: only
        when the transport fails.
    rally_test : bool
        A suppressed unit takes a rally test when it starts an activation in the sequence,
        and a suppressed focus unit takes one after the sequence (its next activation).
    activations : bool
        Model activations (default True): each step belongs to its active unit's activation;
        a unit stops taking cover when its activation starts, and loses suppressed and
        disordered at the end of its next activation. False: statuses last the whole
        sequence and no rally test is taken inside it (the behaviour before 2026-11).
    status_expiry : {"held_at_start", "all"}
        ``"held_at_start"`` (default): at the end of an activation the unit loses the
        suppressed / disordered statuses it had when the activation started (one gained
        during it lasts to the end of its *next* activation); ``"all"``: it loses them all.
    secondary_retaliation : {"with_target", "always"}
        ``"with_target"`` (default): secondary combatants "retaliate at the same time that
        the target of the charge does", so not when the target has no MELEE score (it makes
        no retaliatory attack); ``"always"``: they strike the charger even then.
    cannot_be_suppressed : {"no_test", "no_status"}
        The target of opportunity fire and an aircraft "cannot be suppressed".
        ``"no_test"`` (default): they take no suppression test (the step the text's "unlike
        a standard ranged attack" refers to), so they never fall back or break from it;
        ``"no_status"``: they take the test and a failure does not make them suppressed, but
        one already suppressed falls back and one at its BREAK LIMIT breaks.
    retaliation_annihilates : {"action_ends", "most_kills"}
        A strike after the first (the target's retaliation, or the charger's after a
        defensive advantage's first strike) annihilates the unit it strikes.
        ``"action_ends"`` (default): "The action ends if the target unit is annihilated": no
        step 4, the unit left on the table counts as the winner and neither withdraws nor
        tests; ``"most_kills"``: step 4 all the same ("Then continue to step 4"): the unit
        that destroyed more models wins, so a survivor that destroyed fewer loses, withdraws
        and tests.
    secondaries_with_advantage : {"with_target", "after_charger"}
        Under a defensive advantage: ``"with_target"`` (default): secondary combatants strike
        "at the same time that the target of the charge does", first;
        ``"after_charger"``: the advantage is the target's, so they strike after the
        charger, as a retaliation.
    garrison_exit : {"any_loss", "when_charged"}
        A garrison that loses a close quarters combat "immediately makes an exit manoeuvre
        instead of withdrawing": it takes no withdrawal losses, still takes the loser's
        suppression test, and is outside its building from then on. ``"any_loss"``
        (default): every garrison that loses, including one attacking from inside its
        building; ``"when_charged"``: only a charged garrison (the target or a secondary
        combatant; the sentence stands under *Storming a building*), so one that attacks
        from inside and loses withdraws as any unit and stays in its building.
    """

    embarked_tests: str = "always"
    rally_test: bool = True
    activations: bool = True
    status_expiry: str = "held_at_start"
    secondary_retaliation: str = "with_target"
    cannot_be_suppressed: str = "no_test"
    retaliation_annihilates: str = "action_ends"
    secondaries_with_advantage: str = "with_target"
    garrison_exit: str = "any_loss"

    def __post_init__(self) -> None:
        if self.embarked_tests not in ("always", "on_fail"):
            raise ValueError("embarked_tests: expected always or on_fail")
        if self.status_expiry not in EXPIRY:
            raise ValueError(f"status_expiry: expected one of {', '.join(EXPIRY)}")
        for key, choices in (
            ("secondary_retaliation", SECONDARY_RETALIATION),
            ("cannot_be_suppressed", CANNOT_BE_SUPPRESSED),
            ("retaliation_annihilates", RETALIATION_ANNIHILATES),
            ("secondaries_with_advantage", SECONDARIES_WITH_ADVANTAGE),
            ("garrison_exit", GARRISON_EXIT),
        ):
            if getattr(self, key) not in choices:
                raise ValueError(f"{key}: expected one of {', '.join(choices)}")
