"""oddslab._install: the `pip install` line for an optional extra fits this installation."""

from __future__ import annotations

from oddslab import _install


def test_a_checkout_is_told_pip_install_editable(monkeypatch, root, tmp_path):
    monkeypatch.chdir(root)
    assert _install.pip_install("dask") == 'pip install -e ".[dask]"'
    monkeypatch.chdir(tmp_path)
    assert _install.pip_install("dask") == f'pip install -e "{root}[dask]"'


def test_a_regular_install_is_told_its_source_or_the_index(monkeypatch, tmp_path):
    monkeypatch.setattr(_install, "_checkout_root", lambda: None)
    monkeypatch.setattr(_install, "_installed_from", lambda: str(tmp_path))
    assert _install.pip_install("dask") == f'pip install "{tmp_path}[dask]"'
    monkeypatch.setattr(_install, "_installed_from", lambda: None)
    assert _install.pip_install("dask") == 'pip install "oddslab[dask]"'
