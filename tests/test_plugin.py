"""A ruleset written as a separate package (plugins/oddslab-duel) runs through every front end.

The package is registered the way ``pip install`` registers it (a ``.dist-info`` folder with
its ``entry_points.txt`` on the path), with no change to oddslab itself: the CLI's simulate,
exact, show, sweep, warmup and schema, and the Python API, all find it by name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib

import jsonschema
import numpy as np
import pytest
from records_check import check_records
from stats import chisquare_pmf

from oddslab import ruleset
from oddslab.scenario import from_dict, load

PLUGIN = "plugins/oddslab-duel"


@pytest.fixture(scope="module")
def site(root, tmp_path_factory):
    """A folder that registers the plugin as an installed distribution would."""
    site = tmp_path_factory.mktemp("site")
    meta = tomllib.loads((root / PLUGIN / "pyproject.toml").read_text())
    dist = site / "oddslab_duel-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: oddslab-duel\nVersion: 0.1.0\n")
    eps = meta["project"]["entry-points"]["oddslab.rulesets"]
    lines = "".join(f"{k} = {v}\n" for k, v in eps.items())
    (dist / "entry_points.txt").write_text(f"[oddslab.rulesets]\n{lines}")
    return site


@pytest.fixture(scope="module")
def duel(root, site):
    """The plugin registered in this process (found through importlib.metadata)."""
    added = [str(root / PLUGIN), str(site)]
    sys.path[:0] = added
    ruleset.refresh()
    try:
        yield ruleset.get("duel")
    finally:
        for p in added:
            sys.path.remove(p)
        ruleset.refresh()


@pytest.fixture(scope="module")
def example(duel):
    (path,) = duel.examples()
    return path


def test_plugin_is_small(root):
    lines = (root / PLUGIN / "oddslab_duel" / "__init__.py").read_text().count("\n")
    assert lines < 300  # kernel, exact answer, schema and the ruleset object


def test_found_by_name(duel, example):
    assert "duel" in ruleset.names() and isinstance(duel, ruleset.Ruleset)
    sc = load(example)
    assert sc.attack_dice == 4 and sc.compile().ruleset == "duel"
    assert from_dict(sc.to_dict()) == sc


@pytest.mark.statistical
def test_kernel_agrees_with_exact(duel, example):
    import oddslab

    for switch in ("wounded", "always"):
        data = tomllib.loads(example.read_text())
        data["rules"] = {"morale_test": switch}
        sc = from_dict(data)
        out = oddslab.simulate(sc, trials=1_000_000, seed=11)
        exact = oddslab.exact(sc)
        for stat in ("defender_wounds_lost", "defender_fled", "defender_out_of_action"):
            assert abs(exact.probs[stat].sum() - 1) < 1e-12
            p = chisquare_pmf(out.counts[stat], exact.probs[stat])
            assert p > 1e-4, (switch, stat, p)


def test_exact_worked_by_hand(duel):
    # 1 die hitting on 4+ against no defence dice, 1 wound: slain with P = 1/2; never flees.
    sc = from_dict(
        {
            "ruleset": "duel",
            "attacker": {"attack_dice": 1, "attack_skill": 4},
            "defender": {"defence_dice": 0, "wounds": 1},
        }
    )
    import oddslab

    ex = oddslab.exact(sc)
    assert ex.probs["defender_slain"][1] == pytest.approx(0.5)
    assert ex.probs["defender_fled"][1] == 0
    # "always": a survivor with 0 wounds lost tests too: 2D6 > 7 with P = 15/36.
    sc = from_dict(
        {
            "ruleset": "duel",
            "attacker": {"attack_dice": 1, "attack_skill": 4},
            "defender": {"defence_dice": 0, "wounds": 1},
            "rules": {"morale_test": "always"},
        }
    )
    assert oddslab.exact(sc).probs["defender_fled"][1] == pytest.approx(0.5 * 15 / 36)


@pytest.mark.parametrize("switch", ["wounded", "always"])
def test_kernel_keeps_per_trial_records(duel, example, switch):
    """The template's kernel follows the records contract (issue 29), and a trial's
    recorded values belong together."""
    data = tomllib.loads(example.read_text())
    data["rules"] = {"morale_test": switch}
    job = from_dict(data).compile()
    rec = check_records(job)
    lost, slain, fled, out = rec.T
    assert np.array_equal(slain, (lost == data["defender"]["wounds"]).astype(np.int32))
    assert np.array_equal(out, slain | fled) and not np.any(slain & fled)
    assert fled.any() and np.all(fled[lost == 0] == 0) == (switch == "wounded")


def test_a_kernel_without_records_still_runs():
    """A plugin whose kernel and jobs do not declare records keeps working (it only cannot
    answer events, joint distributions or records)."""
    from oddslab.engine import Job, run_job
    from oddslab.plugin import ChunkKernel, Stat

    def chunk(seed, n, out, k):  # a plain Python chunk: every trial scores k
        out[0, k] += n

    job = Job("old", ChunkKernel(chunk, "old"), (2,), (Stat("x", 3),))
    assert not job.records
    assert run_job(job, 1000, 1).counts["x"].tolist() == [0, 0, 1000]


def test_schema_validates_the_example(duel, example):
    doc = duel.schema()
    jsonschema.Draft202012Validator.check_schema(doc)
    jsonschema.validate(tomllib.loads(example.read_text()), doc)


def _cli(root, site, *args, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), str(root / PLUGIN), str(site)]))
    return subprocess.run(
        [sys.executable, "-m", "oddslab", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_front_end_runs_it(root, site, duel, example, tmp_path):
    res = _cli(root, site, "simulate", str(example), "-n", "100000", "-f", "json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["trials"] == 100000 and out["ruleset"] == "duel" and "defender_slain" in out["pmf"]
    res = _cli(root, site, "simulate", str(example), "--exact", "-f", "json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    printed = json.loads(res.stdout)
    exact = load(example).compile().exact()["defender_slain"]
    assert printed["exact"] and np.allclose(printed["pmf"]["defender_slain"], exact, atol=1e-12)
    res = _cli(root, site, "show", str(example), cwd=tmp_path)
    assert res.returncode == 0 and "blocks on" in res.stdout
    res = _cli(
        root,
        site,
        "sweep",
        str(example),
        "--vary",
        "defender.wounds=1..3",
        "-n",
        "20000",
        "-f",
        "csv",
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    rows = [r for r in res.stdout.splitlines() if "P(defender slain)" in r]
    assert [r.split(",")[0] for r in rows] == ["1", "2", "3"], res.stdout
    res = _cli(root, site, "rulesets", cwd=tmp_path)
    assert "duel" in res.stdout and "plugin" in res.stdout
    res = _cli(root, site, "warmup", "duel", cwd=tmp_path)
    assert res.returncode == 0 and res.stdout.startswith("duel: ")
    res = _cli(root, site, "schema", "duel", cwd=tmp_path)
    assert res.returncode == 0 and json.loads(res.stdout)["properties"]["rules"]
    res = _cli(root, site, "schema", "generic", cwd=tmp_path)
    assert res.returncode == 0 and "attacker" in json.loads(res.stdout)["properties"]
    res = _cli(root, site, "schema", "duell", cwd=tmp_path)
    assert res.returncode == 2 and "did you mean 'duel'" in res.stderr
