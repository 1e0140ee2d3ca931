"""The occupancy view's words line by line, worked out by hand for cc 9.0 (64 warps, 32 blocks,
65,536 registers in 4 quarters allocated per warp in 256s, 228 KiB = 233,472 B of shared memory
allocated in 128 B with 1 KiB reserved per block), and the driver's figure on a GPU."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import QObject, Signal

from simtviz.backends.schedule.occupancy import GpuOccupancyFacts
from simtviz.core.schedule.occupancy import PROFILES
from simtviz.qt.tabs.schedule.occupancy import OccupancyView


@pytest.fixture
def view(qtbot) -> OccupancyView:
    v = OccupancyView()
    qtbot.addWidget(v)
    v.set_device("9.0")
    return v


def cells(view: OccupancyView) -> dict[str, tuple[str, bool, str]]:
    t = view.occupancyLimits
    return {
        t.verticalHeaderItem(r).text(): (t.item(r, 0).text(), t.item(r, 0).font().bold(), t.item(r, 1).text())
        for r in range(t.rowCount())
    }


def test_96_threads_40_registers_2_kib(view: OccupancyView) -> None:
    view.set_launch(96, 40, 2048)
    # 96 threads = 3 warps. threads: 64 // 3 = 21. registers: 40 × 32 = 1,280 a warp (a multiple
    # of 256); 16,384 // 1,280 = 12 warps a quarter × 4 = 48 warps // 3 = 16 blocks.
    # shared memory: 2,048 + 1,024 = 3,072 B; 233,472 // 3,072 = 76. The least: 16, registers.
    assert cells(view) == {
        "threads": ("21", False, "64 warps // 3 per block"),
        "blocks (cap)": ("32", False, "cc 9.0 holds at most 32"),
        "registers": ("16", True, "1,280 per warp → 48 warps // 3"),
        "shared memory": ("76", False, "233,472 B // 3,072 B per block"),
    }
    # 16 blocks × 3 warps = 48 of 64 warps = 75 %
    text = view.occupancyResult.text()
    assert "<b>16 blocks per SM</b> · 48 of 64 warps · <b>75%</b> occupancy" in text
    assert text.endswith("limited by <b>registers</b>")
    plot = view.occupancyChart.getPlotItem()
    assert plot.titleLabel.text == "cc 9.0, 40 registers, 2,048 B: this launch (96 threads) circled"
    assert plot.getAxis("bottom").labelText == "threads per block"
    assert plot.getAxis("left").labelText == "occupancy (%)"
    xs, ys = view._here.getData()
    assert (list(xs), list(ys)) == ([96.0], [75.0])
    assert view._here_line.value() == 96


def test_no_registers_is_no_limit_and_threads_limit(view: OccupancyView) -> None:
    view.set_launch(96, 0, 0)
    # threads 21; registers: none asked for; shared memory: only the 1,024 B reserved, 228 blocks.
    # 21 blocks × 3 = 63 of 64 warps = 98.4 %, shown as 98 %.
    assert cells(view) == {
        "threads": ("21", True, "64 warps // 3 per block"),
        "blocks (cap)": ("32", False, "cc 9.0 holds at most 32"),
        "registers": ("no limit", False, "no registers asked for"),
        "shared memory": ("228", False, "233,472 B // 1,024 B per block"),
    }
    assert "<b>21 blocks per SM</b> · 63 of 64 warps · <b>98%</b> occupancy" in view.occupancyResult.text()
    assert "cannot run at all" not in view.occupancyResult.text()


def test_a_block_that_fits_nowhere_says_so(view: OccupancyView) -> None:
    # 1,024 threads × 255 registers: 255 × 32 = 8,160 → 8,192 a warp × 32 warps = 262,144 > 65,536
    view.set_launch(1024, 255, 0)
    text = view.occupancyResult.text()
    assert "<b>0 blocks per SM</b> · 0 of 64 warps · <b>0%</b> occupancy" in text
    assert text.endswith(" — <b>this block cannot run at all</b> on this device")


def test_the_public_profile_note_names_its_compute_capability(view: OccupancyView) -> None:
    view.set_device("8.0")
    note = view.occupancyNote.text()
    assert note.startswith("<i>Computed from a public profile of compute capability 8.0 (")
    assert "not measured" in note


def test_the_widgets_edit_the_figures_they_name(view: OccupancyView) -> None:
    view.occupancyBlock.setValue(96)
    view.occupancyRegs.setValue(40)
    view.occupancySmem.setValue(2048)
    s = view.summary()
    assert (s["block"], s["regs_per_thread"], s["smem_per_block"], s["blocks_per_sm"]) == (96, 40, 2048, 16)


# --- on a GPU: the driver's own figure -----------------------------------------------------------


class Bridge:
    def __init__(self) -> None:
        self.pending: list[tuple] = []

    def submit(self, _name, fn, on_result=None, on_error=None, low_priority=False) -> None:
        self.pending.append((fn, on_result))

    def flush(self) -> None:
        while self.pending:
            fn, on_result = self.pending.pop(0)
            on_result(fn(None, None))


class Session(QObject):
    backendReady = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.info = None
        self.bridge = Bridge()


H100 = dataclasses.replace(PROFILES["9.0"], name="NVIDIA H100 80GB HBM3", measured=True)


@pytest.fixture
def gpu(qtbot, monkeypatch):
    asked: list[tuple] = []
    figures = {(256, 0, False): 8, (256, 0, True): 3, (512, 0, False): 7}

    def driver_figure(block: int, smem: int, heavy: bool) -> int:
        asked.append((block, smem, heavy))
        return figures[(block, smem, heavy)]

    monkeypatch.setattr("simtviz.backends.schedule.occupancy.driver_figure", driver_figure)
    session = Session()
    v = OccupancyView(session)
    qtbot.addWidget(v)
    v.occupancyBlock.setValue(256)
    v.occupancySmem.setValue(0)
    # the schedule kernel: 30 registers; its register-heavy variant: 72
    v.set_gpu_facts(GpuOccupancyFacts(profile=H100, kernel_regs=30, heavy_regs=72, static_smem=0))
    return v, session, asked


def test_this_gpu_comes_first_with_the_kernels_registers(gpu) -> None:
    view, _session, _asked = gpu
    assert view.occupancyDevice.currentIndex() == 0
    assert view.occupancyDevice.itemText(0) == "this GPU: NVIDIA H100 80GB HBM3 (its attributes)"
    assert view.occupancyRegs.value() == 30
    assert view.occupancyNote.text() == "Computed from this GPU's attributes; asking the driver …"


def test_the_driver_agreeing_and_disagreeing_is_said(gpu) -> None:
    view, session, asked = gpu
    session.bridge.flush()
    # 30 registers: 960 → 1,024 a warp; 16,384 // 1,024 = 16 × 4 = 64 warps // 8 = 8 = threads' 8
    assert set(asked) == {(256, 0, False)}  # the schedule kernel, not the heavy one
    assert view.occupancyNote.text() == (
        "Computed from this GPU's attributes: 8 blocks per SM. "
        "<b>The driver agrees: 8</b> (cuOccupancyMaxActiveBlocksPerMultiprocessor)."
    )
    assert view.driver_blocks_per_sm() == 8
    view.occupancyBlock.setValue(512)  # 16 warps: 64 // 16 = 4; the driver (here) says 7
    session.bridge.flush()
    assert view.occupancyNote.text().startswith(
        "<span style='color:#d32f2f'><b>⚠ The driver says 7 blocks per SM; simtviz computed 4.</b></span>"
    )


def test_the_heavy_kernels_registers_ask_for_the_heavy_kernel(gpu) -> None:
    view, session, asked = gpu
    session.bridge.flush()
    view.occupancyRegs.setValue(72)
    session.bridge.flush()
    # 72 × 32 = 2,304 a warp; 16,384 // 2,304 = 7 × 4 = 28 warps // 8 = 3
    assert asked[-1] == (256, 0, True)
    assert "3 blocks per SM. <b>The driver agrees: 3</b>" in view.occupancyNote.text()
    view.occupancyRegs.setValue(40)  # neither kernel's: nothing to ask the driver
    assert view.occupancyNote.text() == (
        "Computed from this GPU's attributes (NVIDIA H100 80GB HBM3). The driver's own figure is "
        "shown for the schedule kernel's register counts (30 or 72 registers)."
    )
    assert view.driver_blocks_per_sm() is None
