"""The JSON API of `oddslab serve` (oddslab.web.api, oddslab.web.runs, oddslab.web.app):
every endpoint, every limit and every rejection, through FastAPI's in-process client.

Results must equal the CLI's ``--format json`` for the same seed (the run and compile times
aside): checked against typer's CliRunner in the same process.
"""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("fastapi", reason='the web extra is not installed: pip install -e ".[web]"')
pytest.importorskip("httpx2", reason="FastAPI's test client needs httpx2")

from fastapi.testclient import TestClient  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from oddslab.cli import app as cli_app  # noqa: E402
from oddslab.web.app import create_app  # noqa: E402
from oddslab.web.security import Limits, Settings  # noqa: E402

QUICK = "examples/generic-intercessors-vs-guardsmen.toml"
TIMES = ("run_seconds", "compile_seconds", "compiled")
runner = CliRunner()


@pytest.fixture(autouse=True)
def _cwd(root, monkeypatch):
    monkeypatch.chdir(root)


@pytest.fixture(scope="module")
def client():
    limits = Limits(max_trials=2_000_000, max_jobs=2, max_seconds=30, max_body=64 * 1024)
    app = create_app(Settings(warm=False, limits=limits))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        yield c


@pytest.fixture(scope="module")
def quick(root) -> str:
    return (root / QUICK).read_text()


def _cli_json(args: list[str]) -> dict:
    res = runner.invoke(cli_app, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _untimed(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in TIMES}


# -- results equal the CLI's ------------------------------------------------------------------------
def test_simulate_equals_cli_for_the_same_seed(client, quick):
    r = client.post("/api/simulate", json={"toml": quick, "precision": 0.01, "seed": 7})
    assert r.status_code == 200, r.text
    cli = _cli_json(["simulate", QUICK, "-f", "json", "--precision", "0.01", "-s", "7"])
    assert _untimed(r.json()) == _untimed(cli)
    # byte for byte too, once the timing lines are the same
    body = r.text.splitlines()
    same = [line for line in body if not any(f'"{t}"' in line for t in TIMES)]
    cli_text = runner.invoke(
        cli_app, ["simulate", QUICK, "-f", "json", "--precision", "0.01", "-s", "7"]
    ).stdout
    assert same == [
        line for line in cli_text.splitlines() if not any(f'"{t}"' in line for t in TIMES)
    ]


def test_simulate_with_events_and_joints_equals_cli(client, quick):
    ev = ["clean = models_slain >= 8 and hits <= 14", "models_slain >= 10 | hits >= 15"]
    body = {
        "toml": quick,
        "trials": 70_000,
        "seed": 3,
        "events": ev,
        "joint": ["hits,models_slain"],
    }
    r = client.post("/api/simulate", json=body)
    assert r.status_code == 200, r.text
    cli = _cli_json(["simulate", QUICK, "-f", "json", "-n", "70000", "-s", "3",
                     "-e", ev[0], "-e", ev[1], "--joint", "hits,models_slain"])  # fmt: skip
    assert r.json()["events"] == cli["events"] and r.json()["joints"] == cli["joints"]
    bad = client.post("/api/simulate", json={**body, "events": ["models_slian >= 1"]})
    assert bad.status_code == 400 and "did you mean 'models_slain'" in bad.text
    assert "Traceback" not in bad.text


def test_exact_with_events_equals_cli(client, quick):
    ev = ["models_slain >= 10", "models_slain >= 12 | models_slain >= 10"]
    r = client.post("/api/exact", json={"toml": quick, "events": ev})
    assert r.status_code == 200, r.text
    cli = _cli_json(["simulate", QUICK, "--exact", "-f", "json", "-e", ev[0], "-e", ev[1]])
    assert r.json()["events"] == cli["events"]
    assert all(e["exact"] and e["se"] == 0 for e in cli["events"])
    bad = client.post("/api/exact", json={"toml": quick, "events": ["models_slain = 3"]})
    assert bad.status_code == 400 and "==" in bad.json()["error"], bad.text
    assert bad.json().get("key") == "events"
    missing = client.post(
        "/api/exact", json={"toml": quick, "events": ["hits >= 3 and models_slain >= 3"]}
    )
    assert missing.status_code == 422 and "Traceback" not in missing.text, missing.text


def test_scenario_as_json_equals_toml(client, quick):
    import tomllib

    a = client.post("/api/simulate", json={"toml": quick, "trials": 70000, "seed": 1}).json()
    b = client.post(
        "/api/simulate", json={"scenario": tomllib.loads(quick), "trials": 70000, "seed": 1}
    ).json()
    assert a["counts"] == b["counts"] and a["trials"] == 70000


def test_exact_equals_cli(client, quick):
    r = client.post("/api/exact", json={"toml": quick})
    assert r.status_code == 200 and r.json()["exact"] is True
    assert _untimed(r.json()) == _untimed(_cli_json(["simulate", QUICK, "--exact", "-f", "json"]))


def test_exact_where_there_is_none_is_422(client, root):
    text = (root / "examples/hex-platoon-assault-with-hq.toml").read_text()
    r = client.post("/api/exact", json={"toml": text})
    assert r.status_code == 422 and "exact" in r.json()["error"]


def test_show_equals_cli_and_says_whether_exact(client, quick):
    r = client.post("/api/show", json={"toml": quick})
    assert r.status_code == 200
    assert r.json() == _cli_json(["show", QUICK, "-f", "json"])
    assert r.headers["x-oddslab-exact"] == "yes" and r.headers["x-oddslab-ruleset"] == "generic"


def test_compare_equals_cli(client, root, quick):
    other = "examples/generic-flamers-vs-fnp-in-cover.toml"
    body = {
        "scenarios": [
            {"toml": quick, "source": QUICK},
            {"toml": (root / other).read_text(), "source": other},
        ],
        "trials": 65536,
        "seed": 5,
        "target": "generic.toml:armoured_infantry",
    }
    r = client.post("/api/compare", json=body)
    assert r.status_code == 200, r.text
    cli = _cli_json(
        ["compare", QUICK, other, "-n", "65536", "-s", "5", "-f", "json",
         "--target", "examples/libraries/generic.toml:armoured_infantry"]
    )  # fmt: skip
    got = r.json()
    for name, sc in cli["scenarios"].items():
        mine = got["scenarios"][name]
        assert mine["values"] == sc["values"] and mine["resolved"] == sc["resolved"]
        assert mine["difference_vs_first"] == sc["difference_vs_first"]
        assert mine["file"] == sc["file"]


def test_matchup_table_equals_cli(client):
    body = {"attackers": "generic.toml:line_troopers,shock_squad", "targets": "generic.toml:conscripts,armoured_infantry", "trials": 20000, "seed": 3}  # fmt: skip
    r = client.post("/api/matchup", json=body)
    assert r.status_code == 200, r.text
    got = r.json()
    lib = "examples/libraries/generic.toml"
    cli = _cli_json(
        ["matchup", f"{lib}:line_troopers,shock_squad", f"{lib}:conscripts,armoured_infantry",
         "-n", "20000", "-s", "3", "-f", "json"]
    )  # fmt: skip
    strip = ("attacker", "target")  # the CLI names entries by the path it was given
    assert [{k: v for k, v in x.items() if k not in strip} for x in got["table"]] == [
        {k: v for k, v in x.items() if k not in strip} for x in cli
    ]
    assert len(got["matrix"]) == 2 and len(got["matrix"][0]) == 2
    assert got["attackers"] and got["targets"]


def test_fair_points_equals_cli(client):
    body = {
        "candidate": "generic.toml:shock_squad",
        "reference": "generic.toml:line_troopers",
        "basket": {"generic.toml:armoured_infantry": 1.0},
        "trials": 20000,
        "seed": 2,
    }
    r = client.post("/api/points/fair", json=body)
    assert r.status_code == 200, r.text
    lib = "examples/libraries/generic.toml"
    res = runner.invoke(
        cli_app,
        ["points", "fair", f"{lib}:shock_squad", f"{lib}:line_troopers", "-b",
         f"{lib}:armoured_infantry", "-n", "20000", "-s", "2", "-f", "json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert r.json() == json.loads(res.stdout)  # the CLI's one JSON document


# -- jobs: progress, cancel, result ------------------------------------------------------------------
def test_job_progress_cancel_and_result(client, quick):
    r = client.post("/api/simulate?job=true", json={"toml": quick, "trials": 2_000_000, "seed": 1})
    assert r.status_code == 202
    jid = r.json()["id"]
    assert client.get(f"/api/jobs/{jid}").json()["state"] in ("queued", "running", "done")
    client.post(f"/api/jobs/{jid}/cancel")
    for _ in range(200):
        info = client.get(f"/api/jobs/{jid}").json()
        if info["state"] not in ("queued", "running"):
            break
        time.sleep(0.02)
    assert info["state"] in ("cancelled", "done")
    if info["state"] == "cancelled":
        assert client.get(f"/api/jobs/{jid}/result").status_code == 409
    r = client.post("/api/simulate?job=true", json={"toml": quick, "trials": 70000, "seed": 1})
    jid = r.json()["id"]
    for _ in range(500):
        res = client.get(f"/api/jobs/{jid}/result")
        if res.status_code != 202:
            break
        time.sleep(0.01)
    assert res.status_code == 200 and res.json()["trials"] == 70000
    assert client.get(f"/api/jobs/{jid}").json()["fraction"] == 1.0
    assert client.get("/api/jobs/nope").status_code == 404
    assert client.delete(f"/api/jobs/{jid}").status_code == 200


def test_wall_time_limit_stops_a_job_and_the_server_keeps_serving(quick):
    app = create_app(Settings(warm=False, limits=Limits(max_seconds=0.001)))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        r = c.post("/api/simulate", json={"toml": quick, "trials": 2_000_000, "seed": 1})
        assert r.status_code == 408 and "limit" in r.json()["error"]
        assert c.get("/api/status").status_code == 200


def test_too_many_jobs_is_429(quick):
    app = create_app(Settings(warm=False, limits=Limits(max_jobs=1)))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        first = c.post(
            "/api/simulate?job=true", json={"toml": quick, "trials": 5_000_000, "seed": 1}
        )
        assert first.status_code == 202
        second = c.post("/api/simulate", json={"toml": quick, "trials": 1000})
        assert second.status_code == 429 and "jobs are running" in second.json()["error"]
        c.post(f"/api/jobs/{first.json()['id']}/cancel")
        for _ in range(300):
            if c.get(f"/api/jobs/{first.json()['id']}").json()["state"] != "running":
                break
            time.sleep(0.02)
        assert c.post("/api/simulate", json={"toml": quick, "trials": 1000}).status_code == 200


# -- rejections ----------------------------------------------------------------------------------------
def test_bad_toml_names_the_line(client):
    r = client.post("/api/show", json={"toml": "name = 'x'\n[target\nmodels = 1\n"})
    assert r.status_code == 400 and "not valid TOML" in r.json()["error"]
    assert r.json()["line"] == 2


def test_bad_key_is_the_cli_message_with_key_and_line(client, quick):
    bad = quick.replace("save = 5", "save = 9")
    r = client.post("/api/show", json={"toml": bad, "source": "mine.toml"})
    assert r.status_code == 400
    body = r.json()
    assert body["error"].startswith("mine.toml: target.save: expected a save")
    assert body["key"] == "target.save"
    assert bad.splitlines()[body["line"] - 1].strip() == "save = 9"
    typo = quick.replace("skill = 3", "skil = 3")
    body = client.post("/api/simulate", json={"toml": typo}).json()
    assert "did you mean 'skill'" in body["error"] and body["key"] == "attacker.weapons[0].skil"
    assert typo.splitlines()[body["line"] - 1].strip() == "skil = 3"


def test_request_shape_errors_are_one_line_422(client, quick):
    r = client.post("/api/simulate", json={"toml": quick, "trials": "many"})
    assert r.status_code == 422 and r.json()["error"].startswith("trials:")
    assert client.post("/api/simulate", json={}).status_code == 400  # neither toml nor scenario
    r = client.post(
        "/api/simulate", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422 and "\n" not in r.json()["error"]
    r = client.post("/api/compare", json={"scenarios": [{"toml": quick}]})
    assert r.status_code == 422


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("trials", 0, "trials: expected a number of trials from 1 to 10,000,000,000, got 0"),
        ("seed", -1, "seed: expected an integer >= 0, got -1"),
        ("precision", 0.7, "precision: expected a 95% half-width between 0 and 0.5"),
    ],
)
def test_out_of_range_run_options_get_the_engines_words(client, quick, field, value, words):
    r = client.post("/api/simulate", json={"toml": quick, field: value})
    assert r.status_code == 400 and r.json()["error"].startswith(words), r.text


def test_too_many_trials(client, quick):
    r = client.post("/api/simulate", json={"toml": quick, "trials": 10**9})
    assert r.status_code == 400 and "more than this server runs" in r.json()["error"]
    r = client.post("/api/simulate", json={"toml": quick.replace("1_000_000", "10_000_000")})
    assert r.status_code == 400 and "scenario's" in r.json()["error"]
    r = client.post("/api/matchup", json={"attackers": "generic.toml", "targets": "generic.toml", "trials": 10**9})  # fmt: skip
    assert r.status_code == 400


def test_oversize_body_is_413(client):
    r = client.post("/api/show", json={"toml": "#" * 100_000})
    assert r.status_code == 413 and "bytes" in r.json()["error"]

    def chunks():  # a streamed body without Content-Length
        for _ in range(100):
            yield b" " * 1024

    r = client.post("/api/show", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_host_header_and_cross_origin_posts_are_refused(client, quick):
    assert client.get("/api/status", headers={"host": "evil.example:8000"}).status_code == 421
    assert client.get("/", headers={"host": "localhost:8000"}).status_code == 200
    r = client.post("/api/show", json={"toml": quick}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    r = client.post("/api/show", json={"toml": quick}, headers={"origin": "null"})
    assert r.status_code == 403
    r = client.post("/api/show", json={"toml": quick}, headers={"sec-fetch-site": "cross-site"})
    assert r.status_code == 403
    same = {"origin": "http://127.0.0.1:8000"}
    assert client.post("/api/show", json={"toml": quick}, headers=same).status_code == 200


@pytest.mark.parametrize(
    "ref",
    [
        "../../../etc/passwd:x",
        "/etc/passwd:x",
        "libraries/../../cli.py:x",
        "C:\\x\\y.toml:z",
        "nope.toml:x",
    ],
)
def test_library_paths_outside_the_allowed_folders_are_refused(client, ref):
    text = f"[attacker]\nuse = '{ref}'\n[target]\nmodels = 1\n"
    r = client.post("/api/show", json={"toml": text})
    assert r.status_code == 403 and r.json()["key"] == "attacker.use", r.text
    r = client.post(
        "/api/matchup", json={"attackers": ref.rpartition(":")[0], "targets": "generic.toml"}
    )
    assert r.status_code == 403


def test_library_dir_and_symlink_escape(tmp_path, root, quick):
    libs = tmp_path / "libs"
    libs.mkdir()
    (libs / "mine.toml").write_text(
        (root / "examples/libraries/generic.toml")
        .read_text()
        .replace("Line troopers", "My troopers")
    )
    outside = tmp_path / "secret.toml"
    outside.write_text('[units.x]\nname = "x"\n')
    (libs / "link.toml").symlink_to(outside)
    app = create_app(Settings(warm=False, library_dir=libs))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        names = {x["file"] for x in c.get("/api/libraries").json()}
        assert "mine.toml" in names and "generic.toml" in names
        r = c.post("/api/show", json={"toml": '[attacker]\nuse = "mine.toml:line_troopers"\n[target]\nmodels = 5\n'})  # fmt: skip
        assert r.status_code == 200, r.text
        r = c.post("/api/show", json={"toml": '[attacker]\nuse = "link.toml:x"\n[target]\nmodels = 5\n'})  # fmt: skip
        assert r.status_code == 403 and "outside" in r.json()["error"]


# -- the catalogue and the page -----------------------------------------------------------------------
def test_catalogue_endpoints(client):
    ex = client.get("/api/examples").json()
    assert {e["ruleset"] for e in ex} >= {"generic", "vom-kriege", "hex-platoon"}
    one = client.get(f"/api/examples/{ex[0]['file']}").json()
    assert "ruleset" in one["toml"]
    assert client.get("/api/examples/..%2Fcli.py").status_code == 404
    libs = client.get("/api/libraries").json()
    generic = next(x for x in libs if x["file"] == "generic.toml")
    assert any(e["points"] for e in generic["entries"])
    start = client.get("/api/libraries/generic.toml/shock_squad").json()["toml"]
    assert client.post("/api/show", json={"toml": start}).status_code == 200
    assert client.get("/api/libraries/generic.toml/nobody").status_code == 400
    form = client.get("/api/form/generic").json()
    skill = next(f for f in form["weapon"] if f["key"] == "skill")
    assert skill["default"] == 4 and "hit on" in skill["help"]  # the declared key's help
    toml = client.post(
        "/api/toml", json={"scenario": {"target": {"models": 5}, "name": "x"}}
    ).json()
    assert toml["toml"].startswith('name = "x"') and "[target]" in toml["toml"]
    status = client.get("/api/status").json()
    assert status["warmup"]["ready"] and status["limits"]["max_trials"] == 2_000_000


def test_page_docs_and_assets_are_offline(client):
    page = client.get("/")
    assert page.status_code == 200 and "oddslab" in page.text
    docs = client.get("/docs")
    assert docs.status_code == 200
    spec = client.get("/openapi.json").json()
    for path in ("/api/simulate", "/api/exact", "/api/show", "/api/compare", "/api/matchup",
                 "/api/points/fair", "/api/jobs/{job_id}"):  # fmt: skip
        assert path in spec["paths"]
    # the JSON form of a scenario is documented by the rulesets' declared keys
    kinds = spec["components"]["schemas"]["ScenarioIn"]["properties"]["scenario"]["anyOf"]
    titles = {k.get("title") for k in kinds}
    assert {f"oddslab scenario ({n})" for n in ("generic", "hex-platoon", "vom-kriege")} <= titles
    for text in (page.text, docs.text):
        for attr in ('src="http', "src='http", 'href="http', "href='http", 'src="//', "url(http"):
            assert attr not in text  # nothing loads from another site
    assert client.get("/static/app.js").status_code == 200
    csp = page.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert page.headers["x-frame-options"] == "DENY"


def test_warm_up_runs_in_the_background(monkeypatch):
    import oddslab.warmup

    monkeypatch.setattr(oddslab.warmup, "ALL", ("generic",))
    monkeypatch.setattr(oddslab.warmup, "everything", lambda: ("generic",), raising=False)
    app = create_app(Settings(warm=True))
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:
        for _ in range(500):
            state = c.get("/api/status").json()["warmup"]
            if state["ready"]:
                break
            time.sleep(0.02)
        assert state["ready"] and state["done"][0].startswith("generic:")


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/simulate", {"scenario": {"ruleset": 5}}),
        ("/api/simulate", {"scenario": {"attacker": 5, "target": []}}),
        ("/api/simulate", {"toml": "ruleset = 'chess'"}),
        ("/api/simulate", {"toml": "[attacker]\nweapons = 5\n[target]\nmodels = 1"}),
        ("/api/simulate", {"toml": "[attacker]\nuse = 5\n[target]\nmodels = 1"}),
        ("/api/simulate", {"toml": "[attacker]\nuse = 'generic.toml:nobody'\n[target]\nmodels = 1"}),
        ("/api/simulate", {"scenario": {"a": {"b": {"c": {"d": {"e": {}}}}}}}),
        ("/api/simulate", {"toml": "x = 1", "scenario": {"x": 1}}),
        ("/api/simulate", {"toml": "[attacker]\n[[attacker.weapons]]\nattacks = 'D7x'\n[target]\nmodels = 1"}),
        ("/api/simulate", {"toml": "[attacker]\n[[attacker.weapons]]\nattacks = 1\nmodels = 1000\n[target]\nmodels = 1000\nwounds = 100", "trials": 1}),
        ("/api/simulate", {"toml": "[attacker]\n[[attacker.weapons]]\nattacks = 1\n[target]\nmodels = 1", "seed": 2**80, "trials": 10}),
        ("/api/exact", {"scenario": {"ruleset": "vom-kriege"}}),
        ("/api/compare", {"scenarios": [{"toml": "x"}, {"toml": "y"}]}),
        ("/api/compare", {"scenarios": [{"scenario": {}}, {"scenario": {}}], "target": 5}),
        ("/api/compare", {"scenarios": [{"toml": "[attacker]\n[[attacker.weapons]]\nattacks = 1\n[target]\nmodels = 1"}] * 2, "target": "generic.toml:nobody"}),
        ("/api/compare", {"scenarios": [{"toml": "[attacker]\n[[attacker.weapons]]\nattacks = 1\n[target]\nmodels = 1"}] * 2, "stat": "nothing", "trials": 100}),
        ("/api/matchup", {"attackers": [], "targets": "generic.toml"}),
        ("/api/matchup", {"attackers": "generic.toml", "targets": "generic.toml", "metric": "bogus(", "trials": 10}),
        ("/api/matchup", {"attackers": "generic.toml", "targets": "generic.toml", "sort": "nope", "trials": 10}),
        ("/api/matchup", {"attackers": "generic.toml", "targets": "vom-kriege.toml", "trials": 10}),
        ("/api/matchup", {"attackers": "generic.toml", "targets": "generic.toml", "template": "[x", "trials": 10}),
        ("/api/points/fair", {"candidate": "generic.toml", "reference": "generic.toml:line_troopers", "basket": ["generic.toml:conscripts"], "trials": 10}),
        ("/api/points/fair", {"candidate": "generic.toml:shock_squad", "reference": "generic.toml:shock_squad", "basket": [], "trials": 10}),
        ("/api/points/fair", {"candidate": "generic.toml:shock_squad", "reference": "generic.toml:line_troopers", "basket": {"generic.toml:conscripts": "x"}}),
        ("/api/toml", {"scenario": {"x": None}}),
        ("/api/show", {"toml": "a = " + "[" * 50_000}),
        ("/api/matchup", {"attackers": "generic.toml", "targets": "generic.toml", "template": "a = " + "[" * 50_000}),
    ],
)  # fmt: skip
def test_no_client_input_gets_a_500_or_a_traceback(client, path, body):
    r = client.post(path, json=body)
    assert r.status_code < 500, (r.status_code, r.text)
    if r.status_code == 200:  # extreme but legal (a 2**80 seed, the largest units)
        return
    assert r.status_code >= 400
    error = r.json()["error"]
    assert "\n" not in error and "Traceback" not in error and "internal error" not in error


def test_the_server_answers_while_a_long_run_goes_on(client):
    slow = (
        "[attacker]\n[[attacker.weapons]]\nmodels = 100\nattacks = 10\n"
        "[target]\nmodels = 200\nsave = 4\n"
    )
    body = {"toml": slow, "trials": 2_000_000, "precision": 0.0001, "seed": 1}
    jid = client.post("/api/simulate?job=true", json=body).json()["id"]
    for _ in range(1000):  # until the first batch (one chunk) is done: the kernel is running
        if client.get(f"/api/jobs/{jid}").json()["done"]:
            break
        time.sleep(0.01)
    assert client.get("/api/status").json()["jobs_running"] == 1
    assert client.post("/api/show", json={"toml": slow}).status_code == 200
    assert client.get(f"/api/jobs/{jid}").json()["state"] == "running"  # still going
    client.post(f"/api/jobs/{jid}/cancel")
