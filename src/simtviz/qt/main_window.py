"""The main window, the shell: the tabs of ``qt.tabs.TABS`` around one ``RunSession``, the menus
(``qt.actions``), the status bar, the theme and font size, the geometry and the settings.

Tabs know the session only; what they ask of the window (show a tab page, a status message)
arrives as the session's intents. The index map's parts stay reachable here (``indexMap``,
``launchPanel``, ``run()``…) for tests and scripts (CONTRACT.md).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QRect, QSettings, QSignalBlocker, QSize, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QGuiApplication, QIcon, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QScrollArea,
    QTabWidget,
    QWidget,
)

from simtviz import __version__
from simtviz.backends.base import Backend
from simtviz.core.errors import Cancelled
from simtviz.core.recording import Recording
from simtviz.qt import dialogs
from simtviz.qt.actions import build_actions, shortcut_text
from simtviz.qt.gui_gc import collect_on_gui_thread
from simtviz.qt.map import IndexMap
from simtviz.qt.session import RunSession
from simtviz.qt.settings import AppSettings, default_qsettings, load_settings, save_settings
from simtviz.qt.tabs import TABS, TabSpec
from simtviz.qt.tabs.index_map.inspector import ThreadInspector
from simtviz.qt.tabs.index_map.launch import LaunchPanel
from simtviz.qt.tabs.index_map.tab import IndexMapTab
from simtviz.qt.tabs.index_map.window import RecordingWindowPanel
from simtviz.qt.window_style import PageStyles
from simtviz.resources import ResourceNotFound, resource_path

log = logging.getLogger(__name__)

PREFERRED_SIZE = QSize(1500, 900)
PENDING_TABS_LATEST_MS = 3000  # tabs_later: built by then even if the backend is still starting
PENDING_TABS_AFTER_RUN_MS = 100  # tabs_later: after a run that came first, once its map is drawn


def fit_to_screen(available: QRect, wanted: QSize = PREFERRED_SIZE) -> QRect:
    """The window's first geometry: ``wanted``, shrunk to the screen's available area and centred
    in it (a 1280 × 720 projector gets a window that fits, title bar and status bar included)."""
    width = min(wanted.width(), available.width())
    height = min(wanted.height(), available.height())
    x = available.x() + (available.width() - width) // 2
    y = available.y() + (available.height() - height) // 2
    return QRect(x, y, width, height)


class MainWindow(QMainWindow):
    def __init__(
        self,
        backend: str = "sim",
        settings: QSettings | None = None,
        parent: QWidget | None = None,
        backend_factory: Callable[[], Backend] | None = None,
        session: RunSession | None = None,
        tabs_later: bool = False,
    ) -> None:
        """``backend_factory`` (a callable returning a Backend) replaces ``backend``: for tests.
        ``session``: one already started (the app starts it before importing the window's
        widgets, so the backend warms up while they load); it becomes the window's child.
        ``tabs_later``: only the first tab is built now, the others once the window is painted
        and the backend ready (``build_pending_tabs``), or when asked for."""
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("simtviz — CUDA thread indexing, recorded")
        with contextlib.suppress(ResourceNotFound):
            self.setWindowIcon(QIcon(str(resource_path("simtviz.svg"))))
        self._qsettings = settings if settings is not None else default_qsettings()
        self.settings, self.settings_warning = load_settings(self._qsettings)
        if self.settings_warning:
            log.warning("%s", self.settings_warning)
        if session is not None:
            session.setParent(self)
            self.session = session
        else:
            self.session = RunSession(backend_factory, self, backend=backend)
        # Tabs read and keep their settings through the session, never through the window.
        self.session.settings, self.session.store = self.settings, self._qsettings

        self._build_widgets(tabs_later)
        self._build_status_bar()
        self.menuActions = build_actions(self)
        self.presentationAction = self.menuActions["presentationAction"]
        self.cancelAction = self.menuActions["cancelAction"]
        self._wire()
        self._apply_settings(self.settings)
        screen = self.screen() or QGuiApplication.primaryScreen()
        available = screen.availableGeometry() if screen is not None else QRect(0, 0, 1500, 900)
        self.setGeometry(fit_to_screen(available))
        if self.settings.geometry is not None:
            self.restoreGeometry(self.settings.geometry)
            # A geometry saved on a larger monitor must not spill off the projector.
            if not available.contains(self.frameGeometry()):
                self.setGeometry(fit_to_screen(available, self.size()))
        if self.settings_warning:
            self.statusBar().showMessage(f"Warning: {self.settings_warning}", 15000)

    # --- layout ----------------------------------------------------------------------------------
    def _build_widgets(self, tabs_later: bool) -> None:
        self._tab_specs: dict[int, TabSpec] = {}  # id(tab widget) → its TabSpec
        # Tabs not built yet (tabs_later): an empty page each, by attribute.
        self._pending: dict[str, tuple[QWidget, TabSpec]] = {}
        self._pending_wait = False  # the first frame painted, waiting for the backend
        self._pending_held = False  # a run in flight: the pending tabs wait for it
        self.tabs = QTabWidget(objectName="mainTabs")
        for tab in TABS:
            if tabs_later and self.tabs.count() > 0:
                empty = QWidget(objectName=f"{tab.attribute}Pending")
                self._pending[tab.attribute] = (empty, tab)
                self.tabs.addTab(empty, tab.title)
                continue
            page = self._make_page(tab)
            if page is not None:
                self.tabs.addTab(page, tab.title)
        self.setCentralWidget(self.tabs)
        self.tabs.currentChanged.connect(self._build_shown_tab)
        self.styles = PageStyles(self, self.tabs, self.settings)  # theme and font size

    def _make_page(self, tab: TabSpec) -> QWidget | None:
        try:
            widget = tab.factory(self.session)
        except Exception:  # a broken tab must not take the others down with it
            log.exception("the %s tab failed to start", tab.title)
            return None
        setattr(self, tab.attribute, widget)
        self._tab_specs[id(widget)] = tab
        if tab.scrolls:
            return widget
        # In a scroll area: a tall tab must not set the window's minimum size (the window
        # has to fit a 1280 × 720 projector whichever tab is open).
        holder = QScrollArea(objectName=f"{tab.attribute}Scroll")
        holder.setWidget(widget)
        holder.setWidgetResizable(True)
        holder.setFrameShape(QScrollArea.Shape.NoFrame)
        return holder

    def __getattr__(self, name: str) -> QWidget:
        # A tab not built yet is built when asked for by its attribute (menus, tests, scripts).
        pending = self.__dict__.get("_pending")
        if pending and name in pending:
            self._build_tab(name)
            return self.__getattribute__(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _build_tab(self, attribute: str) -> None:
        """Put the tab ``attribute`` in place of its empty page, keeping the shown tab. A tab
        built after the backend is ready reads the session's state as it is built."""
        empty, tab = self._pending.pop(attribute)
        index, shown = self.tabs.indexOf(empty), self.tabs.currentIndex()
        page = self._make_page(tab)
        with QSignalBlocker(self.tabs):
            self.tabs.removeTab(index)
            if page is not None:
                self.tabs.insertTab(index, page, tab.title)
                self.tabs.setCurrentIndex(shown)
        empty.deleteLater()
        if page is not None:
            self.styles.style_page(index)
            if shown == index:  # the page the user asked for: shown as any tab switch
                self.tabs.currentChanged.emit(index)

    def _build_shown_tab(self, index: int) -> None:
        attribute = next((a for a, (w, _t) in self._pending.items() if self.tabs.indexOf(w) == index), None)
        if attribute is not None:
            self._build_tab(attribute)

    def build_pending_tabs(self) -> None:
        """Build the tabs not built yet, one per turn of the event loop. A Run pressed before
        they are all built comes first: they wait until the session is idle again (building them
        beside the first run made its map 3x slower to appear, 0.65 s instead of 0.2 s on emu)."""
        if not self._pending or not self.isVisible():  # a closed window builds none
            return
        if self.session.busy:
            if not self._pending_held:
                self._pending_held = True
                self.session.busyChanged.connect(self._resume_pending_tabs)
            return
        self._build_tab(next(iter(self._pending)))
        QTimer.singleShot(0, self, self.build_pending_tabs)

    def _resume_pending_tabs(self, busy: bool) -> None:
        if busy:
            return
        self.session.busyChanged.disconnect(self._resume_pending_tabs)
        self._pending_held = False
        # the result's map is drawn in the turns right after the run: let it paint first
        QTimer.singleShot(PENDING_TABS_AFTER_RUN_MS, self, self.build_pending_tabs)

    def _build_pending_soon(self, *_args: object) -> None:
        QTimer.singleShot(0, self, self.build_pending_tabs)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if (
            event.type() == QEvent.Type.UpdateRequest
            and self.__dict__.get("_pending")
            and not self._pending_wait
        ):
            # Painted once: the other tabs follow when the backend is ready (their imports and
            # widgets would hold the GIL its worker needs to get there), or after 3 s at most.
            self._pending_wait = True
            if self.session.info is not None:
                QTimer.singleShot(0, self, self.build_pending_tabs)
            else:
                once = Qt.ConnectionType.SingleShotConnection
                self.session.backendReady.connect(self._build_pending_soon, once)
                self.session.backendFailed.connect(self._build_pending_soon, once)
                QTimer.singleShot(PENDING_TABS_LATEST_MS, self, self.build_pending_tabs)
        return handled

    def _build_status_bar(self) -> None:
        # Only passing messages live here now, so they get the bar's whole width.
        self.statusBar().setSizeGripEnabled(False)
        # What the backend said about the last run (the emulator handing a kernel to the
        # simulator): kept until the next run, where passing messages cannot hide it.
        self.backendNotice = QLabel()
        self.backendNotice.setObjectName("backendNotice")
        self.backendNotice.setVisible(False)
        self.statusBar().addPermanentWidget(self.backendNotice)

    # --- wiring ----------------------------------------------------------------------------------
    def _wire(self) -> None:
        s, status = self.session, self.statusBar()
        index_map = self._index_map()
        if index_map is not None:
            index_map.indexMap.tiledCheck.toggled.connect(self.menuActions["tiledAction"].setChecked)
        s.backendFailed.connect(self._on_backend_failed)
        s.noticeArrived.connect(self.show_notice)
        s.runStarted.connect(lambda *_: self.show_notice(""))
        self._busy_messages: set[str] = set()
        s.busyChanged.connect(self._on_busy)
        dialogs.ask_when_too_long(self, s)
        s.fetchFailed.connect(
            lambda exc, _tb: status.showMessage(f"Could not read the record from the GPU: {exc}", 10000)
        )
        s.exportFinished.connect(lambda written: status.showMessage(f"Saved {written}", 8000))
        s.exportFailed.connect(self._on_export_failed)
        s.openFailed.connect(lambda path, exc: dialogs.open_failed(self, path, exc))
        # The tabs' intents that the window answers: show a tab page, a status-bar message.
        s.showRequested.connect(self.show_tab_of)
        s.statusRequested.connect(self._on_status_requested)

    def _index_map(self) -> IndexMapTab | None:
        tab = getattr(self, "indexMapTab", None)
        return tab if isinstance(tab, IndexMapTab) else None

    def _apply_settings(self, s: AppSettings) -> None:
        index_map = self._index_map()
        if index_map is not None:
            index_map.apply_settings(s)
            # The map sets its tiled box with its signals blocked: the menu's check follows here.
            self.menuActions["tiledAction"].setChecked(s.tiled)
        self.set_theme(s.theme)
        self.presentationAction.setChecked(s.presentation)
        self.set_presentation(s.presentation)

    def _current_settings(self) -> AppSettings:
        s = self.settings
        index_map = self._index_map()
        if index_map is not None:
            index_map.store_settings(s)
        s.geometry = self.saveGeometry()
        return s

    # --- tabs --------------------------------------------------------------------------------------
    def show_tab_of(self, widget: QWidget) -> bool:
        """Bring forward the tab page that holds ``widget`` (the ``show`` intent); False when it
        is in no tab."""
        w: QWidget | None = widget
        while w is not None:
            if self.tabs.indexOf(w) >= 0:
                self.tabs.setCurrentWidget(w)
                return True
            w = w.parentWidget()
        return False

    def _on_status_requested(self, text: str, ms: int) -> None:
        if ms == 0:
            self._say_busy(text)
        else:
            self.statusBar().showMessage(text, ms)

    # The index map's parts and methods, where tests and scripts reach them (CONTRACT.md).
    @property
    def indexMap(self) -> IndexMap:
        return self._require_index_map().indexMap

    @property
    def inspector(self) -> ThreadInspector:
        return self._require_index_map().inspector

    @property
    def launchPanel(self) -> LaunchPanel:
        return self._require_index_map().launchPanel

    @property
    def windowPanel(self) -> RecordingWindowPanel:
        return self._require_index_map().windowPanel

    @property
    def backendLabel(self) -> QLabel:
        return self._require_index_map().backendLabel

    def _require_index_map(self) -> IndexMapTab:
        tab = self._index_map()
        if tab is None:
            raise AttributeError("the index map tab did not start")
        return tab

    def set_budget_threads(self, threads: int) -> None:
        """Most threads one run records (the ``record/budget_threads`` setting)."""
        self._require_index_map().set_budget_threads(threads)

    # --- the backend -------------------------------------------------------------------------------
    def show_notice(self, line: str) -> None:
        """One line from the backend about the run (empty: none), in the status bar until the next."""
        self.backendNotice.setText(line)
        self.backendNotice.setToolTip(line)
        self.backendNotice.setVisible(bool(line))

    def _on_backend_failed(self, exc: BaseException, tb: str) -> None:
        """No backend (e.g. ``--backend gpu`` without a driver): say so and offer the simulator."""
        dialogs.backend_unavailable(self, exc, tb, self.use_simulator)

    def use_simulator(self) -> None:
        """Start the CUDA simulator in place of the backend that failed."""
        index_map = self._index_map()
        if index_map is not None:
            index_map.backendLabel.setText("Starting the CPU simulator…")
        self.session.use_simulator()

    # --- running -----------------------------------------------------------------------------------
    @property
    def recording(self) -> Recording | None:
        return self.session.recording

    @property
    def busy(self) -> bool:
        return self.session.busy

    def run(self, force: bool = False) -> None:
        """Launch the configuration in the launch panel (asynchronously; the map updates when done)."""
        self._require_index_map().run(force)

    def _on_export_failed(self, exc: BaseException) -> None:
        if isinstance(exc, Cancelled):
            self.statusBar().showMessage("Export cancelled: no file was written.", 8000)
        else:
            dialogs.export_failed(self, exc)

    def cancel(self) -> None:
        if self.session.cancel():
            self._say_busy("Cancelling…")

    def _shown_tab(self) -> tuple[QWidget | None, TabSpec | None]:
        page = self.tabs.currentWidget()
        widget = page.widget() if isinstance(page, QScrollArea) else page
        return widget, self._tab_specs.get(id(widget))

    def run_shown_tab(self) -> None:
        """Ctrl+R / F5: the shown tab's primary action (Index map: Run; Your kernel: Run traced;
        Lesson: Try it)."""
        widget, spec = self._shown_tab()
        if spec is not None and spec.run is not None:
            spec.run(widget)

    def cancel_shown_tab(self) -> None:
        """Esc: cancel what the shown tab runs (a trace) and the session's run, if any."""
        widget, spec = self._shown_tab()
        if spec is not None and spec.cancel is not None:
            spec.cancel(widget)
        self.cancel()

    def open_record(self, path: str | Path | None = None) -> bool:
        """File → Open record: a saved .npz shown as when it was recorded; with ``path`` no
        dialog is shown (tests, scripts). False when nothing was opened."""
        if path is None:
            start = Path(self.settings.export_dir or Path.home())
            path = dialogs.ask_open_path(self, "Open a record", start, "simtviz records (*.npz)")
            if path is None:
                return False
        if not self.session.open_record(Path(path)):
            self.statusBar().showMessage("Busy: open the record when the run has finished.", 5000)
            return False
        self._say_busy(f"Opening {Path(path).name} …")
        return True

    def _on_busy(self, busy: bool) -> None:
        """A run or export ended (result, error, cancel or a No to "Run it anyway?"): its
        "Running …" line must not stay behind as if it were still going."""
        if not busy and self.statusBar().currentMessage() in self._busy_messages:
            self.statusBar().clearMessage()
        if not busy:
            self._busy_messages.clear()

    def _say_busy(self, text: str) -> None:
        self._busy_messages.add(text)
        self.statusBar().showMessage(text)

    # --- view --------------------------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # The frame (title bar, borders) is known once shown: keep all of it on the screen.
        screen = self.screen()
        if screen is not None and not self.isFullScreen():
            available, frame = screen.availableGeometry(), self.frameGeometry()
            if not available.contains(frame):
                extra = QSize(frame.width() - self.width(), frame.height() - self.height())
                inner = fit_to_screen(available, available.size() - extra)
                self.resize(inner.size().boundedTo(self.size()))
                self.move(available.topLeft())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        index_map = self._index_map()
        if index_map is not None:
            index_map.arrange()

    def is_narrow(self) -> bool:
        """True when the inspector sits under the map (a narrow window for its font size)."""
        return self._require_index_map().is_narrow()

    def font_rule(self) -> str:
        """The style rule that sets this mode's font size (dialogs take it too)."""
        return self.styles.font_rule()

    def set_theme(self, name: str) -> None:
        self.settings.theme = name
        self.menuActions[f"{name}ThemeAction"].setChecked(True)
        self.styles.restyle()

    def set_presentation(self, on: bool) -> None:
        self.settings.presentation = bool(on)
        self.styles.restyle()
        self.session.set_presentation(bool(on))  # tabs that size their own text follow

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()

    def fit_map(self) -> None:
        self._require_index_map().indexMap.fit()

    def set_tiled(self, tiled: bool) -> None:
        self._require_index_map().indexMap.set_tiled(tiled)

    def show_shortcuts(self) -> None:
        dialogs.information(self, "Keyboard shortcuts", shortcut_text(), "shortcutsDialog")

    def show_about(self) -> None:
        dialogs.information(
            self,
            "About simtviz",
            f"simtviz {__version__}: launch an instrumented CUDA kernel and see what every thread recorded.",
            "aboutDialog",
        )

    # --- export ------------------------------------------------------------------------------------
    def export_map_png(self, path: str | Path | None = None) -> Path | None:
        """File → Export map as PNG; with ``path`` no dialog is shown (tests, scripts)."""
        return self._require_index_map().export_map_png(path)

    def export_records(self, path: str | Path | None = None, fmt: str | None = None) -> Path | None:
        """File → Export records as NPZ or CSV (the index map tab's records)."""
        return self._require_index_map().export_records(path, fmt)

    # --- closing -----------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        try:
            save_settings(self._qsettings, self._current_settings())
        except Exception:  # never keep a window open because its settings could not be written
            log.exception("could not save the settings")
        self.session.close(1.5)
        self.styles.restore_app_font()
        super().closeEvent(event)


def create_main_window(
    backend: str = "sim",
    settings: QSettings | None = None,
    session: RunSession | None = None,
    tabs_later: bool = False,
) -> MainWindow:
    """The main window, not shown yet. A QApplication must exist (docs/CONTRACT.md)."""
    # The window's worker threads must never run the cyclic collector over Qt objects (gui_gc).
    collect_on_gui_thread()
    return MainWindow(backend, settings, session=session, tabs_later=tabs_later)
