"""The Your kernel tab on the CUDA simulator: templates, Run, the findings, the time limit, and
the editor's text surviving a restart. Each Run starts a child process of its own."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QComboBox, QPlainTextEdit, QPushButton, QSpinBox, QTextEdit

from simtviz.core.trace.model import DEFAULT_TIME_LIMIT_S
from simtviz.gui import create_main_window

RUN_MS = 60_000

ENDLESS = """from numba import cuda


@cuda.jit
def spin(A):
    i = cuda.grid(1)
    while A[0] == 0.0:
        i += 1
"""


def tab_of(w):
    tab = w.findChild(object, "kernelTab")
    assert tab is not None
    return tab


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


@pytest.mark.window_backend("sim")
def test_unguarded_vecadd_template_runs_and_reports_72_out_of_bounds(qtbot, window) -> None:
    tab = tab_of(window)
    choose(tab, "vecadd_unguarded")
    assert "C[i] = A[i] + B[i]" in tab.findChild(QPlainTextEdit, "kernelEditor").toPlainText()
    assert tab.findChild(QSpinBox, "kernelGridX").value() == 4
    assert tab.findChild(QSpinBox, "kernelBlockX").value() == 256
    assert tab.summary() is None
    text = run_tab(qtbot, tab)
    # 4 × 256 = 1024 threads over 1000 elements: 24 extra threads × 3 accesses.
    assert "72 out-of-bounds accesses" in text
    assert "blockIdx.x=3, threadIdx.x=232 (thread 1,000) loads A[1000]" in text  # 1000 = 3 × 256 + 232
    s = tab.summary()
    assert s["oob_total"] == 72 and s["threads"] == 1024 and s["backend"] == "sim"
    # A pass beside skipped out-of-bounds stores is explained where the verdict is.
    assert (
        "Check C == A + B: passed here,\n  but the 24 out-of-bounds stores were skipped by the tracer" in text
    )
    # Clicking element 5 of C names the one thread that stored it.
    tab.select_element(2, 5)
    assert "C[5]: 1 accesses by 1 thread(s): thread 5 line 14: store C[5]" in tab.detail.text()
    assert tab.findChild(QSpinBox, "kernelThread").value() == 5


def test_set_args_changes_the_run(qtbot, window) -> None:
    tab = tab_of(window)
    choose(tab, "vecadd_unguarded")
    # 1024 elements for 1024 threads: nothing out of bounds any more.
    tab.set_args({"A": "float32[1024]:ones", "B": "float32[1024]:ones", "C": "float32[1024]"})
    run_tab(qtbot, tab)
    s = tab.summary()
    assert s["oob_total"] == 0 and s["arrays"]["C"]["shape"] == [1024]


def test_transpose_per_line_table_shows_4_and_16_sectors_per_request(qtbot, window) -> None:
    tab = tab_of(window)
    choose(tab, "transpose_naive")
    text = run_tab(qtbot, tab)
    assert "line 15 load A: 4 sectors per request (ideal: 4 for 4-byte elements)" in text
    assert (
        "line 15 store B: 16 sectors per request (ideal: 4 for 4-byte elements), 25% of the fetched" in text
    )
    table = tab.lines
    assert [table.item(r, 5).text() for r in range(table.rowCount())] == ["4", "16"]
    table.selectRow(1)
    req = tab.warp.request
    assert req is not None and len(req["lanes"]) == 32 and len(set(req["sectors"])) == 16


@pytest.mark.window_backend("sim")
def test_endless_loop_stops_at_the_time_limit_and_the_app_still_runs(qtbot, window) -> None:
    tab = tab_of(window)
    tab.findChild(QPlainTextEdit, "kernelEditor").setPlainText(ENDLESS)
    for name, v in (("kernelGridX", 1), ("kernelBlockX", 4)):
        tab.findChild(QSpinBox, name).setValue(v)
    # Once with A[0] = 1 (the loop ends at once), under the default limit: the GPU-compile check's
    # verdict is then cached (its key has no array values), so the short limit below is the
    # kernel's alone and not a loaded machine's numba import in the checker.
    tab.set_args({"A": "float32[4]:ones"})
    assert "Not traced" not in run_tab(qtbot, tab) and tab.summary() is not None
    tab.set_args({"A": "float32[4]"})
    tab.timeLimit.setValue(2.0)
    text = run_tab(qtbot, tab)
    assert "Stopped at the time limit: the kernel" in text and "stopped at the time limit" not in text
    assert tab.summary() is None
    # The app still runs: a kernel that ends, under the default limit again (2 s is too short
    # for a loaded machine's simulator, and the limit's own stop is proved above).
    tab.timeLimit.setValue(DEFAULT_TIME_LIMIT_S)
    choose(tab, "vecadd_guarded")
    assert "No out-of-bounds accesses." in run_tab(qtbot, tab)


def test_unsupported_construct_is_shown_with_its_line_and_marked(qtbot, window) -> None:
    tab = tab_of(window)
    tab.findChild(QPlainTextEdit, "kernelEditor").setPlainText(
        "from numba import cuda\n\n\n@cuda.jit\ndef k(A):\n    A[1:] = 0\n"
    )
    tab.set_args({"A": "float32[8]"})
    tab.findChild(QPushButton, "kernelRunButton").click()
    text = tab.findChild(QTextEdit, "kernelResult").toPlainText()
    assert text.startswith("Not traced: line 6:")
    assert tab.editor._marked == 6


def test_editor_text_survives_recreating_the_window(qtbot, tmp_path) -> None:
    settings = QSettings(str(tmp_path / "k.ini"), QSettings.Format.IniFormat)
    w = create_main_window(backend="sim", settings=settings)
    qtbot.addWidget(w)
    tab = tab_of(w)
    tab.findChild(QPlainTextEdit, "kernelEditor").setPlainText("# my kernel\n" + ENDLESS)
    qtbot.waitUntil(lambda: "my kernel" in str(settings.value("kernel/source", "")), timeout=5000)
    w.close()
    again = create_main_window(
        backend="sim", settings=QSettings(str(tmp_path / "k.ini"), QSettings.Format.IniFormat)
    )
    qtbot.addWidget(again)
    assert tab_of(again).findChild(QPlainTextEdit, "kernelEditor").toPlainText().startswith("# my kernel\n")
    assert [tab_of(again).args.item(0, 0).text()] == ["A"]
    again.close()


@pytest.mark.window_backend("sim")
@pytest.mark.prewarm
def test_showing_the_tab_starts_the_next_runs_process_and_closing_ends_it(qtbot, window) -> None:
    from PySide6.QtWidgets import QTabWidget

    tab = tab_of(window)
    tabs = window.findChild(QTabWidget, "mainTabs")
    from simtviz.backends.isolated import WARM

    tabs.setCurrentWidget(window.kernelTab)  # Run comes next
    qtbot.waitUntil(lambda: WARM.waiting("trace") is not None, timeout=5_000)
    ahead = WARM.waiting("trace")
    assert ahead.kind == "sim" and ahead.alive()
    run_tab(qtbot, tab)
    assert not ahead.alive()  # the Run took that process (one run per process), none started at Run
    qtbot.waitUntil(lambda: WARM.waiting("trace") not in (None, ahead), timeout=5_000)
    following = WARM.waiting("trace")
    window.close()
    qtbot.waitUntil(lambda: not following.alive(), timeout=5_000)  # no process outlives the window


def show_tab(window, tab) -> None:
    tabs = window.tabs
    (index,) = [i for i in range(tabs.count()) if tabs.widget(i).isAncestorOf(tab)]
    tabs.setCurrentIndex(index)


def test_window_inputs_default_to_the_whole_launch_and_keep_their_places(qtbot, window) -> None:
    tab = tab_of(window)
    show_tab(window, tab)
    choose(tab, "vecadd_unguarded")
    first = tab.findChild(QSpinBox, "kernelWindowFirst")
    blocks = tab.findChild(QSpinBox, "kernelWindowBlocks")
    assert (first.value(), blocks.value(), blocks.text()) == (0, 0, "all")
    assert tab.request().window is None  # the whole launch: the run is today's, key for key
    qtbot.waitUntil(lambda: first.isVisible())
    widgets = (first, blocks, tab.budget, tab.timeLimit, tab.findChild(QPushButton, "kernelRunButton"))

    def settled() -> list:
        """The inputs' places once the layout stops moving them (showing the tab lays it out)."""
        seen: list = []

        def still() -> bool:
            seen.append([w.mapTo(tab, w.rect().topLeft()) for w in widgets])
            return len(seen) > 1 and seen[-1] == seen[-2]

        qtbot.waitUntil(still, timeout=5000)
        return seen[-1]

    before = settled()
    first.setValue(2_147_483_647)  # the longest number the box holds (2^31 - 1), typed
    blocks.setValue(123_456_789)
    tab.budget.setValue(2_000_000_000)
    assert settled() == before


def test_a_window_past_the_launch_says_so_and_runs_nothing(qtbot, window) -> None:
    tab = tab_of(window)
    choose(tab, "vecadd_unguarded")
    tab.set_window(4, 1)  # 4 blocks: 0..3
    assert tab.run() is False
    text = tab.findChild(QTextEdit, "kernelResult").toPlainText()
    assert text == "Bad argument: the window starts at block 4, but the launch has 4 blocks (0–3)"
    assert not tab.busy and tab.summary() is None


def test_a_window_of_the_last_block_is_named_in_the_findings(qtbot, window) -> None:
    tab = tab_of(window)
    choose(tab, "vecadd_unguarded")
    tab.set_window(3, 0)  # from block 3 to the last: block 3 only
    text = run_tab(qtbot, tab)
    # Threads 768..1023 log 3 × 256 = 768 of the launch's 3 × 1024 = 3072 accesses; the 72
    # out-of-bounds ones are all theirs (threads 1000..1023).
    assert "Threads in window: block 3 of 4 (256 threads)." in text
    assert "Logged all 768 accesses these threads made, of 3,072 the launch made." in text
    assert "72 out-of-bounds accesses" in text
    assert "768 of 1,000 elements untouched by the window's threads" in text
    s = tab.summary()
    assert s["window"] == {"first_block": 3, "blocks": 1, "threads": 256, "accesses": 768}
    assert "grey: untouched by the window's threads" in tab.arrays.legend.text()
    tab.select_element(2, 5)  # C[5] was stored by thread 5, outside the window
    assert tab.detail.text() == "C[5]: no thread in the window, block 3 of 4 (256 threads), touched it."
    tab.findChild(QSpinBox, "kernelThread").setValue(5)
    assert (
        "is outside the window, block 3 of 4 (256 threads): it ran, but its accesses were not logged."
        in tab.detail.text()
    )
    choose(tab, "transpose_naive")  # a template brings its own launch: the window is all of it again
    assert tab.window_inputs() == (0, 0)


def test_window_inputs_survive_recreating_the_window(qtbot, tmp_path) -> None:
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    w = create_main_window(backend="sim", settings=settings)
    qtbot.addWidget(w)
    tab_of(w).set_window(16, 16)
    qtbot.waitUntil(lambda: str(settings.value("kernel/window_blocks", "")) == "16", timeout=5000)
    w.close()
    again = create_main_window(
        backend="sim", settings=QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    )
    qtbot.addWidget(again)
    assert tab_of(again).window_inputs() == (16, 16)
    again.close()


def test_shared_lines_are_marked_in_the_table_and_a_warp_is_drawn_onto_banks(qtbot, window) -> None:
    tab = tab_of(window)
    choose(tab, "transpose_tile")
    tab.timeLimit.setValue(300)  # ≈3 s alone; a busy test machine must not reach the 10 s default
    text = run_tab(qtbot, tab)
    # A 64×32 floats, 2 blocks of 32×32: 64 warps, each one request per line. Line 24 reads A and
    # writes a tile row (bank tx: 1 wavefront); line 29 reads a tile column (bank ty for all 32
    # lanes: 32 wavefronts) and writes B. Global lines keep their 4 sectors per request.
    assert "line 29 load tile (shared): 32 wavefronts per request (up to a 32-way bank conflict" in text
    assert "tile float32[32, 32] (shared, one per block): 2,048 loads, 2,048 stores." in text
    table = tab.lines
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers == [
        "line", "array", "kind", "count", "requests", "sectors/request", "efficiency",
        "wavefronts/request", "worst conflict",
    ]  # fmt: skip
    rows = [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]
    assert rows == [
        ["24", "A", "load", "2,048", "64", "4", "100%", "—", "—"],
        ["24", "tile (shared)", "store", "2,048", "64", "—", "—", "1", "none"],
        ["29", "B", "store", "2,048", "64", "4", "100%", "—", "—"],
        ["29", "tile (shared)", "load", "2,048", "64", "—", "—", "32", "32-way"],
    ]
    table.selectRow(3)
    req = tab.warp.request
    # The first request logged: one warp (threadIdx.y = ty) in which lane tx reads tile[tx, ty],
    # word 32·tx + ty: all 32 words in bank ty.
    assert req["space"] == "shared" and sorted(req["lanes"]) == list(range(32))
    (ty,) = {bank for banks in req["banks"] for bank in banks}
    assert req["words_per_bank"] == [32 if b == ty else 0 for b in range(32)] and req["wavefronts"] == 32
    tab.warp.grab()  # draws lanes onto banks
    table.selectRow(0)  # a global line: lanes onto sectors, as before
    assert tab.warp.request["space"] == "global" and len(set(tab.warp.request["sectors"])) == 4
    assert [v.aid for v in tab.arrays.views] == [0, 1]  # maps of A and B; none for the tile
    choose(tab, "transpose_naive")  # a kernel without shared arrays: today's seven columns
    run_tab(qtbot, tab)
    assert table.columnCount() == 7
