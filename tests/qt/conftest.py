"""Fixtures for the desktop app: offscreen Qt, the simulator, settings in a temporary folder."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("SIMTVIZ_BACKEND", "sim")

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QSettings
from qt_helpers import RUN_TIMEOUT_MS, press_run, set_launch

from simtviz.core.launch import LaunchConfig


@pytest.fixture(autouse=True)
def _collect_on_gui_thread(qapp) -> None:
    """As in the app: Qt objects a test leaves in cycles are freed on the GUI thread only, never
    by a worker or simulated thread that trips the collector (simtviz.qt.gui_gc)."""
    from simtviz.qt.gui_gc import collect_on_gui_thread

    collect_on_gui_thread()


@pytest.fixture(autouse=True)
def _application_font(qapp) -> Iterator[None]:
    """Each test starts with the application's own font: a window left in presentation mode by
    an earlier test (not closed, so its font never restored) must not widen the next one."""
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QApplication

    font = QFont(QApplication.font())
    yield
    QApplication.setFont(font)


@pytest.fixture(autouse=True)
def _signal_handlers_restored() -> Iterator[None]:
    """Each test ends with the signal handlers it started with: a window left open by a test
    (never closed, so its Ctrl+C handler never uninstalled: simtviz.qt.signals) must not swallow
    the next test's Ctrl+C."""
    import signal

    names = ("SIGINT", "SIGTERM", "SIGHUP")
    saved = {s: signal.getsignal(s) for s in (getattr(signal, n) for n in names if hasattr(signal, n))}
    wakeup = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(wakeup)
    yield
    for signo, handler in saved.items():
        signal.signal(signo, handler if handler is not None else signal.SIG_DFL)
    try:
        signal.set_wakeup_fd(wakeup)
    except (ValueError, OSError):  # that file was closed meanwhile
        signal.set_wakeup_fd(-1)


@pytest.fixture(autouse=True)
def _no_process_started_ahead(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app starts processes ahead of Run: the simulator's child as the window opens, and a
    shown Your kernel or Exercises tab its next run's child (numba's import, the GPU-compile
    checker: 0.6 to 2.7 s of CPU each, most never used by a test). Off here, so each is started
    by the Run that needs it; tests marked ``prewarm`` keep them (docs/TESTING.md)."""
    if request.node.get_closest_marker("prewarm") is None:
        monkeypatch.setattr("simtviz.backends.isolated.prewarm", lambda kind, experiment: None)
        monkeypatch.setattr("simtviz.backends.sim_process.SimProcessBackend.warm_up", lambda self: None)


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Never read or write the user's real settings file from a test."""
    folder = tmp_path_factory.mktemp("qsettings")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))


@pytest.fixture
def settings_file(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "simtviz.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(request: pytest.FixtureRequest, qtbot, settings_file) -> Iterator:
    """The main window on the CPU emulator, the app's own backend without a GPU (in-process: no
    child to start, ~1 s of CPU less per test than numba's simulator). A test about the
    simulator's own behaviour (its words, its slow runs to cancel, its way with races) asks for
    it: ``@pytest.mark.window_backend("sim")``."""
    from simtviz.gui import create_main_window

    marker = request.node.get_closest_marker("window_backend")
    w = create_main_window(backend=marker.args[0] if marker else "emu", settings=settings_file)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.session.backend is not None, timeout=RUN_TIMEOUT_MS)
    yield w
    w.close()


def run_and_wait(qtbot, w, grid: tuple[int, int, int], block: tuple[int, int, int]):
    """Set the launch, press Run and wait until the map shows that launch."""
    set_launch(w, grid, block)
    expected = LaunchConfig.of(grid, block)
    press_run(qtbot, w)
    qtbot.waitUntil(
        lambda: w.recording is not None and w.recording.config == expected and not w.busy,
        timeout=RUN_TIMEOUT_MS,
    )
    return w.recording


@pytest.fixture
def run_launch(qtbot, window):
    """``run_launch(grid, block)``: set the launch in ``window``, press Run, wait for the map."""
    return lambda grid, block: run_and_wait(qtbot, window, grid, block)
