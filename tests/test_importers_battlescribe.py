"""Reading BattleScribe rosters (oddslab/importers/battlescribe.py): what is read from the
invented 10th- and 11th-edition rosters, and every kind of bad file (one clear error naming the
file and the unit / weapon, bounded memory, no entity expansion, no network or file access)."""

from __future__ import annotations

import tracemalloc
import zipfile
from pathlib import Path

import pytest

from oddslab.importers import RosterError, read_roster
from oddslab.importers.battlescribe import MAX_DEPTH

ROSTER = Path(__file__).parent.parent / "oddslab" / "examples" / "rosters" / "invented-10e.ros"
TEXT = ROSTER.read_text(encoding="utf-8")


def _write(tmp_path: Path, text: str, name: str = "army.ros") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _units(path) -> dict:
    return {u.name: u for u in read_roster(path).units}


# -- what is read -------------------------------------------------------------------------------
def test_units_points_models_and_weapons_10e():
    r = read_roster(ROSTER)
    assert r.game_system == "Warhammer 40,000 10th Edition" and r.name == "Invented Vanguard"
    units = {u.name: u for u in r.units}
    assert list(units) == ["Warden Squad", "Iron Marshal", "Grinder Walker", "Swarm Pack"]
    # points: every selection's own cost summed (the squad's models carry 20 + 80)
    assert [u.points for u in r.units] == [100, 75, 150, 70]
    assert sum(u.points for u in r.units) == 395
    ws = units["Warden Squad"]
    assert [(g.name, g.models, g.toughness, g.save, g.wounds) for g in ws.groups] == [
        ("Warden", 5, 4, 3, 2)
    ]
    assert ws.keywords == ("infantry", "battleline")  # "Faction: ..." left out
    weapons = {w.name: w for w in ws.weapons}
    # the sergeant's and the troopers' lance rifles are one profile carried by 5 models
    assert weapons["Lance rifle"].models == 5
    assert weapons["Lance rifle"].profile == {
        "range": 24,
        "attacks": 2,
        "skill": 3,
        "strength": 4,
        "ap": 1,
        "damage": 1,
        "keywords": "Assault, Heavy",
    }
    assert weapons["Shock blade"].melee and weapons["Shock blade"].profile["range"] is None
    assert weapons["Close combat weapon"].models == 4 and weapons["Sidearm"].models == 1
    assert "ability: Steadfast Line" in ws.notes and "rule: Hold the Line" in ws.notes
    assert "keyword Assault (Lance rifle)" in ws.notes and "keyword Pistol (Sidearm)" in ws.notes
    assert "keyword Heavy (Lance rifle)" not in ws.notes  # the generic pipeline reads Heavy
    assert r.notes == ["army rule: Invented Oath", "Battle Size (not a unit)"]


def test_saves_from_abilities_and_modes():
    units = _units(ROSTER)
    marshal = units["Iron Marshal"]
    assert marshal.character and marshal.groups[0].invulnerable == 4  # "Invulnerable Save": 4+
    modes = [(w.name, w.mode_of) for w in marshal.weapons if not w.melee]
    assert modes == [
        ("Arc pistol - standard", "Arc pistol"),
        ("Arc pistol - overcharge", "Arc pistol"),
    ]
    walker = units["Grinder Walker"]
    assert walker.groups[0].feel_no_pain == 6  # "Feel No Pain 6+"
    assert "ability: Damaged: 1-4 Wounds Remaining" in walker.notes
    spitter = units["Swarm Pack"].weapons[0]
    assert spitter.profile["skill"] is None and spitter.profile["attacks"] == "D3"  # N/A torrent
    assert units["Swarm Pack"].groups[0].models == 10


def test_11th_edition_names(tmp_path):
    """11e spells the save ``Sv`` and prints the invulnerable save as ``InSv`` in the Unit
    profile (BSData wh40k-11e)."""
    text = TEXT.replace('name="SV"', 'name="Sv"').replace("10th Edition", "11th Edition")
    text = text.replace(  # the Marshal's invulnerable save as a characteristic, no ability
        '<characteristic name="OC" typeId="bef7-942a-1a23-59f8">1</characteristic>',
        '<characteristic name="OC" typeId="bef7-942a-1a23-59f8">1</characteristic>'
        '<characteristic name="InSv" typeId="55a7-5b54-c60d-11dc">4+</characteristic>',
    ).replace('name="Invulnerable Save"', 'name="Iron Will"')
    text = text.replace(  # "-" is no invulnerable save
        '<characteristic name="OC" typeId="bef7-942a-1a23-59f8">4</characteristic>',
        '<characteristic name="OC" typeId="bef7-942a-1a23-59f8">4</characteristic>'
        '<characteristic name="InSv" typeId="55a7-5b54-c60d-11dc">-</characteristic>',
    )
    units = _units(_write(tmp_path, text))
    assert units["Iron Marshal"].groups[0].invulnerable == 4
    assert units["Grinder Walker"].groups[0].invulnerable is None
    assert units["Warden Squad"].groups[0].save == 3


def test_rosz_reads_like_ros(tmp_path):
    p = tmp_path / "army.rosz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("army.ros", TEXT)
    a, b = read_roster(ROSTER), read_roster(p)
    assert [(u.name, u.points, u.groups, u.weapons) for u in a.units] == [
        (u.name, u.points, u.groups, u.weapons) for u in b.units
    ]


# -- bad files: one RosterError naming the file and the place -----------------------------------
def _error(path, **kw) -> str:
    with pytest.raises(RosterError) as exc:
        read_roster(path, **kw)
    msg = str(exc.value)
    assert "\n" not in msg and str(path) in msg
    return msg


def test_malformed_xml(tmp_path):
    msg = _error(_write(tmp_path, TEXT[: len(TEXT) // 2]))
    assert "not valid XML" in msg


def test_garbled_characteristic_names_unit_and_weapon(tmp_path):
    bad = TEXT.replace(
        '<characteristic name="A" typeId="3bb-c35f-f54-fb08">D6+1</characteristic>',
        '<characteristic name="A" typeId="3bb-c35f-f54-fb08">lots</characteristic>',
    )
    msg = _error(_write(tmp_path, bad))
    assert "Grinder Walker / Twin shredder" in msg and "A = 'lots'" in msg


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ('name="BS" typeId="94d-8a98-cf90-183e">3+<', 'name="XX" typeId="x">3+<', "no BS"),
        ('name="T" typeId="d29d-cf75-fc2d-34a4">10<', 'name="T" typeId="x">ten<', "T = 'ten'"),
        ('name="AP" typeId="9ead-8a10-520-de15">-1<', 'name="AP" typeId="x">+1<', "AP = '+1'"),
        ('name="SV" typeId="450-a17e-9d5e-29da">2+<', 'name="SV" typeId="x">2<', "SV = '2'"),
        ('number="4" type="model"', 'number="four" type="model"', "number = 'four'"),
        ('value="150.0"', 'value="lots"', "cost 'lots'"),
        ('name="S" typeId="2229-f494-25db-c5d3">9<', 'name="S" typeId="x">99999<', "S = '99999'"),
    ],
)
def test_missing_or_garbled_characteristics(tmp_path, old, new, expected):
    assert old in TEXT
    msg = _error(_write(tmp_path, TEXT.replace(old, new, 1)))
    assert expected in msg


def test_no_unit_profile_names_the_model(tmp_path):
    old = '<profile id="p-sp" name="Swarmling" hidden="false" typeId="c547-1836-d8a-ff4f" typeName="Unit">'
    assert old in TEXT
    bad = TEXT.replace(old, old.replace('typeName="Unit"', 'typeName="Other"'))
    assert "Swarm Pack / Swarmling: no Unit profile" in _error(_write(tmp_path, bad))


def test_zip_bomb_is_refused_before_unzipping(tmp_path):
    """A .rosz that unzips to 64 MiB (64 KiB on disk) is refused from its declared size;
    memory stays far below what it would unzip to."""
    p = tmp_path / "bomb.rosz"
    chunk = b"\0" * 2**20
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("army.ros", "w") as fh:
        for _ in range(64):
            fh.write(chunk)
    assert p.stat().st_size < 2**20
    tracemalloc.start()
    msg = _error(p)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "unzips to 67,108,864 bytes, more than the" in msg
    assert peak < 4 * 2**20


def test_zip_that_lies_about_its_size(tmp_path):
    """A zip whose headers declare 100 bytes for 64 MiB of content is read no further than
    it declares (zipfile stops there, and the checksum then fails): one clear line."""
    import struct

    p = tmp_path / "liar.rosz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("army.ros", "w") as fh:
        for _ in range(64):
            fh.write(b"\0" * 2**20)
    data = bytearray(p.read_bytes())
    for sig, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.index(sig)
        data[at + offset : at + offset + 4] = struct.pack("<I", 100)
    p.write_bytes(bytes(data))
    tracemalloc.start()
    msg = _error(p)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "not a readable .rosz (zip) file" in msg and peak < 4 * 2**20


def test_unzipped_size_is_capped(tmp_path):
    p = tmp_path / "army.rosz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("army.ros", TEXT)
    assert "army.ros: unzips to" in _error(p, max_bytes=1000)


def test_oversized_plain_file(tmp_path):
    assert "more than the 1,000 read" in _error(_write(tmp_path, TEXT), max_bytes=1000)


@pytest.mark.parametrize(
    "doctype",
    [
        # billion laughs: entities of entities
        '<!DOCTYPE roster [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>',
        # an external entity reading a local file
        '<!DOCTYPE roster [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
        # an external DTD on the network (never fetched)
        '<!DOCTYPE roster SYSTEM "http://127.0.0.1:9/roster.dtd">',
    ],
)
def test_entities_and_dtds_are_refused(tmp_path, doctype):
    body = TEXT.replace(
        'name="Invented Vanguard"',
        'name="&d;"'
        if "&a;" in doctype
        else 'name="&x;"'
        if "ENTITY x" in doctype
        else 'name="Invented Vanguard"',
    )
    head, rest = body.split("\n", 1)
    msg = _error(_write(tmp_path, f"{head}\n{doctype}\n{rest}"))
    assert "refused: the XML declares a DTD or entities" in msg
    assert "root:" not in msg  # nothing of /etc/passwd


def test_not_a_roster(tmp_path):
    text = '<?xml version="1.0"?><catalogue xmlns="x"><sharedProfiles/></catalogue>'
    assert "not a BattleScribe roster (its root is <catalogue>)" in _error(_write(tmp_path, text))


def test_not_a_zip(tmp_path):
    p = tmp_path / "army.rosz"
    p.write_bytes(b"PK\x03\x04" + b"garbage" * 10)
    assert "not a readable .rosz (zip) file" in _error(p)


def test_empty_roster(tmp_path):
    text = '<roster xmlns="http://www.battlescribe.net/schema/rosterSchema"><forces/></roster>'
    assert "forces: the roster has no units" in _error(_write(tmp_path, text))


def test_nesting_is_bounded(tmp_path):
    deep = "".join(
        f'<selections><selection name="s{i}" number="1" type="upgrade">'
        for i in range(MAX_DEPTH + 2)
    ) + "</selection></selections>" * (MAX_DEPTH + 2)
    unit = 'name="Warden Squad" entryId="e-ws" number="1" type="unit">'
    text = TEXT.replace(unit, unit + deep, 1)
    assert f"nested more than {MAX_DEPTH} deep" in _error(_write(tmp_path, text))


def test_missing_file(tmp_path):
    assert "file not found" in _error(tmp_path / "nope.ros")


# -- New Recruit's JSON export ------------------------------------------------------------------
def _as_json(el) -> dict:
    """The roster XML as New Recruit writes it in JSON (arrays of objects, "$text")."""
    out: dict = {}
    for k, v in el.attrib.items():
        out[k] = int(v) if k == "number" else float(v) if k == "value" else v
    for child in el:
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "description":
            out["description"] = child.text
        else:
            out[tag] = [_as_json(c) for c in child]
    if el.text and el.text.strip():
        out["$text"] = el.text
    return out


def test_new_recruit_json_reads_like_ros(tmp_path):
    import json

    from oddslab.importers.battlescribe import read_roster_xml

    doc = {"roster": _as_json(read_roster_xml(ROSTER)), "generatedBy": "https://newrecruit.eu"}
    p = _write(tmp_path, json.dumps(doc, ensure_ascii=False), "army.json")
    a, b = read_roster(ROSTER), read_roster(p)
    assert [(u.name, u.points, u.groups, u.weapons, u.notes) for u in a.units] == [
        (u.name, u.points, u.groups, u.weapons, u.notes) for u in b.units
    ]
    assert b.notes == a.notes


@pytest.mark.parametrize(
    "text, match",
    [
        ('{"roster": [', "not valid JSON"),
        ('{"list": {}}', 'not a New Recruit roster (no "roster" object)'),
        ('{"roster": {"forces": []}}', "the roster has no units"),
        ('{"roster": ' + '{"a": ' * 500 + "1" + "}" * 501, "nested more than 400 levels deep"),
    ],
)
def test_bad_json(tmp_path, text, match):
    assert match in _error(_write(tmp_path, text, "army.json"))


def test_profiles_without_type_names_and_hidden_profiles(tmp_path):
    """A profile exported with its type id only is read by the BSData id; a hidden one is not."""
    text = TEXT.replace(' typeName="Ranged Weapons"', "").replace(' typeName="Unit"', "")
    text = text.replace('name="Shock blade" hidden="false"', 'name="Shock blade" hidden="true"')
    ws = _units(_write(tmp_path, text))["Warden Squad"]
    assert [w.name for w in ws.weapons] == ["Lance rifle", "Sidearm", "Close combat weapon"]
    assert ws.groups[0].toughness == 4


def test_bytes_of_an_upload(tmp_path):
    """The web app's path: a roster's bytes, with the same checks as a file."""
    import io

    from oddslab.importers import read_roster_bytes

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("army.ros", TEXT)
    for data in (TEXT.encode(), buf.getvalue()):
        r = read_roster_bytes(data, "upload.rosz")
        assert [u.name for u in r.units] == [u.name for u in read_roster(ROSTER).units]
    with pytest.raises(RosterError, match="^upload.rosz: army.ros: unzips to"):
        read_roster_bytes(buf.getvalue(), "upload.rosz", max_bytes=1000)
    with pytest.raises(RosterError, match="^upload.ros: .* more than the 1,000 read"):
        read_roster_bytes(TEXT.encode(), "upload.ros", max_bytes=1000)
    with pytest.raises(RosterError, match="refused"):
        read_roster_bytes(b'<!DOCTYPE r [<!ENTITY x "y">]><roster>&x;</roster>', "u.ros")


def test_roster_total_that_disagrees_is_noted(tmp_path):
    assert not any("points" in n for n in read_roster(ROSTER).notes)  # 395 = 100 + 75 + 150 + 70
    text = TEXT.replace('value="395.0"', 'value="400.0"', 1)
    assert (
        "the roster says 400 points, its selections add up to 395"
        in read_roster(_write(tmp_path, text)).notes
    )
