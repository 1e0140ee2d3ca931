"""A presentation toggle paints each page once (issue 21: toggle and tab switch ≤ 150 ms).

Two patterns each cost a whole extra frame at 1920 × 1080 (30–50 ms of CPU for a page, 13–18 ms
for the index map) and came back more than once, so they are counted, never timed:
- the main tab widget repainting every widget on the page for a layout request that moved
  nothing (a page's size hint changed: pyqtgraph's axes, a hidden page restyled);
- pyqtgraph's axes measuring their tick labels only while painting, then resizing, so that the
  map is laid out and painted again after the frame.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QWidget
from qt_helpers import Paints

QUIET_MS = 700  # longer than the hidden pages' restyle in the background starts (300 ms)


def settled(qtbot, window) -> None:
    qtbot.waitUntil(lambda: window.tabs.updatesEnabled(), timeout=3000)
    qtbot.wait(QUIET_MS)


def test_a_layout_request_that_moves_nothing_does_not_repaint_the_page(qtbot, window) -> None:
    settled(qtbot, window)
    paints = Paints(window.tabs)
    # What a page's widget does when its size hint changes (its parent's layout is asked again).
    QApplication.postEvent(window.tabs, QEvent(QEvent.Type.LayoutRequest))
    qtbot.wait(200)
    assert paints.count == 0  # Qt's own answer repaints the whole tab widget: 1


def test_a_page_that_needs_more_room_still_tells_the_window(qtbot, window) -> None:
    """The request answered without a repaint still passes the page's new minimum size on: the
    window must not be made smaller than its page (issue 21: it fits 1024 × 640)."""
    settled(qtbot, window)
    page = window.tabs.currentWidget()
    narrow = window.minimumSizeHint().width()
    page.setMinimumWidth(narrow + 400)  # a page that suddenly needs 400 px more
    qtbot.waitUntil(lambda: window.minimumSizeHint().width() >= narrow + 400, timeout=2000)
    page.setMinimumWidth(0)  # and no more: the window may be narrow again
    qtbot.waitUntil(lambda: window.minimumSizeHint().width() < narrow + 400, timeout=2000)


def test_a_longer_tab_title_still_lays_the_tab_bar_out(qtbot, window) -> None:
    settled(qtbot, window)
    bar = window.tabs.tabBar()
    before = bar.width()
    window.tabs.setTabText(0, window.tabs.tabText(0) + " with a much longer title than before")
    qtbot.waitUntil(lambda: bar.width() > before + 100, timeout=2000)


def test_the_index_map_is_painted_once_per_toggle(qtbot, window, run_launch) -> None:
    window.resize(1920, 1080)
    run_launch((4, 4, 1), (8, 8, 1))  # 32 × 32 cells: the axes' labels reach "31"
    settled(qtbot, window)
    view = window.indexMap.view.viewport()
    for presentation in (True, False):
        paints = Paints(view)
        window.presentationAction.setChecked(presentation)  # tick labels from 10 pt to 18 pt and back
        settled(qtbot, window)
        # Before the axes were measured ahead of the paint: 3 (the frame, then twice more as the
        # left and bottom axes took their new width and height).
        assert paints.count == 1, presentation
        view.removeEventFilter(paints)


def test_a_size_hint_changed_deep_in_a_page_settles_in_a_few_turns(qtbot) -> None:
    """A layout request reaches the parent's layout one turn of the event loop later: twelve
    nested boxes kept the hold busy until MAX_TURNS (it then painted before the layouts were
    done, and again after); delivered all at once, the change settles in a few turns."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QLabel, QVBoxLayout

    from simtviz.qt.settle import MAX_TURNS, Settle

    top = QWidget()
    qtbot.addWidget(top)
    parent = top
    for _ in range(12):
        child = QWidget(parent)
        QVBoxLayout(parent).addWidget(child)
        parent = child
    label = QLabel("short", parent)
    QVBoxLayout(parent).addWidget(label)
    top.show()
    qtbot.waitExposed(top)
    qtbot.wait(50)
    settle = Settle(top)
    turns = []  # turns of the event loop while held
    settle.hold()
    counter = QTimer(top, interval=0, timeout=lambda: settle.holding() and turns.append(1))
    counter.start()
    label.setText("a much longer text: every box above it has a new size hint")
    qtbot.waitUntil(lambda: not settle.holding(), timeout=2000)
    counter.stop()
    assert len(turns) <= 4 < MAX_TURNS  # the requests of all twelve levels delivered in one turn
    assert top.width() >= label.sizeHint().width()  # and the layouts did follow


def test_the_occupancy_chart_is_painted_once_per_toggle(qtbot, window) -> None:
    """pyqtgraph's ``InfiniteLine`` (the chart's "this launch" marker) works its bounds out while
    it is painted, and asks for the geometry change then: the chart painted a second time after
    each toggle (137–155 ms at 1920 × 1080 on Where blocks ran). Worked out while the page is
    held, the frame is the only paint."""
    window.resize(1920, 1080)
    window.tabs.setCurrentIndex(window.tabs.indexOf(window.findChild(QWidget, "scheduleTabScroll")))
    settled(qtbot, window)
    chart = window.findChild(QWidget, "occupancyView").occupancyChart
    assert chart.isVisible()
    view = chart.viewport()
    for presentation in (True, False):
        paints = Paints(view)
        window.presentationAction.setChecked(presentation)
        settled(qtbot, window)
        assert paints.count == 1, presentation
        view.removeEventFilter(paints)
