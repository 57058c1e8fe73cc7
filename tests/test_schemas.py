"""Declared keys of the built-in rulesets: JSON Schema, examples, libraries, docs tables.

For every ruleset whose keys are declared (:mod:`oddslab.keys`): its JSON Schema is a valid
draft 2020-12 schema; every shipped example, and every scenario its library's matchup
template makes, validates against it; a file the schema refuses, the reader refuses too; and
the key table in its docs page is the one the declaration gives (``tools/docs_keys.py``).
"""

from __future__ import annotations

import copy
import tomllib

import jsonschema
import pytest

from oddslab import ruleset
from oddslab._schema import ScenarioError
from oddslab.libraries import expand_uses, load_library
from oddslab.scenario import from_dict

DECLARED = [n for n in ruleset.BUILTIN if getattr(ruleset.get(n), "keys", None) is not None]


def test_some_builtin_rulesets_are_declared():
    assert "armoured-clash" in DECLARED


@pytest.mark.parametrize("name", DECLARED)
def test_examples_and_library_validate(name):
    game = ruleset.get(name)
    doc = game.schema()
    jsonschema.Draft202012Validator.check_schema(doc)
    validator = jsonschema.Draft202012Validator(doc)
    for path in game.examples():
        data = expand_uses(tomllib.loads(path.read_text()), str(path), path.parent)
        errors = [e.message for e in validator.iter_errors(data)]
        assert not errors, (path.name, errors)
    lib_path = game.library()
    lib = load_library(lib_path)
    template = tomllib.loads(lib_path.read_text()).get("matchup", {}).get("template")
    assert template is not None
    keys = [e.key for e in lib]
    text = str(template)
    fitted = 0
    for a in keys:
        for t in keys:
            refs = {"{attacker}": f"{lib_path.name}:{a}", "{target}": f"{lib_path.name}:{t}"}
            try:
                data = expand_uses(_fill(template, refs), str(lib_path), lib_path.parent)
                from_dict(copy.deepcopy(data))
            except ScenarioError:
                continue  # the entries do not fit these slots: a matchup leaves the pair out
            fitted += 1
            for e in validator.iter_errors(data):
                pytest.fail(f"{a} vs {t}: {e.message}")
    assert "{attacker}" in text and "{target}" in text
    assert fitted >= len(keys) // 2, fitted


def _fill(node, refs):
    if isinstance(node, dict):
        return {k: _fill(v, refs) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, refs) for v in node]
    return refs.get(node, node) if isinstance(node, str) else node


def _table_at(data, parts):
    """The table a dotted key path (``units.NAME.ranged[]``) lands in, in ``data``, or None."""
    node = data
    for part in parts:
        name = part.removesuffix("[]")
        if name == "NAME":
            if not isinstance(node, dict) or not node:
                return None
            node = next(iter(node.values()))
            continue
        if not isinstance(node, dict) or name not in node:
            return None
        node = node[name]
        if part.endswith("[]"):
            if not isinstance(node, list) or not node:
                return None
            node = node[0]
    return node if isinstance(node, dict) else None


@pytest.mark.parametrize("name", DECLARED)
def test_what_the_schema_refuses_the_reader_refuses(name):
    """Each declared key given a value of the wrong type, in every example that has its
    table: the JSON Schema and the reader both refuse it; an unknown key likewise."""
    game = ruleset.get(name)
    validator = jsonschema.Draft202012Validator(game.schema())
    tried = 0
    for example in game.examples():
        base = expand_uses(tomllib.loads(example.read_text()), str(example), example.parent)
        for path, key in game.keys.root.walk():
            if key.kind == "custom" and not key.custom[1]:
                continue  # a key that takes anything (bookkeeping the rules ignore)
            *parents, leaf = path.split(" (")[0].split(".")  # "steps[].firer (fire, mortar)"
            for bad_value in (
                ({"a": {"b": 1}},) if key.kind in ("str", "str_list", "custom") else ("?",)
            ):
                data = copy.deepcopy(base)
                table = _table_at(data, parents)
                if table is None:
                    continue
                table[leaf] = bad_value
                tried += 1
                assert list(validator.iter_errors(data)), (example.name, path)
                with pytest.raises(ScenarioError):
                    from_dict(data, source=example.name)
        data = copy.deepcopy(base)
        data["no_such_key"] = 1
        assert list(validator.iter_errors(data))
        with pytest.raises(ScenarioError, match="no_such_key: unknown key"):
            from_dict(data)
    assert tried > 20


def test_docs_tables_are_the_declared_ones(root):
    import importlib.util

    # tools/docs_keys.py (tests/ has a docs_keys.py of its own: load this one by its path)
    spec = importlib.util.spec_from_file_location(
        "tools_docs_keys", root / "tools" / "docs_keys.py"
    )
    docs_keys = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(docs_keys)
    for page, tables in docs_keys.pages().items():
        text = page.read_text(encoding="utf-8")
        for name, table in tables:
            assert docs_keys.block(name, table) in text, (
                f"{page.name}: the key table of {name} differs from its declaration; "
                "run python tools/docs_keys.py"
            )


@pytest.mark.parametrize("name", DECLARED)
def test_run_keys_give_the_messages_every_file_gets(name):
    """``trials``, ``seed``, ``name``: the same one-line messages as the shared reader
    (:func:`oddslab.scenario.read_run_options`), whichever game reads the file."""
    from oddslab._schema import Table
    from oddslab.scenario import read_run_options

    first = ruleset.get(name).examples()[0]
    base = expand_uses(tomllib.loads(first.read_text()), str(first), first.parent)
    for key, bad in (
        ("trials", 0),
        ("trials", 10**11),
        ("seed", -1),
        ("name", 3),
        ("trials", "many"),
    ):
        data = {**base, key: bad}
        with pytest.raises(ScenarioError) as shared:
            read_run_options(Table(copy.deepcopy(data), "f.toml"), "x")
        with pytest.raises(ScenarioError) as read:
            from_dict(data, source="f.toml")
        assert str(read.value) == str(shared.value)
