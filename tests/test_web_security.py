"""oddslab.web.security: which Host headers a server answers, which library paths it reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from oddslab.web.security import PathRefused, Settings, host_allowed, safe_library_file


@pytest.mark.parametrize(
    "host, header, ok",
    [
        ("127.0.0.1", "127.0.0.1:8000", True),
        ("127.0.0.1", "localhost:8000", True),
        ("127.0.0.1", "[::1]:8000", True),
        ("127.0.0.1", "attacker.example:8000", False),  # DNS rebinding
        ("127.0.0.1", "192.168.1.5:8000", False),
        ("127.0.0.1", "", False),
        ("0.0.0.0", "192.168.1.5:8000", True),  # a LAN address typed as digits
        ("0.0.0.0", "attacker.example", False),
        ("0.0.0.0", "club-pc.lan:8000", False),
    ],
)
def test_host_header(host, header, ok):
    assert host_allowed(header, Settings(host=host)) is ok


def test_allow_host_names_a_lan_name():
    assert host_allowed("club-pc.lan:8000", Settings(host="0.0.0.0", allow_hosts=("club-pc.lan",)))


def test_library_paths(tmp_path):
    root = tmp_path / "libs"
    (root / "sub").mkdir(parents=True)
    (root / "a.toml").write_text("")
    (root / "sub" / "b.toml").write_text("")
    (tmp_path / "outside.toml").write_text("")
    (root / "link.toml").symlink_to(tmp_path / "outside.toml")
    assert safe_library_file("a.toml", [root]) == (root / "a.toml").resolve()
    assert safe_library_file("sub/b.toml", [root]) == (root / "sub" / "b.toml").resolve()
    for bad, why in [
        ("../outside.toml", "'..'"),
        ("sub/../../outside.toml", "'..'"),
        (str(tmp_path / "outside.toml"), "absolute"),
        ("~/x.toml", "absolute"),
        ("C:\\x.toml", "absolute"),
        ("link.toml", "outside"),
        ("a.txt", ".toml"),
        ("missing.toml", "no such library"),
    ]:
        with pytest.raises(PathRefused, match=why):
            safe_library_file(bad, [root])
    assert isinstance(safe_library_file("a.toml", [Path("/nonexistent"), root]), Path)
