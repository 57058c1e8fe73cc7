"""``oddslab import`` (oddslab/importers/cli.py): the summary it prints, and one line with
exit code 2 for every bad roster or option."""

from __future__ import annotations

import zipfile
from pathlib import Path

from typer.testing import CliRunner

from oddslab.cli import app
from oddslab.libraries import load_library

ROSTER = Path(__file__).parent.parent / "oddslab" / "examples" / "rosters" / "invented-10e.ros"


def _run(*args: str):
    return CliRunner().invoke(app, ["import", *map(str, args)])


def test_import_writes_the_library_and_says_what_was_not_modelled(tmp_path):
    p = tmp_path / "army.rosz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(ROSTER, "army.ros")
    out = tmp_path / "army.toml"
    res = _run(p, "-o", out, "--attach", "Iron Marshal:Warden Squad")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == f"11 entries for 4 units (395 points) in {out}"
    assert lines[1] == (
        "4 abilities not modelled: Steadfast Line, Hold the Line, Leader, "
        "Damaged: 1-4 Wounds Remaining"
    )
    assert lines[2] == "2 weapon keywords not modelled: Assault, Pistol"
    assert lines[3] == "1 other not modelled: not fired by default (Pistol rule): Sidearm"
    assert lines[4] == "army-wide, not modelled: army rule: Invented Oath; Battle Size (not a unit)"
    assert "warden_squad_with_iron_marshal" in load_library(out).entries


def test_bad_rosters_are_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.ros"
    bad.write_text(ROSTER.read_text().replace(">D6+1<", ">lots<"))
    res = _run(bad, "-o", tmp_path / "x.toml")
    assert res.exit_code == 2
    assert (
        res.output == f"error: {bad}: Grinder Walker / Twin shredder: A = 'lots': expected "
        "a number or dice like D6+1\n"
    )
    assert not (tmp_path / "x.toml").exists()


def test_bad_attach_and_unwritable_output(tmp_path):
    res = _run(ROSTER, "-o", tmp_path / "x.toml", "--attach", "Captain:Warden Squad")
    assert res.exit_code == 2 and res.output.count("\n") == 1
    assert "--attach: no unit 'Captain' in the roster" in res.output
    res = _run(ROSTER, "-o", tmp_path / "no" / "such" / "x.toml")
    assert res.exit_code == 2 and "cannot write the library" in res.output


def test_missing_roster(tmp_path):
    res = _run(tmp_path / "nope.rosz", "-o", tmp_path / "x.toml")
    assert res.exit_code == 2 and "file not found" in res.output


def test_examples_copy_brings_the_roster(tmp_path):
    res = CliRunner().invoke(app, ["examples", "--copy", str(tmp_path / "ex")])
    assert res.exit_code == 0
    copied = tmp_path / "ex" / "rosters" / "invented-10e.ros"
    assert copied.read_bytes() == ROSTER.read_bytes()
    assert _run(copied, "-o", tmp_path / "army.toml").exit_code == 0


def test_leaders_are_suggested_when_not_joined(tmp_path):
    """The Marshal's "Leader" ability names the Warden Squad: the summary suggests --attach."""
    res = _run(ROSTER, "-o", tmp_path / "army.toml")
    assert res.exit_code == 0
    assert res.output.splitlines()[-1] == (
        'leaders that can join a unit: --attach "Iron Marshal:Warden Squad"'
    )
    assert (
        "leaders that can join"
        not in _run(
            ROSTER, "-o", tmp_path / "army.toml", "--attach", "Iron Marshal:Warden Squad"
        ).output
    )


def _bomb(p: Path) -> Path:
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("army.ros", "w") as fh:
        for _ in range(20):
            fh.write(b"\0" * 2**20)
    return p


BAD = {
    "malformed.ros": lambda p: p.write_text(ROSTER.read_text()[:5000]),
    "laughs.ros": lambda p: p.write_text(
        '<?xml version="1.0"?><!DOCTYPE roster [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
        "<roster>&b;</roster>"
    ),
    "external.ros": lambda p: p.write_text(
        '<?xml version="1.0"?><!DOCTYPE roster [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        "<roster>&x;</roster>"
    ),
    "bomb.rosz": _bomb,
    "catalogue.ros": lambda p: p.write_text("<catalogue/>"),
}


def test_every_bad_file_is_one_line_and_exit_2(tmp_path):
    for name, make in BAD.items():
        p = tmp_path / name
        make(p)
        res = _run(p, "-o", tmp_path / "x.toml")
        assert res.exit_code == 2, (name, res.output)
        assert res.output.startswith(f"error: {p}: ") and res.output.count("\n") == 1, res.output
        assert "Traceback" not in res.output and "root:" not in res.output
    assert not (tmp_path / "x.toml").exists()
