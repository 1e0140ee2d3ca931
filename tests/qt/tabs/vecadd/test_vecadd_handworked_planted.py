"""The vector add's launch line at the GPU's block-size limit, by hand: 1,024 threads per block
is the largest a GPU allows, so only 1,025 and up is warned about."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_backends import FakeVecaddBackend
from qt_helpers import RUN_TIMEOUT_MS

from simtviz.qt.session import RunSession
from simtviz.qt.tabs.vecadd.panel import VecaddPanel

WARNING = "more than any GPU allows (1,024): the launch will fail."


@pytest.fixture
def panel(qtbot) -> Iterator[VecaddPanel]:
    session = RunSession(lambda: FakeVecaddBackend())
    p = VecaddPanel(session)
    qtbot.addWidget(p)
    qtbot.waitUntil(lambda: session.backend is not None, timeout=RUN_TIMEOUT_MS)
    yield p
    session.close()


def test_1024_threads_per_block_is_allowed_and_1025_is_not(panel: VecaddPanel) -> None:
    panel.vecaddN.setValue(10_000)
    panel.vecaddBlock.setValue(1024)
    # ceil(10,000 / 1,024) = 10 blocks → 10,240 threads, 240 idle in the last block.
    text = panel.vecaddLaunch.text()
    assert text.startswith("grid_size = ceil(10,000 / 1,024) = 10 blocks → 10,240 threads, 240 idle")
    assert WARNING not in text
    panel.vecaddBlock.setValue(1025)
    # ceil(10,000 / 1,025) = 10 blocks → 10,250 threads
    text = panel.vecaddLaunch.text()
    assert "= 10 blocks → 10,250 threads" in text
    assert f"1,025 threads per block is {WARNING}" in text
