"""``cuda.*`` in the emulator (emu/cuda_api.py), second file: votes in a launch of one warp, and
``cuda.grid()``/``cuda.gridsize()`` without their argument. Every number is worked out by hand
in a comment."""

from __future__ import annotations

import numpy as np
import pytest

from emu_source import launch_source, run_source
from simtviz.emu import KernelError


def test_votes_in_a_launch_of_a_single_warp() -> None:
    # One block of 8 threads: one warp (ids 0..7), the only one of the launch (a student's warp
    # reduction on block 32 is the same). i = threadIdx.x.
    # ballot(i % 2 == 1): bits 1, 3, 5, 7 = 2 + 8 + 32 + 128 = 170 for every lane.
    # all(i < 8): all 8 lanes agree: 1. all(i < 7): lane 7 disagrees: 0.
    # any(i == 5): lane 5: 1. any(i > 7): no lane: 0.
    # activemask(): the 8 lanes, bits 0..7 = 2^8 - 1 = 255.
    out = np.zeros((6, 8), np.int64)
    run_source(
        """
        from numba import cuda

        @cuda.jit
        def k(out):
            i = cuda.threadIdx.x
            out[0, i] = cuda.ballot_sync(0xFFFFFFFF, i % 2 == 1)
            out[1, i] = cuda.all_sync(0xFFFFFFFF, i < 8)
            out[2, i] = cuda.all_sync(0xFFFFFFFF, i < 7)
            out[3, i] = cuda.any_sync(0xFFFFFFFF, i == 5)
            out[4, i] = cuda.any_sync(0xFFFFFFFF, i > 7)
            out[5, i] = cuda.activemask()
        """,
        8,
        out,
    )
    assert out.tolist() == [[170] * 8, [1] * 8, [0] * 8, [1] * 8, [0] * 8, [255] * 8]


@pytest.mark.parametrize("call", ["cuda.grid()", "cuda.gridsize()", "cuda.grid(1, 2)"])
def test_grid_and_gridsize_need_their_one_argument(call: str) -> None:
    # numba has no default: cuda.grid() does not compile for a GPU, and numba's simulator raises
    # "grid() missing 1 required positional argument". The emulator says so on the call's line
    # (line 4 of the kernel's text: the import, the decorator, the def, then the call).
    with pytest.raises(KernelError) as info:
        launch_source(
            f"from numba import cuda\n@cuda.jit\ndef k(out):\n    out[0] = {call}\n", 1, 1, np.zeros(1)
        )
    got = 2 if "1, 2" in call else 0
    assert (info.value.message, info.value.line) == (
        f"cuda.grid/gridsize take one argument, 1, 2 or 3 (got {got})",
        4,
    )
