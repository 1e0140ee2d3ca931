"""``simtviz`` without a subcommand: the desktop app."""

from __future__ import annotations

import contextlib
import os
import sys

NO_DISPLAY_MESSAGE = (
    "simtviz: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the desktop app cannot open.\n"
    "Use 'simtviz snapshot --grid 4,3 --block 8,4 --out map.png' to render a map without a window,\n"
    "or set QT_QPA_PLATFORM=offscreen to run the app without showing it."
)
EXIT_NO_DISPLAY = 2


def has_display() -> bool:
    """False on Linux/BSD without X11 or Wayland, unless Qt was told which platform to use."""
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return True
    env = os.environ
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM"))


def run_app(backend_flag: str | None = None) -> int:
    """Open the window and run the event loop; returns the exit status."""
    if not has_display():
        print(NO_DISPLAY_MESSAGE, file=sys.stderr)
        return EXIT_NO_DISPLAY
    # Decide the backend before anything imports numba (it reads NUMBA_ENABLE_CUDASIM once).
    from simtviz.backends.selection import activate, requested_backend, resolve_backend

    kind = resolve_backend(backend_flag)
    activate(kind)

    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from simtviz.qt.gui_gc import collect_on_gui_thread
    from simtviz.qt.session import RunSession

    running = QApplication.instance()
    app = running if isinstance(running, QApplication) else QApplication(sys.argv[:1])
    # The session's worker starts the backend now (numba, CuPy, the CUDA context, the warm-up)
    # while the window's widget modules (pyqtgraph: ~0.8 s) load and the window is built: on a
    # GPU most of the wait for "ready" is the worker's. Qt objects are collected on this thread
    # only, from before any worker thread exists (gui_gc).
    collect_on_gui_thread()
    session = RunSession(backend=requested_backend(backend_flag))

    from simtviz.qt.main_window import create_main_window
    from simtviz.qt.signals import close_on_signals
    from simtviz.resources import ResourceNotFound, resource_path

    app.setApplicationName("simtviz")
    app.setOrganizationName("simtviz")
    app.setDesktopFileName("simtviz")
    with contextlib.suppress(ResourceNotFound):
        app.setWindowIcon(QIcon(str(resource_path("simtviz.svg"))))
    # "auto" was resolved above; the worker creates the backend the window shows.
    # Only the first tab before the first frame: the others once the backend is ready.
    window = create_main_window(requested_backend(backend_flag), session=session, tabs_later=True)
    # Ctrl+C / SIGTERM / a closed terminal: close as the window's close button does.
    close_on_signals(window)
    window.show()
    return int(app.exec())
