"""Show one block of a launch in the index map and the thread inspector (another tab asks for it
through ``RunSession.show_block``).

``BlockSelector.select(config, block_xyz)`` pins thread (0, 0, 0) of that block. When the map
already shows that launch with the block recorded, it is pinned at once; otherwise the launch
is set in the launch panel, the recording window moved to the block, and the launch recorded
(asking first where it would run long, as any Run does); the block is pinned when it arrives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from simtviz.core.launch import LaunchConfig
from simtviz.core.recording import Recording
from simtviz.qt.map import Cell

if TYPE_CHECKING:
    from simtviz.qt.map import IndexMap
    from simtviz.qt.session import RunSession
    from simtviz.qt.tabs.index_map.launch import LaunchPanel
    from simtviz.qt.tabs.index_map.window import RecordingWindowPanel


class IndexMapTab(Protocol):
    """What the selector uses of the index map tab (``tab.IndexMapTab``, which builds it)."""

    session: RunSession
    indexMap: IndexMap
    launchPanel: LaunchPanel
    windowPanel: RecordingWindowPanel

    def run(self, force: bool = False) -> None: ...


def block_cell(recording: Recording, block_xyz: tuple[int, int, int]) -> Cell | None:
    """The map cell of thread (0, 0, 0) of block ``block_xyz`` in ``recording``, or None when the
    recording window does not hold it (see CONTRACT.md, map layout)."""
    config, window = recording.config, recording.window
    b = config.block.as_tuple()
    gx, gy, gz = (i * d for i, d in zip(block_xyz, b, strict=True))  # the thread's cuda.grid(3)
    ox, oy, oz = window.origin
    wx, wy, wz = window.size
    if not (ox <= gx < ox + wx and oy <= gy < oy + wy and oz <= gz < oz + wz):
        return None
    if config.rank == 1:
        return Cell(0, (gx - ox) // b[0], 0)
    return Cell(gz - oz, gy - oy, gx - ox)


class BlockSelector:
    """Remembers a block to pin until the recording of its launch arrives."""

    def __init__(self, tab: IndexMapTab) -> None:
        self._tab = tab
        self._pending: tuple[LaunchConfig, tuple[int, int, int]] | None = None
        tab.session.recordingChanged.connect(self._on_recording)

    def select(self, config: LaunchConfig, block_xyz: tuple[int, int, int]) -> bool:
        """Pin ``block_xyz`` of ``config``; True when pinned now, False when a run was started for it."""
        w = self._tab
        w.session.show(w)  # the index map tab comes forward
        if self._pin(w.session.recording, config, block_xyz):
            self._pending = None
            return True
        self._pending = (config, block_xyz)
        w.launchPanel.set_config(config)  # resets the recording window's origin …
        first_thread = tuple(i * d for i, d in zip(block_xyz, config.block.as_tuple(), strict=True))
        w.windowPanel.set_origin(first_thread)  # … so move it to the block afterwards
        w.session.say(f"Recording {config.launch_line()} to show block {block_xyz} in the index map …", 15000)
        w.run()
        return False

    def _pin(
        self, recording: Recording | None, config: LaunchConfig, block_xyz: tuple[int, int, int]
    ) -> bool:
        if recording is None or recording.config != config:
            return False
        cell = block_cell(recording, block_xyz)
        if cell is None:
            return False
        self._tab.indexMap.pin(cell)  # the inspector follows (threadPinned)
        self._tab.session.say(f"blockIdx {block_xyz}: its thread (0, 0, 0) is pinned", 8000)
        return True

    def _on_recording(self, recording: Any) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            self._pin(recording, *pending)
