"""The Your kernel tab's detail line names at most 12 of a clicked element's accesses, then says
how many more there were (a hand-made traced run handed to the tab, no kernel run)."""

from __future__ import annotations

from typing import Any

from hand_traces import Row, sites_of, traced
from simtviz.core.trace.analysis import ArrayInfo


def test_a_clicked_element_lists_its_first_12_accesses_and_counts_the_rest(qtbot: Any, window: Any) -> None:
    # Threads 0..13 atomically add to H[0]: 14 accesses, 12 named (threads 0..11), "… and 2 more".
    arrays = (ArrayInfo("H", (4,), "int32"),)
    sites = sites_of(arrays, (7, "H", "atomic"))
    result = traced((1, 1, 1), (32, 1, 1), arrays, sites, [Row(t, 0, (0,)) for t in range(14)])
    tab = window.findChild(object, "kernelTab")
    tab._on_result("trace", result)
    tab.select_element(0, 0)
    text = tab.detail.text()
    assert text.startswith("H[0]: 14 accesses by 14 thread(s): thread 0 line 7: atomic add H[0]; thread 1 ")
    assert text.count("atomic add H[0]") == 12
    assert "thread 11 line 7" in text and "thread 12 line 7" not in text
    assert text.endswith(" … and 2 more")
