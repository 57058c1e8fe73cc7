"""Entry names and labels that never collide (oddslab/_entry_names.py): libraries in two
folders with one file name are named by their folders; same-labelled entries get their
names in their labels."""

from __future__ import annotations

from oddslab._entry_names import _ident, entry_labels, entry_names
from oddslab.libraries import load_library

UNIT = """ruleset = "generic"

[units.conscripts]
points = 50
name = "Conscripts"
toughness = 3
save = 5
models = 20
"""


def _lib(folder, text=UNIT):
    folder.mkdir()
    path = folder / "units.toml"
    path.write_text(text)
    return load_library(path)


def test_two_folders_one_file_name_are_named_apart_and_labelled_apart(tmp_path):
    a = _lib(tmp_path / "a")["conscripts"]
    b = _lib(tmp_path / "b")["conscripts"]
    names = entry_names([a, b])
    assert sorted(names.values()) == ["a/units.toml:conscripts", "b/units.toml:conscripts"]
    labels = entry_labels([a, b], names)
    assert labels[_ident(a)] == "Conscripts (a/units.toml:conscripts)"
    assert labels[_ident(b)] == "Conscripts (b/units.toml:conscripts)"
    only = entry_names([a])  # alone, an entry keeps the name its cells are seeded by
    assert list(only.values()) == ["units.toml:conscripts"]
    assert entry_labels([a], only) == {_ident(a): "Conscripts"}
