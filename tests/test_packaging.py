"""A regular (non-editable) build ships the examples and unit libraries as package data."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The package built as a wheel (once for this module)."""
    out = tmp_path_factory.mktemp("dist")
    res = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
    )
    if res.returncode != 0 and "Could not" in res.stderr and "setuptools" in res.stderr:
        pytest.skip(f"cannot fetch the build backend: {res.stderr[-300:]}")
    assert res.returncode == 0, res.stderr
    (built,) = out.glob("oddslab-*.whl")
    return built


@pytest.mark.slow
def test_wheel_ships_examples_and_libraries(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "oddslab" / "examples").rglob("*.toml")
    }
    assert shipped and shipped <= names, sorted(shipped - names)
    assert "oddslab/examples/generic-intercessors-vs-guardsmen.toml" in names
    # the web app's page, scripts and styles (oddslab serve works offline from the wheel)
    web = {
        p.relative_to(ROOT).as_posix()
        for d in ("templates", "static")
        for p in (ROOT / "oddslab" / "web" / d).iterdir()
    }
    assert web and web <= names, sorted(web - names)


@pytest.mark.slow
def test_installed_outside_the_checkout_runs_the_quick_start_and_a_notebook(wheel, tmp_path):
    """A regular (non-editable) install, used from a folder that is not the checkout: the
    README's quick start (`oddslab simulate generic-intercessors-vs-guardsmen --plot ...`),
    the hint for a README-style `examples/...` path, and the quickstart notebook's code cells
    (run as one script by the venv's Python: the notebook kernel of this environment would
    import the checkout).

    To stay fast the fresh venv
    (no pip of its own: this environment's pip installs into it with ``--python``) reaches
    numpy, numba... through a ``.pth`` listing this environment's site-packages. Folders named
    in a ``.pth`` are not site folders, so the checkout's editable-install hook there is not
    run: the venv imports its own installed copy (asserted).
    """
    import json
    import os
    import venv

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False, symlinks=True)
    py = env_dir / "bin" / "python"
    site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    deps = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (Path(site) / "dev-dependencies.pth").write_text("\n".join(deps) + "\n")
    res = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q",
         str(wheel)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr

    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MPLBACKEND"] = "Agg"

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(args, cwd=work, env=env, capture_output=True, text=True)

    where = run(str(py), "-c", "import oddslab; print(oddslab.__file__)").stdout.strip()
    assert where.startswith(str(env_dir)), where  # the installed copy, not the checkout

    quick = run(str(env_dir / "bin" / "oddslab"), "simulate",
                "generic-intercessors-vs-guardsmen", "--plot", "quickstart.png")  # fmt: skip
    assert quick.returncode == 0, quick.stderr[-2000:]
    assert "(exact)" in quick.stdout and "P(= k) and P(≥ k)" in quick.stdout
    assert (work / "quickstart.png").stat().st_size > 10_000

    lost = run(
        str(py), "-m", "oddslab", "simulate", "examples/generic-intercessors-vs-guardsmen.toml"
    )
    assert lost.returncode == 2 and "oddslab examples --copy" in lost.stderr, lost.stderr

    nb = json.loads((ROOT / "notebooks" / "quickstart.ipynb").read_text(encoding="utf-8"))
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    script = "\n\n".join(
        "\n".join(line for line in cell.splitlines() if not line.lstrip().startswith("%"))
        for cell in cells
    )
    (work / "quickstart_notebook.py").write_text(script)
    ran = run(str(py), "quickstart_notebook.py")
    assert ran.returncode == 0, ran.stderr[-2000:]


def test_every_runtime_import_is_a_declared_dependency(root):
    """A package the code imports outside an optional front end must be in `dependencies`:
    the generic exact engine's scipy once lived only in `dev`, and a plain install's quick
    start (exact by default) failed. The exception: a package of an extra of its own (not
    `dev`), imported inside a function, which the command checks for before any work
    (pyarrow for `--out x.parquet`)."""
    import ast
    import sys
    import tomllib

    meta = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    declared = {d.split(">")[0].split("<")[0].split("[")[0].strip() for d in meta["dependencies"]}
    # import name -> distribution name, for the ones that differ, and what numba brings
    alias = {"llvmlite": "numba"}
    # optional front ends with an extra of their own (they say what to install)
    optional = {"oddslab/web", "oddslab/analysis/dask_run.py"}
    extras = {
        d.split(">")[0].split("<")[0].split("[")[0].strip()
        for name, deps in meta["optional-dependencies"].items()
        if name != "dev"
        for d in deps
    }
    missing = {}
    for path in (root / "oddslab").rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if any(rel.startswith(o) for o in optional):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        lazy = {
            id(n)
            for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            for n in ast.walk(f)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "oddslab":
                    continue
                if alias.get(top, top) in declared or (id(node) in lazy and top in extras):
                    continue
                missing.setdefault(top, rel)
    # imported only inside a running Jupyter kernel, which has loaded it already: the
    # notebook progress bar (analysis/progress.py checks sys.modules before it imports)
    for top, rel in {"IPython": "oddslab/analysis/progress.py"}.items():
        if missing.get(top) == rel:
            del missing[top]
    assert not missing, f"imported but not in [project] dependencies: {missing}"
