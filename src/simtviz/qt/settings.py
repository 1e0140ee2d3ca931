"""Settings remembered between runs (QSettings), read defensively: a broken file means defaults.

A file that cannot be used is never overwritten: it is kept beside as ``simtviz.ini.bak`` (the
warning says so) and the app starts from the defaults. A UTF-8 byte-order mark is fine (Qt reads
it); a file saved in Latin-1 by an editor is read as Latin-1 and rewritten in UTF-8, the original
kept as ``.bak``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from simtviz.core.launch import Dim3, LaunchConfig
from simtviz.core.recording import COLOR_FIELDS
from simtviz.core.window import DEFAULT_BUDGET_THREADS
from simtviz.qt.theme import THEMES

ORGANIZATION = "simtviz"
APPLICATION = "simtviz"
VERSION = 1
# Most threads one run records in the app: 2^22 threads (≈370 MB of records, a 2048 × 2048 map)
# is more than a screen shows and fits a laptop's memory. Larger launches record a window.
APP_BUDGET_THREADS = DEFAULT_BUDGET_THREADS


@dataclass
class AppSettings:
    grid: Dim3 = field(default_factory=lambda: Dim3(4, 3, 1))
    block: Dim3 = field(default_factory=lambda: Dim3(8, 4, 1))
    color: str = "global linear index"
    theme: str = "light"
    presentation: bool = False
    tiled: bool = False
    export_dir: str = ""
    budget_threads: int = APP_BUDGET_THREADS
    geometry: QByteArray | None = None

    @property
    def config(self) -> LaunchConfig:
        return LaunchConfig(self.grid, self.block)


def default_qsettings() -> QSettings:
    """The user's settings file (an INI file, the same format on every platform)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)


def _bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no", ""):
        return False
    raise ValueError(f"{value!r} is not true or false")


def _dim(value: object) -> Dim3:
    if isinstance(value, list | tuple):
        value = ",".join(str(v) for v in value)
    return Dim3.parse(str(value))


def _plausible_ini(qs: QSettings) -> bool:
    """False for an INI file that is not text of sections and ``key=value`` lines.

    Qt's INI reader skips what it cannot parse without reporting it, so a file overwritten with
    garbage would silently read as empty; checking the text lets the user be told.
    """
    if qs.format() != QSettings.Format.IniFormat:
        return True
    path = Path(qs.fileName())
    if not path.is_file():
        return True
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return False
    if "\x00" in text:
        return False
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in ";#" or "=" in line:
            continue
        if not (line.startswith("[") and line.endswith("]") and "[" not in line[1:-1]):
            return False
    return True


def _backup_name(path: Path) -> Path:
    """``simtviz.ini.bak``, or ``.bak.1``, ``.bak.2`` … when an older backup is there."""
    candidate = path.with_name(path.name + ".bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak.{n}")
        n += 1
    return candidate


def _set_aside(qs: QSettings) -> Path | None:
    """Move the settings file to a backup so that saving on close cannot overwrite it."""
    path = Path(qs.fileName())
    if qs.format() != QSettings.Format.IniFormat or not path.is_file():
        return None
    backup = _backup_name(path)
    try:
        path.rename(backup)
    except OSError:
        return None
    qs.clear()  # what Qt read of the broken file is not written back either
    qs.sync()
    return backup


def _recode_latin1(qs: QSettings) -> Path | None:
    """A file that is not UTF-8 but reads as Latin-1 (an old editor's): rewrite it in UTF-8."""
    path = Path(qs.fileName())
    if qs.format() != QSettings.Format.IniFormat or not path.is_file():
        return None
    try:
        data = path.read_bytes()
        data.decode("utf-8-sig")
        return None
    except UnicodeDecodeError:
        pass
    except OSError:
        return None
    text = data.decode("latin-1")
    if "\x00" in text:
        return None
    backup = _backup_name(path)
    try:
        shutil.copy2(path, backup)
        path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    qs.sync()  # Qt sees the file changed and reads it again
    return backup


def _kept(backup: Path | None) -> str:
    return f"; it is kept as {backup}" if backup is not None else ""


def load_settings(qs: QSettings) -> tuple[AppSettings, str | None]:
    """The saved settings, or the defaults and a warning when the file cannot be read or makes no sense."""
    defaults = AppSettings()
    _recode_latin1(qs)
    qs.sync()
    if qs.status() != QSettings.Status.NoError or not _plausible_ini(qs):
        name = qs.fileName()
        return defaults, f"the settings file {name} is unreadable; using the defaults{_kept(_set_aside(qs))}"
    try:
        settings = AppSettings(
            grid=_dim(qs.value("launch/grid", "4,3,1")),
            block=_dim(qs.value("launch/block", "8,4,1")),
            color=str(qs.value("map/color", defaults.color)),
            theme=str(qs.value("view/theme", defaults.theme)),
            presentation=_bool(qs.value("view/presentation", False)),
            tiled=_bool(qs.value("map/tiled", False)),
            export_dir=str(qs.value("files/export_dir", "")),
            budget_threads=int(str(qs.value("record/budget_threads", APP_BUDGET_THREADS))),
        )
        if settings.budget_threads < 1:
            raise ValueError(f"a recording budget of {settings.budget_threads} threads")
        if settings.color not in COLOR_FIELDS:
            raise ValueError(f"unknown colour field {settings.color!r}")
        if settings.theme not in THEMES:
            raise ValueError(f"unknown theme {settings.theme!r}")
        geometry = qs.value("window/geometry")
        settings.geometry = geometry if isinstance(geometry, QByteArray) else None
    except (ValueError, TypeError) as exc:
        name = qs.fileName()
        backup = _set_aside(qs)
        return (
            defaults,
            f"the settings file {name} holds a bad value ({exc}); using the defaults{_kept(backup)}",
        )
    return settings, None


def save_settings(qs: QSettings, settings: AppSettings) -> None:
    qs.setValue("version", VERSION)
    qs.setValue("launch/grid", ",".join(map(str, settings.grid.as_tuple())))
    qs.setValue("launch/block", ",".join(map(str, settings.block.as_tuple())))
    qs.setValue("map/color", settings.color)
    qs.setValue("map/tiled", settings.tiled)
    qs.setValue("view/theme", settings.theme)
    qs.setValue("view/presentation", settings.presentation)
    qs.setValue("files/export_dir", settings.export_dir)
    qs.setValue("record/budget_threads", settings.budget_threads)
    if settings.geometry is not None:
        qs.setValue("window/geometry", settings.geometry)
    qs.sync()
