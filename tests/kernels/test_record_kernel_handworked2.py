"""The recording kernel's end stamp (``ended[0]``), which only a GPU takes: here the kernel's own
source runs on the CPU emulator with a stand-in for the GPU's registers, a "clock" that reads
back who read it (1000 × the block's linear id + the thread's linear id in its block).

``ended[0]`` must end as the stamp of thread (0, 0, 0) of the last block that recorded a thread:
blocks with no thread in the window stamp nothing, and in a block only its first thread stamps.
"""

from __future__ import annotations

import numpy as np
import pytest

from simtviz import emu
from simtviz.backends.record.sim import window_array
from simtviz.core.schema import RECORD_FIELDS, allocate
from simtviz.core.window import Window
from simtviz.emu.modules import kernel_file

IMPORT = "from simtviz.kernels.intrinsics import SIMULATED, global_timer_ns, sm_id\n"
GPU_STAND_IN = """
SIMULATED = False


@cuda.jit(device=True)
def global_timer_ns():
    block = cuda.blockIdx.x + cuda.gridDim.x * cuda.blockIdx.y
    return 1000 * block + cuda.threadIdx.x + cuda.blockDim.x * cuda.threadIdx.y


@cuda.jit(device=True)
def sm_id():
    return cuda.blockIdx.y
"""
GRID, BLOCK = (3, 5, 1), (48, 2, 1)  # 15 blocks (linear id bx + 3 × by) of 96 threads


def record_on_a_stand_in_gpu(window: Window) -> tuple[dict[str, np.ndarray], int]:
    source = kernel_file("simtviz.kernels.record").read_text(encoding="utf-8")
    assert source.count(IMPORT) == 1
    module = emu.load_source(source.replace(IMPORT, GPU_STAND_IN), "record.py", "record_on_gpu")
    fields = allocate(window.threads)
    ended = np.zeros(1, dtype=np.int64)
    args = [*(fields[name] for name in RECORD_FIELDS), window_array(window), ended]
    emu.launch(module, "record_threads", GRID, BLOCK, args)  # every block runs, as on a GPU
    return fields, int(ended[0])


def test_only_the_first_thread_of_blocks_that_recorded_stamps_the_end() -> None:
    # x 50..69 is block column 50 // 48 = 1 .. 69 // 48 = 1; y 3..4 is block rows 3 // 2 = 1 ..
    # 4 // 2 = 2: blocks (1, 1) and (1, 2), linear 1 + 3 = 4 and 1 + 6 = 7. Their thread (0, 0)
    # stamps 4000 and 7000; the maximum is 7000. (Every block stamping would give block 14's
    # 14000; block 7's other threads up to 7000 + 47 + 48 × 1 = 7095.)
    fields, ended = record_on_a_stand_in_gpu(Window((50, 3, 0), (20, 2, 1)))
    assert ended == 7000
    # Row 0 is thread (50, 3): block (1, 1) = 4, threadIdx (50 - 48, 3 - 2) = (2, 1):
    # start 4000 + 2 + 48 × 1 = 4050, SM (the stand-in's blockIdx.y) 1.
    assert fields["t_ns"][0] == 4050 and fields["smid"][0] == 1
    # Last row (69, 4): block (1, 2) = 7, threadIdx (21, 0): 7000 + 21 = 7021, SM 2.
    assert fields["t_ns"][-1] == 7021 and fields["smid"][-1] == 2


@pytest.mark.parametrize(
    ("origin", "size", "stamp"),
    [
        # x 95..96 straddles the edge 2 × 48 = 96: blocks (1, 0) and (2, 0), linear 1 and 2 -> 2000.
        ((95, 0, 0), (2, 1, 1), 2000),
        # x 47 alone, y 9 (the last row): block (47 // 48, 9 // 2) = (0, 4), linear 0 + 12 -> 12000.
        ((47, 9, 0), (1, 1, 1), 12000),
    ],
)
def test_the_stamp_comes_from_the_recording_blocks_at_exact_edges(
    origin: tuple[int, int, int], size: tuple[int, int, int], stamp: int
) -> None:
    _fields, ended = record_on_a_stand_in_gpu(Window(origin, size))
    assert ended == stamp
