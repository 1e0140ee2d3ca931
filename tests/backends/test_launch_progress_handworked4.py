"""Record's block counter on a numba whose simulator has no per-block hook: it says so (False),
counts nothing, and leaves the simulator as it found it."""

from __future__ import annotations

import pytest
from numba import cuda  # noqa: F401  (the simulator's kernels run in this process)

from simtviz.backends.record.sim import BlockCounter


@pytest.mark.parametrize("without", ["BlockManager", "BlockManager.run"])
def test_no_per_block_hook_yields_false_and_counts_nothing(
    without: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from numba.cuda.simulator import kernel as simulated

    if without == "BlockManager":  # a numba with no BlockManager at all
        monkeypatch.delattr(simulated, "BlockManager")
    else:  # one whose BlockManager has no run()
        monkeypatch.setattr(simulated, "BlockManager", object)
    counter = BlockCounter()
    with counter.counting() as hooked:
        pass
    assert hooked is False and counter.done == 0
