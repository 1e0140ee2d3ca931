"""The window's objectNames, widget classes and ranges, as the outside contract states them
(docs/CONTRACT.md, "The desktop app, for tests and scripts"): a script that does
``window.findChild(QSpinBox, "kernelWindowFirst")`` must get the box, not None.

The names and classes are copied here as literals from the contract, not read from it: a rename
in the app has to be a rename here too, where it shows. Each name is looked for the way a user
reaches it: its tab shown first; a name that exists only in one state (the launch error dialog)
after getting to that state.
"""

from __future__ import annotations

import re

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTextBrowser,
    QTextEdit,
    QWidget,
)
from qt_helpers import RUN_TIMEOUT_MS, press_run, set_launch

INT32_MAX = 2_147_483_647  # 2^31 - 1: the contract's "0 .. 2147483647"

# (tab title, objectName, classes: findChild with at least one of them must find it). "QLabel
# or QTextEdit" in the contract is (QLabel, QTextEdit): a script may use either, one must work.
CONTRACT: tuple[tuple[str, str, tuple[type, ...]], ...] = (
    ("Index map", "gridX", (QSpinBox,)),
    ("Index map", "gridY", (QSpinBox,)),
    ("Index map", "gridZ", (QSpinBox,)),
    ("Index map", "blockX", (QSpinBox,)),
    ("Index map", "blockY", (QSpinBox,)),
    ("Index map", "blockZ", (QSpinBox,)),
    ("Index map", "runButton", (QPushButton,)),
    ("Index map", "colorBy", (QComboBox,)),
    ("Index map", "indexMap", (QWidget,)),
    ("Index map", "threadInspector", (QWidget,)),
    ("Index map", "backendLabel", (QLabel,)),
    ("Vector add", "vecaddPanel", (QWidget,)),
    ("Vector add", "vecaddN", (QSpinBox,)),
    ("Vector add", "vecaddBlock", (QSpinBox,)),
    ("Vector add", "vecaddRunButton", (QPushButton,)),
    ("Vector add", "vecaddResult", (QLabel, QTextEdit)),
    ("Your kernel", "kernelTab", (QWidget,)),
    ("Your kernel", "kernelEditor", (QPlainTextEdit,)),
    ("Your kernel", "kernelTemplate", (QComboBox,)),
    ("Your kernel", "kernelGridX", (QSpinBox,)),
    ("Your kernel", "kernelGridY", (QSpinBox,)),
    ("Your kernel", "kernelGridZ", (QSpinBox,)),
    ("Your kernel", "kernelBlockX", (QSpinBox,)),
    ("Your kernel", "kernelBlockY", (QSpinBox,)),
    ("Your kernel", "kernelBlockZ", (QSpinBox,)),
    ("Your kernel", "kernelWindowFirst", (QSpinBox,)),
    ("Your kernel", "kernelWindowBlocks", (QSpinBox,)),
    ("Your kernel", "kernelRunButton", (QPushButton,)),
    ("Your kernel", "kernelResult", (QLabel, QTextEdit)),
    ("Where blocks ran", "scheduleView", (QWidget,)),
    ("Where blocks ran", "occupancyView", (QWidget,)),
    ("Lesson", "lessonPanel", (QWidget,)),
    ("Lesson", "lessonNext", (QPushButton,)),
    ("Lesson", "lessonPrev", (QPushButton,)),
    ("Lesson", "lessonTryIt", (QPushButton,)),
    ("Lesson", "lessonStepTitle", (QLabel,)),
    ("Lesson", "lessonQuestion", (QLabel,)),
    ("Lesson", "lessonAnswer", (QLineEdit, QComboBox)),
    ("Lesson", "lessonCheckAnswer", (QPushButton,)),
    ("Lesson", "lessonFeedback", (QLabel,)),
    ("Exercises", "exercisesTab", (QWidget,)),
    ("Exercises", "exerciseList", (QListWidget,)),
    ("Exercises", "exerciseStatement", (QTextBrowser,)),
    ("Exercises", "exerciseEditor", (QPlainTextEdit,)),
    ("Exercises", "exerciseCheckButton", (QPushButton,)),
    ("Exercises", "exerciseHintButton", (QPushButton,)),
    ("Exercises", "exerciseResults", (QTableWidget,)),
    ("Exercises", "exerciseExplain", (QLabel,)),
    ("Exercises", "exerciseHints", (QLabel,)),
)
# Names in the window as a whole rather than in one tab.
WINDOW_WIDE: tuple[tuple[str, tuple[type, ...]], ...] = (("backendNotice", (QLabel,)),)
# Exists only where no schedule is shown yet: the state the simulator starts in.
NO_SCHEDULE_YET: tuple[tuple[str, tuple[type, ...]], ...] = (("scheduleSampleButton", (QPushButton,)),)

# "range at least 0 .. 2147483647" (gridX…, and kernelGridX… "same rules as gridX"); the
# window of logged blocks takes block numbers, so 0 .. 2147483647 as well.
INT32_BOXES = (
    *(f"{w}{a}" for w in ("grid", "block", "kernelGrid", "kernelBlock") for a in "XYZ"),
    "kernelWindowFirst",
    "kernelWindowBlocks",
)
# Boxes where invalid values must be enterable: typed text, not only setValue.
TYPED = ("blockX", "kernelBlockX", "gridZ", "kernelGridY")


def show_tab(window, title: str) -> None:
    tabs = window.tabs
    (index,) = [i for i in range(tabs.count()) if tabs.tabText(i) == title]
    tabs.setCurrentIndex(index)


def found(root: QWidget, name: str, classes: tuple[type, ...]) -> bool:
    return any(root.findChild(cls, name) is not None for cls in classes)


def missing(window, names) -> list[str]:
    return [
        f"{name} ({' or '.join(c.__name__ for c in classes)})"
        for name, classes in names
        if not found(window, name, classes)
    ]


def type_into(qtbot, box: QAbstractSpinBox, text: str) -> None:
    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), text)
    box.interpretText()


def test_every_contract_name_is_found_with_its_class(qtbot, window) -> None:
    absent: list[str] = []
    for title in dict.fromkeys(title for title, _, _ in CONTRACT):
        show_tab(window, title)
        qtbot.wait(10)
        absent += [
            f"{title}: {entry}" for entry in missing(window, [(n, c) for t, n, c in CONTRACT if t == title])
        ]
    absent += missing(window, WINDOW_WIDE) + missing(window, NO_SCHEDULE_YET)
    assert absent == []


def test_a_script_finds_every_name_in_the_window_as_created_unshown(qtbot, settings_file) -> None:
    """The contract's own example: ``create_main_window(backend="sim")``, not shown, no tab
    clicked, then ``findChild``."""
    from simtviz.gui import create_main_window

    w = create_main_window(backend="sim", settings=settings_file)
    qtbot.addWidget(w)
    assert missing(w, [(n, c) for _, n, c in CONTRACT]) == []
    w.close()


def test_as_the_app_starts_each_tab_clicked_has_its_names(qtbot, settings_file) -> None:
    """``simtviz`` builds the tabs after the first frame (``tabs_later``): a tab clicked at once
    still has every name the contract gives it."""
    from simtviz.qt.main_window import create_main_window

    w = create_main_window("sim", settings_file, tabs_later=True)
    qtbot.addWidget(w)
    w.show()
    for title in dict.fromkeys(title for title, _, _ in CONTRACT):
        show_tab(w, title)
        assert missing(w, [(n, c) for t, n, c in CONTRACT if t == title]) == [], title
    w.close()


def test_the_launch_and_window_boxes_take_0_to_int32_max_as_typed(qtbot, window) -> None:
    show_tab(window, "Your kernel")
    for name in INT32_BOXES:
        box = window.findChild(QSpinBox, name)
        assert box is not None, name
        assert (box.minimum(), box.maximum()) == (0, INT32_MAX), name
    for name in TYPED:
        box = window.findChild(QSpinBox, name)
        show_tab(window, "Index map" if name[0] in "gb" else "Your kernel")
        # Invalid values stay as typed: 0, and 2048 threads (> 1024 per block), and the top.
        for text, value in (("0", 0), ("2048", 2048), ("2147483647", INT32_MAX)):
            type_into(qtbot, box, text)
            assert box.value() == value, (name, text)


def test_vecadd_boxes_are_spin_boxes_with_a_block_range_of_at_least_0_to_4096(qtbot, window) -> None:
    show_tab(window, "Vector add")
    block = window.findChild(QSpinBox, "vecaddBlock")
    assert block.minimum() <= 0 and block.maximum() >= 4096
    for text, value in (("0", 0), ("4096", 4096)):
        type_into(qtbot, block, text)
        assert block.value() == value
    assert window.findChild(QSpinBox, "vecaddN").maximum() >= 1


def test_the_contract_methods_answer_before_any_run(qtbot, window) -> None:
    show_tab(window, "Index map")
    assert window.findChild(QWidget, "indexMap").current_image() is None
    entries = [
        window.findChild(QComboBox, "colorBy").itemText(i)
        for i in range(window.findChild(QComboBox, "colorBy").count())
    ]
    spellings = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z")
    for word in (*spellings, "global linear index", "warp", "lane"):
        assert any(word in entry for entry in entries), word
    show_tab(window, "Your kernel")
    kernel = window.findChild(QWidget, "kernelTab")
    assert kernel.summary() is None
    kernel.set_args({})  # callable with the CLI's {NAME: SPEC}
    show_tab(window, "Where blocks ran")
    assert window.findChild(QWidget, "scheduleView").summary() is None  # no GPU run on the simulator
    occupancy = window.findChild(QWidget, "occupancyView").summary()
    assert {
        "device",
        "cc",
        "block",
        "blocks_per_sm",
        "warps_per_sm",
        "occupancy",
        "limiter",
        "limits",
    } <= set(occupancy)
    show_tab(window, "Lesson")
    lesson = window.findChild(QWidget, "lessonPanel")
    assert lesson.step_count() > 1 and lesson.current_step() == 0
    # "2.2.4"-like: the section number first.
    assert re.match(r"\d+(\.\d+)+", window.findChild(QLabel, "lessonStepTitle").text())


def test_the_contract_keys_are_window_shortcuts(window) -> None:
    shortcuts = {
        s.toString() for a in window.findChildren(object) if hasattr(a, "shortcuts") for s in a.shortcuts()
    }
    for key in ("Ctrl+R", "F5", "Esc", "F1"):
        assert QKeySequence(key).toString() in shortcuts, key


def test_a_rejected_launch_shows_launch_error_dialog(qtbot, window) -> None:
    show_tab(window, "Index map")
    set_launch(window, (4, 1, 1), (2048, 1, 1))  # 2048 > 1024 threads per block
    press_run(qtbot, window)
    qtbot.waitUntil(
        lambda: found(window, "launchErrorDialog", (QMessageBox, QDialog)), timeout=RUN_TIMEOUT_MS
    )
    dialog = window.findChild(QDialog, "launchErrorDialog")
    text = f"{dialog.text()} {dialog.informativeText()}" if isinstance(dialog, QMessageBox) else ""
    assert "2,048 > 1,024" in text or "2048 > 1024" in text
    dialog.done(QMessageBox.StandardButton.Close)


def test_a_launch_with_blocks_past_the_window_boxes_says_so_in_words(qtbot, window) -> None:
    show_tab(window, "Your kernel")
    tab = window.findChild(QWidget, "kernelTab")
    grid_x, grid_y = window.findChild(QSpinBox, "kernelGridX"), window.findChild(QSpinBox, "kernelGridY")
    help_label = window.findChild(QLabel, "kernelWindowHelp")
    # 65,536 × 32,768 = 2^31 = 2,147,483,648 blocks, ids 0 … 2,147,483,647: the boxes reach all.
    grid_x.setValue(65_536)
    grid_y.setValue(32_768)
    assert "This launch has" not in help_label.text()
    # 65,536 × 65,536 = 2^32 = 4,294,967,296 blocks: ids past 2,147,483,647 cannot be typed.
    grid_y.setValue(65_536)
    assert (
        "This launch has 4,294,967,296 blocks (0–4,294,967,295), more than these boxes reach: "
        "a window can start at block 2,147,483,647 at the latest" in help_label.text()
    )
    assert "simtviz trace --window FIRST:COUNT" in help_label.text()
    # Asked for a window the boxes cannot hold, the tab says so and keeps the one shown.
    tab.set_window(5, 2)
    try:
        tab.set_window(2_147_483_648, 0)  # 2^31
    except ValueError as exc:
        assert "first block 2,147,483,648 is past what the boxes hold (0 to 2,147,483,647)" in str(exc)
    else:
        raise AssertionError("set_window took a first block past the boxes")
    assert tab.window_inputs() == (5, 2)
    grid_y.setValue(1)
    assert "This launch has" not in help_label.text()


def test_a_saved_window_past_the_boxes_is_named_not_clamped(qtbot, tmp_path) -> None:
    from PySide6.QtCore import QSettings

    from simtviz.gui import create_main_window

    path = str(tmp_path / "w.ini")
    saved = QSettings(path, QSettings.Format.IniFormat)
    saved.setValue("kernel/source", "from numba import cuda\n\n\n@cuda.jit\ndef k(A):\n    A[0] = 1\n")
    saved.setValue("kernel/grid", "4,1,1")
    saved.setValue("kernel/window_first", "3000000000")  # past 2^31 - 1: an older version saved it
    saved.sync()
    w = create_main_window(backend="sim", settings=QSettings(path, QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    tab = w.findChild(QWidget, "kernelTab")
    text = tab.findChild(QTextEdit, "kernelResult").toPlainText()
    assert "kernel/window_first=3000000000 is not a number from 0 to 2,147,483,647; using 0" in text
    assert tab.window_inputs() == (0, 0)
    w.close()
