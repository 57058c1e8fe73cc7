"""Command-line commands about the rulesets themselves: ``oddslab rulesets``, ``oddslab schema``.

:func:`register` adds them to the ``oddslab`` typer app. They reach games only through the
ruleset protocol (:mod:`oddslab.ruleset`), so plugins are listed and described like the
built-in games.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from oddslab.cli_common import fail as _fail

__all__ = ["register"]


def _game(name: str):
    from oddslab import ruleset

    try:
        return ruleset.get(name)
    except ruleset.RulesetError as exc:
        raise _fail(str(exc)) from None


def rulesets() -> None:
    """List the rulesets: the built-in games and every installed plugin."""
    from oddslab import ruleset

    for name, where in ruleset.available().items():
        kind = "built-in" if name in ruleset.BUILTIN else f"plugin ({where})"
        try:
            title = ruleset.get(name).title
        except ruleset.RulesetError as exc:
            title = f"does not load: {exc}"
        typer.echo(f"{name:<18} {title}  [{kind}]")


def schema(
    name: Annotated[str, typer.Argument(metavar="RULESET", help="A ruleset's name.")],
    markdown: Annotated[
        bool, typer.Option("--markdown", help="The docs' key table instead of JSON Schema.")
    ] = False,
) -> None:
    """Print the JSON Schema (draft 2020-12) of a ruleset's scenario files, for editors.

    Save it beside your scenarios and name it on a file's first line (``#:schema
    ./NAME.schema.json``): Taplo and the Even Better TOML editor extension then complete and
    check the keys as you type.
    """
    game = _game(name)
    if markdown:
        declared = getattr(game, "keys", None)
        if declared is None:
            raise _fail(_undeclared(name))
        typer.echo(declared.markdown())
        return
    doc = game.schema()
    if doc is None:
        raise _fail(_undeclared(name))
    typer.echo(json.dumps(doc, indent=2))


def _undeclared(name: str) -> str:
    return (
        f"ruleset '{name}' does not declare its keys through oddslab.keys yet, so it has no "
        "JSON Schema; its keys are documented in its page and in docs/scenario-format.md"
    )


def register(app: typer.Typer) -> None:
    """Add ``rulesets`` and ``schema`` to the ``oddslab`` app."""
    app.command(name="rulesets")(rulesets)
    app.command(name="schema")(schema)
