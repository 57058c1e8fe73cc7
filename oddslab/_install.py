"""The ``pip install`` command that adds an optional extra to *this* installation.

A checkout (an editable install, or the source folder on ``sys.path``) needs
``pip install -e ".[dask]"`` run in that folder; a regular install from a folder or wheel
on disk needs that folder; an install from a package index needs ``"oddslab[dask]"``.
Telling a checkout user ``pip install "oddslab[dask]"`` would fetch another copy.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["pip_install"]


def _checkout_root() -> Path | None:
    """The source folder this ``oddslab`` was imported from, when it is a checkout."""
    root = Path(__file__).resolve().parent.parent
    return root if (root / "pyproject.toml").is_file() else None


def _installed_from() -> str | None:
    """The local folder a regular install was made from (pip's ``direct_url.json``)."""
    try:
        from importlib.metadata import distribution

        raw = distribution("oddslab").read_text("direct_url.json")
        url = json.loads(raw or "{}").get("url", "")
    except Exception:  # noqa: BLE001 - no metadata: assume an index install
        return None
    return url[len("file://") :] if url.startswith("file://") else None


def pip_install(extra: str) -> str:
    """``pip install ...`` for the optional dependency group ``extra`` (e.g. ``"dask"``)."""
    root = _checkout_root()
    if root is not None:
        here = Path.cwd().resolve() == root
        return f'pip install -e "{"." if here else root}[{extra}]"'
    folder = _installed_from()
    if folder and Path(folder).is_dir():
        return f'pip install "{folder}[{extra}]"'
    return f'pip install "oddslab[{extra}]"'
