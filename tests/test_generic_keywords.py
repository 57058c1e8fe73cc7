"""Weapon keywords as printed (issue 28): parsing, errors naming the key, and each keyword against
a hand-worked exact answer; the kernel against the exact engine (chi-square, 1e6 trials) and
against the naive reference (tests/naive.py reads each keyword's rule text again)."""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import pytest
from generic_power import assert_exact
from naive import generic_trial
from stats import P_MIN, chisquare_pmf
from switches import counts_of

from oddslab import GenericScenario, Rules, ScenarioError, Target, Weapon, from_dict, simulate
from oddslab.rulesets.generic import Situation
from oddslab.rulesets.generic.keywords import parse_keywords


def pmf_of(d: dict[int, F]) -> np.ndarray:
    out = np.zeros(max(d) + 1)
    for k, p in d.items():
        out[k] = float(p)
    return out


def close(a: np.ndarray, b: np.ndarray, tol: float = 1e-12) -> bool:
    n = max(len(a), len(b))
    aa, bb = np.zeros(n), np.zeros(n)
    aa[: len(a)] = a
    bb[: len(b)] = b
    return bool(np.max(np.abs(aa - bb)) <= tol)


def exact(w: Weapon, t: Target | None = None, **situation) -> dict[str, np.ndarray]:
    return GenericScenario((w,), t or Target(), situation=Situation(**situation)).exact_pmfs()


# -- parsing ------------------------------------------------------------------------------------


def test_keyword_string_as_printed():
    """Comma-separated, any case, brackets optional; an array works the same."""
    text = "[SUSTAINED HITS 1], lethal hits, Anti-Infantry 4+, Devastating Wounds, twin linked"
    w = Weapon(keywords=text)
    assert (str(w.sustained_hits), w.lethal_hits, w.devastating_wounds, w.twin_linked) == (
        "1",
        True,
        True,
        True,
    )
    assert w.anti == (("infantry", 4),)
    assert Weapon(keywords=text.split(",")) == w
    assert w.keywords == (
        "Twin-linked",
        "Lethal Hits",
        "Devastating Wounds",
        "Sustained Hits 1",
        "Anti-Infantry 4+",
    )
    assert parse_keywords("Melta 2, Rapid Fire 1, Sustained Hits D3, Blast") == {
        "melta": 2,
        "rapid_fire": 1,
        "sustained_hits": Weapon(sustained_hits="D3").sustained_hits,
        "blast": True,
    }


def test_keyword_errors_and_ignore():
    with pytest.raises(ValueError, match="did you mean 'Lethal Hits'"):
        Weapon(keywords="Lethal Hit")
    with pytest.raises(ValueError, match="unknown weapon keyword 'Pistol'.*ignore_keywords"):
        Weapon(keywords="Pistol")
    with pytest.raises(ValueError, match="needs its value"):
        Weapon(keywords="Melta")
    with pytest.raises(ValueError, match="disagree"):
        Weapon(keywords="Sustained Hits 2", sustained_hits=1)
    w = Weapon(keywords="Pistol, [ASSAULT], Lethal Hits", ignore_keywords=("pistol", "Assault"))
    assert w.keywords == ("Lethal Hits",) and w.lethal_hits


@pytest.mark.parametrize(
    ("weapon", "key"),
    [
        ({"keywords": "Lethal Hitz"}, "attacker.weapons[0].keywords"),
        ({"keywords": 3}, "attacker.weapons[0].keywords"),
        ({"melta": -1}, "attacker.weapons[0].melta"),
        ({"blast": "yes"}, "attacker.weapons[0].blast"),
        ({"half_range": 1}, "attacker.weapons[0].half_range"),
        ({"ignore_keywords": [1]}, "attacker.weapons[0].ignore_keywords"),
    ],
)
def test_bad_keyword_input_names_the_key(weapon, key):
    doc = {
        "ruleset": "generic",
        "attacker": {"weapons": [{"attacks": 1, **weapon}]},
        "target": {"models": 5},
    }
    with pytest.raises(ScenarioError) as err:
        from_dict(doc, source="bad.toml")
    assert err.value.key == key, str(err.value)


def test_scenario_keys_are_read():
    doc = {
        "ruleset": "generic",
        "attacker": {
            "remained_stationary": True,
            "charged": True,
            "half_range": True,
            "weapons": [
                {
                    "attacks": 1,
                    "keywords": "Heavy, Melta 2",
                    "range": 12,
                    "ignore_keywords": ["Pistol"],
                },
                {"attacks": 1, "keywords": ["Rapid Fire 1", "Lance"], "half_range": False},
            ],
        },
        "target": {"models": 5, "target_visible": False},
    }
    sc = from_dict(doc)
    assert sc.situation == Situation(True, True, True, False)
    a, b = sc.fired
    assert (a.hit_modifier, str(a.damage), sc.weapons[0].range) == (1, "3", 12)
    assert (b.wound_modifier, str(b.attacks)) == (1, "1")  # its own half_range = false
    res = sc.resolved()
    w1 = res["weapon 1: weapon 1"]
    assert w1["keyword Heavy"] == "+1 to hit" and w1["keyword Melta 2"] == "+2 damage per attack"
    assert w1["range"] == '12"' and w1["keyword ignored keywords"] == "Pistol"
    assert res["weapon 2: weapon 2"]["keyword Rapid Fire 1"] == "no effect (not within half range)"
    assert res["situation"]["target visible"] == "no"


# -- each keyword, hand-worked ----------------------------------------------------------------------


def test_heavy_and_indirect_fire_hit_rolls():
    """Heavy: 4+ becomes 3+ when stationary. Indirect Fire at an unseen target: 2+ with -1 is
    3+, but an unmodified 1-3 fails anyway: 4+ (1/2); seen, no effect (5/6)."""
    heavy = Weapon(attacks=1, skill=4, keywords="Heavy")
    assert close(exact(heavy, remained_stationary=True)["hits"], pmf_of({0: F(2, 6), 1: F(4, 6)}))
    assert close(exact(heavy)["hits"], pmf_of({0: F(3, 6), 1: F(3, 6)}))
    ind = Weapon(attacks=1, skill=2, keywords="Indirect Fire")
    assert close(exact(ind, target_visible=False)["hits"], pmf_of({0: F(1, 2), 1: F(1, 2)}))
    assert close(exact(ind)["hits"], pmf_of({0: F(1, 6), 1: F(5, 6)}))


def test_indirect_fire_cover_and_ignores_cover():
    """Unseen Indirect Fire gives the target cover: 5+ armour (AP 1, so the 3+-vs-AP-0 limit
    does not apply) saves on 4+. Ignores Cover takes any cover away (the target's own too)."""
    t = Target(save=4)
    ind = Weapon(attacks=1, torrent=True, wound=2, wound_modifier=1, ap=1, keywords="Indirect Fire")
    r = {"natural_one_fails": False}
    sc = GenericScenario((ind,), t, Rules(**r), situation=Situation(target_visible=False))
    assert close(sc.exact_pmfs()["unsaved"], pmf_of({0: F(1, 2), 1: F(1, 2)}))
    ign = Weapon(attacks=1, torrent=True, wound=2, wound_modifier=1, ap=1, keywords="Ignores Cover")
    sc = GenericScenario((ign,), Target(save=4, cover=True), Rules(**r))
    assert close(sc.exact_pmfs()["unsaved"], pmf_of({0: F(2, 6), 1: F(4, 6)}))


def test_lance_and_twin_linked_wound_rolls():
    """Lance: 4+ to wound becomes 3+ after a charge. Twin-linked: 4+ re-rolling failures:
    1/2 + 1/2 x 1/2 = 3/4."""
    lance = Weapon(attacks=1, torrent=True, wound=4, keywords="Lance")
    assert close(exact(lance, charged=True)["wounds"], pmf_of({0: F(2, 6), 1: F(4, 6)}))
    assert close(exact(lance)["wounds"], pmf_of({0: F(1, 2), 1: F(1, 2)}))
    twin = Weapon(attacks=1, torrent=True, wound=4, keywords="Twin-linked")
    assert close(exact(twin)["wounds"], pmf_of({0: F(1, 4), 1: F(3, 4)}))


def test_melta_and_rapid_fire_within_half_range():
    """Melta 2: D6 damage becomes D6+2 (3..8) within half range; Rapid Fire 1: 1 attack per
    model becomes 2 (3 models: 6 attacks); outside half range nothing changes."""
    melta = Weapon(attacks=1, torrent=True, wound=2, damage="D6", keywords="Melta 2")
    t = Target(wounds=20)
    n, w = F(1, 6), F(5, 6)
    assert close(
        exact(melta, t, half_range=True)["damage"],
        pmf_of({0: n, **{k: w / 6 for k in range(3, 9)}}),
    )
    assert close(exact(melta, t)["damage"], pmf_of({0: n, **{k: w / 6 for k in range(1, 7)}}))
    own = Weapon(attacks=1, torrent=True, damage="D6", keywords="Melta 2", half_range=True)
    assert GenericScenario((own,), t).fired[0].damage == melta.damage.parse("D6+2")
    rf = Weapon(models=3, attacks=1, keywords="Rapid Fire 1")
    assert close(exact(rf, half_range=True)["attacks"], pmf_of({6: F(1)}))
    assert close(exact(rf)["attacks"], pmf_of({3: F(1)}))


def test_torrent_sustained_lethal_anti_devastating_extra_attacks_map_to_the_keys():
    """These keywords set what exists today: the same exact PMFs as the keys."""
    t = Target(models=5, wounds=2, save=4, keywords=("infantry",))
    by_kw = Weapon(
        models=3, attacks=2, damage=2,
        keywords="Sustained Hits 1, Lethal Hits, Anti-Infantry 4+, Devastating Wounds, Extra Attacks",
    )  # fmt: skip
    by_key = Weapon(models=3, attacks=2, damage=2, sustained_hits=1, lethal_hits=True,
                    anti={"infantry": 4}, devastating_wounds=True)  # fmt: skip
    a, b = exact(by_kw, t), exact(by_key, t)
    assert a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    torrent = exact(Weapon(models=2, attacks=3, keywords="Torrent"))
    assert close(torrent["hits"], pmf_of({6: F(1)}))


def test_blast_counts_the_target_models_when_it_fires():
    """Blast against 10 models: +2 attacks per model (1 model, 1 attack: 3). After weapon A
    (torrent, wound 2+: 5/6, 1 damage) into 5 one-wound models, Blast weapon B has 1 attack if A
    slew a model (4 left) and 2 if not (5 left); B wounds on 2+ too. models_slain by hand:
    A slays (5/6) then B 1 attack: 1 + Bernoulli(5/6); A fails (1/6), B 2 attacks: Bin(2, 5/6)."""
    blast = Weapon(attacks=1, keywords="Blast")
    assert close(exact(blast, Target(models=10))["attacks"], pmf_of({3: F(1)}))
    assert close(exact(blast, Target(models=9))["attacks"], pmf_of({2: F(1)}))
    a = Weapon(name="A", attacks=1, torrent=True, wound=2)
    b = Weapon(name="B", attacks=1, torrent=True, wound=2, blast=True)
    sc = GenericScenario((a, b), Target(models=5))
    ex = sc.exact_pmfs()
    assert "attacks" not in ex  # Blast after a weapon that can slay: static PMFs not exact
    p, q = F(5, 6), F(1, 6)
    want = {0: q * q * q, 1: p * q + q * 2 * p * q, 2: p * p + q * p * p}
    assert close(ex["models_slain"], pmf_of(want))
    out = simulate(sc, trials=600_000, seed=28)
    want = {"attacks": pmf_of({2: p, 3: q}), "models_slain": ex["models_slain"]}
    assert_exact(out.counts, want, "blast after a weapon that can slay")


# -- kernel vs exact engine and naive reference --------------------------------------------------

KEYWORD_CONFIGS = {
    "blast-heavy-melta-indirect": GenericScenario(
        (
            Weapon(name="frag", models=3, attacks="D3", skill=4, strength=5, ap=0,
                   keywords="Blast, Heavy, Indirect Fire"),
            Weapon(name="melta", models=2, attacks=1, skill=3, strength=9, ap=4, damage="D6",
                   keywords="Melta 2, Lance, Twin-linked"),
        ),
        Target(models=10, wounds=2, toughness=4, save=4),
        situation=Situation(remained_stationary=True, charged=True, half_range=True,
                            target_visible=False),
    ),
    "rapid-fire-sustained-anti": GenericScenario(
        (Weapon(models=5, attacks=1, skill=3, strength=4, ap=1,
                keywords="Rapid Fire 1, Sustained Hits 1, Anti-Infantry 5+, Ignores Cover"),),
        Target(models=10, toughness=4, save=4, cover=True, keywords=("infantry",)),
        situation=Situation(half_range=True),
    ),
}  # fmt: skip


@pytest.mark.statistical
@pytest.mark.parametrize("name", list(KEYWORD_CONFIGS))
def test_keyword_kernel_matches_exact(name):
    """Every statistic with an exact PMF (the Blast weapon fires first, so all of them):
    chi-square p > 1e-4 at 1e6 trials; a 0.5 pp error in any would fail (checked)."""
    sc = KEYWORD_CONFIGS[name]
    ex = sc.exact_pmfs()
    assert {"attacks", "models_slain", "wounds_remaining"} <= set(ex)
    out = simulate(sc, trials=1_000_000, seed=2800 + list(KEYWORD_CONFIGS).index(name))
    assert_exact(out.counts, ex, name)


def test_keyword_naive_reference_matches_exact():
    """The naive loop applies each keyword from its rule text (not through ``fired``): its
    whole distributions agree with the exact engine's (chi-square, 20,000 trials)."""
    for name, sc in KEYWORD_CONFIGS.items():
        rng = random.Random(7)
        ex = sc.exact_pmfs()
        rows = [generic_trial(rng, sc) for _ in range(20_000)]
        for stat in ("attacks", "hits", "wounds", "unsaved", "damage", "models_slain"):
            p = chisquare_pmf(counts_of([r[stat] for r in rows]), ex[stat])
            assert p > P_MIN, f"{name}: naive {stat} against the exact PMF, p = {p:.2e}"


# -- Hazardous ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("keywords", "want_lost", "want_wounds"),
    [
        # 3 models fire a Hazardous weapon: the 1s are binomial(3, 1/6), each a model (2 W)
        ((), {k: F(3 if k in (1, 2) else 1, 1) * F(1, 6) ** k * F(5, 6) ** (3 - k) for k in range(4)},
         {2 * k: F(3 if k in (1, 2) else 1, 1) * F(1, 6) ** k * F(5, 6) ** (3 - k) for k in range(4)}),
        # a character (one 5-wound model, 3 dice): 3 mortal wounds per 1, at most 5
        (("Character",), {0: 1 - F(1, 6) ** 2 * (1 + 2 * F(5, 6)), 1: F(1, 6) ** 2 * (1 + 2 * F(5, 6))},
         {0: F(5, 6) ** 3, 3: 3 * F(1, 6) * F(5, 6) ** 2, 5: F(1, 6) ** 2 * (1 + 2 * F(5, 6))}),
    ],
)  # fmt: skip
def test_hazardous_losses(keywords, want_lost, want_wounds):
    """Exact by hand; the kernel by chi-square (200,000 trials, a 0.5 pp error would fail:
    checked) and the naive reference's whole distribution (20,000 trials)."""
    if keywords:
        w = Weapon(models=1, attacks=1, keywords="Hazardous")
        weapons, sit = (w, w, w), Situation(attacker_models=1, attacker_wounds=5,
                                            attacker_keywords=keywords)  # fmt: skip
    else:
        weapons = (Weapon(models=3, attacks=1, keywords="Hazardous"),)
        sit = Situation(attacker_models=5, attacker_wounds=2)
    sc = GenericScenario(weapons, Target(models=5), situation=sit)
    ex = sc.exact_pmfs()
    lost, hurt = pmf_of(want_lost), pmf_of(want_wounds)
    assert close(ex["attacker_models_lost_to_hazards"], lost)
    assert close(ex["attacker_wounds_lost"], hurt)
    out = simulate(sc, trials=200_000, seed=2805)
    want = {"attacker_models_lost_to_hazards": lost, "attacker_wounds_lost": hurt}
    assert_exact(out.counts, want, f"hazardous {keywords}")
    rng = random.Random(3)
    naive = counts_of([generic_trial(rng, sc)["attacker_wounds_lost"] for _ in range(20_000)])
    assert chisquare_pmf(naive, hurt) > P_MIN
    assert "Hazardous" in sc.resolved()["situation"]
