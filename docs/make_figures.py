"""Regenerate the figures in docs/img/ from real runs (fixed seeds, so the output is stable).

Run from the repository root::

    python docs/make_figures.py

Writes ``docs/img/quickstart.png`` (shown in the README), ``docs/img/generic-intercessors.png``,
``docs/img/generic-devastating.png`` and ``docs/img/generic-compare.png``, and prints the
numbers quoted in docs/generic.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import matplotlib.pyplot as plt  # noqa: E402

import oddslab  # noqa: E402
from oddslab import GenericScenario, Target, Weapon  # noqa: E402
from oddslab.exact import exact  # noqa: E402  (the same function as oddslab.exact)

IMG = ROOT / "docs" / "img"
EXAMPLES = ROOT / "examples"


def _save(fig, name: str) -> None:
    fig.tight_layout()
    fig.savefig(IMG / name, dpi=110)
    plt.close(fig)
    print(f"wrote docs/img/{name}")


def _report(out, exact, stat: str) -> None:
    print(f"{out.name}: {out.trials:,} trials, seed {out.seed}")
    for r in out.probabilities().itertuples():
        print(f"  {r.label}: {r.probability:.4f} ± {r.se:.4f}")
    s = out.summary()
    for name in exact.stat_names:
        print(
            f"  mean {name}: MC {s.loc[name, 'mean']:.4f} ± {s.loc[name, 'se_mean']:.4f}"
            f"  exact {exact.mean(name):.4f}"
        )


def intercessors() -> None:
    sc = oddslab.load(EXAMPLES / "generic-intercessors-vs-guardsmen.toml")
    out = oddslab.simulate(sc, trials=1_000_000, seed=2026)
    ex = exact(sc)
    _report(out, ex, "models_slain")
    print(
        f"  exact P(unsaved >= 10) {ex.prob('unsaved', 10):.5f}, P(unsaved >= 1)"
        f" {ex.prob('unsaved', 1):.5f}, P(unsaved = 20) {ex.probs['unsaved'][20]:.2g};"
        f" destroyed in {out.counts['destroyed'][1]:,} of {out.trials:,} trials"
    )
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    oddslab.plot_pmf(out, "models_slain", ax=a1)
    oddslab.plot_at_least(out, "models_slain", ax=a2)
    a2.set_title("P(at least k guardsmen slain)")
    _save(fig, "quickstart.png")
    fig, ax = plt.subplots(figsize=(7, 4.2))
    oddslab.plot_compare([out, ex], "damage", kind="pmf", ax=ax, labels=["Monte Carlo", "exact"])
    ax.set_title("10 bolt rifles vs 20 guardsmen: damage, simulated vs exact")
    _save(fig, "generic-intercessors.png")


def devastating() -> None:
    sc = oddslab.load(EXAMPLES / "generic-devastating-vs-terminators.toml")
    out = oddslab.simulate(sc, trials=1_000_000, seed=11)
    ex = exact(sc)
    _report(out, ex, "models_slain")
    at = out.at_least("damage").set_index("k")
    for k in (1, 4):
        print(
            f"  P(damage >= {k}): MC {at.loc[k, 'probability']:.4f} ± {at.loc[k, 'se']:.4f}"
            f"  exact {ex.prob('damage', k):.5f}"
        )
    print(f"  exact P(unsaved >= 1) {ex.prob('unsaved', 1):.5f}")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    oddslab.plot_pmf(out, "models_slain", ax=a1)
    oddslab.plot_pmf(ex, "damage", ax=a2)
    a2.set_title("damage (exact)")
    _save(fig, "generic-devastating.png")


def compare() -> None:
    target = Target(
        name="Terminator squad", models=5, wounds=3, toughness=5, save=2, invulnerable=4
    )
    plasma = Weapon(name="plasma", models=5, attacks=1, skill=3, strength=8, ap=3, damage=2)
    bolter = Weapon(name="bolt rifle", models=5, attacks=2, skill=3, strength=4, ap=1, damage=1)
    outs = [
        oddslab.simulate(GenericScenario((w,), target, name=f"5 x {w.name}"), 1_000_000, seed=5)
        for w in (plasma, bolter)
    ]
    for o in outs:
        print(f"{o.name}: mean slain {o.mean('models_slain'):.4f}", end="; ")
        print(f"P(>=1 slain) {o.prob('models_slain', 1):.4f}", end="; ")
        print(f"mean damage {o.mean('damage'):.4f}")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    oddslab.plot_compare(outs, "models_slain", ax=a1)
    oddslab.plot_compare(outs, "damage", kind="pmf", ax=a2)
    _save(fig, "generic-compare.png")


if __name__ == "__main__":
    IMG.mkdir(parents=True, exist_ok=True)
    intercessors()
    devastating()
    compare()
