"""The Your kernel tab's settings and inputs, line by line, by hand: what each input saves under
its own key and brings back after a restart (a non-square launch, so that grid and block or x
and y cannot trade places unseen), the first start, bad saved values in words, the 1 MB text
limit at its edge, the launch boxes' places, the window help at 2^31 blocks, the arguments
table's specs, and the code editor's Tab, gutter and dark colours."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fake_backends import FakeHostBackend
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QGroupBox, QLabel
from qt_helpers import cancelled_file_dialogs

from simtviz.qt.session import RunSession
from simtviz.qt.tabs.kernel.editor import CodeEditor
from simtviz.qt.tabs.kernel.run import ArgsTable
from simtviz.qt.tabs.kernel.settings import WINDOW_HELP, KernelSettings
from simtviz.qt.tabs.kernel.tab import KernelTab

INT32_MAX = 2_147_483_647


@pytest.fixture
def session(tmp_path: Any) -> Iterator[RunSession]:
    s = RunSession(lambda: FakeHostBackend())
    s.store = QSettings(str(tmp_path / "simtviz.ini"), QSettings.Format.IniFormat)
    yield s
    s.close()


def _tab(qtbot: Any, session: RunSession) -> KernelTab:
    t = KernelTab(session)
    qtbot.addWidget(t)
    return t


def _said(session: RunSession) -> list[str]:
    said: list[str] = []
    session.statusRequested.connect(lambda text, _ms: said.append(text))
    return said


def test_every_input_is_saved_under_its_own_key_and_restored_in_its_own_box(
    qtbot: Any, session: RunSession
) -> None:
    tab = _tab(qtbot, session)
    tab.load_template("matadd_swapped")
    tab.settingsPanel.set_dims("3,5,2", "48,2,1")
    tab.check.setText("  C == A + B ")  # kept as typed
    tab.budget.setValue(12345)
    tab.timeLimit.setValue(2.5)
    tab.set_window(4, 7)
    tab.save_state()
    qs = session.store
    assert qs.value("kernel/template") == "matadd_swapped"
    assert (qs.value("kernel/grid"), qs.value("kernel/block")) == ("3,5,2", "48,2,1")
    assert qs.value("kernel/check") == "  C == A + B "
    assert (int(qs.value("kernel/budget")), float(qs.value("kernel/time_limit"))) == (12345, 2.5)
    assert (int(qs.value("kernel/window_first")), int(qs.value("kernel/window_blocks"))) == (4, 7)
    again = _tab(qtbot, session)
    assert (again.grid(), again.block()) == ((3, 5, 2), (48, 2, 1))
    assert [again.spins[k].value() for k in ("gridX", "gridY", "gridZ", "blockX", "blockY")] == [
        3,
        5,
        2,
        48,
        2,
    ]
    assert again.check.text() == "  C == A + B "
    assert (again.budget.value(), again.timeLimit.value()) == (12345, 2.5)
    assert again.window_inputs() == (4, 7)
    assert again.editor.toPlainText() == tab.editor.toPlainText()
    assert again.args.specs() == tab.args.specs()


def test_the_first_start_shows_the_unguarded_vecadd_and_saves_nothing(
    qtbot: Any, session: RunSession
) -> None:
    tab = _tab(qtbot, session)
    # the second template (the first is the guarded one): grid 4, block 256
    assert tab.template.currentData() == "vecadd_unguarded"
    assert (tab.grid(), tab.block()) == ((4, 1, 1), (256, 1, 1))
    assert tab.window_inputs() == (0, 0)
    assert session.store.value("kernel/source") is None


def test_a_short_saved_launch_gets_ones_and_a_missing_block_32_threads(
    qtbot: Any, session: RunSession
) -> None:
    session.store.setValue("kernel/source", "# mine\n")
    session.store.setValue("kernel/grid", "3,5")  # z missing: 1
    tab = _tab(qtbot, session)
    assert tab.grid() == (3, 5, 1)
    assert tab.block() == (32, 1, 1)  # no block saved: 32 threads
    assert (tab.budget.value(), tab.timeLimit.value()) == (2_097_152, 10.0)  # the defaults


def test_bad_saved_numbers_are_said_together_and_fall_back_to_their_defaults(
    qtbot: Any, session: RunSession
) -> None:
    qs = session.store
    qs.setValue("kernel/source", "# mine\n")
    qs.setValue("kernel/budget", 0)  # below 1
    qs.setValue("kernel/time_limit", 3601)  # above an hour
    said = _said(session)
    tab = _tab(qtbot, session)
    line = (
        "Settings: kernel/budget=0 is not a number from 1 to 2,147,483,647; using 2,097,152; "
        "kernel/time_limit=3601 is not a number from 0.5 to 3,600; using 10."
    )
    assert tab.result.toPlainText() == line
    assert said == [line]
    assert (tab.budget.value(), tab.timeLimit.value()) == (2_097_152, 10.0)


def test_a_budget_of_exactly_1_and_half_a_second_are_kept(qtbot: Any, session: RunSession) -> None:
    qs = session.store
    qs.setValue("kernel/source", "# mine\n")
    qs.setValue("kernel/budget", 1)
    qs.setValue("kernel/time_limit", 0.5)
    tab = _tab(qtbot, session)
    assert (tab.budget.value(), tab.timeLimit.value()) == (1, 0.5)
    assert not tab.result.toPlainText().startswith("Settings:")


def test_a_text_of_exactly_the_limit_is_kept_and_one_over_is_said_once(
    qtbot: Any, session: RunSession, monkeypatch: Any
) -> None:
    import simtviz.core.files

    monkeypatch.setattr(simtviz.core.files, "KERNEL_FILE_LIMIT", 100)  # 1 MB made 100 characters: quick
    tab = _tab(qtbot, session)
    said = _said(session)
    text = "#" * 100  # exactly the limit: kept
    tab.editor.setPlainText(text)
    tab.save_state()
    assert session.store.value("kernel/source") == text
    assert said == []
    tab.editor.setPlainText(text + "#")  # 101: not kept, said once over two saves
    tab.save_state()
    tab.save_state()
    assert session.store.value("kernel/source") == text
    assert len(said) == 1 and "use Save… to keep it" in said[0]


def test_the_launch_boxes_stand_grid_above_block_under_x_y_z(qtbot: Any) -> None:
    panel = KernelSettings()
    qtbot.addWidget(panel)
    (launch,) = [g for g in panel.findChildren(QGroupBox) if g.title() == "Launch"]
    layout = launch.layout()

    def at(widget: Any) -> tuple[int, int]:
        r, c, _, _ = layout.getItemPosition(layout.indexOf(widget))
        return r, c

    assert at(panel.spins["gridX"]) == (1, 1) and at(panel.spins["gridZ"]) == (1, 3)
    assert at(panel.spins["blockX"]) == (2, 1) and at(panel.spins["blockY"]) == (2, 2)
    heads = {at(w): w.text() for w in launch.findChildren(QLabel)}
    assert heads == {
        (0, 1): "X",
        (0, 2): "Y",
        (0, 3): "Z",
        (1, 0): "grid (blocks)",
        (2, 0): "block (threads)",
    }
    assert (panel.timeLimit.minimum(), panel.timeLimit.maximum()) == (0.5, 3600)
    assert panel.timeLimit.suffix() == " s" and panel.timeLimit.value() == 10.0
    assert (panel.budget.minimum(), panel.budget.maximum(), panel.budget.value()) == (1, INT32_MAX, 2_097_152)
    assert panel.windowBlocks.specialValueText() == "all"


def test_the_window_help_speaks_up_only_past_2_to_the_31_blocks(qtbot: Any) -> None:
    panel = KernelSettings()
    qtbot.addWidget(panel)
    panel.set_dims("65536,32768,1", "1,1,1")  # 2^16 × 2^15 = 2^31 blocks, ids 0 … 2^31 − 1: reached
    assert panel.windowHelp.text() == WINDOW_HELP
    panel.set_dims("715827883,3,1", "1,1,1")  # 2,147,483,649 = 2^31 + 1 blocks: the last is not
    assert panel.windowHelp.text() == (
        f"{WINDOW_HELP} This launch has 2,147,483,649 blocks (0–2,147,483,648), more than these "
        "boxes reach: a window can start at block 2,147,483,647 at the latest and take "
        "2,147,483,647 blocks or 'all' (to the last block). For a window further on: "
        "simtviz trace --window FIRST:COUNT."
    )


def test_the_window_boxes_take_2_to_the_31_minus_1_and_refuse_one_more(qtbot: Any) -> None:
    panel = KernelSettings()
    qtbot.addWidget(panel)
    panel.set_window(INT32_MAX, INT32_MAX)
    assert panel.window_inputs() == (INT32_MAX, INT32_MAX)
    with pytest.raises(ValueError, match="the window's first block 2,147,483,648 is past"):
        panel.set_window(INT32_MAX + 1, 0)


def test_the_arguments_table_writes_arrays_and_scalars_in_the_clis_syntax(qtbot: Any) -> None:
    table = ArgsTable()
    qtbot.addWidget(table)
    table.set_specs(["M", "n", "out"], {"M": "int32[3,5]:arange", "n": "int32:7"})
    # out was given nothing: a float32 array of 1,000 zeros
    assert table.specs() == {"M": "int32[3,5]:arange", "n": "int32:7", "out": "float32[1000]:zeros"}
    assert [table.item(r, 3).text() for r in range(3)] == ["3,5", "", "1000"]
    assert [table.cellWidget(r, 1).currentText() for r in range(3)] == ["array", "scalar", "array"]


def test_tab_types_four_spaces_and_the_gutter_holds_three_digits_at_least(qtbot: Any) -> None:
    editor = CodeEditor()
    qtbot.addWidget(editor)
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.toPlainText() == "    "
    nine = editor.fontMetrics().horizontalAdvance("9")
    assert editor.number_width() == 10 + 3 * nine  # 1 line: still room for 3 digits
    editor.setPlainText("\n" * 999)  # 1,000 lines: 4 digits
    assert editor.number_width() == 10 + 4 * nine


def test_a_dark_editor_gets_the_dark_colours_and_a_light_one_the_light(qtbot: Any) -> None:
    editor = CodeEditor()
    qtbot.addWidget(editor)
    assert editor.highlighter.dark is False
    dark = QPalette(editor.palette())
    dark.setColor(QPalette.ColorRole.Base, QColor("#2b2d31"))
    editor.setPalette(dark)
    assert editor.highlighter.dark is True
    light = QPalette(editor.palette())
    light.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
    editor.setPalette(light)
    assert editor.highlighter.dark is False


def test_a_marked_line_past_the_end_marks_nothing_and_the_last_line_is_marked(qtbot: Any) -> None:
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.setPlainText("a\nb\nc")  # 3 lines
    editor.mark_line(3)
    (sel,) = editor.extraSelections()
    assert sel.cursor.blockNumber() == 2 and sel.cursor.block().text() == "c"
    editor.mark_line(4)
    assert editor.extraSelections() == []
    editor.mark_line(0)
    assert editor.extraSelections() == []


def test_open_and_save_say_the_whole_path_in_the_box_and_the_status_bar(
    qtbot: Any, session: RunSession, tmp_path: Any
) -> None:
    tab = _tab(qtbot, session)
    said = _said(session)
    path = tmp_path / "mine.py"
    path.write_text("x = 1\n")
    assert tab.open_file(path)
    assert tab.result.toPlainText() == f"Opened {path}"
    out = tmp_path / "copy.py"
    assert tab.save_file(out) == out
    assert tab.result.toPlainText() == f"Saved {out}"
    assert said == [f"Opened {path}", f"Saved {out}"]
    assert out.read_text() == "x = 1\n"


def test_the_kernel_file_dialogs_ask_for_python_files(
    qtbot: Any, session: RunSession, monkeypatch: Any
) -> None:
    asked = cancelled_file_dialogs(monkeypatch)
    tab = _tab(qtbot, session)
    assert tab.open_file() is False and tab.save_file() is None
    assert asked == [
        ("Open a kernel", "", "Python files (*.py)"),
        ("Save the kernel", "kernel.py", "Python files (*.py)"),
    ]


def _colour_at(editor: CodeEditor, line: int, col: int) -> tuple[str, bool, bool]:
    """(colour, bold, italic) of line ``line``'s (1-based) character ``col`` (0-based)."""
    block = editor.document().findBlockByNumber(line - 1)
    found = ("", False, False)
    for r in block.layout().formats():
        if r.start <= col < r.start + r.length:
            f = r.format
            found = (f.foreground().color().name(), f.fontWeight() == QFont.Weight.Bold, f.fontItalic())
    return found


def test_the_light_editor_colours_each_kind_of_word(qtbot: Any) -> None:
    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.setPlainText(
        "@cuda.jit\n"  # 1
        "def k(a):  # note\n"  # 2
        "    x = 12 + True\n"  # 3
        '    s = """doc\n'  # 4: a docstring opened here …
        '    more""" + cuda.grid(1)\n'  # 5: … and closed here
        "    t = 'str'\n"  # 6
    )
    assert _colour_at(editor, 1, 0) == ("#7a6a00", False, False)  # the decorator
    assert _colour_at(editor, 2, 0) == ("#0033b3", True, False)  # def: a keyword, bold
    assert _colour_at(editor, 2, 13) == ("#6e6e6e", False, True)  # the comment, italic
    assert _colour_at(editor, 3, 8) == ("#1750eb", False, False)  # 12
    assert _colour_at(editor, 3, 13) == ("#871094", False, False)  # True
    assert _colour_at(editor, 4, 12) == ("#067d17", False, True)  # doc: inside the docstring
    assert _colour_at(editor, 5, 4) == ("#067d17", False, True)  # more: still inside it
    assert _colour_at(editor, 5, 14) == ("#00627a", False, False)  # cuda, after it closed
    assert _colour_at(editor, 6, 9) == ("#067d17", False, False)  # 'str'


def test_a_saved_launch_out_of_range_keeps_the_text_and_says_which_key(
    qtbot: Any, session: RunSession
) -> None:
    session.store.setValue("kernel/source", "# mine\n")
    session.store.setValue("kernel/grid", "3,-1")
    tab = _tab(qtbot, session)
    assert tab.editor.toPlainText() == "# mine\n"
    assert tab.result.toPlainText() == (
        "Settings: the saved launch could not be read (kernel/grid=3,-1 is out of range); kept the text only."
    )


def test_every_input_starts_the_save_pause_and_the_pause_saves(qtbot: Any, session: RunSession) -> None:
    tab = _tab(qtbot, session)
    edits = [
        lambda: tab.editor.setPlainText("# edited\n"),
        lambda: tab.check.setText("C == 0"),
        lambda: tab.spins["gridY"].setValue(5),
        lambda: tab.spins["blockZ"].setValue(2),
        lambda: tab.budget.setValue(99),
        lambda: tab.timeLimit.setValue(3.0),
        lambda: tab.windowFirst.setValue(1),
        lambda: tab.windowBlocks.setValue(2),
        lambda: tab.args.item(0, 3).setText("7"),
        lambda: tab.args.cellWidget(0, 1).setCurrentText("scalar"),
        lambda: tab.args.cellWidget(0, 2).setCurrentText("int32"),
    ]
    for n, edit in enumerate(edits):
        tab._save_timer.stop()
        edit()
        assert tab._save_timer.isActive(), f"edit {n} starts no save"
    assert tab._save_timer.interval() == 400
    qtbot.waitUntil(lambda: session.store.value("kernel/budget") is not None, timeout=2000)
    assert int(session.store.value("kernel/budget")) == 99
    assert session.store.value("kernel/source") == "# edited\n"


class _GutterPainter:
    """Records the gutter's numbers with the pen each was written in."""

    last: _GutterPainter | None = None

    def __init__(self, _widget: Any) -> None:
        self.colour = ""
        self.numbers: list[tuple[str, str, int]] = []  # text, colour, width
        _GutterPainter.last = self

    def fillRect(self, *_a: Any) -> None: ...

    def end(self) -> None: ...

    def setPen(self, colour: QColor) -> None:
        self.colour = QColor(colour).name()

    def drawText(self, _x: int, _y: int, w: int, _h: int, flags: Any, text: str) -> None:
        assert flags == Qt.AlignmentFlag.AlignRight
        self.numbers.append((text, self.colour, w))


def test_the_gutter_numbers_lines_from_1_and_writes_the_marked_one_in_red(
    qtbot: Any, monkeypatch: Any
) -> None:
    from PySide6.QtGui import QPaintEvent

    from simtviz.qt.tabs.kernel import editor as editor_module

    editor = CodeEditor()
    qtbot.addWidget(editor)
    editor.setPlainText("a\nb\nc\nd\ne")  # 5 lines
    editor.resize(300, 400)
    editor.show()
    qtbot.waitExposed(editor)
    editor.mark_line(3)
    monkeypatch.setattr(editor_module, "QPainter", _GutterPainter)
    gutter = editor._numbers
    editor.paint_numbers(gutter, QPaintEvent(gutter.rect()))
    assert _GutterPainter.last is not None
    grey, red = "#6e6e6e", "#c62828"
    w = gutter.width() - 5  # right-aligned 5 pixels from the code
    assert _GutterPainter.last.numbers == [
        ("1", grey, w),
        ("2", grey, w),
        ("3", red, w),
        ("4", grey, w),
        ("5", grey, w),
    ]


def test_budget_limit_and_window_stand_each_beside_its_label(qtbot: Any) -> None:
    from PySide6.QtWidgets import QGridLayout

    panel = KernelSettings()
    qtbot.addWidget(panel)
    (opts,) = [lay for lay in panel.findChildren(QGridLayout) if lay.indexOf(panel.budget) >= 0]

    def at(widget: Any) -> tuple[int, int, int, int]:
        return tuple(opts.getItemPosition(opts.indexOf(widget)))  # row, column, rows, columns

    labels = {at(w)[:2]: w.text() for w in panel.findChildren(QLabel) if opts.indexOf(w) >= 0}
    assert labels == {
        (0, 0): "Budget (accesses)",
        (0, 2): "Time limit",
        (1, 0): "Window: first block",
        (1, 2): "blocks",
        (2, 0): WINDOW_HELP,
    }
    assert at(panel.budget)[:2] == (0, 1) and at(panel.timeLimit)[:2] == (0, 3)
    assert at(panel.windowFirst)[:2] == (1, 1) and at(panel.windowBlocks)[:2] == (1, 3)
    assert at(panel.windowHelp) == (2, 0, 1, 4)  # the help spans the four columns
    assert panel.windowFirst.toolTip() == "the window's first block (linear id, from 0)"
    assert panel.windowBlocks.toolTip() == "how many blocks the window takes ('all': through the last block)"
