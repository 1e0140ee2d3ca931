"""Presentation mode reaches every tab (issue 21): the toggle restyles only the shown tab at once
and the others later, so a tab shown right after a toggle must still have the presentation
fonts, the index map redrawn while hidden must come back at its new size, and toggling back
must undo it all. Sizes are the app's own: 11 pt normal, 20 pt in presentation mode."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QVBoxLayout, QWidget
from qt_helpers import Paints

from simtviz.qt.settle import MAX_TURNS, Settle

NORMAL_PT, PRESENTATION_PT = 11, 20  # simtviz.qt.theme's sizes, written out: a change must be seen


def page_fonts(window, index: int) -> dict[str, int]:
    """Each visible button and label of tab ``index`` → its point size (the step title keeps its
    own, bigger size: a heading)."""
    page = window.tabs.widget(index)
    sizes = {}
    for widget in page.findChildren(QWidget):
        if isinstance(widget, QAbstractButton | QLabel) and widget.isVisibleTo(page):
            name = widget.objectName() or f"{type(widget).__name__}:{widget.text()[:20]}"
            if name != "lessonStepTitle":
                sizes[name] = widget.font().pointSize()
    return sizes


def test_a_tab_shown_right_after_the_toggle_has_the_presentation_fonts(qtbot, window) -> None:
    tabs = window.tabs
    assert tabs.count() >= 6
    tabs.setCurrentIndex(0)
    window.presentationAction.setChecked(True)
    for index in range(1, tabs.count()):
        tabs.setCurrentIndex(index)  # at once: before the hidden pages are restyled in the background
        fonts = page_fonts(window, index)
        assert fonts, tabs.tabText(index)
        wrong = {name: pt for name, pt in fonts.items() if pt != PRESENTATION_PT}
        assert not wrong, (tabs.tabText(index), wrong)
    window.presentationAction.setChecked(False)  # on the last tab: the others wait their turn
    for index in reversed(range(tabs.count())):
        tabs.setCurrentIndex(index)
        wrong = {name: pt for name, pt in page_fonts(window, index).items() if pt != NORMAL_PT}
        assert not wrong, (tabs.tabText(index), wrong)


def test_hidden_pages_are_restyled_in_the_background(qtbot, window) -> None:
    window.presentationAction.setChecked(True)
    qtbot.wait(1500)  # a person looking at the shown tab: the others follow one by one
    for index in range(1, window.tabs.count()):
        sizes = set(page_fonts(window, index).values())
        assert sizes == {PRESENTATION_PT}, window.tabs.tabText(index)


def test_the_index_map_toggled_while_hidden_is_drawn_at_the_new_size_when_shown(qtbot, window) -> None:
    axis = window.indexMap.plot.getAxis("left")
    normal_ticks = axis.style["tickFont"].pointSize()
    window.tabs.setCurrentIndex(window.tabs.count() - 1)
    window.presentationAction.setChecked(True)
    window.tabs.setCurrentIndex(0)
    QApplication.processEvents()
    assert axis.style["tickFont"].pointSize() >= 18 > normal_ticks  # readable from the back
    assert window.findChild(QWidget, "runButton").font().pointSize() == PRESENTATION_PT
    assert window.inspector.browser.document().defaultFont().pointSize() == PRESENTATION_PT
    window.presentationAction.setChecked(False)  # shown: restyled at once
    assert axis.style["tickFont"].pointSize() == normal_ticks
    assert window.findChild(QWidget, "runButton").font().pointSize() == NORMAL_PT


def test_a_widget_added_after_the_toggle_takes_the_presentation_size(qtbot, window) -> None:
    window.presentationAction.setChecked(True)
    page = window.tabs.currentWidget()
    box = QWidget(page)
    late = QLabel("added later")  # as a tab adds result widgets after a run: built, then placed
    late.setParent(box)
    box.show()  # polished as it is shown: it takes its parent's font, the presentation size
    assert late.font().pointSize() == PRESENTATION_PT
    window.presentationAction.setChecked(False)
    assert late.font().pointSize() == NORMAL_PT


def test_a_toggle_and_a_tab_switch_end_with_the_page_painted(qtbot, window) -> None:
    """Painting waits while the layouts settle, then the page is painted: never left frozen."""
    for index in (0, 1, 2):
        window.tabs.setCurrentIndex(index)
        qtbot.waitUntil(lambda: window.tabs.updatesEnabled(), timeout=2000)
        page = window.tabs.widget(index)
        paints = Paints(page)
        window.presentationAction.toggle()
        assert not window.tabs.updatesEnabled()  # held while the new fonts lay the page out
        qtbot.waitUntil(lambda paints=paints: window.tabs.updatesEnabled() and paints.count > 0, timeout=3000)
        window.tabs.setCurrentIndex((index + 1) % window.tabs.count())
        shown = Paints(window.tabs.currentWidget())
        qtbot.waitUntil(lambda shown=shown: window.tabs.updatesEnabled() and shown.count > 0, timeout=3000)


def label_box(qtbot) -> tuple[QWidget, QLabel]:
    box = QWidget()
    qtbot.addWidget(box)
    label = QLabel("one frame", box)
    QVBoxLayout(box).addWidget(label)
    box.show()
    qtbot.waitExposed(box)
    return box, label


def test_settle_paints_once_the_layouts_are_quiet(qtbot) -> None:
    box, label = label_box(qtbot)
    settle = Settle(box)
    paints = Paints(label)
    settle.hold()
    label.setText("a longer text: the layout must run again")  # a layout request, then quiet
    assert settle.holding() and not box.updatesEnabled()
    qtbot.waitUntil(lambda: not settle.holding(), timeout=2000)
    assert box.updatesEnabled()
    qtbot.waitUntil(lambda: paints.count > 0, timeout=2000)


def test_settle_lets_go_of_a_widget_that_never_settles(qtbot) -> None:
    box, label = label_box(qtbot)
    settle = Settle(box)
    turns = []

    def restless() -> None:  # a layout request in every turn of the event loop
        turns.append(1)
        label.setMinimumWidth(10 + len(turns) % 2)

    timer = QTimer(box, interval=0, timeout=restless)
    timer.start()
    settle.hold()
    qtbot.waitUntil(lambda: not settle.holding(), timeout=2000)
    timer.stop()
    assert box.updatesEnabled()
    assert len(turns) >= MAX_TURNS - 1  # it waited its turns, then painted anyway


def test_settle_leaves_a_hidden_widget_alone(qtbot) -> None:
    box = QWidget()
    qtbot.addWidget(box)
    settle = Settle(box)
    settle.hold()
    assert box.updatesEnabled() and not settle.holding()
