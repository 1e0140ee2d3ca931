"""The divergent-barrier error names the block by its linear id in the whole grid, also when the
block runs in a later chunk of the emulator (emu/interp.py ``barrier``; emu/__init__.py chunks).

The emulator runs a launch in chunks of whole blocks (the first chunk at most FIRST_BLOCKS =
1024 blocks): inside a chunk a block has a local index (0 for the chunk's first block), which is
not the block a student must look at. Expected numbers worked by hand in the comments."""

from __future__ import annotations

import numpy as np
import pytest

from simtviz import emu

ONE_BLOCK_DIVERGES = """
from numba import cuda

@cuda.jit
def k(out, bad):
    b = cuda.blockIdx.x
    if b != bad or cuda.threadIdx.x == 0:
        cuda.syncthreads()
    out[b] = 1
"""

IN_A_2D_GRID = """
from numba import cuda

@cuda.jit
def k(out):
    if cuda.blockIdx.x != 1 or cuda.blockIdx.y != 1 or cuda.threadIdx.x == 0:
        cuda.syncthreads()
"""


def test_a_barrier_missed_in_the_second_chunk_names_the_grid_block() -> None:
    # 1030 blocks of 2 threads: chunk 1 = blocks 0 .. 1023 (FIRST_BLOCKS), chunk 2 = 1024 .. 1029.
    # Block 1027 is the 4th block of chunk 2 (local index 3); only its thread 0 reaches the
    # barrier on line 8: "reached by 1 of the 2 threads of block 1027", never "block 3".
    out = np.zeros(1030, np.int64)
    module = emu.load_source(ONE_BLOCK_DIVERGES, "k.py")
    with pytest.raises(emu.DivergentBarrier) as info:
        emu.launch(module, None, 1030, 2, [out, 1027])
    assert info.value.line == 8
    assert info.value.message.startswith(
        "cuda.syncthreads() reached by 1 of the 2 threads of block 1027 (linear id) still running"
    )
    # Chunk 1 ran in full before chunk 2 stopped: blocks 0 .. 1023 stored their 1.
    assert out[:1024].tolist() == [1] * 1024


def test_a_2d_grid_in_chunks_of_two_blocks_names_the_linear_block_id() -> None:
    # grid (3, 2) of blocks (4, 2) = 8 threads each; chunk_threads = 16 → 2 blocks per chunk:
    # [0, 1], [2, 3], [4, 5]. Block (x 1, y 1) has linear id 1 + 3 × 1 = 4: local index 0 of
    # chunk 3. Its threads with threadIdx.x == 0 are (0, 0) and (0, 1): 2 of its 8 threads.
    module = emu.load_source(IN_A_2D_GRID, "k.py")
    with pytest.raises(emu.DivergentBarrier) as info:
        emu.launch(module, None, (3, 2), (4, 2), [np.zeros(1, np.int64)], chunk_threads=16)
    assert info.value.line == 7
    assert "reached by 2 of the 8 threads of block 4 (linear id)" in info.value.message
