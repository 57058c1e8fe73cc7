"""The one place numba compilation flags are set.

Every kernel in :mod:`oddslab._kernels` and :mod:`oddslab.rulesets` is decorated with
:func:`jit` (serial functions, among them the per-chunk functions the engine runs on threads,
see :mod:`oddslab._kernels.chunks`) or :func:`jit_noalloc` (serial kernel functions that
allocate nothing: no reference counting). There is no ``parallel=True`` flag: a ``prange``
driver cost seconds of compile time per ruleset and bought nothing that ``nogil`` functions
on Python threads do not give (``nogil`` is on for every function). ``cache=True`` makes a
warm start load the compiled machine code from the cache (:func:`cache_dir`) instead of
recompiling.
``fastmath`` stays off: results must be bit-identical across machines and thread counts.

Every kernel compiles through :class:`LeanCompiler` (numba's pipeline less the passes that
never change our kernels). Functions that only other kernels call are decorated with
:func:`jit_inner`: no Python entry point, and their code kept as LLVM IR for their callers
(:class:`LinkOnlyLibrary`). Every cached function loads through :class:`QuickLoadCache`,
which skips readying numba's compiler when nothing is compiled.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba
from numba.core import typed_passes, typeinfer, untyped_passes
from numba.core.caching import FunctionCache
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import Compiler, DefaultPassBuilder
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import PassManager
from numba.core.registry import CPUDispatcher
from numba.core.runtime import nrt

__all__ = [
    "jit",
    "jit_noalloc",
    "jit_inner",
    "cache_dir",
    "source_digest",
    "InnerDispatcher",
    "DeclaredInnerDispatcher",
    "LeanDispatcher",
    "QuickLoadCache",
    "LinkOnlyLibrary",
    "LeanCompiler",
]

_PACKAGE = Path(__file__).resolve().parent


def source_digest(package: Path = _PACKAGE) -> str:
    """16 hex digits of SHA-256 over every source file a kernel is compiled from or reads
    constants from: ``_jit.py``, ``_kernels/*.py`` and ``rulesets/**/*.py`` (names and bytes).

    numba's cache checks only the source file of the function it loads: a kernel whose helper
    in another file (the RNG, a layout constant, a casualty rule) changed would load stale
    machine code. Caching under a directory named by this digest makes any such edit, or an
    upgrade, compile afresh.
    """
    h = hashlib.sha256()
    files = [package / "_jit.py", *package.glob("_kernels/*.py"), *package.glob("rulesets/**/*.py")]
    for f in sorted(files):
        h.update(f.relative_to(package).as_posix().encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def cache_dir() -> str:
    """Where numba caches oddslab's kernels: ``$NUMBA_CACHE_DIR/oddslab-<digest>``, or
    ``~/.cache/oddslab/oddslab-<digest>`` (``$XDG_CACHE_HOME`` honoured) when
    ``NUMBA_CACHE_DIR`` is not set; ``<digest>`` is :func:`source_digest`. Empty when that
    directory cannot be created (numba then uses its own default places)."""
    base = os.environ.get("NUMBA_CACHE_DIR", "")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "oddslab")
    path = os.path.join(base, f"oddslab-{source_digest()}")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return ""
    return path if os.access(path, os.W_OK) else ""


# numba reads the cache directory when a cached function is decorated, so this runs before
# any kernel module decorates one
_CACHE = cache_dir()
if _CACHE:
    numba.config.CACHE_DIR = _CACHE


class LeanCompiler(Compiler):
    """numba's nopython pipeline without the passes that never change a kernel of ours.

    numba runs every pass of its pipeline on every function it compiles, whether or not the
    function has anything the pass rewrites, and most passes re-analyse the whole function
    (variable lifetimes, definitions) when they finish. Kernels here have no closures or
    comprehensions, no ``with`` contexts, no ``literally``/``literal_unroll``, no whole-array
    expressions, no string-indexed records and no parallel loops, so the passes that handle
    exactly those (:data:`SKIPPED`) leave their IR as it was: every kernel's machine code is
    byte for byte what numba's full pipeline makes (checked for every signature the examples
    and the ``WARMUP`` scenarios compile, in every ruleset), about 0.4 s sooner per ruleset
    (assault phase: 4.9 s to 4.4 s in interleaved runs). A closure or comprehension in a
    kernel fails to compile (a ``TypingError`` naming the ``make_function``); a whole-array
    expression compiles without numba's loop fusion (the same values, allocated
    temporaries).
    """

    #: the passes left out: closures/comprehensions, ``with`` lifting, ``literally``,
    #: ``literal_unroll``, the after-typing rewrites (array expressions, string literal
    #: getitems, arrays of constants) and the parfor diagnostics dump
    SKIPPED = (
        untyped_passes.WithLifting,
        untyped_passes.InlineClosureLikes,
        untyped_passes.MakeFunctionToJitFunction,
        untyped_passes.FindLiterallyCalls,
        untyped_passes.LiteralUnroll,
        typed_passes.NopythonRewrites,
        typed_passes.DumpParforDiagnostics,
    )

    def define_pipelines(self):
        if self.state.flags.force_pyobject:  # (never: every kernel is nopython)
            return super().define_pipelines()
        full = DefaultPassBuilder.define_nopython_pipeline(self.state)
        lean = PassManager(full.pipeline_name)
        for pass_class, description in full.passes:
            if pass_class not in self.SKIPPED:
                lean.add_pass(pass_class, description)
        lean.finalize()
        return [lean]


_COMMON = {
    "cache": True,
    "nogil": True,
    "fastmath": False,
    "error_model": "numpy",
    "pipeline_class": LeanCompiler,
}


def _typed_locals(ints: str, flags: str) -> dict:
    """numba ``locals`` declaring the names in ``ints`` int64 and those in ``flags`` boolean.

    A local that starts as a literal (``n = 0``, ``found = False``) and is assigned something
    else later (``n += k``) is first typed as the literal and widened on a later pass; numba
    then runs its whole type inference over the function again, once per level of such
    widening (every call and index in the function typed anew each time). Declared, these
    names have their final type from the start: two passes instead of three or four, the
    same types, the same machine code.
    """
    if not ints and not flags:
        return {}
    types = {name: numba.int64 for name in ints.split()}
    types.update({name: numba.boolean for name in flags.split()})
    return {"locals": types}


class QuickLoadCache(FunctionCache):
    """numba's on-disk cache of one function, loading without first readying the compiler.

    Before loading a function from its cache numba "refreshes" the whole compiler: it imports
    and registers every typing and lowering module it has (NumPy's linear algebra, which
    imports SciPy when it is installed, datetimes, the random generators, cffi, typed
    containers, ...), 0.2 s of a warm start that then runs no compiler at all. Loading
    needs only the runtime the machine code calls (numba's NRT, readied here) and, for code
    that uses them, the threads (each cached function re-runs its own start-up hooks). When
    something does have to be compiled, numba's compiler refreshes everything itself first.
    """

    def load_overload(self, sig, target_context):
        nrt.rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)


def _dispatcher(f, opts: dict, lean: tuple[bool, int] | None = None) -> CPUDispatcher:
    """``numba.njit(**opts)(f)`` with a :class:`QuickLoadCache` (and, with ``lean``, as a
    :class:`LeanDispatcher` with those settings).

    A ``signature_or_function`` in ``opts`` is compiled here, after the dispatcher has its
    cache and class (numba would compile it inside ``njit``, before either), then the
    dispatcher compiles nothing else, as numba's eager compilation does.
    """
    opts = dict(opts)
    sig = opts.pop("signature_or_function", None)
    disp = numba.njit(**opts)(f)
    if not isinstance(disp, CPUDispatcher):  # NUMBA_DISABLE_JIT=1: the plain function
        return disp
    if type(getattr(disp, "_cache", None)) is FunctionCache:
        disp._cache.__class__ = QuickLoadCache  # (the same object layout: a subclass)
    if lean is not None:
        disp.__class__ = LeanDispatcher  # (the same object layout: a subclass)
        disp.llvm_settings = lean
    if sig is not None:
        with typeinfer.register_dispatcher(disp):
            disp.compile(sig)
        disp.disable_compile()
    return disp


def jit(fn=None, *, ints: str = "", flags: str = "", **overrides):
    """``numba.njit`` with the project's flags (serial); ``ints`` and ``flags`` name locals
    declared int64 and boolean (see :func:`_typed_locals`)."""
    opts = {**_COMMON, **_typed_locals(ints, flags), **overrides}
    if fn is None:
        return lambda f: _dispatcher(f, opts)
    return _dispatcher(fn, opts)


def jit_noalloc(
    fn=None,
    *,
    vectorize: bool = True,
    llvm_opt: int = 3,
    ints: str = "",
    flags: str = "",
    **overrides,
):
    """:func:`jit` without numba's reference counting (``_nrt=False``), for kernel functions
    that allocate nothing.

    With the NRT (numba runtime) on, every array passed between jitted functions has its
    reference count incremented and decremented (atomic operations on the array's meminfo).
    In a per-trial inner loop those refcounts cost 30–75 % of kernel time, and more when the
    two threads running chunks contend for the counts of the same shared input arrays.
    Compiled without the NRT, arrays are passed as plain pointers and shapes, with no counting.

    The function must not allocate (no ``np.empty``/``np.zeros``/``np.array``, no array
    results); views (slices) of arrays passed in are fine. Numba refuses to compile an
    allocation without the NRT (a ``TypingError``: "No implementation of function ... zeros"),
    so a mistake fails loudly at the first compile, never silently. Allocate scratch arrays
    once per chunk in the per-chunk function (compiled with :func:`jit`) and pass them down.

    ``vectorize=False`` and ``llvm_opt=2`` compile the function, and every function compiled
    for it (its callees), without LLVM's vectorisers and at LLVM's ``-O2``
    (see :class:`LeanDispatcher`). ``ints`` and ``flags`` name locals declared int64 and
    boolean (see :func:`_typed_locals`).
    """

    def decorate(f):
        opts = {**_COMMON, "_nrt": False, **_typed_locals(ints, flags), **overrides}
        lean = (vectorize, llvm_opt) if not vectorize or llvm_opt != 3 else None
        return _dispatcher(f, opts, lean)

    return decorate if fn is None else decorate(fn)


class LeanDispatcher(CPUDispatcher):
    """A dispatcher that compiles with its own LLVM settings: ``llvm_settings = (vectorize,
    opt_level)``.

    For kernels whose loops run over a handful of models or units per trial: the vectorised
    versions of those loops never run, yet LLVM spends time building them (with AVX-512,
    masked gathers and stores for every strided ``gi[g, col]`` loop), and ``-O3`` adds
    little to ``-O2`` for branchy integer code. Measured (compile of the first run, and
    per-CPU-second rate, each against the defaults, same process order):

    - assault-phase, both off: compiles about 0.5 s faster, runs as fast; ``-O1`` since its
      Initiative step is inlined into the trial loop (``jit_inner(always_inline=True)``):
      0.2 s less compile than ``-O2``, 5 % slower (2.05 against 2.15 M trials per second on
      one thread);
    - hex-platoon's step interpreter, both: 0.5 s faster, runs 1.5x as fast (2.6 against
      1.75 M trials per CPU-second for the artillery benchmark);
    - armoured-clash and vom-kriege, no vectorisers only (``-O2`` ran 5-7 % slower): 1.5 s
      and 0.5 s faster, as fast;
    - formation-actions, both: a little faster to compile, as fast.

    Kernels that sweep long arrays of dice keep the defaults: the generic ruleset and the
    hex-platoon fire kernel run 20-30 % slower without the vectorisers.

    numba reads these settings from its ``config`` each time it builds an LLVM pass
    pipeline, so they are set while this function compiles (under numba's compiler lock, so
    no other compile sees them) and restored after. Results do not depend on them: the
    kernels are integer code, and LLVM never reorders floating-point arithmetic without
    fast-math flags.
    """

    llvm_settings = (True, 3)

    def compile(self, sig):
        vectorize, opt = self.llvm_settings
        with global_compiler_lock:
            config = numba.config
            saved = config.LOOP_VECTORIZE, config.SLP_VECTORIZE, config.OPT
            config.LOOP_VECTORIZE = config.LOOP_VECTORIZE and vectorize
            config.SLP_VECTORIZE = config.SLP_VECTORIZE and vectorize
            config.OPT = type(config.OPT)(min(int(config.OPT), opt))
            try:
                return super().compile(sig)
            finally:
                config.LOOP_VECTORIZE, config.SLP_VECTORIZE, config.OPT = saved


class InnerDispatcher(CPUDispatcher):
    """The dispatcher of a :func:`jit_inner` function: other kernels call it, Python cannot."""

    def __call__(self, *args, **kwargs):
        # numba compiled no entry point for Python: calling it would jump to address 0
        raise TypeError(
            f"{self.py_func.__module__}.{self.py_func.__qualname__} is compiled to be called "
            "from other kernels only (no Python entry point); call it from a jitted function"
        )


class DeclaredInnerDispatcher(InnerDispatcher):
    """An :class:`InnerDispatcher` whose decorator gave a signature (``declared``): it is
    compiled for that signature alone, when a caller first needs it, and callers' arguments
    convert to it as they would have had numba compiled it at decoration."""

    declared = None

    def compile(self, sig):
        return super().compile(self.declared)


class LinkOnlyLibrary(JITCodeLibrary):
    """The compiled code of a :func:`jit_inner` function: LLVM IR that only its callers use.

    numba optimises every function's module on its own and makes machine code of it, then
    links that module into each caller's and optimises and compiles the whole again (so that
    calls can be inlined). For a function no Python code calls, the first round is never
    used: its callers' round optimises and compiles its code in place. This library keeps
    the function-level clean-up numba runs on every module and skips the rest (about 0.4 s
    of the assault-phase kernel's compile). Its functions have no machine code of their
    own; nothing asks for it (no Python entry point, no cache of its own: a caller's cache
    holds the caller's compiled copy).
    """

    @property
    def codegen(self):
        return _NoMachineCode(self._codegen)

    def _optimize_final_module(self):
        pass  # each caller optimises this code, inlined or not, with its own

    #: whether this function and its callees are marked ``alwaysinline``
    #: (``jit_inner(always_inline=True)``; set by :class:`_LinkOnlyInlineCompiler`)
    always_inline = False

    def _finalize_final_module(self):
        if self.always_inline:
            # every function defined here: this one and the callees linked into its module
            for fn in self._final_module.functions:
                if fn.is_declaration or any(b"noinline" in bytes(a) for a in fn.attributes):
                    continue
                fn.add_function_attribute("alwaysinline")
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True


class _NoMachineCode:
    """numba's code generator, as seen by a :class:`LinkOnlyLibrary`: no environment slot
    to fill in machine code that is never made (nopython kernels need no environment)."""

    def __init__(self, codegen):
        self._codegen = codegen

    def set_env(self, env_name, env):
        pass

    def __getattr__(self, name):
        return getattr(self._codegen, name)


class _LinkOnlyCompiler(LeanCompiler):
    """:class:`LeanCompiler`, putting the function's code in a :class:`LinkOnlyLibrary`."""

    always_inline = False

    def compile_extra(self, func):
        if self.state.library is None:
            library = self.state.targetctx.codegen().create_library(func.__qualname__)
            library.enable_object_caching()
            library.__class__ = LinkOnlyLibrary  # (the same object layout: a subclass)
            library.always_inline = self.always_inline
            self.state.library = library
        return super().compile_extra(func)


class _LinkOnlyInlineCompiler(_LinkOnlyCompiler):
    """:class:`_LinkOnlyCompiler` for ``jit_inner(always_inline=True)``."""

    always_inline = True


def jit_inner(
    fn=None, *, ints: str = "", flags: str = "", always_inline: bool = False, **overrides
):
    """:func:`jit_noalloc` for functions only other kernels call: no Python entry point.

    numba gives every compiled function two wrappers besides its machine code: one that
    unboxes Python objects so Python can call it, and a C-callable one. For a function that
    takes several arrays the Python wrapper is most of what numba compiles for it (each array
    argument is checked and unpacked field by field), and nothing uses it when the function
    is only ever called from other kernels. Leaving both out cut the assault-phase kernel's
    compile by about 1 s (of 7.6) and hex-platoon's by 0.5 s, with the same machine code for
    the kernels themselves.

    Its code is compiled only inside its callers (:class:`LinkOnlyLibrary`): no machine
    code and no cache entry of its own, about 0.4-0.9 s less compile per ruleset.

    Calling such a function from Python raises :class:`TypeError` (numba alone would crash:
    there is no entry point to jump to).

    ``always_inline=True`` has LLVM inline the function, and every function it calls, into
    its callers (the ``alwaysinline`` attribute on each), where LLVM's own cost model keeps
    them calls. For a large function with one call site that runs a few times a trial:
    each call passes every array argument as several machine words on the stack, and the
    callee can reuse nothing its caller already has in registers. This is not numba's
    ``inline="always"``, which copies the function's numba IR into each caller and types it
    again (compile time): the code is compiled once, where it is called. Each further call
    site is another copy for LLVM to optimise.
    """

    def decorate(f):
        # compiled when a caller first needs it (nothing of it is cached to load at import)
        pipeline = _LinkOnlyInlineCompiler if always_inline else _LinkOnlyCompiler
        opts = {"cache": False, "pipeline_class": pipeline, **overrides}
        declared = opts.pop("signature_or_function", None)
        disp = jit_noalloc(
            f, ints=ints, flags=flags, no_cpython_wrapper=True, no_cfunc_wrapper=True, **opts
        )
        if isinstance(disp, CPUDispatcher):  # (not with NUMBA_DISABLE_JIT=1)
            # (the same object layout: subclasses adding methods)
            if declared is None:
                disp.__class__ = InnerDispatcher
            else:
                disp.__class__ = DeclaredInnerDispatcher
                disp.declared = declared
        return disp

    return decorate if fn is None else decorate(fn)
