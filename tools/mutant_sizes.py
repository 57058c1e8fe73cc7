"""The size of the small-error mutants of tools/mutants.py (their ``size`` field).

For each mutant: the kernel on the scenario of the test that kills it, in a scratch copy of
the repository, mutated and not, same seed and trials; the size is the largest change in the
probability of any outcome of any statistic (same seed: most of the two runs' noise cancels).
Not run in CI. From the repository root::

    N=1000000 python tools/mutant_sizes.py [mutant ids]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import mutants  # noqa: E402

N = int(os.environ.get("N", "1000000"))
GS, GM, AS, AP, APS = ("test_generic_switches", "test_generic_mixed",
                       "test_armoured_clash_switches", "test_assault_phase",
                       "test_assault_phase_switches")  # fmt: skip
FAS, HPS = "test_formation_actions_switches", "test_hex_platoon_switches"
EITHER = "t.mixed({'action_penalty': 'either', 'rally_action_penalty': True})"
#: per mutant: the test module (imported as ``t``) and the expression of the killing test's
#: scenario, or statements that set ``sc``
SCEN = {
    "dev-legacy-follows-spill": (GS, "t.chain({'devastating_wounds': 'legacy'})"),
    "fnp-mortal-pair-entry": (GS, "t.mortals({})"),
    "oneoff-damage-kept": (GM, "t._damaged('damage', 'save')"),
    "nostatus-card8-passes": (AS, "t.opportunity({'cannot_be_suppressed': 'no_status'})"),
    # tests/test_armoured_clash_reference.py::test_activations_and_status_expiry
    "deck-defender-5-as-6": ("test_armoured_clash_reference", """
from oddslab.rulesets.armoured_clash import ArmouredClashScenario, Attack, Rules, Situation
x = t._unit("x", "attacker", 8, defence=1, discipline=6, suppressed=True, disordered=True,
            break_limit=2, vp=5)
y = t._unit("y", "defender", 6, defence=1, discipline=6, taking_cover=True, vp=4,
            fall_back_losses=1)
attacks = (Attack("y", "x", situation=Situation(opportunity_fire=True)),
           Attack("x", "y", situation=Situation(aiming=True, concealed=True)), Attack("y", "x"),
           Attack("x", "y", situation=Situation(new_activation=True)))
sc = ArmouredClashScenario((x, y), attacks, focus="y", rules=Rules(status_expiry="all"))"""),
    "wound-s8t4-3plus": (AP, "t._from_naive(*t.naive.benchmark_sides())"),
    "hit-ws1ws2-5plus": (AP, "t._from_naive(*t._ws_tie())"),
    "below-half-plus-one": (APS, "t.below_half(True, 3)[0]"),
    "below-half-le": (APS, "t.below_half(True, 4)[0]"),
    "os-cdf-first-entry": (FAS, "t.mixed({})"),
    "nat6-broken-only": (FAS, "t.mixed({'natural_six_fails': True})"),
    "rally-shock-ge2": (FAS, EITHER),
    "rally-either-as-both": (FAS, EITHER),
    "rally-shock-reading-sup": (FAS, "t.broken_without_shock('shock')"),
    "conc-lost-1hit-2saves": (
        HPS, "from_dict(t.concealed_rifles({'concealment_lost_after_fire': True}))"
    ),
    "city-always-disrupted": (HPS, "from_dict(t.assault({'city_assault_bonus': 'always'}))"),
}  # fmt: skip
RUN = """
import sys, numpy as np
sys.path[:0] = ['.', 'tests']
from oddslab.scenario import from_dict
import {mod} as t
{scen}
from oddslab import engine
c = engine.simulate(sc, trials={n}, seed=3).counts
np.savez(sys.argv[1], **{{k: np.asarray(v) for k, v in c.items()}})
"""


def run(work: Path, code: str, out: str) -> dict[str, np.ndarray]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(work / ".numba_cache"), "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    p = subprocess.run(
        [sys.executable, "-c", code, out], cwd=work, env=env, capture_output=True, text=True
    )
    if p.returncode:
        raise RuntimeError(p.stderr[-2000:])
    return dict(np.load(out))


def main(ids: list[str]) -> None:
    work = Path(tempfile.mkdtemp(prefix="msize-")) / "repo"
    shutil.copytree(
        ROOT,
        work,
        ignore=lambda d, names: [n for n in names if n in mutants.SKIP or n == "__pycache__"],
    )
    by = {m.id: m for m in mutants.MUTANTS}
    res = {}
    for i in ids:
        m = by[i]
        mod, scen = SCEN[i]
        code = RUN.format(mod=mod, scen=scen if "\n" in scen else f"sc = {scen}", n=N)
        a = run(work, code, str(work / "a.npz"))
        path = work / m.path
        orig = path.read_text()
        path.write_text(orig.replace(m.old, m.new))
        try:
            b = run(work, code, str(work / "b.npz"))
        finally:
            path.write_text(orig)
        best = (0.0, "", 0)
        for k in a:
            pa, pb = a[k] / a[k].sum(), b[k] / b[k].sum()
            n = max(len(pa), len(pb))
            pa, pb = np.pad(pa, (0, n - len(pa))), np.pad(pb, (0, n - len(pb)))
            d = np.abs(pb - pa)
            if d.max() > best[0]:
                best = (float(d.max()), k, int(d.argmax()))
        res[i] = best
        print(f"{i:26} max |dP| = {100 * best[0]:.2f} pp  ({best[1]} = {best[2]})", flush=True)
    shutil.rmtree(work.parent, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(SCEN))
