"""``--event``, ``--joint``, ``--joint-plot`` and ``--records`` of ``oddslab simulate`` (and
``--event`` of ``compare``): options, checks made before any work, and output.

Every check runs before a trial: each event and joint against the scenario's statistics
(did-you-mean for typos), the records file's format, folder and optional dependency
(``.parquet`` needs pyarrow), the heatmap's file. Heavy imports stay inside the functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from oddslab.cli_common import fail, parse_trials

__all__ = [
    "EventOpt",
    "JointOpt",
    "JointPlotOpt",
    "RecordsOpt",
    "RecordTrialsOpt",
    "Ask",
    "check_ask",
    "emit_ask",
    "finish_ask",
    "exact_asks",
    "read_target",
]

EventOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--event",
        "-e",
        metavar="EVENT",
        help='P(EVENT) with SE and 95% CI, e.g. "defender_models_lost >= 5 and '
        'attacker_models_lost == 0"; name it with "clean win = ..."; "A | B" is P(A given '
        "B). Repeatable. Statistics: oddslab show SCENARIO.",
    ),
]
JointOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--joint",
        "-j",
        metavar="A,B[,C...]",
        help="The joint distribution of two or more statistics (a 2-D table for two). Repeatable.",
    ),
]
JointPlotOpt = Annotated[
    Path | None,
    typer.Option(
        "--joint-plot",
        metavar="FILE",
        help="Write a heatmap of the first two-statistic --joint here (.png, .pdf, .svg...).",
    ),
]
RecordsOpt = Annotated[
    Path | None,
    typer.Option(
        "--records",
        metavar="FILE",
        help="Write every statistic of the first --record-trials trials here (.csv or "
        ".parquet), one row a trial.",
    ),
]
RecordTrialsOpt = Annotated[
    int | None,
    typer.Option(
        "--record-trials",
        parser=parse_trials,
        metavar="N",
        help="Trials --records keeps (the first N; 4 bytes a statistic a trial; default 100,000).",
    ),
]

#: Trials ``--records`` keeps unless ``--record-trials`` says otherwise.
DEFAULT_RECORD_TRIALS = 100_000
#: Record files and the optional module each needs.
RECORD_FORMATS = {".csv": None, ".parquet": "pyarrow"}


@dataclass
class Ask:
    """What a run is asked besides its distributions (checked)."""

    events: list[str] = field(default_factory=list)
    joints: list[tuple[str, ...]] = field(default_factory=list)
    joint_plot: Path | None = None
    records: Path | None = None
    record_trials: int = 0

    @property
    def any(self) -> bool:
        return bool(self.events or self.joints or self.records)

    def simulate_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`oddslab.engine.simulate`."""
        return {
            "events": tuple(self.events),
            "joint": tuple(self.joints),
            "records": self.record_trials if self.records is not None else 0,
        }


def check_ask(
    scenario: Any,
    events: list[str] | None,
    joints: list[str] | None,
    joint_plot: Path | None = None,
    records: Path | None = None,
    record_trials: int | None = None,
    trials: int | None = None,
) -> Ask:
    """Everything checked before any work; a mistake ends in ``error: ...`` (exit 2)."""
    from oddslab.events import EventError, check_joint, parse_events

    if record_trials is not None and records is None:  # as --batch without Dask: refused
        raise fail("--record-trials applies to --records FILE (the trials it keeps)")
    ask = Ask(events=list(events or []))
    if not (events or joints or joint_plot or records):
        return ask
    job = scenario.compile()
    names = [s.name for s in job.stats]
    try:
        parse_events(ask.events, names)
        ask.joints = [check_joint(j, names, f"--joint {j}") for j in joints or []]
    except EventError as exc:
        raise fail(str(exc)) from None
    if joint_plot is not None:
        if not any(len(j) == 2 for j in ask.joints):
            raise fail("--joint-plot draws a two-statistic --joint; give one, e.g. --joint a,b")
        from oddslab.plotting import check_plot_path

        try:
            ask.joint_plot = check_plot_path(joint_plot)
        except ValueError as exc:
            raise fail(f"--joint-plot {exc}") from None
    if records is not None:
        suffix = records.suffix.lower()
        if suffix not in RECORD_FORMATS:
            raise fail(f"--records '{records}': give a .csv or .parquet file")
        need = RECORD_FORMATS[suffix]
        import importlib.util

        if need and importlib.util.find_spec(need) is None:
            raise fail(
                f"--records '{records}': writing {suffix} needs the '{need}' package "
                f"(pip install {need}), or give a .csv file"
            )
        from oddslab.plotting import check_output_file

        try:
            check_output_file(records, str(records))
        except ValueError as exc:
            raise fail(f"--records {exc}") from None
        ask.records = records
        keep = DEFAULT_RECORD_TRIALS if record_trials is None else record_trials
        ask.record_trials = min(keep, trials) if trials else keep
    if (ask.events or ask.joints or ask.records) and not job.records:
        raise fail(
            f"the {job.ruleset or 'scenario'}'s kernel does not record trials, so --event, "
            "--joint and --records are not available for it"
        )
    return ask


def emit_ask(outcome: Any, ask: Ask, con: Any) -> None:
    """The joint tables, as tables (for ``--format table``; the events are printed with
    the headlines)."""
    from oddslab._report_questions import print_joint

    for js in ask.joints:
        print_joint(outcome, js, con)


def finish_ask(outcome: Any, ask: Ask) -> None:
    """Write the records file and the joint heatmap asked for (after the run)."""
    if ask.records is not None and outcome.records is not None:
        frame = outcome.records
        if ask.records.suffix.lower() == ".parquet":
            frame.to_parquet(ask.records, index=False)
        else:
            frame.to_csv(ask.records, index=False)
        typer.echo(f"wrote {len(frame):,} trials' records to {ask.records}", err=True)
    if ask.joint_plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        from oddslab.cli_common import save_plot
        from oddslab.plotting import plot_joint

        a, b = next(j for j in ask.joints if len(j) == 2)
        save_plot(plot_joint(outcome, a, b), ask.joint_plot)


def exact_ask(scenario: Any, outcome: Any, ask: Ask) -> str | None:
    """:func:`oddslab._answer.exact_questions` of ``ask``."""
    from oddslab._answer import exact_questions

    return exact_questions(scenario, outcome, ask.events, ask.joints, ask.records is not None)


def exact_asks(
    loaded: list, outcomes: list, asks: list[Ask], why: list[str]
) -> tuple[list, list[str]]:
    """``compare``: the exact outcomes kept when each answers its scenario's events exactly
    too, else none (all are simulated, and ``why`` says so)."""
    if not outcomes or not any(a.any for a in asks):
        return outcomes, why
    for i, (sc, out, ask) in enumerate(zip(loaded, outcomes, asks, strict=True)):
        why_not = exact_ask(sc, out, ask)
        if why_not is not None:
            return [], [f"{why_not} (scenario {i + 1}), so all are simulated"] * len(loaded)
    return outcomes, why


def read_target(target: Path) -> dict:
    """``compare --target``: a TOML table used as every scenario's target, or a unit
    library entry ``LIBRARY.toml:ENTRY`` (through the scenario ``use =`` hook)."""
    from oddslab.scenario import ScenarioError, read_toml

    lib, _, entry = str(target).rpartition(":")
    if not target.exists() and lib and entry and Path(lib).is_file():
        return {"use": f"{Path(lib).resolve()}:{entry}"}
    try:
        shared = read_toml(target)
    except ScenarioError as exc:
        raise fail(f"--target: {exc}") from None
    if set(shared) == {"target"} and isinstance(shared["target"], dict):
        shared = shared["target"]
    return shared
