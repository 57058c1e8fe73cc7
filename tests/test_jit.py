"""The project's numba flags: the cache keyed by a digest of every kernel source, functions
only kernels call (no Python entry point), per-kernel LLVM settings, declared local types."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from oddslab import _jit
from oddslab._jit import cache_dir, jit, jit_inner, jit_noalloc, source_digest
from oddslab._kernels.rng import count_d6

ROOT = Path(__file__).resolve().parent.parent


def _package_copy(tmp_path: Path) -> Path:
    pkg = tmp_path / "oddslab"
    shutil.copytree(ROOT / "oddslab", pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return pkg


def test_digest_follows_every_kernel_source_and_nothing_else(tmp_path):
    pkg = _package_copy(tmp_path)
    base = source_digest(pkg)
    assert base == source_digest(ROOT / "oddslab") and len(base) == 16
    (pkg / "cli.py").write_text("# not kernel code\n")  # no kernel reads it
    assert source_digest(pkg) == base
    for rel in ("_kernels/rng.py", "rulesets/generic/layout.py", "_jit.py"):
        f = pkg / rel
        old = f.read_bytes()
        f.write_bytes(old + b"\n# changed\n")  # a helper or constant file another kernel uses
        assert source_digest(pkg) != base, rel
        f.write_bytes(old)
    (pkg / "rulesets" / "generic" / "extra.py").write_text("X = 1\n")  # a new file counts too
    assert source_digest(pkg) != base


def test_cache_dir_under_numba_cache_dir_or_the_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "nc"))
    assert cache_dir() == str(tmp_path / "nc" / f"oddslab-{source_digest()}")
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    want = tmp_path / "xdg" / "oddslab" / f"oddslab-{source_digest()}"
    assert cache_dir() == str(want) and want.is_dir()


def test_an_unwritable_place_falls_back_to_numbas_default(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker))  # a file: no directory can go there
    assert cache_dir() == ""


def test_kernels_cache_in_the_digest_directory(tmp_path):
    code = (
        "import numba, oddslab._jit as j\n"
        "from oddslab.engine import simulate\n"
        "from oddslab.pools import parse_roll\n"
        "simulate(parse_roll('3D6'), trials=10, seed=1)\n"
        "print(numba.config.CACHE_DIR)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    want = tmp_path / f"oddslab-{source_digest()}"
    assert out == str(want)
    assert any(want.rglob("*.nbi")), "the kernels were cached there"
    assert _jit._CACHE  # this test process caches somewhere writable too


_QUICK_LOAD = """
import hashlib, json, sys
import numba, numpy as np
import numba.core.compiler as nc
compiles = []
_compile_extra = nc.compile_extra
def counting(*args, **kwargs):
    compiles.append(1)
    return _compile_extra(*args, **kwargs)
nc.compile_extra = counting  # every numba compile goes through it
from oddslab.engine import simulate
from oddslab.scenario import load
digest = hashlib.sha256()
compiled = []
for example in sys.argv[1:]:
    outcome = simulate(load(example), trials=70_000, seed=5)  # two chunks, on two threads
    compiled.append(outcome.compiled)
    for name in sorted(outcome.counts):
        digest.update(outcome.counts[name].tobytes())
registries = "numba.np.arraymath" in sys.modules  # what numba's full refresh imports
n_compiles = len(compiles)
later = numba.njit(lambda a: np.sum(a * 2))(np.arange(4))  # a compile after a quick load
print(json.dumps([digest.hexdigest(), compiled, registries, int(later), n_compiles]))
"""


def test_a_warm_start_loads_kernels_without_readying_the_compiler(tmp_path):
    examples = [
        str(ROOT / "examples" / name)
        for name in (
            "formation-actions-command-and-suppression.toml",
            "hex-platoon-platoon-fire-concealed.toml",  # kernels with declared signatures
        )
    ]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}

    def run():
        out = subprocess.run(
            [sys.executable, "-c", _QUICK_LOAD, *examples],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(out.stdout)

    cold, warm = run(), run()
    assert cold[1] == [True, True] and cold[2]  # compiled, with numba's registries loaded
    assert warm[1] == [False, False]  # loaded from the cache...
    assert not warm[2]  # ...without numba's compiler registries (0.2 s of a warm start)
    assert cold[4] > 10 and warm[4] == 0  # nothing compiled, not even at import
    assert warm[0] == cold[0]  # the same machine code: the same histograms
    assert warm[3] == cold[3] == 12  # and numba still compiles whatever comes later


@jit_inner(ints="total")
def _inner_sum(a, n):
    total = 0
    for i in range(n):
        total += a[i]
    return total


@jit(cache=False)
def _calls_inner(a):
    return _inner_sum(a, a.shape[0])


def test_inner_function_runs_from_kernels_and_refuses_python_calls():
    a = np.arange(10, dtype=np.int64)
    assert _calls_inner(a) == 45
    with pytest.raises(TypeError, match="_inner_sum is compiled to be called from other kernels"):
        _inner_sum(a, 10)  # numba alone would jump to a missing entry point and crash


def test_inner_functions_leave_their_machine_code_to_their_callers():
    a = np.arange(5, dtype=np.int64)
    assert _calls_inner(a) == 10  # the caller's copy of the code runs
    (inner,) = _inner_sum.overloads.values()
    assert isinstance(inner.library, _jit.LinkOnlyLibrary)
    # no machine code of its own (numba would have made some), and no cache of its own
    assert inner.library.get_pointer_to_function(inner.fndesc.llvm_func_name) == 0
    assert "_inner_sum" in inner.library.get_llvm_str()  # the IR its callers link in
    assert not isinstance(_inner_sum._cache, _jit.QuickLoadCache)
    (caller,) = _calls_inner.overloads.values()
    assert not isinstance(caller.library, _jit.LinkOnlyLibrary)


def _scaled_sum(a, k):
    return _inner_sum(a, a.shape[0]) * k


_kept_sum = jit_inner(_scaled_sum)
_inlined_sum = jit_inner(_scaled_sum, always_inline=True)


@jit(cache=False)
def _calls_both(a):
    return _kept_sum(a, 2) + _inlined_sum(a, 3)


def _marked(dispatcher) -> list[bool]:
    """Per function defined in an inner function's IR: whether it is marked alwaysinline."""
    (ov,) = dispatcher.overloads.values()
    fns = [f for f in ov.library._final_module.functions if not f.is_declaration]
    return [any(b"alwaysinline" in bytes(a) for a in f.attributes) for f in fns]


def test_always_inline_marks_the_function_and_its_callees_for_llvm_only():
    a = np.arange(6, dtype=np.int64)
    assert _calls_both(a) == 15 * 2 + 15 * 3
    # both define _scaled_sum and the _inner_sum it calls; only one asks LLVM to inline them
    assert _marked(_inlined_sum) == [True, True]
    assert _marked(_kept_sum) == [False, False]
    assert not any(_marked(_inner_sum))  # the callee's own library is left as it was
    # the assault step, called once per Initiative step, is the one user of it
    assert (
        _package_functions("jit_inner")
        and "always_inline=True" in (ROOT / "oddslab/rulesets/assault_phase/step.py").read_text()
    )


def _package_functions(decorator: str) -> dict[str, str]:
    """``{name: module}`` of the package's functions decorated with ``decorator``."""
    found = {}
    for f in (ROOT / "oddslab").rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                ast.unparse(d).split("(")[0] == decorator for d in node.decorator_list
            ):
                found[node.name] = f.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
    return found


def test_no_plain_python_code_calls_an_inner_function():
    # what a user can reach runs in Python: a jit_inner function used there would raise
    inner = _package_functions("jit_inner")
    assert len(inner) > 30  # (the check below would pass vacuously on a wrong parse)
    offenders = []
    for f in (ROOT / "oddslab").rglob("*.py"):
        tree = ast.parse(f.read_text())
        module = f.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
        visible = {n for n, m in inner.items() if m == module}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                visible |= {
                    a.asname or a.name for a in node.names if inner.get(a.name) == node.module
                }
        plain = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef)
            and not any(ast.unparse(d).startswith("jit") for d in node.decorator_list)
        ]
        for fn in plain:
            for sub in ast.walk(fn):
                if isinstance(sub, ast.Name) and sub.id in visible:
                    offenders.append(f"{module}.{fn.name} uses {sub.id}")
    assert offenders == []


def _loop(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 3 + 1


def test_lean_dispatcher_compiles_without_vectorisers_and_restores_numbas_settings():
    before = (numba.config.LOOP_VECTORIZE, numba.config.SLP_VECTORIZE, int(numba.config.OPT))
    lean = jit_noalloc(_loop, vectorize=False, llvm_opt=2, cache=False)
    default = jit_noalloc(_loop, cache=False)
    assert isinstance(lean, _jit.LeanDispatcher) and lean.llvm_settings == (False, 2)
    assert not isinstance(default, _jit.LeanDispatcher)
    a = np.arange(1000, dtype=np.int64)
    out_lean, out_default = np.zeros_like(a), np.zeros_like(a)
    lean(a, out_lean)
    default(a, out_default)
    assert np.array_equal(out_lean, out_default) and np.array_equal(out_lean, a * 3 + 1)
    after = (numba.config.LOOP_VECTORIZE, numba.config.SLP_VECTORIZE, int(numba.config.OPT))
    assert after == before
    ir = next(iter(lean.inspect_llvm().values()))
    assert " x i64>" not in ir  # no vector code at all
    if before[0]:  # numba's defaults vectorise this loop on any x86-64 (SSE2 at least)
        assert " x i64>" in next(iter(default.inspect_llvm().values()))


def test_declared_locals_are_passed_to_numba():
    f = jit(lambda n: n, ints="a b", flags="c", cache=False)
    assert f.locals == {"a": numba.int64, "b": numba.int64, "c": numba.boolean}
    assert jit(lambda n: n, cache=False).locals == {}


def _kernel_like(a, out, k):
    """Loops, 2-D indexing, a tuple from an inner function, a numba-inlined RNG helper."""
    st = np.zeros(6, dtype=np.uint64)
    st[0] = np.uint64(k + 1)
    for i in range(a.shape[0]):
        lo, hi = _low_high(a, i)
        out[i, 0] = lo * 3 + hi
        out[i, 1] = count_d6(st, k, 4)[0]


@jit_inner(ints="lo hi")
def _low_high(a, i):
    lo = a[i]
    hi = a[i]
    for j in range(i):
        lo = a[j] if a[j] < lo else lo
        hi = a[j] if a[j] > hi else hi
    return lo, hi


def _asm(dispatcher) -> str:
    (sig,) = dispatcher.signatures
    # (mangled names carry each dispatcher's own id, and .size gives their lengths)
    asm = re.sub(r"_ZN\w+", "SYMBOL", dispatcher.inspect_asm(sig))
    return "\n".join(line for line in asm.splitlines() if not line.startswith("\t.size"))


def _passes(dispatcher) -> set[str]:
    """The names of the passes numba ran to compile the dispatcher's one signature."""
    (ov,) = dispatcher.overloads.values()
    return {k.split("_", 1)[1] for p in ov.metadata["pipeline_times"].values() for k in p}


def test_lean_compiler_leaves_out_its_passes_and_makes_the_same_machine_code():
    from numba.core.compiler import Compiler

    lean = jit(_kernel_like, cache=False)
    full = numba.njit(_kernel_like, cache=False, nogil=True, pipeline_class=Compiler)
    a = np.array([5, 3, 8, 1, 9, 2], dtype=np.int64)
    out_lean, out_full = np.zeros((6, 2), dtype=np.int64), np.zeros((6, 2), dtype=np.int64)
    lean(a, out_lean, 7)
    full(a, out_full, 7)
    assert np.array_equal(out_lean, out_full)
    assert list(out_lean[:, 0]) == [20, 14, 17, 11, 12, 12]
    passes = _passes(lean)
    assert "nopython_type_inference" in passes and "native_lowering" in passes
    for skipped in ("inline_closure_likes", "with_lifting", "nopython_rewrites"):
        assert skipped not in passes
    assert "inline_closure_likes" not in _passes(_low_high)  # inner functions: the same way
    assert _asm(lean) == _asm(full)
    # the comparison sees a pass that does change the code: without numba's inlining of
    # ``inline="always"`` functions, count_d6 stays a call
    from numba.core.untyped_passes import InlineInlinables

    class Leaner(_jit.LeanCompiler):
        SKIPPED = (*_jit.LeanCompiler.SKIPPED, InlineInlinables)

    leaner = numba.njit(_kernel_like, cache=False, nogil=True, pipeline_class=Leaner)
    out_leaner = np.zeros((6, 2), dtype=np.int64)
    leaner(a, out_leaner, 7)
    assert np.array_equal(out_leaner, out_full) and _asm(leaner) != _asm(full)


def test_a_closure_in_a_kernel_fails_to_compile_rather_than_compiling_differently():
    def with_closure(a):
        def plus_one(x):
            return x + 1

        return plus_one(a[0])

    with pytest.raises(numba.core.errors.TypingError, match="make_function"):
        jit(with_closure, cache=False)(np.arange(3))
