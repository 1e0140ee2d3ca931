"""Every tab fits a 1280 × 720 projector (issue 21): the title, the primary action and the primary
result of each tab are wholly on screen without scrolling, normal and presentation mode, and at
1920 × 1080. Geometry is asserted: each key widget's rectangle, clipped by every widget it sits
in (scroll viewports included), must still be its whole rectangle.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QLabel, QScrollArea, QWidget
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.core.lesson import STEPS

SIZES = ((1280, 720), (1920, 1080))
MODES = (False, True)


def settle(qtbot, ms: int = 30) -> None:
    qtbot.wait(ms)
    QApplication.processEvents()


def visible_rect(widget: QWidget) -> QRect:
    """The part of ``widget`` on screen: its rectangle clipped by each widget it sits in."""
    if not widget.isVisible():
        return QRect()
    rect = QRect(widget.mapToGlobal(QPoint(0, 0)), QWidget.size(widget))
    parent = widget.parentWidget()
    while parent is not None:
        rect = rect.intersected(QRect(parent.mapToGlobal(QPoint(0, 0)), parent.size()))
        parent = parent.parentWidget()
    return rect


def fully_visible(widget: QWidget) -> bool:
    # QWidget.size: the array panels shadow width and size with attributes of their own
    shown, size = visible_rect(widget), QWidget.size(widget)
    return shown.size() == size and size.height() > 0


def show_tab(window, widget: QWidget) -> None:
    tabs = window.tabs
    w = widget
    while w is not None and tabs.indexOf(w) < 0:
        w = w.parentWidget()
    assert w is not None, "the widget is in no tab"
    tabs.setCurrentWidget(w)


def scroll_areas_around(widget: QWidget, page: QWidget) -> int:
    """How many scroll areas hold ``widget`` inside its tab page."""
    count, w = 0, widget.parentWidget()
    while w is not None and w is not page.parentWidget():
        count += isinstance(w, QScrollArea)
        w = w.parentWidget()
    return count


@pytest.fixture(
    params=[(s, p) for s in SIZES for p in MODES],
    ids=lambda sp: f"{sp[0][0]}x{sp[0][1]}-{'pres' if sp[1] else 'normal'}",
)
def sized(request, window, qtbot):
    (width, height), presentation = request.param
    window.presentationAction.setChecked(presentation)
    window.resize(width, height)
    settle(qtbot)
    # No tab's minimum size may push the window past the projector.
    assert (window.width(), window.height()) == (width, height)
    window.setProperty("sizedTo", (width, height))
    return window


def sized_size(w) -> tuple[int, int]:
    return tuple(w.property("sizedTo"))


def test_lesson_title_navigation_and_try_it_on_every_step(qtbot, sized) -> None:
    w = sized
    panel = w.lessonPanel
    show_tab(w, panel)
    assert scroll_areas_around(panel.lessonScroll.widget(), w.tabs.currentWidget()) == 1
    for index, step in enumerate(STEPS):
        panel.show_step(index)
        settle(qtbot, 10)
        names = ["lessonStepTitle", "lessonPrev", "lessonNext"] + (["lessonTryIt"] if step.try_its else [])
        for name in names:
            widget = panel.findChild(QWidget, name)
            assert fully_visible(widget), (step.section, name, visible_rect(widget), widget.size())


def test_kernel_tab_run_result_and_arrays_in_view(qtbot, sized) -> None:
    w = sized
    tab = w.kernelTab
    show_tab(w, tab)
    qtbot.waitUntil(tab.runButton.isEnabled, timeout=RUN_TIMEOUT_MS)
    assert tab.run()  # the template's vector add: three maps and ~18 lines of findings
    qtbot.waitUntil(lambda: tab.summary() is not None, timeout=RUN_TIMEOUT_MS)
    assert (w.width(), w.height()) == w.size().toTuple() == sized_size(w)
    settle(qtbot)
    result = tab.findChild(QWidget, "kernelResult")
    assert len(tab.arrays.views) == 3
    for widget in (tab.findChild(QWidget, "kernelRunButton"), result, tab.arrays, *tab.arrays.views):
        assert fully_visible(widget), (widget.objectName() or type(widget).__name__, visible_rect(widget))
    # Findings run to ~18 lines: at least 8 of them show without scrolling the box.
    assert result.viewport().height() >= 8 * result.fontMetrics().lineSpacing()
    assert QWidget.size(tab.arrays).height() >= 150  # a map, not a strip
    for view in tab.arrays.views:
        # Not pyqtgraph's black in the light theme: the window's own background.
        assert view.view.backgroundBrush().color().lightness() > 200
        # A colour scale per map: the template's 4 × 256 threads add 1,000 elements, element i
        # last touched by thread i (i < 1,000), so thread numbers 0 … 999 span the scale.
        assert view.scale.levels() == (0.0, 999.0)
        assert fully_visible(view) and view.scale.isVisible()
        assert QWidget.size(view).height() >= 72  # a map (~80 px at 1280 × 720, 20 pt), not a strip
    assert scroll_areas_around(result, w.tabs.currentWidget()) == 0


def test_vecadd_verdict_in_view_after_a_run(qtbot, sized) -> None:
    w = sized
    panel = w.vecaddPanel
    show_tab(w, panel)
    qtbot.waitUntil(panel.vecaddRunButton.isEnabled, timeout=RUN_TIMEOUT_MS)
    assert fully_visible(panel.vecaddRunButton)
    panel.run()
    result = panel.findChild(QLabel, "vecaddResult")
    qtbot.waitUntil(lambda: "Test succeeded" in result.text() and not w.busy, timeout=RUN_TIMEOUT_MS)
    settle(qtbot)
    # "Test succeeded" is the first line, and that line is on screen.
    assert result.text().splitlines()[0] == "Test succeeded"
    line = QRect(result.mapToGlobal(QPoint(0, 0)), result.size())
    line.setHeight(result.fontMetrics().lineSpacing() + result.contentsMargins().top())
    assert visible_rect(result).contains(line), (visible_rect(result), line)
    assert fully_visible(panel.vecaddRunButton)


def step_with(**params: str) -> int:
    """The index of the first lesson step with a Try it of these parameters (steps get added)."""
    from simtviz.core.lesson import STEPS

    for index, step in enumerate(STEPS):
        if any(all(t.params.get(k) == v for k, v in params.items()) for t in step.try_its):
            return index
    raise LookupError(params)


def test_page_down_in_the_kernel_editor_stays_in_the_editor(qtbot, window) -> None:
    panel = window.lessonPanel
    show_tab(window, panel)
    step = step_with(view="kernelTab")  # B1: "Open Your kernel" opens the kernel tab
    panel.show_step(step)
    panel.try_it(0)
    settle(qtbot)
    assert window.tabs.currentWidget() is window.kernelTab
    editor = window.kernelTab.editor
    editor.setFocus()
    settle(qtbot)
    qtbot.keyClick(editor, Qt.Key.Key_PageDown)
    assert panel.current_step() == step
    assert window.tabs.currentWidget() is window.kernelTab


def test_page_down_reveals_the_step_before_moving_on(qtbot, window) -> None:
    window.presentationAction.setChecked(True)
    window.resize(1280, 720)
    panel = window.lessonPanel
    show_tab(window, panel)
    panel.show_step(6)  # 2.2.3.3: three errata cards, far taller than the screen
    settle(qtbot)
    bar = panel.lessonScroll.verticalScrollBar()
    assert bar.maximum() > 0
    pages = 0
    while panel.current_step() == 6:
        qtbot.keyClick(window, Qt.Key.Key_PageDown)
        pages += 1
        assert pages < 40
    assert pages >= 2  # at least one page of the step revealed before the next step
    assert bar.value() == 0  # the next step starts at its top
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    settle(qtbot)
    assert panel.current_step() == 6 and bar.value() == bar.maximum()  # the mirror: its end
    qtbot.keyClick(window, Qt.Key.Key_PageUp)
    assert panel.current_step() == 6 and bar.value() < bar.maximum()


# --- keys (issue 21): Ctrl+R / F5 run the shown tab, Esc cancels a trace, F1 lists them -------------
def test_ctrl_r_on_your_kernel_runs_traced_not_the_hidden_index_map(qtbot, window) -> None:
    tab = window.kernelTab
    show_tab(window, tab)
    qtbot.waitUntil(tab.runButton.isEnabled, timeout=RUN_TIMEOUT_MS)
    before = window.recording
    qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert tab.busy  # the trace started …
    assert not window.busy and window.recording is before  # … and the index map did not run
    qtbot.keyClick(window, Qt.Key.Key_Escape)  # Esc cancels the trace
    qtbot.waitUntil(lambda: not tab.busy, timeout=RUN_TIMEOUT_MS)
    qtbot.waitUntil(lambda: "ancel" in tab.result.toPlainText(), timeout=RUN_TIMEOUT_MS)
    assert tab.summary() is None and tab.runButton.isEnabled()
    qtbot.keyClick(window, Qt.Key.Key_F5)  # F5 is the same key
    assert tab.busy
    tab.cancel()
    qtbot.waitUntil(lambda: not tab.busy, timeout=RUN_TIMEOUT_MS)


def test_f5_on_the_vector_add_tab_runs_the_vector_add(qtbot, window) -> None:
    panel = window.vecaddPanel
    show_tab(window, panel)
    qtbot.waitUntil(panel.vecaddRunButton.isEnabled, timeout=RUN_TIMEOUT_MS)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    result = panel.findChild(QLabel, "vecaddResult")
    qtbot.waitUntil(lambda: "Test succeeded" in result.text() and not window.busy, timeout=RUN_TIMEOUT_MS)
    assert window.recording is None  # the index map never ran


def test_f1_lists_run_traced_cancel_and_the_page_keys() -> None:
    from simtviz.qt.actions import shortcut_text

    lines = shortcut_text().splitlines()
    assert any(line.startswith("Ctrl+R / F5  ") and "Your kernel Run traced" in line for line in lines)
    assert "Esc  Cancel the run or the trace" in lines
    assert any(line.startswith("Page Down / Page Up  Lesson:") for line in lines)


# --- Where blocks ran without a GPU -------------------------------------------------------------
def test_where_blocks_ran_without_a_gpu_says_what_goes_there_and_opens_the_sample(qtbot, sized) -> None:
    w = sized
    view = w.scheduleTab.scheduleView
    show_tab(w, view)
    settle(qtbot)
    # No empty axes over most of the tab: words and the sample instead.
    assert not view.scheduleChart.isVisible()
    assert fully_visible(view.findChild(QWidget, "scheduleEmptyText"))
    sample = view.findChild(QWidget, "scheduleSampleButton")
    assert fully_visible(sample)
    # The occupancy device's name is on screen whole (it was cut at the column's edge).
    device = w.scheduleTab.occupancyView.occupancyDevice
    assert fully_visible(device)
    assert device.width() >= device.fontMetrics().horizontalAdvance(device.currentText()) + 20
    qtbot.mouseClick(sample, Qt.MouseButton.LeftButton)
    settle(qtbot)
    assert view.scheduleChart.isVisible() and view.bar_count() == 2464  # the H100 sample's blocks
    assert "NVIDIA H100" in view.scheduleMessage.text()


# --- the launch-error dialog --------------------------------------------------------------------
def test_block_0_from_the_vector_add_tab_is_headed_in_words(qtbot, window) -> None:
    from PySide6.QtWidgets import QMessageBox

    panel = window.vecaddPanel
    show_tab(window, panel)
    qtbot.waitUntil(panel.vecaddRunButton.isEnabled, timeout=RUN_TIMEOUT_MS)
    panel.vecaddBlock.setValue(0)
    panel.run()
    qtbot.waitUntil(
        lambda: panel.findChild(QMessageBox, "launchErrorDialog") is not None, timeout=RUN_TIMEOUT_MS
    )
    box = panel.findChild(QMessageBox, "launchErrorDialog")
    # The heading says what is wrong in words, not numba's internal "LaunchConfig.block …" …
    assert "LaunchConfig" not in box.text()
    assert box.text().startswith(
        "This launch cannot run: blockDim.x is 0; every dimension must be at least 1"
    )
    # … which still follows in the body, word for word.
    assert "<code>LaunchConfig.grid values must be &gt;= 1 (got" in box.informativeText()
    # The vector add has no map to keep on screen.
    assert "map" not in box.informativeText() and "Nothing ran." in box.informativeText()
    box.done(QMessageBox.StandardButton.Close)


def test_dark_theme_editor_is_readable(qtbot, window) -> None:
    def luminance(c: QColor) -> float:  # WCAG relative luminance
        def chan(v: float) -> float:
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * chan(c.red()) + 0.7152 * chan(c.green()) + 0.0722 * chan(c.blue())

    def contrast(a: QColor, b: QColor) -> float:
        hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
        return (hi + 0.05) / (lo + 0.05)

    window.set_theme("dark")
    show_tab(window, window.kernelTab)
    settle(qtbot, 100)
    editor = window.kernelTab.editor
    base = editor.palette().base().color()
    assert base.name() == "#2b2d31"  # the dark theme's editor background
    # Every token colour reads at 4.5:1 or better (WCAG AA) on it; the light theme's keyword blue
    # #0033b3 gave 1.6:1 here.
    for pattern, fmt in editor.highlighter.rules:
        assert contrast(fmt.foreground().color(), base) >= 4.5, pattern.pattern[:30]
    window.set_theme("light")
    settle(qtbot, 100)
    base = editor.palette().base().color()
    for pattern, fmt in editor.highlighter.rules:
        assert contrast(fmt.foreground().color(), base) >= 4.5, pattern.pattern[:30]


# --- the index map's legend and axes --------------------------------------------------------------
def test_warp_legend_lists_only_warps_that_exist_and_ticks_are_whole_rows(qtbot, window, run_launch) -> None:
    run_launch((4, 3, 1), (8, 4, 1))  # 8 × 4 = 32 threads per block: one warp, warp 0, in each
    window.indexMap.set_color_field("warp")
    qtbot.waitUntil(lambda: window.indexMap.legend.isVisible(), timeout=RUN_TIMEOUT_MS)
    legend = window.indexMap.legend.text
    assert "██</span> 0" in legend
    assert "██</span> 1" not in legend  # the levels 0 … 1 once listed a warp 1 no block has
    # Zoomed in to three columns, the ticks still fall on whole columns and read as integers.
    axis = window.indexMap.plot.getAxis("bottom")
    for spacing, values in axis.tickValues(0.0, 3.0, 600.0):
        assert spacing >= 1
        assert all(float(v).is_integer() for v in values)
    assert axis.tickStrings([0.0, 1.0, 2.0], 1.0, 1.0) == ["0", "1", "2"]
    # A 32 × 12 map (4 × 8 columns, 3 × 4 rows) in a taller view: ticks only on rows 0 … 11 and
    # columns 0 … 31, none on the empty band above and below (rows -10 or 21 do not exist).
    left = window.indexMap.plot.getAxis("left")
    ticks = [v for _spacing, values in left.tickValues(-10.0, 22.0, 480.0) for v in values]
    assert ticks and min(ticks) >= 0 and max(ticks) <= 11
    ticks = [v for _spacing, values in axis.tickValues(-5.0, 40.0, 480.0) for v in values]
    assert ticks and min(ticks) >= 0 and max(ticks) <= 31


def test_a_16_by_16_block_map_is_readable_at_1280x720_in_presentation(qtbot, window, run_launch) -> None:
    window.presentationAction.setChecked(True)
    window.resize(1280, 720)
    run_launch((1, 1, 1), (16, 16, 1))
    settle(qtbot, 100)
    window.fit_map()
    settle(qtbot)
    vb = window.indexMap.plot.vb
    (_x0, _x1), (y0, y1) = vb.viewRange()
    # 16 rows fill the view's height: with the inspector under the map the view was 167 px for
    # 16.6 rows, 10 px a cell; beside it, ≥ 20 px a cell (numbers drawn half a cell high).
    assert vb.size().height() / (y1 - y0) >= 20
    assert window.indexMapTab._innerSplitter.orientation() == Qt.Orientation.Horizontal
    assert fully_visible(window.indexMap.view) and fully_visible(window.inspector)


def test_a_try_it_result_comes_into_view_at_1280x720_presentation(qtbot, window) -> None:
    from PySide6.QtWidgets import QGroupBox

    window.presentationAction.setChecked(True)
    window.resize(1280, 720)
    panel = window.lessonPanel
    show_tab(window, panel)
    panel.show_step(step_with(probe="jit_timing"))  # 2.2.2.1: its chart under the step's text
    qtbot.waitUntil(panel.lessonTryIt.isEnabled, timeout=RUN_TIMEOUT_MS)
    panel.try_it(0)
    qtbot.waitUntil(lambda: "jit_timing" in panel.results and not window.busy, timeout=RUN_TIMEOUT_MS)
    box = panel.findChild(QGroupBox, "lessonResult_jit_timing")
    viewport = panel.lessonScroll.viewport()

    def top() -> int:
        return box.mapTo(viewport, QPoint(0, 0)).y()

    # Its top comes on screen (it sat below the fold, under the step's text and code), once the
    # page has laid the chart out: on a busy machine that takes more than one settle.
    qtbot.waitUntil(lambda: 0 <= top() < viewport.height() // 2, timeout=3000)
    assert fully_visible(panel.lessonTryIt) and fully_visible(panel.lessonNext)
