"""Benchmark: importing a 2,000-point army list (issue 32: "the import of a 2,000-point army
takes < 1 s").

The army is invented: the units of ``examples/rosters/invented-10e.ros`` repeated to about
2,000 points (2,045: 21 units, 95 models, 52 weapon profiles), each unit padded with ten
long invented abilities (as real exports carry every rule's text), zipped as a ``.rosz`` the way
BattleScribe and New Recruit export it. One row: the whole ``oddslab.import_roster`` (unzip,
hardened XML parse, units, entries, the TOML text written and read back), best of a few runs.
Timings depend on the machine and its load.

Run: ``python benchmarks/bench_import.py [--quick]``
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import best_of, markdown_table  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "oddslab" / "examples" / "rosters" / "invented-10e.ros"


def army_rosz(folder: Path, copies: int = 5) -> tuple[Path, int]:
    """A ``.rosz`` of the invented roster's units ``copies`` times, plus one more swarm pack:
    (its path, its points)."""
    text = SOURCE.read_text(encoding="utf-8")
    start = text.index('        <selection id="s-ws"')
    end = text.index("      </selections>\n    </force>")
    units = text[start:end]
    swarm = units[units.index('        <selection id="s-sp"') :]
    # real exports carry every rule's text: pad each unit with ten long abilities (~1 MiB)
    pad = "".join(
        f'<profile id="pad{k}" name="Invented rule {k}" typeName="Abilities"><characteristics>'
        f'<characteristic name="Description">{"Lorem ipsum dolor sit amet. " * 40}'
        "</characteristic></characteristics></profile>"
        for k in range(10)
    )
    units = units.replace("<profiles>", "<profiles>" + pad)
    body = "".join(units.replace(' id="', f' id="c{i}-') for i in range(copies))
    body += swarm.replace(' id="', ' id="x-')
    points = copies * 395 + 70
    xml = text[:start] + body + text[end:]
    xml = re.sub(
        r'<cost name="pts" typeId="51b2-306e-1021-d207" value="395.0"/>',
        f'<cost name="pts" typeId="51b2-306e-1021-d207" value="{points}.0"/>',
        xml,
    )
    path = folder / "army.rosz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("army.ros", xml)
    return path, points


def run(quick: bool = False, smoke: bool = False) -> list[dict]:
    """One row: imports of the 2,000-point army per second (and the time of one)."""
    from oddslab.importers import import_roster, read_roster

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path, points = army_rosz(folder)
        roster = read_roster(path)
        models = sum(g.models for u in roster.units for g in u.groups)
        weapons = sum(len(u.weapons) for u in roster.units)
        out = folder / "army.toml"
        import_roster(path, out)  # warm-up: imports, regexes
        c0 = time.process_time()
        repeat = 1 if quick or smoke else 5
        t, lib = best_of(lambda: import_roster(path, out), repeat)
        cpu = (time.process_time() - c0) / repeat
        with zipfile.ZipFile(path) as zf:
            size = zf.infolist()[0].file_size
    return [
        {
            "ruleset": "import",
            "job": f"{points:,}-point invented army ({len(roster.units)} units, {models} models,"
            f" {weapons} weapon profiles; {size / 2**20:.1f} MiB of XML) → library",
            "unit": "rosters",
            "oddslab_per_s": 1 / t,
            "python_per_s": None,
            "numpy_per_s": None,
            "dice_per_trial": None,
            "threads": 1,
            "note": f"{t * 1000:.0f} ms per import, {cpu * 1000:.0f} ms CPU (target < 1 s); "
            f"{len(lib)} entries",
        }
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--smoke", action="store_true", help="each row on a tiny size (the tests' run)")
    args = ap.parse_args()
    rows = run(args.quick, args.smoke)
    print(
        markdown_table(
            ["job", "imports/s", "note"],
            [[r["job"], f"{r['oddslab_per_s']:.1f}", r["note"]] for r in rows],
        )
    )


if __name__ == "__main__":
    main()
