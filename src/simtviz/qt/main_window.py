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

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QCloseEvent, QIcon
from PySide6.QtWidgets import QLabel, QMainWindow, QScrollArea, QSplitter, QTabWidget, QVBoxLayout, QWidget

from simtviz import __version__
from simtviz.backends.base import Backend, estimate_seconds, format_duration
from simtviz.core.files import ExportError
from simtviz.core.recording import Recording
from simtviz.qt import dialogs
from simtviz.qt.actions import build_actions, shortcut_text
from simtviz.qt.map import Cell, IndexMap
from simtviz.qt.panels.inspector import ThreadInspector
from simtviz.qt.panels.launch import LaunchPanel
from simtviz.qt.panels.progress import ProgressPanel
from simtviz.qt.panels.window import RecordingWindowPanel
from simtviz.qt.session import RECORD, RecordRequest, RunSession
from simtviz.qt.settings import AppSettings, default_qsettings, load_settings, save_settings
from simtviz.qt.theme import PALETTES, point_size, stylesheet
from simtviz.resources import ResourceNotFound, resource_path

log = logging.getLogger(__name__)

try:  # written by another part of the project; the window works without it
    from simtviz.qt.panels.vecadd import VecaddPanel
except ImportError:  # pragma: no cover - depends on what is installed
    VecaddPanel = None  # type: ignore[assignment,misc]


def _where(kind: str) -> str:
    return "the CPU simulator" if kind == "sim" else "the GPU"


class MainWindow(QMainWindow):
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
        self.resize(1500, 900)
        if self.settings.geometry is not None:
            self.restoreGeometry(self.settings.geometry)
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
        scroll.setMinimumWidth(380)

        self.indexMap = IndexMap(session)
        self.progressPanel = ProgressPanel(session, RECORD, self._describe_run)
        centre = QWidget()
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(0, 0, 0, 0)
        # Over the map, in words, when only part of the launch recorded.
        self.windowMessage = QLabel(objectName="windowMessage", wordWrap=True)
        self.windowMessage.setStyleSheet("padding: 4px; font-weight: bold;")
        self.windowMessage.setVisible(False)
        centre_layout.addWidget(self.windowMessage)
        centre_layout.addWidget(self.indexMap, stretch=1)
        centre_layout.addWidget(self.progressPanel)

        self.inspector = ThreadInspector(session)
        self.inspector.setMinimumWidth(300)

        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="mapSplitter")
        for widget, stretch in ((scroll, 0), (centre, 1), (self.inspector, 0)):
            splitter.addWidget(widget)
            splitter.setStretchFactor(splitter.count() - 1, stretch)
        splitter.setSizes([430, 720, 380])
        self._launchScroll, self._mapSplitter = scroll, splitter

        self.tabs = QTabWidget(objectName="mainTabs")
        self.tabs.addTab(splitter, "Index map")
        self.vecaddPanel: QWidget | None = None
        if VecaddPanel is not None:
            try:
                self.vecaddPanel = VecaddPanel(session, self)
                self.tabs.addTab(self.vecaddPanel, "Vector add")
            except Exception:  # a broken panel must not take the index map down with it
                log.exception("the vector-add panel failed to start")
        self.setCentralWidget(self.tabs)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.backendLabel = QLabel("Starting the backend…", objectName="backendLabel")
        self.lastRunLabel = QLabel("No run yet", objectName="lastRunLabel")
        self.verificationLabel = QLabel("", objectName="verificationLabel")
        bar.addPermanentWidget(self.lastRunLabel)
        bar.addPermanentWidget(self.verificationLabel)
        bar.addPermanentWidget(self.backendLabel)

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
        self.indexMap.planeChanged.connect(lambda _z: self.inspector.clear())
        self.indexMap.tiledCheck.toggled.connect(self.menuActions["tiledAction"].setChecked)
        for signal in (s.busyChanged, s.backendReady, s.backendFailed):
            signal.connect(lambda *_: self.menuActions["runAction"].setEnabled(s.can_run))
        s.backendReady.connect(lambda info: self.backendLabel.setText(info.label))
        s.backendFailed.connect(self._on_backend_failed)
        s.recordingChanged.connect(self._on_recorded)
        s.runFailed.connect(self._on_run_failed)
        s.fetchFailed.connect(
            lambda exc, _tb: status.showMessage(f"Could not read the record from the GPU: {exc}", 10000)
        )
        s.exportFinished.connect(lambda written: status.showMessage(f"Saved {written}", 8000))
        s.exportFailed.connect(lambda exc: dialogs.export_failed(self, exc))

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
            self.statusBar().showMessage(f"Running {config.launch_line()} …")

    def _describe_run(self, request: RecordRequest) -> tuple[str, float | None]:
        # Every thread runs, recorded or not: the estimate is for the whole launch.
        threads, kind = request.config.total_threads, self.session.kind
        return f"Running {threads:,} threads on {_where(kind)}", estimate_seconds(kind, threads)

    def cancel(self) -> None:
        if self.session.cancel():
            self.statusBar().showMessage("Cancelling…")

    def _on_recorded(self, recording: Recording) -> None:
        wall = recording.timings_ms.get("wall_ms")
        kernel = recording.timings_ms.get("kernel_ms")
        parts = [f"Last run: {recording.config.launch_line('kernel', '')[:-2]}"]
        if kernel is not None:
            parts.append(f"kernel {kernel:.3f} ms")
        if wall is not None:
            parts.append(f"launch {format_duration(wall / 1000)}")
        parts.append(f"Run → map {format_duration(self.session.seconds_since_run())}")
        self.lastRunLabel.setText(", ".join(parts))
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
            request.config.total_threads,
            _where(self.session.kind),
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

    # --- view --------------------------------------------------------------------------------------
    def _restyle(self) -> None:
        # The font size goes into the style sheet: with a style sheet set, Qt no longer passes
        # a parent's setFont() on to its children.
        size = point_size(self.settings.presentation)
        self.setStyleSheet(stylesheet(self.settings.theme) + f"\nQWidget {{ font-size: {size}pt; }}\n")
        self.inspector.set_point_size(size)
        self.indexMap.apply_style(PALETTES[self.settings.theme], self.settings.presentation)
        self._fit_launch_panel()

    def _fit_launch_panel(self) -> None:
        """Keep the launch panel as wide as its contents at the current font size (at 20 pt the
        spin boxes would otherwise be cut off at the right), taking the room from the map."""
        panel = self._launchScroll.widget()
        panel.ensurePolished()
        for child in panel.findChildren(QWidget):
            child.ensurePolished()
        need = panel.sizeHint().width() + self._launchScroll.verticalScrollBar().sizeHint().width() + 6
        need = min(max(need, 380), 760)
        self._launchScroll.setMinimumWidth(need)
        sizes = self._mapSplitter.sizes()
        if sizes and sizes[0] < need:
            sizes[1] = max(200, sizes[1] - (need - sizes[0]))
            sizes[0] = need
            self._mapSplitter.setSizes(sizes)

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
        self.statusBar().showMessage(f"Writing the records to {path} …")
        return self.session.export_records(Path(path), fmt)

    # --- closing -----------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        try:
            save_settings(self._qsettings, self._current_settings())
        except Exception:  # never keep a window open because its settings could not be written
            log.exception("could not save the settings")
        self.session.close(1.5)
        super().closeEvent(event)


def create_main_window(backend: str = "sim", settings: QSettings | None = None) -> MainWindow:
    """The main window, not shown yet. A QApplication must exist (CONTRACT.md)."""
    return MainWindow(backend, settings)
