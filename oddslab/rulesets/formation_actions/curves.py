"""Turn-by-turn curves of a formation-actions outcome as tidy DataFrames, and their plot."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oddslab.outcome import Outcome

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["turn_curves", "formation_summary", "army_summary", "plot_broken_by_turn"]

_MEASURES = {
    "actions": "mean formations passing their action test",
    "holds": "mean formations failing (Hold)",
    "broken_after": "mean formations broken at the end of the turn",
    "shock": "mean Shock after the turn",
    "broken_by": "P(broken by the end of the turn)",
    "won_strategy": "P(wins the strategy roll)",
    "p_action": "P(passes its action test and acts)",
    "p_hold": "P(fails its action test: Hold)",
}
_CODE = {"p_action": 1, "p_hold": 2}


def _meta(outcome: Outcome) -> dict[str, Any]:
    if "curves" not in outcome.meta:
        raise ValueError(f"'{outcome.name}' is not a formation-actions outcome")
    return outcome.meta


def turn_curves(outcome: Outcome) -> pd.DataFrame:
    """Every per-turn quantity as one tidy table.

    Returns
    -------
    DataFrame
        Columns ``who`` (plain words: "blue" or "blue infantry"), ``army``, ``formation``
        (key; "" for army rows), ``turn`` (1..N), ``measure`` (``actions``, ``holds``,
        ``broken_after``, ``won_strategy`` for armies; ``p_action``, ``p_hold``, ``shock``, ``broken_by`` for
        formations), ``description``, ``value`` (a mean, or for ``p_action``, ``p_hold``
        ``broken_by`` and ``won_strategy`` a probability), ``se``
        (standard error; 0 for exact outcomes) and ``stat`` (the statistic it comes from).
        Rows of statistics missing from the outcome (e.g. an exact outcome of an army that
        retains) are left out.
    """
    import pandas as pd

    meta = _meta(outcome)
    anames = meta["army_names"]
    fnames = meta["formation_names"]
    summ = outcome.summary()
    rows = []
    for stat, army, form, measure, turn in meta["curves"]:
        if stat not in outcome.probs:
            continue
        who = anames[army] + (f" {fnames[(army, form)]}" if form else "")
        if measure in ("broken_by", "won_strategy"):
            value = outcome.prob(stat, 1)
            se = outcome._interval(value)[0]
        elif measure in _CODE:
            value = float(outcome.probs[stat][_CODE[measure]])
            se = outcome._interval(value)[0]
        else:
            value = float(summ.loc[stat, "mean"])
            se = float(summ.loc[stat, "se_mean"])
        rows.append((who, army, form, turn, measure, _MEASURES[measure], value, se, stat))
    return pd.DataFrame(
        rows,
        columns=[
            "who",
            "army",
            "formation",
            "turn",
            "measure",
            "description",
            "value",
            "se",
            "stat",
        ],
    )


def formation_summary(outcome: Outcome) -> pd.DataFrame:
    """One row per formation: P(action passes), mean actions and Holds per game, P(broken by
    the last turn), P(rallied from broken at least once), mean withdrawals.

    ``p_action_passes`` is the share of its action tests that passed (mean passed / mean
    tests); ``NaN`` if it never tested.
    """
    import pandas as pd

    meta = _meta(outcome)
    n = meta["turns"]
    rows = []
    for (army, form), fname in meta["formation_names"].items():
        p = f"{army}_{form}"
        if f"{p}_actions" not in outcome.probs:
            continue
        acts = outcome.mean(f"{p}_actions")
        holds = outcome.mean(f"{p}_holds")
        tests = acts + holds
        rows.append(
            {
                "who": f"{meta['army_names'][army]} {fname}",
                "army": army,
                "formation": form,
                "p_action_passes": acts / tests if tests > 0 else float("nan"),
                "mean_actions": acts,
                "mean_holds": holds,
                f"p_broken_by_turn_{n}": _p_or_zero(outcome, f"{p}_broken_by_turn_{n}"),
                "p_rallied": _p_or_zero(outcome, f"{p}_rallied"),
                "mean_withdrawals": outcome.mean(f"{p}_withdrawals")
                if f"{p}_withdrawals" in outcome.probs
                else 0.0,
            }
        )
    return pd.DataFrame(rows)


def army_summary(outcome: Outcome) -> pd.DataFrame:
    """One row per army: share of its action tests that passed, actions and Holds per game,
    mean turns it won the strategy roll, P(it retained the initiative at least once) and mean
    tries (0 for an army that never retains), mean withdrawals.

    Rows of an exact outcome whose army retains (its per-turn totals are simulation-only)
    are left out.
    """
    import pandas as pd

    meta = _meta(outcome)
    n = meta["turns"]
    rows = []
    for army, name in meta["army_names"].items():
        if f"{army}_actions_turn_1" not in outcome.probs:
            continue
        acts = sum(outcome.mean(f"{army}_actions_turn_{t}") for t in range(1, n + 1))
        holds = sum(outcome.mean(f"{army}_holds_turn_{t}") for t in range(1, n + 1))
        has = f"{army}_retained" in outcome.probs
        rows.append(
            {
                "who": name,
                "army": army,
                "p_action_passes": acts / (acts + holds) if acts + holds > 0 else float("nan"),
                "mean_actions": acts,
                "mean_holds": holds,
                "mean_strategy_wins": outcome.mean(f"{army}_won_strategy"),
                "p_retained": outcome.prob(f"{army}_retained", 1) if has else 0.0,
                "mean_retain_attempts": outcome.mean(f"{army}_retain_attempts") if has else 0.0,
                "mean_withdrawals": outcome.mean(f"{army}_withdrawals")
                if f"{army}_withdrawals" in outcome.probs
                else 0.0,
            }
        )
    return pd.DataFrame(rows)


def _p_or_zero(outcome: Outcome, stat: str) -> float:
    """P(stat >= 1), or 0 for a statistic left out because it cannot happen."""
    return outcome.prob(stat, 1) if stat in outcome.probs else 0.0


def plot_broken_by_turn(
    outcome: Outcome, ax: Axes | None = None, who: list[str] | None = None, label: str | None = None
) -> Axes:
    """P(broken by turn t) against t, one line per formation (95% bands for Monte Carlo).

    Parameters
    ----------
    outcome : Outcome
        A formation-actions outcome (simulated or exact).
    ax : matplotlib Axes, optional
    who : list of str, optional
        Only these formations (plain names as in ``turn_curves(...)["who"]``).
    label : str, optional
        Prefix for the legend entries (e.g. "command 4").
    """
    from oddslab.outcome import Z95

    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7, 4.2))
    df = turn_curves(outcome)
    df = df[df["measure"] == "broken_by"]
    for name, g in df.groupby("who", sort=False):
        if who is not None and name not in who:
            continue
        g = g.sort_values("turn")
        text = f"{label}: {name}" if label else name
        (line,) = ax.plot(g["turn"], g["value"], marker="o", ms=3.5, label=text)
        if not outcome.exact:
            lo = (g["value"] - Z95 * g["se"]).clip(0, 1)
            hi = (g["value"] + Z95 * g["se"]).clip(0, 1)
            ax.fill_between(g["turn"], lo, hi, color=line.get_color(), alpha=0.2, lw=0)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("turn")
    ax.set_ylabel("P(broken by the end of the turn)")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    if ax.get_title() == "":
        kind = "exact" if outcome.exact else f"{outcome.trials:,} games"
        ax.set_title(f"{outcome.name}: P(broken by turn t) ({kind})")
    return ax
