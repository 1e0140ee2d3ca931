"""The vector-add panel on the CPU simulator: runs through the worker, verifies, rejects 2048."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_backends import FakeVecaddBackend
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
)

from simtviz.core.limits import DRIVER_INVALID_VALUE
from simtviz.core.vecadd import GPU_WOULD_NOT_RAISE, SIM_DEFAULT_N, SweepRow, VecaddResult
from simtviz.qt import dialogs
from simtviz.qt.session import RunSession
from simtviz.qt.tabs.vecadd.panel import VecaddPanel

TIMEOUT_MS = 90_000


@pytest.fixture
def session() -> Iterator[RunSession]:
    # The desktop app's own simulator backend: launches run in its child process.
    from simtviz.backends.sim_process import SimProcessBackend

    s = RunSession(lambda: SimProcessBackend())
    yield s
    s.close()


@pytest.fixture
def panel(qtbot, session: RunSession) -> VecaddPanel:
    p = VecaddPanel(session)
    qtbot.addWidget(p)
    p.show()
    qtbot.waitUntil(lambda: session.backend is not None, timeout=TIMEOUT_MS)
    return p


def result_text(panel: VecaddPanel) -> str:
    return panel.findChild(QLabel, "vecaddResult").text()


def click_run(qtbot, panel: VecaddPanel, name: str = "vecaddRunButton") -> None:
    button = panel.findChild(QPushButton, name)
    qtbot.waitUntil(button.isEnabled, timeout=TIMEOUT_MS)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_widgets_carry_the_contracts_names(panel: VecaddPanel) -> None:
    assert panel.objectName() == "vecaddPanel"
    block = panel.findChild(QSpinBox, "vecaddBlock")
    assert block.minimum() <= 0 and block.maximum() >= 4096
    n = panel.findChild(QSpinBox, "vecaddN")
    assert n.value() == SIM_DEFAULT_N  # the simulator's default, not 2^24 + 11
    assert panel.findChild(QPushButton, "vecaddRunButton") is not None
    code = panel.findChild(QPlainTextEdit, "vecaddCode")
    assert code.isReadOnly() and "if work_index < C.size:" in code.toPlainText()
    assert "cp.random.uniform(-1, 1, vector_size)" in code.toPlainText()


def test_typing_two_to_the_24_plus_11_gives_that_n(qtbot, panel: VecaddPanel) -> None:
    box = panel.findChild(QSpinBox, "vecaddN")
    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), "16777227")  # the guide's vector_size: 2^24 + 11
    qtbot.keyClick(box.lineEdit(), Qt.Key.Key_Return)
    request = panel.request()
    assert request.n == 16_777_227 and box.maximum() == 2_147_483_647
    # ceil(16,777,227 / 256) = 65,537 blocks × 256 = 16,777,472 threads, 245 of them idle.
    assert "= 65,537 blocks → 16,777,472 threads, 245 idle" in panel.findChild(QLabel, "vecaddLaunch").text()


def test_runs_on_the_simulator_and_says_test_succeeded(qtbot, panel: VecaddPanel) -> None:
    panel.findChild(QSpinBox, "vecaddN").setValue(1011)
    with qtbot.waitSignal(panel.resultShown, timeout=TIMEOUT_MS) as shown:
        click_run(qtbot, panel)
    qtbot.waitUntil(lambda: "Test succeeded" in result_text(panel), timeout=TIMEOUT_MS)
    text = result_text(panel)
    assert "vecadd[4, 256]" in text and "CPU-simulator wall-clock" in text
    result = shown.args[0]
    assert result is not None and result.verified and result.kernel_ms is None
    tips = panel.timing_tooltips()
    assert "median" in tips["kernel (GPU)"] and "perf_counter" in tips["host launch overhead"]


def test_block_2048_opens_the_launch_error_dialog(qtbot, panel: VecaddPanel) -> None:
    panel.findChild(QSpinBox, "vecaddBlock").setValue(2048)
    click_run(qtbot, panel)

    def dialog() -> QMessageBox | None:
        return panel.findChild(QMessageBox, "launchErrorDialog")

    qtbot.waitUntil(lambda: dialog() is not None and dialog().isVisible(), timeout=TIMEOUT_MS)
    box = dialog()
    assert DRIVER_INVALID_VALUE in box.informativeText() and "2,048 threads" in box.text()
    assert "2,048 &gt; 1,024" in box.informativeText() or "2,048 > 1,024" in box.informativeText()
    box.close()


def test_unguarded_in_the_simulator_shows_the_index_error_and_the_gpu_difference(
    qtbot, panel: VecaddPanel
) -> None:
    panel.findChild(QSpinBox, "vecaddN").setValue(1011)
    variant = panel.findChild(QComboBox, "vecaddVariant")
    variant.setCurrentIndex(1)
    assert "if work_index < C.size" not in panel.findChild(QPlainTextEdit, "vecaddCode").toPlainText()
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: "Test failed" in result_text(panel), timeout=TIMEOUT_MS)
    text = result_text(panel)
    assert "IndexError" in text and GPU_WOULD_NOT_RAISE in text


def test_unguarded_sweep_in_the_simulator_says_why_there_is_no_sweep(qtbot, panel: VecaddPanel) -> None:
    panel.findChild(QSpinBox, "vecaddN").setValue(300)
    panel.findChild(QComboBox, "vecaddVariant").setCurrentIndex(1)
    with qtbot.waitSignal(panel.resultShown, timeout=TIMEOUT_MS):
        click_run(qtbot, panel, "vecaddSweepButton")
    text = result_text(panel)
    assert "No block-size sweep: the unguarded kernel raised IndexError" in text
    assert "No block-size sweep" in panel.vecaddSweepChart.getPlotItem().titleLabel.text
    assert panel.vecaddSweepTable.rowCount() == 0
    # What the simulator knows: no count (it stopped at the first bad index), never a 0.
    assert "out-of-bounds writes     0" not in text and "not counted" in text
    assert text.count(GPU_WOULD_NOT_RAISE) == 1


@pytest.fixture
def asking(qtbot) -> Iterator[tuple[VecaddPanel, FakeVecaddBackend]]:
    """The panel on a simulator that runs the vector add at once, with the window's own
    "Run it anyway?" wiring (``dialogs.ask_when_too_long``) over the panel."""
    backend = FakeVecaddBackend()
    session = RunSession(lambda: backend)
    p = VecaddPanel(session)
    qtbot.addWidget(p)
    dialogs.ask_when_too_long(p, session)
    p.show()
    qtbot.waitUntil(lambda: session.backend is not None, timeout=TIMEOUT_MS)
    yield p, backend
    session.close()


def ask_big(qtbot, panel: VecaddPanel) -> QMessageBox:
    """Run N = 2,000,000 unforced; the session's one dialog asks."""
    panel.findChild(QSpinBox, "vecaddN").setValue(2_000_000)
    assert "asks first" in panel.findChild(QLabel, "vecaddLaunch").text()
    click_run(qtbot, panel)
    qtbot.waitUntil(lambda: panel.findChild(QMessageBox, "launchTooLargeDialog") is not None, timeout=5000)
    box = panel.findChild(QMessageBox, "launchTooLargeDialog")
    qtbot.waitUntil(box.isVisible)
    return box


def test_a_long_run_asks_once_in_the_vector_adds_words_and_no_keeps_the_result(qtbot, asking) -> None:
    panel, backend = asking
    panel.findChild(QSpinBox, "vecaddN").setValue(1011)
    with qtbot.waitSignal(panel.resultShown, timeout=TIMEOUT_MS):
        click_run(qtbot, panel)
    before = result_text(panel)
    assert before.startswith("Test succeeded") and "vecadd[4, 256]" in before
    asked: list[object] = []
    panel._session.confirmRequested.connect(lambda *args: asked.append(args))
    with qtbot.assertNotEmitted(panel.resultShown, wait=200):
        box = ask_big(qtbot, panel)
        # ceil(2,000,000 / 256) = 7,813 blocks × 256 = 2,000,128 threads, one timed launch.
        assert "vecadd would run 2,000,128 simulated threads" in box.text()
        assert "up to 131,072 without asking" in box.text()
        assert "N = 2,000,000 launches 7,813 blocks of 256 threads once" in box.informativeText()
        assert "A smaller N takes less time." in box.informativeText()
        assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
        qtbot.mouseClick(box.button(QMessageBox.StandardButton.No), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.findChild(QMessageBox, "launchTooLargeDialog") is None)
    assert len(asked) == 1  # one question, from the session: the tab asked nothing itself
    assert result_text(panel) == before  # No: nothing ran, the last result stays
    assert [r.n for r in backend.requests] == [1011]
    assert not panel.vecaddProgress.isVisible()


def test_yes_runs_the_long_vector_add_forced(qtbot, asking) -> None:
    panel, backend = asking
    box = ask_big(qtbot, panel)
    with qtbot.waitSignal(panel.resultShown, timeout=TIMEOUT_MS) as shown:
        qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    assert [(r.n, r.force) for r in backend.requests] == [(2_000_000, True)]
    assert shown.args[0].n == 2_000_000 and result_text(panel).startswith("Test succeeded")
    assert panel.findChild(QMessageBox, "launchTooLargeDialog") is None  # the forced run asked nothing


def test_sweep_on_the_simulator_fills_the_chart(qtbot, panel: VecaddPanel) -> None:
    panel.findChild(QSpinBox, "vecaddN").setValue(100)
    with qtbot.waitSignal(panel.resultShown, timeout=TIMEOUT_MS) as shown:
        click_run(qtbot, panel, "vecaddSweepButton")
    qtbot.waitUntil(lambda: "Test succeeded" in result_text(panel), timeout=TIMEOUT_MS)
    assert [row.block for row in shown.args[0].sweep] == [32, 64, 128, 256, 512, 1024]
    assert panel.vecaddSweepTable.rowCount() == 6
    assert panel.vecaddSweepTable.item(5, 2).text() == "924"  # 1024 - 100 idle threads


def test_gpu_results_show_bandwidth_share_and_chart(qtbot, session: RunSession) -> None:
    panel = VecaddPanel(session)
    qtbot.addWidget(panel)
    result = VecaddResult(
        "gpu:NVIDIA H200", 2**24 + 11, 256, 65537, verified=True, max_abs_err=0.0, kernel_ms=0.0967,
        launch_overhead_us=91.8, bandwidth_GBps=4166.0, copy_GBps=4300.0, cupy_ms=0.096, numpy_ms=46.7,
        peak_GBps=4800.0,
        oob_writes=0, label="NVIDIA H200", repeat=50,
        sweep=[SweepRow(b, 1, b, 0, kernel_ms=0.1, bandwidth_GBps=4000.0) for b in (32, 256)],
    )  # fmt: skip
    panel.show_result(result)
    text = result_text(panel)
    # 4,166 / 4,300 = 96.9 %; 4,166 / 4,800 = 86.8 %.
    assert "4,166 GB/s = 97% of the copy, 87% of the 4.8 TB/s peak" in text
    assert text.startswith("Test succeeded\n")  # the verdict first: in view without scrolling
    assert panel.vecaddSweepChart.getPlotItem().getAxis("left").labelText == "effective bandwidth (GB/s)"
    QApplication.processEvents()


def test_emulator_sweep_charts_its_wall_clock_not_an_empty_gpu_bandwidth(qtbot, session: RunSession) -> None:
    # The emulator (the default without a GPU) times CPU wall-clock and measures no bandwidth:
    # its bars are those milliseconds, under a title that names the emulator.
    panel = VecaddPanel(session)
    qtbot.addWidget(panel)
    result = VecaddResult(
        "emu", 5000, 256, 20, verified=True, max_abs_err=0.0, label="CPU emulator (lockstep, NumPy)",
        sweep=[SweepRow(32, 157, 5024, 24, sim_wall_ms=1.5), SweepRow(256, 20, 5120, 120, sim_wall_ms=0.75)],
    )  # fmt: skip
    panel.show_result(result)
    plot = panel.vecaddSweepChart.getPlotItem()
    assert "CPU emulator" in plot.titleLabel.text and "GPU" not in plot.titleLabel.text.split("(")[0]
    assert plot.getAxis("left").labelText == "wall-clock on the CPU emulator (ms)"
    assert list(panel._bars.opts["height"]) == [1.5, 0.75]
