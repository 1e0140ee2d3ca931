"""A settings file an editor saved differently is read; one that cannot be read is kept (issue 11.7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from simtviz.core.launch import Dim3

VALID = "[launch]\ngrid=5,6,1\nblock=8,4,1\n[files]\nexport_dir=/home/caf\u00e9/maps\n"


def _open(qtbot, path: Path):  # type: ignore[no-untyped-def]
    from simtviz.gui import create_main_window

    w = create_main_window("sim", QSettings(str(path), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    return w


@pytest.mark.parametrize(
    ("name", "content"),
    [("bom", b"\xef\xbb\xbf" + VALID.encode("utf-8")), ("latin1", VALID.encode("latin-1"))],
)
def test_a_byte_order_mark_or_latin1_file_is_read_as_written(
    qtbot, tmp_path: Path, name: str, content: bytes
) -> None:
    path = tmp_path / "simtviz.ini"
    path.write_bytes(content)
    w = _open(qtbot, path)
    assert w.settings_warning is None
    assert w.launchPanel.config().grid == Dim3(5, 6, 1)
    assert w.settings.export_dir == "/home/caf\u00e9/maps"
    w.close()
    if name == "latin1":  # rewritten in UTF-8; the original kept, byte for byte
        assert (tmp_path / "simtviz.ini.bak").read_bytes() == content
    assert "caf\u00e9" in path.read_text(encoding="utf-8-sig")


def test_an_unreadable_file_is_kept_as_bak_and_never_overwritten(qtbot, tmp_path: Path) -> None:
    path = tmp_path / "simtviz.ini"
    garbage = b"\x00\x01 not settings [[[\n"
    path.write_bytes(garbage)
    w = _open(qtbot, path)
    assert f"it is kept as {tmp_path / 'simtviz.ini.bak'}" in w.settings_warning
    w.close()  # saves the settings now in use
    assert (tmp_path / "simtviz.ini.bak").read_bytes() == garbage
    assert "4,3,1" in path.read_text().replace(" ", "")  # a fresh file beside it
    # A second broken file does not replace the first backup.
    path.write_bytes(b"[map]\ncolor=rainbow\n")
    w = _open(qtbot, path)
    assert "simtviz.ini.bak.1" in w.settings_warning
    w.close()
    assert (tmp_path / "simtviz.ini.bak").read_bytes() == garbage
    assert (tmp_path / "simtviz.ini.bak.1").read_bytes() == b"[map]\ncolor=rainbow\n"
