"""The `oddslab serve` command (oddslab.web.command): what it says without the web extra, the
warning for a non-local address, and that the CLI does not import the web stack."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from oddslab.cli import app

runner = CliRunner()


def test_without_the_web_extra_it_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "fastapi", None)  # import fastapi -> ImportError
    res = runner.invoke(app, ["serve"])
    assert res.exit_code == 2
    assert 'pip install -e ".[web]"' in res.stderr and "Traceback" not in res.output


def test_cli_start_up_imports_no_web_stack(root):
    code = "import sys, oddslab.cli; print(sorted(m for m in ('fastapi', 'uvicorn', 'jinja2', 'starlette', 'pydantic') if m in sys.modules))"  # fmt: skip
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    assert out.stdout.strip() == "[]"


def test_all_interfaces_warns_and_localhost_does_not(monkeypatch, capsys):
    pytest.importorskip("uvicorn", reason='the web extra is not installed: pip install -e ".[web]"')
    import uvicorn

    from oddslab.web.app import serve
    from oddslab.web.security import Settings

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    serve(Settings(host="0.0.0.0", port=8123, warm=False))
    err = capsys.readouterr().err
    assert "warning" in err and "anyone who can reach port 8123" in err
    serve(Settings(port=8123, warm=False))
    err = capsys.readouterr().err
    assert "warning" not in err and "http://127.0.0.1:8123/" in err
    assert [c["host"] for c in calls] == ["0.0.0.0", "127.0.0.1"]


def test_library_dir_must_be_a_folder(tmp_path):
    pytest.importorskip("fastapi", reason='the web extra is not installed: pip install -e ".[web]"')
    res = runner.invoke(app, ["serve", "--library-dir", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "is not a folder" in res.stderr
