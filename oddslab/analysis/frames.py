"""A study's tidy frame, vectorised: thousands of cells at a time, read from memory or a store.

The per-cell way (an :class:`~oddslab.outcome.Outcome` per cell, then its summary and
probability rows) cost about 1.7 ms and 60 kB per cell. Here the cells of a chunk that
report the same statistics and headlines share one ``[cells, statistics, bins]`` array, and
means, standard errors, Wilson intervals and tail probabilities are numpy operations over
it. The numbers are the ones :meth:`Outcome.summary_rows` and :meth:`Outcome.probability_rows`
give (tested to 1e-12: a sum may be taken in another order).

Chunks come from :class:`oddslab.analysis.stored.StoredResults` (a store, read
:data:`CHUNK` cells at a time) or from a list; building holds one chunk's arrays besides the
columns it returns, and :func:`write_csv` writes chunk by chunk without holding the frame.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from oddslab.outcome import Z95

__all__ = ["COLUMNS", "CHUNK", "frame_chunks", "write_csv", "wilson_arrays"]

#: The frame's columns after the varied keys.
COLUMNS = ("kind", "statistic", "label", "value", "se", "ci_low", "ci_high", "trials", "seed",
           "exact")  # fmt: skip
#: Cells per chunk.
CHUNK = 500


def wilson_arrays(hits: np.ndarray, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray, ...]:
    """:func:`oddslab.outcome.wilson_interval` of arrays of hits out of ``n`` (``n`` ≥ 1)."""
    n = n.astype(float)
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = np.where(hits <= 0, 0.0, np.maximum(0.0, centre - half))
    hi = np.where(hits >= n, 1.0, np.minimum(1.0, centre + half))
    return lo, hi


def _layout(d: dict[str, Any]) -> tuple:
    """What decides a cell's rows: statistic names, titles, flags; headlines; exact or not."""
    exact = d.get("probs") is not None
    have = d["probs"] if exact else d["counts"]  # an exact answer leaves out what it lacks
    stats = tuple((s[0], s[4] or s[2] or s[0].replace("_", " "), bool(s[3]))
                  for s in d["stats"] if s[0] in have)  # fmt: skip
    heads = tuple(tuple(h) for h in d["headlines"])
    return stats, heads, exact


def _probability_heads(stats: tuple, heads: tuple) -> list[tuple[str, str, int]]:
    """The rows of :meth:`Outcome.probability_rows`: the headlines, then the yes/no statistics
    no headline names (``P(<title>)``), each (label, statistic, k)."""
    out = [tuple(h) for h in heads]
    named = {h[1] for h in heads if h[2] == 1}
    for name, title, flag in stats:
        if flag and name not in named:
            out.append((f"P({title})", name, 1))
    have = {s[0] for s in stats}
    return [h for h in out if h[1] in have]


def _group_rows(layout: tuple, ds: list[dict[str, Any]], keep: set[str] | None) -> dict:
    """The rows of cells sharing one layout, as arrays of shape ``[cells, rows]``."""
    stats, heads, exact = layout
    names = [s[0] for s in stats]
    field = "probs" if exact else "counts"
    width = max(1, max(len(d[field][n]) for d in ds for n in names))
    a = np.zeros((len(ds), len(names), width))
    for i, d in enumerate(ds):
        for j, n in enumerate(names):
            v = d[field][n]
            a[i, j, : len(v)] = v
    g = len(ds)
    trials = np.array([d["trials"] for d in ds], dtype=np.int64)
    t = np.maximum(trials, 1).astype(float)
    p = a if exact else a / t[:, None, None]
    v = np.arange(width, dtype=float)
    mean = p @ v
    var = np.maximum((p * (v - mean[:, :, None]) ** 2).sum(axis=2), 0.0)
    se = np.zeros_like(mean) if exact else np.sqrt(var) / np.sqrt(t)[:, None]
    kinds, stat_col, labels, values, ses, los, his = [], [], [], [], [], [], []
    for j, (name, title, _) in enumerate(stats):
        if keep is None or name in keep:
            kinds.append("mean"), stat_col.append(name), labels.append(title)
            values.append(mean[:, j]), ses.append(se[:, j])
            los.append(mean[:, j] - Z95 * se[:, j]), his.append(mean[:, j] + Z95 * se[:, j])
    tails = np.cumsum(a[:, :, ::-1], axis=2)[:, :, ::-1]  # tails[..., k] = Σ_{v ≥ k}
    for label, name, k in _probability_heads(stats, heads):
        if keep is not None and name not in keep:
            continue
        j = names.index(name)
        kk = max(k, 0)
        hits = tails[:, j, kk] if kk < width else np.zeros(g)
        if exact:
            pk, sk, lo, hi = hits, np.zeros(g), hits, hits
        else:
            pk = hits / t
            sk = np.sqrt(np.maximum(pk * (1 - pk), 0.0) / t)
            lo, hi = wilson_arrays(hits, t)
        kinds.append("probability"), stat_col.append(name), labels.append(label)
        values.append(pk), ses.append(sk), los.append(lo), his.append(hi)
    r = len(kinds)
    cols = np.stack(values, axis=1) if r else np.zeros((g, 0))
    return {
        "rows": r,
        "kind": kinds,
        "statistic": stat_col,
        "label": labels,
        "value": cols,
        "se": np.stack(ses, axis=1) if r else cols,
        "ci_low": np.stack(los, axis=1) if r else cols,
        "ci_high": np.stack(his, axis=1) if r else cols,
        "trials": trials,
    }


def frame_chunks(
    keys: list[str],
    pairs: Iterable[tuple[dict[str, Any], int, Any]],
    keep: set[str] | None = None,
    chunk: int = CHUNK,
) -> Iterator[dict[str, list[Any]]]:
    """The tidy frame's columns, ``chunk`` cells at a time.

    Parameters
    ----------
    keys : list of str
        The varied keys (the first columns).
    pairs : iterable of (values, seed, result)
        Each cell's values, its seed (None: the result's) and its result: a
        :class:`~oddslab.analysis.cells.CellResult`, its ``__dict__``, or its JSON text.
    keep : set of str, optional
        Keep only the rows of these statistics.
    """
    batch: list[tuple[dict[str, Any], int, dict[str, Any]]] = []
    for values, seed, r in pairs:
        d = json.loads(r) if isinstance(r, str) else (r if isinstance(r, dict) else r.__dict__)
        batch.append((values, d["seed"] if seed is None else seed, d))
        if len(batch) >= chunk:
            yield _chunk_columns(keys, batch, keep)
            batch = []
    if batch:
        yield _chunk_columns(keys, batch, keep)


def _chunk_columns(
    keys: list[str], batch: list[tuple[dict[str, Any], int, dict[str, Any]]], keep: set[str] | None
) -> dict[str, list[Any]]:
    groups: dict[tuple, list[int]] = {}
    for i, (_, _, d) in enumerate(batch):
        groups.setdefault(_layout(d), []).append(i)
    made = {lay: _group_rows(lay, [batch[i][2] for i in idx], keep) for lay, idx in groups.items()}
    where: dict[int, tuple[dict, int]] = {}
    for lay, idx in groups.items():
        for pos, i in enumerate(idx):
            where[i] = (made[lay], pos)
    out: dict[str, list[Any]] = {c: [] for c in (*keys, *COLUMNS)}
    for i, (values, seed, d) in enumerate(batch):
        g, pos = where[i]
        r = g["rows"]
        if r:
            for k in keys:
                out[k].extend([values[k]] * r)
            out["kind"].extend(g["kind"])
            out["statistic"].extend(g["statistic"])
            out["label"].extend(g["label"])
            for c in ("value", "se", "ci_low", "ci_high"):
                out[c].extend(g[c][pos].tolist())
            out["trials"].extend([int(g["trials"][pos])] * r)
            out["seed"].extend([seed] * r)
            out["exact"].extend([d.get("probs") is not None] * r)
        _event_rows(out, keys, values, seed, d, int(g["trials"][pos]))
    return out


def _event_rows(
    out: dict[str, list[Any]], keys: list[str], values: dict[str, Any], seed: int,
    d: dict[str, Any], trials: int,
) -> None:  # fmt: skip
    """A cell's events (``kind`` "event", ``label`` ``P(<label>)``), after its other rows:
    asked for by name, so kept whatever ``keep`` says; one a cell cannot answer is left out
    (the table's note says why)."""
    for label, e in (d.get("events") or {}).items():
        if "skipped" in e:
            continue
        for k in keys:
            out[k].append(values[k])
        out["kind"].append("event")
        out["statistic"].append(e["text"])
        out["label"].append(f"P({label})")
        for c, f in (("value", "probability"), ("se", "se"), ("ci_low", "ci_low"),
                     ("ci_high", "ci_high")):  # fmt: skip
            out[c].append(float("nan") if e[f] is None else float(e[f]))
        out["trials"].append(trials)
        out["seed"].append(seed)
        out["exact"].append(d.get("probs") is not None)


def write_csv(columns: Iterable[dict[str, list[Any]]], path: str | Path) -> None:
    """Write chunks of columns (:func:`frame_chunks`) to one CSV file, one chunk at a time
    (numbers as :func:`oddslab._format.csv_frame` writes them)."""
    import pandas as pd

    from oddslab._format import csv_frame

    with open(path, "w", encoding="utf-8", newline="") as f:
        first = True
        for cols in columns:
            text = csv_frame(pd.DataFrame(cols))
            if not first:
                text = text.split("\n", 1)[1]
            f.write(text)
            first = False
