"""Thread and block coordinates as the emulator gives them (emu/threads.py), on non-square shapes
and with chunks of one block; every coordinate worked out by hand in a comment."""

from __future__ import annotations

import textwrap

import numpy as np

from simtviz import emu

COORDS = """
from numba import cuda

@cuda.jit
def k(out):
    b = cuda.blockIdx.x + cuda.gridDim.x * (cuda.blockIdx.y + cuda.gridDim.y * cuda.blockIdx.z)
    t = cuda.threadIdx.x + cuda.blockDim.x * (cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    g = b * (cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z) + t
    out[g, 0] = cuda.blockIdx.x
    out[g, 1] = cuda.blockIdx.y
    out[g, 2] = cuda.blockIdx.z
    out[g, 3] = cuda.threadIdx.x
    out[g, 4] = cuda.threadIdx.y
    out[g, 5] = cuda.threadIdx.z
    out[g, 6] = cuda.warpsize
"""


def coords(
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    chunk_threads: int,
    block_ids: list[int] | None = None,
) -> np.ndarray:
    n = int(np.prod(grid) * np.prod(block))
    out = np.full((n, 7), -1, np.int64)
    ids = None if block_ids is None else np.array(block_ids, np.int64)
    module = emu.load_source(textwrap.dedent(COORDS), "k.py")
    emu.launch(module, None, grid, block, [out], chunk_threads=chunk_threads, block_ids=ids)
    return out


def test_block_coordinates_of_a_3d_grid_run_one_block_per_chunk() -> None:
    # grid (3, 2, 2): block linear id f = x + 3 (y + 2 z), x fastest. chunk_threads = 2 = one block
    # of (2, 1, 1), so each chunk is a single block. By hand for f = 0..11:
    # x = f % 3: 0 1 2 0 1 2 0 1 2 0 1 2; y = (f // 3) % 2: 0 0 0 1 1 1 0 0 0 1 1 1;
    # z = f // 6: 0 0 0 0 0 0 1 1 1 1 1 1 (f = 5 is still z = 0).
    out = coords((3, 2, 2), (2, 1, 1), chunk_threads=2)
    blocks = out[::2, :3]  # thread 0 of each block, in linear block order
    assert blocks[:, 0].tolist() == [0, 1, 2] * 4
    assert blocks[:, 1].tolist() == [0, 0, 0, 1, 1, 1] * 2
    assert blocks[:, 2].tolist() == [0] * 6 + [1] * 6
    assert (out[1::2, :3] == blocks).all()  # both threads of a block agree
    assert out[:, 3].tolist() == [0, 1] * 12 and (out[:, 4:6] == 0).all()
    assert (out[:, 6] == 32).all()


def test_running_chosen_blocks_runs_those_coordinates() -> None:
    # A traced window runs only some blocks (block_ids, linear). Block 1 of grid (3, 2, 2) is
    # (1, 0, 0), block 4 is (1, 1, 0), block 5 is (2, 1, 0), block 7 is (1, 0, 1): each alone
    # writes its own two rows (2 f, 2 f + 1) and no other row.
    for f, expected in ((1, [1, 0, 0]), (4, [1, 1, 0]), (5, [2, 1, 0]), (7, [1, 0, 1])):
        out = coords((3, 2, 2), (2, 1, 1), chunk_threads=1 << 20, block_ids=[f])
        written = np.flatnonzero(out[:, 0] >= 0).tolist()
        assert written == [2 * f, 2 * f + 1], f
        assert out[2 * f, :3].tolist() == expected and out[2 * f + 1, :3].tolist() == expected


def test_the_same_grid_in_one_chunk_gives_the_same_coordinates() -> None:
    # Every block at once (the default chunk): the coordinates above, thread for thread.
    assert (coords((3, 2, 2), (2, 1, 1), chunk_threads=1 << 20) == coords((3, 2, 2), (2, 1, 1), 2)).all()


def test_thread_coordinates_of_a_non_square_block() -> None:
    # one block of (3, 2, 2): t = x + 3 (y + 2 z); x = t % 3, y = (t // 3) % 2, z = t // 6,
    # as for the blocks above, x fastest.
    out = coords((1, 1, 1), (3, 2, 2), chunk_threads=12)
    assert out[:, 3].tolist() == [0, 1, 2] * 4
    assert out[:, 4].tolist() == [0, 0, 0, 1, 1, 1] * 2
    assert out[:, 5].tolist() == [0] * 6 + [1] * 6
    assert (out[:, :3] == 0).all()
