"""The vector-add panel's words line by line, by hand, on a simulator that answers at once:
the launch line at N not a multiple of the block, the 131,072 threads asked about first (exactly
at the limit: not asked), what a run says while it runs and when it fails, the timings' dashes,
and the sweep's table in its columns."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_backends import FakeVecaddBackend
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.backends.base import BackendInfo
from simtviz.core.errors import Cancelled
from simtviz.core.vecadd import SweepRow, VecaddRequest, VecaddResult
from simtviz.qt.session import VECADD, RunSession
from simtviz.qt.tabs.vecadd.panel import VecaddPanel


@pytest.fixture
def both(qtbot) -> Iterator[tuple[VecaddPanel, RunSession]]:
    session = RunSession(lambda: FakeVecaddBackend())
    p = VecaddPanel(session)
    qtbot.addWidget(p)
    qtbot.waitUntil(lambda: session.backend is not None, timeout=RUN_TIMEOUT_MS)
    yield p, session
    session.close()


@pytest.fixture
def panel(both) -> VecaddPanel:
    return both[0]


def test_the_launch_line_of_1000_by_96(panel: VecaddPanel) -> None:
    panel.vecaddN.setValue(1000)
    panel.vecaddBlock.setValue(96)
    # ceil(1,000 / 96) = 11 blocks (10 × 96 = 960 < 1,000) → 11 × 96 = 1,056 threads, 56 idle.
    text = panel.vecaddLaunch.text()
    assert text.startswith(
        "grid_size = ceil(1,000 / 96) = 11 blocks → 1,056 threads, 56 idle in the last block."
    )
    assert " On the CUDA simulator: about " in text and text.endswith(".")
    assert "asks first" not in text and "more than any GPU allows" not in text
    code = panel.vecaddCode.toPlainText().splitlines()
    assert "vector_size = 1000" in code and "block_size = 96" in code
    assert panel.vecaddCodeNote.text() == (
        "On the CUDA simulator the same kernel runs on NumPy arrays (no CuPy without a GPU)."
    )


def test_exactly_131072_threads_run_unasked_and_one_block_more_asks(panel: VecaddPanel) -> None:
    panel.vecaddBlock.setValue(256)
    panel.vecaddRepeat.setValue(1)
    panel.vecaddN.setValue(131_072)  # 512 blocks × 256 = 131,072 threads: exactly the limit
    assert "512 blocks → 131,072 threads, 0 idle" in panel.vecaddLaunch.text()
    assert "asks first" not in panel.vecaddLaunch.text()
    assert not panel.needs_confirmation(panel.request())
    panel.vecaddN.setValue(131_073)  # 513 blocks × 256 = 131,328 threads
    assert panel.vecaddLaunch.text().endswith(" — asks first.")
    assert panel.needs_confirmation(panel.request())
    # Two timed launches of 512 blocks are 262,144 simulated threads: asked too.
    panel.vecaddN.setValue(131_072)
    panel.vecaddRepeat.setValue(2)
    assert panel.vecaddLaunch.text().endswith(" — asks first.")


def test_a_gpu_backend_gives_the_gpus_defaults_unless_n_was_typed(panel: VecaddPanel) -> None:
    gpu = BackendInfo("gpu", "gpu:NVIDIA H100", "NVIDIA H100", panel._session.info.limits)
    panel._on_ready(gpu)
    assert panel.vecaddN.value() == 16_777_227  # 2^24 + 11, the guide's vector_size
    assert panel.vecaddRepeat.value() == 50
    panel.vecaddN.setValue(1000)  # the teacher types an N: a backend ready later keeps it
    panel._on_ready(gpu)
    assert panel.vecaddN.value() == 1000


def test_the_buttons_wait_while_any_run_is_busy(both) -> None:
    panel, session = both
    session.busyChanged.emit(True)
    assert not panel.vecaddRunButton.isEnabled() and not panel.vecaddSweepButton.isEnabled()
    session.busyChanged.emit(False)
    assert panel.vecaddRunButton.isEnabled() and panel.vecaddSweepButton.isEnabled()


def test_a_started_run_says_its_launch_and_where(both) -> None:
    panel, session = both
    # ceil(1,000 / 96) = 11 blocks
    session.runStarted.emit(VECADD, VecaddRequest(n=1000, block=96))
    assert panel.vecaddResult.text() == "Running vecadd[11, 96] on the CUDA simulator…"
    assert panel.vecaddProgress.label.text().startswith("Running the vector add (N = 1,000) — estimated ")
    session.runStarted.emit("record", VecaddRequest(n=5, block=2))  # another tab's run
    assert panel.vecaddResult.text() == "Running vecadd[11, 96] on the CUDA simulator…"


def test_a_failed_run_says_why_and_another_experiments_failure_is_ignored(both) -> None:
    panel, session = both
    request = VecaddRequest(n=1000, block=96)
    session.runFailed.emit(VECADD, request, ValueError("boom"), "")
    assert panel.vecaddResult.text() == "The run failed: ValueError: boom"
    session.runFailed.emit(VECADD, request, Cancelled("stop"), "")
    assert panel.vecaddResult.text() == "Cancelled."
    session.runFailed.emit("record", request, ValueError("other"), "")
    assert panel.vecaddResult.text() == "Cancelled."


def test_timings_before_a_run_are_dashes_and_unmeasured_ones_say_so(panel: VecaddPanel) -> None:
    before = {name.text(): shown.text() for name, shown in panel._timing_labels.values()}
    assert set(before.values()) == {"—"}
    panel.show_result(VecaddResult("sim", 1000, 96, 11, verified=True, max_abs_err=0.0, sim_wall_ms=3.0))
    kernel = panel._timing_labels["kernel (GPU)"][1].text()
    assert kernel == "— (not measurable here)"


def test_the_sweep_table_keeps_block_grid_idle_time_and_bandwidth_apart(panel: VecaddPanel) -> None:
    result = VecaddResult(
        "gpu:NVIDIA H100", 1000, 96, 11, verified=True, max_abs_err=0.0, kernel_ms=0.01,
        bandwidth_GBps=100.0, label="NVIDIA H100", repeat=50,
        sweep=[
            # N = 1,000: 96 threads → 11 blocks, 56 idle; 256 → 4 blocks (1,024), 24 idle
            SweepRow(96, 11, 1056, 56, kernel_ms=0.012345, bandwidth_GBps=1234.6),
            SweepRow(256, 4, 1024, 24, kernel_ms=0.5, bandwidth_GBps=None),
        ],
    )  # fmt: skip
    panel.show_result(result)
    table = panel.vecaddSweepTable
    heads = [table.horizontalHeaderItem(c).text() for c in range(5)]
    assert heads == ["block", "grid", "idle threads", "time", "GB/s"]
    rows = [[table.item(r, c).text() for c in range(5)] for r in range(table.rowCount())]
    assert rows == [["96", "11", "56", "0.0123 ms", "1,235"], ["256", "4", "24", "0.5000 ms", "—"]]
    ticks = panel.vecaddSweepChart.getAxis("bottom")._tickLevels
    assert ticks == [[(0, "96"), (1, "256")]]
    assert list(panel._bars.opts["height"]) == [1234.6, 0.0]  # bandwidth on a GPU, none → 0


def test_the_simulators_sweep_times_in_whole_milliseconds(panel: VecaddPanel) -> None:
    result = VecaddResult(
        "sim", 1000, 96, 11, verified=True, max_abs_err=0.0,
        sweep=[SweepRow(96, 11, 1056, 56, sim_wall_ms=1.6), SweepRow(256, 4, 1024, 24, sim_wall_ms=12.4)],
    )  # fmt: skip
    panel.show_result(result)
    table = panel.vecaddSweepTable
    assert [table.item(r, 3).text() for r in range(2)] == ["2 ms (sim)", "12 ms (sim)"]
    plot = panel.vecaddSweepChart.getPlotItem()
    assert plot.getAxis("left").labelText == "wall-clock on the CUDA simulator (ms)"
    assert plot.titleLabel.text == "Wall-clock per block size on the CUDA simulator (not GPU bandwidth)"
    assert list(panel._bars.opts["height"]) == [1.6, 12.4]
