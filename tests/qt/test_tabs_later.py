"""The app's window builds its first tab before its first frame and the others once the backend
is ready (issue 21: start → ready; ``create_main_window(..., tabs_later=True)``, as ``simtviz``
starts): every tab is listed at once, a tab clicked early is built and shown at once, and a tab
built after the backend became ready shows that backend."""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton, QWidget

from simtviz.qt.main_window import create_main_window

TITLES = ["Index map", "Vector add", "Your kernel", "Where blocks ran", "Lesson", "Exercises"]
LATE = ("vecaddPanel", "kernelTab", "scheduleTab", "lessonPanel")  # the menus ask for exercisesTab


def late_window(qtbot, settings_file, backend: str = "sim"):
    w = create_main_window(backend, settings_file, tabs_later=True)
    qtbot.addWidget(w)
    return w


def test_every_tab_is_listed_and_the_others_are_built_after_the_first_frame(qtbot, settings_file) -> None:
    w = late_window(qtbot, settings_file)
    assert [w.tabs.tabText(i) for i in range(w.tabs.count())] == TITLES
    assert not any(name in w.__dict__ for name in LATE)  # not built yet
    assert w.tabs.widget(2).objectName() == "kernelTabPending"
    w.show()
    qtbot.waitUntil(lambda: all(name in w.__dict__ for name in LATE), timeout=30000)
    assert w.tabs.currentIndex() == 0  # the index map stays in front while the others are built
    assert [w.tabs.tabText(i) for i in range(w.tabs.count())] == TITLES
    assert w.findChild(QWidget, "kernelTabPending") is None
    assert w.findChild(QPushButton, "scheduleRunButton") is not None


def test_a_tab_clicked_before_it_is_built_is_built_and_shown(qtbot, settings_file) -> None:
    w = late_window(qtbot, settings_file)
    w.show()
    qtbot.waitExposed(w)
    w.tabs.setCurrentIndex(4)  # Lesson, at once after the window opened
    assert "lessonPanel" in w.__dict__
    assert w.tabs.currentIndex() == 4 and w.tabs.tabText(4) == "Lesson"
    page = w.tabs.currentWidget()
    assert page.objectName() != "lessonPanelPending"
    assert w.lessonPanel is page or w.lessonPanel in page.findChildren(QWidget)
    assert w.lessonPanel.lessonStepTitle.text()  # the first step, as when built with the window


def test_a_tab_built_after_the_backend_is_ready_shows_that_backend(qtbot, settings_file) -> None:
    w = late_window(qtbot, settings_file, backend="emu")  # never shown: nothing built by itself
    qtbot.waitUntil(lambda: w.session.info is not None, timeout=30000)
    assert "scheduleTab" not in w.__dict__
    run = w.scheduleTab.findChild(QPushButton, "scheduleRunButton")  # built now, by its name
    # Before the backend is known a tab assumes the simulator; this one read the emulator.
    assert "the CPU emulator" in run.toolTip() and not run.isEnabled()


def test_a_run_pressed_before_the_tabs_are_built_comes_first(qtbot, settings_file) -> None:
    # A teacher presses Run the moment the backend is ready: the four tabs still to build wait
    # for that run's result (built beside it, they made its map 3x slower to appear).
    w = late_window(qtbot, settings_file, backend="emu")
    events: list[tuple[str, str, bool]] = []

    def run_at_once(_info: object) -> None:
        w.run()

    # connected before the window's own (made at its first frame), so Run comes first
    w.session.backendReady.connect(run_at_once)
    w.session.resultArrived.connect(lambda name, _r: events.append(("result", name, w.session.busy)))
    build = w._build_tab

    def watched(attribute: str) -> None:
        events.append(("built", attribute, w.session.busy))
        build(attribute)

    w._build_tab = watched
    w.show()
    qtbot.waitUntil(lambda: all(name in w.__dict__ for name in LATE), timeout=30000)
    kinds = [kind for kind, _name, _busy in events]
    assert kinds[0] == "result" and events[0][1] == "record"  # the run's result before any tab
    assert not any(busy for kind, _name, busy in events if kind == "built")
    assert w.indexMap.recording is not None
