"""The "Index map" tab (``indexMapTab``): ``[launch | [map | inspector]]`` in splitters.

The launch panel and the recording window on the left, the map with the last run's summary in
the middle, the thread inspector beside it (under it when the window is narrow for its font
size). It runs the instrumented kernel through the session, and answers two intents other tabs
send through the session: ``show_launch`` (the lesson's Try-its) and ``show_block`` (Where
blocks ran).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from simtviz.backends.base import BackendInfo
from simtviz.core.estimates import format_duration
from simtviz.core.files import ExportError
from simtviz.core.launch import LaunchConfig
from simtviz.core.recording import Recording
from simtviz.core.run_timings import kernel_time_words
from simtviz.qt import dialogs
from simtviz.qt.map import Cell, IndexMap
from simtviz.qt.session import EXPORT, RECORD, RecordRequest, RunSession
from simtviz.qt.settings import AppSettings
from simtviz.qt.tabs.index_map.block_select import BlockSelector
from simtviz.qt.tabs.index_map.inspector import ThreadInspector
from simtviz.qt.tabs.index_map.launch import LaunchPanel
from simtviz.qt.tabs.index_map.window import RecordingWindowPanel
from simtviz.qt.theme import PALETTES, point_size
from simtviz.qt.widgets.progress import ProgressPanel

# Below this width per point of font size the inspector goes under the map (1280 px at 20 pt is
# narrow: beside the map it would leave the map ~300 px; under it the map keeps the width).
NARROW_PX_PER_PT = 80
# The backend badge over the map, per kind (a GPU shows its name instead).
BADGES = {"sim": "CUDA simulator", "emu": "CPU emulator"}  # the tooltip: "(lockstep, NumPy)"


class IndexMapTab(QSplitter):
    """``indexMapTab`` (the ``mapSplitter``): the instrumented kernel's launch, map and inspector."""

    def __init__(self, session: RunSession, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("mapSplitter")
        self.session = session
        self._build()
        # Before _wire: a block asked for pins as the recording arrives, and the run's own
        # status line ("Recording all … threads") comes after it.
        self._selector = BlockSelector(self)
        self._wire()
        self._map_style: tuple[str, bool] | None = None

    # --- layout ----------------------------------------------------------------------------------
    def _build(self) -> None:
        session = self.session
        self.launchPanel = LaunchPanel(session)
        self.windowPanel = RecordingWindowPanel(session.settings.budget_threads)
        left = QWidget(objectName="leftColumn")
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.launchPanel, stretch=1)
        left_layout.addWidget(self.windowPanel)
        scroll = QScrollArea(objectName="launchScroll")
        scroll.setWidget(left)
        scroll.setWidgetResizable(True)
        # No minimum width: on a projector the panel may be narrowed or collapsed (drag the
        # splitter handle) so that the map gets the room.
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
        # map) when the window is narrow for its font size (see arrange).
        inner = QSplitter(Qt.Orientation.Horizontal, objectName="mapInspectorSplitter")
        inner.addWidget(centre)
        inner.addWidget(self.inspector)
        inner.setStretchFactor(0, 1)
        inner.setStretchFactor(1, 0)
        inner.setCollapsible(0, False)
        self.addWidget(scroll)
        self.addWidget(inner)
        self.setStretchFactor(0, 0)
        self.setStretchFactor(1, 1)
        self.setCollapsible(1, False)
        self._launchScroll, self._innerSplitter = scroll, inner
        self._narrow: bool | None = None

    def _wire(self) -> None:
        s = self.session
        self.launchPanel.runRequested.connect(self.run)
        # A new launch records from its start again; the origin belongs to the launch it was set for.
        self.launchPanel.configChanged.connect(lambda _config: self.windowPanel.reset())
        self.windowPanel.moveRequested.connect(lambda _origin: self.run())
        self.windowPanel.budgetChanged.connect(
            lambda threads: setattr(self.session.settings, "budget_threads", threads)
        )
        self.indexMap.threadPinned.connect(
            lambda cell: self.inspector.show_cell(cell, self.indexMap.row_of(cell))
        )
        self.indexMap.cellHovered.connect(self._on_hovered)
        self.inspector.goToRequested.connect(self.indexMap.pin)
        self.indexMap.planeChanged.connect(lambda _z: self.inspector.clear())
        s.backendReady.connect(self._on_backend_ready)
        s.backendFailed.connect(lambda exc, _tb: self.backendLabel.setText(f"No backend: {exc}"))
        s.recordingChanged.connect(self._on_recorded)
        s.runFailed.connect(self._on_run_failed)
        s.launchRequested.connect(self.show_launch)
        s.blockRequested.connect(lambda config, block_xyz: self._selector.select(config, block_xyz))

    # --- settings --------------------------------------------------------------------------------
    def apply_settings(self, s: AppSettings) -> None:
        self.launchPanel.set_config(s.config)
        self.indexMap.set_color_field(s.color)
        self.indexMap.set_tiled(s.tiled)

    def store_settings(self, s: AppSettings) -> None:
        config = self.launchPanel.config()
        s.grid, s.block = config.grid, config.block
        s.color = self.indexMap.color_field()
        s.tiled = self.indexMap.tiledCheck.isChecked()
        s.budget_threads = self.windowPanel.budget()

    def set_budget_threads(self, threads: int) -> None:
        """Most threads one run records (the ``record/budget_threads`` setting)."""
        self.windowPanel.set_budget(threads)

    def _on_backend_ready(self, info: BackendInfo) -> None:
        # Short words in the badge over the map; the device's details in its tooltip.
        name = info.label.split(" — ")[0]
        self.backendLabel.setText(BADGES.get(info.kind, f"GPU: {name}"))
        self.backendLabel.setToolTip(info.label)

    # --- running ---------------------------------------------------------------------------------
    def run(self, force: bool = False) -> None:
        """Launch the configuration in the launch panel (asynchronously; the map updates when done)."""
        config = self.launchPanel.config()
        request = RecordRequest(config, force, self.windowPanel.budget(), self.windowPanel.origin())
        if self.session.record(request):
            self.session.say(f"Running {config.launch_line()} …", 0)

    def show_launch(self, config: LaunchConfig, colouring: str = "") -> None:
        """The ``show_launch`` intent: colour the map by ``colouring``, come forward, and record
        ``config`` unless the map shows it already (the spin boxes set as a teacher would)."""
        if colouring:
            combo = self.findChild(QComboBox, "colorBy")
            if combo is not None:
                combo.setCurrentText(colouring)
            self.indexMap.set_color_field(colouring)
        self.session.show(self)
        recording = self.session.recording
        if recording is not None and recording.config == config:
            return
        # As a teacher would type them: each edit resets the recording window to the launch's start.
        for what, dim in (("grid", config.grid), ("block", config.block)):
            for axis, value in zip("XYZ", dim.as_tuple(), strict=True):
                spin = self.launchPanel.findChild(QSpinBox, f"{what}{axis}")
                if spin is not None:
                    spin.setValue(value)
        self.run()

    def _describe_export(self, target: Path) -> tuple[str, float | None]:
        return f"Writing {Path(target).name}", None

    def _describe_run(self, request: RecordRequest) -> tuple[str, float | None]:
        # Every thread runs, recorded or not: the estimate is for the whole launch.
        threads, info = request.config.total_threads, self.session.info
        if info is None:
            return f"Running {threads:,} threads", None
        return f"Running {threads:,} threads on {info.device_words}", info.estimate_seconds(threads)

    def _on_recorded(self, recording: Recording) -> None:
        self.arrange()  # the inspector beside a square map, under a wide one
        opened = self.session.opened_from
        if opened is not None:
            # The launch panel shows the recorded launch, so Run repeats it.
            self.launchPanel.set_config(recording.config)
        wall = recording.timings_ms.get("wall_ms")
        parts = [f"Last run: {recording.config.launch_line('kernel', '')[:-2]}"]
        parts.append(kernel_time_words(recording.timings_ms, recording.backend))  # what each time measures
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
        self.session.say(text[0].upper() + text[1:], 15000)  # "Recording all 384 threads"

    def _on_run_failed(self, experiment: str, request: RecordRequest, exc: BaseException, tb: str) -> None:
        if experiment != RECORD:
            return
        # "Run it anyway?" is the session's (confirmRequested), not this tab's.
        failure = dialogs.RecordFailure(self.windowPanel.budget(), self.session.recording is not None)
        message = dialogs.report_record_error(self.window(), exc, tb, failure)
        if message:
            self.session.say(message, 15000)

    def _on_hovered(self, cell: Cell | None) -> None:
        if cell is not None and self.session.recording is not None:
            t = self.session.thread_record(self.indexMap.row_of(cell))
            text = f"threadIdx {t['threadIdx']}, blockIdx {t['blockIdx']}" if t else "…"
            self.session.say(text, 3000)

    # --- view ------------------------------------------------------------------------------------
    def is_narrow(self) -> bool:
        """True when the inspector sits under the map (a narrow window for its font size)."""
        return self.window().width() < NARROW_PX_PER_PT * point_size(self.session.settings.presentation)

    def arrange(self) -> None:
        """Share the width between launch panel, map and inspector for this window and font.

        Wide: [launch | map | inspector]. Narrow (1280 px in presentation mode): the inspector
        goes under the map, so the map and the worked formulas both get the full width beside
        the launch panel. No panel sets a minimum width: the window always fits 1024 × 640.
        A map about as tall as it is wide (16 × 16 blocks) keeps the inspector beside it even
        then: under it, the map got a strip 170 px high with 10 px cells.
        """
        recording = self.session.recording
        shape = recording.plane_shape()[-2:] if recording is not None else (0, 1)
        narrow = self.is_narrow() and shape[0] < 0.6 * shape[1]
        if narrow == self._narrow:
            return
        self._narrow = narrow
        window = self.window()
        width = max(window.width(), 640)
        inner = self._innerSplitter
        inner.setOrientation(Qt.Orientation.Vertical if narrow else Qt.Orientation.Horizontal)
        self.inspector.set_wide(narrow)
        launch = self._launch_width(width)
        self.setSizes([launch, width - launch])
        if narrow:
            height = max(window.height(), 400)
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

    def apply_style(self, theme: str, presentation: bool) -> None:
        """The map and the inspector are drawn, not styled: give them the theme's colours and the
        mode's font size (once per change)."""
        if self._map_style == (theme, presentation):
            return
        self._map_style = (theme, presentation)
        self.inspector.set_point_size(point_size(presentation))
        self.indexMap.apply_style(PALETTES[theme], presentation)
        self._narrow = None
        self.arrange()

    # --- export ----------------------------------------------------------------------------------
    def _ask_path(self, title: str, suffix: str, filters: str) -> Path | None:
        settings = self.session.settings
        start = Path(settings.export_dir or Path.home()) / f"simtviz-map.{suffix}"
        path = dialogs.ask_save_path(self.window(), title, start, suffix, filters)
        if path is not None:
            settings.export_dir = str(path.parent)
        return path

    def _nothing_to_export(self) -> bool:
        if self.session.recording is None:
            self.session.say("Nothing to export yet: press Run first.", 5000)
        return self.session.recording is None

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
            dialogs.export_failed(self.window(), exc)
            return None
        self.session.say(f"Saved {written}", 8000)
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
        self.session.say(f"Writing {target.name} …", 0)
        return target
