"""Scenario files: TOML → a ruleset's validated, frozen scenario object.

Every file names its ``ruleset`` (default ``"generic"``); the
:class:`~oddslab.ruleset.Ruleset` registered under that name (:func:`oddslab.ruleset.get`)
reads the rest through :class:`oddslab._schema.Table`, so every problem is reported as one :class:`ScenarioError` naming the file, the key path and what was expected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oddslab import ruleset as _registry
from oddslab._limits import MAX_TRIALS, TRIALS_WHAT
from oddslab._schema import ScenarioError, Table, read_toml
from oddslab.ruleset import BUILTIN, RulesetError

__all__ = ["RULESETS", "ScenarioError", "load", "read_toml", "from_dict", "read_run_options"]

#: Built-in ruleset name in files -> the module of its package. Front ends find rulesets
#: through :mod:`oddslab.ruleset` (built-ins and plugins alike); this map stays for the code
#: and tests that name a built-in package directly.
RULESETS: dict[str, str] = {name: value.partition(":")[0] for name, value in BUILTIN.items()}


def load(path: str | Path) -> Any:
    """Read and validate a scenario file.

    Raises
    ------
    ScenarioError
        If the file is missing, is not TOML, or any key is wrong.
    """
    return from_dict(read_toml(path), source=str(path))


def from_dict(data: dict[str, Any], source: str = "<dict>") -> Any:
    """Validate a scenario given as a dict (the parsed TOML)."""
    from oddslab.libraries import expand_uses  # use = "lib.toml:entry" (issue 14)

    root = Table(expand_uses(data, source), source)
    if not root.has("ruleset"):
        # A misspelt `ruleset` must not fall back to generic and fail on generic's keys.
        typo = root.typo_for("ruleset", of_type=str)
        if typo is not None:
            raise typo
    name = root.str("ruleset", "generic")
    if name not in BUILTIN and name not in _registry.names():
        # plugins are looked for only when the name is not a built-in one (a warm start
        # scans no installed distributions for the scenarios of the six built-in games)
        root.str("ruleset", choices=_registry.names())  # the message with did-you-mean
    try:
        game = _registry.get(name)
    except RulesetError as exc:
        raise root.error("ruleset", str(exc)) from None
    except ModuleNotFoundError:
        raise root.error("ruleset", f"'{name}' is not available in this version") from None
    return game.read(root)


def read_run_options(root: Table, default_name: str) -> dict[str, Any]:
    """The keys every scenario file may have at its top level.

    ``name`` (str), ``description`` (str), ``trials`` (int from 1 to
    :data:`oddslab.engine.MAX_TRIALS`), ``seed`` (int >= 0).
    """
    return {
        "name": root.str("name", default_name),
        "description": root.str("description", ""),
        "trials": root.int("trials", None, min=1, max=MAX_TRIALS, what=TRIALS_WHAT),
        "seed": root.int("seed", None, min=0),
    }
