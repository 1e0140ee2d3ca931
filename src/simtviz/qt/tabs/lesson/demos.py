"""The lesson's demonstrations that drive the rest of the app: the index map (through the
session's ``show_launch`` intent; then its map and inspector for the figure and the pinned
thread), the vector-add panel, and the views found by objectName in the panel's window.

A mixin of ``LessonPanel``: it uses the panel's session, status line, figures and tab switching.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from PySide6.QtWidgets import QComboBox, QSpinBox, QWidget

from simtviz.core.launch import LaunchConfig
from simtviz.core.lesson import Step, TryIt
from simtviz.core.vecadd import default_n
from simtviz.qt.map import Cell

if TYPE_CHECKING:
    from simtviz.core.recording import Recording
    from simtviz.qt.session import RunSession
    from simtviz.qt.tabs.index_map.tab import IndexMapTab

T = TypeVar("T", bound=QWidget)

VIEW_NAMES = {"kernelTab": "Your kernel", "scheduleView": "the schedule view", "occupancyView": "occupancy"}


def cell_of(recording: Recording, block_idx: tuple[int, ...], thread_idx: tuple[int, ...]) -> Cell | None:
    """The map cell of one thread (CONTRACT.md map layout), or None outside the recorded window."""
    config, origin, size = recording.config, recording.window.origin, recording.window.size
    g = [b * d + t for b, d, t in zip(block_idx, config.block.as_tuple(), thread_idx, strict=True)]
    x, y, z = (g[i] - origin[i] for i in range(3))
    if not all(0 <= v < s for v, s in zip((x, y, z), size, strict=True)):
        return None
    if config.rank == 1:
        return Cell(0, x // config.block.x, x % config.block.x)
    return Cell(z, y, x)


class LessonDemos:
    """Try-its of the actions ``index_map``, ``vecadd`` and ``open_view``."""

    _session: RunSession | None
    _kind: str
    _colour_turn: dict[str, int]
    _pending_map: tuple[str, TryIt, LaunchConfig] | None
    _pending_vecadd: tuple[str, TryIt] | None
    demoFinished: Any

    def _status(self, text: str) -> None: ...
    def _where(self) -> str: ...
    def _label_buttons(self) -> None: ...
    def _open_page_of(self, widget: QWidget, show: Callable[[], object] | None = None) -> bool: ...
    def _add_figure(self, section: str, png: bytes, caption: str, replace: bool = False) -> None: ...

    def _find(self, kind: type[T], name: str) -> T | None:
        """The widget ``name`` elsewhere in the panel's window (None when the panel is alone)."""
        me = cast("QWidget", self)  # the mixin is always a LessonPanel (a QWidget)
        top = me.window()
        return top.findChild(kind, name) if top is not me else None

    def _map_tab(self) -> IndexMapTab | None:
        return cast("IndexMapTab | None", self._find(QWidget, "mapSplitter"))

    def _try_index_map(self, s: Step, t: TryIt) -> None:
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
        turn = self._colour_turn.get(s.section)
        # A second press on a map already run for this step shows its next colouring.
        turn = 0 if turn is None or not shown else (turn + 1) % max(1, len(colours))
        self._colour_turn[s.section] = turn
        self._label_buttons()
        if not shown:
            self._pending_map = (s.section, t, config)
            self._status(f"Running {config.launch_line('kernel', '')[:-2]} on {self._where()} …")
        # The index map colours, comes forward and records (unless it shows the launch already);
        # the recording arrives through recordingChanged.
        self._open_page_of(w, lambda: session.show_launch(config, colours[turn] if colours else ""))
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
        self._add_figure(
            section,
            w.indexMap.render_png(1200),
            f"{recording.config.launch_line('kernel', '')[:-2]}, coloured by {w.indexMap.color_field()}",
            replace=not colour_only,
        )
        self.demoFinished.emit(section, text)

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

    def _try_vecadd(self, s: Step, t: TryIt) -> None:
        panel = self._find(QWidget, "vecaddPanel")
        if panel is None:
            self._status("The vector-add panel is not available here.")
            return
        n = t.params.get("n") or default_n(self._kind)
        panel.findChild(QSpinBox, "vecaddN").setValue(int(n))
        panel.findChild(QSpinBox, "vecaddBlock").setValue(int(t.params.get("block", 256)))
        panel.findChild(QComboBox, "vecaddVariant").setCurrentIndex(1 if t.params.get("unguarded") else 0)
        self._open_page_of(panel)
        self._pending_vecadd = (s.section, t)
        self._status(f"Running the vector add on {self._where()} (the Vector add tab) …")
        panel.run()  # type: ignore[attr-defined]

    def _try_open_view(self, t: TryIt) -> None:
        name = str(t.params["view"])
        words = VIEW_NAMES.get(name, name)
        target = self._find(QWidget, name)
        if target is None or not self._open_page_of(target):
            self._status(f"{words[0].upper() + words[1:]} is not available in this build.")
            return
        self._status(f"Opened {words}. Page Up comes back here.")
