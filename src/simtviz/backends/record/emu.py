"""The ``record`` experiment on simtviz's lockstep CPU emulator (``simtviz.emu``), NumPy only.

The recording kernel's own source (kernels/record.py, read as text) runs over every thread at
once; what it records is what numba's simulator records: no SM and no clock (``smid`` and
``t_ns`` stay -1, as there), every other field verified against the formulas.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from simtviz.backends.base import BackendInfo, Progress
from simtviz.backends.record.sim import window_array
from simtviz.core.errors import KernelFailed
from simtviz.core.oracle import verify
from simtviz.core.recording import Recording
from simtviz.core.schema import RECORD_FIELDS, allocate

BACKEND_ID = "emu"


def recording_blocks(config: Any, window: Any) -> np.ndarray | None:
    """Linear ids of the blocks with a thread inside ``window`` (None: every block).

    The kernel stores only inside the window and, here as on the simulator, skips its clock
    barrier, so the other blocks change nothing: a recording window of a huge launch runs only
    its own blocks (the simulator runs them all, to the same result).
    """
    if window.covers(config):
        return None
    block, grid = config.block.as_tuple(), config.grid.as_tuple()
    axes = [
        np.arange(o // b, (o + s - 1) // b + 1, dtype=np.int64)
        for o, s, b in zip(window.origin, window.size, block, strict=True)
    ]
    z, y, x = np.meshgrid(axes[2], axes[1], axes[0], indexing="ij")
    return np.ravel(x + grid[0] * (y + grid[1] * z))


def record_in_emulator(
    request: Any, info: BackendInfo | None = None, progress: Progress | None = None
) -> Recording:
    """Run the request's launch on the emulator and verify every thread against the formulas."""
    from simtviz import emu

    config, window = request.config, request.chosen_window
    fields = allocate(window.threads)
    module = emu.load_module("simtviz.kernels.record")
    args: list[Any] = [fields[name] for name in RECORD_FIELDS]
    args += [window_array(window), np.zeros(1, dtype=np.int64)]
    start = time.perf_counter()
    try:
        emu.launch(
            module,
            "record_threads",
            config.grid.as_tuple(),
            config.block.as_tuple(),
            args,
            progress=progress,
            block_ids=recording_blocks(config, window),
            unwatched=tuple(RECORD_FIELDS),  # each thread writes its own row
        )
    except emu.KernelError as exc:
        raise KernelFailed(f"the kernel raised {type(exc).__name__}: {exc}") from exc
    seconds = time.perf_counter() - start
    if progress:
        progress(1.0)
    t0 = time.perf_counter()
    verification = verify(fields, config, window)
    verify_ms = (time.perf_counter() - t0) * 1000
    return Recording(
        config,
        window,
        fields,
        BACKEND_ID,
        verification,
        # No GPU clock on the emulator: kernel time on a GPU is unknown here, not zero.
        {"wall_ms": seconds * 1000, "kernel_ms": None, "verify_ms": verify_ms, "copy_ms": None},
    )
