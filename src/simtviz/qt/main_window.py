"""The main window: launch panel, index map and thread inspector, with menus and a status bar."""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from simtviz.backends.base import Backend, estimate_seconds, format_duration
from simtviz.core.errors import BackendUnavailable, Cancelled, LaunchRejected, LaunchTooLarge, SimtvizError
from simtviz.core.files import ExportError
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits
from simtviz.core.recording import Recording
from simtviz.core.window import choose_window
from simtviz.qt.index_map import Cell, IndexMap
from simtviz.qt.launch_error_dialog import show_launch_error
from simtviz.qt.launch_panel import LaunchPanel
from simtviz.qt.map_data import device_images, is_device
from simtviz.qt.progress_panel import ProgressPanel
from simtviz.qt.settings import (
    APP_BUDGET_THREADS,
    AppSettings,
    default_qsettings,
    load_settings,
    save_settings,
)
from simtviz.qt.theme import PALETTES, point_size, stylesheet
from simtviz.qt.thread_inspector import ThreadInspector
from simtviz.qt.window_panel import RecordingWindowPanel
from simtviz.qt.worker_bridge import WorkerBridge
from simtviz.resources import ResourceNotFound, resource_path

log = logging.getLogger(__name__)

try:  # written by another part of the project; the window works without it
    from simtviz.qt.vecadd_panel import VecaddPanel
except ImportError:  # pragma: no cover - depends on what is installed
    VecaddPanel = None  # type: ignore[assignment,misc]


def _backend_factory(flag: str) -> Any:
    def make() -> Backend:
        from simtviz.backends import create_backend

        backend = create_backend(flag, in_process=False)
        warm_up = getattr(backend, "warm_up", None)
        if warm_up is not None:
            warm_up()  # start the simulator's child process now, not at the first Run
        return backend

    return make


def record_job(
    config: LaunchConfig,
    force: bool,
    budget: int = APP_BUDGET_THREADS,
    origin: tuple[int, int, int] = (0, 0, 0),
) -> Any:
    """Worker-thread work for one run. A GPU record stays on the device: the map asks for its images
    and the inspector for single threads in later worker jobs (``simtviz.qt.map_data``)."""

    def work(backend: Backend, progress: Any) -> Recording:
        window = choose_window(config, budget, origin)
        return backend.record(config, window, force=force, progress=progress)

    return work


def thread_job(recording: Recording, row: int) -> Any:
    """One thread's record of a device recording, fetched on the worker (a few bytes cross)."""
    return lambda _backend, _progress: (recording, row, recording.thread_at(row))


def export_job(recording: Recording, fmt: str, target: Path) -> Any:
    """Write a device recording's records: copy to the host (pinned, when the backend can) on the worker."""

    def work(backend: Backend, _progress: Any) -> Path:
        to_host = getattr(backend, "to_host", None)
        host = to_host(recording) if to_host is not None else recording
        return host.save_csv(target) if fmt == "csv" else host.save_npz(target)

    return work


class MainWindow(QMainWindow):
    def __init__(
        self,
        backend: str = "sim",
        settings: QSettings | None = None,
        parent: QWidget | None = None,
        backend_factory: Any = None,
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
        self.recording: Recording | None = None
        self.last_error: BaseException | None = None
        self.last_run_to_map_s: float | None = None
        self._run_started = 0.0
        self._closing = False
        self._too_large_box: QMessageBox | None = None
        self._no_backend = False
        # Threads of a device recording fetched so far (row → record), and the row each kind of
        # fetch ("thread" for hover, "pin") waits for; the bridge drops all but the latest per kind.
        self._threads: dict[int, dict[str, Any]] = {}
        self._fetching: dict[str, int] = {}

        self.bridge = WorkerBridge(backend_factory or _backend_factory(backend), self)
        self.bridge.ready.connect(self._on_backend_ready)
        self.bridge.backendFailed.connect(self._on_backend_failed)
        self.bridge.busyChanged.connect(self._on_busy)

        self._build_widgets()
        self._build_status_bar()
        self._build_menus()
        self._apply_settings(self.settings)
        self.resize(1500, 900)
        if self.settings.geometry is not None:
            self.restoreGeometry(self.settings.geometry)
        if self.settings_warning:
            self.statusBar().showMessage(f"Warning: {self.settings_warning}", 15000)

    # --- construction -----------------------------------------------------------------------
    def _build_widgets(self) -> None:
        self.launchPanel = LaunchPanel()
        self.launchPanel.runRequested.connect(lambda: self.run())
        self.windowPanel = RecordingWindowPanel(self.settings.budget_threads)
        self.windowPanel.moveRequested.connect(lambda _origin: self.run())
        self.windowPanel.budgetChanged.connect(self._on_budget_changed)
        # A new launch records from its start again; the origin belongs to the launch it was set for.
        self.launchPanel.configChanged.connect(lambda _config: self.windowPanel.reset())
        left = QWidget(objectName="leftColumn")
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.launchPanel, stretch=1)
        left_layout.addWidget(self.windowPanel)
        scroll = QScrollArea(objectName="launchScroll")
        scroll.setWidget(left)
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(380)

        self.indexMap = IndexMap()
        self.indexMap.threadPinned.connect(self._on_pinned)
        self.indexMap.cellHovered.connect(self._on_hovered)
        self.indexMap.planeChanged.connect(lambda _z: self.inspector.clear())
        self.indexMap.imagesRequested.connect(self._request_images)
        self.indexMap.thread_lookup = self.thread_record
        self.progressPanel = ProgressPanel()
        self.progressPanel.cancelButton.clicked.connect(self.cancel)
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

        self.inspector = ThreadInspector()
        self.inspector.setMinimumWidth(300)

        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="mapSplitter")
        splitter.addWidget(scroll)
        splitter.addWidget(centre)
        splitter.addWidget(self.inspector)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setStretchFactor(2, 0)
        splitter.setSizes([430, 720, 380])
        self._launchScroll, self._mapSplitter = scroll, splitter

        self.tabs = QTabWidget(objectName="mainTabs")
        self.tabs.addTab(splitter, "Index map")
        self.vecaddPanel: QWidget | None = None
        if VecaddPanel is not None:
            try:
                self.vecaddPanel = VecaddPanel(self.bridge, self)
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

    def _action(
        self, menu: Any, text: str, slot: Any, shortcuts: tuple[str | QKeySequence, ...] = (), **kw: Any
    ) -> QAction:
        action = QAction(text, self)
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
        if kw.get("checkable"):
            action.setCheckable(True)
            action.toggled.connect(slot)
        else:
            action.triggered.connect(slot)
        action.setObjectName(kw.get("name", ""))
        menu.addAction(action)
        self.addAction(action)  # shortcuts work in full screen too, where the menu bar may be hidden
        return action

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.runAction = self._action(
            file_menu, "&Run", lambda: self.run(), ("Ctrl+R", "F5"), name="runAction"
        )
        self.cancelAction = self._action(file_menu, "&Cancel run", self.cancel, ("Esc",), name="cancelAction")
        file_menu.addSeparator()
        self._action(file_menu, "Export map as &PNG…", lambda: self.export_map_png(), ("Ctrl+E",))
        self._action(
            file_menu, "Export records as &NPZ…", lambda: self.export_records(fmt="npz"), ("Ctrl+Shift+E",)
        )
        self._action(file_menu, "Export records as &CSV…", lambda: self.export_records(fmt="csv"))
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, (QKeySequence.StandardKey.Quit,))

        view = self.menuBar().addMenu("&View")
        group = QActionGroup(self)
        self.themeActions: dict[str, QAction] = {}
        for name in ("light", "dark"):
            action = QAction(f"{name.title()} theme", self, checkable=True)
            action.triggered.connect(lambda _checked=False, n=name: self.set_theme(n))
            group.addAction(action)
            view.addAction(action)
            self.themeActions[name] = action
        view.addSeparator()
        self.presentationAction = self._action(
            view, "&Presentation mode", self.set_presentation, ("Ctrl+Shift+P",), checkable=True
        )
        self._action(view, "&Full screen", self.toggle_full_screen, ("F11",))
        view.addSeparator()
        self._action(view, "Fit &map", self.indexMap.fit, ("Ctrl+0",))
        self.tiledAction = self._action(
            view, "All &z-planes (tiled)", self.indexMap.set_tiled, ("Ctrl+T",), checkable=True
        )
        self.indexMap.tiledCheck.toggled.connect(self.tiledAction.setChecked)

        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&Keyboard shortcuts", self.show_shortcuts, ("F1",))
        self._action(help_menu, "&About simtviz", self.show_about)

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

    def budget_threads(self) -> int:
        """Most threads one run records (the ``record/budget_threads`` setting)."""
        return self.windowPanel.budget()

    def set_budget_threads(self, threads: int) -> None:
        self.windowPanel.set_budget(threads)

    def _on_budget_changed(self, threads: int) -> None:
        self.settings.budget_threads = threads

    # --- backend ----------------------------------------------------------------------------
    def _on_backend_ready(self, backend: Backend) -> None:
        self._no_backend = False
        self.launchPanel.runButton.setEnabled(not self.bridge.busy)
        self.runAction.setEnabled(not self.bridge.busy)
        info = backend.info()
        self.backendLabel.setText(info.label)
        self.launchPanel.set_limits(info.limits, info.kind)

    def _on_backend_failed(self, exc: BaseException, tb: str) -> None:
        """No backend (e.g. ``--backend gpu`` without a driver): say so, disable Run, offer the simulator."""
        self.backendLabel.setText(f"No backend: {exc}")
        self.last_error = exc
        self._no_backend = True
        self.launchPanel.runButton.setEnabled(False)
        self.runAction.setEnabled(False)
        self.launchPanel.runButton.setToolTip("No backend could start; use the CPU simulator instead.")
        if self.findChild(QMessageBox, "backendErrorDialog") is not None:
            return
        box = QMessageBox(QMessageBox.Icon.Critical, "Backend unavailable", str(exc), parent=self)
        box.setObjectName("backendErrorDialog")
        box.setInformativeText(
            "The CUDA simulator runs the same kernels on the CPU (slowly, without SM or clock readings)."
        )
        self.useSimButton = box.addButton("Use the CPU simulator", QMessageBox.ButtonRole.AcceptRole)
        self.useSimButton.setObjectName("useSimulatorButton")
        box.addButton(QMessageBox.StandardButton.Close)
        if not isinstance(exc, SimtvizError):  # an unexpected failure: keep its traceback for a report
            box.setDetailedText(tb)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.useSimButton.clicked.connect(self.use_simulator)
        box.open()

    def use_simulator(self) -> None:
        """Start the CUDA simulator in place of the backend that failed."""
        self.backendLabel.setText("Starting the CPU simulator…")
        self.launchPanel.runButton.setToolTip("Launch the instrumented kernel (Ctrl+R or F5)")
        self._no_backend = False
        self.bridge.restart(_backend_factory("sim"))

    def limits(self) -> DeviceLimits:
        backend = self.bridge.backend
        return backend.info().limits if backend is not None else DeviceLimits()

    # --- running ------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.bridge.busy

    def _on_busy(self, busy: bool) -> None:
        self.launchPanel.runButton.setEnabled(not busy and not self._no_backend)
        self.runAction.setEnabled(not busy and not self._no_backend)
        if not busy:
            self.progressPanel.finish()

    def run(self, force: bool = False) -> None:
        """Launch the configuration in the launch panel (asynchronously; the map updates when done)."""
        if self.bridge.busy or self._closing:
            return
        config = self.launchPanel.config()
        self.last_error = None
        self._run_started = time.perf_counter()
        backend = self.bridge.backend
        kind = backend.kind if backend is not None else "sim"
        where = "the CPU simulator" if kind == "sim" else "the GPU"
        # Every thread runs, recorded or not: the estimate is for the whole launch.
        self.progressPanel.start(
            f"Running {config.total_threads:,} threads on {where}",
            estimate_seconds(kind, config.total_threads),
        )
        self.statusBar().showMessage(f"Running {config.launch_line()} …")
        self.bridge.submit(
            "record",
            record_job(config, force, self.windowPanel.budget(), self.windowPanel.origin()),
            on_result=self._on_recorded,
            on_error=self._on_run_error,
            on_progress=self.progressPanel.set_fraction,
        )

    def cancel(self) -> None:
        if self.bridge.busy:
            self.statusBar().showMessage("Cancelling…")
            self.bridge.cancel()

    def _on_recorded(self, recording: Recording) -> None:
        self.progressPanel.finish()
        self.recording = recording
        self._threads, self._fetching = {}, {}
        self.indexMap.set_recording(recording)
        self.inspector.clear()
        self.last_run_to_map_s = time.perf_counter() - self._run_started
        wall = recording.timings_ms.get("wall_ms")
        kernel = recording.timings_ms.get("kernel_ms")
        parts = [f"Last run: {recording.config.launch_line('kernel', '')[:-2]}"]
        if kernel is not None:
            parts.append(f"kernel {kernel:.3f} ms")
        if wall is not None:
            parts.append(f"launch {format_duration(wall / 1000)}")
        parts.append(f"Run → map {format_duration(self.last_run_to_map_s)}")
        self.lastRunLabel.setText(", ".join(parts))
        verification = recording.verification
        summary = verification.summary() if verification else "not verified"
        self.verificationLabel.setText(summary)
        self.verificationLabel.setStyleSheet("" if verification and verification.ok else "color: #d32f2f;")
        self._show_window(recording)

    def _show_window(self, recording: Recording) -> None:
        """Say how much of the launch recorded: in the status bar, and over the map when partial."""
        config, window = recording.config, recording.window
        text = window.describe(config)
        self.windowPanel.show_window(config, window)
        partial = not window.covers(config)
        if partial:
            self.windowMessage.setText(
                f"⚠ Over the recording budget of {self.windowPanel.budget():,} threads — every thread ran, "
                f"but {text}. Move the window with the Recording window controls."
            )
        self.windowMessage.setVisible(partial)
        self.statusBar().showMessage(text[0].upper() + text[1:], 15000)  # "Recording all 384 threads"

    def _on_run_error(self, exc: BaseException, tb: str) -> None:
        self.progressPanel.finish()
        self.last_error = exc
        if self._closing:
            return
        if isinstance(exc, LaunchRejected):
            self.statusBar().showMessage(f"Launch rejected: {exc.explanation}")
            show_launch_error(self, exc)
        elif isinstance(exc, LaunchTooLarge) and exc.estimate_s is None:
            self._out_of_memory(exc)
        elif isinstance(exc, LaunchTooLarge):
            self._ask_to_force(exc)
        elif isinstance(exc, Cancelled):
            self.statusBar().showMessage("Run cancelled; the previous map is still shown.", 8000)
        elif isinstance(exc, BackendUnavailable):
            self._on_backend_failed(exc, "")
        else:
            box = QMessageBox(
                QMessageBox.Icon.Warning, "The run failed", str(exc).split("\n")[0], parent=self
            )
            box.setObjectName("runErrorDialog")
            box.setInformativeText(
                "The previous map is still shown; the app works on. Try the launch again or another one."
                if self.recording is not None
                else "The app works on: try the launch again or another one."
            )
            # A traceback only for what simtviz did not expect; its own errors are said in words.
            box.setDetailedText(str(exc) if isinstance(exc, SimtvizError) else f"{exc}\n\n{tb}")
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()

    def _out_of_memory(self, exc: LaunchTooLarge) -> None:
        """The device has too little memory for the window's records: forcing cannot help."""
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Not enough GPU memory", str(exc).split(" — ")[0], parent=self
        )
        box.setObjectName("outOfMemoryDialog")
        budget = self.windowPanel.budget()
        smaller = max(1, budget // 4)
        box.setInformativeText(
            f"The launch itself is valid. Its recording window ({budget:,} threads at most) needs more "
            f"memory than the GPU has free. Record a smaller window: lower the recording budget "
            f"(Recording window → Budget), e.g. to {smaller:,} threads, and press Run again."
        )
        box.setDetailedText(str(exc))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.statusBar().showMessage(
            "Not enough GPU memory for the recording; the previous map stays.", 15000
        )
        box.open()

    def _ask_to_force(self, exc: LaunchTooLarge) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Question, "A long run", str(exc).replace("use --force", "run"), parent=self
        )
        box.setObjectName("launchTooLargeDialog")
        eta = format_duration(exc.estimate_s) if exc.estimate_s is not None else "a long time"
        box.setInformativeText(
            f"Run it anyway? It should take about {eta}; Cancel (Esc) stops it at any time."
        )
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def answered(result: int) -> None:
            self._too_large_box = None
            if result == QMessageBox.StandardButton.Yes:
                QTimer.singleShot(0, lambda: self.run(force=True))

        box.finished.connect(answered)
        self._too_large_box = box
        box.open()

    # --- device recordings: images and threads through the worker ----------------------------
    def _request_images(self, recording: Recording, field: str, planes: tuple[int, ...]) -> None:
        self.bridge.submit(
            "image",
            lambda _backend, _progress: device_images(recording, field, planes),
            on_result=self.indexMap.set_images,
            on_error=self._on_fetch_error,
            quiet=True,
        )

    def thread_record(self, row: int, kind: str = "thread") -> dict[str, Any] | None:
        """Row ``row`` of the recording shown: at once from host records, else fetched (None for now)."""
        rec = self.recording
        if rec is None:
            return None
        if not is_device(rec):
            return rec.thread_at(row)
        if row in self._threads:
            return self._threads[row]
        if self._fetching.get(kind) != row:
            self._fetching[kind] = row
            # Hover and pin have their own kinds: a newer hover drops an older hover, never a pin.
            self.bridge.submit(
                kind,
                thread_job(rec, row),
                on_result=lambda result, kind=kind: self._on_thread(kind, result),
                on_error=self._on_fetch_error,
                quiet=True,
            )
        return None

    def _on_thread(self, kind: str, result: tuple[Recording, int, dict[str, Any]]) -> None:
        recording, row, t = result
        if self._fetching.get(kind) == row:
            del self._fetching[kind]
        if recording is not self.recording:
            return  # a fetch for a map that is no longer shown
        self._threads[row] = t
        hovered = self.indexMap.hovered()
        if hovered is not None and self.indexMap.row_of(hovered) == row:
            self.indexMap.refresh_hover()
            self._on_hovered(hovered)
        pinned = self.indexMap.pinned()
        if pinned is not None and self.indexMap.row_of(pinned) == row and self.inspector.row == row:
            self._on_pinned(pinned)

    def _on_fetch_error(self, exc: BaseException, tb: str) -> None:
        self._fetching.clear()
        self.last_error = exc
        log.warning("fetching from the GPU failed: %s\n%s", exc, tb)
        self.statusBar().showMessage(f"Could not read the record from the GPU: {exc}", 10000)

    # --- inspector ------------------------------------------------------------------------------
    def _on_pinned(self, cell: Cell) -> None:
        if self.recording is None:
            return
        row = self.indexMap.row_of(cell)
        where = f"Map row {cell.row}, column {cell.col}"
        if self.recording.config.rank == 3:
            where += f", z-plane {self.recording.window.origin[2] + cell.plane}"
        t = self.thread_record(row, "pin")
        if t is None:
            self.inspector.show_fetching(row, where)
        else:
            self.inspector.show_thread(self.recording, row, where, t)

    def _on_hovered(self, cell: Cell | None) -> None:
        if cell is not None and self.recording is not None:
            t = self.thread_record(self.indexMap.row_of(cell))
            text = f"threadIdx {t['threadIdx']}, blockIdx {t['blockIdx']}" if t else "…"
            self.statusBar().showMessage(text, 3000)

    # --- view -----------------------------------------------------------------------------------
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
        self.themeActions[name].setChecked(True)
        self._restyle()

    def set_presentation(self, on: bool) -> None:
        self.settings.presentation = bool(on)
        self._restyle()

    def toggle_full_screen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()

    def show_shortcuts(self) -> None:
        text = (
            "Ctrl+R / F5  Run\nEsc  Cancel the run\nCtrl+E  Export the map as PNG\n"
            "Ctrl+Shift+E  Export the records as NPZ\nCtrl+Shift+P  Presentation mode\nF11  Full screen\n"
            "Ctrl+0  Fit the map\nCtrl+T  All z-planes (3-D)\nCtrl+Q  Quit"
        )
        box = QMessageBox(QMessageBox.Icon.Information, "Keyboard shortcuts", text, parent=self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def show_about(self) -> None:
        from simtviz import __version__

        box = QMessageBox(
            QMessageBox.Icon.Information,
            "About simtviz",
            f"simtviz {__version__}: launch an instrumented CUDA kernel and see what every thread recorded.",
            parent=self,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    # --- export ---------------------------------------------------------------------------------
    def _ask_path(self, title: str, suffix: str, filters: str) -> Path | None:
        start = Path(self.settings.export_dir or Path.home()) / f"simtviz-map.{suffix}"
        name, _ = QFileDialog.getSaveFileName(self, title, str(start), filters)
        if not name:
            return None
        path = Path(name)
        if not path.suffix:
            path = path.with_suffix(f".{suffix}")
        self.settings.export_dir = str(path.parent)
        return path

    def export_map_png(self, path: str | Path | None = None) -> Path | None:
        """File → Export map as PNG; with ``path`` no dialog is shown (tests, scripts)."""
        if self.recording is None:
            self.statusBar().showMessage("Nothing to export yet: press Run first.", 5000)
            return None
        target = Path(path) if path is not None else self._ask_path("Export map", "png", "PNG image (*.png)")
        if target is None:
            return None
        return self._export(lambda: self.indexMap.export_png(target), target)

    def export_records(self, path: str | Path | None = None, fmt: str | None = None) -> Path | None:
        """File → Export records as NPZ (the ``simtviz record`` format) or CSV."""
        if self.recording is None:
            self.statusBar().showMessage("Nothing to export yet: press Run first.", 5000)
            return None
        fmt = fmt or (Path(path).suffix.lstrip(".").lower() if path is not None else "npz")
        if path is None:
            filters = "NumPy records (*.npz)" if fmt == "npz" else "CSV table (*.csv)"
            chosen = self._ask_path("Export records", fmt, filters)
            if chosen is None:
                return None
            path = chosen
        target = Path(path)
        rec = self.recording
        if is_device(rec):
            # GPU records are copied to the host on the worker; the result is reported when written.
            self.statusBar().showMessage(f"Copying the records from the GPU to {target} …")
            self.bridge.submit(
                "export",
                export_job(rec, fmt, target),
                on_result=lambda written: self.statusBar().showMessage(f"Saved {written}", 8000),
                on_error=lambda exc, _tb: self._export_failed(exc),
            )
            return target
        save = rec.save_csv if fmt == "csv" else rec.save_npz
        return self._export(lambda: save(target), target)

    def _export(self, write: Any, target: Path) -> Path | None:
        try:
            written = write()
        except (ExportError, OSError) as exc:
            self._export_failed(exc)
            return None
        self.statusBar().showMessage(f"Saved {written}", 8000)
        return written

    def _export_failed(self, exc: BaseException) -> None:
        self.last_error = exc
        box = QMessageBox(QMessageBox.Icon.Warning, "Export failed", str(exc), parent=self)
        box.setObjectName("exportErrorDialog")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    # --- closing --------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        self._closing = True
        try:
            save_settings(self._qsettings, self._current_settings())
        except Exception:  # never keep a window open because its settings could not be written
            log.exception("could not save the settings")
        self.bridge.shutdown(1.5)
        super().closeEvent(event)


def create_main_window(backend: str = "sim", settings: QSettings | None = None) -> MainWindow:
    """The main window, not shown yet. A QApplication must exist (CONTRACT.md)."""
    return MainWindow(backend, settings)
