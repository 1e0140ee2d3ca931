"""The Your kernel tab points at the line of every kind of finding, highlights the line of a
kernel a GPU would not compile, and clears the previous kernel's maps, table and check when a
run fails. Each Run starts a child process of its own (CUDA simulator)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QComboBox, QPlainTextEdit, QPushButton, QSpinBox, QTextEdit

from repo_paths import DATA

RUN_MS = 60_000
NOISY = (DATA / "trace" / "noisy.py").read_text()  # random.random(): line 10


def tab_of(w):
    return w.findChild(object, "kernelTab")


def run_tab(qtbot, tab) -> str:
    button = tab.findChild(QPushButton, "kernelRunButton")
    button.click()
    qtbot.waitUntil(lambda: button.isEnabled() and not tab.busy, timeout=RUN_MS)
    return tab.findChild(QTextEdit, "kernelResult").toPlainText()


def choose(tab, name: str) -> None:
    combo = tab.findChild(QComboBox, "kernelTemplate")
    index = combo.findData(name)
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def marked(tab) -> int | None:
    return tab.findChild(QPlainTextEdit, "kernelEditor")._marked


@pytest.mark.window_backend("sim")
def test_a_race_highlights_its_store_and_a_refused_kernel_its_line_and_clears_the_old_run(
    qtbot, window
) -> None:
    tab = tab_of(window)
    choose(tab, "histogram_racing")
    text = run_tab(qtbot, tab)
    assert "cannot lose updates on it" in text
    assert marked(tab) == 15  # bins[data[i] % 8] += 1: the racing store, no out-of-bounds at all
    assert tab.arrays.views and tab.lines.rowCount() == 3 and tab.summary() is not None

    tab.findChild(QPlainTextEdit, "kernelEditor").setPlainText(NOISY)
    tab.set_args({"a": "float32[32]"})
    for name, v in (("kernelGridX", 1), ("kernelBlockX", 32)):
        tab.findChild(QSpinBox, name).setValue(v)
    text = run_tab(qtbot, tab)
    assert text.startswith("The kernel does not compile: line 10: a GPU would not compile this kernel")
    assert marked(tab) == 10
    # Nothing of the histogram's run is left beside the refusal.
    assert tab.summary() is None
    assert tab.arrays.views == [] and tab.lines.rowCount() == 0 and tab.warp.request is None
    assert "bins" not in text


@pytest.mark.window_backend("sim")
def test_read_parameters_makes_the_histogram_run_and_a_thread_s_error_is_highlighted(qtbot, window) -> None:
    from simtviz.core.trace.templates import template

    tab = tab_of(window)
    editor = tab.findChild(QPlainTextEdit, "kernelEditor")
    editor.setPlainText(template("histogram_racing").source)  # typed, not chosen: no template args
    tab.set_args({})
    tab.findChild(QPushButton, "kernelRefreshArgs").click()
    specs = tab.args.specs()
    assert specs == {"data": "int32[1000]:random", "bins": "int32[1000]:zeros"}  # not float32
    for name, v in (("kernelGridX", 4), ("kernelBlockX", 256)):
        tab.findChild(QSpinBox, name).setValue(v)
    text = run_tab(qtbot, tab)
    assert text.startswith("histogram[") and tab.summary()["arrays"]["bins"]["dtype"] == "int32"  # it ran

    editor.setPlainText(
        template("histogram_racing").source.replace("b = data[i] % bins.size", "b = 10 // (i - 21)")
    )
    text = run_tab(qtbot, tab)
    assert "blockIdx=(0, 0, 0), threadIdx=(21, 0, 0)" in text and "tid=" not in text
    assert marked(tab) == 14


def test_np_linalg_norm_gets_the_gpu_s_reason_without_the_window_waiting(qtbot, window) -> None:
    import time

    tab = tab_of(window)
    tab.findChild(QPlainTextEdit, "kernelEditor").setPlainText(
        (DATA / "trace" / "normed.py").read_text()  # np.linalg.norm: line 9
    )
    tab.set_args({"a": "float32[32]", "out": "float32[32]"})
    for name, v in (("kernelGridX", 1), ("kernelBlockX", 32)):
        tab.findChild(QSpinBox, name).setValue(v)
    button = tab.findChild(QPushButton, "kernelRunButton")
    t0 = time.perf_counter()
    button.click()
    clicked_s = time.perf_counter() - t0
    qtbot.waitUntil(lambda: button.isEnabled() and not tab.busy, timeout=RUN_MS)
    text = tab.findChild(QTextEdit, "kernelResult").toPlainText()
    assert clicked_s < 1.0  # the compile runs in the child; one here takes over 1 s (4 s loaded)
    assert "line 9: a GPU would not compile this kernel" in text and "linear algebra" in text
    assert marked(tab) == 9


def test_clicking_a_2d_element_names_its_row_and_column(qtbot, window) -> None:
    tab = tab_of(window)
    choose(tab, "matadd_swapped")
    run_tab(qtbot, tab)
    # C is 6 × 10; flat element 13 = row 13 // 10 = 1, column 13 % 10 = 3.
    tab.select_element(2, 13)
    assert tab.detail.text().startswith("C[1, 3] (row 1, column 3): ")
