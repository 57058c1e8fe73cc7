"""Every notebook in notebooks/ executes top to bottom (nbclient), and one number each shows
is checked against the API (an exact answer where the notebook shows one)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_quickstart_exists():
    assert (ROOT / "notebooks" / "quickstart.ipynb") in NOTEBOOKS


def test_a_notebook_per_ruleset_and_no_paths_from_the_package_file():
    """The README promises a notebook per ruleset (the generic one is the quickstart), and
    notebooks find the examples through ``oddslab.examples_dir()`` (so they run installed)."""
    from oddslab.scenario import RULESETS

    names = {p.stem for p in NOTEBOOKS}
    assert {r for r in RULESETS if r != "generic"} <= names, sorted(set(RULESETS) - names)
    for p in NOTEBOOKS:
        assert "__file__" not in p.read_text(encoding="utf-8"), p.name


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    CHECKS[path.stem](nb)


# -- one number each notebook shows, checked against the API -----------------------------------


def _texts(nb) -> list[str]:
    """Printed text and the plain-text form of every displayed result, in order."""
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                out.append(o.get("text", ""))
            elif "data" in o and "text/plain" in o["data"]:
                out.append(o["data"]["text/plain"])
    return out


def _line(texts: list[str], pattern: str) -> re.Match:
    for t in texts:
        for line in t.splitlines():
            m = re.search(pattern, line)
            if m:
                return m
    raise AssertionError(f"no output line matches {pattern!r}")


def _definitions(nb, upto: int = 1) -> dict:
    """Imports, constants and functions of the first ``upto`` code cells (no loops run)."""
    ns: dict = {}
    cells = [c for c in nb.cells if c.cell_type == "code"][:upto]
    for cell in cells:
        src = "\n".join(x for x in cell.source.splitlines() if not x.startswith("%"))
        tree = ast.parse(src)
        keep = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.Assign, ast.Try)
        body = [n for n in tree.body if isinstance(n, keep) and not _runs_work(n)]
        exec(compile(ast.Module(body, []), "<notebook>", "exec"), ns)  # noqa: S102
    return ns


def _runs_work(node) -> bool:
    """An assignment that simulates (left out: the check runs only what it needs)."""
    return isinstance(node, ast.Assign) and "simulate" in ast.unparse(node)


def _quickstart(nb):
    """The printed exact mean of the intercessors' hits is the exact engine's; the Monte Carlo
    mean printed beside it is within 5 of its standard errors."""
    from oddslab import load
    from oddslab.exact import exact

    m = _line(_texts(nb), r"^hits\s+MC ([\d.]+) ± ([\d.]+)\s+exact ([\d.]+)")
    mc, se, shown = (float(x) for x in m.groups())
    ex = exact(load(ROOT / "examples" / "generic-intercessors-vs-guardsmen.toml")).mean("hits")
    assert shown == round(ex, 4)
    assert abs(mc - ex) < 5 * se + 1e-4


def _formation_actions(nb):
    """The printed P(broken by turn t) of command 4 is formation_chain's."""
    from oddslab.rulesets.formation_actions import Formation, OutsideShock, Rules, formation_chain

    m = _line(_texts(nb), r"^command 4: P\(broken by turn t\) = (\[.*\])")
    f = Formation("rifles", command=4, units=4, suppressed=1,
                  outside_shock=OutsideShock(table=(0.5, 0.3, 0.2)))  # fmt: skip
    want = [round(float(x), 3) for x in formation_chain(f, Rules(), 8).broken_by]
    assert ast.literal_eval(m.group(1)) == want


def _hex_platoon(nb):
    """The exact column shown for the first firer's unsaved hits is the exact engine's."""
    from oddslab.scenario import load

    sc = load(ROOT / "examples" / "hex-platoon-platoon-fire-concealed.toml")
    pmf = sc.exact_pmfs()["unsaved_hits_on_enemy_platoon_step1"]
    for k, p in enumerate(pmf):
        m = _line(_texts(nb), rf"^{k}\s+([\d.]+)\s+([\d.]+)$")
        assert float(m.group(1)) == round(float(p), 4), k
        se = (p * (1 - p) / 200_000) ** 0.5
        assert abs(float(m.group(2)) - p) < 5 * se + 1e-4, k


def _armoured_clash(nb):
    """The table's P(defender breaks) at 6 dice and DISCIPLINE 6 is the engine's."""
    from oddslab.engine import simulate

    ns = _definitions(nb)
    p = simulate(ns["scenario"](6, 6), trials=50_000, seed=1).prob("defender_broke")
    m = _line(_texts(nb), r"^6\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$")
    assert float(m.group(2)) == round(p, 4)


def _vom_kriege(nb):
    """The table's P(defender retreats) with 2 supports (flags make it retreat) is the
    engine's."""
    import oddslab
    from oddslab.rulesets.vom_kriege import Rules

    ns = _definitions(nb)
    out = oddslab.simulate(ns["assault"](2, Rules(defensive_fire_flags="retreat")),
                           trials=200_000, seed=102)  # fmt: skip
    m = _line(_texts(nb), r"^2\s+retreat\s+2\s+([\d.]+)")
    assert float(m.group(1)) == round(out.prob("defender_retreated"), 4)


def _designers(nb):
    """The points shown for the horde are the library file's (20 models x 6 points)."""
    import tomllib

    lib = tomllib.loads((ROOT / "oddslab/examples/libraries/generic-weapons.toml").read_text())
    horde = lib["units"]["horde"]
    m = _line(_texts(nb), r"'horde': \('[^']*', ([\d.]+)\)")
    assert float(m.group(1)) == horde["models"] * horde["points_per_model"]


def _list_builders(nb):
    """The matrix's P(models slain >= 3) for the shock squad against the conscripts (10,000
    trials) is within 5 standard errors of the exact answer for that pair; the matchup's
    progress bar ends as a record kept in the saved notebook (not a widget's empty output)."""
    done = _line(_texts(nb), r"^study: (\d+)/(\d+) cells in \d+\.\d s$")
    assert done.group(1) == done.group(2) and int(done.group(1)) > 1
    from oddslab.analysis.matchup import SLOTS, _fill
    from oddslab.exact import exact
    from oddslab.libraries import expand_uses, library_dir, load_library
    from oddslab.scenario import from_dict

    path = library_dir() / "generic.toml"
    lib = load_library(path)
    key = {e.label: e.key for e in lib}
    cell = {SLOTS[0]: f"{path}:{key['Shock squad (5 bolt rifles)']}",
            SLOTS[1]: f"{path}:{key['Conscripts']}"}  # fmt: skip
    sc = from_dict(expand_uses(_fill(lib.template, cell), str(path)))
    p = float(exact(sc).probs["models_slain"][3:].sum())
    m = _line(_texts(nb), r"^Shock squad \(5 bolt rifles\)\s+([\d.]+)\s")
    assert abs(float(m.group(1)) - p) < 5 * (p * (1 - p) / 10_000) ** 0.5 + 5e-4


def _assault_phase(nb):
    """The first table's P(defender unit destroyed) with frag grenades is the engine's (the
    same scenario, trials and seed)."""
    import oddslab

    ns = _definitions(nb)
    out = oddslab.simulate(ns["with_grenades"]("frag"), trials=200_000, seed=7)
    row = out.probabilities().iloc[0]
    label = re.escape(str(row["label"])[:24])
    m = _line(_texts(nb), rf"^{label}.*?\s([\d.]+)\s+([\d.]+)$")
    assert float(m.group(1)) == round(float(row["probability"]), 4), (row["label"], m.group(0))


def _questions(nb):
    """The exact P(leader slain and two bodyguards lost) printed is the exact engine's, the
    Monte Carlo one beside it within 5 of its standard errors; the exact P(broken | Shock >= 3)
    of the formation is the exact chain's."""
    import oddslab

    q = "leader_slain and target_bodyguard_models_lost >= 2"
    m = _line(_texts(nb), r"^leader and two bodyguards: exact ([\d.]+)  MC ([\d.]+) ± ([\d.]+)")
    shown, mc, se = (float(x) for x in m.groups())
    sc = oddslab.load(ROOT / "examples" / "generic-bodyguard-and-leader.toml")
    want = oddslab.exact(sc, events=[q]).probability(q).probability
    assert shown == round(want, 6) and abs(mc - want) < 5 * se
    m = _line(_texts(nb), r"^P\(broken \| Shock >= 3\): exact ([\d.]+)")
    fa = oddslab.load(ROOT / "examples" / "formation-actions-under-fire.toml")
    t = fa.compile().exact_joint(("blue_rifles_shock_after_turn_4", "blue_rifles_broken_by_turn_4"))
    assert float(m.group(1)) == round(t[3:, 1].sum() / t[3:].sum(), 4)


CHECKS = {
    "assault-phase": _assault_phase,
    "quickstart": _quickstart,
    "formation-actions": _formation_actions,
    "hex-platoon": _hex_platoon,
    "armoured-clash": _armoured_clash,
    "vom-kriege": _vom_kriege,
    "designers": _designers,
    "list-builders": _list_builders,
    "questions": _questions,
}


def test_every_notebook_has_a_number_check():
    assert {p.stem for p in NOTEBOOKS} == set(CHECKS)
