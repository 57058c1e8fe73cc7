"""What the command line prints: resolved inputs, outcome tables, comparisons (rich, no pandas).

Every piece of user text (scenario names, custom-face dice such as ``4d[0,0,1]``, labels)
is escaped before it reaches rich, so square brackets print as written.
"""

from __future__ import annotations

import math
from typing import Any

from oddslab._tables import print_table
from oddslab.outcome import (
    Z95,
    Outcome,
    format_number,
    format_probability,
    rows_to_csv,
    wilson_interval,
)

__all__ = [
    "console",
    "print_resolved",
    "print_outcome",
    "header_text",
    "precision_note",
    "compare_rows",
    "print_compare",
    "TAIL",
    "MAX_ROWS",
    "unique_names",
    "compare_csv",
    "compare_json",
    "progress_runner",
    "run_settings",
]

#: The P(≥ k) table folds values whose total probability is below this into one "≥ k" row.
TAIL = 1e-4
#: ...and never prints more than this many rows.
MAX_ROWS = 40


def console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def _esc(text: Any) -> str:
    from rich.markup import escape

    return escape(str(text))


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format(value, ".6g")
    return str(value)


def print_resolved(resolved: dict[str, dict[str, Any]] | None, con, title: str = "") -> None:
    """The inputs as the program read them, section by section."""
    from oddslab._tables import print_pairs

    heading = title or "Resolved inputs (what was run)"
    if not resolved:
        con.print(f"[bold]{_esc(heading)}[/bold]: this ruleset does not list its resolved inputs")
        return
    rows = []
    for section, items in resolved.items():
        rows.append((str(section), "", True))
        rows += [(f"  {key}", _value_text(value), False) for key, value in items.items()]
    print_pairs(con, heading, rows)


def run_settings(scenario: Any) -> dict[str, Any]:
    """What ``oddslab show`` (and the web API's ``/api/show``) lists as the run: name, trials
    and seed, the defaults said in words."""
    seed = getattr(scenario, "seed", None)
    return {
        "name": getattr(scenario, "name", ""),
        "trials": getattr(scenario, "trials", None) or "1,000,000 (default)",
        "seed": seed if seed is not None else "random (printed with the results)",
    }


def header_text(outcome: Outcome) -> str:
    """``name  (1,048,576 trials, seed 7, run 0.14 s; kernels loaded in 0.30 s)``."""
    if outcome.exact:
        return f"[bold]{_esc(outcome.name)}[/bold]  (exact)"
    parts = [f"{outcome.trials:,} trials", f"seed {outcome.seed}", f"run {outcome.elapsed:.2f} s"]
    text = ", ".join(parts)
    if outcome.compiled:
        text += f"; kernels compiled in {outcome.compile_time:.1f} s (first run only)"
    elif outcome.compile_time >= 0.01:
        text += f"; kernels loaded in {outcome.compile_time:.2f} s"
    if outcome.interrupted:
        text += " — interrupted (Ctrl-C): partial result"
    return f"[bold]{_esc(outcome.name)}[/bold]  ({text})"


def precision_note(outcome: Outcome) -> str | None:
    """One sentence when a precision run stopped before its target, else None."""
    from oddslab.engine import trials_needed

    if outcome.precision is None or outcome.precision_reached is not False:
        return None
    why = "Ctrl-C" if outcome.interrupted else "the trial ceiling"
    need = trials_needed(outcome)
    text = (
        f"precision {outcome.precision:g} NOT reached: {why} stopped the run at "
        f"{outcome.trials:,} trials with a 95% half-width of {outcome.half_width:.2g}"
    )
    if need:
        text += f"; about {need:,} trials would reach it (raise --trials)"
    return text


def _ci(lo: float, hi: float) -> str:
    return f"{format_probability(lo)} – {format_probability(hi)}"


def _se(se: float) -> str:
    return format_probability(se) if se >= 1e-9 else "0"  # below: float noise at p = 0 or 1


def print_outcome(outcome: Outcome, stat: str, con) -> None:
    """Header, headline probabilities, per-trial statistics, and P(= k) / P(≥ k) of ``stat``.

    Exact outcomes have no standard-error columns.
    """
    mc = not outcome.exact
    con.print(header_text(outcome))
    note = precision_note(outcome)
    if note:
        con.print(f"[bold red]{_esc(note)}[/bold red]")
    elif outcome.precision is not None:
        con.print(
            f"precision {outcome.precision:g} reached (widest 95% half-width "
            f"{outcome.half_width:.2g})"
        )

    rows = outcome.probability_rows()
    if rows:
        cols = ("outcome", "P", "± SE", "95% CI") if mc else ("outcome", "P")
        body = []
        for r in rows:
            cells = [str(r["label"]), format_probability(r["probability"])]
            if mc:
                cells += [_se(r["se"]), _ci(r["ci_low"], r["ci_high"])]
            body.append(cells)
        print_table(con, "Headline probabilities", _justified(cols), body, min_width=24)
    if outcome.events:  # --event: with the headlines
        from oddslab._report_questions import print_events

        print_events(outcome, con)

    cols = ["statistic", "mean", "± SE", "sd", "5%", "median", "95%", "max"]
    if not mc:
        cols.remove("± SE")
    body = []
    for r in outcome.summary_rows():
        cells = [str(r["label"]), format_number(r["mean"])]
        if mc:
            cells.append(format_number(r["se_mean"]))
        cells += [
            format_number(r["sd"]),
            str(r["q05"]),
            str(r["q50"]),
            str(r["q95"]),
            str(r["max"]),
        ]
        body.append(cells)
    print_table(con, "Per-trial statistics", _justified(cols), body, min_width=22)

    title = f"{outcome.title(stat)}: P(= k) and P(≥ k)"
    cols = ["k", "P(= k)", "P(≥ k)", *(("± SE",) if mc else ())]
    body = []
    for k_text, p_eq, row in bounded_rows(outcome, stat):
        cells = [k_text, format_probability(p_eq), format_probability(row["probability"])]
        if mc:
            cells.append(_se(row["se"]))
        body.append(cells)
    print_table(con, title, [(c, "right") for c in cols], body, min_width=len(title) + 1)


def _justified(cols) -> list[tuple[str, str]]:
    """The first column left-justified (labels), the others right (numbers)."""
    return [(c, "left" if i == 0 else "right") for i, c in enumerate(cols)]


def bounded_rows(outcome: Outcome, stat: str) -> list[tuple[str, float, dict[str, Any]]]:
    """Rows ``(k text, P(= k), at-least row)`` of the P(≥ k) table, bounded.

    Values are listed one by one while the tail beyond them holds at least :data:`TAIL` of
    the probability and at most :data:`MAX_ROWS` rows; the rest is folded into one
    ``≥ k`` row (whose P(= k) column is then P(≥ k)). A single leftover value keeps its row.
    """
    pmf = outcome.pmf_rows(stat)
    al = outcome.at_least_rows(stat)
    out = []
    last = len(al) - 1
    first = next((k for k, r in enumerate(pmf) if r["probability"] > 0), 0)
    for k, row in enumerate(al):
        if k < first:
            continue
        fold_here = k < last and (
            len(out) >= MAX_ROWS - 1 or (k > first and row["probability"] < TAIL)
        )
        if fold_here:
            out.append((f"≥ {k}", row["probability"], row))
            break
        out.append((str(k), pmf[k]["probability"], row))
    return out


# -- comparison --------------------------------------------------------------------------------
def compare_rows(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """One row per headline probability and per statistic's mean, across ``outcomes``.

    Each row: ``{"row": label, "stat", "k", "kind": "probability"|"mean", "values": [per
    outcome {value, se, ci_low, ci_high} or None], "diffs": [per later outcome {diff,
    ci_low, ci_high} or None]}``. Differences are against the first outcome; their 95%
    interval is Newcombe's hybrid score interval (from the two Wilson intervals) for
    probabilities and ``± 1.96 sqrt(se_a² + se_b²)`` for means, treating the runs as
    independent.
    """
    order: list[tuple[str, str, int, str]] = []
    seen: set[tuple[str, str]] = set()
    per: list[dict[tuple[str, str], dict[str, Any]]] = []
    for o in outcomes:
        got: dict[tuple[str, str], dict[str, Any]] = {}
        for r in o.probability_rows():
            key = ("probability", r["label"])
            hits = o._hits(r["stat"], r["k"])
            got[key] = {
                "value": r["probability"],
                "se": r["se"],
                "ci_low": r["ci_low"],
                "ci_high": r["ci_high"],
                "n": o.trials,
                "hits": hits,
            }
            if key not in seen:
                seen.add(key)
                order.append(("probability", r["label"], r["k"], r["stat"]))
        for e in o.events.values():  # --event: a probability row like the headlines
            key = ("probability", f"P({e.label})")
            got[key] = {
                "value": e.probability,
                "se": e.se,
                "ci_low": e.ci_low,
                "ci_high": e.ci_high,
                "n": e.trials,
                "hits": e.hits,
            }
            if key not in seen:
                seen.add(key)
                order.append(("probability", f"P({e.label})", 1, e.text))
        for r in o.summary_rows():
            key = ("mean", r["label"])
            got[key] = {
                "value": r["mean"],
                "se": r["se_mean"],
                "ci_low": r["ci_low"],
                "ci_high": r["ci_high"],
            }
            if key not in seen:
                seen.add(key)
                order.append(("mean", r["label"], 0, r["stat"]))
        per.append(got)
    order.sort(key=lambda row: row[0] != "probability")  # probabilities first (stable)
    rows = []
    for kind, label, k, stat in order:
        values = [g.get((kind, label)) for g in per]
        diffs = [None] + [_diff(kind, values[0], v) for v in values[1:]]
        rows.append(
            {
                "row": label if kind == "probability" else f"mean {label}",
                "stat": stat,
                "k": k if kind == "probability" else None,
                "kind": kind,
                "values": values,
                "diffs": diffs,
            }
        )
    return rows


def _diff(kind: str, a: dict | None, b: dict | None) -> dict[str, float] | None:
    if a is None or b is None:
        return None
    d = b["value"] - a["value"]
    if kind == "probability":
        la, ua = a["ci_low"], a["ci_high"]
        lb, ub = b["ci_low"], b["ci_high"]
        if a.get("hits") is not None and a.get("n"):
            la, ua = wilson_interval(a["hits"], a["n"])
        if b.get("hits") is not None and b.get("n"):
            lb, ub = wilson_interval(b["hits"], b["n"])
        lo = d - math.sqrt((b["value"] - lb) ** 2 + (ua - a["value"]) ** 2)
        hi = d + math.sqrt((ub - b["value"]) ** 2 + (a["value"] - la) ** 2)
    else:
        half = Z95 * math.sqrt(a["se"] ** 2 + b["se"] ** 2)
        lo, hi = d - half, d + half
    return {"diff": d, "ci_low": lo, "ci_high": hi}


def _signed(x: float, kind: str) -> str:
    text = format_probability(abs(x)) if kind == "probability" else format_number(abs(x))
    if x == 0:
        return "0"
    return ("+" if x > 0 else "−") + text


def print_compare(outcomes: list[Outcome], names: list[str], rows: list[dict], con) -> None:
    """The comparison table: each scenario's value ± SE, then each one's difference from the
    first with its 95% interval."""
    exact = all(o.exact for o in outcomes)
    trials = ", ".join("exact" if o.exact else f"{o.trials:,} trials" for o in outcomes)
    cols = [("", "left")]
    for i, n in enumerate(names):
        cols.append((n, "right"))
        if i:
            cols.append((f"{n} − first" + ("" if exact else " [95% CI]"), "right"))
    body = []
    for r in rows:
        kind = r["kind"]
        fmt = format_probability if kind == "probability" else format_number
        cells = [str(r["row"])]
        for i, v in enumerate(r["values"]):
            se = "" if v is None or exact else f" ± {_se_text(v['se'], kind)}"
            cells.append("—" if v is None else f"{fmt(v['value'])}{se}")
            if i:
                d = r["diffs"][i]
                cells.append(
                    "—"
                    if d is None
                    else _signed(d["diff"], kind)
                    if exact
                    else f"{_signed(d['diff'], kind)} [{_signed(d['ci_low'], kind)}, "
                    f"{_signed(d['ci_high'], kind)}]"
                )
        body.append(cells)
    title = f"Comparison ({'exact' if exact else trials}; differences against {names[0]})"
    print_table(con, title, cols, body)


def _se_text(se: float, kind: str) -> str:
    if se < 1e-9:  # 0, or float noise in sqrt(p (1 - p) / n) at p = 1
        return "0"
    return format_probability(se) if kind == "probability" else format_number(se)


# -- comparison exports, progress --------------------------------------------------------------
def unique_names(names: list[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        m, i = n, 2
        while m in out:
            m, i = f"{n} ({i})", i + 1
        out.append(m)
    return out


def compare_csv(names, paths, rows) -> str:
    out = []
    for r in rows:
        for i, (n, p) in enumerate(zip(names, paths, strict=True)):
            v = r["values"][i]
            if v is None:
                continue
            value_name = "probability" if r["kind"] == "probability" else "mean"
            for m, x in ((value_name, v["value"]), ("se", v["se"]), ("ci_low", v["ci_low"]),
                         ("ci_high", v["ci_high"])):  # fmt: skip
                out.append((n, str(p), r["row"], r["stat"], r["k"], m, x))
            d = r["diffs"][i]
            if d is not None:
                for m in ("diff", "ci_low", "ci_high"):
                    out.append((n, str(p), r["row"], r["stat"], r["k"], f"{m}_vs_first", d[m]))
    return rows_to_csv(("scenario", "file", "row", "stat", "k", "measure", "value"), out)


def compare_json(names, paths, outcomes, rows) -> str:
    import json

    data = {}
    for i, (n, p, o) in enumerate(zip(names, paths, outcomes, strict=True)):
        values = {r["row"]: r["values"][i] for r in rows if r["values"][i] is not None}
        for v in values.values():
            v.pop("hits", None), v.pop("n", None)
        diffs = {r["row"]: r["diffs"][i] for r in rows if r["diffs"][i] is not None}
        data[n] = {
            "file": str(p),
            **{k: v for k, v in o.run_info().items() if k != "name"},
            "resolved": o.resolved,
            "values": values,
            "difference_vs_first": diffs if i else None,
        }
    return json.dumps({"first": names[0], "scenarios": data}, indent=2)


def progress_runner():
    """A progress callback that shows a rich bar once a run has taken more than ~1 s: the
    trials done, the time taken and, for a fixed number of trials, the time left. The engine
    calls it from a helper thread too (``progress_every``), so it moves during a batch."""
    import sys
    import time

    state = {"start": time.perf_counter(), "bar": None, "task": None}

    def callback(done: int, total: int | None) -> None:
        if state["bar"] is None:
            if time.perf_counter() - state["start"] < 1.0 or not sys.stderr.isatty():
                return
            from rich.progress import (
                BarColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            eta = (TextColumn("left"), TimeRemainingColumn()) if total else ()
            bar = Progress(
                TextColumn("simulating"),
                BarColumn(),
                TextColumn("{task.completed:,} trials"),
                TimeElapsedColumn(),
                *eta,
                transient=True,
                console=console(stderr=True),  # stdout may be a CSV or JSON file
            )
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task("run", total=total)
        state["bar"].update(state["task"], completed=done, total=total)

    def close() -> None:
        if state["bar"] is not None:
            state["bar"].stop()

    return callback, close
