"""A/B of oddslab's throughput before and after per-trial records (issue 29), every kernel row.

Issue 29 gave every kernel a records array after its histogram block (empty on normal runs)
and asked that the throughput of every benchmark row stay within 10% of before. This script
measures that, one way for all rows:

- **Two trees.** ``--before`` is a plain copy of the old commit (``git archive 3f4cb3f | tar
  -x -C /tmp/bench29-before``); ``--after`` is this repository (default). Each side runs in its
  own fresh processes with ``PYTHONPATH`` at its own tree (the child checks ``oddslab.__file__``)
  and its own ``NUMBA_CACHE_DIR`` (``--cache-dir``/before, /after), warmed once first, so the
  kernels are loaded from cache and compile time is not measured.
- **The rows.** The scenarios are each side's own ``benchmarks/bench_*.py`` builders (the
  armoured-clash pool job is built here, with ``records=True`` only where the old ``Job`` lacks
  it); only oddslab's call is timed, never the pure-Python or numpy references. The analysis,
  web, import and memory benchmarks are not kernel rows and are left out. The formation-actions
  exact chain is not a kernel either; it is timed as a control (it should not move).
- **One thread, CPU time.** ``NUMBA_NUM_THREADS=1``, so the process CPU time
  (``time.process_time`` around the call) is the work done, whatever else runs on the shared
  machine; the wall rate is reported too (it swings with the load). Each child times every row
  ``--repeat`` times (same seed, same trials) and keeps the smallest CPU time and the smallest
  wall time; the trial count per row is calibrated once (on the after side) to about
  ``--target-cpu`` seconds a call and used by both sides.
- **Alternating processes.** before, after, before, after, ... ``--pairs`` times. The table
  gives, per row, the median over the processes of each side and the ratio after ÷ before of
  the medians (> 1: after is faster), with the range of the per-pair ratios.
- **Same work.** Each child hashes every row's histograms; statistics present on both sides
  must be bit-identical (a new statistic after records, e.g. vom kriege's battle-back hits,
  is left out of the comparison).
- **Records on (secondary table).** In ``--events-runs`` further after-side processes, a few
  rows are timed alternately as a normal run and with ``events=[one event joining the first
  two statistics]``, which makes the kernels write full records that the engine's recorder
  counts; and each row's kernel alone, called directly a chunk at a time with the empty
  records block and with a full one (the cost of writing records, without the recorder).

Run (a few minutes on an idle 2-core machine, more under load)::

    git archive 3f4cb3f | tar -x -C /tmp/bench29-before   # once, into an empty directory
    python benchmarks/ab_records.py --before /tmp/bench29-before --pairs 3

Options: ``--only generic,vom_kriege`` (benchmark names), ``--repeat R`` (timed calls per row
per process, default 3), ``--target-cpu S`` (default 0.4), ``--events-runs N`` (default 2; 0
skips), ``--json PATH`` (every sample; ``--from-json PATH [PATH ...]`` prints their table again, a later run's rows
replacing an earlier one's),
``--markdown PATH`` (append the section to this file,
e.g. ``benchmarks/RESULTS.md``). Timings on a shared machine are noisy: read the CPU-second
columns, and the spread of the pair ratios, before the wall ones.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CHUNK = 65536
ROWS = (  # key, benchmark, row as in RESULTS.md
    ("g1", "generic", "20 attacks, hit 3+ re-roll 1s, sustained hits 1, wound 4+, save 5+"),
    ("g2", "generic", "plasma + rifles vs 10 two-wound models, FNP 6+ (allocation)"),
    ("g3", "generic", "20 rifle shots vs bodyguard unit + leader (mixed-unit kernel)"),
    ("ac1", "armoured_clash", "ranged attack + suppression cascade"),
    ("ac2", "armoured_clash", "close quarters (example)"),
    ("ac3", "armoured_clash", "attack pool alone (12 dice, neutral)"),
    ("ap1", "assault_phase", "10 marines charge 20 boyz (1 turn, morale, sweep)"),
    ("vk1", "vom_kriege", "cuirassiers charge a line (melee sequence)"),
    ("vk2", "vom_kriege", "8-gun heavy battery at a column (single shot)"),
    ("hp1", "hex_platoon", "ranged fire with saves and state change"),
    ("hp2", "hex_platoon", "artillery mission over 7 hexes"),
    ("fa1", "formation_actions", "6 v 6 formations, 6 turns (retaining, best-first)"),
    ("fa2", "formation_actions", "the same, Shock reading of the -1 (lock-step pick)"),
    ("fa3", "formation_actions", "exact Shock/broken chain, 10 turns (control: not a kernel)"),
)
EVENT_ROWS = ("g1", "g3", "ac1", "ap1", "vk1", "vk2", "hp1", "fa1")


# -- parent side: orchestration and the table --------------------------------------------------


def _spawn(tree: Path, cache: Path, mode: str, rows: list[str], counts, repeat: int) -> dict:
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(tree),
        NUMBA_CACHE_DIR=str(cache),
        NUMBA_NUM_THREADS="1",
        MPLBACKEND="Agg",
    )
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--tree", str(tree)]
    cmd += ["--rows", ",".join(rows), "--repeat", str(repeat)]
    if counts:
        cmd += ["--counts", json.dumps(counts)]
    res = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"{mode} run in {tree} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def _fmt(x: float) -> str:
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {prefix}"
    return f"{x:.3g}"


def summarise(data: dict) -> tuple[list[list[str]], list[str]]:
    """Table rows and notes (identical histograms, rows slower than 10% per CPU-s)."""
    table, notes = [], []
    label = {k: (bench, text) for k, bench, text in ROWS}
    for key in data["counts"]:
        rates = {}
        for side in ("before", "after"):
            runs = [r["rows"][key] for r in data["runs"][side]]
            rates[side] = {
                m: [r["n"] / min(r[m]) for r in runs] for m in ("cpu", "wall")
            }  # per process: the best of its repeats
        med = {s: {m: statistics.median(v) for m, v in rates[s].items()} for s in rates}
        ratio = {m: med["after"][m] / med["before"][m] for m in ("cpu", "wall")}
        pairs = [a / b for a, b in zip(rates["after"]["cpu"], rates["before"]["cpu"], strict=True)]
        d_b = data["runs"]["before"][0]["rows"][key]["digest"]
        d_a = data["runs"]["after"][0]["rows"][key]["digest"]
        common = sorted(set(d_b) & set(d_a))
        same = all(d_b[k] == d_a[k] for k in common)
        if key != "fa3" and not same:
            notes.append(f"{key}: histograms differ between before and after")
        if ratio["cpu"] < 0.9:
            notes.append(
                f"{label[key][0]} / {label[key][1]}: {ratio['cpu']:.2f}x per CPU-s "
                f"(before {_fmt(med['before']['cpu'])}/CPU-s, after {_fmt(med['after']['cpu'])})"
            )
        unit = "chains" if key == "fa3" else "trials"
        table.append(
            [
                label[key][0].replace("_", "-"),
                label[key][1],
                f"{data['counts'][key]:,} {unit}",
                _fmt(med["before"]["cpu"]),
                _fmt(med["after"]["cpu"]),
                f"**{ratio['cpu']:.2f}×**",
                f"{min(pairs):.2f}–{max(pairs):.2f}",
                _fmt(med["before"]["wall"]),
                _fmt(med["after"]["wall"]),
                f"{ratio['wall']:.2f}×",
                "—" if key == "fa3" else ("yes" if same else "**no**") + f" ({len(common)})",
            ]
        )
    return table, notes


def events_table(data: dict) -> list[list[str]]:
    label = {k: (bench, text) for k, bench, text in ROWS}
    out = []
    for key in data["events"][0]["rows"] if data["events"] else ():
        runs = [r["rows"][key] for r in data["events"]]
        n = runs[0]["n"]
        rate = {
            m: statistics.median(n / min(c for _, c in r[m]) for r in runs)
            for m in ("off", "on", "k_off", "k_on")
        }
        out.append(
            [
                label[key][0].replace("_", "-"),
                label[key][1],
                f"`` {runs[0]['event']} ``",
                _fmt(rate["off"]),
                _fmt(rate["on"]),
                f"{rate['on'] / rate['off']:.2f}×",
                _fmt(rate["k_off"]),
                _fmt(rate["k_on"]),
                f"{rate['k_on'] / rate['k_off']:.2f}×",
            ]
        )
    return out


def combine(parts: list[dict]) -> dict:
    """One table from several ``--json`` runs: a later run's rows replace an earlier one's
    (e.g. one ruleset re-measured after new commits); the header names every run."""
    data = json.loads(json.dumps(parts[0]))
    data["loads"] = _loads(parts[0])
    last = {k: i for i, p in enumerate(parts) for k in p["counts"]}
    data["sources"] = [
        dict(p, rows=[k for k in p["counts"] if last[k] == i]) for i, p in enumerate(parts)
    ]
    for part in parts[1:]:
        data["loads"] += _loads(part)
        for key, n in part["counts"].items():
            data["counts"][key] = n
            for side in ("before", "after"):
                for mine, theirs in zip(data["runs"][side], part["runs"][side], strict=True):
                    mine["rows"][key] = theirs["rows"][key]
            for mine, theirs in zip(data["events"], part["events"], strict=True):
                if key in theirs["rows"]:
                    mine["rows"][key] = theirs["rows"][key]
    return data


def _loads(data: dict) -> list[float]:
    """Every 1-min load average a child saw, at its start and its end."""
    runs = [r for side in data["runs"].values() for r in side] + data["events"]
    return [r[k][0] for r in runs for k in ("load_start", "load_end")]


def _source(d: dict, rows: str = "") -> str:
    return (
        f"{rows}measured {d['started']}–{d['finished']} by `{d['command']}`: before = "
        f"`{d['before']}` ({d['before_label']}), after = `{d['after']}` "
        f"({d['after_label'].split()[0]})"
    )


def markdown(data: dict) -> str:
    def tab(heads, rows):
        lines = ["| " + " | ".join(heads) + " |", "|" + "|".join("---" for _ in heads) + "|"]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])

    table, notes = summarise(data)
    loads = data.get("loads") or _loads(data)
    benches = {k: bench for k, bench, _ in ROWS}
    if "sources" in data:
        runs = "; ".join(
            _source(d, ", ".join(sorted({benches[k] for k in d["rows"]})) + " rows ")
            for d in data["sources"]
        )
    else:
        runs = _source(data).capitalize()
    heads = ["ruleset", "row", "trials a call", "before /CPU-s", "after /CPU-s",
             "after ÷ before (CPU)", "pair ratios (CPU)", "before /s wall", "after /s wall",
             "after ÷ before (wall)", "histograms identical (stats compared)"]  # fmt: skip
    text = [
        "## Per-trial records (issue 29): cost",
        "",
        f"{runs}; each child checking that `oddslab` came from its own tree; "
        f"{data['pairs']} pairs of fresh processes, alternating "
        f"before/after, each with its own warm `NUMBA_CACHE_DIR`, `NUMBA_NUM_THREADS=1`; per "
        f"process and row the best of {data['repeat']} calls; medians over the processes. "
        f"Load average (1 min) over the runs {min(loads):.1f}–{max(loads):.1f} "
        f"(median {statistics.median(loads):.1f}) on {os.cpu_count()} CPUs: a shared machine, "
        "noisy; wall rates swing with the load, trials per CPU-second much less.",
        "",
        tab(heads, table),
        "",
    ]
    if notes:
        text += ["Rows to look at: " + "; ".join(notes) + ".", ""]
    else:
        text += ["No row is more than 10% slower per CPU-second; histograms identical.", ""]
    ev = events_table(data)
    if ev:
        text += [
            "Records on (after only): `simulate` as normal and with `events=[one event joining "
            "two statistics]` (the kernel writes every trial's record and the engine's recorder "
            "counts the event from them, chunk by chunk); and the kernel alone, called directly "
            "chunk by chunk with the empty records block of normal runs and with a full one (what "
            "writing the records costs, without the recorder). Timed alternately in "
            f"{len(data['events'])} fresh processes; trials per CPU-second, medians of each "
            "process's best.",
            "",
            tab(
                [
                    "ruleset",
                    "row",
                    "event",
                    "simulate /CPU-s",
                    "with the event /CPU-s",
                    "ratio",
                    "kernel, no records",
                    "kernel, records written",
                    "ratio",
                ],
                ev,
            ),  # fmt: skip
            "",
        ]
    return "\n".join(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="the old tree (git archive of the old commit)")
    ap.add_argument("--after", type=Path, default=ROOT, help="the new tree (default: this one)")
    ap.add_argument("--before-label", default="3f4cb3f")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--target-cpu", type=float, default=0.4)
    ap.add_argument("--events-runs", type=int, default=2)
    ap.add_argument("--only", default="", help="benchmark names, e.g. generic,vom_kriege")
    ap.add_argument("--cache-dir", type=Path, default=Path("/tmp/oddslab-ab-records-cache"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--markdown", type=Path, help="append the section to this file")
    ap.add_argument(
        "--from-json", type=Path, nargs="+", help="only print the table of earlier --json runs"
    )
    ap.add_argument("--child", choices=("warm", "measure", "events"), help=argparse.SUPPRESS)
    ap.add_argument("--tree", help=argparse.SUPPRESS)
    ap.add_argument("--rows", help=argparse.SUPPRESS)
    ap.add_argument("--counts", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        from _ab_child import child

        args.mode = args.child
        print(json.dumps(child(args)))
        return 0
    if args.from_json:
        print(markdown(combine([json.loads(p.read_text()) for p in args.from_json])))
        return 0
    if args.before is None:
        ap.error("--before is required (a tree of the old commit)")
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    keys = [k for k, bench, _ in ROWS if not only or bench in only]
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    caches = {s: args.cache_dir / s for s in trees}
    label = subprocess.run(
        ["git", "log", "-1", "--format=%h"], cwd=trees["after"], capture_output=True, text=True
    ).stdout.strip()
    started = datetime.now(UTC)
    print(f"warming caches ({', '.join(keys)})", file=sys.stderr)
    warm = {s: _spawn(trees[s], caches[s], "warm", keys, None, 1) for s in trees}
    counts = {}
    for k in keys:
        per = warm["after"]["rows"][k]["cpu_per_unit"]
        step = 1 if k == "fa3" else CHUNK
        counts[k] = max(1, round(args.target_cpu / per / step)) * step
    runs: dict[str, list] = {"before": [], "after": []}
    for i in range(args.pairs):
        for side in ("before", "after"):
            print(f"pair {i + 1}/{args.pairs}: {side}", file=sys.stderr)
            runs[side].append(
                _spawn(trees[side], caches[side], "measure", keys, counts, args.repeat)
            )
    ev_keys = [k for k in EVENT_ROWS if k in keys]
    events = [
        _spawn(trees["after"], caches["after"], "events", ev_keys, counts, args.repeat)
        for _ in range(args.events_runs if ev_keys else 0)
    ]
    data = {
        "command": "python benchmarks/ab_records.py " + " ".join(argv or sys.argv[1:]),
        "started": started.strftime("%Y-%m-%d %H:%M"),
        "finished": datetime.now(UTC).strftime("%H:%M UTC"),
        "before": str(trees["before"]),
        "before_label": args.before_label,
        "after": str(trees["after"]),
        "after_label": label,
        "pairs": args.pairs,
        "repeat": args.repeat,
        "counts": counts,
        "runs": runs,
        "events": events,
    }
    if args.json:
        args.json.write_text(json.dumps(data, indent=1))
    text = markdown(data)
    print(text)
    if args.markdown:
        with args.markdown.open("a") as f:
            f.write("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
