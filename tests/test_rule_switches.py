"""Every rule switch of every ruleset has a test on the path that uses it.

A switch is a field of a ruleset's ``Rules`` dataclass. A test covers it when it carries
``@pytest.mark.rule_switch("<ruleset>", "<field>")`` (or the mark on a ``pytest.param``): the
brief's promise is that such a test compares each value of the switch with the naive
reference or an exact answer in a scenario that reaches the general kernel. This file finds
the fields by introspecting the model modules and the marks by scanning tests/*.py, so a new
switch without a marked test fails here.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

# ruleset name as in scenario files -> package under oddslab.rulesets
RULESETS = {
    "generic": "generic",
    "armoured-clash": "armoured_clash",
    "assault-phase": "assault_phase",
    "vom-kriege": "vom_kriege",
    "hex-platoon": "hex_platoon",
    "formation-actions": "formation_actions",
}

MARK = re.compile(r"""rule_switch\(\s*["']([a-z-]+)["']\s*,\s*["']([a-z_0-9]+)["']\s*\)""")


def rule_fields() -> list[tuple[str, str]]:
    """(ruleset, field) for every field of every ruleset's ``Rules``, and every other key a
    ruleset declares as a rule switch (``switch=True`` in its ``schema.py``: Vom Kriege's
    command-dice readings, for instance)."""
    from oddslab import ruleset

    out = []
    for name, package in RULESETS.items():
        model = importlib.import_module(f"oddslab.rulesets.{package}.model")
        out += [(name, f.name) for f in dataclasses.fields(model.Rules)]
        declared = ruleset.get(name).keys
        for path, key in declared.root.walk():
            if key.switch and (name, key.name) not in out:
                out.append((name, key.name))
    return out


def marked() -> set[tuple[str, str]]:
    """(ruleset, field) pairs named by a ``rule_switch`` mark in tests/*.py."""
    found: set[tuple[str, str]] = set()
    for path in sorted(TESTS.glob("*.py")):
        if path.name == Path(__file__).name:
            continue
        found |= set(MARK.findall(path.read_text(encoding="utf-8")))
    return found


#: switches known to lack a marked test (to be written): each must really lack one, so the
#: list only shrinks
PENDING: set[tuple[str, str]] = set()


def test_every_ruleset_is_listed():
    from oddslab.scenario import RULESETS as in_files

    assert {n: m.rsplit(".", 1)[1] for n, m in in_files.items()} == RULESETS


def test_marks_name_real_switches():
    fields = set(rule_fields())
    unknown = sorted(marked() - fields)
    assert not unknown, f"rule_switch marks naming no Rules field: {unknown}"


def test_pending_switches_are_really_pending():
    done = PENDING & marked()
    assert not done, f"marked now, remove from PENDING: {sorted(done)}"


@pytest.mark.parametrize("ruleset, field", rule_fields(), ids=lambda x: x)
def test_every_switch_has_a_marked_test(ruleset, field):
    if (ruleset, field) in PENDING:
        pytest.xfail("no marked test yet (PENDING)")
    assert (ruleset, field) in marked(), (
        f'no test marked @pytest.mark.rule_switch("{ruleset}", "{field}"): compare each value '
        "with the naive reference or an exact answer in a scenario that reaches the general kernel"
    )
