"""The lesson's demonstrations that drive the rest of the app: the index map (through the
session's ``show_launch`` intent; then its map and inspector for the figure and the pinned
thread), the vector-add panel, and the views found by objectName in the panel's window.

``LessonDemos`` is a part of ``LessonPanel`` (a child object, not a base class): it follows the
session's results for the runs it started, and tells the panel what happened through the few
members ``LessonHost`` names (its status line, figures, tab switching, ``demoFinished``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from simtviz.core.errors import LaunchRejected, LaunchTooLarge
from simtviz.core.launch import LaunchConfig
from simtviz.core.lesson import Step, TryIt
from simtviz.core.vecadd import default_n
from simtviz.qt.map import Cell
from simtviz.qt.tabs.lesson.charts import widget_png

if TYPE_CHECKING:
    from simtviz.core.recording import Recording
    from simtviz.qt.session import RunSession
    from simtviz.qt.tabs.index_map.tab import IndexMapTab
    from simtviz.qt.tabs.lesson.page_keys import PageKeys
    from simtviz.qt.tabs.vecadd.panel import VecaddPanel

T = TypeVar("T", bound=QWidget)

VIEW_NAMES = {"kernelTab": "Your kernel", "scheduleView": "the schedule view", "occupancyView": "occupancy"}


def cell_of(recording: Recording, block_idx: tuple[int, ...], thread_idx: tuple[int, ...]) -> Cell | None:
    """The map cell of one thread (``Recording.cell_of``), or None outside the recorded window."""
    b, d, t = block_idx, recording.config.block.as_tuple(), thread_idx
    cell = recording.cell_of((b[0] * d[0] + t[0], b[1] * d[1] + t[1], b[2] * d[2] + t[2]))
    return Cell(*cell) if cell is not None else None


class LessonHost(Protocol):
    """What the demonstrations use of the lesson panel (``tab.LessonPanel``), named here so that
    the panel and this module do not import each other."""

    pages: PageKeys
    demoFinished: Any  # Signal(str, str): section, what happened
    _kind: str

    def window(self) -> QWidget: ...
    def _status(self, text: str) -> None: ...
    def _where(self) -> str: ...
    def _label_buttons(self) -> None: ...
    def _add_figure(self, section: str, png: bytes, caption: str, replace: bool = False) -> None: ...


class LessonDemos(QObject):
    """Try-its of the actions ``index_map``, ``vecadd`` and ``open_view``; a child of the panel,
    so its connections to the session go with it."""

    def __init__(self, panel: QWidget, host: LessonHost, session: RunSession | None) -> None:
        super().__init__(panel)
        self._panel = panel
        self._host = host
        self._session = session
        self.colour_turn: dict[str, int] = {}  # section → which of its colourings comes next
        self._pending_map: tuple[str, TryIt, LaunchConfig] | None = None
        self._pending_vecadd: tuple[str, TryIt] | None = None
        if session is not None:
            session.resultArrived.connect(self._on_result)
            session.runFailed.connect(self._on_failed)
            session.recordingChanged.connect(self._on_recording)

    def _status(self, text: str) -> None:
        self._host._status(text)

    def _where(self) -> str:
        return self._host._where()

    def _find(self, kind: type[T], name: str) -> T | None:
        """The widget ``name`` elsewhere in the panel's window (None when the panel is alone)."""
        top = self._panel.window()
        return top.findChild(kind, name) if top is not self._panel else None

    def _map_tab(self) -> IndexMapTab | None:
        return cast("IndexMapTab | None", self._find(QWidget, "mapSplitter"))

    def try_index_map(self, s: Step, t: TryIt) -> None:
        w, session = self._map_tab(), self._session
        if w is None or session is None:
            self._status("The index map is not available here.")
            return
        if not session.can_run:
            self._status("Busy: wait until the current run has finished.")
            return
        config = LaunchConfig.of(tuple(t.params["grid"]), tuple(t.params["block"]))
        colours: tuple[str, ...] = tuple(t.params.get("colors", ()))
        shown = session.recording is not None and session.recording.config == config
        turn = self.colour_turn.get(s.section)
        # A second press on a map already run for this step shows its next colouring.
        turn = 0 if turn is None or not shown else (turn + 1) % max(1, len(colours))
        self.colour_turn[s.section] = turn
        self._host._label_buttons()
        if not shown:
            self._pending_map = (s.section, t, config)
            self._status(f"Running {config.launch_line('kernel', None)} on {self._where()} …")
        # The index map colours, comes forward and records (unless it shows the launch already);
        # the recording arrives through recordingChanged.
        self._host.pages.open_page_of(
            w, lambda: session.show_launch(config, colours[turn] if colours else "")
        )
        if shown:
            self._after_map(s.section, t, colour_only=True)

    def _on_recording(self, recording: Recording) -> None:
        pending = self._pending_map
        if pending is None or recording.config != pending[2]:
            return
        self._pending_map = None
        section, t, _config = pending
        self._after_map(section, t)

    def _after_map(self, section: str, t: TryIt, colour_only: bool = False) -> None:
        w = self._map_tab()
        assert w is not None and self._session is not None
        recording = self._session.recording
        assert recording is not None
        _planes, rows, cols = recording.plane_shape()
        text = f"The index map shows {rows} rows × {cols} columns, coloured by {w.indexMap.color_field()}."
        inspect = t.params.get("inspect")
        if inspect:
            b, th = tuple(inspect["blockIdx"]), tuple(inspect["threadIdx"])
            self._pin(recording, b, th)
            text += f" The inspector works out the index of blockIdx {b}, threadIdx {th}."
        self._status(text + " Page Down: next step; Page Up: back to this one.")
        self._host._add_figure(
            section,
            w.indexMap.render_png(1200),
            f"{recording.config.launch_line('kernel', None)}, coloured by {w.indexMap.color_field()}",
            replace=not colour_only,
        )
        self._host.demoFinished.emit(section, text)

    def _pin(self, recording: Recording, block_idx: tuple[int, ...], thread_idx: tuple[int, ...]) -> None:
        """Pin one thread through the inspector's Go to, as a teacher would type it, so the
        inspector shows its worked formula."""
        w = self._map_tab()
        assert w is not None
        address = f"blockIdx {','.join(map(str, block_idx))} threadIdx {','.join(map(str, thread_idx))}"
        if not w.inspector.go_to(address):
            cell = cell_of(recording, block_idx, thread_idx)
            if cell is not None:
                w.indexMap.pin(cell)

    def try_vecadd(self, s: Step, t: TryIt) -> None:
        panel = cast("VecaddPanel | None", self._find(QWidget, "vecaddPanel"))
        if panel is None:
            self._status("The vector-add panel is not available here.")
            return
        n = t.params.get("n") or default_n(self._host._kind)
        panel.vecaddN.setValue(int(n))
        panel.vecaddBlock.setValue(int(t.params.get("block", 256)))
        panel.vecaddVariant.setCurrentIndex(1 if t.params.get("unguarded") else 0)
        self._host.pages.open_page_of(panel)
        self._pending_vecadd = (s.section, t)
        self._status(f"Running the vector add on {self._where()} (the Vector add tab) …")
        panel.run()

    def try_open_view(self, t: TryIt) -> None:
        name = str(t.params["view"])
        words = VIEW_NAMES.get(name, name)
        target = self._find(QWidget, name)
        if target is None or not self._host.pages.open_page_of(target):
            self._status(f"{words[0].upper() + words[1:]} is not available in this build.")
            return
        self._status(f"Opened {words}. Page Up comes back here.")

    # --- the runs it started --------------------------------------------------------------------
    def _on_result(self, experiment: str, result: Any) -> None:
        if experiment != "vecadd" or self._pending_vecadd is None:
            return
        section, _t = self._pending_vecadd
        self._pending_vecadd = None
        verdict = "Test succeeded" if getattr(result, "verified", False) else "Test failed"
        if getattr(result, "kernel_error", None):
            verdict += f": {result.kernel_error}"
        self._status(f"Vector add: {verdict}. The Vector add tab shows the run.")
        panel = self._find(QWidget, "vecaddPanel")
        if panel is not None:
            self._host._add_figure(section, widget_png(panel), f"The vector add: {verdict}")
        self._host.demoFinished.emit(section, verdict)

    def _on_failed(self, experiment: str, _request: Any, exc: BaseException, _tb: str) -> None:
        if experiment == "vecadd" and self._pending_vecadd is not None:
            if isinstance(exc, LaunchTooLarge):
                # The session asks "Run it anyway?"; Yes runs it and its result comes here.
                self._status(f"The vector add asks first: {exc}.")
                return
            section, _t = self._pending_vecadd
            self._pending_vecadd = None
            if isinstance(exc, LaunchRejected):
                # The vector-add panel opens launchErrorDialog with the driver's text.
                text = f"Launch rejected, as the chapter says: {exc.driver_text}. {exc.explanation}"
            else:
                text = f"The vector add failed: {type(exc).__name__}: {exc}"
            self._status(text)
            self._host.demoFinished.emit(section, text)
        elif experiment == "record" and self._pending_map is not None:
            self._pending_map = None
            self._status(f"The index map run failed: {exc}")
