"""The Your kernel tab's words and states, line by line, by hand: a hand-made traced run (or a
failure) is handed to the tab through the session's signals (nothing runs), and what the
student reads is written out here with its arithmetic; launches are never square, so that a
swapped x and y, row and column or block and thread shows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fake_backends import FakeHostBackend
from PySide6.QtCore import QSettings

from hand_traces import Row, sites_of, traced
from simtviz.core.errors import Cancelled
from simtviz.core.trace.analysis import ArrayInfo
from simtviz.core.trace.model import BlockWindow
from simtviz.core.trace.source import TraceUnsupported
from simtviz.qt.session import RunSession
from simtviz.qt.tabs.kernel.tab import KernelTab


@pytest.fixture
def session(tmp_path: Any) -> Iterator[RunSession]:
    s = RunSession(lambda: FakeHostBackend())
    s.store = QSettings(str(tmp_path / "simtviz.ini"), QSettings.Format.IniFormat)
    s.child_kind = lambda: "sim"  # type: ignore[method-assign]
    yield s
    s.close()


@pytest.fixture
def tab(qtbot: Any, session: RunSession) -> KernelTab:
    t = KernelTab(session)
    qtbot.addWidget(t)
    return t


# Grid (3, 5, 2) of blocks (10, 3, 2): 60 threads a block, 30 blocks.
GRID, BLOCK = (3, 5, 2), (10, 3, 2)
# Thread 1,370 = block 22 × 60 + 50. Block 22: x 22 % 3 = 1, y (22 // 3) % 5 = 7 % 5 = 2,
# z 22 // 15 = 1. Inner 50: x 50 % 10 = 0, y (50 // 10) % 3 = 5 % 3 = 2, z 50 // 30 = 1;
# warp 50 // 32 = 1, lane 50 % 32 = 18.
T = 1370
T_WORDS = "thread 1,370 (blockIdx (1, 2, 1), threadIdx (0, 2, 1), warp 1, lane 18)"


def _result(rows: list[Row], window: BlockWindow | None = None) -> Any:
    # A float32 M (3, 5): line 5 loads it, line 6 stores it, line 7 loads it again.
    arrays = (ArrayInfo("M", (3, 5), "float32"),)
    sites = sites_of(arrays, (5, "M", "load"), (6, "M", "store"), (7, "M", "load"))
    result = traced(GRID, BLOCK, arrays, sites, rows)
    result.window = window
    return result


def test_a_thread_names_its_block_and_thread_indices_warp_and_lane(tab: KernelTab) -> None:
    # Thread 1,370 loads M[2, 4] at line 5 and stores M[0, 1] at line 6.
    tab.session.resultArrived.emit("trace", _result([Row(T, 0, (2, 4)), Row(T, 1, (0, 1))]))
    tab.threadSpin.setValue(T)
    assert tab.detail.text() == f"{T_WORDS}: 2 accesses: line 5: load M[2, 4]; line 6: store M[0, 1]"


def test_a_thread_of_a_thousand_accesses_counts_them_with_a_comma(tab: KernelTab) -> None:
    # 1,000 loads of M[1, 1] by thread 1,370: "1,000 accesses", then the first 12 named.
    tab.session.resultArrived.emit("trace", _result([Row(T, 0, (1, 1))] * 1000))
    tab.threadSpin.setValue(T)
    text = tab.detail.text()
    assert text.startswith(f"{T_WORDS}: 1,000 accesses: line 5: load M[1, 1]; ")
    assert text.count("load M[1, 1]") == 12


def test_a_result_says_click_an_element_and_marks_the_most_urgent_line(qtbot: Any, tab: KernelTab) -> None:
    tab.editor.setPlainText("\n".join(f"# line {n}" for n in range(1, 11)))
    # M[0, 0] stored by threads 0 and 1 (line 6: a race), and an out-of-bounds load at line 7:
    # out of bounds is the most urgent, so line 7 is marked, not line 6.
    rows = [Row(0, 1, (0, 0)), Row(1, 1, (0, 0)), Row(2, 2, (3, 0), oob=True)]
    tab.session.resultArrived.emit("trace", _result(rows))
    assert tab.detail.text() == "Click an element to see the threads that touched it."
    assert tab.editor._marked == 7
    assert tab.runButton.isEnabled() and not tab.cancelButton.isEnabled()
    assert not tab.progress.isVisibleTo(tab)


def test_a_backends_notes_come_before_the_runs_own(tab: KernelTab) -> None:
    s = tab.session
    s.runStarted.emit("trace", None)
    s.runNotice.emit("trace", "the emulator handed the run to the simulator")
    result = _result([Row(0, 0, (0, 0))])
    result.notes.append("the run's own note")
    s.resultArrived.emit("trace", result)
    assert result.notes[:2] == ["the emulator handed the run to the simulator", "the run's own note"]


def test_a_started_run_says_where_it_runs_and_its_progress_is_in_thousandths(tab: KernelTab) -> None:
    s = tab.session
    s.runStarted.emit("trace", None)
    assert tab.result.toPlainText() == "Running on the CUDA simulator…"
    assert not tab.runButton.isEnabled() and tab.cancelButton.isEnabled()
    assert tab.progress.isVisibleTo(tab) and tab.progress.value() == 0
    s.runProgress.emit("trace", 0.25)  # a quarter: 250 of the bar's 1,000
    assert tab.progress.value() == 250
    s.runProgress.emit("exercise", 0.75)  # another tab's run moves nothing here
    assert tab.progress.value() == 250


def test_a_cancelled_run_says_so_and_clears_the_maps(tab: KernelTab) -> None:
    s = tab.session
    s.resultArrived.emit("trace", _result([Row(0, 0, (0, 0))]))
    s.runStarted.emit("trace", None)
    s.runFailed.emit("trace", None, Cancelled("cancelled"), "")
    assert tab.result.toPlainText() == "Cancelled: the kernel's process was ended."
    assert tab.summary() is None and tab.arrays.views == [] and tab.lines.rowCount() == 0
    assert tab.runButton.isEnabled() and not tab.cancelButton.isEnabled()


def test_a_refused_line_is_said_with_what_to_do_under_it_and_marked(tab: KernelTab) -> None:
    tab.editor.setPlainText("\n".join(f"# line {n}" for n in range(1, 8)))
    tab.session.runFailed.emit("trace", None, TraceUnsupported(3, "a while loop"), "")
    assert tab.result.toPlainText() == (
        "Not traced: line 3: a while loop\nRewrite that line with plain element accesses."
    )
    assert tab.editor._marked == 3


def test_an_untouched_element_of_a_wide_matrix_is_named_by_row_then_column(tab: KernelTab) -> None:
    tab.session.resultArrived.emit("trace", _result([Row(0, 0, (0, 0))]))
    # M (3, 5): flat 13 = row 13 // 5 = 2, column 13 % 5 = 3.
    tab.select_element(0, 13)
    assert tab.detail.text() == "M[2, 3] (row 2, column 3): no thread touched it."


def test_an_element_untouched_by_a_windows_threads_names_the_window(tab: KernelTab) -> None:
    # Window: blocks 20–21 of 30, 2 × 60 = 120 threads; block 20 = (2, 1, 1), 21 = (0, 2, 1).
    tab.session.resultArrived.emit("trace", _result([Row(T, 0, (0, 0))], BlockWindow(20, 2)))
    tab.select_element(0, 13)
    assert tab.detail.text() == (
        "M[2, 3] (row 2, column 3): no thread in the window, blocks 20–21 of 30 (120 threads), "
        "blockIdx (2, 1, 1) to (0, 2, 1), touched it."
    )


def test_a_thread_of_the_windows_last_block_is_listed_and_one_past_it_is_outside(tab: KernelTab) -> None:
    # Window: blocks 21–22; thread 1,370 is in block 22 (its last), thread 1,380 in block 23.
    tab.session.resultArrived.emit("trace", _result([Row(T, 0, (2, 4))], BlockWindow(21, 2)))
    tab.threadSpin.setValue(T)
    assert tab.detail.text() == f"{T_WORDS}: 1 accesses: line 5: load M[2, 4]"
    # 1,380 = 23 × 60 + 0: block 23 = (23 % 3, (23 // 3) % 5, 23 // 15) = (2, 2, 1)
    tab.threadSpin.setValue(1380)
    assert tab.detail.text() == (
        "thread 1,380 (blockIdx (2, 2, 1), threadIdx (0, 0, 0), warp 0, lane 0) is outside the window, "
        "blocks 21–22 of 30 (120 threads), blockIdx (0, 2, 1) to (1, 2, 1): "
        "it ran, but its accesses were not logged."
    )
    # 1,259 = 20 × 60 + 59: block 20, one before the window's first
    tab.threadSpin.setValue(1259)
    assert "is outside the window" in tab.detail.text()


def test_a_selected_store_line_draws_the_store_not_the_load_of_that_line(tab: KernelTab) -> None:
    # Line 5 loads M and line 5 stores M (M[i] += 1): two sites, one line. Threads 0..3 load
    # M[0, 0..3]; threads 0..3 store M[1, 0..3] (bytes (5 + c) × 4 = 20, 24, 28, 32).
    arrays = (ArrayInfo("M", (3, 5), "float32"),)
    sites = sites_of(arrays, (5, "M", "load"), (5, "M", "store"))
    rows = [Row(t, 0, (0, t)) for t in range(4)] + [Row(t, 1, (1, t)) for t in range(4)]
    tab.session.resultArrived.emit("trace", traced(GRID, BLOCK, arrays, sites, rows))
    kinds = [row.kind for row in tab.lines.rows_data]
    tab.lines.selectRow(kinds.index("store"))
    assert tab.warp.title == "line 5 store M"
    assert tab.warp.request is not None
    assert tab.warp.request["site"] == 1 and tab.warp.request["offsets"] == [20, 24, 28, 32]
    assert tab.editor._marked == 5


def test_a_template_runs_under_its_own_name_and_an_opened_file_under_its_name(
    tab: KernelTab, tmp_path: Any
) -> None:
    tab.load_template("transpose_naive")
    assert tab.request().filename == "transpose_naive.py"
    path = tmp_path / "my_kernel.py"
    path.write_text("x = 1\n")
    tab.open_file(path)
    assert tab.template.currentIndex() == 0  # "— templates —": no template any more
    assert tab.request().filename == "my_kernel.py"


def test_before_any_run_the_findings_box_says_what_to_do(tab: KernelTab) -> None:
    assert tab.result.toPlainText() == (
        "Choose a template or write a kernel, fill in its parameters, press Run."
    )
    assert tab.threadSpin.value() == -1 and tab.threadSpin.text() == "none"


def test_a_run_asked_about_puts_the_findings_back_and_frees_run(tab: KernelTab) -> None:
    from simtviz.core.errors import LaunchTooLarge

    tab.result.setPlainText("the findings before")
    s = tab.session
    s.runStarted.emit("trace", None)
    s.runFailed.emit("trace", None, LaunchTooLarge(10**9, 120.0, 10**6, "the CUDA simulator"), "")
    assert tab.result.toPlainText() == "the findings before"
    assert tab.runButton.isEnabled() and not tab.cancelButton.isEnabled()
    assert not tab.progress.isVisibleTo(tab)


def test_an_unexpected_error_is_named_by_its_type(tab: KernelTab) -> None:
    tab.session.runFailed.emit("trace", None, RuntimeError("boom"), "")
    assert tab.result.toPlainText() == "RuntimeError: boom"


def test_a_template_brings_its_check_and_the_whole_launch_as_its_window(tab: KernelTab) -> None:
    tab.set_window(3, 4)
    tab.check.setText("mine")
    tab.load_template("vecadd_guarded")
    assert tab.window_inputs() == (0, 0)
    assert tab.template.currentText() == "Vector add (guarded)"
    assert (tab.grid(), tab.block()) == ((4, 1, 1), (256, 1, 1))
    assert tab.check.text() == "C == A + B"
    assert tab.args.specs() == {
        "A": "float32[1000]:random",
        "B": "float32[1000]:random",
        "C": "float32[1000]:zeros",  # C: zeros, the table's default
    }


def test_reading_the_parameters_again_keeps_what_the_student_set(tab: KernelTab) -> None:
    tab.load_template("vecadd_guarded")
    names = list(tab.args.specs())
    first = names[0]
    tab.set_args({first: "float64[7]:ones"})
    tab.refresh_params()
    specs = tab.args.specs()
    assert specs[first] == "float64[7]:ones" and list(specs) == names


def test_a_second_run_starts_its_bar_at_zero_and_forgets_the_first_runs_notes(tab: KernelTab) -> None:
    s = tab.session
    s.runStarted.emit("trace", None)
    s.runProgress.emit("trace", 0.5)
    s.runNotice.emit("trace", "a note of the first run")
    s.runFailed.emit("trace", None, Cancelled("cancelled"), "")
    s.runStarted.emit("trace", None)
    assert tab.progress.value() == 0
    result = _result([Row(0, 0, (0, 0))])
    s.resultArrived.emit("trace", result)
    assert "a note of the first run" not in result.notes


def test_a_failure_after_a_result_clears_the_detail_line_and_the_warp(tab: KernelTab) -> None:
    s = tab.session
    s.resultArrived.emit("trace", _result([Row(T, 0, (2, 4))]))
    tab.threadSpin.setValue(T)
    tab.lines.selectRow(0)
    assert tab.detail.text() and tab.warp.request is not None
    s.runFailed.emit("trace", None, RuntimeError("boom"), "")
    assert tab.detail.text() == "" and tab.warp.request is None


def test_run_sends_the_launch_the_budget_the_limit_the_trimmed_check_and_the_window(
    tab: KernelTab, monkeypatch: Any
) -> None:
    sent: list[tuple[str, Any]] = []
    monkeypatch.setattr(
        tab.session, "run", lambda experiment, request: sent.append((experiment, request)) or True
    )
    tab.load_template("matadd_swapped")
    tab.settingsPanel.set_dims("3,5,2", "8,4,1")
    tab.budget.setValue(4321)
    tab.timeLimit.setValue(7.5)
    tab.check.setText("  C == A + B  ")
    tab.set_window(4, 0)  # from block 4 through the last: 3 × 5 × 2 = 30 blocks, 30 − 4 = 26
    assert tab.run()
    ((experiment, request),) = sent
    assert experiment == "trace"
    assert (request.grid, request.block) == ((3, 5, 2), (8, 4, 1))
    assert (request.budget, request.time_limit_s) == (4321, 7.5)
    assert request.check == "C == A + B"
    assert request.window == BlockWindow(4, 26)
    assert request.filename == "matadd_swapped.py" and request.force is False
    assert tab._qs.value("kernel/grid") == "3,5,2"  # saved as it was run
    tab.check.setText("   ")
    tab.set_window(0, 0)
    tab.run(force=True)
    assert sent[1][1].check is None and sent[1][1].force is True and sent[1][1].window is None


def test_run_refuses_a_syntax_error_at_once_without_starting_anything(
    tab: KernelTab, monkeypatch: Any
) -> None:
    sent: list[Any] = []
    monkeypatch.setattr(tab.session, "run", lambda *a: sent.append(a) or True)
    tab.editor.setPlainText("from numba import cuda\n\n@cuda.jit\ndef k(a):\n    a[0] = = 1\n")
    assert tab.run() is False
    assert sent == []
    assert tab.result.toPlainText().startswith("Syntax error: line 5")
    assert tab.editor._marked == 5


def test_the_template_list_starts_with_its_heading_and_tips_each_template(tab: KernelTab) -> None:
    from PySide6.QtCore import Qt

    from simtviz.core.trace.templates import templates

    assert tab.template.itemText(0) == "— templates —" and tab.template.itemData(0) is None
    first, second = templates()[:2]
    assert tab.template.itemText(1) == "Vector add (guarded)" and tab.template.itemData(1) == "vecadd_guarded"
    assert tab.template.itemData(1, Qt.ItemDataRole.ToolTipRole) == first.description
    assert tab.template.itemData(2, Qt.ItemDataRole.ToolTipRole) == second.description
    before = tab.editor.toPlainText()
    tab.template.activated.emit(0)  # the heading: nothing loads
    assert tab.editor.toPlainText() == before
    tab.template.activated.emit(4)  # the fourth template: the naive transpose
    assert tab.template.currentData() == "transpose_naive" and (tab.grid(), tab.block()) == (
        (2, 2, 1),
        (16, 16, 1),
    )


def test_the_tabs_headings_and_labels(tab: KernelTab) -> None:
    from PySide6.QtWidgets import QLabel, QTabWidget

    views = tab.findChild(QTabWidget, "kernelViews")
    assert [views.tabText(i) for i in range(views.count())] == ["Arrays", "Per line"]
    assert views.widget(0).isAncestorOf(tab.arrays) and views.widget(1).isAncestorOf(tab.lines)
    assert views.widget(1).isAncestorOf(tab.warp)
    heads = [tab.args.horizontalHeaderItem(c).text() for c in range(tab.args.columnCount())]
    assert heads == ["parameter", "kind", "type", "shape", "initial values / value"]
    colours = [tab.arrays.color.itemText(i) for i in range(tab.arrays.color.count())]
    assert colours == ["thread (last to touch)", "warp (last to touch)", "block (last to touch)", "accesses"]
    # "Thread" stands just left of its box, under the maps
    row = tab.threadSpin.parentWidget().layout().itemAt(1).layout()
    assert isinstance(row.itemAt(0).widget(), QLabel) and row.itemAt(0).widget().text() == "Thread"
    assert row.itemAt(1).widget() is tab.threadSpin and row.itemAt(2).widget() is tab.detail
    assert (tab.runButton.text(), tab.cancelButton.text()) == ("Run traced", "Cancel")
    assert tab.runButton.toolTip() == "Run traced (Ctrl+R or F5 on this tab; Esc cancels)"
    assert (tab.openButton.text(), tab.saveButton.text()) == ("Open…", "Save…")
    assert tab.refreshButton.text() == "Read parameters from the code"


def test_read_parameters_types_what_the_student_left_at_the_default_and_keeps_the_rest(
    tab: KernelTab,
) -> None:
    tab.editor.setPlainText(
        "from numba import cuda\n\n@cuda.jit\ndef k(idx, out, n):\n"
        "    i = cuda.grid(1)\n    if i < n:\n        out[idx[i]] = 1.0\n"
    )
    # out set by the student; idx and n left at the table's default (float32[1000]:zeros)
    tab.args.set_specs(["idx", "out", "n"], {"idx": "float32[1000]:zeros", "out": "float64[9]:ones"})
    tab.refreshButton.click()
    specs = tab.args.specs()
    assert specs["out"] == "float64[9]:ones"  # kept
    assert specs["idx"].startswith("int32[")  # an index array: int32, read from the code
    assert specs["n"].startswith("int32:")  # a size: a scalar
    assert list(specs) == ["idx", "out", "n"]  # in the kernel's order
