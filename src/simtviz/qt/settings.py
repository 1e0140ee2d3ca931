"""Settings remembered between runs (QSettings), read defensively: a broken file means defaults."""

from __future__ import annotations

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
        text = path.read_bytes().decode("utf-8")
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


def load_settings(qs: QSettings) -> tuple[AppSettings, str | None]:
    """The saved settings, or the defaults and a warning when the file cannot be read or makes no sense."""
    defaults = AppSettings()
    qs.sync()
    if qs.status() != QSettings.Status.NoError or not _plausible_ini(qs):
        return defaults, f"the settings file {qs.fileName()} is unreadable; using the defaults"
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
        return defaults, f"the settings file {qs.fileName()} holds a bad value ({exc}); using the defaults"
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
