"""Fenced code blocks of README.md and docs/*.md, and the shell commands in them (for
tests/test_docs.py)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^```([\w-]*)[ \t]*\n(.*?)^```[ \t]*$", flags=re.S | re.M)
_MARKER = re.compile(r"<!--\s*docs-test:\s*(fragment|skip)\s*-->\s*$")
_SHELL = ("bash", "sh", "shell", "console")
#: Placeholders of synopsis lines: UPPERCASE file names, [--options], a|b, "...".
_PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]+(?:\.toml)?\b|\[-|\s\.\.\.(\s|$)|\w\|\w|\$\w|tcp://")
#: What a synopsis line's placeholders stand for when the line is run (:func:`fill`): a real
#: shipped example each, so a wrong key or option in a synopsis fails a test. A placeholder
#: not here (``T.toml``, ``FILE``) leaves its line out, or drops the optional ``[...]`` group
#: it is in.
FILL = {
    "SCENARIO.toml": "examples/generic-intercessors-vs-guardsmen.toml",
    "SCENARIO": "generic-intercessors-vs-guardsmen",
    '"DICE POOL"': '"4D6"',
    "P": "0.01",
    "RULESET": "generic",
    "A.toml": "examples/generic-intercessors-vs-guardsmen.toml",
    "B.toml": "examples/generic-anti-infantry.toml",
    "LIBRARY.toml": "examples/libraries/generic.toml",
    "LIB.toml": "examples/libraries/generic.toml",
    "ENTRY": "conscripts",
    "N": "2000",
    "S": "1",
    "SEED": "1",
    "NAME": "models_slain",
    "DIR": "copied-examples",
    "RULESET...": "generic",
}
_TOKEN = re.compile(r'"DICE POOL"|\b[A-Z][A-Z_]*(?:\.toml|\.\.\.)?(?![\w.(])')


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    code: str
    marker: str | None  # "fragment", "skip" or None

    @property
    def where(self) -> str:
        return f"{self.page.name}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page``, with the marker on the line before it if any."""
    text = page.read_text(encoding="utf-8")
    out = []
    for m in _FENCE.finditer(text):
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = _MARKER.search(before)
        line = text.count("\n", 0, m.start()) + 1
        out.append(Block(page, line, m.group(1), m.group(2), mark.group(1) if mark else None))
    return out


def shell_commands(block: Block) -> list[str]:
    """The ``oddslab`` commands of a shell block (or the ``$ `` lines of an unlabelled
    transcript, or the `oddslab` lines of an unlabelled block without one) that are safe and
    possible to run: continuation lines joined, ``python -m
    oddslab`` read as ``oddslab``, ``a && b`` split, ``NAME=value`` lines substituted,
    ``# comments`` dropped, synopsis placeholders filled (:func:`fill`). A block that first ``pip install``s something other than this
    package (``.``, ``".[extra]"``), such as a plugin, is left out: it needs that installed."""
    if block.marker == "skip" or block.lang not in (*_SHELL, ""):
        return []
    if _installs_something_else(block.code):
        return []  # needs something installed first (a plugin): not this environment
    lines = block.code.splitlines()
    if block.lang == "" and any(ln.startswith("$ ") for ln in lines):
        lines = [ln[2:] for ln in lines if ln.startswith("$ ")]
    elif block.lang == "":  # a synopsis, or a command and what it prints
        lines = [ln for ln in lines if ln.startswith("oddslab ")]
    joined: list[str] = []
    for ln in lines:
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1].rstrip() + " " + ln.strip()
        else:
            joined.append(ln.strip())
    env: dict[str, str] = {}
    out = []
    for cmd in (part for line in joined for part in line.split(" && ")):
        cmd = re.sub(r"\s+#\s.*$", "", cmd).strip()
        assign = re.fullmatch(r"([A-Z_]+)=(\S+)", cmd)
        if assign:
            env[assign.group(1)] = assign.group(2)
            continue
        for name, value in env.items():
            cmd = cmd.replace(f"${name}", value)
        cmd = fill(re.sub(r"^python -m oddslab\b", "oddslab", cmd))
        if not cmd.startswith("oddslab ") or _PLACEHOLDER.search(cmd.split(";")[0]):
            continue
        if re.search(r"--(scheduler|workers)\b|^oddslab serve\b", cmd) or not _files_exist(cmd):
            continue  # a cluster, a server that runs until stopped, files of an error demo
        out.append(cmd)
    return out


def _files_exist(cmd: str) -> bool:
    """Every ``*.toml`` the command names exists (in the repository, where ``examples/``
    is the shipped folder) or is a shipped example's bare name."""
    from oddslab import examples_dir

    for f in re.findall(r"[\w./~-]+\.toml", cmd.split(";")[0]):
        candidates = (ROOT / f, ROOT / "oddslab" / f, examples_dir() / f)
        if not any(p.is_file() for p in candidates):
            return False
    return True


def _installs_something_else(code: str) -> bool:
    """Whether a ``pip install`` in ``code`` installs anything but this package (``.`` or
    ``".[extra]"``)."""
    code = re.sub(r"(^|\s)#.*", "", code, flags=re.M)  # comments
    for m in re.finditer(r"pip install ([^&;\n]*)", code):
        targets = [a for a in shlex.split(m.group(1)) if not a.startswith("-")]
        if any(t != "." and not t.startswith(".[") for t in targets):
            return True
    return False


def fill(cmd: str) -> str:
    """A synopsis line made runnable where it can be: each placeholder of :data:`FILL` replaced
    (``SCENARIO.toml`` → a shipped example), each optional group ``[--opt X | Y]`` replaced by
    its last alternative that can be filled (``--opt Y`` for a bare ``Y``; ``a|b|c`` → ``a``)
    or dropped, and ``A.toml B.toml ...`` read as its files. What still holds a placeholder
    is left as it is (and not run)."""

    def sub(text: str) -> str:
        return _TOKEN.sub(lambda m: FILL.get(m.group(0), m.group(0)), text)

    def group(m: re.Match) -> str:
        alts = [a.strip() for a in m.group(1).split(" | ")]
        opt = alts[0].split()[0] if alts[0].startswith("-") else ""
        for alt in reversed(alts):  # the last: `[--exact | --mc]` with `[--trials N]` runs
            alt = alt if alt.startswith("-") or not opt else f"{opt} {alt}"
            alt = sub(re.sub(r"\b(\w+)(?:\|\w+)+", r"\1", alt))
            if not _PLACEHOLDER.search(alt) and not re.search(r"\b[A-Z]\.toml\b", alt):
                return alt
        return ""

    if not cmd.startswith("oddslab ") or "$" in cmd:
        return cmd
    head, sep, tail = cmd.partition(";")
    head = re.sub(r"(\.toml) \.\.\.(?=\s|$)", r"\1", head)
    head = sub(head)
    while (inner := re.sub(r"\[([^\[\]]*)\]", group, head)) != head:  # nested: inside out
        head = inner
    return re.sub(r"\s+", " ", head).strip() + sep + tail
