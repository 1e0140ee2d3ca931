"""The Your kernel tab, by hand: a clicked element selects the LAST thread that touched it (the
colouring's "last to touch"), and the recording window's first block and block count come back
after a restart as they were typed."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from fake_backends import FakeHostBackend
from PySide6.QtCore import QSettings

from simtviz.core.trace.analysis import LOG_FIELDS, ArrayInfo, analyse
from simtviz.core.trace.model import TraceResult
from simtviz.core.trace.rewrite import Site
from simtviz.qt.session import RunSession
from simtviz.qt.tabs.kernel.tab import KernelTab


@pytest.fixture
def session(tmp_path) -> Iterator[RunSession]:
    s = RunSession(lambda: FakeHostBackend())
    s.store = QSettings(str(tmp_path / "simtviz.ini"), QSettings.Format.IniFormat)
    yield s
    s.close()


def make_tab(qtbot, session: RunSession) -> KernelTab:
    tab = KernelTab(session)
    qtbot.addWidget(tab)
    return tab


def test_a_clicked_element_selects_the_last_thread_to_touch_it(qtbot, session: RunSession) -> None:
    # M (3, 5) float32: thread 7 stores M[2, 4] (flat 2 × 5 + 4 = 14, byte 56) at line 5, then
    # thread 9 loads it at line 6. Log rows: thread, site, flags (kind << 1), offset, i0, i1, i2.
    rows = [[7, 0, 1 << 1, 56, 2, 4, 0], [9, 1, 0, 56, 2, 4, 0]]
    log = np.array([r + [0] * (LOG_FIELDS - 7) for r in rows], dtype=np.int64).T.reshape(LOG_FIELDS, -1)
    sites = (Site(0, 5, 4, "M", "store", 2), Site(1, 6, 4, "M", "load", 2))
    arrays = (ArrayInfo("M", (3, 5), "float32"),)
    block, grid = (32, 1, 1), (1, 1, 1)
    a = analyse(log, log.shape[1], sites, arrays, block)
    result = TraceResult("sim", "k", grid, block, sites, arrays, a, log, {}, {})
    tab = make_tab(qtbot, session)
    session.resultArrived.emit("trace", result)
    tab.select_element(0, 14)
    assert tab.threadSpin.value() == 9  # thread 9 touched it last
    detail = tab.detail.text()
    assert "2 accesses by 2 thread(s)" in detail
    assert "thread 7 line 5: store M[2, 4]; thread 9 line 6: load M[2, 4]" in detail


def test_the_window_inputs_are_saved_and_restored_in_their_own_boxes(qtbot, session: RunSession) -> None:
    tab = make_tab(qtbot, session)
    tab.set_window(2, 3)  # from block 2, 3 blocks: blocks 2, 3 and 4
    tab.save_state()
    qs = session.store
    assert (int(qs.value("kernel/window_first")), int(qs.value("kernel/window_blocks"))) == (2, 3)
    again = make_tab(qtbot, session)  # a restart on the same settings
    assert again.window_inputs() == (2, 3)
