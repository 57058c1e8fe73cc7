"""CLI: simulate / show / compare / roll / warmup / examples through typer's CliRunner."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from oddslab.cli import app

runner = CliRunner()
EX = "examples/generic-intercessors-vs-guardsmen.toml"
EX2 = "examples/generic-flamers-vs-fnp-in-cover.toml"


def _no_float_noise(text: str) -> bool:
    """Every number has at most 12 significant digits (0.3, never 0.30000000000000004)."""
    for cell in re.findall(r"(?<![\w.])-?\d+\.\d+(?:e-?\d+)?(?![\w.])", text):
        digits = cell.split("e")[0].replace("-", "").replace(".", "").lstrip("0")
        if len(digits) > 12:
            return False
    return True


@pytest.fixture(autouse=True)
def _cwd(root, monkeypatch):
    monkeypatch.chdir(root)


def test_simulate_table_and_plot(tmp_path):
    png = tmp_path / "out.png"
    res = runner.invoke(
        app, ["simulate", EX, "--trials", "50000", "--seed", "3", "--plot", str(png)]
    )
    assert res.exit_code == 0, res.output
    assert "Headline probabilities" in res.output and "P(target unit destroyed)" in res.output
    assert "50,000 trials, seed 3, run " in res.output
    assert "Resolved inputs" in res.output  # printed before the results
    assert res.output.index("Resolved inputs") < res.output.index("Headline probabilities")
    assert png.stat().st_size > 10_000
    # a statistic with values is tabulated by its plain-words label
    assert "P(= k) and P(≥ k)" in res.output


def test_plot_without_extension_writes_png_and_says_so(tmp_path):
    res = runner.invoke(
        app, ["simulate", EX, "-n", "2000", "-s", "1", "--plot", str(tmp_path / "out")]
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "out.png").exists()
    assert f"plot written to {tmp_path / 'out.png'}" in res.output


@pytest.mark.parametrize("cmd", ["simulate", "roll", "compare"])
@pytest.mark.parametrize(
    ("plot", "problem"),
    [
        ("missing/x.png", "does not exist"),
        ("x.banana", "unknown plot format"),
        pytest.param(
            "/proc/oddslab-plot.png",  # a folder that takes no new file, whoever runs this
            "cannot write this file",
            marks=pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc"),
        ),
    ],
)
def test_bad_plot_path_fails_before_running(tmp_path, monkeypatch, cmd, plot, problem):
    import oddslab.engine

    def boom(*a, **k):  # the run must not start
        raise AssertionError("ran before checking --plot")

    monkeypatch.setattr(oddslab.engine, "simulate", boom)
    args = {"simulate": [EX], "roll": ["2D6"], "compare": [EX, EX2]}[cmd]
    res = runner.invoke(app, [cmd, *args, "--plot", str(tmp_path / plot)])
    assert res.exit_code == 2, res.output
    assert problem in res.output and "Traceback" not in res.output


def test_simulate_csv_is_tidy_long_form_with_every_section():
    res = runner.invoke(app, ["simulate", EX, "-n", "20000", "-s", "1", "--format", "csv"])
    assert res.exit_code == 0, res.output
    df = pd.read_csv(io.StringIO(res.output))
    assert list(df.columns) == ["section", "stat", "label", "k", "measure", "value"]
    assert {"run", "headline", "summary", "pmf"} <= set(df.section)
    assert "P(target unit destroyed)" in set(df[df.section == "headline"].label)
    assert _no_float_noise(res.output)


def test_simulate_json_carries_run_info_and_resolved():
    res = runner.invoke(app, ["simulate", EX, "-n", "20000", "-s", "1", "--format", "json"])
    data = json.loads(res.output)
    assert data["trials"] == 20000 and data["seed"] == 1
    assert "resolved" in data and "compile_seconds" in data and "run_seconds" in data
    assert data["precision_reached"] is None


def test_simulate_exact_and_precision():
    res = runner.invoke(app, ["simulate", EX, "--exact", "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert (
        data["exact"] is True and "models_slain" in data["pmf"]
    )  # exact allocation chain (issue 9)
    res = runner.invoke(
        app, ["simulate", EX, "--precision", "0.01", "--seed", "2", "--format", "json"]
    )
    assert res.exit_code == 0
    data = json.loads(res.output)
    assert data["trials"] <= 4 * 65536 and data["precision_reached"] is True


def test_exact_tables_have_no_standard_errors():
    res = runner.invoke(app, ["simulate", EX, "--exact"])
    assert res.exit_code == 0, res.output
    assert "± SE" not in res.output and "(exact)" in res.output
    res = runner.invoke(app, ["simulate", EX, "--exact", "-n", "5"])
    assert res.exit_code == 2 and "--exact takes no --trials" in res.output


def test_precision_ceiling_is_reported(tmp_path):
    res = runner.invoke(
        app, ["simulate", EX, "--precision", "0.0002", "-n", "70000", "-s", "1", "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["precision_reached"] is False and data["half_width"] > 0.0002
    assert "NOT reached" in res.stderr and "trials would reach it" in res.stderr
    res = runner.invoke(app, ["simulate", EX, "--precision", "0.0002", "-n", "70000", "-s", "1"])
    assert "precision 0.0002 NOT reached" in res.output


@pytest.mark.parametrize(
    ("text", "value"), [("1e6", 10**6), ("1_000", 1000), ("2,000", 2000), ("1e10", 10**10)]
)
def test_trials_accept_1e6_style_numbers(text, value):
    from oddslab.cli import parse_trials

    assert parse_trials(text) == value


@pytest.mark.parametrize("text", ["1e12", "0", "1.5", "many"])
def test_trials_out_of_range_say_the_ceiling(text):
    res = runner.invoke(app, ["simulate", EX, "-n", text])
    assert res.exit_code == 2 and "from 1 to 10,000,000,000 (such as 1000000 or 1e6)" in (
        res.output.replace("\n", " ")
    )


def test_help_lists_whole_first_sentences():
    res = runner.invoke(app, ["--help"])
    assert "Compile the kernels ahead of time." in res.output and "(e.g." not in res.output


def test_trials_ceiling_is_the_files():
    res = runner.invoke(app, ["simulate", EX, "-n", str(10**10 + 1)])
    assert res.exit_code == 2 and "10000000000" in res.output.replace(",", "")
    from oddslab.cli import MAX_TRIALS
    from oddslab.engine import MAX_TRIALS as ENGINE_MAX

    assert MAX_TRIALS == ENGINE_MAX


def test_ctrl_c_prints_the_partial_result_and_exits_130(monkeypatch):
    from oddslab import _report

    def runner_that_interrupts():
        def callback(done, total):
            raise KeyboardInterrupt

        return callback, lambda: None

    monkeypatch.setattr(_report, "progress_runner", runner_that_interrupts)
    res = runner.invoke(app, ["simulate", EX, "-n", str(3 * 16 * 65536), "-s", "1"])
    assert res.exit_code == 130, res.output
    assert "interrupted (Ctrl-C): partial result" in res.output
    assert "Headline probabilities" in res.output and "Traceback" not in res.output


def test_bad_scenario_exits_2_with_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        "[attacker]\n[[attacker.weapons]]\nattacks = 2\nskill = 9\n[target]\nmodels = 5\n"
    )
    res = runner.invoke(app, ["simulate", str(bad)])
    assert res.exit_code == 2
    assert "attacker.weapons[0].skill" in res.output and "got 9" in res.output
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["simulate", str(tmp_path / "nope.toml")])
    assert res.exit_code == 2 and "file not found" in res.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('rulset = "generic"\n', "rulset: unknown key; did you mean 'ruleset'?"),
        ("[targte]\nmodels = 5\n", "targte: unknown key; did you mean 'target'?"),
    ],
)
def test_typo_is_reported_before_the_missing_key_it_causes(tmp_path, text, message):
    f = tmp_path / "typo.toml"
    body = "[attacker]\n[[attacker.weapons]]\nattacks = 2\n"
    f.write_text(text + body + ("" if "targte" in text else "[target]\nmodels = 5\n"))
    if "rulset" in text:  # the file's own tables are not generic's: the typo must come first
        f.write_text(text + "[side_a]\nx = 1\n")
    res = runner.invoke(app, ["simulate", str(f)])
    assert res.exit_code == 2, res.output
    assert message in res.output and "required key is missing" not in res.output


def test_unknown_stat_exits_2():
    res = runner.invoke(app, ["simulate", EX, "-n", "1000", "--stat", "nope"])
    assert res.exit_code == 2 and "no statistic 'nope'" in res.output


def test_show_prints_the_resolved_inputs_alone():
    res = runner.invoke(app, ["show", EX])
    assert res.exit_code == 0, res.output
    assert "trials" in res.output and "Headline" not in res.output
    data = json.loads(runner.invoke(app, ["show", EX, "-f", "json"]).output)
    assert data["run"]["seed"] == 2026 and "resolved" in data


def test_compare_table_with_se_and_differences(tmp_path):
    png = tmp_path / "cmp.png"
    res = runner.invoke(app, ["compare", EX, EX2, "-n", "20000", "-s", "1", "--plot", str(png)])
    assert res.exit_code == 0, res.output
    assert "Comparison" in res.output and png.exists()
    assert "±" in res.output and "− first [95% CI]" in res.output
    res = runner.invoke(app, ["compare", EX])
    assert res.exit_code == 2


def test_compare_json_keyed_by_names_and_csv_without_noise():
    res = runner.invoke(app, ["compare", EX, EX2, "-n", "20000", "-s", "1", "-f", "json"])
    data = json.loads(res.stdout)
    names = ["10 bolt rifles vs 20 guardsmen", "flamers vs feel-no-pain infantry in cover"]
    assert data["first"] == names[0] and list(data["scenarios"]) == names
    second = data["scenarios"][names[1]]
    assert second["file"] == EX2 and second["difference_vs_first"]
    d = next(iter(second["difference_vs_first"].values()))
    assert d["ci_low"] <= d["diff"] <= d["ci_high"]
    res = runner.invoke(app, ["compare", EX, EX2, "-n", "20000", "-s", "1", "-f", "csv"])
    df = pd.read_csv(io.StringIO(res.stdout))
    assert list(df.columns) == ["scenario", "file", "row", "stat", "k", "measure", "value"]
    assert "diff_vs_first" in set(df.measure)
    assert _no_float_noise(res.stdout)


def test_compare_with_a_shared_target(tmp_path):
    tgt = tmp_path / "t.toml"
    tgt.write_text("models = 5\ntoughness = 4\nsave = 3\n")
    res = runner.invoke(
        app, ["compare", EX, EX2, "--target", str(tgt), "-n", "20000", "-s", "1", "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    assert "targets differ" not in res.output
    data = json.loads(res.stdout)
    for sc in data["scenarios"].values():
        assert sc["values"]["mean target models slain"]["value"] <= 5
    bad = tmp_path / "bad.toml"
    bad.write_text("modles = 5\n")
    res = runner.invoke(app, ["compare", EX, EX2, "--target", str(bad)])
    assert res.exit_code == 2 and "modles" in res.output


def test_roll_exact_and_simulated():
    res = runner.invoke(app, ["roll", "4D6 explode 6", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["exact"] is True
    res = runner.invoke(app, ["roll", "2D6 <= 7", "--simulate", "-n", "20000", "-s", "1"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["roll", "4D6 explode banana"])
    assert res.exit_code == 2 and "error:" in res.output


def test_roll_trials_without_simulate_is_an_error():
    for opt in (["-n", "5"], ["--seed", "1"]):
        res = runner.invoke(app, ["roll", "2D6", *opt])
        assert res.exit_code == 2 and "need --simulate" in res.output


def test_roll_accepts_scenario_forms():
    res = runner.invoke(app, ["roll", "3D6+2 >= 10", "-f", "json"])
    assert res.exit_code == 0, res.output
    p = json.loads(res.output)["probabilities"][0]["probability"]
    assert p == pytest.approx(1 - 35 / 216)  # P(3D6 >= 8)
    res = runner.invoke(app, ["roll", "10D6 count 4+ reroll failed", "-f", "json"])
    assert res.exit_code == 0, res.output
    mean = next(r["mean"] for r in json.loads(res.output)["summary"] if r["stat"] == "total")
    assert mean == pytest.approx(10 * 0.75)


def test_roll_unlimited_explosions_table_is_bounded():
    res = runner.invoke(app, ["roll", "4D6 explode 6 unlimited"])
    assert res.exit_code == 0, res.output
    rows = [line for line in res.output.splitlines() if re.match(r"│\s+(≥ )?\d+ │", line)]
    assert len(rows) <= 41 and rows[-1].lstrip("│ ").startswith("≥ ")


def test_custom_faces_keep_their_brackets_and_small_probabilities_show():
    res = runner.invoke(app, ["roll", "3d[0,1,2] count 2 >= 3"])
    assert res.exit_code == 0, res.output
    assert "3d[0,1,2]" in res.output
    res = runner.invoke(app, ["roll", "10D6 count 6+ >= 9"])  # P = 51 / 6**10 = 8.4e-07
    assert "8.4e-07" in res.output and "0.0000" not in res.output


def test_version_and_short_help():
    from oddslab import __version__

    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and __version__ in res.output
    res = runner.invoke(app, ["simulate", "-h"])
    assert res.exit_code == 0 and "--trials" in res.output
    assert "<int" not in res.output and "<bool>" not in res.output.split("--help")[0]


def test_warmup(monkeypatch):
    import oddslab.warmup as w

    res = runner.invoke(app, ["warmup", "dice-pools"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("dice-pools: ")
    res = runner.invoke(app, ["warmup", "genric"])
    assert res.exit_code == 2 and "did you mean 'generic'" in res.output
    assert set(w.ALL) >= {"generic", "armoured-clash", "assault-phase", "dice-pools"}
    said = []
    with monkeypatch.context() as m:  # three warm-up scenarios, one "compiling" line

        def fake(sc, trials, seed, on_compile):
            on_compile("vom-kriege")
            return type("O", (), {"compile_time": 0.1, "compiled": True})()

        m.setattr("oddslab.engine.simulate", fake)
        m.setattr(w, "warmup_scenarios", lambda name: [1, 2, 3])
        assert w.warm("vom-kriege", on_compile=said.append).startswith("vom-kriege: compiled")
    assert said == ["vom-kriege"]
    import dataclasses

    from oddslab import ruleset

    game = ruleset.get("generic")
    monkeypatch.setitem(ruleset._LOADED, "generic", dataclasses.replace(game, warmup=()))
    assert "skipped" in w.warm("generic")  # a ruleset without a warm-up scenario
    monkeypatch.delitem(ruleset._LOADED, "generic")
    monkeypatch.setitem(ruleset.BUILTIN, "generic", "oddslab.not_here:RULESET")
    assert "not available" in w.warm("generic")


def test_examples_command_lists_and_copies(tmp_path):
    res = runner.invoke(app, ["examples"])
    assert res.exit_code == 0 and "generic-intercessors-vs-guardsmen.toml" in res.output
    res = runner.invoke(app, ["examples", "--copy", str(tmp_path / "ex")])
    assert res.exit_code == 0, res.output
    copied = sorted(p.name for p in (tmp_path / "ex").glob("*.toml"))
    assert "generic-intercessors-vs-guardsmen.toml" in copied
    res = runner.invoke(app, ["examples", "--copy", str(tmp_path / "ex")])
    assert "kept" in res.output


def test_light_imports(root):
    """`import oddslab` pulls in no numba, pandas or matplotlib; a table run no pandas or
    matplotlib (issue 10.3: time to answer)."""
    import subprocess
    import sys

    code = (
        "import sys, oddslab\n"
        "heavy = [m for m in ('numba', 'pandas', 'matplotlib') if m in sys.modules]\n"
        "from oddslab.cli import app\n"
        "app(['simulate', 'examples/generic-intercessors-vs-guardsmen.toml', '-n', '1000'],"
        " standalone_mode=False)\n"
        "print(heavy, [m for m in ('pandas', 'matplotlib') if m in sys.modules])\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True,
        env={**__import__("os").environ, "PYTHONPATH": str(root)},
    )  # fmt: skip
    assert res.stdout.strip().splitlines()[-1] == "[] []", res.stdout


def test_version_matches_the_package_metadata(root):
    import tomllib

    from oddslab import __version__

    meta = tomllib.loads((root / "pyproject.toml").read_text())
    assert meta["project"]["version"] == __version__
    assert meta["project"]["scripts"]["oddslab"] == "oddslab.cli:main"


def test_first_run_says_it_is_compiling(monkeypatch):
    """When numba's cache lacks the kernel, the user is told before the compile starts."""
    import oddslab._compile as compiling

    monkeypatch.setattr(compiling, "kernel_status", lambda kernel, args: "compile")
    res = runner.invoke(app, ["roll", "2D6 >= 7", "--simulate", "-n", "1000", "-s", "1"])
    assert res.exit_code == 0, res.output
    assert "compiling the dice-pools kernels (first run only)…" in res.stderr
    assert res.stderr.index("compiling") < len(res.stderr)
    res = runner.invoke(app, ["simulate", EX, "-n", "1000", "-s", "1"])
    assert "compiling the generic kernels (first run only)…" in res.stderr


def test_ctrl_c_stops_a_comparison(monkeypatch):
    from oddslab import _report

    def runner_that_interrupts():
        def callback(done, total):
            raise KeyboardInterrupt

        return callback, lambda: None

    monkeypatch.setattr(_report, "progress_runner", runner_that_interrupts)
    res = runner.invoke(app, ["compare", EX, EX2, EX, "-n", "100000", "-s", "1"])
    assert res.exit_code == 130, res.output
    assert "during scenario 1 of 3" in res.output and "Comparison" not in res.output


def test_compare_target_from_a_library_entry(tmp_path, monkeypatch):
    """`--target LIB.toml:ENTRY` becomes a target table `use = "<abs LIB>:ENTRY"` (resolved by
    the scenario `use =` hook)."""
    import oddslab.scenario

    lib = tmp_path / "units.toml"
    lib.write_text('ruleset = "generic"\n[units.guard]\nmodels = 10\n')
    seen = []
    real = oddslab.scenario.from_dict

    def spy(data, source="<dict>"):
        seen.append(data["target"])
        data = {**data, "target": {"models": 10}}
        return real(data, source=source)

    monkeypatch.setattr(oddslab.scenario, "from_dict", spy)
    res = runner.invoke(app, ["compare", EX, EX2, "--target", f"{lib}:guard", "-n", "2000"])
    assert res.exit_code == 0, res.output
    assert seen == [{"use": f"{lib.resolve()}:guard"}] * 2


HEAVY_TOML = """ruleset = "generic"
name = "heavy"
[attacker]
name = "horde"
[[attacker.weapons]]
name = "rifle"
models = 300
attacks = 2
skill = 4
strength = 3
damage = "D3"
[target]
models = 300
wounds = 3
toughness = 4
save = 4
feel_no_pain = 5
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "openpty"), reason="needs a pseudo-terminal")
def test_sigint_during_a_heavy_run_keeps_the_finished_trials(tmp_path, default_sigint):
    """A real SIGINT to `oddslab simulate` in a terminal: the progress bar (with the time
    left) shows within seconds, and Ctrl-C in the middle of the first batch prints the
    chunks that finished, not "after 0 trials"."""
    import os
    import select
    import signal
    import subprocess
    import sys
    import time

    from oddslab.engine import CHUNK_TRIALS

    sc = tmp_path / "heavy.toml"
    sc.write_text(HEAVY_TOML)
    master, slave = os.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "oddslab", "simulate", str(sc), "-n", "40000000", "-s", "1",
         "-f", "json"],
        cwd=tmp_path, env={**env, "PYTHONPATH": str(Path(__file__).parent.parent)},
        stdout=subprocess.PIPE, stderr=slave, text=True,
    )  # fmt: skip
    os.close(slave)
    seen, deadline = b"", time.monotonic() + 90
    try:
        while b"left" not in seen and time.monotonic() < deadline:
            if select.select([master], [], [], 0.5)[0]:
                try:
                    seen += os.read(master, 4096)
                except OSError:  # the process ended (and closed the terminal)
                    break
        assert b"simulating" in seen and b"left" in seen, seen[-500:]
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        stdout, _ = proc.communicate(timeout=60)
        while select.select([master], [], [], 0.2)[0]:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
    finally:
        proc.kill()
        os.close(master)
    assert proc.returncode == 130, seen[-800:]
    trials = json.loads(stdout)["trials"]
    assert trials > 0 and trials % CHUNK_TRIALS == 0
    assert f"after {trials:,} trials".encode() in seen


def test_exact_by_default_where_every_statistic_is_exact():
    """No --mc and no simulation knobs: the exact answer, labelled, with the reason first in
    the resolved inputs; --mc (or -n/-s) simulates; a partly exact scenario says how much."""
    res = runner.invoke(app, ["simulate", EX, "-f", "json"])
    data = json.loads(res.stdout)
    assert res.exit_code == 0 and data["exact"] is True
    assert data["resolved"]["answer"]["method"].startswith("exact: every statistic")
    res = runner.invoke(app, ["simulate", EX])
    assert "(exact)" in res.stdout and "± SE" not in res.stdout
    for extra in (["--mc", "-n", "1000"], ["-n", "1000"], ["-s", "3"]):
        data = json.loads(runner.invoke(app, ["simulate", EX, "-f", "json", *extra]).stdout)
        assert data["exact"] is False and data["trials"] in (1000, 1_000_000)
        assert data["resolved"]["answer"]["method"].startswith("Monte Carlo (")
    part = "examples/vom-kriege-cuirassiers-charge-square.toml"
    data = json.loads(runner.invoke(app, ["simulate", part, "-f", "json"]).stdout)
    assert data["exact"] is False
    assert re.search(
        r"only 1 of the \d+ statistics have an exact form", data["resolved"]["answer"]["method"]
    )
    data = json.loads(runner.invoke(app, ["simulate", part, "--exact", "-f", "json"]).stdout)
    assert re.match(r"exact \(--exact\): the 1 of \d+ ", data["resolved"]["answer"]["method"])
    res = runner.invoke(app, ["simulate", EX, "--exact", "--mc"])
    assert res.exit_code == 2 and "exclude each other" in res.output


def test_compare_is_exact_by_default_when_every_scenario_is():
    res = runner.invoke(app, ["compare", EX, EX2])
    assert res.exit_code == 0 and "Comparison (exact; differences against" in res.stdout
    assert "95% CI" not in res.stdout
    res = runner.invoke(app, ["compare", EX, EX2, "--mc", "-n", "1000", "-s", "1"])
    assert "Comparison (1,000 trials, 1,000 trials;" in res.stdout


def test_compare_says_why_each_answer_is_simulated():
    res = runner.invoke(app, ["compare", EX, EX2, "-n", "1000", "-s", "1", "-f", "json"])
    data = json.loads(res.stdout)["scenarios"]
    assert {v["resolved"]["answer"]["method"] for v in data.values()} == {
        "Monte Carlo (--mc, --trials or --seed)"
    }
    part = "examples/vom-kriege-cuirassiers-charge-square.toml"
    res = runner.invoke(app, ["compare", part, part, "-f", "json"])
    methods = [
        v["resolved"]["answer"]["method"] for v in json.loads(res.stdout)["scenarios"].values()
    ]
    assert all(re.match(r"Monte Carlo: only 1 of the \d+ ", m) for m in methods), methods


def test_tables_fit_80_columns_without_cutting_numbers():
    """simulate (exact and simulated), show and a three-way compare of one example per
    ruleset, at 80 columns (the width rich uses off a terminal): no line is wider, and no
    number is cut short with "…"."""
    import glob

    firsts = {}
    for path in sorted(glob.glob("examples/*.toml")):
        firsts.setdefault(Path(path).name.split("-")[0], path)
    runs = [
        ["compare", *sorted(glob.glob("examples/generic-*.toml"))[:3], "-n", "2000"],
        ["simulate", firsts["generic"]],  # exact
    ]
    for path in firsts.values():
        runs += [["simulate", path, "-n", "2000"], ["show", path]]
    for args in runs:
        res = runner.invoke(app, args, env={"COLUMNS": "80"})
        assert res.exit_code == 0, (args, res.output[-500:])
        lines = res.stdout.splitlines()
        assert max(len(line) for line in lines) <= 80, args
        assert not [ln for ln in lines if re.search(r"\d…", ln)], args
