"""Settings remembered between runs (QSettings), read defensively: a broken file means defaults.

A file that cannot be used is never overwritten: it is kept beside as ``simtviz.ini.bak`` (the
warning says so) and the app starts from the defaults. A UTF-8 byte-order mark is fine (Qt reads
it); a file saved in Latin-1 by an editor is read as Latin-1 and rewritten in UTF-8, the original
kept as ``.bak``.
"""

from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from simtviz.core.launch import Dim3, LaunchConfig
from simtviz.core.recording import COLOR_FIELDS
from simtviz.core.schema import DEFAULT_COLOR_FIELD
from simtviz.core.window import DEFAULT_BUDGET_THREADS
from simtviz.qt.theme import THEMES

ORGANIZATION = "simtviz"
APPLICATION = "simtviz"
VERSION = 1
# Most threads one run records in the app: 2^22 threads (≈370 MB of records, a 2048 × 2048 map)
# is more than a screen shows and fits a laptop's memory. Larger launches record a window.
APP_BUDGET_THREADS = DEFAULT_BUDGET_THREADS
# A settings file holds a few launches and the Your kernel editor's text (at most 1 MB): one
# larger than this is not ours, and rewriting it on every save would make typing wait.
MAX_SETTINGS_BYTES = 4_000_000


@dataclass
class AppSettings:
    grid: Dim3 = field(default_factory=lambda: Dim3(4, 3, 1))
    block: Dim3 = field(default_factory=lambda: Dim3(8, 4, 1))
    color: str = DEFAULT_COLOR_FIELD
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


def _format_size(n: int) -> str:
    from simtviz.core.files import format_bytes

    return format_bytes(n)


def _link_out_of_folder(qs: QSettings) -> str | None:
    """A settings file that is a link to a file outside its folder is never written through:
    the link is kept aside (its target untouched) and a fresh file of our own takes its place."""
    path = Path(qs.fileName())
    if qs.format() != QSettings.Format.IniFormat or not path.is_symlink():
        return None
    real = Path(os.path.realpath(path))
    if real.parent == Path(os.path.realpath(path.parent)):
        return None  # a link within the folder (a dotfiles manager's rename) is fine
    backup = _backup_name(path)
    try:
        path.rename(backup)
    except OSError:
        return f"the settings file {path} is a link to {real}, outside the settings folder"
    qs.clear()  # nothing read through the link is written back
    qs.sync()
    return (
        f"the settings file {path} is a link to {real}, outside the settings folder; the link is "
        f"kept as {backup} and a new file is written in its place"
    )


def _too_large(qs: QSettings) -> str | None:
    path = Path(qs.fileName())
    try:
        size = path.stat().st_size if path.is_file() else 0
    except OSError:
        return None
    if size <= MAX_SETTINGS_BYTES:
        return None
    backup = _set_aside(qs)
    return (
        f"the settings file {path} is {_format_size(size)}, too large for settings (more than "
        f"{_format_size(MAX_SETTINGS_BYTES)}); using the defaults; it is set aside{_kept(backup)}"
    )


def unwritable(qs: QSettings) -> str | None:
    """Why settings cannot be saved (a folder that cannot be made or written, a failed write),
    or None."""
    if qs.format() != QSettings.Format.IniFormat:
        return None
    path = Path(qs.fileName())
    folder = path.parent
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    reason = None
    if not existing.is_dir():
        reason = f"{existing} is a file, not a folder"
    elif not os.access(existing, os.W_OK | os.X_OK):
        reason = f"{existing} is read-only"
    elif path.exists() and not os.access(path, os.W_OK):
        reason = f"{path} is read-only"
    elif qs.status() == QSettings.Status.AccessError:
        reason = "writing the file failed (a read-only or full disk?)"
    if reason is None:
        return None
    return f"settings cannot be saved in {folder}: {reason}; changes made now are lost when simtviz closes"


def read_number(
    qs: QSettings, key: str, default: float, low: float, high: float, problems: list[str], whole: bool = True
) -> float:
    """The setting ``key`` as a number within [low, high]; otherwise ``default``, and a line in
    ``problems`` that names the key, the value found and the default used."""
    raw = qs.value(key, None)
    if raw is None:
        return default
    text = str(raw).strip()
    try:
        value = float(int(text)) if whole else float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and low <= value <= high):
        shown = text if len(text) <= 24 else text[:21] + "…"
        # Whole numbers in full (2,147,483,647, not 2.14748e+09): the reader compares digits.
        low_s, high_s, default_s = (
            f"{v:,.0f}" if float(v).is_integer() else f"{v:,g}" for v in (low, high, default)
        )
        problems.append(f"{key}={shown} is not a number from {low_s} to {high_s}; using {default_s}")
        return default
    return int(value) if whole else value


def load_settings(qs: QSettings) -> tuple[AppSettings, str | None]:
    """The saved settings, or the defaults and a warning when the file cannot be read or makes no
    sense; a warning too when they cannot be saved (said once, in the window)."""
    notes = [n for n in (_link_out_of_folder(qs), _too_large(qs)) if n]
    settings, warning = _read(qs)
    notes += [n for n in (warning, unwritable(qs)) if n]
    return settings, "; ".join(notes) or None


def _read(qs: QSettings) -> tuple[AppSettings, str | None]:
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
