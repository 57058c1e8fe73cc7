"""Every fenced code block of README.md and docs/*.md works as written, from any folder, and
every path, library entry, statistic and scenario key the pages name exists.

How each kind of block is checked (see :mod:`docs_blocks` for the extraction):

- ``python``: run in page order in one namespace (a page is one program), and each block
  alone in a fresh namespace (a reader may copy just one), in this process so numba's
  kernels compile once for all of them, with the working directory an empty temporary folder
  (so a snippet must find the examples through ``oddslab.examples_dir()`` or a bare name).
- shell (``bash``/``sh``/``shell`` blocks, and the ``$ `` lines of unlabelled transcripts):
  every ``oddslab ...`` / ``python -m oddslab ...`` command runs through the CLI (typer's
  runner, in this process) in a temporary folder where ``oddslab examples --copy examples``
  put the shipped scenarios, as the README tells a user outside a checkout. Left out: ``pip``
  and ``pytest``, synopsis lines with a placeholder that cannot be filled (a synopsis
  line's ``SCENARIO.toml``, ``LIBRARY.toml``, ``N``, ... are filled with shipped examples
  by :data:`docs_blocks.FILL`, optional ``[--opt X]`` groups run too: see
  :func:`docs_blocks.fill`), ``--scheduler``/``--workers`` (a cluster), ``oddslab serve`` (a server
  runs until stopped; tests/test_web*.py start and stop it), and commands naming a file that
  does not exist (the error transcripts of broken files). ``; echo $?`` lines may exit 2.
- ``toml``: parsed, then read as a unit library (``units`` tables; an excerpt without
  ``ruleset`` is read as a generic one) or a scenario, written in the copied examples folder
  (or a folder beside it, for ``../libraries/...`` uses).
- Speed: every run is capped at :data:`CAP` trials (``oddslab.engine.run_job`` patched), so
  these tests check that snippets work, not the numbers they print; they take seconds.

Markers, on the line right before a block, used sparingly and explained in the page text:
``<!-- docs-test: fragment -->`` (part of the page's program: run in order only; a TOML
fragment is parsed and its ``use`` checked but not read as a whole scenario) and
``<!-- docs-test: skip -->`` (not run at all).
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT
from docs_blocks import _PLACEHOLDER, PAGES, Block, blocks, fill, shell_commands
from docs_keys import harvest_keys

#: Most trials any run in these tests makes.
CAP = 20_000

ALL = [b for page in PAGES for b in blocks(page)]
PY = [b for b in ALL if b.lang == "python"]
TOML = [b for b in ALL if b.lang == "toml"]
SHELL = [(b, cmd) for b in ALL for cmd in shell_commands(b)]


@pytest.fixture
def capped(monkeypatch):
    import oddslab.engine as engine

    real = engine.run_job

    def run_job(job, trials, seed, **kw):
        return real(job, min(trials, CAP), seed, **kw)

    monkeypatch.setattr(engine, "run_job", run_job)
    monkeypatch.setenv("MPLBACKEND", "Agg")


@pytest.fixture
def examples_copy(tmp_path, monkeypatch):
    """A folder holding ``examples/`` as ``oddslab examples --copy examples`` makes it."""
    import shutil

    from oddslab import examples_dir

    shutil.copytree(examples_dir(), tmp_path / "examples", ignore=_no_cache)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _no_cache(_dir, names):
    return [n for n in names if n == "__pycache__"]


def _exec(code: str, namespace: dict, where: str) -> None:
    import matplotlib.pyplot as plt

    try:
        exec(compile(code, where, "exec"), namespace)
    finally:
        plt.close("all")


def test_there_are_blocks_of_every_kind():
    assert len(PY) >= 15 and len(TOML) >= 6 and len(SHELL) >= 15


@pytest.mark.parametrize("page", sorted({b.page for b in PY}), ids=lambda p: p.name)
def test_python_blocks_run_in_page_order(page, capped, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__main__"}
    for b in (b for b in PY if b.page == page and b.marker != "skip"):
        _exec(b.code, namespace, b.where)


@pytest.mark.parametrize(
    "block", [b for b in PY if b.marker is None], ids=lambda b: b.where.replace(" ", "")
)
def test_python_block_runs_alone(block, capped, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _exec(block.code, {"__name__": "__main__"}, block.where)


@pytest.mark.parametrize("case", SHELL, ids=lambda c: f"{c[0].where}:{c[1][:40]}")
def test_shell_commands_run(case, capped, examples_copy):
    from typer.testing import CliRunner

    from oddslab.cli import app

    block, cmd = case
    may_fail = bool(re.search(r";\s*echo", cmd))
    line, _, into = re.split(r";\s*echo", cmd)[0].partition(" > ")
    args = shlex.split(line)[1:]  # after "oddslab"
    res = CliRunner().invoke(app, args)
    if into:
        Path(into.strip()).write_text(res.stdout)
    assert res.exception is None or isinstance(res.exception, SystemExit), (
        f"{block.where}: {cmd}\n{res.output[-1500:]}"
    )
    assert res.exit_code == 0 or (may_fail and res.exit_code == 2), (
        f"{block.where}: {cmd} exited {res.exit_code}\n{res.output[-1500:]}"
    )


#: ``<!-- docs-sample: COLUMNS=100 -->`` on the line before a printed sample: the width it was
#: printed at (the command is the last one of the shell block before it).
_SAMPLE = re.compile(r"<!--\s*docs-sample:\s*COLUMNS=(\d+)\s*-->\s*$")


def _samples() -> list[tuple[Block, str, int]]:
    out = []
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        found = blocks(page)
        for prev, b in zip(found, found[1:], strict=False):
            mark = _SAMPLE.search(lines[b.line - 2]) if b.line >= 2 else None
            if mark:
                out.append((b, shell_commands(prev)[-1], int(mark.group(1))))
    return out


SAMPLES = _samples()


def test_printed_tables_name_their_width():
    """Every printed table of README.md and docs/analysis.md is a sample checked below."""
    checked = {b.where for b, _, _ in SAMPLES}
    tables = [b.where for b in ALL if "┏" in b.code and b.page.name in ("README.md", "analysis.md")]
    assert tables and set(tables) <= checked, (tables, checked)


@pytest.mark.parametrize("case", SAMPLES, ids=lambda c: c[0].where)
def test_printed_samples_match_their_command(case, examples_copy):
    """A sample prints exactly what its command prints at the width it names (exact cells:
    no trials to cap)."""
    from typer.testing import CliRunner

    from oddslab.cli import app

    block, cmd, width = case
    res = CliRunner(env={"COLUMNS": str(width)}).invoke(app, shlex.split(cmd)[1:])
    assert res.exit_code == 0, res.output
    assert res.stdout.rstrip() == block.code.rstrip(), f"{block.where}: {cmd}\n{res.stdout}"


@pytest.mark.parametrize("block", TOML, ids=lambda b: b.where.replace(" ", ""))
def test_toml_blocks_read(block, examples_copy):
    from oddslab.libraries import load_library
    from oddslab.scenario import ScenarioError, load

    data = tomllib.loads(block.code)
    for ref in _uses(data):
        assert _entry_exists(ref, examples_copy / "examples"), (block.where, ref)
    if block.marker is not None:
        return
    errors = []
    for folder in (examples_copy / "examples", examples_copy / "examples" / "scenarios"):
        folder.mkdir(exist_ok=True)
        path = folder / "doc-block.toml"
        lib_excerpt = _is_library(data) and "ruleset" not in data  # a generic entry or two
        path.write_text(('ruleset = "generic"\n' if lib_excerpt else "") + block.code)
        try:
            load_library(path) if _is_library(data) else load(path)
            return
        except ScenarioError as exc:
            errors.append(str(exc))
    pytest.fail(f"{block.where}: {errors}")


def _is_library(data: dict) -> bool:
    """A unit library (or an excerpt of one: ``[units.NAME]`` tables, where a scenario of a
    ruleset with named units would also have its actions or attacks)."""
    units = data.get("units")
    return isinstance(units, dict) and not any(k in data for k in ("actions", "attacks"))


def _uses(data) -> list[str]:
    if isinstance(data, dict):
        out = [data["use"]] if isinstance(data.get("use"), str) else []
        return out + [r for v in data.values() for r in _uses(v)]
    if isinstance(data, list):
        return [r for v in data for r in _uses(v)]
    return []


def _entry_exists(ref: str, base: Path) -> bool:
    """``lib.toml:entry`` names an entry of a library found from ``base`` (the folder a
    scenario would sit in), the examples folder, or the repository root."""
    from oddslab import examples_dir
    from oddslab.libraries import load_library

    lib, _, entry = ref.rpartition(":")
    if "{" in ref:  # a matchup template's {attacker} / {target}
        return True
    for root in (base, examples_dir(), examples_dir() / "libraries", ROOT, ROOT / "oddslab"):
        path = (root / lib).resolve()
        if path.is_file():
            return entry in load_library(path).entries
    alt = examples_dir() / "libraries" / Path(lib).name  # ../libraries/x.toml from a subfolder
    return alt.is_file() and entry in load_library(alt).entries


# -- names: paths, library entries, statistics, keys -------------------------------------------
_PATH = re.compile(
    r"(?<![\w/.$-])((?:examples|oddslab|docs|tests|tools|benchmarks|notebooks)/[\w./*<>-]*[\w*>])"
)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_paths_and_links_exist(page):
    text = page.read_text(encoding="utf-8")
    missing = []
    for path in _PATH.findall(text):
        if "*" in path or "<" in path or "." not in Path(path).name:
            continue  # globs, placeholders and folders (a page may name one still to come)
        if not any((base / path).exists() for base in (ROOT, ROOT / "oddslab")):
            missing.append(path)
    for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not link.startswith(("http://", "https://", "mailto:")):
            if not (page.parent / link).exists():
                missing.append(link)
    assert not missing, f"{page.name}: {sorted(set(missing))}"


_ENTRY = re.compile(r"([\w./~-]*libraries/[\w.-]+\.toml):(\w+)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_library_entries_exist(page):
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"\$L:", "examples/libraries/generic-weapons.toml:", text)  # analysis.md
    bad = [f"{lib}:{e}" for lib, e in _ENTRY.findall(text) if not _entry_exists(f"{lib}:{e}", ROOT)]
    assert not bad, f"{page.name}: {bad}"


def _all_stat_names() -> set[str]:
    from oddslab.scenario import load

    names: set[str] = set()
    for f in sorted((ROOT / "oddslab" / "examples").glob("*.toml")):
        names.update(s.name for s in load(f).compile().stats)
    from oddslab.pools import parse_roll

    for pool in ("4D6", "3D6 vs 2D6", "2D6 <= 7"):  # `oddslab roll`
        names.update(s.name for s in parse_roll(pool).compile().stats)
    return names


_METRIC = re.compile(
    r"P\(([a-z][a-z0-9_]*)\s*(?:>=|<=|==|>|<)|mean\(([a-z][a-z0-9_]*)\)|--stat\s+([a-z][a-z0-9_]*)"
    r"|\.(?:pmf|at_least)\(\"([a-z][a-z0-9_]*)\""
)


def test_statistics_named_in_metrics_exist():
    """Statistics in metric expressions, ``--stat`` and ``pmf("...")`` are real statistics of
    some shipped example (names built from an army's or unit's own name are matched by their
    ending)."""
    names = _all_stat_names()
    endings = {n.split("_", 1)[-1] for n in names}
    words = {"at", "k", "stat", "x", "a", "b", "slain", "higher", "broken", "retained"}
    bad = []
    for page in PAGES:
        for groups in _METRIC.findall(page.read_text(encoding="utf-8")):
            stat = next(g for g in groups if g)
            if stat in names or stat in words or stat.split("_", 1)[-1] in endings:
                continue
            bad.append(f"{page.name}: {stat}")
    assert not bad, bad


def test_scenario_format_lists_every_key_of_every_ruleset():
    """docs/scenario-format.md names every key each ruleset's reader takes (table by table,
    in "Every key, by ruleset"), and names no key there that the readers do not take."""
    text = (ROOT / "docs" / "scenario-format.md").read_text(encoding="utf-8")
    section = text.split("## Every key, by ruleset", 1)[1]
    per_rs = dict(re.findall(r"### `([\w-]+)`.*?\n(.*?)(?=\n### |\Z)", section, flags=re.S))
    assert set(per_rs) == {
        "generic", "armoured-clash", "assault-phase", "vom-kriege", "hex-platoon",
        "formation-actions",
    }  # fmt: skip
    for (rs, path), keys in harvest_keys().items():
        rows = dict(re.findall(r"^\| (top level|`[^`]+`) \| (.*) \|$", per_rs[rs], flags=re.M))
        listed = set(
            re.findall(r"`([^`]+)`", rows.get("top level" if not path else f"`{path}`", ""))
        )
        assert keys == listed, (rs, path, sorted(keys ^ listed), "python tests/docs_keys.py")


def test_markers_are_few():
    marked = [b.where for b in ALL if b.marker is not None]
    assert len(marked) <= 6, marked


def test_blocks_have_no_literal_ellipsis_in_code():
    """A runnable block never stands in ``...`` for what a reader must fill in."""
    for b in PY:
        code = re.sub(r"#.*", "", b.code)
        assert not re.search(r"\[[^\]]*\.\.\.\s*\]|\(\s*\.\.\.\s*\)|,\s*\.\.\.", code), b.where


def test_block_parser_sees_markers(tmp_path):
    page = tmp_path / "p.md"
    page.write_text(
        "x\n\n<!-- docs-test: fragment -->\n```python\nx = 1\n```\n\n```bash\n"
        "oddslab roll 2D6\n$ not a prompt here\n```\n\n```\n$ oddslab roll 3D6\nout\n```\n"
    )
    got = blocks(page)
    assert [(b.lang, b.marker) for b in got] == [("python", "fragment"), ("bash", None), ("", None)]
    assert shell_commands(got[1]) == ["oddslab roll 2D6"]
    assert shell_commands(got[2]) == ["oddslab roll 3D6"]
    assert isinstance(got[0], Block)


def test_synopsis_lines_run_with_their_placeholders_filled():
    """A synopsis line runs on a shipped example, so a wrong key in it fails a test."""
    assert fill("oddslab sweep SCENARIO.toml --vary weapons.0.models=5,10") == (
        "oddslab sweep examples/generic-intercessors-vs-guardsmen.toml --vary weapons.0.models=5,10"
    )
    assert fill("oddslab compare A.toml B.toml ... [--mc] [--target T.toml | LIB.toml:ENTRY]") == (
        "oddslab compare examples/generic-intercessors-vs-guardsmen.toml "
        "examples/generic-anti-infantry.toml --mc --target examples/libraries/generic.toml:conscripts"
    )
    assert fill("oddslab show SCENARIO [-f table|csv|json] [-p FILE]") == (
        "oddslab show generic-intercessors-vs-guardsmen -f table"
    )  # an optional group that cannot be filled is dropped
    assert fill('oddslab roll "DICE POOL" [--simulate [-n N] [-s SEED]] [-f ...]') == (
        'oddslab roll "4D6" --simulate -n 2000 -s 1'
    )  # nested groups, inside out
    assert _PLACEHOLDER.search(fill("oddslab import ROSTER -o LIB.toml"))  # not run
    run = {cmd for _, cmd in SHELL}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for cmd in ("sweep SCENARIO.toml", "matchup LIBRARY.toml", "simulate SCENARIO.toml"):
        line = next(ln for ln in readme.splitlines() if ln.startswith(f"oddslab {cmd}"))
        assert any(r.startswith(fill(line.rstrip(" \\").split("  #")[0])[:50]) for r in run), line


def test_scenario_format_key_tables_name_real_keys():
    """Every key in the generic ruleset's key tables (`[attacker]`, `[[attacker.weapons]]`,
    `[target]`, `[rules]`) and in the top-level table is one its reader takes."""
    text = (ROOT / "docs" / "scenario-format.md").read_text(encoding="utf-8")
    keys = harvest_keys()
    tables = {"attacker": "attacker", "[attacker.weapons]": "attacker.weapons[]"}
    tables |= {"target": "target", "rules": "rules"}
    parts = re.split(r"^### `\[(.+?)\]`.*$|^## (?!#)(.*)$", text, flags=re.M)
    section, checked = None, []
    for chunk in parts:
        if chunk is None:
            continue
        if chunk in tables or chunk.startswith(("Top-level keys", "Generic", "Errors")):
            section = chunk
            continue
        if section is None or section.startswith(("Generic", "Errors")):
            continue
        path = "" if section.startswith("Top-level") else tables[section]
        named = re.findall(r"^\| `(\w+)` \|", chunk, flags=re.M)
        assert named and set(named) <= keys[("generic", path)], (section, named)
        checked.append(section)
        section = None
    assert len(checked) == 5, checked
