"""The index map tab's side panels, worked out by hand line by line: the recording window panel
(budget words, origin order, arrows and their enabled state), the thread inspector (z-plane,
formulas on two lines, the Go to box), the launch panel (which spin box is which, presets, the
warnings) and the block selector (thread (0, 0, 0) of a block in a non-square block).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_backends import FakeHostBackend
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.backends.base import BackendInfo
from simtviz.core.launch import LaunchConfig
from simtviz.core.limits import DeviceLimits
from simtviz.core.window import Window
from simtviz.qt.map import Cell
from simtviz.qt.session import RecordRequest, RunSession
from simtviz.qt.tabs.index_map.block_select import block_cell
from simtviz.qt.tabs.index_map.launch import LaunchPanel
from simtviz.qt.tabs.index_map.tab import IndexMapTab
from simtviz.qt.tabs.index_map.window import RecordingWindowPanel, budget_text, moved_origin


@pytest.fixture
def session(qtbot) -> Iterator[RunSession]:
    s = RunSession(lambda: FakeHostBackend())
    qtbot.waitUntil(lambda: s.backend is not None, timeout=RUN_TIMEOUT_MS)
    yield s
    s.close()


@pytest.fixture
def tab(qtbot, session: RunSession) -> IndexMapTab:
    t = IndexMapTab(session)
    qtbot.addWidget(t)
    return t


def record(qtbot, session: RunSession, config: LaunchConfig, budget: int = 1 << 20, origin=(0, 0, 0)) -> None:
    with qtbot.waitSignal(session.recordingChanged, timeout=RUN_TIMEOUT_MS):
        assert session.record(RecordRequest(config, False, budget, origin))


# --- recording window panel ----------------------------------------------------------------------
def test_budget_words_in_mib() -> None:
    # 92 bytes a thread: 2^20 threads × 92 B = 92 MiB; 2,000,000 × 92 = 184,000,000 B = 175.5 → 175 MiB.
    assert budget_text(1 << 20) == "1,048,576 threads ≈ 92 MiB of records"
    assert budget_text(2_000_000) == "2,000,000 threads ≈ 175 MiB of records"


def test_the_budget_note_and_signal_follow_the_spin_box(qtbot) -> None:
    panel = RecordingWindowPanel(1 << 20)
    qtbot.addWidget(panel)
    got: list[int] = []
    panel.budgetChanged.connect(got.append)
    panel.budgetSpin.setValue(2_000_000)
    assert got == [2_000_000]
    assert panel.budgetNote.text() == "2,000,000 threads ≈ 175 MiB of records"


def test_the_origin_spins_read_x_y_z_in_order(qtbot) -> None:
    panel = RecordingWindowPanel(1 << 20)
    qtbot.addWidget(panel)
    assert [s.prefix() for s in panel.originSpins] == ["x ", "y ", "z "]
    panel.set_origin((96, 4, 1))
    assert panel.origin() == (96, 4, 1)
    moved: list[tuple[int, int, int]] = []
    panel.moveRequested.connect(moved.append)
    panel.recordButton.click()
    assert moved == [(96, 4, 1)]


def test_a_1d_window_stops_at_the_last_whole_window() -> None:
    # 10 blocks of 32: x 0 … 319; a window of 3 blocks (96) at 192 steps to 288, clipped to 320 − 96 = 224.
    config = LaunchConfig.of((10, 1, 1), (32, 1, 1))
    assert moved_origin(config, Window((192, 0, 0), (96, 1, 1)), 1, 0) == (224, 0, 0)
    assert moved_origin(config, Window((96, 0, 0), (96, 1, 1)), -1, 0) == (0, 0, 0)


def test_a_2d_window_steps_down_by_its_height_and_stops_at_the_bottom() -> None:
    # 128 × 32 threads, a 32-wide, 8-high window: from y 16 down is 24 (= 32 − 8, the last that fits).
    config = LaunchConfig.of((8, 8, 1), (16, 4, 1))
    assert moved_origin(config, Window((0, 16, 0), (32, 8, 1)), 1, 0) == (0, 24, 0)
    assert moved_origin(config, Window((0, 24, 0), (32, 8, 1)), 1, 0) == (0, 24, 0)
    assert moved_origin(config, Window((64, 16, 5), (32, 8, 1)), -1, 0) == (64, 8, 5)


def test_the_arrows_are_enabled_only_where_the_window_can_go(qtbot) -> None:
    panel = RecordingWindowPanel(1 << 20)
    qtbot.addWidget(panel)
    config = LaunchConfig.of((8, 8, 1), (16, 4, 1))  # 128 × 32
    panel.show_window(config, Window((0, 0, 0), (32, 8, 1)))  # top-left corner
    assert panel.description.text() == "recording 256 of 4,096 threads: window x 0–31, y 0–7"
    enabled = [b.isEnabled() for b in (panel.upButton, panel.downButton, panel.leftButton, panel.rightButton)]
    assert enabled == [False, True, False, True]
    panel.show_window(config, Window((96, 24, 0), (32, 8, 1)))  # bottom-right corner
    enabled = [b.isEnabled() for b in (panel.upButton, panel.downButton, panel.leftButton, panel.rightButton)]
    assert enabled == [True, False, True, False]
    moved: list[tuple[int, int, int]] = []
    panel.moveRequested.connect(moved.append)
    panel.upButton.click()  # y 24 − 8 = 16
    assert moved[-1] == (96, 16, 0)
    assert panel.origin() == (96, 16, 0)
    panel.show_window(config, Window((96, 24, 0), (32, 8, 1)))
    panel.leftButton.click()  # x 96 − 32 = 64
    assert moved[-1] == (64, 24, 0)
    # The whole launch recorded: nowhere to go.
    panel.show_window(config, Window.full(config))
    assert not any(
        b.isEnabled() for b in (panel.upButton, panel.downButton, panel.leftButton, panel.rightButton)
    )
    panel.reset()
    assert panel.description.text() == ""
    assert panel.origin() == (0, 0, 0)


# --- thread inspector ----------------------------------------------------------------------------
def test_the_inspector_names_the_z_plane_from_the_windows_z(qtbot, tab: IndexMapTab, session) -> None:
    # Grid 2 × 1 × 3 of 4 × 2 × 2: z runs 0 … 5; a window from z 2 holds z 2, 3 (budget 8 × 2 × 2 = 32).
    config = LaunchConfig.of((2, 1, 3), (4, 2, 2))
    record(qtbot, session, config, budget=32, origin=(0, 0, 2))
    assert session.recording.window.origin[2] == 2
    tab.inspector.set_wide(False)
    tab.indexMap.pin(Cell(1, 1, 5))  # plane 1 of the window: z = 2 + 1 = 3
    assert "Map row 1, column 5, z-plane 3" in tab.inspector.text()


def test_the_formulas_put_the_numbers_on_the_next_line(qtbot, tab: IndexMapTab, session) -> None:
    record(qtbot, session, LaunchConfig.of((3, 5, 1), (48, 2, 1)))
    tab.inspector.set_wide(False)
    tab.indexMap.pin(Cell(0, 3, 50))
    # "x = threadIdx.x + blockIdx.x * blockDim.x" then, under it, "= 2 + 1 * 48 = 50".
    lines = [line.strip() for line in tab.inspector.text().splitlines()]
    assert "Map row 3, column 50" in lines
    # Thread (2, 1) of block (1, 1): x = 2 + 1 × 48 = 50, y = 1 + 1 × 2 = 3; the formula on one line,
    # its numbers alone on the next.
    x_at = lines.index("x = threadIdx.x + blockIdx.x * blockDim.x")
    assert lines[x_at + 1] == "= 2 + 1 × 48 = 50 ✓ as recorded"  # two spaces read as one in HTML
    y_at = lines.index("y = threadIdx.y + blockIdx.y * blockDim.y")
    assert lines[y_at + 1] == "= 1 + 1 × 2 = 3 ✓ as recorded"
    # Under the map (wide): no heading, the values in one paragraph joined by " · ".
    tab.inspector.set_wide(True)
    text = tab.inspector.text()
    assert "Map row 3, column 50" not in text
    assert " · " in text


def test_go_to_says_why_and_hides_the_reason_once_found(qtbot, tab: IndexMapTab, session) -> None:
    assert not tab.inspector.go_to("0,0 0,0")
    assert tab.inspector.goToMessage.text() == "⚠ press Run first: there is no map yet"
    assert not tab.inspector.goToMessage.isHidden()
    record(qtbot, session, LaunchConfig.of((3, 5, 1), (48, 2, 1)))
    pinned: list[Cell] = []
    tab.inspector.goToRequested.connect(pinned.append)
    # blockIdx (1, 2), threadIdx (3, 1): x = 1 × 48 + 3 = 51, y = 2 × 2 + 1 = 5 → row 5, column 51.
    assert tab.inspector.go_to("1,2 3,1")
    assert pinned == [Cell(0, 5, 51)]
    assert tab.inspector.goToMessage.isHidden()
    assert not tab.inspector.go_to("1440")  # 0 … 1,439
    assert tab.inspector.goToMessage.text() == "⚠ global linear index 1,440 is outside 0 … 1,439"


def test_fetching_shows_where_and_says_so(qtbot) -> None:
    from simtviz.qt.tabs.index_map.inspector import ThreadInspector

    inspector = ThreadInspector()
    qtbot.addWidget(inspector)
    inspector.show_fetching(7, "Map row 1, column 5")
    assert inspector.text().splitlines() == ["Map row 1, column 5", "Fetching this thread's record …"]
    assert inspector.row == 7


# --- launch panel --------------------------------------------------------------------------------
def test_each_spin_box_is_its_own_dimension(qtbot) -> None:
    panel = LaunchPanel()
    qtbot.addWidget(panel)
    for name, value in zip(
        ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"), (3, 5, 7, 48, 2, 6), strict=True
    ):
        panel.spins[name].setValue(value)
    assert panel.config() == LaunchConfig.of((3, 5, 7), (48, 2, 6))


def test_presets_by_index_and_their_notes(qtbot) -> None:
    panel = LaunchPanel()
    qtbot.addWidget(panel)
    changed: list[LaunchConfig] = []
    panel.configChanged.connect(changed.append)
    panel.select_preset(0)  # the first preset: the guide's vector add, 16 blocks of 256
    assert panel.config() == LaunchConfig.of((16, 1, 1), (256, 1, 1))
    assert changed == [LaunchConfig.of((16, 1, 1), (256, 1, 1))]
    assert panel.presetNote.text().startswith("The chapter launches ceil(N / 256) blocks")
    # Typed in by hand, the 3-D preset is recognised and its note shown.
    panel.set_config(LaunchConfig.of((2, 2, 2), (4, 4, 4)))
    assert panel.presetCombo.currentText() == "3-D: a 2 × 2 × 2 grid of 4 × 4 × 4 blocks"
    assert panel.presetNote.text() == "Eight z-planes; pick one with the slider or see them all tiled."
    panel.set_config(LaunchConfig.of((2, 2, 2), (4, 4, 3)))
    assert panel.presetCombo.currentText() == "Custom"
    assert panel.presetNote.text() == ""


def test_a_long_run_warning_starts_just_past_the_limit(qtbot) -> None:
    panel = LaunchPanel()
    qtbot.addWidget(panel)
    # The simulator runs 131,072 threads unasked: 128 blocks of 1,024 is exactly that.
    panel.set_config(LaunchConfig.of((128, 1, 1), (1024, 1, 1)))
    assert panel.warnings.isHidden()
    panel.set_config(LaunchConfig.of((129, 1, 1), (1024, 1, 1)))  # 132,096
    assert not panel.warnings.isHidden()
    assert "on the CUDA simulator; you will be asked before it runs." in panel.warnings.text()
    panel.set_limits(DeviceLimits(), "emu")  # 13,107,200 on the emulator
    assert panel.warnings.isHidden()
    # The emulator's 13,107,200 is exactly 12,800 blocks of 1,024; one block more is asked about.
    panel.set_config(LaunchConfig.of((12_800, 1, 1), (1024, 1, 1)))
    assert panel.warnings.isHidden()
    panel.set_config(LaunchConfig.of((12_801, 1, 1), (1024, 1, 1)))
    assert "on the CPU emulator; you will be asked before it runs." in panel.warnings.text()
    panel.set_limits(DeviceLimits(), "gpu")  # a GPU never asks
    panel.set_config(LaunchConfig.of((65535, 1, 1), (1024, 1, 1)))
    assert panel.warnings.isHidden()


def test_an_invalid_launch_says_run_stays_enabled(qtbot) -> None:
    panel = LaunchPanel()
    qtbot.addWidget(panel)
    panel.set_config(LaunchConfig.of((1, 1, 1), (1025, 1, 1)))
    assert not panel.warnings.isHidden()
    assert panel.warnings.text().endswith("Run stays enabled: press it to see the error the driver gives.")
    assert panel.warnings.text().startswith("⚠ ")
    # The code below follows the spin boxes: 1 block of 1,025 threads.
    assert "index_kernel[1, 1025](out)" in panel.code.toPlainText()


def test_the_run_button_follows_the_session_and_its_backend(qtbot, session: RunSession) -> None:
    panel = LaunchPanel(session)
    qtbot.addWidget(panel)
    session.busyChanged.emit(False)
    assert panel.runButton.isEnabled() == session.can_run
    assert panel.runButton.isEnabled()
    session.backendFailed.emit(RuntimeError("no"), "")
    assert panel.runButton.toolTip() == "No backend could start; use the CUDA simulator instead."
    session.backendReady.emit(BackendInfo("emu", "emu", "CPU emulator", DeviceLimits()))
    assert panel.runButton.toolTip() == "Launch the instrumented kernel (Ctrl+R or F5)"
    panel.set_config(LaunchConfig.of((129, 1, 1), (1024, 1, 1)))
    assert panel.warnings.isHidden()  # the emulator's limit is higher than the simulator's


# --- block selector ------------------------------------------------------------------------------
def test_a_blocks_first_thread_in_a_non_square_block(qtbot, tab: IndexMapTab, session) -> None:
    config = LaunchConfig.of((3, 5, 1), (48, 2, 1))
    record(qtbot, session, config)
    # blockIdx (1, 2): thread (0, 0) is x = 1 × 48 = 48, y = 2 × 2 = 4 → row 4, column 48.
    assert block_cell(session.recording, (1, 2, 0)) == Cell(0, 4, 48)
    texts: list[str] = []
    session.statusRequested.connect(lambda text, _ms: texts.append(text))
    assert tab._selector.select(config, (2, 4, 0))
    assert tab.indexMap.pinned() == Cell(0, 8, 96)  # x 96, y 8
    assert texts[-1] == "blockIdx (2, 4, 0): its thread (0, 0, 0) is pinned"


def test_a_block_not_recorded_moves_the_window_to_its_first_thread(
    qtbot, tab: IndexMapTab, session, monkeypatch
) -> None:
    runs: list[bool] = []
    monkeypatch.setattr(tab, "run", lambda force=False: runs.append(force))
    texts: list[str] = []
    session.statusRequested.connect(lambda text, _ms: texts.append(text))
    config = LaunchConfig.of((3, 5, 1), (48, 2, 1))
    assert not tab._selector.select(config, (2, 3, 0))
    assert runs == [False]
    assert tab.windowPanel.origin() == (96, 6, 0)  # 2 × 48, 3 × 2
    assert tab.launchPanel.config() == config
    assert (
        texts[-1]
        == "Recording record_threads[(3, 5), (48, 2)](...) to show block (2, 3, 0) in the index map …"
    )


def test_a_block_is_pinned_once_not_at_every_later_run(qtbot, tab: IndexMapTab, session) -> None:
    config = LaunchConfig.of((3, 5, 1), (48, 2, 1))
    with qtbot.waitSignal(session.recordingChanged, timeout=RUN_TIMEOUT_MS):
        assert not tab._selector.select(config, (2, 3, 0))
    assert tab.indexMap.pinned() == Cell(0, 6, 96)  # row 3 × 2 = 6, column 2 × 48 = 96
    record(qtbot, session, config)  # Run again: nothing asked for, nothing pinned
    assert tab.indexMap.pinned() is None


def test_all_z_planes_draws_one_tile_per_plane(qtbot, tab: IndexMapTab, session) -> None:
    # Grid 1 × 1 × 3 of 48 × 2 × 1: three z-planes, 0 … 2, each 2 rows × 48 columns.
    record(qtbot, session, LaunchConfig.of((1, 1, 3), (48, 2, 1)))
    tab.indexMap.set_tiled(True)
    assert [t.plane for t in tab.indexMap._tiles] == [0, 1, 2]
    assert [t.caption.textItem.toPlainText() for t in tab.indexMap._tiles] == ["z = 0", "z = 1", "z = 2"]


def test_all_z_planes_of_a_device_recording_fetches_every_plane(qtbot) -> None:
    from fake_backends import FakeGpuBackend

    session = RunSession(lambda: FakeGpuBackend())
    try:
        qtbot.waitUntil(lambda: session.backend is not None, timeout=RUN_TIMEOUT_MS)
        t = IndexMapTab(session)
        qtbot.addWidget(t)
        record(qtbot, session, LaunchConfig.of((1, 1, 3), (48, 2, 1)))  # planes 0, 1 and 2 on the "device"
        t.indexMap.set_tiled(True)
        qtbot.waitUntil(lambda: not t.indexMap.loading(), timeout=RUN_TIMEOUT_MS)
        assert [tile.plane for tile in t.indexMap._tiles] == [0, 1, 2]
    finally:
        session.close()


def test_the_budget_spin_box_steps_by_a_mebithread_up_to_2_to_the_28(qtbot) -> None:
    panel = RecordingWindowPanel(1 << 20)
    qtbot.addWidget(panel)
    assert panel.budgetSpin.maximum() == 268_435_456  # 2^28
    assert panel.budgetSpin.suffix() == " threads"
    panel.budgetSpin.stepBy(1)
    assert panel.budget() == 2_097_152  # 1,048,576 + 1,048,576
    panel.set_budget(1 << 30)
    assert panel.budget() == 268_435_456


def test_the_launch_panel_starts_custom_and_says_the_spin_limits(qtbot) -> None:
    panel = LaunchPanel()
    qtbot.addWidget(panel)
    assert panel.presetCombo.itemText(0) == "Custom"
    assert panel.spins["blockY"].toolTip() == "blockDim.y: 0 … 2,147,483,647; invalid values can be tried"
    assert panel.spins["gridZ"].toolTip() == "gridDim.z: 0 … 2,147,483,647; invalid values can be tried"
    panel.set_config(LaunchConfig.of((1 << 31, 1, 1), (32, 1, 1)))  # one past int32: shown at the limit
    assert panel.spins["gridX"].value() == 2_147_483_647


def test_narrow_windows_give_the_map_most_of_the_height(qtbot, tab: IndexMapTab, session) -> None:
    tab.resize(800, 1000)  # narrow at 11 pt (< 880 px)
    tab.show()
    qtbot.waitExposed(tab)
    record(qtbot, session, LaunchConfig.of((3, 5, 1), (48, 2, 1)))  # wide: the inspector goes under
    map_h, inspector_h = tab._innerSplitter.sizes()
    assert map_h > inspector_h
    assert abs(inspector_h / (map_h + inspector_h) - 0.3) < 0.05


def test_a_device_threads_record_arrives_in_the_inspector_and_the_hover_text(qtbot) -> None:
    from fake_backends import FakeGpuBackend

    session = RunSession(lambda: FakeGpuBackend())
    try:
        qtbot.waitUntil(lambda: session.backend is not None, timeout=RUN_TIMEOUT_MS)
        t = IndexMapTab(session)
        qtbot.addWidget(t)
        record(qtbot, session, LaunchConfig.of((3, 5, 1), (48, 2, 1)))
        qtbot.waitUntil(lambda: not t.indexMap.loading(), timeout=RUN_TIMEOUT_MS)
        t.inspector.set_wide(False)
        t.indexMap.pin(Cell(0, 3, 50))
        # Thread (50, 3): threadIdx (50 % 48, 3 % 2) = (2, 1), blockIdx (1, 1).
        qtbot.waitUntil(lambda: "Worked out" in t.inspector.text(), timeout=RUN_TIMEOUT_MS)
        assert t.inspector.text().splitlines()[0] == "Map row 3, column 50"
        assert "= 2 + 1 × 48 = 50 ✓ as recorded" in t.inspector.text()
        t.indexMap.hover(Cell(0, 9, 143))
        qtbot.waitUntil(lambda: "threadIdx = (47, 1, 0)" in t.indexMap.tooltip(), timeout=RUN_TIMEOUT_MS)
        assert t.indexMap.tooltip().startswith("<b>global linear index = 1439</b>")
    finally:
        session.close()
