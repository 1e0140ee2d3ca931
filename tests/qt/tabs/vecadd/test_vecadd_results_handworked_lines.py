"""The vector-add panel's results, by hand: a refused long run keeps the last result, too little
GPU memory asks for a smaller N, the GPU's sweep title, a GPU kernel error is not the simulator's,
and a timed launch count starts at one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_backends import FakeVecaddBackend
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.core.errors import LaunchTooLarge, OutOfDeviceMemory
from simtviz.core.vecadd import GPU_WOULD_NOT_RAISE, SweepRow, VecaddRequest, VecaddResult
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


def test_a_refused_long_run_keeps_the_last_result_and_memory_asks_for_a_smaller_n(both) -> None:
    panel, session = both
    assert panel.vecaddResult.text() == "Not run yet."
    panel.show_result(VecaddResult("sim", 1000, 96, 11, verified=True, max_abs_err=0.0))
    shown = panel.vecaddResult.text()
    assert shown.startswith("Test succeeded")
    request = VecaddRequest(n=2_000_000, block=256)
    session.runFailed.emit(VECADD, request, LaunchTooLarge(2_000_128, 30.0, 131_072, "the CPU"), "")
    assert panel.vecaddResult.text() == shown
    oom = OutOfDeviceMemory(8 << 30, 1 << 30, "three vectors of 2^30 doubles")
    session.runFailed.emit(VECADD, request, oom, "")
    text = panel.vecaddResult.text()
    assert text.startswith("Not enough GPU memory: ") and text.endswith("\nTry a smaller N.")


def test_the_gpu_sweep_says_median_of_20_and_a_gpu_error_is_not_the_simulators(both) -> None:
    panel, _session = both
    result = VecaddResult(
        "gpu:NVIDIA H100", 1000, 96, 11, verified=False, max_abs_err=1.0, kernel_ms=0.01,
        label="NVIDIA H100", repeat=50, kernel_error="CUDA_ERROR_ILLEGAL_ADDRESS",
        sweep=[SweepRow(96, 11, 1056, 56, kernel_ms=0.01, bandwidth_GBps=100.0)],
    )  # fmt: skip
    panel.show_result(result)
    plot = panel.vecaddSweepChart.getPlotItem()
    assert plot.titleLabel.text == "Bandwidth per block size (GPU, median of 20 launches each)"
    assert GPU_WOULD_NOT_RAISE not in panel.vecaddResult.text()
    assert panel.vecaddResult.text().startswith("Test failed")


def test_a_missing_sweep_says_why_and_empties_the_table(both) -> None:
    panel, _session = both
    panel.show_result(
        VecaddResult(
            "sim", 1000, 96, 11, verified=True, max_abs_err=0.0,
            sweep=[SweepRow(96, 11, 1056, 56, sim_wall_ms=1.0)],
        )
    )  # fmt: skip
    assert panel.vecaddSweepTable.rowCount() == 1
    note = "No block-size sweep: the unguarded kernel raised IndexError"
    panel.show_result(VecaddResult("sim", 1000, 96, 11, verified=False, max_abs_err=0.0, sweep_note=note))
    plot = panel.vecaddSweepChart.getPlotItem()
    assert plot.titleLabel.text == "No block-size sweep: the unguarded kernel raised first (see the result)"
    assert panel.vecaddSweepChart.toolTip() == note
    assert panel.vecaddSweepTable.rowCount() == 0


def test_at_least_one_timed_launch(both) -> None:
    panel, _session = both
    assert panel.vecaddRepeat.minimum() == 1
    panel.vecaddRepeat.setValue(0)
    assert panel.request().repeat == 1


def test_a_rejected_launch_says_the_drivers_words_and_that_nothing_ran(both, monkeypatch) -> None:
    from simtviz.core.errors import LaunchRejected
    from simtviz.core.launch import LaunchConfig

    panel, session = both
    opened: list[object] = []
    monkeypatch.setattr(
        "simtviz.qt.tabs.vecadd.panel.dialogs.show_launch_error", lambda p, e: opened.append(e)
    )
    exc = LaunchRejected("CUDA_ERROR_INVALID_VALUE", LaunchConfig.of(1, 2048), [], "CUDAError")
    session.runFailed.emit(VECADD, VecaddRequest(n=1000, block=2048), exc, "")
    assert panel.vecaddResult.text() == (
        "Launch rejected: CUDA_ERROR_INVALID_VALUE\n"
        "The driver did not say which limit; see the details.\n"
        "Nothing ran."
    )
    assert opened == [exc]  # the same dialog as the index map's
