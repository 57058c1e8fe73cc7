"""The page of `oddslab serve` in a real browser: Debian's headless Chromium driven by Playwright
against a real uvicorn server on 127.0.0.1 (started and stopped here).

As a person would use it: build the README's quick-start scenario with the form, run it, read
the headline and check it equals the CLI's for the same seed; open an example of every
ruleset and see it read correctly; make a mistake in the editor and see the key and line
named; read a matchup heatmap. Screenshots go to a temporary folder, and to docs/img/ (the
pictures of docs/web.md and the README) with ``ODDSLAB_SCREENSHOTS=1``.

Without Chromium or Playwright the test skips, naming the package to install, unless
``ODDSLAB_REQUIRE_BROWSER=1`` (set by .ci/run), which turns the skip into a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
QUICK = "examples/generic-intercessors-vs-guardsmen.toml"
#: The README's quick-start scenario, typed into the form field by field.
QUICK_FORM = {
    "scenario-name": "10 bolt rifles vs 20 guardsmen",
    "attacker-name": "Intercessor squad",
    "weapon-0-name": "bolt rifle",
    "weapon-0-models": "10",
    "weapon-0-attacks": "2",
    "weapon-0-skill": "3",
    "weapon-0-strength": "4",
    "weapon-0-ap": "1",
    "weapon-0-damage": "1",
    "target-name": "Infantry squad",
    "target-models": "20",
    "target-wounds": "1",
    "target-toughness": "3",
    "target-save": "5",
}


def _missing(what: str) -> None:
    message = f"the browser test needs {what}"
    if os.environ.get("ODDSLAB_REQUIRE_BROWSER") == "1":
        pytest.fail(message + " (ODDSLAB_REQUIRE_BROWSER=1: it must run here)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser():
    if not _have("fastapi", "uvicorn", "httpx2"):
        _missing('the web extra and httpx2: pip install -e ".[dev]"')
    if not _have("playwright"):
        _missing(
            "Playwright: pip install playwright (never `playwright install`: it uses Debian's chromium)"
        )
    if CHROMIUM is None:
        _missing("Chromium: apt-get install -y chromium (Debian's package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def _until(condition, seconds: float = 20) -> None:
    """Poll ``condition()`` from Python (``wait_for_function`` evaluates a string in the page,
    which the page's Content-Security-Policy forbids, as it should)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def _have(*modules: str) -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in modules)


@pytest.fixture(scope="module")
def server():
    from web_server import running_server

    with running_server() as url:
        yield url


@pytest.fixture(scope="module")
def shots(tmp_path_factory, root):
    out = tmp_path_factory.mktemp("screenshots")
    yield out
    if os.environ.get("ODDSLAB_SCREENSHOTS") == "1":
        for png in out.glob("*.png"):
            shutil.copy(png, root / "docs" / "img" / png.name)


@pytest.fixture(scope="module")
def one_page(browser, server):
    """One page for the whole module, as one person would keep it open (the tests run in
    order: the form first, while it is fresh)."""
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(  # the page must obey its own Content-Security-Policy (nothing from elsewhere)
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    yield page, errors
    context.close()


@pytest.fixture
def page(one_page):
    page, errors = one_page
    page.click("#tabs button[data-tab='scenario']")
    yield page
    assert not errors, errors  # no script error on the page


def test_quick_start_built_with_the_form_equals_the_cli(page, shots, root, monkeypatch):
    for name, value in QUICK_FORM.items():
        page.fill(f"#form [name='{name}']", value)
    page.fill("#seed", "2026")
    _until(lambda: "save = 5" in page.input_value("#editor"))
    page.wait_for_selector("#check.ok", timeout=20_000)
    assert page.input_value("#mode") == "p0.01"  # precision mode (±1 pp) by default
    page.click("#run")
    page.wait_for_selector("#result:not([hidden]) .headline-p", timeout=60_000)
    p_page = float(page.get_attribute(".headline-p >> nth=0", "data-p"))
    shown = page.inner_text(".headline-p >> nth=0")

    from oddslab.cli import app
    from oddslab.outcome import format_probability

    monkeypatch.chdir(root)
    res = CliRunner().invoke(
        app, ["simulate", QUICK, "-f", "json", "--precision", "0.01", "-s", "2026"]
    )
    assert res.exit_code == 0, res.output
    cli = json.loads(res.stdout)["probabilities"][0]["probability"]
    assert p_page == cli and shown == format_probability(cli)
    assert page.inner_text("#result-kind") == "Monte Carlo"
    page.hover("#plot-ge rect.hover >> nth=3")
    assert "P(" in page.inner_text("#tip")
    page.screenshot(path=str(shots / "web-quickstart.png"), full_page=True)
    # the link reproduces it: scenario and seed in the URL, the same numbers in a new tab
    assert "seed=2026" in page.url and "s=" in page.url
    other = page.context.new_page()
    other.goto(page.url)
    other.wait_for_selector("#result:not([hidden]) .headline-p", timeout=60_000)
    assert float(other.get_attribute(".headline-p >> nth=0", "data-p")) == cli
    other.close()


def test_downloads(page):
    if page.is_hidden("#result"):  # alone (or on another xdist worker): make a result first
        _open_example(page, Path(QUICK).name)
        page.click("#run")
        page.wait_for_selector("#result:not([hidden]) .headline-p", timeout=60_000)
    expected = {"#dl-toml": (".toml", b"[target]"), "#dl-json": (".json", b'"probabilities"'),
                "#dl-csv": (".csv", b"section,stat,label,k,measure,value"), "#dl-png": (".png", b"\x89PNG")}  # fmt: skip
    for button, (suffix, content) in expected.items():
        with page.expect_download(timeout=30_000) as info:
            page.click(button)
        download = info.value
        assert download.suggested_filename.endswith(suffix), download.suggested_filename
        assert content in Path(download.path()).read_bytes()[:4000], button


def _open_example(page, file: str) -> None:
    page.select_option("#start", f"example:{file}")
    _until(lambda: page.inner_text("#source-name") == file)
    page.wait_for_selector("#check.ok", timeout=20_000)


def test_exact_answers_are_marked_exact(page):
    _open_example(page, Path(QUICK).name)
    page.select_option("#mode", "exact")
    page.click("#run")
    page.wait_for_selector("#result:not([hidden]) #result-kind", timeout=30_000)
    assert page.inner_text("#result-kind") == "exact"
    assert page.locator("#headlines th").all_inner_texts() == ["outcome", "P"]  # no SE

    # events, answered exactly: the numbers of oddslab.exact(sc, events=...), P(A | B) too
    from oddslab import exact

    events = ["models_slain >= 10", "models_slain >= 12 | models_slain >= 10"]
    page.fill("#events", "\n".join(events))
    page.click("#run")
    page.wait_for_selector("#result:not([hidden]) #events-table .event-p", timeout=30_000)
    want = exact(QUICK, events=events)
    shown = page.locator("#events-table .event-p")
    assert shown.count() == 2
    for i, text in enumerate(events):
        assert float(shown.nth(i).get_attribute("data-p")) == want.probability(text).probability
    assert "ev=" in page.url  # the link keeps the events
    page.fill("#events", "models_slain = 3")  # a mistake: the API's words, no run
    page.click("#run")
    _until(lambda: "==" in page.inner_text("#progress-text"))
    page.fill("#events", "")


def test_cancel_stops_a_long_run(page):
    slow = (
        'name = "a long run"\n[attacker]\n[[attacker.weapons]]\nmodels = 20\nattacks = 10\n'
        "[target]\nmodels = 200\ntoughness = 4\nsave = 4\n"
    )
    page.fill("#editor", slow)
    page.wait_for_selector("#check.ok", timeout=20_000)
    page.select_option("#mode", "trials")  # 20,000,000 trials of 200 attacks: seconds
    page.fill("#trials", "20000000")
    page.click("#run")
    _until(lambda: re.search(r"running: [1-9]", page.inner_text("#progress-text")), 60)
    assert page.is_enabled("#cancel")
    page.click("#cancel")
    _until(lambda: "cancelled" in page.inner_text("#progress-text"), 30)
    assert page.is_hidden("#result") and page.is_disabled("#cancel")
    page.select_option("#mode", "p0.01")


def test_an_example_of_every_ruleset_reads(page, shots):
    import tomllib

    from oddslab.scenario import RULESETS
    from oddslab.web.scenarios import examples_dir

    first = {}
    for p in sorted(examples_dir().glob("*.toml")):
        first.setdefault(tomllib.loads(p.read_text()).get("ruleset", "generic"), p.name)
    assert set(first) >= set(RULESETS)  # every built-in ruleset has an example
    for ruleset, file in first.items():
        _open_example(page, file)
        assert page.locator("#resolved tr").count() > 3, ruleset
        name = tomllib.loads((examples_dir() / file).read_text())["name"]
        assert name in page.inner_text("#resolved"), ruleset  # this example's inputs, read
    page.screenshot(path=str(shots / "web-example.png"), full_page=False)


def test_a_mistake_names_the_key_and_the_line(page, shots):
    _open_example(page, Path(QUICK).name)
    text = page.input_value("#editor").replace("save = 5", "save = 9")
    page.fill("#editor", text)
    page.wait_for_selector("#check.bad #check-message", timeout=20_000)
    message = page.inner_text("#check-message")
    assert "target.save" in message and "expected a save" in message
    line = text.splitlines().index("save = 9") + 1
    assert page.inner_text("#check-where") == f"key target.save on line {line}"
    assert page.inner_text("#gutter .bad").strip() == str(line)
    assert page.is_disabled("#run")
    page.screenshot(path=str(shots / "web-error.png"), full_page=False)


def test_matchup_heatmap(page, shots):
    page.click("#tabs button[data-tab='matchup']")
    page.click("#mu-run")
    page.wait_for_selector("#mu-plot svg rect.cell", timeout=60_000)
    page.hover("#mu-plot rect.cell >> nth=0")
    assert " vs " in page.inner_text("#tip")
    page.screenshot(path=str(shots / "web-matchup.png"), full_page=False)


def test_without_a_browser_it_skips_naming_the_package_unless_ci_requires_it(monkeypatch):
    monkeypatch.delenv("ODDSLAB_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium"):
        _missing("Chromium: apt-get install -y chromium (Debian's package)")
    monkeypatch.setenv("ODDSLAB_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="must run here"):
        _missing("Chromium: apt-get install -y chromium (Debian's package)")
