"""The child side of ``ab_records.py``: one process of one tree (warm, measure or events).

Run only by ``ab_records.py`` (``--child MODE --tree TREE``), with ``PYTHONPATH`` at ``TREE``:
this module puts ``TREE``'s ``benchmarks/`` and ``tests/`` first on ``sys.path`` and checks
that ``oddslab`` was imported from ``TREE``, then builds every row from that tree's own
``bench_*.py`` scenario builders and times only oddslab's call (see ``ab_records.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHUNK = 65536


def _builders(tree: Path) -> dict:
    """Row key -> ``build()`` -> ``run(n, seed, events=())`` -> its histograms (or None)."""
    import dataclasses

    from oddslab import engine

    def sim(make):
        def build():
            sc = make()

            def run(n, seed, events=()):
                kw = {"events": list(events)} if events else {}
                return engine.simulate(sc, trials=n, seed=seed, **kw).counts

            run.scenario = sc
            return run

        return build

    b = {}
    import bench_generic as G

    b["g1"], b["g2"], b["g3"] = (
        sim(G.scenario),
        sim(G.allocation_scenario),
        sim(G.mixed_scenario),
    )
    import bench_armoured_clash as AC

    from oddslab.scenario import load

    b["ac1"] = sim(AC.scenario)
    b["ac2"] = sim(lambda: load(tree / "examples/armoured-clash-close-quarters.toml"))

    def pool():
        die = AC.AttackDie()
        params = (AC.N_DICE, 1, die.face_score(), die.explode_mask(), die.tier_table(), die.kinds())
        # as bench_armoured_clash builds it; the old Job has no ``records`` field
        kw = {"records": True} if "records" in engine.Job.__dataclass_fields__ else {}
        stats = (AC.Stat("hits", 4 * AC.N_DICE + 1),)
        job = engine.Job("pool", AC.K.run_pool_only, params, stats, **kw)
        return lambda n, seed, events=(): engine.run_job(job, n, seed).counts

    b["ac3"] = pool
    import bench_assault_phase as AP

    b["ap1"] = sim(AP.scenario)
    import bench_vom_kriege as VK

    b["vk1"], b["vk2"] = sim(VK.melee_scenario), sim(VK.shooting_scenario)
    import bench_hex_platoon as HP

    from oddslab.scenario import from_dict

    b["hp1"] = sim(lambda: from_dict(HP.fire_scenario()))
    b["hp2"] = sim(lambda: from_dict(HP.artillery_scenario()))
    import bench_formation_actions as FA

    b["fa1"] = sim(FA.scenario)
    b["fa2"] = sim(
        lambda: dataclasses.replace(FA.scenario(), rules=FA.Rules(action_penalty="shock"))
    )

    def chain():
        f = FA.Formation(
            "rifles",
            command=4,
            units=4,
            suppressed=1,
            outside_shock=FA.OutsideShock(table=(0.5, 0.3, 0.2)),
        )

        def run(n, seed, events=()):
            for _ in range(n):
                FA.formation_chain(f, FA.Rules(), 10)

        return run

    b["fa3"] = chain
    return b


def _digest(counts) -> dict[str, str]:
    """Statistic -> sha1 of its histogram (int64, trailing zero bins dropped)."""
    import numpy as np

    out = {}
    for k, v in (counts or {}).items():
        a = np.trim_zeros(np.asarray(v, dtype=np.int64), "b")
        out[k] = hashlib.sha1(a.tobytes()).hexdigest()[:16]
    return out


def _kernel_only(sc, n: int):
    """``run(full)``: the scenario's kernel called directly on ``n // CHUNK`` chunks, one
    chunk a call as the recorder calls it on one thread, with a full records block
    (``full``) or the empty one of normal runs; no histogram merge, no recorder."""
    import numpy as np

    from oddslab._compile import no_records
    from oddslab._seeding import chunk_seeds
    from oddslab.engine import _as_job

    job = _as_job(sc)[0]
    c = n // CHUNK
    seeds, nt = chunk_seeds(13, 0, c), np.full(c, CHUNK, dtype=np.int64)
    out = np.zeros((1, len(job.stats), job.n_bins), dtype=np.int64)
    blocks = {True: np.empty((1, CHUNK, len(job.stats)), np.int32), False: no_records(job, 1)}

    def run(full: bool) -> None:
        rec = blocks[full]
        for i in range(c):
            job.kernel(seeds[i : i + 1], nt[i : i + 1], out, rec, *job.params)

    return run


def _timed(fn, *args):
    """(wall s, process CPU s, result) of ``fn(*args)``."""
    c0, t0 = time.process_time(), time.perf_counter()
    res = fn(*args)
    return time.perf_counter() - t0, time.process_time() - c0, res


def child(args) -> dict:
    """One process of one side: warm/calibrate, measure or events (see the module doc)."""
    tree = Path(args.tree).resolve()
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
    for p in (tree / "tests", tree, tree / "benchmarks"):
        sys.path.insert(0, str(p))
    import numba

    import oddslab

    where = Path(oddslab.__file__).resolve()
    if tree not in where.parents:
        raise SystemExit(f"oddslab imported from {where}, not from {tree}")
    counts_n = json.loads(args.counts) if args.counts else {}
    keys = args.rows.split(",")
    build = _builders(tree)
    info = {
        "oddslab": str(where),
        "threads": numba.get_num_threads(),
        "load_start": os.getloadavg(),
        "rows": {},
    }
    for key in keys:
        unit_chain = key == "fa3"
        run = build[key]()
        first = 1 if unit_chain else CHUNK
        run(first, 1)  # load from the cache (or compile when warming)
        row: dict = {}
        if args.mode == "warm":
            n = 20 if unit_chain else 8 * CHUNK
            _, cpu, _ = _timed(run, n, 13)
            row["cpu_per_unit"] = cpu / n
        elif args.mode == "measure":
            n = counts_n[key]
            walls, cpus = [], []
            for _ in range(args.repeat):
                wall, cpu, res = _timed(run, n, 13)
                walls.append(wall)
                cpus.append(cpu)
            row.update(n=n, wall=walls, cpu=cpus, digest=_digest(res))
        else:  # events: normal run and records-on run, alternately
            stats = list(run(CHUNK, 1))[:2]
            ev = f"`{stats[0]}` >= 1 and `{stats[1]}` >= 1"
            run(CHUNK, 1, (ev,))  # the recorder's own kernels, warm
            n = counts_n[key]
            kernel = _kernel_only(run.scenario, n)
            kernel(True)
            off, on, k_off, k_on = [], [], [], []
            for _ in range(args.repeat):
                off.append(_timed(run, n, 13)[:2])
                on.append(_timed(run, n, 13, (ev,))[:2])
                k_off.append(_timed(kernel, False)[:2])
                k_on.append(_timed(kernel, True)[:2])
            row.update(n=n, event=ev, off=off, on=on, k_off=k_off, k_on=k_on)
        info["rows"][key] = row
    info["load_end"] = os.getloadavg()
    return info
