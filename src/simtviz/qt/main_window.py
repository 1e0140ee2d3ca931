"""The main window: the panels laid out and wired to one ``RunSession``, menus, and a status bar.

The session runs things and holds the recording; panels subscribe to it; dialogs come from
``simtviz.qt.dialogs`` and menus from ``simtviz.qt.actions``. What is left here is layout,
wiring, the view settings and the status bar.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QRect, QSettings, QSize, Qt
from PySide6.QtGui import QCloseEvent, QGuiApplication, QIcon, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from simtviz import __version__
from simtviz.backends.base import Backend, BackendInfo
from simtviz.core.errors import Cancelled
from simtviz.core.estimates import format_duration
from simtviz.core.files import ExportError
from simtviz.core.recording import Recording
from simtviz.core.run_timings import kernel_time_words
from simtviz.qt import dialogs
from simtviz.qt.actions import build_actions, shortcut_text
from simtviz.qt.gui_gc import collect_on_gui_thread
from simtviz.qt.map import Cell, IndexMap
from simtviz.qt.session import EXPORT, RECORD, RecordRequest, RunSession
from simtviz.qt.settings import AppSettings, default_qsettings, load_settings, save_settings
from simtviz.qt.tabs import TABS
from simtviz.qt.tabs.index_map.inspector import ThreadInspector
from simtviz.qt.tabs.index_map.launch import LaunchPanel
from simtviz.qt.tabs.index_map.window import RecordingWindowPanel
from simtviz.qt.theme import point_size
from simtviz.qt.widgets.progress import ProgressPanel
from simtviz.qt.window_style import StyledPages
from simtviz.resources import ResourceNotFound, resource_path

log = logging.getLogger(__name__)

PREFERRED_SIZE = QSize(1500, 900)
# Below this width per point of font size the inspector goes under the map (1280 px at 20 pt is
# narrow: beside the map it would leave the map ~300 px; under it the map keeps the width).
NARROW_PX_PER_PT = 80
# The backend badge over the map, per kind (a GPU shows its name instead).
BADGES = {"sim": "CUDA simulator", "emu": "CPU emulator"}  # the tooltip: "(lockstep, NumPy)"


def fit_to_screen(available: QRect, wanted: QSize = PREFERRED_SIZE) -> QRect:
    """The window's first geometry: ``wanted``, shrunk to the screen's available area and centred
    in it (a 1280 × 720 projector gets a window that fits, title bar and status bar included)."""
    width = min(wanted.width(), available.width())
    height = min(wanted.height(), available.height())
    x = available.x() + (available.width() - width) // 2
    y = available.y() + (available.height() - height) // 2
    return QRect(x, y, width, height)


class MainWindow(StyledPages, QMainWindow):
    def __init__(
        self,
        backend: str = "sim",
        settings: QSettings | None = None,
        parent: QWidget | None = None,
        backend_factory: Callable[[], Backend] | None = None,
    ) -> None:
        """``backend_factory`` (a callable returning a Backend) replaces ``backend``: for tests."""
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("simtviz — CUDA thread indexing, recorded")
        with contextlib.suppress(ResourceNotFound):
            self.setWindowIcon(QIcon(str(resource_path("simtviz.svg"))))
        self._qsettings = settings if settings is not None else default_qsettings()
        self.settings, self.settings_warning = load_settings(self._qsettings)
        if self.settings_warning:
            log.warning("%s", self.settings_warning)
        self.session = RunSession(backend_factory, self, backend=backend)

        self._build_widgets()
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
    def _build_widgets(self) -> None:
        session = self.session
        self.launchPanel = LaunchPanel(session)
        self.windowPanel = RecordingWindowPanel(self.settings.budget_threads)
        left = QWidget(objectName="leftColumn")
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.launchPanel, stretch=1)
        left_layout.addWidget(self.windowPanel)
        scroll = QScrollArea(objectName="launchScroll")
        scroll.setWidget(left)
        scroll.setWidgetResizable(True)
        # No minimum width: on a projector the panel may be narrowed or collapsed (drag the
        # splitter handle, or View → Launch panel) so that the map gets the room.
        scroll.setMinimumWidth(0)
        # Contents follow the panel's width (labels wrap) instead of scrolling sideways, where
        # the z column of the spin boxes used to end up out of view.
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.indexMap = IndexMap(session)
        # Which backend ran sits over the map, where the eye is (the map's title and exported
        # PNGs also name it): a status-bar corner is cut off or missed on a projector.
        self.backendLabel = QLabel("Starting the backend…", objectName="backendLabel")
        self.indexMap.set_badge(self.backendLabel)
        self.progressPanel = ProgressPanel(session, RECORD, self._describe_run)
        self.exportProgress = ProgressPanel(
            session, EXPORT, self._describe_export, name="exportProgress", cancel_name="exportCancelButton"
        )
        centre = QWidget(objectName="mapColumn")
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(0, 0, 0, 0)
        # Over the map, in words, when only part of the launch recorded.
        self.windowMessage = QLabel(objectName="windowMessage", wordWrap=True)
        self.windowMessage.setStyleSheet("padding: 4px; font-weight: bold;")
        self.windowMessage.setVisible(False)
        centre_layout.addWidget(self.windowMessage)
        centre_layout.addWidget(self.indexMap, stretch=1)
        # The last run's summary under the map (its full text in the tooltip): in the status bar
        # it pushed the messages off the screen's edge.
        summary = QHBoxLayout()
        self.lastRunLabel = QLabel("No run yet", objectName="lastRunLabel")
        self.lastRunLabel.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.verificationLabel = QLabel("", objectName="verificationLabel")  # short: shown whole
        summary.addWidget(self.lastRunLabel, stretch=1)
        summary.addWidget(self.verificationLabel)
        centre_layout.addLayout(summary)
        centre_layout.addWidget(self.progressPanel)
        centre_layout.addWidget(self.exportProgress)

        self.inspector = ThreadInspector(session)
        self.inspector.setMinimumWidth(0)

        # [launch | [map | inspector]]; the inner splitter turns vertical (inspector below the
        # map) when the window is narrow for its font size (see _arrange).
        inner = QSplitter(Qt.Orientation.Horizontal, objectName="mapInspectorSplitter")
        inner.addWidget(centre)
        inner.addWidget(self.inspector)
        inner.setStretchFactor(0, 1)
        inner.setStretchFactor(1, 0)
        inner.setCollapsible(0, False)
        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="mapSplitter")
        splitter.addWidget(scroll)
        splitter.addWidget(inner)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setCollapsible(1, False)
        self._launchScroll, self._mapSplitter, self._innerSplitter = scroll, splitter, inner
        self._narrow: bool | None = None

        self._tab_specs: dict[int, object] = {}  # id(tab widget) → its TabSpec
        self.tabs = QTabWidget(objectName="mainTabs")
        self.tabs.addTab(splitter, "Index map")
        for tab in TABS:
            try:
                widget = tab.build(session, self)
            except Exception:  # a broken panel must not take the index map down with it
                log.exception("the %s tab failed to start", tab.title)
                continue
            setattr(self, tab.attribute, widget)
            self._tab_specs[id(widget)] = tab
            if tab.scrolls:
                self.tabs.addTab(widget, tab.title)
                continue
            # In a scroll area: a tall tab must not set the window's minimum size (the window
            # has to fit a 1280 × 720 projector whichever tab is open).
            holder = QScrollArea(objectName=f"{tab.attribute}Scroll")
            holder.setWidget(widget)
            holder.setWidgetResizable(True)
            holder.setFrameShape(QScrollArea.Shape.NoFrame)
            self.tabs.addTab(holder, tab.title)
        self.setCentralWidget(self.tabs)
        self._init_styles()

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
        self.launchPanel.runRequested.connect(self.run)
        # A new launch records from its start again; the origin belongs to the launch it was set for.
        self.launchPanel.configChanged.connect(lambda _config: self.windowPanel.reset())
        self.windowPanel.moveRequested.connect(lambda _origin: self.run())
        self.windowPanel.budgetChanged.connect(
            lambda threads: setattr(self.settings, "budget_threads", threads)
        )
        self.indexMap.threadPinned.connect(
            lambda cell: self.inspector.show_cell(cell, self.indexMap.row_of(cell))
        )
        self.indexMap.cellHovered.connect(self._on_hovered)
        self.inspector.goToRequested.connect(self.indexMap.pin)
        self.indexMap.planeChanged.connect(lambda _z: self.inspector.clear())
        self.indexMap.tiledCheck.toggled.connect(self.menuActions["tiledAction"].setChecked)
        s.backendReady.connect(self._on_backend_ready)
        s.backendFailed.connect(self._on_backend_failed)
        s.noticeArrived.connect(self.show_notice)
        s.runStarted.connect(lambda *_: self.show_notice(""))
        self._busy_messages: set[str] = set()
        s.busyChanged.connect(self._on_busy)
        s.recordingChanged.connect(self._on_recorded)
        s.runFailed.connect(self._on_run_failed)
        s.fetchFailed.connect(
            lambda exc, _tb: status.showMessage(f"Could not read the record from the GPU: {exc}", 10000)
        )
        s.exportFinished.connect(lambda written: status.showMessage(f"Saved {written}", 8000))
        s.exportFailed.connect(self._on_export_failed)
        s.openFailed.connect(lambda path, exc: dialogs.open_failed(self, path, exc))

    def _apply_settings(self, s: AppSettings) -> None:
        self.launchPanel.set_config(s.config)
        self.indexMap.set_color_field(s.color)
        self.indexMap.set_tiled(s.tiled)
        self.set_theme(s.theme)
        self.presentationAction.setChecked(s.presentation)
        self.set_presentation(s.presentation)

    def _current_settings(self) -> AppSettings:
        config = self.launchPanel.config()
        s = self.settings
        s.grid, s.block = config.grid, config.block
        s.color = self.indexMap.color_field()
        s.tiled = self.indexMap.tiledCheck.isChecked()
        s.geometry = self.saveGeometry()
        s.budget_threads = self.windowPanel.budget()
        return s

    def set_budget_threads(self, threads: int) -> None:
        """Most threads one run records (the ``record/budget_threads`` setting)."""
        self.windowPanel.set_budget(threads)

    # --- the backend -------------------------------------------------------------------------------
    def _on_backend_ready(self, info: BackendInfo) -> None:
        # Short words in the badge over the map; the device's details in its tooltip.
        name = info.label.split(" — ")[0]
        self.backendLabel.setText(BADGES.get(info.kind, f"GPU: {name}"))
        self.backendLabel.setToolTip(info.label)

    def show_notice(self, line: str) -> None:
        """One line from the backend about the run (empty: none), in the status bar until the next."""
        self.backendNotice.setText(line)
        self.backendNotice.setToolTip(line)
        self.backendNotice.setVisible(bool(line))

    def _on_backend_failed(self, exc: BaseException, tb: str) -> None:
        """No backend (e.g. ``--backend gpu`` without a driver): say so and offer the simulator."""
        self.backendLabel.setText(f"No backend: {exc}")
        dialogs.backend_unavailable(self, exc, tb, self.use_simulator)

    def use_simulator(self) -> None:
        """Start the CUDA simulator in place of the backend that failed."""
        self.backendLabel.setText("Starting the CPU simulator…")
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
        config = self.launchPanel.config()
        request = RecordRequest(config, force, self.windowPanel.budget(), self.windowPanel.origin())
        if self.session.record(request):
            self._say_busy(f"Running {config.launch_line()} …")

    def _on_export_failed(self, exc: BaseException) -> None:
        if isinstance(exc, Cancelled):
            self.statusBar().showMessage("Export cancelled: no file was written.", 8000)
        else:
            dialogs.export_failed(self, exc)

    def _describe_export(self, target: Path) -> tuple[str, float | None]:
        return f"Writing {Path(target).name}", None

    def _describe_run(self, request: RecordRequest) -> tuple[str, float | None]:
        # Every thread runs, recorded or not: the estimate is for the whole launch.
        threads, info = request.config.total_threads, self.session.info
        if info is None:
            return f"Running {threads:,} threads", None
        return f"Running {threads:,} threads on {info.device_words}", info.estimate_seconds(threads)

    def cancel(self) -> None:
        if self.session.cancel():
            self._say_busy("Cancelling…")

    def _shown_tab_method(self, which: str) -> Callable[[], object] | None:
        """The shown tab's primary action (``run``) or its cancel, from the tab table."""
        page = self.tabs.currentWidget()
        widget = page.widget() if isinstance(page, QScrollArea) else page
        spec = self._tab_specs.get(id(widget))
        name = getattr(spec, which, "") if spec is not None else ""
        return getattr(widget, name) if name else None

    def run_shown_tab(self) -> None:
        """Ctrl+R / F5: the shown tab's primary action (Your kernel: Run traced; Lesson: Try it);
        on the index map, Run."""
        run = self._shown_tab_method("run")
        if run is None:
            self.run()
        else:
            run()

    def cancel_shown_tab(self) -> None:
        """Esc: cancel what the shown tab runs (a trace) and the session's run, if any."""
        cancel = self._shown_tab_method("cancel")
        if cancel is not None:
            cancel()
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

    def _on_recorded(self, recording: Recording) -> None:
        self._arrange()  # the inspector beside a square map, under a wide one
        opened = self.session.opened_from
        if opened is not None:
            # The launch panel shows the recorded launch, so Run repeats it.
            self.launchPanel.set_config(recording.config)
        wall = recording.timings_ms.get("wall_ms")
        parts = [f"Last run: {recording.config.launch_line('kernel', '')[:-2]}"]
        parts.append(
            kernel_time_words(recording.timings_ms, recording.backend)
        )  # says what each time measures
        if wall is not None:
            parts.append(f"host {format_duration(wall / 1000)}")  # launch + wait, host clock
        if opened is not None:
            parts.append(f"opened from {opened.name}")
        else:
            parts.append(f"Run → map {format_duration(self.session.seconds_since_run())}")
        self.lastRunLabel.setText(", ".join(parts))
        self.lastRunLabel.setToolTip(", ".join(parts))
        verification = recording.verification
        self.verificationLabel.setText(verification.summary() if verification else "not verified")
        self.verificationLabel.setStyleSheet("" if verification and verification.ok else "color: #d32f2f;")
        # How much of the launch recorded: in the status bar, and over the map when partial.
        config, window = recording.config, recording.window
        text = window.describe(config)
        # Dimensions edited while it ran: the arrows belong to the new launch, from its start.
        if config == self.launchPanel.config():
            self.windowPanel.show_window(config, window)
        partial = not window.covers(config)
        if partial:
            self.windowMessage.setText(
                f"⚠ Over the recording budget of {self.windowPanel.budget():,} threads — every thread ran, "
                f"but {text}. Move the window with the Recording window controls."
            )
        self.windowMessage.setVisible(partial)
        self.statusBar().showMessage(text[0].upper() + text[1:], 15000)  # "Recording all 384 threads"

    def _on_run_failed(self, experiment: str, request: RecordRequest, exc: BaseException, tb: str) -> None:
        if experiment != RECORD:
            return
        failure = dialogs.RecordFailure(
            self.windowPanel.budget(),
            self.recording is not None,
            lambda: self.run(force=True),
        )
        message = dialogs.report_record_error(self, exc, tb, failure)
        if message:
            self.statusBar().showMessage(message, 15000)

    def _on_hovered(self, cell: Cell | None) -> None:
        if cell is not None and self.recording is not None:
            t = self.session.thread_record(self.indexMap.row_of(cell))
            text = f"threadIdx {t['threadIdx']}, blockIdx {t['blockIdx']}" if t else "…"
            self.statusBar().showMessage(text, 3000)

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
        self._arrange()

    def is_narrow(self) -> bool:
        """True when the inspector sits under the map (a narrow window for its font size)."""
        return self.width() < NARROW_PX_PER_PT * point_size(self.settings.presentation)

    def _arrange(self) -> None:
        """Share the width between launch panel, map and inspector for this window and font.

        Wide: [launch | map | inspector]. Narrow (1280 px in presentation mode): the inspector
        goes under the map, so the map and the worked formulas both get the full width beside
        the launch panel. No panel sets a minimum width: the window always fits 1024 × 640.
        A map about as tall as it is wide (16 × 16 blocks) keeps the inspector beside it even
        then: under it, the map got a strip 170 px high with 10 px cells.
        """
        shape = self.recording.plane_shape()[-2:] if self.recording is not None else (0, 1)
        narrow = self.is_narrow() and shape[0] < 0.6 * shape[1]
        if narrow == self._narrow:
            return
        self._narrow = narrow
        width = max(self.width(), 640)
        inner = self._innerSplitter
        inner.setOrientation(Qt.Orientation.Vertical if narrow else Qt.Orientation.Horizontal)
        self.inspector.set_wide(narrow)
        launch = self._launch_width(width)
        self._mapSplitter.setSizes([launch, width - launch])
        if narrow:
            height = max(self.height(), 400)
            inner.setSizes([int(height * 0.7), int(height * 0.3)])
        else:
            rest = width - launch
            inner.setSizes([rest - int(rest * 0.32), int(rest * 0.32)])

    def _launch_width(self, width: int) -> int:
        """The launch panel's share: its contents' width at this font size, at most 36 % of the window."""
        panel = self._launchScroll.widget()
        panel.ensurePolished()
        for child in panel.findChildren(QWidget):
            child.ensurePolished()
        need = panel.sizeHint().width() + self._launchScroll.verticalScrollBar().sizeHint().width() + 6
        return max(220, min(need, int(width * (0.3 if self.is_narrow() else 0.36))))

    def set_theme(self, name: str) -> None:
        self.settings.theme = name
        self.menuActions[f"{name}ThemeAction"].setChecked(True)
        self._restyle()

    def set_presentation(self, on: bool) -> None:
        self.settings.presentation = bool(on)
        self._restyle()

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()

    def fit_map(self) -> None:
        self.indexMap.fit()

    def set_tiled(self, tiled: bool) -> None:
        self.indexMap.set_tiled(tiled)

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
    def _ask_path(self, title: str, suffix: str, filters: str) -> Path | None:
        start = Path(self.settings.export_dir or Path.home()) / f"simtviz-map.{suffix}"
        path = dialogs.ask_save_path(self, title, start, suffix, filters)
        if path is not None:
            self.settings.export_dir = str(path.parent)
        return path

    def _nothing_to_export(self) -> bool:
        if self.recording is None:
            self.statusBar().showMessage("Nothing to export yet: press Run first.", 5000)
        return self.recording is None

    def export_map_png(self, path: str | Path | None = None) -> Path | None:
        """File → Export map as PNG; with ``path`` no dialog is shown (tests, scripts)."""
        if self._nothing_to_export():
            return None
        target = Path(path) if path is not None else self._ask_path("Export map", "png", "PNG image (*.png)")
        if target is None:
            return None
        try:
            written = self.indexMap.export_png(target)
        except (ExportError, OSError) as exc:
            dialogs.export_failed(self, exc)
            return None
        self.statusBar().showMessage(f"Saved {written}", 8000)
        return written

    def export_records(self, path: str | Path | None = None, fmt: str | None = None) -> Path | None:
        """File → Export records as NPZ (the ``simtviz record`` format) or CSV. Device records are
        copied to the host on the worker: the path is returned before they are written."""
        if self._nothing_to_export():
            return None
        fmt = fmt or (Path(path).suffix.lstrip(".").lower() if path is not None else "npz")
        if path is None:
            filters = "NumPy records (*.npz)" if fmt == "npz" else "CSV table (*.csv)"
            path = self._ask_path("Export records", fmt, filters)
            if path is None:
                return None
        target = Path(path)
        if self.session.export_records(target, fmt) is None:
            return None
        self._say_busy(f"Writing {target.name} …")
        return target

    # --- closing -----------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        try:
            save_settings(self._qsettings, self._current_settings())
        except Exception:  # never keep a window open because its settings could not be written
            log.exception("could not save the settings")
        self.session.close(1.5)
        self.restore_app_font()
        super().closeEvent(event)


def create_main_window(backend: str = "sim", settings: QSettings | None = None) -> MainWindow:
    """The main window, not shown yet. A QApplication must exist (CONTRACT.md)."""
    # The window's worker threads must never run the cyclic collector over Qt objects (gui_gc).
    collect_on_gui_thread()
    return MainWindow(backend, settings)
