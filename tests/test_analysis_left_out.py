"""Left-out entries of a matchup: the notes' wording and grouping, and globs read like a
whole library (the CLI side: tests/test_analysis_cli.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oddslab._schema import ScenarioError
from oddslab.analysis.left_out import left_out_notes
from oddslab.analysis.matchup import matchup, select_entries

WEAPONS = Path(__file__).resolve().parent.parent / "oddslab/examples/libraries/generic-weapons.toml"


def test_a_few_left_out_entries_get_a_line_each_many_one_line():
    few = [("a.toml:x", "target", "not a target profile: it has attacker keys (attacks)")]
    assert left_out_notes(few) == [
        "left out a.toml:x (target): not a target profile: it has attacker keys (attacks)"
    ]
    many = [(f"a.toml:u{i}", "attacker", "not an attacker profile: it has target keys (save)")
            for i in range(4)] + [("b.toml:v", "attacker", "does not fit the attacker slot: k: bad")]  # fmt: skip
    assert left_out_notes(many) == [
        "left out 4 entries as attackers (not an attacker profile): a.toml:u0,u1,u2,u3",
        "left out b.toml:v (attacker): does not fit the attacker slot: k: bad",
    ]


def test_glob_entries_are_not_named_one_by_one():
    sel = select_entries([f"{WEAPONS}:plasma_squad,*o*"])
    assert [e.key for e in sel.entries] == ["plasma_squad", "bolt_squad", "horde", "ogres"]
    assert sel.named == (True, False, False, False)
    assert sel.globs == ("", *[f"{WEAPONS}:plasma_squad,*o*"] * 3)
    res = matchup(f"{WEAPONS}:plasma_squad", f"{WEAPONS}:*o*", trials=100)
    assert [e.key for e in res.targets] == ["horde", "ogres"]
    assert res.left_out == [("generic-weapons.toml:bolt_squad", "target",
                             "not a target profile: it has attacker keys (attacks, skill, "
                             "strength, ap)")]  # fmt: skip
    with pytest.raises(ScenarioError, match=r"\*squad\*: no entry it picks fits the target slot"):
        matchup(f"{WEAPONS}:plasma_squad", f"{WEAPONS}:*squad*", trials=100)


def test_a_rule_of_the_game_is_said_in_its_own_words_and_a_named_entry_at_fault_is_raised():
    import numpy as np

    from oddslab.analysis.left_out import Side, explain_left_out

    sel = select_entries(str(WEAPONS))  # both sides the whole library, nothing kept: no tries
    n = len(sel.entries)
    why = np.zeros((n, n), dtype=np.int32)
    names = [f"w:{e.key}" for e in sel.entries]
    sides = (Side(sel, [], names, names), Side(sel, [], names, names))
    got = explain_left_out(sides, why, ["actions[0].actor: artillery may not initiate melee"],
                           {}, "t", WEAPONS.parent)  # fmt: skip
    assert got[0][2] == "cannot be an attacker: artillery may not initiate melee (actions[0].actor)"
    # the named attacker (a target profile) is at fault, not the glob: its own full error
    with pytest.raises(ScenarioError, match=r"horde vs .*attacker.weapons\[0\].attacks: required"):
        matchup(f"{WEAPONS}:horde", f"{WEAPONS}:*o*", trials=100)
